/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prefilter: a partial evaluation of every pattern over the MCV, and over
 * the stream.
 *
 * With only the model character known, then the category, then the value,
 * each condition is TRUE, FALSE or UNKNOWN (three-valued logic; a payload
 * field the MCV's table row does not have is FALSE, as a missing attribute
 * is). A decided subtree of MCVs is filled at once, so `mcv = "OHx"` costs
 * three short loops and `tid = 5` one evaluation per model character. The
 * result per MCV is a pair of masks (may match, surely matches), interned
 * into classes; each model character has a block of 94*94 classes (0: no
 * pattern can match), models where every pattern decides alike share one
 * uniform block per class, and models no condition tells apart share one
 * walked block (so a field costs a walk of the models that have it). The
 * same three-valued evaluation with only the stream known gives the
 * per-stream masks. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "query/qint.h"
#include "trace/trace.h"

enum { T_FALSE = 0, T_TRUE = 1, T_UNKNOWN = 2 };

/* A time condition in the current phase. */
static int time_tri(const struct qnode *n)
{
	if (n->type == QN_HAS)
		return T_TRUE;
	return n->c->now == QNOW_TRUE ? T_TRUE : n->c->now == QNOW_FALSE ? T_FALSE : T_UNKNOWN;
}

/* An MCV condition with the first `level` characters known (m, c, v are
 * 0-based). Equality tests are decided as soon as no listed MCV has the
 * known prefix; orderings as soon as the prefix differs from the
 * constant's. */
static int mcv_tri(const struct qcond *k, int level, int m, int c, int v)
{
	char pre[3] = {(char) (m + MCV_FIRST), (char) (c + MCV_FIRST), (char) (v + MCV_FIRST)};
	if (level == 0)
		return T_UNKNOWN;
	if (level >= 3)
		return qop_str(k, pre, 3) ? T_TRUE : T_FALSE;
	if (k->codes) {
		int any = 0;
		for (int i = 0; i < k->ncodes && !any; i++) {
			uint32_t x = k->codes[i];
			any = (char) (x >> 16) == pre[0] && (level < 2 || (char) (x >> 8 & 0xff) == pre[1]);
		}
		if (any)
			return T_UNKNOWN;
		return k->op == QOP_EQ || k->op == QOP_IN ? T_FALSE : T_TRUE;
	}
	if (k->v.kind == QV_STR && (k->op == QOP_LT || k->op == QOP_LE || k->op == QOP_GT || k->op == QOP_GE)) {
		size_t n = k->v.slen < (size_t) level ? k->v.slen : (size_t) level;
		int r = memcmp(pre, k->v.s, n);
		if (r == 0 && (size_t) level > k->v.slen)
			r = 1; /* the constant is a proper prefix: every extension is larger */
		if (r == 0)
			return T_UNKNOWN;
		int less = r < 0;
		return (k->op == QOP_LT || k->op == QOP_LE) == less ? T_TRUE : T_FALSE;
	}
	return T_UNKNOWN;
}

/* Does some MCV index in [lo, hi) have the field? (a->loc is sorted.) */
static int field_in(const struct qattr *a, uint32_t lo, uint32_t hi)
{
	int l = 0, h = a->nloc; /* the first loc >= lo */
	while (l < h) {
		int mid = (l + h) / 2;
		if (a->loc[mid].mcv < lo)
			l = mid + 1;
		else
			h = mid;
	}
	return l < a->nloc && a->loc[l].mcv < hi;
}

/* A payload field with the first `level` characters of the MCV known: FALSE
 * when no table row with that prefix has the field (the full evaluation
 * finds it missing on every such event), else UNKNOWN (the payload decides).
 * Deciding at the model and category levels keeps the walk to the few
 * models and categories that have the field. */
