/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slots: the batch path's counters (query_feed).
 *
 * Streams alike for every pattern (same per-stream masks, same values of
 * the stream attributes a pattern counts or sums) form a stream class. A
 * slot is a (prefilter class, stream class) pair: it knows which patterns
 * its events may match and which they surely match. The patterns it surely
 * matches whose actions are counts, count(attr) or sum(attr) of a stream
 * attribute (loom, stream, pid, tid, rank, app), and sum(time), sum(clock)
 * or sum(chrono), need nothing per event but the slot's event counter (and
 * three running sums). query_sync turns the counters into counts, groups
 * and sums, with one of the class's streams standing for its events. A
 * slot's `todo` names what is left per event: patterns to evaluate, and
 * patterns that print, keep or stop.
 *
 * The table has nclasses slots per stream class. When that would be
 * large, stream classes stop telling streams apart by counted values, and
 * then stop telling them apart at all (the per-event path applies the
 * stream masks itself).
 *
 * Class 0 (no pattern) has nothing to count. Bumping its slot anyway
 * spares query_feed a branch on the class, which mispredicts when events
 * of class 0 and others mix; when nearly all events are of class 0 the
 * branch is predicted right and cheaper than the bump. Checkpoints about
 * every QCK_EVENTS events decide from the counters which way to go. */
#include <stdlib.h>
#include <string.h>

#include "query/qint.h"
#include "trace/trace.h"

/* Checkpoints: about this many events apart, a decision after at least
 * QCK_MIN of them; class 0 skipped at 1 - 1/QCK_SKIP of all events. */
#define QCK_EVENTS (1u << 16)
#define QCK_MIN (1u << 12)
#define QCK_SKIP 20

/* Attributes constant per stream: a slot's representative stream has the
 * value of all its events. */
static int stream_attr(const struct qattr *a)
{
	return qkind_per_stream(a->kind);
}

/* Summed per slot, event by event. */
static int acc_attr(const struct qattr *a)
{
	return a->kind == QA_TIME || a->kind == QA_CLOCK || a->kind == QA_CHRONO;
}

/* Which patterns a slot can count, and which of them count or sum values
 * per stream; *acc: one of them sums per slot. */
static uint64_t slotted(const struct query *q, uint64_t *by_stream, int *acc)
{
	uint64_t m = 0;
	*by_stream = 0;
	*acc = 0;
	for (int k = 0; k < q->npat; k++) {
		const struct qpattern *p = q->pat[k];
		int ok = !p->prints && !p->first && !p->last && !p->stop, bs = 0, ac = 0;
		for (int i = 0; i < p->ncby && ok; i++) {
			ok = stream_attr(&p->cby[i].a);
			bs = 1;
		}
		for (int i = 0; i < p->nsum && ok; i++) {
			ok = stream_attr(&p->sum[i].a) || acc_attr(&p->sum[i].a);
			bs |= stream_attr(&p->sum[i].a);
			ac |= acc_attr(&p->sum[i].a);
		}
		if (!ok)
			continue;
		m |= 1ull << k;
		if (bs)
			*by_stream |= 1ull << k;
		if (ac)
			*acc = 1;
	}
	return m;
}

/* What tells two streams apart: masks, then the stream attributes counted
 * or summed (by kind; zero for the others). */
struct sig {
	uint64_t maybe, sure;
	int64_t v[QA_MSTATE + 1];
	uint8_t ok[QA_MSTATE + 1];
	int entry;
};

static int sig_order(const struct sig *x, const struct sig *y)
{
	if (x->maybe != y->maybe)
		return x->maybe < y->maybe ? -1 : 1;
	if (x->sure != y->sure)
		return x->sure < y->sure ? -1 : 1;
	for (int i = 0; i <= QA_MSTATE; i++) {
		if (x->ok[i] != y->ok[i])
			return x->ok[i] < y->ok[i] ? -1 : 1;
		if (x->v[i] != y->v[i])
			return x->v[i] < y->v[i] ? -1 : 1;
	}
	return 0;
}

static int sig_cmp(const void *a, const void *b)
{
	const struct sig *x = a, *y = b;
	int r = sig_order(x, y);
	return r ? r : x->entry - y->entry;
}

/* The stream classes for stream entries 0..nsmask (the last: no stream);
 * `kinds` says which stream attributes tell classes apart. Returns the
 * count; sc[entry] is each entry's class. */
