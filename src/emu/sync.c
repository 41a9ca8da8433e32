/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sync: the estimation passes, the composition of their solution with the
 * given clocks, and the repair passes (see sync.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock/bounds.h"
#include "clock/piecewise.h"
#include "clock/repair.h"
#include "emu/sync.h"

static int gindex(const struct emu_thread *t)
{
	return t->sys->proc->loom->gindex;
}

static void observe(void *arg, const struct emu *e, const struct emu_pair *p)
{
	(void) e;
	est_add(arg, gindex(p->from), gindex(p->to), (int64_t) p->send, (int64_t) p->recv);
}

static void observe_locate(void *arg, const struct emu *e, const struct emu_pair *p)
{
	(void) e;
	est_locate_add(arg, gindex(p->from), gindex(p->to), (int64_t) p->send, (int64_t) p->recv);
}

/* What the passes after the estimate observe: the repair, and the bounds
 * (NULL: not asked for). */
struct final_obs {
	struct repair *rp;
	struct bounds *bd;
};

static void observe_repair(void *arg, const struct emu *e, const struct emu_pair *p)
{
	(void) e;
	struct final_obs *f = arg;
	repair_add(f->rp, gindex(p->to), p->send, p->recv);
	if (f->bd)
		bounds_add(f->bd, gindex(p->from), gindex(p->to), p->send, p->recv);
}

/* The input shift of loom l (its first stream's input). */
static int64_t loom_shift(const struct weft_trace *t, const struct weft_loom *l)
{
	for (int i = 0; i < t->nstreams; i++)
		if (t->streams[i].thread->proc->loom == l)
			return t->input_shift[t->streams[i].input];
	return 0;
}

static struct weft_loom *loom_by_gindex(const struct weft_trace *t, int g)
{
	for (int i = 0; i < t->sys.nlooms; i++)
		if (t->sys.looms[i]->gindex == g)
			return t->sys.looms[i];
	return NULL;
}

/* One pass over r->tr (kept for the next) with the clocks `tab` (NULL: the
 * given ones) and an observer of every pair; the receive-before-send count. */
static int pass(struct sync_result *r, const struct emu_opts *o, const struct clock_table *tab,
		void (*obs)(void *, const struct emu *, const struct emu_pair *), void *arg, uint64_t *nviol,
		struct weft_err *err)
{
	struct emu_opts vo = *o;
	vo.sinks.n = 0;
	vo.quiet = 1;
	vo.no_gate = 1;
	vo.clock_table = tab;
	vo.sync_file = 0;
	vo.reuse = &r->tr;
	r->have_tr = 0;
	struct emu e;
	int rc = emu_open(&e, r->trace, &vo, err);
	if (rc == 0) {
		e.count.pairs.observer = obs;
		e.count.pairs.arg = arg;
		rc = emu_run(&e, err);
	}
	if (nviol)
		*nviol = e.count.pairs.nviol;
	r->tr = e.tr;
	memset(&e.tr, 0, sizeof(e.tr));
	r->have_tr = r->tr.streams != NULL;
	emu_free(&e);
	return rc;
}

/* The loom's given clock as segments (a new array). */
static struct clock_seg *given_segs(const struct weft_trace *t, int g, int *n)
{
	int k = t->loom_nseg[g] > 1 ? t->loom_nseg[g] : 1;
	struct clock_seg *s = weft_xmalloc((size_t) k * sizeof(*s));
	if (t->loom_nseg[g] > 1)
		memcpy(s, t->loom_seg[g], (size_t) k * sizeof(*s));
	else
		s[0] = (struct clock_seg){0, t->loom_clock[g]};
	*n = k;
	return s;
}

static int64_t clamp_drift(double q)
{
	double d = q * (double) CLOCK_PPT;
	return d > (double) CLOCK_DRIFT_MAX	? CLOCK_DRIFT_MAX
		: d < -(double) CLOCK_DRIFT_MAX ? -CLOCK_DRIFT_MAX
						: llround(d);
}

static void compose_result(struct sync_result *r, const struct est_result *er)
{
	struct weft_trace *t = &r->tr;
	r->nlooms = t->sys.nlooms;
	r->loom = weft_xcalloc((size_t) r->nlooms + 1, sizeof(*r->loom));
	r->linked = weft_xcalloc((size_t) r->nlooms + 1, sizeof(int));
	for (int g = 0; g < t->sys.nlooms; g++) {
		struct weft_loom *l = loom_by_gindex(t, g);
		int ng;
		struct clock_seg *given = given_segs(t, g, &ng);
		int64_t sh = loom_shift(t, l);
		const struct est_loom *el = &er->loom[g];
		/* the loom's local times at the start and the end of the span */
		uint64_t l0 = pw_invert(given, ng, (uint64_t) (er->t0 - sh));
		uint64_t l1 = pw_invert(given, ng, (uint64_t) (er->t1 - sh));
		struct sync_loom *sl = &r->loom[g];
		sl->status = el->status;
		sl->reference = el->reference;
		sl->nmsg = el->nmsg;
		sl->scatter = el->scatter;
		sl->given0 = pw_corr(given, ng, l0);
		sl->given1 = pw_corr(given, ng, l1);
		struct clock_seg *fin = given;
		int nf = ng;
		if (el->status != EST_UNLINKED && el->status != EST_REFERENCE) {
			/* each segment's correction acts on the first pass's timeline
			 * without the input's shift, which the next run computes again */
			fin = weft_xmalloc((size_t) el->nseg * sizeof(*fin));
			nf = el->nseg;
			for (int s = 0; s < el->nseg; s++) {
				const struct est_seg *es = &el->seg[s];
				uint64_t from = s ? pw_invert(given, ng, (uint64_t) (es->from - sh)) : 0;
				uint64_t at = s ? from : l0;
				struct clock_map inner = clock_seg_at(given, ng, at)->map;
				inner.offset = clock_correction(&inner, at);
				inner.tref = at;
				struct clock_map outer = {llround(es->p), clamp_drift(es->q),
							  (uint64_t) (es->from - sh)};
				fin[s].from = from;
				fin[s].map = clock_compose(&outer, &inner);
			}
			free(given);
		}
		sl->corr0 = pw_corr(fin, nf, l0);
		sl->corr1 = pw_corr(fin, nf, l1);
		sl->nseg = nf;
		struct clock_entry *en = clockfile_add(&r->table, l->name, 0);
		sl->name = en->name; /* the table's copy outlives the trace */
		clockfile_set_segs(en, fin, nf);
		en->line = g;
		if (el->status != EST_UNLINKED && el->status != EST_REFERENCE)
			en->uncertainty = (int64_t) ceil(el->scatter);
		r->linked[g] = el->status != EST_UNLINKED;
		free(fin);
	}
}

int sync_estimate(const char *trace, const struct emu_opts *o, int64_t min_latency, struct sync_result *r,
		  struct weft_err *err)
{
	memset(r, 0, sizeof(*r));
	r->trace = trace;
	struct emu_opts po = *o;
	po.sinks.n = 0;
	po.quiet = 1;
	po.no_gate = 1; /* messages can bound clocks hours apart */
	po.clock_table = NULL;
	po.map_budget = SYNC_MAP_BUDGET;
	po.sync_file = 0; /* from the given clocks, never from an earlier estimate */
	struct emu e;
	struct estimator x;
	memset(&x, 0, sizeof(x));
	int rc = emu_open(&e, trace, &po, err);
	if (rc == 0) {
		est_init(&x, e.tr.sys.nlooms, min_latency, (int64_t) e.run.t0);
		e.count.pairs.observer = observe;
		e.count.pairs.arg = &x;
		rc = emu_run(&e, err);
	}
	struct est_result er;
	memset(&er, 0, sizeof(er));
	if (rc == 0) {
		r->t0 = e.run.t0;
		r->t1 = e.run.t0 + e.run.now;
		r->npairs = e.count.pairs.n;
		r->nmsg = x.nmsg;
		r->nviol_before = x.nviol;
		rc = est_solve(&x, (int64_t) r->t0, (int64_t) r->t1, &er, err);
	}
	if (rc == 0) {
		/* keep the opened inputs for the next passes */
		r->tr = e.tr;
		memset(&e.tr, 0, sizeof(e.tr));
		r->have_tr = 1;
	}
	emu_free(&e);
	if (rc == 0 && er.nlocate > 0) {
		/* the steps: the same messages on the same clocks again */
		struct emu_opts lo = po;
		rc = pass(r, &lo, NULL, observe_locate, &x, NULL, err);
		if (rc == 0)
			est_locate_finish(&x, &er);
	}
	if (rc == 0) {
		r->nlinks = er.nlinks;
		r->nvertices = er.npoints;
		r->ncomponents = er.ncomponents;
		r->nbreaks = er.nbreaks;
		r->cg_iters = er.cg_iters;
		for (int k = 0; k < x.nlooms; k++)
			r->nlocated += er.loom[k].located;
		r->table.path = weft_xstrdup("(estimated from messages)");
		r->table.form = CLOCK_FORM_WEFT;
		compose_result(r, &er);
	}
	est_result_free(&er);
	est_free(&x);
	if (rc)
		sync_result_free(r);
	return rc;
}

/* The moves of the repair composed into every loom's estimated clock. */
static void apply_moves(struct sync_result *r, const struct clock_table *est, struct repair *rp)
{
	for (int g = 0; g < r->nlooms; g++) {
		struct clock_entry *en = &r->table.ent[g];
		const struct clock_entry *base = &est->ent[g];
		int64_t sh = loom_shift(&r->tr, loom_by_gindex(&r->tr, g));
		uint64_t *at;
		double *val;
		int n;
		repair_moves(rp, g, sh, &at, &val, &n);
		if (n) {
			struct clock_seg one = {0, base->map};
			const struct clock_seg *s = base->nseg > 1 ? base->seg : &one;
			int ns = base->nseg > 1 ? base->nseg : 1, nout;
			struct pw_add a = {at, val, n};
			struct clock_seg *out = pw_compose_add(s, ns, &a, &nout);
			clockfile_set_segs(en, out, nout);
			r->loom[g].nseg = nout;
			free(out);
		}
		free(at);
		free(val);
	}
}

/* The last pass's bounds into every loom and its table entry. */
static void set_bounds(struct sync_result *r, const struct bounds *bd)
{
	int *ref = weft_xmalloc(((size_t) r->nlooms + 1) * sizeof(int));
	double *lo = weft_xmalloc(((size_t) r->nlooms + 1) * sizeof(double));
	double *hi = weft_xmalloc(((size_t) r->nlooms + 1) * sizeof(double));
	for (int g = 0; g < r->nlooms; g++)
		ref[g] = r->loom[g].status == EST_UNLINKED ? -1 : r->loom[g].reference;
	bounds_solve(bd, ref, lo, hi);
	for (int g = 0; g < r->nlooms; g++) {
		r->loom[g].lo = lo[g];
		r->loom[g].hi = hi[g];
		struct clock_entry *en = &r->table.ent[g];
		en->have_bound = r->loom[g].status != EST_UNLINKED && r->loom[g].status != EST_REFERENCE;
		en->bound_lo = lo[g];
		en->bound_hi = hi[g];
	}
	r->have_bounds = 1;
	r->nneg = bd->nneg;
	free(ref), free(lo), free(hi);
}

int sync_repair(struct sync_result *r, const struct emu_opts *o, int64_t min_latency, int repair, int max_rounds,
		int bounds, struct weft_err *err)
{
	/* the estimate, which every round's moves are composed with */
	struct clock_table est = {0};
	for (int g = 0; g < r->table.n; g++) {
		const struct clock_entry *en = &r->table.ent[g];
		struct clock_entry *c = clockfile_add(&est, en->name, 0);
		struct clock_seg one = {0, en->map};
		clockfile_set_segs(c, en->nseg > 1 ? en->seg : &one, en->nseg > 1 ? en->nseg : 1);
	}
	struct repair rp;
	repair_init(&rp, r->nlooms, min_latency);
	struct bounds bd;
	bounds_init(&bd, r->nlooms, min_latency);
	struct final_obs fo = {&rp, bounds ? &bd : NULL};
	int rc = 0;
	for (int round = 0; rc == 0; round++) {
		uint64_t nv = 0;
		bounds_reset(&bd); /* the last pass's messages only */
		rc = pass(r, o, &r->table, observe_repair, &fo, &nv, err);
		r->nviol_after = nv;
		int done = rp.nviol == 0 || !repair || round >= max_rounds;
		if (rc == 0 && !done) {
			r->rounds++;
			r->moved += rp.nviol;
			repair_round(&rp);
			apply_moves(r, &est, &rp);
		}
		if (done)
			break;
	}
	r->largest = rp.largest;
	if (rc == 0 && bounds)
		set_bounds(r, &bd);
	bounds_free(&bd);
	repair_free(&rp);
	clockfile_free(&est);
	return rc;
}

void sync_result_free(struct sync_result *r)
{
	clockfile_free(&r->table);
	free(r->linked);
	free(r->loom);
	if (r->have_tr)
		trace_close(&r->tr);
	memset(r, 0, sizeof(*r));
}