static int field_tri(const struct qattr *a, int level, int m, int c, int v)
{
	uint32_t lo, n;
	switch (level) {
	case 0:
		return a->nloc ? T_UNKNOWN : T_FALSE;
	case 1:
		lo = (uint32_t) m * MCV_NCHARS * MCV_NCHARS;
		n = MCV_NCHARS * MCV_NCHARS;
		break;
	case 2:
		lo = (uint32_t) (m * MCV_NCHARS + c) * MCV_NCHARS;
		n = MCV_NCHARS;
		break;
	default:
		lo = (uint32_t) ((m * MCV_NCHARS + c) * MCV_NCHARS + v);
		n = 1;
		break;
	}
	return field_in(a, lo, lo + n) ? T_UNKNOWN : T_FALSE;
}

/* What a three-valued evaluation knows: the first `level` characters of
 * the MCV (m, c, v, 0-based), and the stream s when stream_known. Time
 * conditions are known in a phase. */
struct known {
	const struct query *q;
	int level, m, c, v;
	int stream_known;
	const struct weft_stream *s;
};

/* A condition (or has) from what is known. */
static int leaf_tri(const struct qnode *n, const struct known *w)
{
	const struct qcond *k = n->c;
	int has = n->type == QN_HAS, id;
	int64_t x;
	struct weft_ev e0; /* an event of the stream, for its attributes */
	memset(&e0, 0, sizeof(e0));
	e0.stream = (struct weft_stream *) w->s;
	switch (k->a.kind) {
	case QA_MODEL:
	case QA_MODEL_NAME:
		if (w->level < 1)
			return T_UNKNOWN;
		if (has)
			return k->a.kind == QA_MODEL || evtable_model(w->q->tab, (char) (w->m + MCV_FIRST)) ? T_TRUE
													    : T_FALSE;
		return k->tab[w->m];
	case QA_CAT:
		if (w->level < 2)
			return T_UNKNOWN;
		return has ? T_TRUE : k->tab[w->c];
	case QA_VAL:
		if (w->level < 3)
			return T_UNKNOWN;
		return has ? T_TRUE : k->tab[w->v];
	case QA_MCV:
		return has ? T_TRUE : mcv_tri(k, w->level, w->m, w->c, w->v);
	case QA_FIELD:
		return field_tri(&k->a, w->level, w->m, w->c, w->v);
	case QA_LOOM:
	case QA_STREAM:
		if (!w->stream_known)
			return T_UNKNOWN;
		id = enum_id(w->q, k->a.kind, &e0);
		if (has)
			return id >= 0 ? T_TRUE : T_FALSE;
		return id >= 0 && id < k->ntab && k->tab[id] ? T_TRUE : T_FALSE;
	case QA_PID:
	case QA_TID:
	case QA_RANK:
	case QA_APP:
		if (!w->stream_known)
			return T_UNKNOWN;
		if (!int_attr(w->q, k->a.kind, &e0, 0, &x))
			return T_FALSE;
		return has || qop_int(k, x) ? T_TRUE : T_FALSE;
	case QA_TIME:
		return time_tri(n);
	case QA_CLOCK:
	case QA_CHRONO:
		return has ? T_TRUE : T_UNKNOWN;
	default:
		return T_UNKNOWN;
	}
}

/* Three-valued truth of an expression from what is known. */
static int tri(const struct qnode *n, const struct known *w)
{
	int a, b;
	switch (n->type) {
	case QN_TRUE:
		return T_TRUE;
	case QN_AND:
		if ((a = tri(n->l, w)) == T_FALSE || (b = tri(n->r, w)) == T_FALSE)
			return T_FALSE;
		return a == T_TRUE && b == T_TRUE ? T_TRUE : T_UNKNOWN;
	case QN_OR:
		if ((a = tri(n->l, w)) == T_TRUE || (b = tri(n->r, w)) == T_TRUE)
			return T_TRUE;
		return a == T_FALSE && b == T_FALSE ? T_FALSE : T_UNKNOWN;
	case QN_NOT:
		a = tri(n->l, w);
		return a == T_UNKNOWN ? T_UNKNOWN : !a;
	case QN_HAS:
	case QN_COND:
		return leaf_tri(n, w);
	}
	return T_UNKNOWN;
}

