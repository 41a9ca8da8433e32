/* SPDX-License-Identifier: GPL-3.0-or-later */
/* breakdown: the muxes and the sort of the breakdown views (breakdown.h);
 * their files are the Paraver sink's (src/emu/paraver_bd.c). */
#include <stdlib.h>
#include <string.h>

#include "engine/breakdown.h"
#include "engine/engine.h"
#include "prv/prv_writer.h"

struct bd_view {
	const struct mf_model *m;
	const struct mf_breakdown *b;
	int nchan, nmux, nsrc; /* sources: the model's channels, then the muxes */
	int nrow; /* physical CPUs: the view's rows */
	int *prow; /* CPU row (e->sys.cpu index) -> physical CPU, -1: a vCPU */
	int64_t *val; /* [p * nsrc + src] */
	int16_t *sel; /* [p * nmux + mux]: the selected pick, -1: none */
	uint8_t *dirty; /* [p * nsrc + src]: changed in this event */
	uint8_t *uses; /* [src]: some mux reads it */
	uint32_t *q; /* changed sources of this event, in order */
	int nq;
	int64_t *in; /* [p]: the last mux's value, the sort's input */
	int64_t *sorted, *last; /* [row] */
	int started, changed; /* a first value came (every row is written then) */
	char *name; /* "MODEL-breakdown" */
	struct emu_bd_view pub; /* what the Paraver sink knows of it */
	struct prv_file front; /* its records, queued into the run's stream as the set its file has */
	int open; /* its file is open (ops_open) */
};

struct bd_state {
	struct bd_view *v;
	int nv;
};

static inline int src_index(const struct bd_view *v, int16_t s)
{
	return s >= 0 ? s : v->nchan + (-1 - s);
}

/* ---- setup ------------------------------------------------------------------------- */

/* Every thread's stream.json says `key` is true? 1 yes, 0 no (a warning),
 * -1 error. */
static int required(struct emu *e, const struct mf_model *m, const char *key, struct weft_err *err)
{
	int n = 0;
	for (int i = 0; i < e->sys.nth; i++) {
		const struct weft_thread *t = e->sys.th[i].sys;
		const struct weft_meta_kv *kv = meta_kv_find(t->kv, t->nkv, key);
		if (!kv)
			return weft_fail(err, WEFT_EINPUT,
					 "%s: -b: key '%s' is missing: the %s breakdown needs it in "
					 "every thread's metadata",
					 e->tr.streams[i].json_path, key, m->def.name);
		if (kv->kind != WEFT_KV_BOOL)
			return weft_fail(err, WEFT_EINPUT, "%s: -b: key '%s': expected a boolean, found another kind",
					 e->tr.streams[i].json_path, key);
		n += kv->i != 0;
	}
	if (n == e->sys.nth)
		return 1;
	if (!e->o.quiet)
		weft_warn("cannot write the %s breakdown (-b): %d of %d threads have %s true", m->def.name, n,
			  e->sys.nth, key);
	return 0;
}

static int ops_nviews(const struct emu *e);
static const struct emu_bd_view *ops_view(const struct emu *e, int i);
static void ops_open(struct emu *e, int i, int set);
static void ops_close(struct emu *e, int i);
static void ops_value_lines(struct emu *e, int i, struct strbuf *b);

static const struct emu_bd_ops bd_ops = {
	.flush = bd_flush,
	.free = bd_free,
	.nviews = ops_nviews,
	.view = ops_view,
	.open = ops_open,
	.close = ops_close,
	.value_lines = ops_value_lines,
};

