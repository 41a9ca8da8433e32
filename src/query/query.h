/* SPDX-License-Identifier: GPL-3.0-or-later */
/* query: event patterns over the merged event stream (the language: doc/man/weft-query.1).
 *
 *   label: when EXPR do ACTIONS
 *
 * Parsing resolves every attribute once: payload field names through the
 * models' event tables (which MCVs have the field, at which index), state
 * names to numbers, keywords to operators. Binding to an opened trace turns
 * loom names and stream paths into truth tables indexed by interned ids, and
 * builds the MCV prefilter: for every possible MCV (94^3), a class number
 * naming which patterns may match an event with that MCV and which surely do,
 * kept as one block of 94*94 classes per model character (models on which
 * every pattern decides alike share one uniform block). A second level, per
 * stream, says the same from the conditions on loom, pid, tid, rank, app and
 * stream, which are constant per stream. Only the patterns both levels name
 * are evaluated, only when neither decides them, and then only on the
 * conjuncts neither level decides.
 *
 * Time phases: merged time never decreases, so a condition on time keeps
 * its value between two thresholds (`time > 1ms` is false up to 1 ms and
 * true ever after). Within a phase such conditions are constants to the
 * prefilter; an event outside the phase's interval (one compare per event)
 * rebuilds the prefilter for the next phase. A query with many thresholds
 * keeps its time conditions as per-event tests instead.
 *
 * The batch path (query_feed) costs one table lookup and one counter bump
 * per event, without a branch that depends on the event: each (class,
 * stream class) pair is a slot whose counter stands for every pattern the
 * slot decides that only counts, or counts and sums values constant per
 * stream (tid, pid, loom, ...) or summed per slot (time, clock, chrono).
 * Slot counters become pattern counts and groups at query_sync. Only
 * events of slots with something left to evaluate or print branch off
 * (and, while nearly all events are of class 0, those of class 0).
 *
 * Attribute values: mcv/model/cat/val/model_name/loom/stream are text; time
 * (corrected, from the first event), clock (raw), chrono (merged index),
 * pid, tid, rank, app, cpu are integers; state.ovni is a state (name and
 * number); payload fields are integers or text as their table declares. An
 * attribute the event does not have makes its condition false. */
#ifndef WEFT_QUERY_H
#define WEFT_QUERY_H

#include <stdint.h>
#include <stdio.h>
#include <uthash.h>

#include "util/err.h"
#include "trace/event.h"
#include "evtable.h"
#include "require.h"
#include "util/outbuf.h"
#include "util/macros.h"

struct emu;
struct weft_trace;
struct weft_merge;

#define QUERY_MAX_PATTERNS 64
#define QMCV_INDEX(m, c, v) ((((uint32_t) (m) - MCV_FIRST) * MCV_NCHARS + ((uint32_t) (c) - MCV_FIRST)) * MCV_NCHARS + \
			     ((uint32_t) (v) - MCV_FIRST))

/* QOP_NAMED is isNamed(attr): the event has attr and its value is a
 * non-empty text (a name rather than a number); it takes no value. */
enum qop {
	QOP_EQ,
	QOP_NE,
	QOP_LT,
	QOP_LE,
	QOP_GT,
	QOP_GE,
	QOP_IN,
	QOP_NOTIN,
	QOP_CONTAINS,
	QOP_NOTCONTAINS,
	QOP_NAMED
};

enum qattr_kind {
	QA_MCV, QA_MODEL, QA_CAT, QA_VAL, QA_MODEL_NAME,
	QA_TIME, QA_CLOCK, QA_CHRONO,
	QA_LOOM, QA_PID, QA_TID, QA_RANK, QA_APP, QA_CPU, QA_STREAM,
	QA_STATE, QA_FIELD, QA_DESC,
	QA_MSTATE /* state.<model> of a model other than ovni: its state value */
};

/* Where a payload field lives: one entry per MCV whose table row has it. */
struct qfloc {
	uint32_t mcv;   /* QMCV_INDEX */
	uint8_t idx;    /* field index in the evinfo */
	uint8_t is_str;
};

enum qtype { QT_INT, QT_TEXT, QT_STATE, QT_MIXED };