/* Does more of the MCV leave n's value as it is? Yes when every condition
 * on the MCV in n is decided by what w knows, or sits beside a decided
 * operand of and/or that settles the value alone. (What stays unknown then
 * comes from elsewhere: time, the stream, a payload.) */
static int mcv_settled(const struct qnode *n, const struct known *w)
{
	switch (n->type) {
	case QN_TRUE:
		return 1;
	case QN_AND:
	case QN_OR: {
		int stop = n->type == QN_AND ? T_FALSE : T_TRUE;
		if (tri(n->l, w) == stop || tri(n->r, w) == stop)
			return 1;
		return mcv_settled(n->l, w) && mcv_settled(n->r, w);
	}
	case QN_NOT:
		return mcv_settled(n->l, w);
	case QN_HAS:
	case QN_COND:
		switch (n->c->a.kind) {
		case QA_MODEL:
		case QA_MODEL_NAME:
		case QA_CAT:
		case QA_VAL:
		case QA_MCV:
		case QA_FIELD:
			return leaf_tri(n, w) != T_UNKNOWN;
		default:
			return 1;
		}
	}
	return 1;
}

/* With the first `level` characters of the MCV known. */
static int tri_mcv(const struct query *q, const struct qnode *n, int level, int m, int c, int v)
{
	struct known w = {.q = q, .level = level, .m = m, .c = c, .v = v};
	return tri(n, &w);
}

/* Is the value of p's expression the same for every MCV with this prefix
 * (so the walk need not go deeper)? t is its value at this level. */
static int mcv_final(const struct query *q, const struct qpattern *p, int t, int level, int m, int c)
{
	struct known w = {.q = q, .level = level, .m = m, .c = c};
	return t != T_UNKNOWN || p->depth <= level || mcv_settled(p->root, &w);
}

/* With only the stream known (NULL: an event without a stream). */
static int tri_stream(const struct query *q, const struct qnode *n, const struct weft_stream *s)
{
	struct known w = {.q = q, .stream_known = 1, .s = s};
	return tri(n, &w);
}

/* Within one model's block (index cat * 94 + val): levels 2 and 3. */
static void walk_block(const struct query *q, const struct qpattern *p, uint64_t bit, uint64_t *maybe,
		       uint64_t *sure, uint8_t *touched, int m)
{
	for (int c = 0; c < MCV_NCHARS; c++) {
		int t = tri_mcv(q, p->root, 2, m, c, 0);
		if (mcv_final(q, p, t, 2, m, c)) {
			if (t == T_FALSE)
				continue;
			touched[c] = 1;
			for (int v = 0; v < MCV_NCHARS; v++) {
				maybe[c * MCV_NCHARS + v] |= bit;
				if (t == T_TRUE)
					sure[c * MCV_NCHARS + v] |= bit;
			}
			continue;
		}
		touched[c] = 1;
		for (int v = 0; v < MCV_NCHARS; v++) {
			int t3 = tri_mcv(q, p->root, 3, m, c, v);
			if (t3 == T_FALSE)
				continue;
			maybe[c * MCV_NCHARS + v] |= bit;
			if (t3 == T_TRUE)
				sure[c * MCV_NCHARS + v] |= bit;
		}
	}
}

/* ---- models alike -------------------------------------------------------
 *
 * Most model characters have no table rows and no pattern names them: the
 * block of such a model is the same as any other's. A model's signature
 * lists, for every condition of the patterns that walk it, what the
 * condition depends on that differs between models: nothing (conditions on
 * the stream, the time, the category or the value), or its value for the
 * whole model once the model character is known (model, model_name, an mcv
 * no listed MCV of which begins with the character, a field no row of the
 * model has). A condition that needs more of the MCV and looks at the model
 * character (an mcv with this prefix, a field some row of the model has)
 * makes the model one of its own. Two models with one signature, and the
 * same patterns decided alike at the model level, get one block. */

enum { SIG_ANY = 3, SIG_OWN = 4 };

