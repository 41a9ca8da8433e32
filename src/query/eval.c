/* SPDX-License-Identifier: GPL-3.0-or-later */
/* eval: attribute values, conditions, the per-event match behind the
 * prefilter (prefilter.c), binding to a trace, and the query's life cycle. */
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/merge.h"
#include "model.h"
#include "query/qint.h"
#include "trace/trace.h"

/* ---- operators ----------------------------------------------------------- */

static int in_int(const struct qval *v, int64_t x)
{
	switch (v->kind) {
	case QV_INT:
		return x == v->lo;
	case QV_RANGE:
		return x >= v->lo && x <= v->hi;
	case QV_LIST:
		for (int i = 0; i < v->nitem; i++)
			if (in_int(&v->item[i], x))
				return 1;
		return 0;
	default:
		return 0;
	}
}

int qop_int(const struct qcond *c, int64_t x)
{
	const struct qval *v = &c->v;
	if (v->kind == QV_STR && c->op != QOP_IN && c->op != QOP_NOTIN)
		return 0; /* text constant against a number (mixed fields) */
	switch (c->op) {
	case QOP_EQ:
		return x == v->lo;
	case QOP_NE:
		return x != v->lo;
	case QOP_LT:
		return x < v->lo;
	case QOP_LE:
		return x <= v->lo;
	case QOP_GT:
		return x > v->lo;
	case QOP_GE:
		return x >= v->lo;
	case QOP_IN:
		return in_int(v, x);
	case QOP_NOTIN:
		return !in_int(v, x);
	case QOP_CONTAINS:
	case QOP_NOTCONTAINS:
	case QOP_NAMED:
		return 0; /* text operators: a number is no text, and no name */
	}
	return 0;
}

static int cmp_str(const char *a, size_t an, const char *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);
	if (r)
		return r;
	return an < bn ? -1 : an > bn;
}

static int in_str(const struct qval *v, const char *s, size_t n)
{
	if (v->kind == QV_STR)
		return v->slen == n && memcmp(v->s, s, n) == 0;
	if (v->kind == QV_LIST)
		for (int i = 0; i < v->nitem; i++)
			if (in_str(&v->item[i], s, n))
				return 1;
	return 0;
}

int qop_str(const struct qcond *c, const char *s, size_t n)
{
	const struct qval *v = &c->v;
	if (c->op == QOP_NAMED)
		return n > 0;
	if (v->kind != QV_STR && c->op != QOP_IN && c->op != QOP_NOTIN)
		return 0; /* number constant against text (mixed fields) */
	switch (c->op) {
	case QOP_EQ:
		return v->slen == n && memcmp(v->s, s, n) == 0;
	case QOP_NE:
		return !(v->slen == n && memcmp(v->s, s, n) == 0);
	case QOP_LT:
		return cmp_str(s, n, v->s, v->slen) < 0;
	case QOP_LE:
		return cmp_str(s, n, v->s, v->slen) <= 0;
	case QOP_GT:
		return cmp_str(s, n, v->s, v->slen) > 0;
	case QOP_GE:
		return cmp_str(s, n, v->s, v->slen) >= 0;
	case QOP_IN:
		return in_str(v, s, n);
	case QOP_NOTIN:
		return !in_str(v, s, n);
	case QOP_CONTAINS:
	case QOP_NOTCONTAINS: {
		int in = v->slen == 0 || (n >= v->slen && memmem(s, n, v->s, v->slen) != NULL);
		return c->op == QOP_CONTAINS ? in : !in;
	}
	case QOP_NAMED:
		return n > 0;
	}
	return 0;
}

/* ---- attribute values ---------------------------------------------------- */