static int classify(struct query *q, unsigned kinds, int *sc)
{
	int n = q->nsmask + 1;
	struct sig *s = weft_xcalloc((size_t) n, sizeof(*s));
	const struct weft_stream **rep = weft_xcalloc((size_t) n, sizeof(*rep));
	for (int i = 0; q->tr && i < q->tr->nstreams; i++) {
		const struct weft_stream *st = &q->tr->streams[i];
		if (st->index >= 0 && st->index < q->nsmask)
			rep[st->index] = st;
	}
	for (int e = 0; e < n; e++) {
		s[e].maybe = q->smaybe[e];
		s[e].sure = q->ssure[e];
		s[e].entry = e;
		struct weft_ev ev;
		memset(&ev, 0, sizeof(ev));
		ev.stream = (struct weft_stream *) rep[e];
		for (int i = 0; i <= QA_MSTATE; i++) {
			if (!((kinds >> i) & 1))
				continue;
			struct qattr a;
			memset(&a, 0, sizeof(a));
			a.kind = (enum qattr_kind) i;
			struct qv v;
			qfetch(q, &a, &ev, 0, &v);
			s[e].ok[i] = (uint8_t) v.ok;
			s[e].v[i] = v.ok ? v.i : 0;
		}
	}
	qsort(s, (size_t) n, sizeof(*s), sig_cmp);
	int ncl = 0;
	free(q->scl);
	q->scl = weft_xcalloc((size_t) n, sizeof(*q->scl));
	for (int i = 0; i < n; i++) {
		if (i == 0 || sig_order(&s[i], &s[i - 1])) {
			struct qsclass *c = &q->scl[ncl++];
			c->maybe = s[i].maybe;
			c->sure = s[i].sure;
			c->exact = 1;
			c->rep = rep[s[i].entry];
		}
		sc[s[i].entry] = ncl - 1;
	}
	free(rep);
	free(s);
	return ncl;
}

/* The stream attributes the patterns in `by_stream` count or sum. */
static unsigned counted_kinds(const struct query *q, uint64_t by_stream)
{
	unsigned kinds = 0;
	for (uint64_t m = by_stream; m; m &= m - 1) {
		const struct qpattern *p = q->pat[__builtin_ctzll(m)];
		for (int i = 0; i < p->ncby; i++)
			kinds |= 1u << p->cby[i].a.kind;
		for (int i = 0; i < p->nsum; i++)
			if (stream_attr(&p->sum[i].a))
				kinds |= 1u << p->sum[i].a.kind;
	}
	return kinds;
}

void qslots_free(struct query *q)
{
	free(q->slot);
	free(q->sfast);
	free(q->ssure_in);
	free(q->acc);
	free(q->soff);
	free(q->scl);
	q->slot = NULL;
	q->sfast = NULL;
	q->ssure_in = NULL;
	q->acc = NULL;
	q->soff = NULL;
	q->scl = NULL;
	q->nslots = q->nsclass = 0;
}

void qslots_build(struct query *q)
{
	qslots_free(q);
	uint64_t by_stream;
	int acc;
	uint64_t can = slotted(q, &by_stream, &acc);
	int n = q->nsmask + 1;
	int *sc = weft_xcalloc((size_t) n, sizeof(int));
	int ncl = classify(q, counted_kinds(q, by_stream), sc);
	if ((size_t) ncl * (size_t) q->nclasses > (size_t) q->slot_cap) {
		/* stream classes by masks alone: per-stream values go per event */
		can &= ~by_stream;
		ncl = classify(q, 0, sc);
	}
	if ((size_t) ncl * (size_t) q->nclasses > (size_t) q->slot_cap) {
		/* one class that knows no stream: the masks go per event too */
		ncl = 1;
		q->scl[0].maybe = ~0ull;
		q->scl[0].sure = 0;
		q->scl[0].exact = 0;
		q->scl[0].rep = NULL;
		can &= ~by_stream;
		memset(sc, 0, (size_t) n * sizeof(int));
	}
	q->nsclass = ncl;
	q->nslots = ncl * q->nclasses;
	q->slot = weft_xcalloc((size_t) q->nslots, sizeof(*q->slot));
	q->sfast = weft_xcalloc((size_t) q->nslots, sizeof(*q->sfast));
	q->ssure_in = weft_xcalloc((size_t) q->nslots, sizeof(*q->ssure_in));
	q->sexact = q->scl[0].exact;
	q->acc = acc ? weft_xcalloc((size_t) q->nslots, sizeof(*q->acc)) : NULL;
	q->soff = weft_xcalloc((size_t) n, sizeof(*q->soff));
	for (int e = 0; e < n; e++)
		q->soff[e] = (uint32_t) (sc[e] * q->nclasses);
	free(sc);
	for (int s = 0; s < ncl; s++) {
		const struct qsclass *x = &q->scl[s];
		for (int c = 0; c < q->nclasses; c++) {
			uint64_t may = q->classes[c].maybe & x->maybe;
			uint64_t sure = (q->classes[c].sure | x->sure | (x->exact ? q->nocond : 0)) & may;
			q->sfast[s * q->nclasses + c] = sure & can;
		}
	}
	qslots_todo(q);
}