static int leaf_sig(const struct query *q, const struct qnode *n, int m)
{
	struct known w = {.q = q, .level = 1, .m = m};
	int t;
	switch (n->c->a.kind) {
	case QA_MODEL:
	case QA_MODEL_NAME:
		return leaf_tri(n, &w); /* the same at every deeper level */
	case QA_MCV:
	case QA_FIELD:
		t = leaf_tri(n, &w);
		return t == T_UNKNOWN ? SIG_OWN : t;
	default:
		return SIG_ANY;
	}
}

/* Append n's signature to sig (*len entries); 0 when a condition makes m a
 * model of its own. */
static int tree_sig(const struct query *q, const struct qnode *n, int m, uint8_t **sig, size_t *len,
		    size_t *cap)
{
	switch (n->type) {
	case QN_TRUE:
		return 1;
	case QN_AND:
	case QN_OR:
		return tree_sig(q, n->l, m, sig, len, cap) && tree_sig(q, n->r, m, sig, len, cap);
	case QN_NOT:
		return tree_sig(q, n->l, m, sig, len, cap);
	case QN_HAS:
	case QN_COND:
		break;
	}
	int t = leaf_sig(q, n, m);
	if (t == SIG_OWN)
		return 0;
	if (*len == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*sig = weft_xrealloc(*sig, *cap);
	}
	(*sig)[(*len)++] = (uint8_t) t;
	return 1;
}

/* A walked model's block, kept for the models alike. */
struct walked {
	uint64_t um, us, walkers;
	uint8_t *sig;           /* NULL: a model of its own */
	size_t len;
	uint32_t *blk;
};

/* The block of a model already walked with this signature, or NULL. */
static uint32_t *alike(const struct walked *done, int ndone, const struct walked *w)
{
	if (!w->sig)
		return NULL;
	for (int i = 0; i < ndone; i++) {
		const struct walked *d = &done[i];
		if (d->sig && d->um == w->um && d->us == w->us && d->walkers == w->walkers &&
		    d->len == w->len && memcmp(d->sig, w->sig, w->len) == 0)
			return d->blk;
	}
	return NULL;
}

/* Class interning: (maybe, sure) -> id, open addressing; class 0 = none. */
struct cls_slot {
	uint64_t maybe, sure;
	uint32_t id;
};

struct interner {
	struct cls_slot *h;
	size_t hcap;
	int cap;
	uint32_t **uniform;     /* uniform block per class id, or NULL */
	int ucap;
};

static size_t cls_hash(uint64_t maybe, uint64_t sure, size_t hcap)
{
	uint64_t k = maybe * 0x9e3779b97f4a7c15ull ^ sure * 0xc2b2ae3d27d4eb4full;
	return (size_t) (k >> 17) & (hcap - 1);
}

static uint32_t intern(struct query *q, struct interner *in, uint64_t maybe, uint64_t sure)
{
	if (!maybe)
		return 0;
	size_t j = cls_hash(maybe, sure, in->hcap);
	while (in->h[j].id && (in->h[j].maybe != maybe || in->h[j].sure != sure))
		j = (j + 1) & (in->hcap - 1);
	if (in->h[j].id)
		return in->h[j].id;
	if (q->nclasses == in->cap) {
		in->cap *= 2;
		q->classes = weft_xrealloc(q->classes, (size_t) in->cap * sizeof(*q->classes));
	}
	uint32_t id = (uint32_t) q->nclasses++;
	q->classes[id].maybe = maybe;
	q->classes[id].sure = sure;
	in->h[j].maybe = maybe;
	in->h[j].sure = sure;
	in->h[j].id = id;
	if ((size_t) q->nclasses * 2 > in->hcap) {
		free(in->h);
		in->hcap *= 4;
		in->h = weft_xcalloc(in->hcap, sizeof(*in->h));
		for (int c = 1; c < q->nclasses; c++) {
			size_t jj = cls_hash(q->classes[c].maybe, q->classes[c].sure, in->hcap);
			while (in->h[jj].id)
				jj = (jj + 1) & (in->hcap - 1);
			in->h[jj].maybe = q->classes[c].maybe;
			in->h[jj].sure = q->classes[c].sure;
			in->h[jj].id = (uint32_t) c;
		}
	}
	return id;
}

