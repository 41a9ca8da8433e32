/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sync: the estimation pass and the composition of its solution with the
 * given clocks (see sync.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu/sync.h"

static void observe(void *arg, const struct emu *e, const struct emu_pair *p)
{
	(void) e;
	struct estimator *x = arg;
	est_add(x, p->from->sys->proc->loom->gindex, p->to->sys->proc->loom->gindex, (int64_t) p->send,
		(int64_t) p->recv);
}

/* The input shift of loom l (its first stream's input). */
static int64_t loom_shift(const struct weft_trace *t, const struct weft_loom *l)
{
	for (int i = 0; i < t->nstreams; i++)
		if (t->streams[i].thread->proc->loom == l)
			return t->input_shift[t->streams[i].input];
	return 0;
}

/* The same line referred to another t_ref (exact). */
static struct clock_map rereference(const struct clock_map *m, uint64_t tref)
{
	struct clock_map r = *m;
	r.offset = clock_correction(m, tref);
	r.tref = tref;
	return r;
}

static void compose_result(struct sync_result *r, const struct est_result *er, const struct estimator *x)
{
	struct weft_trace *t = &r->tr;
	double span = (double) (er->t1 - er->t0);
	r->nlooms = t->sys.nlooms;
	r->loom = weft_xcalloc((size_t) r->nlooms + 1, sizeof(*r->loom));
	r->linked = weft_xcalloc((size_t) r->nlooms + 1, sizeof(int));
	for (int g = 0; g < t->sys.nlooms; g++) {
		struct weft_loom *l = NULL;
		for (int i = 0; i < t->sys.nlooms; i++)
			if (t->sys.looms[i]->gindex == g)
				l = t->sys.looms[i];
		const struct clock_map *given = &t->loom_clock[g];
		int64_t sh = loom_shift(t, l);
		/* the loom's local times at the start and the end of the span */
		uint64_t l0 = (uint64_t) ((int64_t) er->t0 - sh - given->offset);
		uint64_t l1 = (uint64_t) ((int64_t) er->t1 - sh - given->offset);
		const struct est_loom *el = &er->loom[g];
		struct sync_loom *sl = &r->loom[g];
		sl->name = l->name;
		sl->status = el->status;
		sl->reference = el->reference;
		sl->nmsg = el->nmsg;
		sl->given0 = clock_correction(given, l0);
		sl->given1 = clock_correction(given, l1);
		struct clock_map fin = rereference(given, l0);
		if (el->status != EST_UNLINKED && el->status != EST_REFERENCE) {
			/* the correction acts on the first pass's timeline without the
			 * input's shift, which the next run computes again */
			struct clock_map outer = {llround(el->p), llround(el->q / span * (double) CLOCK_PPT),
						  (uint64_t) (er->t0 - sh)};
			if (outer.drift > CLOCK_DRIFT_MAX)
				outer.drift = CLOCK_DRIFT_MAX;
			if (outer.drift < -CLOCK_DRIFT_MAX)
				outer.drift = -CLOCK_DRIFT_MAX;
			fin = clock_compose(&outer, &fin);
		}
		sl->corr0 = clock_correction(&fin, l0);
		sl->corr1 = clock_correction(&fin, l1);
		sl->bound0 = sl->bound1 = -1;
		if (el->status == EST_REFERENCE)
			sl->bound0 = sl->bound1 = 0;
		else if (el->bounded)
			sl->bound0 = (el->hi0 - el->lo0) / 2, sl->bound1 = (el->hi1 - el->lo1) / 2;
		struct clock_entry *en = clockfile_add(&r->table, l->name, 0);
		sl->name = en->name; /* the table's copy outlives the trace */
		en->map = fin;
		en->line = g;
		if (sl->bound0 >= 0)
			en->uncertainty = (int64_t) ceil(sl->bound0 > sl->bound1 ? sl->bound0 : sl->bound1);
		r->linked[g] = el->status != EST_UNLINKED;
	}
	(void) x;
}

int sync_estimate(const char *trace, const struct emu_opts *o, int64_t min_latency, struct sync_result *r,
		  struct weft_err *err)
{
	memset(r, 0, sizeof(*r));
	struct emu_opts po = *o;
	po.outdir = NULL;
	po.quiet = 1;
	po.no_gate = 1; /* messages can bound clocks hours apart */
	po.clock_table = NULL;
	struct emu e;
	struct estimator x;
	int rc = emu_open(&e, trace, &po, err);
	est_init(&x, e.tr.sys.nlooms, min_latency);
	if (rc == 0) {
		e.pairs.observer = observe;
		e.pairs.arg = &x;
		rc = emu_run(&e, err);
	}
	struct est_result er;
	memset(&er, 0, sizeof(er));
	if (rc == 0) {
		r->t0 = e.t0;
		r->t1 = e.t0 + e.now;
		r->npairs = e.pairs.n;
		r->nmsg = x.nmsg;
		r->nviol_before = x.nviol;
		rc = est_solve(&x, (int64_t) r->t0, (int64_t) r->t1, &er, err);
	}
	if (rc == 0) {
		/* keep the opened inputs for the next pass */
		r->tr = e.tr;
		memset(&e.tr, 0, sizeof(e.tr));
		r->have_tr = 1;
		r->nlinks = er.nlinks;
		r->nvertices = er.nconstraints;
		r->ncomponents = er.ncomponents;
		r->min_slack = er.min_slack;
		r->table.path = weft_xstrdup("(estimated from messages)");
		r->table.form = CLOCK_FORM_WEFT;
		compose_result(r, &er, &x);
	}
	est_result_free(&er);
	est_free(&x);
	emu_free(&e);
	if (rc)
		sync_result_free(r);
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