struct qattr {
	enum qattr_kind kind;
	enum qtype type;
	char name[48];          /* as written, for output */
	char model;             /* QA_STATE: model character */
	struct qfloc *loc;      /* QA_FIELD: sorted by mcv */
	int nloc;
	/* QA_FIELD: the last MCV looked up (qmcv_key; 0 = none), its table
	 * row (NULL: the MCV has no such field), the field's index there and
	 * the payload size it declares (UINT64_MAX: a row with a str field,
	 * checked by ev_payload_ok): events of one MCV come in runs */
	uint32_t memo_key;
	int memo_idx;
	uint64_t memo_len;
	const struct evinfo *memo_in;
};

enum qval_kind { QV_INT, QV_STR, QV_RANGE, QV_LIST };

struct qval {
	enum qval_kind kind;
	int64_t lo, hi;         /* QV_INT: lo; QV_RANGE: lo..hi (inclusive) */
	char *s;                /* QV_STR */
	size_t slen;
	struct qval *item;      /* QV_LIST: scalars and ranges */
	int nitem;
};

/* How a condition is evaluated (QCK_FIELD_INT: a field of integer type). */
enum qck { QCK_ENUM, QCK_MCV, QCK_INT, QCK_FIELD, QCK_FIELD_INT };

struct qcond {
	struct qattr a;
	enum qop op;
	struct qval v;
	enum qck ck;
	uint8_t *tab;           /* QCK_ENUM: truth per interned id */
	int ntab;
	uint32_t *codes;        /* QCK_MCV with =, !=, in, notin: packed MCVs */
	int ncodes;
	uint8_t now;            /* time: its value in the current phase (QNOW_*) */
};

/* qcond.now: a time condition is unknown outside a run, or when the query
 * has too many time thresholds to resolve in phases. */
enum { QNOW_UNKNOWN, QNOW_FALSE, QNOW_TRUE };

enum qnode_type { QN_TRUE, QN_AND, QN_OR, QN_NOT, QN_COND, QN_HAS };

struct qnode {
	enum qnode_type type;
	struct qnode *l, *r;
	struct qcond *c;        /* QN_COND; QN_HAS uses c->a only */
	int height;             /* 1 for a leaf; evaluation recurses this deep */
};

/* Bounds that keep the recursive parser, evaluation and freeing within the
 * stack: nested parentheses and not, and the height of the tree (and/or
 * chains grow it by one per connective). Deeper is a usage error. */
#define QUERY_MAX_NEST 1000
#define QUERY_MAX_HEIGHT 10000

/* One group of count(attr). */
struct qgroup {
	UT_hash_handle hh;
	uint64_t n;
	int missing, is_str;
	int64_t i;
	size_t klen;
	char key[];             /* tag byte + value bytes */
};

struct qagg {
	struct qattr a;
	struct qgroup *groups;  /* count(attr) */
	struct qgroup *last;    /* the text group of the previous match */
	struct qgroup *cache[64]; /* integer groups by a hash of the value */
	uint64_t sum;           /* sum(attr), modulo 2^64 */
};

struct qpattern {
	char *label;
	char *text;             /* the pattern as given */
	struct qnode *root;
	/* What is left to test once the prefilter says the event may match: the
	 * top-level conjuncts of root that depend neither on the MCV alone nor on
	 * the stream alone (those are true whenever both prefilter levels name
	 * the pattern). */
	struct qnode **conj;
	int nconj;
	/* conj without the conjuncts the current time phase makes true */
	struct qnode **live;
	int nlive;
	int depth;              /* 0..3: how much of the MCV the expression looks at */
	int needs_emu;          /* uses state.<model> or cpu */
	struct qattr *cur;      /* current(...) */
	int ncur;
	int count;
	struct qagg *cby;       /* count(attr) */
	int ncby;
	struct qagg *sum;       /* sum(attr) */
	int nsum;
	int first, last, stop;
	/* do_synchro: the analyser resumes the replay (-i: a stop) */
	int sync;
	/* call(NAME), in order */
	char **calls;
	int ncalls;
	/* prints its matches (current, call, or no count/sum) */
	int prints;
	/* whose pattern (weft serve: an analyser); labels are unique per owner */
	const void *owner;
	/* run state */
	uint64_t matches;
	int done;               /* `first` fired */
	char *saved;            /* `last`: the rendered line of the last match */
	size_t saved_len;
};