/* n copies of the x at *b (b[0] set), by doubling memcpy: a block is
 * filled in 14 calls, not 8836 loop steps (which the fuzzing build
 * instruments one by one). */
static void fill_copies(void *b, size_t size, size_t n)
{
	for (size_t k = 1; k < n; k *= 2)
		memcpy((char *) b + k * size, b, (k < n - k ? k : n - k) * size);
}

static uint32_t *new_block(struct query *q)
{
	uint32_t *b = weft_xmalloc(MCV_NCHARS * MCV_NCHARS * sizeof(uint32_t));
	q->owned = weft_xrealloc(q->owned, (size_t) (q->nowned + 1) * sizeof(*q->owned));
	q->owned[q->nowned++] = b;
	return b;
}

static uint32_t *uniform_block(struct query *q, struct interner *in, uint32_t id)
{
	if ((int) id >= in->ucap) {
		int n = in->ucap;
		while ((int) id >= in->ucap)
			in->ucap = in->ucap ? 2 * in->ucap : 64;
		in->uniform = weft_xrealloc(in->uniform, (size_t) in->ucap * sizeof(*in->uniform));
		memset(in->uniform + n, 0, (size_t) (in->ucap - n) * sizeof(*in->uniform));
	}
	if (!in->uniform[id]) {
		uint32_t *b = new_block(q);
		b[0] = id;
		fill_copies(b, sizeof(*b), MCV_NCHARS * MCV_NCHARS);
		in->uniform[id] = b;
	}
	return in->uniform[id];
}

void qfree_prefilter(struct query *q)
{
	for (int i = 0; i < q->nowned; i++)
		free(q->owned[i]);
	free(q->owned);
	q->owned = NULL;
	q->nowned = 0;
	free(q->classes);
	q->classes = NULL;
	q->nclasses = 0;
}

/* p->live: the conjuncts left once the time phase is known. */
static void set_live(const struct query *q, struct qpattern *p)
{
	free(p->live);
	p->live = weft_xcalloc((size_t) p->nconj + 1, sizeof(*p->live));
	p->nlive = 0;
	for (int i = 0; i < p->nconj; i++)
		if (tri_mcv(q, p->conj[i], 0, 0, 0, 0) != T_TRUE)
			p->live[p->nlive++] = p->conj[i];
}

/* smaybe/ssure: entries 0..nsmask-1 by stream index, nsmask for events
 * without a stream. */
static void stream_masks(struct query *q)
{
	free(q->smaybe);
	free(q->ssure);
	q->nsmask = q->tr ? q->tr->nstreams : 0;
	q->smaybe = weft_xcalloc((size_t) q->nsmask + 1, sizeof(uint64_t));
	q->ssure = weft_xcalloc((size_t) q->nsmask + 1, sizeof(uint64_t));
	for (int i = -1; i < (q->tr ? q->tr->nstreams : 0); i++) {
		const struct weft_stream *st = i < 0 ? NULL : &q->tr->streams[i];
		int entry = st ? st->index : q->nsmask;
		if (entry < 0 || entry > q->nsmask || (st && entry == q->nsmask))
			continue;
		for (int k = 0; k < q->npat; k++) {
			int t = tri_stream(q, q->pat[k]->root, st);
			if (t != T_FALSE)
				q->smaybe[entry] |= 1ull << k;
			if (t == T_TRUE)
				q->ssure[entry] |= 1ull << k;
		}
	}
}

