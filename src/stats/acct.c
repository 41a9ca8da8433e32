/* SPDX-License-Identifier: GPL-3.0-or-later */
/* acct: the accounting sink behind weft stats (see acct.h). Time is sliced
 * at every report a thread receives: the time since the previous report goes
 * to every operation open on the thread, and again to each of them within
 * every open context operation (other than itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "stats/acct.h"
#include "model.h"

static struct acct_thread *th_of(struct acct *a, const struct emu_thread *t)
{
	return &a->th[t - a->e->sys.th];
}

/* ---- states ----------------------------------------------------------------- */

static struct acct_state *state_row(struct acct_thread *x, char model, uint32_t value)
{
	for (int i = 0; i < x->nst; i++)
		if (x->st[i].model == model && x->st[i].value == value)
			return &x->st[i];
	if (x->nst == x->cst) {
		x->cst = x->cst ? 2 * x->cst : 8;
		x->st = weft_xrealloc(x->st, (size_t) x->cst * sizeof(*x->st));
	}
	struct acct_state *s = &x->st[x->nst++];
	memset(s, 0, sizeof(*s));
	s->model = model;
	s->value = value;
	return s;
}

static void on_state(void *arg, const struct emu_thread *t, char model, uint32_t state, uint64_t now)
{
	struct acct *a = arg;
	int k = a->e->models.slot[mcv_index(model)];
	if (k < 0 || k >= 8)
		return;
	struct acct_thread *x = th_of(a, t);
	if (x->cur[k] == state)
		return;
	state_row(x, model, x->cur[k])->ns += now - x->since[k];
	state_row(x, model, state)->count++;
	x->cur[k] = state;
	x->since[k] = now;
}

/* ---- operations ------------------------------------------------------------- */

static struct acct_op *op_row(struct acct_thread *x, char cm, int32_t ctx, char m, int32_t op)
{
	struct acct_key k;
	memset(&k, 0, sizeof(k));
	k.ctx_model = cm, k.ctx = cm ? ctx : 0, k.model = m, k.op = op;
	struct acct_op *r;
	HASH_FIND(hh, x->ops, &k, sizeof(k), r);
	if (!r) {
		r = weft_xcalloc(1, sizeof(*r));
		r->k = k;
		HASH_ADD(hh, x->ops, k, sizeof(k), r);
	}
	return r;
}

static void slice(struct acct_thread *x, uint64_t now)
{
	uint64_t dt = now > x->last ? now - x->last : 0;
	x->last = now > x->last ? now : x->last;
	if (!dt)
		return;
	for (int i = 0; i < x->nopen; i++) {
		const struct acct_open *o = &x->open[i];
		op_row(x, 0, 0, o->model, o->op)->ns += dt;
		for (int j = 0; j < x->nopen; j++)
			if (j != i && x->open[j].context)
				op_row(x, x->open[j].model, x->open[j].op, o->model, o->op)->ns += dt;
	}
}

/* Add count, bytes and ends to the operation's rows: whole thread and each
 * open context. */
static void tally(struct acct_thread *x, const struct emu_op *o, int64_t count, int64_t nend)
{
	for (int j = -1; j < x->nopen; j++) {
		struct acct_op *r;
		if (j < 0)
			r = op_row(x, 0, 0, o->model, o->op);
		else if (x->open[j].context && !(x->open[j].model == o->model && x->open[j].op == o->op))
			r = op_row(x, x->open[j].model, x->open[j].op, o->model, o->op);
		else
			continue;
		r->count += count;
		r->nend += nend;
		if (o->bytes >= 0) {
			r->bytes += o->bytes;
			r->has_bytes = 1;
		}
	}
}

static int find_open(const struct acct_thread *x, char m, int32_t op)
{
	for (int i = 0; i < x->nopen; i++)
		if (x->open[i].model == m && x->open[i].op == op)
			return i;
	return -1;
}

static void on_op(void *arg, const struct emu_thread *t, const struct emu_op *o, uint64_t now)
{
	struct acct *a = arg;
	struct acct_thread *x = th_of(a, t);
	slice(x, now);
	int i = find_open(x, o->model, o->op);
	switch (o->kind) {
	case EMU_OP_BEGIN:
		tally(x, o, 1, 0);
		if (i < 0) {
			if (x->nopen == x->copen) {
				x->copen = x->copen ? 2 * x->copen : 8;
				x->open = weft_xrealloc(x->open, (size_t) x->copen * sizeof(*x->open));
			}
			i = x->nopen++;
			x->open[i].model = o->model;
			x->open[i].op = o->op;
			x->open[i].depth = 0;
			x->open[i].context = o->context;
		}
		x->open[i].depth++;
		break;
	case EMU_OP_END:
		if (i < 0)
			break; /* the model rejected or never saw the begin */
		tally(x, o, 0, 1);
		if (--x->open[i].depth == 0)
			x->open[i] = x->open[--x->nopen];
		break;
	case EMU_OP_MARK:
		tally(x, o, 1, 0);
		break;
	}
}