struct qclass {
	uint64_t maybe, sure;
};

/* The batch counters of one (class, stream class) pair. */
struct qslot {
	uint64_t n;             /* events since the last sync */
	uint64_t todo;          /* patterns its events must still be checked or acted on for */
};

/* A stream class: streams alike for every pattern (masks and the values
 * counted or summed per stream). */
struct qsclass {
	uint64_t maybe, sure;
	int exact;              /* the masks are a stream's (0: the stream is unknown) */
	const struct weft_stream *rep; /* one of its streams (NULL: no stream) */
};

/* Per slot, when a pattern it counts sums time, clock or chrono (clock
 * and time in the order of struct weft_ev: one vector add). */
struct qacc {
	uint64_t clock, time, chrono;
};

struct query {
	const struct evtable *tab; /* the event tables: own_tab or a caller's */
	struct evtable own_tab;
	struct qpattern *pat[QUERY_MAX_PATTERNS];
	int npat;
	int needs_emu;
	int json;
	/* the run has no emulator: refuse patterns that need it */
	int no_models;

	/* binding */
	const struct weft_trace *tr;
	struct emu *emu;
	int bound;

	/* prefilter: class per MCV, class 0 = no pattern can match:
	 * blk[model][(cat - 0x21) * 94 + val - 0x21]; a model byte that is no
	 * model character (outside 0x21..0x7e) has the block of class 0 */
	uint32_t *blk[256];
	uint32_t **owned;       /* every block allocated, to free */
	int nowned;
	struct qclass *classes;
	int nclasses;
	/* second level, per stream (loom, pid, tid, rank, app and stream are
	 * constant per stream): which patterns may / surely match there; entry
	 * nsmask is for events without a stream */
	uint64_t *smaybe, *ssure;
	int nsmask;
	uint64_t nocond;        /* patterns with nothing left to test (live empty) */
	uint64_t active;        /* patterns still checked */
	uint64_t heavymask;     /* patterns whose matches need more than a count */
	uint64_t linemask;      /* ... that print, keep a line, stop or end (not only aggregate) */
	/* patterns with do_synchro or stop */
	uint64_t syncmask;

	/* slots (slots.c): slot = class + soff[stream entry] */
	struct qslot *slot;
	uint64_t *sfast;        /* per slot: the patterns its counter stands for */
	uint64_t *ssure_in;     /* per slot: the patterns of its todo it surely matches */
	int sexact;             /* stream classes know their streams' masks (else the
				 * per-event path applies them) */
	struct qacc *acc;       /* per slot, or NULL when nothing sums per slot */
	uint32_t *soff;         /* per stream entry (as smaybe): stream class * nclasses */
	struct qsclass *scl;    /* per stream class */
	int nslots, nsclass;
	int slot_cap;           /* above this many slots, coarser stream classes (1 << 16) */
	/* class 0 has nothing to count: while nearly every event is of class
	 * 0, query_feed leaves before the slot (a branch then predicted
	 * right); checkpoints decide, every ck_span ns of trace time */
	uint32_t cmin;          /* 1: events of class 0 leave at once */
	uint64_t ck_span, ck_time, ck_chrono, ck_pass;

	/* time phases (phase.c): the phase holds while time - tlo < tlen */
	uint64_t tlo, tlen;
	struct qcond **tcond;   /* every time condition */
	int ntcond;
	int tphased;            /* 0: too many thresholds, time conditions stay per event */

	/* run */
	uint64_t t0;
	uint64_t chrono;        /* events seen so far */
	int stopped;            /* a `stop` pattern matched */
	struct outbuf *out;
	struct outbuf scratch;  /* sentences (desc), fd -1: never written out */
	struct outbuf line;     /* lines kept by `last`, fd -1 */
	const struct qattr **ubuf; /* attributes of one output line */
	int ucap;
	struct qattr def[9];    /* chrono time mcv loom pid tid desc, cpu state.ovni */
};

/* ---- set-up ---------------------------------------------------------------- */

/* An empty query over the event tables of the models handed in (the
 * command's registry, which outlives the query). */
