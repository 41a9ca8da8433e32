/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qint: what the query files share among themselves (not an API). */
#ifndef WEFT_QINT_H
#define WEFT_QINT_H

#include "emu/emu.h"
#include "query/query.h"
#include "util/macros.h"

/* The ovni thread states by number (enum th_state). */
#define QSTATE_N 6
extern const char *const qstate_name[QSTATE_N];

/* A fetched attribute value. Text values point into the trace, the payload,
 * the scratch buffer or buf. */
struct qv {
	int ok;                 /* 0: the event has no such attribute */
	int is_str;
	int64_t i;              /* integer, interned id or state number */
	const char *s;
	size_t n;
	char buf[4];
};

/* Attributes constant per stream: its loom, process and thread. */
static inline int qkind_per_stream(enum qattr_kind k)
{
	return k == QA_LOOM || k == QA_STREAM || k == QA_PID || k == QA_TID || k == QA_RANK || k == QA_APP;
}

/* Integer built-ins: 1 and *x set, or 0 when the event has none. */
static inline int int_attr(const struct query *q, enum qattr_kind k, const struct weft_ev *ev,
			   uint64_t chrono, int64_t *x)
{
	const struct weft_thread *th = ev->stream ? ev->stream->thread : NULL;
	switch (k) {
	case QA_TIME:
		*x = (int64_t) (ev->time - q->t0);
		return 1;
	case QA_CLOCK:
		*x = (int64_t) ev->clock;
		return 1;
	case QA_CHRONO:
		*x = (int64_t) chrono;
		return 1;
	case QA_PID:
		if (!th)
			return 0;
		*x = th->proc->pid;
		return 1;
	case QA_TID:
		if (!th)
			return 0;
		*x = th->tid;
		return 1;
	case QA_RANK:
		if (!th || !th->proc->has_rank)
			return 0;
		*x = th->proc->rank;
		return 1;
	case QA_APP:
		if (!th || !th->proc->has_app_id)
			return 0;
		*x = th->proc->app_id;
		return 1;
	case QA_MSTATE:
		/* a->model is not at hand here: int_attr_mstate() handles it */
		return 0;
	case QA_CPU:
		if (q->emu && ev->stream) {
			const struct emu_thread *t = &q->emu->sys.th[ev->stream->index];
			if (t->cpu) {
				*x = t->cpu->sys->index;
				return 1;
			}
		}
		return 0;
	default:
		return 0;
	}
}

/* state.<model> of a model other than ovni: the thread's value, if the model
 * is in use in this trace. */
static inline int mstate_attr(const struct query *q, char model, const struct weft_ev *ev, int64_t *x)
{
	if (!q->emu || !ev->stream)
		return 0;
	int k = q->emu->models.slot[mcv_index(model)];
	if (k < 0 || k >= EMU_MODEL_STATES) /* only the first models' states are kept */
		return 0;
	*x = q->emu->sys.th[ev->stream->index].model_state[k];
	return 1;
}

/* The interned id of an enumerated attribute, or -1. */
static inline int enum_id(const struct query *q, enum qattr_kind k, const struct weft_ev *ev)
{
	switch (k) {
	case QA_MODEL:
	case QA_MODEL_NAME:
		return ev->model - MCV_FIRST;
	case QA_CAT:
		return ev->cat - MCV_FIRST;
	case QA_VAL:
		return ev->val - MCV_FIRST;
	case QA_LOOM:
		return ev->stream && ev->stream->thread ? ev->stream->thread->proc->loom->gindex : -1;
	case QA_STREAM:
		return ev->stream ? ev->stream->index : -1;
	case QA_STATE:
		return q->emu && ev->stream ? (int) q->emu->sys.th[ev->stream->index].state : -1;
	default:
		return -1;
	}
}

/* The MCV as one nonzero number (memo keys). */
static inline uint32_t qmcv_key(const struct weft_ev *ev)
{
	return (uint32_t) ev->model << 16 | (uint32_t) ev->cat << 8 | ev->val;
}

/* Fill a field attribute's memo for the event's MCV. */
void qfield_memo(struct query *q, const struct qattr *a, const struct weft_ev *ev);

