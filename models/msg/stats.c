/* SPDX-License-Identifier: GPL-3.0-or-later */
/* msg model: PICL's statistics records as claims for weft stats (seed
 * §2.3.7; doc/models/msg.md, "Statistics"). A pair (event type, value)
 * relative to an event type is compared with what the sink measured on
 * the record's row; an event type that is a subset (Table 5's predefined
 * ones, -1 for all, or a -203 record's) is the sum over its members, as
 * the seed defines ("return statistics summed over subsets"), and so is a
 * context that is a subset of user event types; a record of several rows
 * (XG*: processor -1, a processor subset, or every process of a processor
 * shown as several rows) is the sum over those rows. The subsets the log
 * defines are kept here, as the XB* events give them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_sets.h"
#include "msg/msg.h"
#include "util/macros.h"

struct msg_sub {
	int kind; /* 0 processors, 1 processes, 2 event types */
	int32_t id;
	int32_t *m;
	int n;
};

struct msg_stats {
	struct msg_sub *sub;
	int nsub, csub;
};

struct rset {
	struct emu_op_range *v;
	int n, cap;
};

struct msg_stats *msg_stats_new(void)
{
	return weft_xcalloc(1, sizeof(struct msg_stats));
}

void msg_stats_free(struct msg_stats *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nsub; i++)
		free(s->sub[i].m);
	free(s->sub);
	free(s);
}

void msg_stats_subset(struct msg_stats *s, int kind, int32_t id, const char *members)
{
	if (s->nsub == s->csub) {
		s->csub = s->csub ? 2 * s->csub : 8;
		s->sub = weft_xrealloc(s->sub, (size_t) s->csub * sizeof(*s->sub));
	}
	struct msg_sub *b = &s->sub[s->nsub++];
	b->kind = kind;
	b->id = id;
	b->n = 0;
	b->m = weft_xcalloc(strlen(members) / 2 + 2, sizeof(*b->m));
	for (const char *p = members; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		b->m[b->n++] = (int32_t) v;
		p = end;
	}
}

/* The newest definition of subset `id` of `kind`, or NULL. */
static const struct msg_sub *subset(const struct msg_stats *s, int kind, int64_t id)
{
	for (int i = s ? s->nsub - 1 : -1; i >= 0; i--)
		if (s->sub[i].kind == kind && s->sub[i].id == id)
			return &s->sub[i];
	return NULL;
}

void msg_thread_ids(const struct emu_thread *t, int32_t *proc, int32_t *process)
{
	const struct weft_meta_kv *a = meta_kv_find(t->sys->kv, t->sys->nkv, "picl.processor");
	const struct weft_meta_kv *b = meta_kv_find(t->sys->kv, t->sys->nkv, "picl.process");
	*proc = a && a->kind == WEFT_KV_INT ? (int32_t) a->i : (int32_t) (t->sys->tid - 1);
	*process = b && b->kind == WEFT_KV_INT ? (int32_t) b->i : -1;
}

static void push(struct rset *r, char model, int64_t lo, int64_t hi)
{
	if (lo > hi)
		return;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->v = weft_xrealloc(r->v, (size_t) r->cap * sizeof(*r->v));
	}
	r->v[r->n++] = (struct emu_op_range){model, (int32_t) lo, (int32_t) hi};
}

/* PICL event types lo..hi as operations: the file I/O ones (-201..-400)
 * are the fileio model's, the others the msg model's but for the numbers
 * of its kept records (-7 messages, -201..-203 subsets, user records from
 * -100000 down), which are no PICL events. */
static void add_types(struct rset *r, int64_t lo, int64_t hi)
{
	static const int64_t cut[][2] = {{INT32_MIN, -100000}, {-203, -201}, {-7, -7}};
	push(r, 'F', lo > -400 ? lo : -400, hi < -201 ? hi : -201);
	int64_t at = lo;
	for (size_t k = 0; k < ARRAY_SIZE(cut) && at <= hi; k++) {
		if (cut[k][0] > at)
			push(r, 'X', at, hi < cut[k][0] - 1 ? hi : cut[k][0] - 1);
		if (cut[k][1] + 1 > at)
			at = cut[k][1] + 1;
	}
	push(r, 'X', at, hi);
}

/* Event type v as a member of a set: -1 all, a predefined subset its
 * members, else itself. */
static void add_member(struct rset *r, int64_t v)
{
	const struct picl_predef *d = picl_predef_of(v);
	if (v == -1) {
		add_types(r, INT32_MIN, INT32_MAX);
	} else if (d) {
		add_types(r, d->lo, d->hi);
		for (int k = 0; k < 4 && d->also[k]; k++)
			add_types(r, d->also[k], d->also[k]);
	} else {
		add_types(r, v, v);
	}
}

/* The set that event type `id` names (a -203 subset, a predefined one, or
 * -1), into r; 0 when it names one event type. */
static int event_set(const struct msg_stats *s, int64_t id, struct rset *r)
{
	const struct msg_sub *b = id < -1 ? subset(s, 2, id) : NULL;
	if (b) {
		for (int k = 0; k < b->n; k++)
			add_member(r, b->m[k]);
		return 1;
	}
	if (id == -1 || picl_predef_of(id)) {
		add_member(r, id);
		return 1;
	}
	return 0;
}