WEFT_MUST_CHECK int query_init(struct query *q, const struct model_set *models, struct weft_err *e);
/* The same over tables the caller compiled (evtable_init) and keeps until
 * query_free: many queries share one compilation (a fuzzing loop). */
WEFT_MUST_CHECK int query_init_tab(struct query *q, const struct evtable *tab, struct weft_err *e);
void query_free(struct query *q);

/* Parse one pattern; `where` prefixes errors ("pattern 2", "x.txt:4"), e.g.
 * "pattern 1, column 17: expected an operator (...), found \"foo\"". The
 * error code is WEFT_EUSAGE. If the query is bound, the pattern is bound and
 * the prefilter rebuilt. */
WEFT_MUST_CHECK int query_add(struct query *q, const char *text, const char *where, struct weft_err *e);
/* A bare expression (dump --filter): a pattern labelled "filter" with no
 * action. */
WEFT_MUST_CHECK int query_add_filter(struct query *q, const char *expr, const char *where, struct weft_err *e);
/* The same for an owner (weft serve's analysers): labels are unique per
 * owner; query_add is query_add_for(q, NULL, ...). */
WEFT_MUST_CHECK int query_add_for(struct query *q, const void *owner, const char *text, const char *where,
				  struct weft_err *e);
/* Remove a pattern by label: 0, or -1 when there is none. */
int query_remove(struct query *q, const char *label);
int query_remove_for(struct query *q, const void *owner, const char *label);
/* The index of an owner's pattern, or -1. */
int query_find(const struct query *q, const void *owner, const char *label);
/* Remove every pattern of an owner (one rebuild); returns how many. */
int query_remove_owner(struct query *q, const void *owner);
/* Move a pattern, with its counts and kept lines, to another query of the
 * same trace: query_take detaches pattern k; query_put installs it (bound
 * as query_add would) or frees it and fails (too many patterns). */
struct qpattern *query_take(struct query *q, int k);
WEFT_MUST_CHECK int query_put(struct query *q, struct qpattern *p, struct weft_err *e);
/* Parse an attribute list "a, b, c" (interactive current); returns the
 * count or -1. *out is allocated. */
WEFT_MUST_CHECK int query_parse_attrs(struct query *q, const char *text, const char *where, struct qattr **out,
				      struct weft_err *e);
void query_free_attrs(struct qattr *a, int n);

/* Bind to an opened trace (and the emulator, if it runs: state.<model> and
 * cpu need it) and build the prefilter. Can be called again after reopening. */
WEFT_MUST_CHECK int query_bind(struct query *q, const struct weft_trace *tr, struct emu *emu, struct weft_err *e);
/* After query_bind: for each condition `loom = "X"` (or `in [...]`)
 * naming a loom the trace lacks, and each `mcv = "XYZ"` naming an MCV that
 * no model's event table has or whose model no stream of the trace uses
 * (ovni's aside), say(arg, text) with a sentence naming the pattern and
 * what is missing: such a pattern can match nothing. */
void query_check_names(const struct query *q, void (*say)(void *arg, const char *text), void *arg);
/* Start a run: t0 is the corrected time of the first event; counts reset. */
void query_start(struct query *q, uint64_t t0);
/* t0 of a merge just initialised: the time of the event it will return
 * first (0 for an empty trace). */
uint64_t query_merge_t0(const struct weft_merge *m);

/* ---- per event --------------------------------------------------------------- */

/* Leave the current time phase: set every time condition for `time` and,
 * if one changed, sync the slots and rebuild the prefilter; at a
 * checkpoint, decide the class-0 skip. */
void query_phase(struct query *q, uint64_t time);
/* Turn the slot counters into pattern counts, groups and sums (a run's end,
 * before the patterns change). */
void query_sync(struct query *q);
uint64_t query_match_slow(struct query *q, const struct weft_ev *ev, uint32_t cls, uint64_t chrono);

/* The stream entry of an event (as smaybe): events without a stream, and
 * streams the query was not bound to, share the last one. */
static inline uint32_t query_stream_entry(const struct query *q, const struct weft_ev *ev)
{
	uint32_t si = ev->stream ? (uint32_t) ev->stream->index : (uint32_t) q->nsmask;
	return si < (uint32_t) q->nsmask ? si : (uint32_t) q->nsmask;
}

