/* SPDX-License-Identifier: GPL-3.0-or-later */
/* phase: conditions on time as constants between thresholds.
 *
 * Merged time never decreases (ordered streams, merge.h), so `time OP X`
 * changes its value only where time crosses one of a few thresholds. A
 * phase is the interval between two consecutive thresholds that holds the
 * current event; within it every time condition is a constant the
 * prefilter folds: a conjunct that is true drops out, one that is false
 * takes its pattern out of every class. The per-event check is
 * time - tlo < tlen (unsigned); an event outside the interval, on either
 * side (so nothing wrong follows should time ever go back), sets the phase
 * it lies in, and rebuilds the prefilter if a condition changed value.
 *
 * A threshold is a time whose value differs from the time just before.
 * Each phase costs a prefilter build, so with more than QPHASE_MAX
 * constants in all time conditions, they stay per-event tests. The same
 * check also stops at the slots' checkpoints (slots.c). */
#include <stdlib.h>

#include "query/qint.h"

#define QPHASE_MAX 32

static void collect(struct query *q, struct qnode *n, int *cap)
{
	if (!n)
		return;
	if (n->type == QN_COND && n->c->a.kind == QA_TIME) {
		if (q->ntcond == *cap) {
			*cap = *cap ? 2 * *cap : 8;
			q->tcond = weft_xrealloc(q->tcond, (size_t) *cap * sizeof(*q->tcond));
		}
		q->tcond[q->ntcond++] = n->c;
	}
	collect(q, n->l, cap);
	collect(q, n->r, cap);
}

static int nconst(const struct qval *v)
{
	int n = 0;
	switch (v->kind) {
	case QV_INT:
		return 1;
	case QV_RANGE:
		return 2;
	case QV_LIST:
		for (int i = 0; i < v->nitem; i++)
			n += nconst(&v->item[i]);
		return n;
	default:
		return 0;
	}
}

void qphase_reset(struct query *q)
{
	int cap = 0, n = 0;
	free(q->tcond);
	q->tcond = NULL;
	q->ntcond = 0;
	for (int k = 0; k < q->npat; k++)
		collect(q, q->pat[k]->root, &cap);
	for (int i = 0; i < q->ntcond; i++)
		n += nconst(&q->tcond[i]->v);
	q->tphased = q->ntcond > 0 && n <= QPHASE_MAX;
	/* values kept (the tables agree with them) unless no phase will
	 * maintain them */
	for (int i = 0; i < q->ntcond && !q->tphased; i++)
		q->tcond[i]->now = QNOW_UNKNOWN;
	qphase_restart(q);
}

void qphase_restart(struct query *q)
{
	/* tlen 0: the next event sets the phase (and the next checkpoint) */
	q->tlo = 0;
	q->tlen = 0;
}

void qphase_free(struct query *q)
{
	free(q->tcond);
	q->tcond = NULL;
	q->ntcond = 0;
}

/* The thresholds nearest t: the last at or before it, the first after. */
struct bounds {
	int64_t t, lo, hi;
	int has_lo, has_hi;
};

static void see(const struct qcond *c, int64_t b, struct bounds *s)
{
	if (b == INT64_MIN || qop_int(c, b - 1) == qop_int(c, b))
		return;
	if (b <= s->t) {
		if (!s->has_lo || b > s->lo)
			s->lo = b;
		s->has_lo = 1;
	} else {
		if (!s->has_hi || b < s->hi)
			s->hi = b;
		s->has_hi = 1;
	}
}

/* A constant x can start a new value at x or at x + 1. */
static void see_const(const struct qcond *c, int64_t x, struct bounds *s)
{
	see(c, x, s);
	if (x != INT64_MAX)
		see(c, x + 1, s);
}

static void see_val(const struct qcond *c, const struct qval *v, struct bounds *s)
{
	switch (v->kind) {
	case QV_INT:
		see_const(c, v->lo, s);
		break;
	case QV_RANGE:
		see_const(c, v->lo, s);
		see_const(c, v->hi, s);
		break;
	case QV_LIST:
		for (int i = 0; i < v->nitem; i++)
			see_val(c, &v->item[i], s);
		break;
	default:
		break;
	}
}

void query_phase(struct query *q, uint64_t time)
{
	/* the interval where every time condition keeps its value */
	q->tlo = time;
	q->tlen = UINT64_MAX;
	if (q->tphased) {
		struct bounds s = {0};
		int changed = 0;
		s.t = (int64_t) (time - q->t0); /* as the time attribute */
		for (int i = 0; i < q->ntcond; i++) {
			struct qcond *c = q->tcond[i];
			uint8_t now = qop_int(c, s.t) ? QNOW_TRUE : QNOW_FALSE;
			changed |= now != c->now;
			c->now = now;
			see_val(c, &c->v, &s);
		}
		/* [lo, hi) in relative time, biased so that signed order is
		 * unsigned order, then moved to absolute time */
		const uint64_t bias = 1ull << 63;
		uint64_t ulo = s.has_lo ? (uint64_t) s.lo ^ bias : 0;
		if (s.has_hi)
			q->tlen = ((uint64_t) s.hi ^ bias) - ulo;
		else
			q->tlen = ulo ? 0 - ulo : UINT64_MAX;
		q->tlo = q->t0 - bias + ulo;
		if (changed)
			qbuild_prefilter(q);
	}
	/* and no further than the next checkpoint */
	uint64_t off = time - q->tlo, span = qslots_checkpoint(q, time);
	uint64_t end = off + span < off ? UINT64_MAX : off + span;
	if (end < q->tlen)
		q->tlen = end;
}