void qslots_todo(struct query *q)
{
	for (int s = 0; s < q->nsclass; s++) {
		const struct qsclass *x = &q->scl[s];
		for (int c = 0; c < q->nclasses; c++) {
			int id = s * q->nclasses + c;
			uint64_t todo = q->classes[c].maybe & x->maybe & q->active & ~q->sfast[id];
			q->slot[id].todo = todo;
			q->ssure_in[id] = x->exact ? (q->classes[c].sure | x->sure | q->nocond) & todo : 0;
		}
	}
}

void qslots_discard(struct query *q)
{
	for (int i = 0; i < q->nslots; i++)
		q->slot[i].n = 0;
	if (q->acc)
		memset(q->acc, 0, (size_t) q->nslots * sizeof(*q->acc));
	q->ck_pass = 0;
}

void qslots_start(struct query *q)
{
	q->cmin = 0;
	q->ck_span = 1u << 14;
	q->ck_time = q->t0;
	q->ck_chrono = q->chrono;
	q->ck_pass = 0;
}

uint64_t qslots_checkpoint(struct query *q, uint64_t time)
{
	/* events of other classes since the last sync (the counters were
	 * zeroed then: the window may look short of them, once) */
	uint64_t pass = 0;
	for (int s = 0; s < q->nsclass; s++)
		for (int c = 1; c < q->nclasses; c++)
			pass += q->slot[s * q->nclasses + c].n;
	uint64_t events = q->chrono - q->ck_chrono;
	uint64_t win = pass >= q->ck_pass ? pass - q->ck_pass : pass;
	uint64_t dt = time - q->ck_time;
	if (events >= QCK_MIN) {
		q->cmin = win * QCK_SKIP <= events;
		q->ck_span = dt / events * QCK_EVENTS + (dt % events) * QCK_EVENTS / events;
	} else {
		q->ck_span *= 2;
	}
	if (q->ck_span < 1024)
		q->ck_span = 1024;
	if (q->ck_span > (1ull << 40))
		q->ck_span = 1ull << 40;
	q->ck_time = time;
	q->ck_chrono = q->chrono;
	q->ck_pass = pass;
	return q->ck_span;
}

void query_sync(struct query *q)
{
	for (int id = 0; id < q->nslots; id++) {
		uint64_t n = q->slot[id].n;
		uint64_t fast = q->sfast[id];
		if (!n || !fast)
			continue;
		struct weft_ev ev;
		memset(&ev, 0, sizeof(ev));
		ev.stream = (struct weft_stream *) q->scl[id / q->nclasses].rep;
		const struct qacc *a = q->acc ? &q->acc[id] : NULL;
		for (; fast; fast &= fast - 1) {
			struct qpattern *p = q->pat[__builtin_ctzll(fast)];
			p->matches += n;
			for (int i = 0; i < p->ncby; i++)
				qgroup_add(q, &p->cby[i], &ev, 0, n);
			for (int i = 0; i < p->nsum; i++) {
				struct qagg *g = &p->sum[i];
				switch (g->a.kind) {
				case QA_TIME: /* the sum of time - t0 */
					g->sum += a->time - n * q->t0;
					break;
				case QA_CLOCK:
					g->sum += a->clock;
					break;
				case QA_CHRONO:
					g->sum += a->chrono;
					break;
				default:
					qsum_add(q, g, &ev, 0, n);
					break;
				}
			}
		}
	}
	qslots_discard(q);
}