/* Is v in scope value `scope` (-1 all, >= 0 that one, below -1 a subset
 * of `kind`)? */
static int in_scope(const struct msg_stats *s, int kind, int64_t scope, int64_t v)
{
	if (scope == -1 || scope == v)
		return 1;
	const struct msg_sub *b = scope < -1 ? subset(s, kind, scope) : NULL;
	for (int k = 0; b && k < b->n; k++)
		if (b->m[k] == v)
			return 1;
	return 0;
}

/* The rows of a record of processor `proc`, process `process`. */
static int *rows_of(struct emu *e, const struct msg_stats *s, int64_t proc, int64_t process, int *n)
{
	int *v = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*v));
	*n = 0;
	for (int i = 0; i < e->sys.nth; i++) {
		if (!e->sys.th[i].sys->req[mcv_index('X')])
			continue;
		int32_t pr, ps;
		msg_thread_ids(&e->sys.th[i], &pr, &ps);
		/* a row of a processor showing one process holds them all */
		if (in_scope(s, 0, proc, pr) && (ps == -1 || in_scope(s, 1, process, ps)))
			v[(*n)++] = i;
	}
	return v;
}

/* XSt, XSc, XSv (the record's row) and XGt, XGc, XGv (rows given by the
 * record's processor and process: fields 5 and 6). */
int msg_stat(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	const struct msg_stats *s = msg_stats_of(e);
	static const struct {
		char val;
		int32_t record;
		enum emu_claim_what what;
	} kinds[] = {
		{'t', -101, EMU_CLAIM_TIME},
		{'c', -102, EMU_CLAIM_COUNT},
		{'v', -103, EMU_CLAIM_BYTES},
	};
	struct emu_claim c;
	memset(&c, 0, sizeof(c));
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
		if (kinds[k].val == ev->val)
			c.record = kinds[k].record, c.what = kinds[k].what;
	c.op = (int32_t) ev_field(in, 0, ev);
	/* PICL's file I/O is emulated by the fileio model, which numbers its
	 * operations as PICL does */
	c.model = c.op == -201 || c.op == -202 || c.op == -221 || c.op == -251 ? 'F' : 'X';
	c.value = ev_field(in, 1, ev);
	c.ctx = (int32_t) ev_field(in, 2, ev);
	c.ctx_model = c.ctx == -1 ? 0 : 'X';
	c.unit_ns = c.ts_unit_ns = 1;
	if (c.what == EMU_CLAIM_TIME) {
		for (int64_t d = ev_field(in, 3, ev); d < 9; d++)
			c.unit_ns *= 10;
		for (int64_t d = ev_field(in, 4, ev); d < 9; d++)
			c.ts_unit_ns *= 10;
	}
	/* PICL counts these calls without writing their records (§2.3.2): a
	 * row without records of one cannot measure it; one with records (any
	 * event may have them, §2.3.1) can */
	static const int32_t unrecorded[] = {-13, -14, -29, -53, -54, -55, -59};
	for (size_t k = 0; k < ARRAY_SIZE(unrecorded); k++)
		if (c.op == unrecorded[k])
			c.why_not_if_none = "PICL writes no records for this event type, and the log has none";
	struct rset ops = {0}, ctxs = {0};
	if (event_set(s, c.op, &ops)) {
		c.ops = ops.v, c.nops = ops.n;
		if (!ops.n)
			c.why_not = "an event type subset without members";
	}
	if (c.ctx < -1) {
		struct rset all = {0};
		if (!event_set(s, c.ctx, &all)) {
			c.why_not = "relative to a system event type (weft measures within user events)";
		} else {
			/* contexts are user events: a subset of them only */
			for (int k = 0; k < all.n; k++)
				if (all.v[k].lo < 0 && !c.why_not)
					c.why_not =
						"relative to a subset with system event types (weft measures within "
						"user events)";
				else
					push(&ctxs, 'X', all.v[k].lo, all.v[k].hi);
			c.ctxs = ctxs.v, c.nctxs = ctxs.n;
		}
		free(all.v);
	}
	int *rows = NULL;
	char scope[96];
	if (ev->cat == 'G') {
		int64_t proc = ev_field(in, 5, ev), process = ev_field(in, 6, ev);
		rows = rows_of(e, s, proc, process, &c.nthreads);
		c.threads = rows;
		if (process == -1)
			snprintf(scope, sizeof(scope), "processor %lld", (long long) proc);
		else
			snprintf(scope, sizeof(scope), "processor %lld process %lld", (long long) proc,
				 (long long) process);
		c.scope = scope;
		if (!c.nthreads)
			c.why_not = "no row of those processors and processes";
	}
	emu_acct_claim(e, t, &c);
	free(ops.v);
	free(ctxs.v);
	free(rows);
	return 0;
}

void msg_set_label(const struct emu *e, int32_t op, char *buf, int n)
{
	const struct msg_stats *s = msg_stats_of((struct emu *) e);
	const struct picl_predef *d = picl_predef_of(op);
	if (op < -1 && subset(s, 2, op))
		snprintf(buf, (size_t) n, "event type subset %d", op);
	else if (op == -1)
		snprintf(buf, (size_t) n, "all events");
	else if (d)
		snprintf(buf, (size_t) n, "%s", d->name);
	else
		buf[0] = 0;
}