int bd_setup(struct emu *e, const struct mf_model *m, struct weft_err *err)
{
	const struct mf_breakdown *b = m->bd;
	int written = 0; /* by a sink of the run (none: a --mpi rank other than 0) */
	for (int i = 0; i < e->o.sinks.n; i++)
		written |= e->o.sinks.s[i]->breakdown;
	if (!b || !e->o.breakdown || !written)
		return 0;
	if (b->require) {
		int r = required(e, m, b->require, err);
		if (r <= 0)
			return r;
	}
	struct bd_state *s = e->bd.s;
	if (!s) {
		s = e->bd.s = weft_xcalloc(1, sizeof(*s));
		e->bd.ops = &bd_ops;
	}
	s->v = weft_xrealloc(s->v, (size_t) (s->nv + 1) * sizeof(*s->v));
	struct bd_view *v = &s->v[s->nv++];
	memset(v, 0, sizeof(*v));
	v->m = m;
	v->b = b;
	v->nchan = m->nchans;
	v->nmux = b->nmux;
	v->nsrc = v->nchan + v->nmux;
	v->prow = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*v->prow));
	for (int i = 0; i < e->sys.ncpu; i++)
		v->prow[i] = e->sys.cpu[i].sys->is_virtual ? -1 : v->nrow++;
	size_t cells = (size_t) v->nrow * (size_t) v->nsrc + 1;
	v->val = weft_xcalloc(cells, sizeof(*v->val));
	v->dirty = weft_xcalloc(cells, 1);
	v->q = weft_xcalloc(cells, sizeof(*v->q));
	v->sel = weft_xcalloc((size_t) v->nrow * (size_t) v->nmux + 1, sizeof(*v->sel));
	for (size_t i = 0; i < (size_t) v->nrow * (size_t) v->nmux; i++)
		v->sel[i] = -1;
	v->uses = weft_xcalloc((size_t) v->nsrc, 1);
	for (int x = 0; x < b->nmux; x++) {
		const struct mf_mux *mx = &b->mux[x];
		v->uses[src_index(v, mx->sel)] = 1;
		for (int k = 0; k < mx->npicks; k++) {
			v->uses[src_index(v, mx->picks[k].src)] = 1;
			for (int c = 0; c < mx->picks[k].ncond; c++)
				v->uses[src_index(v, mx->picks[k].cond[c].src)] = 1;
		}
	}
	v->in = weft_xcalloc((size_t) v->nrow + 1, sizeof(*v->in));
	v->sorted = weft_xcalloc((size_t) v->nrow + 1, sizeof(*v->sorted));
	v->last = weft_xcalloc((size_t) v->nrow + 1, sizeof(*v->last));
	v->name = weft_xasprintf("%s-breakdown", m->def.name);
	v->pub = (struct emu_bd_view){.name = v->name, .model = m->def.id, .nrow = v->nrow, .label = b->label};
	return 0;
}

int bd_chan_view(const struct emu *e, const struct mf_model *m, int chan)
{
	const struct bd_state *s = e->bd.s;
	for (int i = 0; s && i < s->nv; i++)
		if (s->v[i].m == m)
			return s->v[i].uses[chan] ? i : -1;
	return -1;
}

/* ---- per event ------------------------------------------------------------------------ */

static inline void mark(struct bd_view *v, int p, int src)
{
	size_t at = (size_t) p * (size_t) v->nsrc + (size_t) src;
	if (!v->dirty[at]) {
		v->dirty[at] = 1;
		v->q[v->nq++] = (uint32_t) at;
	}
}

void bd_note(struct emu *e, int view, int chan, int cpu, int64_t v)
{
	struct bd_view *w = &e->bd.s->v[view];
	int p = w->prow[cpu];
	if (p < 0)
		return;
	w->val[(size_t) p * (size_t) w->nsrc + (size_t) chan] = v;
	mark(w, p, chan);
	e->bd.pending = 1;
}

/* A mux's output is set: marked changed even when the value is the same
 * (what follows it reads it again, as in ovniemu). */
static void mux_out(struct bd_view *v, int p, int x, int64_t val)
{
	v->val[(size_t) p * (size_t) v->nsrc + (size_t) (v->nchan + x)] = val;
	mark(v, p, v->nchan + x);
}

static int holds(const struct bd_view *v, const int64_t *val, const struct mf_pick *pk)
{
	for (int c = 0; c < pk->ncond; c++) {
		int64_t x = val[src_index(v, pk->cond[c].src)];
		if ((x == pk->cond[c].k) == pk->cond[c].ne)
			return 0;
	}
	return 1;
}

static void reselect(struct bd_view *v, int p, int x)
{
	const struct mf_mux *mx = &v->b->mux[x];
	const int64_t *val = &v->val[(size_t) p * (size_t) v->nsrc];
	int16_t s = -1;
	for (int k = 0; k < mx->npicks && s < 0; k++)
		if (holds(v, val, &mx->picks[k]))
			s = (int16_t) k;
	v->sel[(size_t) p * (size_t) v->nmux + (size_t) x] = s;
	mux_out(v, p, x, s >= 0 ? val[src_index(v, mx->picks[s].src)] : mx->def);
}