int qfield_loc(const struct qattr *a, uint32_t mcv)
{
	int lo = 0, hi = a->nloc - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (a->loc[mid].mcv == mcv)
			return mid;
		if (a->loc[mid].mcv < mcv)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

void qfield_memo(struct query *q, const struct qattr *a, const struct weft_ev *ev)
{
	struct qattr *m = (struct qattr *) a; /* the memo only */
	int k = qfield_loc(a, QMCV_INDEX(ev->model, ev->cat, ev->val));
	m->memo_key = qmcv_key(ev);
	m->memo_in = k >= 0 ? evtable_find(q->tab, ev->model, ev->cat, ev->val) : NULL;
	m->memo_idx = m->memo_in ? a->loc[k].idx : -1;
	m->memo_len = !m->memo_in ? 0 : m->memo_in->has_str ? UINT64_MAX : m->memo_in->size;
}

static void field_value(struct query *q, const struct qattr *a, const struct weft_ev *ev,
			struct qv *v)
{
	if (!field_ok(q, a, ev))
		return;
	const struct evinfo *in = a->memo_in;
	const struct evfield *f = &in->f[a->memo_idx];
	v->ok = 1;
	v->is_str = 0;
	if (f->type == EVF_STR) {
		const char *s = (const char *) ev->payload + f->off;
		v->is_str = 1;
		v->s = s;
		v->n = strnlen(s, ev->payload_len - f->off);
	} else {
		v->i = ev_field(in, a->memo_idx, ev);
	}
}

/* The sentence of dump, into the scratch buffer. */
static void desc_value(struct query *q, const struct weft_ev *ev, struct qv *v)
{
	struct outbuf *o = &q->scratch;
	o->len = 0;
	o->failed = 0;
	o->written = 0;
	const struct evinfo *in = evtable_find(q->tab, ev->model, ev->cat, ev->val);
	if (in && ev_payload_ok(in, ev)) {
		ev_sentence(o, in, ev);
	} else {
		if (in)
			ob_str(o, "(payload does not match the declaration) ");
		if (ev->payload_len == 0) {
			ob_str(o, "(no payload)");
		} else {
			uint32_t n = ev->payload_len < 256 ? ev->payload_len : 256;
			ob_room(o, 40);
			ob_str(o, ev->jumbo ? "jumbo payload (" : "payload (");
			ob_room(o, 24);
			ob_u64(o, ev->payload_len);
			ob_str(o, " bytes): ");
			ob_hexbytes(o, ev->payload, n);
			if (n < ev->payload_len)
				ob_str(o, " ...");
		}
	}
	v->ok = 1;
	v->is_str = 1;
	v->s = o->buf;
	v->n = o->len;
}

void qfetch(struct query *q, const struct qattr *a, const struct weft_ev *ev, uint64_t chrono,
	    struct qv *v)
{
	v->ok = 0;
	v->is_str = 0;
	const struct weft_thread *th = ev->stream ? ev->stream->thread : NULL;
	switch (a->kind) {
	case QA_MCV:
		v->buf[0] = (char) ev->model;
		v->buf[1] = (char) ev->cat;
		v->buf[2] = (char) ev->val;
		v->ok = v->is_str = 1;
		v->s = v->buf;
		v->n = 3;
		v->i = QMCV_INDEX(ev->model, ev->cat, ev->val);
		return;
	case QA_MODEL:
	case QA_CAT:
	case QA_VAL: {
		uint8_t ch = a->kind == QA_MODEL ? ev->model : a->kind == QA_CAT ? ev->cat : ev->val;
		v->buf[0] = (char) ch;
		v->ok = v->is_str = 1;
		v->s = v->buf;
		v->n = 1;
		v->i = ch - MCV_FIRST;
		return;
	}
	case QA_MODEL_NAME: {
		const struct weft_model_def *d = evtable_model(q->tab, (char) ev->model);
		if (d) {
			v->ok = v->is_str = 1;
			v->s = d->name;
			v->n = strlen(d->name);
			v->i = ev->model - MCV_FIRST;
		}
		return;
	}
	case QA_TIME:
	case QA_CLOCK:
	case QA_CHRONO:
	case QA_PID:
	case QA_TID:
	case QA_RANK:
	case QA_APP:
	case QA_CPU:
		v->ok = int_attr(q, a->kind, ev, chrono, &v->i);
		return;
	case QA_LOOM:
		if (th) {
			v->ok = v->is_str = 1;
			v->s = th->proc->loom->name;
			v->n = strlen(v->s);
			v->i = th->proc->loom->gindex;
		}
		return;
	case QA_STREAM:
		if (ev->stream && ev->stream->rel) {
			v->ok = v->is_str = 1;
			v->s = ev->stream->rel;
			v->n = strlen(v->s);
			v->i = ev->stream->index;
		}
		return;
	case QA_MSTATE: {
		int64_t x;
		if (mstate_attr(q, a->model, ev, &x)) {
			v->ok = 1;
			v->i = x;
		}
		return;
	}
	case QA_STATE:
		if (q->emu && ev->stream) {
			unsigned s = (unsigned) q->emu->sys.th[ev->stream->index].state;
			if (s < QSTATE_N) {
				v->ok = v->is_str = 1;
				v->i = s;
				v->s = qstate_name[s];
				v->n = strlen(v->s);
			}
		}
		return;
	case QA_FIELD:
		field_value(q, a, ev, v);
		return;
	case QA_DESC:
		desc_value(q, ev, v);
		return;
	}
}

/* ---- conditions ---------------------------------------------------------- */

/* An integer condition, the common operators inline. */
static inline int int_true(const struct qcond *c, int64_t x)
{
	switch (c->op) {
	case QOP_EQ:
		return x == c->v.lo;
	case QOP_GT:
		return x > c->v.lo;
	case QOP_LT:
		return x < c->v.lo;
	default:
		return qop_int(c, x);
	}
}

static int cond_true(struct query *q, const struct qcond *c, const struct weft_ev *ev, uint64_t chrono)
{
	struct qv v;
	int64_t x;
	switch (c->ck) {
	case QCK_MCV: {
		if (c->codes) {
			uint32_t code = (uint32_t) ev->model << 16 | (uint32_t) ev->cat << 8 | ev->val;
			int in = 0;
			for (int i = 0; i < c->ncodes && !in; i++)
				in = c->codes[i] == code;
			return c->op == QOP_EQ || c->op == QOP_IN ? in : !in;
		}
		char m[3] = {(char) ev->model, (char) ev->cat, (char) ev->val};
		return qop_str(c, m, 3);
	}
	case QCK_ENUM: {
		int id = enum_id(q, c->a.kind, ev);
		return id >= 0 && id < c->ntab && c->tab[id];
	}
	case QCK_INT:
		if (c->a.kind == QA_MSTATE ? !mstate_attr(q, c->a.model, ev, &x)
					   : !int_attr(q, c->a.kind, ev, chrono, &x))
			return 0;
		return int_true(c, x);
	case QCK_FIELD_INT:
		return field_int(q, &c->a, ev, &x) && int_true(c, x);
	case QCK_FIELD:
		v.ok = v.is_str = 0;
		field_value(q, &c->a, ev, &v);
		if (!v.ok)
			return 0;
		return v.is_str ? qop_str(c, v.s, v.n) : qop_int(c, v.i);
	}
	return 0;
}

/* A live conjunct; integer fields (the usual per-event test) inline. */
static inline int live_true(struct query *q, const struct qnode *n, const struct weft_ev *ev,
			    uint64_t chrono)
{
	int64_t x;
	if (n->type != QN_COND)
		return qeval(q, n, ev, chrono);
	if (n->c->ck == QCK_FIELD_INT)
		return field_int(q, &n->c->a, ev, &x) && int_true(n->c, x);
	return cond_true(q, n->c, ev, chrono);
}

int qeval(struct query *q, const struct qnode *n, const struct weft_ev *ev, uint64_t chrono)
{
	for (;;) {
		switch (n->type) {
		case QN_TRUE:
			return 1;
		case QN_AND:
			if (!qeval(q, n->l, ev, chrono))
				return 0;
			n = n->r;
			continue;
		case QN_OR:
			if (qeval(q, n->l, ev, chrono))
				return 1;
			n = n->r;
			continue;
		case QN_NOT:
			return !qeval(q, n->l, ev, chrono);
		case QN_COND:
			return cond_true(q, n->c, ev, chrono);
		case QN_HAS: {
			struct qv v;
			if (n->c->a.kind == QA_FIELD) {
				v.ok = v.is_str = 0;
				field_value(q, &n->c->a, ev, &v);
			} else {
				qfetch(q, &n->c->a, ev, chrono, &v);
			}
			return v.ok;
		}
		}
		return 0;
	}
}

/* The patterns of `todo` whose live conjuncts hold for the event. */
static inline __attribute__((always_inline)) uint64_t check(struct query *q, const struct weft_ev *ev,
								uint64_t todo, uint64_t chrono)
{
	uint64_t m = 0;
	for (; todo; todo &= todo - 1) {
		int b = __builtin_ctzll(todo);
		const struct qpattern *p = q->pat[b];
		int ok = 1;
		for (int i = 0; i < p->nlive && ok; i++)
			ok = live_true(q, p->live[i], ev, chrono);
		if (ok)
			m |= 1ull << b;
	}
	return m;
}

uint64_t query_match_slow(struct query *q, const struct weft_ev *ev, uint32_t cls, uint64_t chrono)
{
	const struct qclass *k = &q->classes[cls];
	uint32_t si = query_stream_entry(q, ev);
	uint64_t may = k->maybe & q->active & q->smaybe[si];
	uint64_t sure = (k->sure | q->ssure[si] | q->nocond) & may;
	return sure | check(q, ev, may & ~sure, chrono);
}

int query_hit(struct query *q, const struct weft_ev *ev, uint32_t cls, uint32_t slot)
{
	uint64_t chrono = q->chrono - 1;
	uint64_t may = q->slot[slot].todo, sure;
	if (__builtin_expect(q->sexact, 1)) {
		sure = q->ssure_in[slot];
	} else {
		/* one stream class for all: the stream masks per event */
		uint32_t si = query_stream_entry(q, ev);
		may &= q->smaybe[si];
		sure = (q->classes[cls].sure | q->ssure[si] | q->nocond) & may;
	}
	uint64_t m = sure | check(q, ev, may & ~sure, chrono);
	if (!m)
		return 0;
	if (!(m & q->linemask)) {
		/* counts and aggregates only */
		for (; m; m &= m - 1) {
			struct qpattern *p = q->pat[__builtin_ctzll(m)];
			p->matches++;
			for (int i = 0; i < p->ncby; i++)
				qgroup_add(q, &p->cby[i], ev, chrono, 1);
			for (int i = 0; i < p->nsum; i++)
				qsum_add(q, &p->sum[i], ev, chrono, 1);
		}
		return 0;
	}
	uint64_t heavy = m & q->heavymask;
	for (uint64_t c = m & ~heavy; c; c &= c - 1)
		q->pat[__builtin_ctzll(c)]->matches++;
	/* the line names every pattern matched, the slot's too */
	qact(q, ev, heavy, m | q->sfast[slot], 0);
	return q->stopped || !q->active;
}

int query_eval(struct query *q, int pattern, const struct weft_ev *ev, uint64_t chrono)
{
	return qeval(q, q->pat[pattern]->root, ev, chrono);
}

/* ---- binding ------------------------------------------------------------- */

static int bind_cond(struct query *q, struct qcond *c)
{
	const struct weft_trace *tr = q->tr;
	if (c->a.kind == QA_LOOM) {
		free(c->tab);
		c->ntab = 0;
		int n = 0;
		for (int i = 0; i < tr->sys.nlooms; i++)
			if (tr->sys.looms[i]->gindex >= n)
				n = tr->sys.looms[i]->gindex + 1;
		c->tab = weft_xcalloc((size_t) n + 1, 1);
		c->ntab = n;
		for (int i = 0; i < tr->sys.nlooms; i++) {
			const struct weft_loom *l = tr->sys.looms[i];
			c->tab[l->gindex] = (uint8_t) qop_str(c, l->name, strlen(l->name));
		}
	} else if (c->a.kind == QA_STREAM) {
		free(c->tab);
		c->tab = weft_xcalloc((size_t) tr->nstreams + 1, 1);
		c->ntab = tr->nstreams;
		for (int i = 0; i < tr->nstreams; i++) {
			const struct weft_stream *s = &tr->streams[i];
			if (s->rel && s->index >= 0 && s->index < tr->nstreams)
				c->tab[s->index] = (uint8_t) qop_str(c, s->rel, strlen(s->rel));
		}
	}
	return 0;
}

static void bind_node(struct query *q, struct qnode *n)
{
	if (!n)
		return;
	if (n->type == QN_COND)
		bind_cond(q, n->c);
	bind_node(q, n->l);
	bind_node(q, n->r);
}

int qbind_pattern(struct query *q, struct qpattern *p, struct weft_err *e)
{
	(void) e;
	bind_node(q, p->root);
	return 0;
}

/* ---- names the trace lacks -------------------------------------------------- */

struct names_ctx {
	const struct query *q;
	const char *label;
	void (*say)(void *arg, const char *text);
	void *arg;
};

static void check_loom(const struct names_ctx *k, const char *s, size_t n)
{
	const struct weft_trace *tr = k->q->tr;
	char text[512];
	int used = 0;
	for (int i = 0; i < tr->sys.nlooms; i++)
		if (strlen(tr->sys.looms[i]->name) == n && memcmp(tr->sys.looms[i]->name, s, n) == 0)
			return;
	used = snprintf(text, sizeof(text), "pattern %s: loom \"%.*s\" is nowhere in the trace (its looms:", k->label,
			(int) n, s);
	for (int i = 0; i < tr->sys.nlooms && i < 8 && used > 0 && (size_t) used < sizeof(text); i++)
		used += snprintf(text + used, sizeof(text) - (size_t) used, " %s", tr->sys.looms[i]->name);
	if (used > 0 && (size_t) used < sizeof(text))
		snprintf(text + used, sizeof(text) - (size_t) used, "%s)", tr->sys.nlooms > 8 ? " ..." : "");
	k->say(k->arg, text);
}

/* 1 when a stream of the trace requires model m (ovni's always are). */
static int model_used(const struct weft_trace *tr, char m)
{
	if (m == 'O')
		return 1;
	for (int l = 0; l < tr->sys.nlooms; l++)
		for (int p = 0; p < tr->sys.looms[l]->nprocs; p++) {
			const struct weft_proc *pr = tr->sys.looms[l]->procs[p];
			for (int t = 0; t < pr->nthreads; t++)
				if (pr->threads[t]->req[mcv_index(m)])
					return 1;
		}
	return 0;
}

static void check_mcv(const struct names_ctx *k, uint32_t code)
{
	char m = (char) (code >> 16), c = (char) (code >> 8), v = (char) code;
	char text[256];
	const struct weft_model_def *d = evtable_model(k->q->tab, m);
	if (!evtable_find(k->q->tab, (uint8_t) m, (uint8_t) c, (uint8_t) v))
		snprintf(text, sizeof(text),
			 "pattern %s: mcv \"%c%c%c\" is no event of %s%s%s (weft models lists them)", k->label, m, c, v,
			 d ? "model " : "any model", d ? d->name : "", "");
	else if (!model_used(k->q->tr, m))
		snprintf(text, sizeof(text),
			 "pattern %s: mcv \"%c%c%c\" is nowhere in the trace: no stream uses model "
			 "%c (%s)",
			 k->label, m, c, v, m, d ? d->name : "?");
	else
		return;
	k->say(k->arg, text);
}

static void check_node(const struct names_ctx *k, const struct qnode *n)
{
	if (!n)
		return;
	const struct qcond *c = n->type == QN_COND ? n->c : NULL;
	if (c && (c->op == QOP_EQ || c->op == QOP_IN)) {
		if (c->a.kind == QA_MCV)
			for (int i = 0; i < c->ncodes; i++)
				check_mcv(k, c->codes[i]);
		if (c->a.kind == QA_LOOM && c->v.kind == QV_STR)
			check_loom(k, c->v.s, c->v.slen);
		for (int i = 0; c->a.kind == QA_LOOM && c->v.kind == QV_LIST && i < c->v.nitem; i++)
			if (c->v.item[i].kind == QV_STR)
				check_loom(k, c->v.item[i].s, c->v.item[i].slen);
	}
	check_node(k, n->l);
	check_node(k, n->r);
}

void query_check_names(const struct query *q, void (*say)(void *arg, const char *text), void *arg)
{
	for (int i = 0; q->tr && i < q->npat; i++) {
		struct names_ctx k = {q, q->pat[i]->label, say, arg};
		check_node(&k, q->pat[i]->root);
	}
}

/* ---- life cycle ---------------------------------------------------------- */

static int query_setup(struct query *q, struct weft_err *e);

int query_init(struct query *q, const struct model_set *models, struct weft_err *e)
{
	memset(q, 0, sizeof(*q));
	if (evtable_init(&q->own_tab, models->all, models->n, e)) {
		evtable_free(&q->own_tab);
		return -1;
	}
	q->tab = &q->own_tab;
	return query_setup(q, e);
}

int query_init_tab(struct query *q, const struct evtable *tab, struct weft_err *e)
{
	memset(q, 0, sizeof(*q));
	q->tab = tab;
	return query_setup(q, e);
}

static int query_setup(struct query *q, struct weft_err *e)
{
	ob_init(&q->scratch, -1, 1 << 16);
	ob_init(&q->line, -1, 1 << 20);
	static const char *const defs[9] = {"chrono", "time", "mcv", "loom", "pid", "tid", "desc", "cpu",
					    "state.ovni"};
	for (int i = 0; i < 9; i++) {
		char msg[256];
		if (qresolve_attr(q, defs[i], strlen(defs[i]), &q->def[i], msg, sizeof(msg)))
			return weft_fail(e, WEFT_EINTERNAL, "query: %s", msg);
	}
	q->slot_cap = 1 << 16;
	/* nothing matches until patterns are bound */
	qphase_reset(q);
	qbuild_prefilter(q);
	return 0;
}

void query_free(struct query *q)
{
	for (int k = 0; k < q->npat; k++)
		qpattern_free(q->pat[k]);
	qfree_prefilter(q);
	qslots_free(q);
	qphase_free(q);
	free(q->smaybe);
	free(q->ssure);
	ob_free(&q->scratch);
	ob_free(&q->line);
	free(q->ubuf);
	evtable_free(&q->own_tab);
	memset(q, 0, sizeof(*q));
}

int query_bind(struct query *q, const struct weft_trace *tr, struct emu *emu, struct weft_err *e)
{
	q->tr = tr;
	q->emu = emu;
	q->bound = 1;
	for (int k = 0; k < q->npat; k++)
		if (qbind_pattern(q, q->pat[k], e))
			return -1;
	qslots_discard(q); /* counts of an earlier binding */
	qphase_reset(q);
	qbuild_prefilter(q);
	return 0;
}

uint64_t query_merge_t0(const struct weft_merge *m)
{
	return merge_peek_time(m);
}