static void on_claim(void *arg, const struct emu_thread *t, const struct emu_claim *c, uint64_t now)
{
	struct acct *a = arg;
	if (a->nclaims == a->cclaims) {
		a->cclaims = a->cclaims ? 2 * a->cclaims : 64;
		a->claims = weft_xrealloc(a->claims, (size_t) a->cclaims * sizeof(*a->claims));
	}
	struct acct_claim *k = &a->claims[a->nclaims++];
	memset(k, 0, sizeof(*k));
	k->thread = (int) (t - a->e->sys.th);
	k->c = *c;
	k->time = now;
	if (c->ops) {
		struct emu_op_range *v = weft_xcalloc((size_t) c->nops + 1, sizeof(*v));
		memcpy(v, c->ops, (size_t) c->nops * sizeof(*v));
		k->c.ops = v;
	}
	if (c->ctxs) {
		struct emu_op_range *v = weft_xcalloc((size_t) c->nctxs + 1, sizeof(*v));
		memcpy(v, c->ctxs, (size_t) c->nctxs * sizeof(*v));
		k->c.ctxs = v;
	}
	if (c->threads) {
		int *v = weft_xcalloc((size_t) c->nthreads + 1, sizeof(*v));
		memcpy(v, c->threads, (size_t) c->nthreads * sizeof(*v));
		k->c.threads = v;
	}
	k->c.scope = c->scope ? weft_xstrdup(c->scope) : NULL;
}

void acct_init(struct acct *a, struct emu *e)
{
	memset(a, 0, sizeof(*a));
	a->e = e;
	a->th = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*a->th));
	for (int i = 0; i < e->sys.nth; i++)
		for (int m = 0; m < e->models.n && m < 8; m++)
			state_row(&a->th[i], e->models.def[m]->id, 0)->count = 1; /* every model starts at 0 */
	a->hooks.arg = a;
	a->hooks.state = on_state;
	a->hooks.op = on_op;
	a->hooks.claim = on_claim;
	e->obs.acct = &a->hooks;
}

/* ---- the end: close intervals, judge claims --------------------------------- */

static int in_ranges(const struct emu_op_range *v, int n, char model, int32_t op)
{
	for (int i = 0; i < n; i++)
		if (v[i].model == model && op >= v[i].lo && op <= v[i].hi)
			return 1;
	return 0;
}

/* The claim's rows of thread x (one, or those of its sets) added up. */
static void add_rows(const struct acct_thread *x, const struct emu_claim *c, struct acct_op *sum)
{
	if (!c->ops && !c->ctxs) {
		struct acct_key key;
		memset(&key, 0, sizeof(key));
		key.ctx_model = c->ctx_model, key.ctx = c->ctx_model ? c->ctx : 0, key.model = c->model;
		key.op = c->op;
		struct acct_op *r;
		HASH_FIND(hh, x->ops, &key, sizeof(key), r);
		if (!r)
			return;
		sum->ns += r->ns, sum->count += r->count, sum->bytes += r->bytes, sum->nend += r->nend;
		sum->has_bytes |= r->has_bytes;
		return;
	}
	for (const struct acct_op *r = x->ops; r; r = r->hh.next) {
		const struct acct_key *k = &r->k;
		int ctx_ok = c->ctxs ? k->ctx_model && in_ranges(c->ctxs, c->nctxs, k->ctx_model, k->ctx)
				     : k->ctx_model == c->ctx_model && (!c->ctx_model || k->ctx == c->ctx);
		int op_ok =
			c->ops ? in_ranges(c->ops, c->nops, k->model, k->op) : k->model == c->model && k->op == c->op;
		if (!ctx_ok || !op_ok)
			continue;
		sum->ns += r->ns, sum->count += r->count, sum->bytes += r->bytes, sum->nend += r->nend;
		sum->has_bytes |= r->has_bytes;
	}
}