/* Replace one `old` of the sorted array a[n] by `nw`, keeping it sorted. */
static void sort_replace(int64_t *a, int n, int64_t old, int64_t nw)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) { /* the first a[i] >= old: there is one equal */
		int mid = lo + (hi - lo) / 2;
		if (a[mid] < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	int i = lo;
	if (nw > old)
		for (; i + 1 < n && a[i + 1] < nw; i++)
			a[i] = a[i + 1];
	else
		for (; i > 0 && a[i - 1] > nw; i--)
			a[i] = a[i - 1];
	a[i] = nw;
}

static void sort_input(struct bd_view *v, int p, int64_t nw)
{
	int64_t old = v->in[p];
	if (old == nw)
		return;
	v->in[p] = nw;
	v->changed = 1;
	if (v->started) {
		sort_replace(v->sorted, v->nrow, old, nw);
		return;
	}
	v->started = 2; /* the first change: every row is written */
	for (int r = 0; r < v->nrow; r++)
		v->sorted[r] = v->in[r];
	for (int r = 1; r < v->nrow; r++) /* insertion sort, once */
		for (int k = r; k > 0 && v->sorted[k - 1] > v->sorted[k]; k--) {
			int64_t t = v->sorted[k];
			v->sorted[k] = v->sorted[k - 1];
			v->sorted[k - 1] = t;
		}
}

static void write_rows(struct emu *e, struct bd_view *v)
{
	int all = v->started == 2;
	v->started = 1;
	v->changed = 0;
	if (!e->out.writing || !v->open)
		return;
	v->front.now = e->run.now; /* the stream is at e->run.now already */
	for (int r = 0; r < v->nrow; r++)
		if (all || v->sorted[r] != v->last[r]) {
			v->last[r] = v->sorted[r];
			prv_punct(&v->front, r, 0, v->sorted[r]);
		}
}

static void flush_view(struct emu *e, struct bd_view *v)
{
	int out = v->nsrc - 1; /* the last mux feeds the sort */
	for (int i = 0; i < v->nq; i++) { /* the queue grows while it is read */
		int p = (int) (v->q[i] / (uint32_t) v->nsrc), src = (int) (v->q[i] % (uint32_t) v->nsrc);
		for (int x = 0; x < v->nmux; x++) {
			const struct mf_mux *mx = &v->b->mux[x];
			int16_t s = v->sel[(size_t) p * (size_t) v->nmux + (size_t) x];
			if (src_index(v, mx->sel) == src)
				reselect(v, p, x);
			else if (s >= 0 && src_index(v, mx->picks[s].src) == src)
				mux_out(v, p, x, v->val[(size_t) p * (size_t) v->nsrc + (size_t) src]);
		}
		if (src == out)
			sort_input(v, p, v->val[(size_t) p * (size_t) v->nsrc + (size_t) src]);
	}
	for (int i = 0; i < v->nq; i++)
		v->dirty[v->q[i]] = 0;
	v->nq = 0;
	if (v->changed)
		write_rows(e, v);
}

void bd_flush(struct emu *e)
{
	e->bd.pending = 0;
	for (int i = 0; i < e->bd.s->nv; i++)
		if (e->bd.s->v[i].nq)
			flush_view(e, &e->bd.s->v[i]);
}

/* ---- what the Paraver sink asks (emu_bd_ops) ----------------------------------------------- */

static int ops_nviews(const struct emu *e)
{
	return e->bd.s ? e->bd.s->nv : 0;
}

static const struct emu_bd_view *ops_view(const struct emu *e, int i)
{
	return &e->bd.s->v[i].pub;
}

/* The Paraver sink opened view i's file: its records go to the run's
 * stream as set `set`. */
static void ops_open(struct emu *e, int i, int set)
{
	struct bd_view *v = &e->bd.s->v[i];
	prv_front_open(&v->front, e->out.pipe, set, v->nrow, 1);
	v->open = 1;
}

static void ops_close(struct emu *e, int i)
{
	e->bd.s->v[i].open = 0;
}

static void ops_value_lines(struct emu *e, int i, struct strbuf *b)
{
	const struct bd_view *v = &e->bd.s->v[i];
	for (int k = 0; k < v->b->nlabels; k++)
		engine_value_lines(e, v->m, v->b->labels[k], b);
}

void bd_free(struct emu *e)
{
	struct bd_state *s = e->bd.s;
	if (!s)
		return;
	for (int i = 0; i < s->nv; i++) {
		struct bd_view *v = &s->v[i];
		free(v->prow);
		free(v->val);
		free(v->sel);
		free(v->dirty);
		free(v->uses);
		free(v->q);
		free(v->in);
		free(v->sorted);
		free(v->last);
		free(v->name);
		prv_front_free(&v->front);
	}
	free(s->v);
	free(s);
	e->bd.s = NULL;
	e->bd.ops = NULL;
}