/* Does the event's payload hold the memo's field? */
static inline int field_ok(struct query *q, const struct qattr *a, const struct weft_ev *ev)
{
	if (__builtin_expect(a->memo_key != qmcv_key(ev), 0))
		qfield_memo(q, a, ev);
	if (__builtin_expect(ev->payload_len == a->memo_len, 1))
		return a->memo_in != NULL;
	/* another size the row accepts (model.h): the field must be in it */
	const struct evinfo *in = a->memo_in;
	if (!in || !ev_payload_ok(in, ev))
		return 0;
	const struct evfield *f = &in->f[a->memo_idx];
	return f->type == EVF_STR || f->type == EVF_BYTES || f->off + f->size <= ev->payload_len;
}

/* An integer payload field (a->type QT_INT): 1 and *x set, or 0. */
static inline int field_int(struct query *q, const struct qattr *a, const struct weft_ev *ev, int64_t *x)
{
	if (!field_ok(q, a, ev))
		return 0;
	*x = ev_field(a->memo_in, a->memo_idx, ev);
	return 1;
}

int qop_int(const struct qcond *c, int64_t x);
int qop_str(const struct qcond *c, const char *s, size_t n);
void qfetch(struct query *q, const struct qattr *a, const struct weft_ev *ev, uint64_t chrono,
	    struct qv *v);
int qeval(struct query *q, const struct qnode *n, const struct weft_ev *ev, uint64_t chrono);
/* Index into a->loc for this MCV, or -1. */
int qfield_loc(const struct qattr *a, uint32_t mcv);

WEFT_MUST_CHECK int qbind_pattern(struct query *q, struct qpattern *p, struct weft_err *e);
/* Build the prefilter, the live conjuncts and the slots from the patterns
 * and the time conditions' current values (syncs the slots first). */
void qbuild_prefilter(struct query *q);
/* Free the prefilter's blocks and classes. */
void qfree_prefilter(struct query *q);

/* Fill p->conj from p->root. */
void qsplit_conj(struct qpattern *p);
void qattr_free(struct qattr *a);
void qattr_copy(struct qattr *dst, const struct qattr *src);
void qpattern_free(struct qpattern *p);
/* Resolve an attribute name; 0 or -1 with a message in msg. */
int qresolve_attr(struct query *q, const char *name, size_t n, struct qattr *a, char *msg,
		  size_t msgsz);
/* The registered models' names, comma-separated, cut to fit buf (attr.c). */
void qmodel_names(const struct query *q, char *buf, size_t sz);

/* ---- slots (slots.c) ---- */

/* Rebuild the slots from the classes and stream masks. */
void qslots_build(struct query *q);
/* Recompute what each slot leaves to do (q->active changed). */
void qslots_todo(struct query *q);
/* Drop the slot counters (a new run). */
void qslots_discard(struct query *q);
/* Decide the class-0 skip from the events since the last checkpoint;
 * returns the trace time to the next checkpoint. */
uint64_t qslots_checkpoint(struct query *q, uint64_t time);
/* A run starts: no skip, a first checkpoint soon. */
void qslots_start(struct query *q);
void qslots_free(struct query *q);

/* ---- time phases (phase.c) ---- */

/* Collect the time conditions (the patterns changed); the next event
 * sets the phase. Conditions keep the values the tables were built with,
 * unless the query has too many thresholds for phases. */
void qphase_reset(struct query *q);
/* The next event sets the phase, and rebuilds the tables if a time
 * condition changes value (a new run, maybe with another t0). */
void qphase_restart(struct query *q);
void qphase_free(struct query *q);

/* ---- actions (run.c) ---- */

/* count(attr) and sum(attr) of n events alike in that attribute. */
void qgroup_add(struct query *q, struct qagg *g, const struct weft_ev *ev, uint64_t chrono, uint64_t n);
void qsum_add(struct query *q, struct qagg *g, const struct weft_ev *ev, uint64_t chrono, uint64_t n);
/* query_act for the patterns in `act`, with the labels of all of `labels`
 * (a superset: patterns the slots count are named too); stop: the line
 * says the replay stops there, and is printed even if no pattern prints. */
void qact(struct query *q, const struct weft_ev *ev, uint64_t act, uint64_t labels, int stop);

#endif