/* The prefilter class of an event's MCV. */
static inline uint32_t query_class_of(const struct query *q, const struct weft_ev *ev)
{
	return q->blk[ev->model][(uint32_t) ev->cat * MCV_NCHARS + ev->val - (MCV_FIRST * MCV_NCHARS + MCV_FIRST)];
}

/* Every event must pass here, in merged order. Returns the set of patterns
 * the event matched (bit k = q->pat[k]). */
static inline uint64_t query_match(struct query *q, const struct weft_ev *ev)
{
	uint64_t chrono = q->chrono++;
	if (__builtin_expect(ev->time - q->tlo >= q->tlen, 0))
		query_phase(q, ev->time);
	uint32_t c = query_class_of(q, ev);
	if (__builtin_expect(c == 0, 1))
		return 0;
	return query_match_slow(q, ev, c, chrono);
}

/* The prefilter class of an MCV (tests). */
static inline uint32_t query_class(const struct query *q, uint8_t m, uint8_t c, uint8_t v)
{
	return q->blk[m][(c - MCV_FIRST) * MCV_NCHARS + (v - MCV_FIRST)];
}

/* The rest of query_feed, for an event of a slot with something to do. */
int query_hit(struct query *q, const struct weft_ev *ev, uint32_t cls, uint32_t slot);

/* Match and act (the batch driver's path); nonzero when the run should end
 * (a stop matched, or every pattern is done). The query is bound and the
 * event comes from a stream of the bound trace. Counts live in the slots
 * until query_sync (query_summary syncs). */
static inline int query_feed(struct query *q, const struct weft_ev *ev)
{
	uint64_t chrono = q->chrono++;
	if (__builtin_expect(ev->time - q->tlo >= q->tlen, 0))
		query_phase(q, ev->time);
	uint32_t c = query_class_of(q, ev);
	if (c < q->cmin)
		return 0; /* class 0 while nearly all events are (slots.c) */
	uint32_t id = c + q->soff[ev->stream->index];
	struct qslot *s = &q->slot[id];
	s->n++;
	if (q->acc) {
		struct qacc *a = &q->acc[id];
		a->clock += ev->clock;
		a->time += ev->time;
		a->chrono += chrono;
	}
	if (__builtin_expect(s->todo != 0, 0))
		return query_hit(q, ev, c, id);
	return 0;
}

/* Run the actions of the patterns in `mask` for the event just matched
 * (its chrono is q->chrono - 1): count, sum, keep, print, stop. */
void query_act(struct query *q, const struct weft_ev *ev, uint64_t mask);
/* query_act for an analyser of weft serve: the line says "stop":true when
 * stop is set, and is then printed even if no pattern in mask prints (with
 * the default attributes). */
void query_act_line(struct query *q, const struct weft_ev *ev, uint64_t mask, int stop);
/* The attributes as one JSON object {"a":v,...} (weft serve's current). */
void query_put_values(struct query *q, struct outbuf *o, const struct weft_ev *ev, uint64_t chrono,
		      const struct qattr *attrs, int nattrs);
/* Pattern k's summary object {"label":...,"matches":N,...}, as in the
 * --json summary line (sync first). */
void query_pattern_json(struct query *q, int k, struct outbuf *o);
/* A text value as text output prints it (bare, or quoted when it must be);
 * a JSON string of bytes (each byte outside ' '..'~' as \u00XX). */
void query_put_text(struct outbuf *o, const char *s, size_t n);
void query_put_json_str(struct outbuf *o, const char *s, size_t n);
/* Print one line for an event: labels then attributes (text or JSON). */
void query_print_event(struct query *q, const struct weft_ev *ev, uint64_t chrono,
		       const char *const *labels, int nlabels, const struct qattr *attrs, int nattrs);
/* The attributes printed when a pattern names none: chrono time mcv loom pid
 * tid desc; `with_state` adds cpu and state.ovni. Returns the count. */
int query_default_attrs(struct query *q, int with_state, const struct qattr **out);
/* End of a run: the saved `last` lines, then counts and sums (syncs
 * first). */
void query_summary(struct query *q, uint64_t events);

/* The truth of a pattern's expression for one event (tests). */
int query_eval(struct query *q, int pattern, const struct weft_ev *ev, uint64_t chrono);

#endif