void qbuild_prefilter(struct query *q)
{
	query_sync(q);
	qfree_prefilter(q);
	struct interner in = {0};
	in.cap = 64;
	in.hcap = 256;
	in.h = weft_xcalloc(in.hcap, sizeof(*in.h));
	q->classes = weft_xcalloc((size_t) in.cap, sizeof(*q->classes));
	q->nclasses = 1;
	q->heavymask = q->linemask = q->nocond = q->syncmask = 0;
	q->active = 0;
	for (int k = 0; k < q->npat; k++) {
		struct qpattern *p = q->pat[k];
		uint64_t bit = 1ull << k;
		if (!p->done)
			q->active |= bit;
		if (p->prints || p->ncby || p->nsum || p->first || p->last || p->stop)
			q->heavymask |= bit;
		if (p->prints || p->first || p->last || p->stop)
			q->linemask |= bit;
		if (p->sync || p->stop)
			q->syncmask |= bit;
		set_live(q, p);
		if (p->nlive == 0)
			q->nocond |= bit;
	}
	stream_masks(q);
	uint64_t *maybe = NULL, *sure = NULL;
	struct walked done[MCV_NCHARS];
	int ndone = 0;
	for (int m = 0; m < 256; m++)
		q->blk[m] = uniform_block(q, &in, 0);
	for (int m = 0; m < MCV_NCHARS; m++) {
		/* what each pattern says with the model character alone */
		uint64_t um = 0, us = 0, walkers = 0;
		for (int k = 0; k < q->npat; k++) {
			const struct qpattern *p = q->pat[k];
			uint64_t bit = 1ull << k;
			int t = tri_mcv(q, p->root, 1, m, 0, 0);
			if (!mcv_final(q, p, t, 1, m, 0)) {
				walkers |= bit;
				continue;
			}
			if (t != T_FALSE)
				um |= bit;
			if (t == T_TRUE)
				us |= bit;
		}
		if (!walkers) {
			q->blk[m + MCV_FIRST] = uniform_block(q, &in, intern(q, &in, um, us));
			continue;
		}
		struct walked *wk = &done[ndone];
		size_t cap = 0;
		*wk = (struct walked) {.um = um, .us = us, .walkers = walkers};
		int shared = 1;
		for (uint64_t w = walkers; w && shared; w &= w - 1)
			shared = tree_sig(q, q->pat[__builtin_ctzll(w)]->root, m, &wk->sig, &wk->len, &cap);
		if (!shared) {
			free(wk->sig);
			wk->sig = NULL;
		}
		uint32_t *same = alike(done, ndone, wk);
		if (same) {
			free(wk->sig);
			q->blk[m + MCV_FIRST] = same;
			continue;
		}
		if (!maybe) {
			maybe = weft_xmalloc(MCV_NCHARS * MCV_NCHARS * sizeof(uint64_t));
			sure = weft_xmalloc(MCV_NCHARS * MCV_NCHARS * sizeof(uint64_t));
		}
		maybe[0] = um;
		sure[0] = us;
		fill_copies(maybe, sizeof(*maybe), MCV_NCHARS * MCV_NCHARS);
		fill_copies(sure, sizeof(*sure), MCV_NCHARS * MCV_NCHARS);
		uint8_t touched[MCV_NCHARS] = {0}; /* categories a walker wrote to */
		for (uint64_t w = walkers; w; w &= w - 1) {
			int k = __builtin_ctzll(w);
			walk_block(q, q->pat[k], 1ull << k, maybe, sure, touched, m);
		}
		uint32_t *b = new_block(q);
		uint32_t base = intern(q, &in, um, us); /* what no walker changed */
		/* neighbours mostly share a class: hash only when the pair changes */
		uint64_t pm = 0, ps = 0;
		uint32_t pc = 0;
		for (int c = 0; c < MCV_NCHARS; c++) {
			if (!touched[c]) {
				b[c * MCV_NCHARS] = base;
				fill_copies(b + c * MCV_NCHARS, sizeof(*b), MCV_NCHARS);
				continue;
			}
			for (int i = c * MCV_NCHARS; i < c * MCV_NCHARS + MCV_NCHARS; i++) {
				if (maybe[i] != pm || sure[i] != ps) {
					pm = maybe[i];
					ps = sure[i];
					pc = intern(q, &in, pm, ps);
				}
				b[i] = pc;
			}
		}
		q->blk[m + MCV_FIRST] = b;
		wk->blk = b;
		ndone++;
	}
	for (int i = 0; i < ndone; i++)
		free(done[i].sig);
	free(maybe);
	free(sure);
	free(in.h);
	free(in.uniform);
	qslots_build(q);
}
