/* SPDX-License-Identifier: GPL-3.0-or-later */
/* breakdown: the muxes, the sort and the Paraver files of the breakdown
 * views (breakdown.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prv/pcfcolors.h"
#include "engine/breakdown.h"
#include "engine/engine.h"
#include "emu/paraver_out.h"
#include "util/outset.h"
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
	struct prv_file prv; /* the Paraver sink's file (its back) */
	struct prv_file front; /* its records, queued into the run's stream as set prv.id */
	int open;
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

static const struct emu_bd_ops bd_ops = {
	.flush = bd_flush,
	.free = bd_free,
	.outputs = bd_outputs,
	.open = bd_open,
	.write_texts = bd_write_texts,
	.finish = bd_finish,
	.abort = bd_abort,
	.nviews = bd_nviews,
	.view_model = bd_view_model,
	.view_type = bd_view_type,
	.view_back = bd_view_back,
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

/* ---- Paraver files ------------------------------------------------------------------------ */

void bd_outputs(struct emu *e, struct outset *s)
{
	for (int i = 0; e->bd.s && i < e->bd.s->nv; i++) {
		static const char *const ext[] = {"prv", "pcf", "row"};
		for (int k = 0; k < 3; k++) {
			char *n = weft_xasprintf("%s.%s%s", e->bd.s->v[i].name, ext[k],
						 k == 0 && e->out.par->gzip ? ".gz" : "");
			outset_add(s, n);
			free(n);
		}
	}
}

int bd_open(struct emu *e, struct prv_pipe *files, const char *date, struct weft_err *err)
{
	for (int i = 0; e->bd.s && i < e->bd.s->nv; i++) {
		struct bd_view *v = &e->bd.s->v[i];
		/* one node and one task whose threads are the rows, as ovniemu's */
		char *rest = weft_xasprintf("1(%d):1:1(%d:1)", v->nrow, v->nrow);
		uint32_t(*ids)[3] = weft_xcalloc((size_t) v->nrow + 1, sizeof(*ids));
		for (int r = 0; r < v->nrow; r++) {
			ids[r][0] = 1;
			ids[r][1] = 1;
			ids[r][2] = (uint32_t) r + 1;
		}
		char *n = weft_xasprintf("%s.prv", v->name);
		char *p = outset_shown(&e->out.par->out, n), *tmp = paraver_trace_tmp(e, n);
		int32_t type = v->m->prv.breakdown;
		int rc = prv_open(&v->prv, files, p, tmp, date, rest, v->nrow, (const uint32_t(*)[3]) ids, 1, &type,
				  e->out.par->gzip, err);
		free(n);
		free(p);
		free(tmp);
		free(ids);
		free(rest);
		if (rc)
			return -1;
		v->open = 1;
		if (v->prv.pipe != files) /* the set is full: its records would have nowhere to go */
			return weft_fail(err, WEFT_EINTERNAL, "%s: more breakdown traces than the Paraver writer holds",
					 v->name);
		prv_front_open(&v->front, e->out.pipe, v->prv.id, v->nrow, 1);
	}
	return 0;
}

int bd_write_texts(struct emu *e, struct outset *s, struct weft_err *err)
{
	for (int i = 0; e->bd.s && i < e->bd.s->nv; i++) {
		struct bd_view *v = &e->bd.s->v[i];
		struct strbuf b = {0};
		sb_printf(&b,
			  "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
			  "LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
			  "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
			  "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\n");
		pcfcolors_section(&b, 1, NULL, 0); /* ovniemu's colours for the values */
		sb_printf(&b, "\n\nEVENT_TYPE\n0 %d %s\nVALUES\n", v->m->prv.breakdown, v->b->label);
		for (int k = 0; k < v->b->nlabels; k++)
			engine_value_lines(e, v->m, v->b->labels[k], &b);
		sb_printf(&b, "\n");
		char *n = weft_xasprintf("%s.pcf", v->name);
		int rc = outset_write(s, n, b.s ? b.s : "", b.len, err);
		free(n);
		sb_free(&b);
		if (rc)
			return -1;
		sb_printf(&b,
			  "LEVEL NODE SIZE 1\nCPUs\n\nLEVEL APPL SIZE 1\n%s\n\nLEVEL TASK SIZE 1\nCPUs\n\n"
			  "LEVEL THREAD SIZE %d\n",
			  v->name, v->nrow);
		for (int r = 0; r < v->nrow; r++) /* the top row shows the greatest value */
			sb_printf(&b, "~CPU %4d\n", v->nrow - r);
		n = weft_xasprintf("%s.row", v->name);
		rc = outset_write(s, n, b.s ? b.s : "", b.len, err);
		free(n);
		sb_free(&b);
		if (rc)
			return -1;
	}
	return 0;
}

/* After the pipe finished: the files are the caller's thread's again. */
int bd_finish(struct emu *e, uint64_t ftime, struct weft_err *err)
{
	for (int i = 0; e->bd.s && i < e->bd.s->nv; i++) {
		struct bd_view *v = &e->bd.s->v[i];
		if (!v->open)
			continue;
		v->open = 0;
		char *done = NULL;
		char *shown = weft_xasprintf("%s%s", v->prv.back.path, v->prv.back.gzip ? ".gz" : "");
		uint64_t nrec = 0;
		int rc = prv_finish_n(&v->prv, ftime, &done, &nrec, err);
		free(done); /* in the new generation, under its name */
		/* ovniemu writes such a view with the header alone; so does weft
		 * (the same bytes), but the user is told it will not open */
		if (rc == 0 && nrec == 0 && !e->o.quiet)
			weft_warn("%s: no CPU's value ever changed: its body is empty, as ovniemu "
				  "writes it, and Paraver refuses to load it (\"Empty body\")",
				  shown);
		free(shown);
		if (rc)
			return -1;
	}
	return 0;
}

void bd_abort(struct emu *e)
{
	for (int i = 0; e->bd.s && i < e->bd.s->nv; i++) {
		struct bd_view *v = &e->bd.s->v[i];
		if (v->open)
			prv_abort(&v->prv);
		v->open = 0;
	}
}

void bd_free(struct emu *e)
{
	struct bd_state *s = e->bd.s;
	if (!s)
		return;
	bd_abort(e);
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

/* ---- for the views (breakdown.h); kept at the end of the file ---------------------------- */

int bd_nviews(const struct emu *e)
{
	int n = 0;
	for (int i = 0; e->bd.s && i < e->bd.s->nv; i++)
		n += e->bd.s->v[i].open;
	return n;
}

/* The i-th view being written (bd_nviews counts only those). */
static const struct bd_view *written(const struct emu *e, int i)
{
	for (int k = 0; e->bd.s && k < e->bd.s->nv; k++)
		if (e->bd.s->v[k].open && i-- == 0)
			return &e->bd.s->v[k];
	return NULL;
}

char bd_view_model(const struct emu *e, int i)
{
	return written(e, i)->m->def.id;
}

const char *bd_view_name(const struct emu *e, int i)
{
	return written(e, i)->name;
}

int32_t bd_view_type(const struct emu *e, int i)
{
	return written(e, i)->m->prv.breakdown;
}

const struct prv_back *bd_view_back(const struct emu *e, int i)
{
	return &written(e, i)->prv.back;
}

int bd_drawn(const struct emu *e, char model)
{
	for (int k = 0; e->bd.s && k < e->bd.s->nv; k++)
		if (e->bd.s->v[k].m->def.id == model)
			return 1;
	return 0;
}