static void judge(struct acct *a, struct acct_claim *k)
{
	const struct emu_claim *c = &k->c;
	if (c->why_not) {
		k->verdict = AV_UNMEASURED;
		k->why_not = c->why_not;
		return;
	}
	struct acct_op sum;
	memset(&sum, 0, sizeof(sum));
	if (c->threads)
		for (int i = 0; i < c->nthreads; i++)
			add_rows(&a->th[c->threads[i]], c, &sum);
	else
		add_rows(&a->th[k->thread], c, &sum);
	const struct acct_op *r = &sum;
	if (c->why_not_if_none && !r->count) {
		k->verdict = AV_UNMEASURED;
		k->why_not = c->why_not_if_none;
		return;
	}
	switch (c->what) {
	case EMU_CLAIM_TIME:
		k->measured = (int64_t) r->ns;
		k->tolerance = c->unit_ns / 2 + (r->nend > 1 ? r->nend : 1) * c->ts_unit_ns;
		break;
	case EMU_CLAIM_COUNT:
		k->measured = r->count;
		break;
	case EMU_CLAIM_BYTES:
		if (!r->has_bytes && r->count) {
			k->verdict = AV_UNMEASURED;
			k->why_not = "weft counts no bytes for this operation";
			return;
		}
		k->measured = r->bytes;
		break;
	}
	k->diff = k->measured - c->value;
	int64_t ad = k->diff < 0 ? -k->diff : k->diff;
	k->verdict = ad == 0 ? AV_EQUAL : ad <= k->tolerance ? AV_ROUNDING : AV_DIFFERS;
}

void acct_finish(struct acct *a)
{
	struct emu *e = a->e;
	a->end = e->run.now;
	for (int i = 0; i < e->sys.nth; i++) {
		struct acct_thread *x = &a->th[i];
		slice(x, a->end);
		for (int m = 0; m < e->models.n && m < 8; m++)
			state_row(x, e->models.def[m]->id, x->cur[m])->ns += a->end - x->since[m];
		for (int m = 0; m < e->models.n && m < 8; m++)
			x->since[m] = a->end;
	}
	for (int i = 0; i < a->nclaims; i++)
		judge(a, &a->claims[i]);
}

void acct_free(struct acct *a)
{
	if (a->e && a->e->obs.acct == &a->hooks)
		a->e->obs.acct = NULL;
	for (int i = 0; a->e && i < a->e->sys.nth; i++) {
		struct acct_thread *x = &a->th[i];
		struct acct_op *r, *tmp;
		HASH_ITER(hh, x->ops, r, tmp) {
			HASH_DEL(x->ops, r);
			free(r);
		}
		free(x->st);
		free(x->open);
	}
	free(a->th);
	for (int i = 0; i < a->nclaims; i++) {
		free((void *) a->claims[i].c.ops);
		free((void *) a->claims[i].c.ctxs);
		free((void *) a->claims[i].c.threads);
		free((void *) a->claims[i].c.scope);
	}
	free(a->claims);
	memset(a, 0, sizeof(*a));
}

/* ---- reading ------------------------------------------------------------------ */

static int64_t op_order(int32_t op)
{
	return op < 0 ? -(int64_t) op : (int64_t) 1 << 40 | op;
}

static int cmp_ops(const void *pa, const void *pb)
{
	const struct acct_key *x = &(*(struct acct_op *const *) pa)->k, *y = &(*(struct acct_op *const *) pb)->k;
	if ((x->ctx_model != 0) != (y->ctx_model != 0))
		return x->ctx_model ? 1 : -1;
	if (x->ctx_model != y->ctx_model)
		return x->ctx_model < y->ctx_model ? -1 : 1;
	if (x->ctx != y->ctx)
		return op_order(x->ctx) < op_order(y->ctx) ? -1 : 1;
	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	if (x->op != y->op)
		return op_order(x->op) < op_order(y->op) ? -1 : 1;
	return 0;
}

int acct_sorted_ops(const struct acct *a, int thread, struct acct_op ***out)
{
	const struct acct_thread *x = &a->th[thread];
	int n = (int) HASH_COUNT(x->ops), i = 0;
	struct acct_op **v = weft_xcalloc((size_t) n + 1, sizeof(*v));
	for (struct acct_op *r = x->ops; r; r = r->hh.next)
		v[i++] = r;
	qsort(v, (size_t) n, sizeof(*v), cmp_ops);
	*out = v;
	return n;
}

void acct_op_name(const struct acct *a, int thread, char model, int32_t op, char *buf, int n)
{
	const struct weft_model_def *d = evtable_model(&a->e->tab, model);
	buf[0] = 0;
	if (d && d->hooks && d->hooks->op_label)
		d->hooks->op_label(a->e, thread, op, buf, n);
	if (!buf[0])
		snprintf(buf, (size_t) n, "operation %d", op);
}

const char *acct_state_label(const struct acct *a, char model, uint32_t value)
{
	const struct weft_model_def *d = evtable_model(&a->e->tab, model);
	if (!d || !d->hooks)
		return NULL;
	if (value == 0) /* as the .pcf names it */
		return EMU_STATE_NONE_LABEL;
	for (int i = 0; i < d->hooks->nstates; i++)
		if ((uint32_t) d->hooks->states[i].value == value)
			return d->hooks->states[i].label;
	return NULL;
}

const char *acct_verdict_name(enum acct_verdict v)
{
	static const char *const names[] = {"equal", "rounding", "DIFFERS", "not measured"};
	return names[v];
}
