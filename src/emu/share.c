/* SPDX-License-Identifier: GPL-3.0-or-later */
/* share: a share of a run, for src/par/ (see share.h). */
#include <stdio.h>
#include <stdlib.h>

#include "emu/merge.h"
#include "emu/share.h"
#include "emu/warns.h"
#include "trace/progress.h"

int emu_share_open(struct emu *e, const struct emu_share *s, struct weft_err *err)
{
	const struct emu *m = s->main;
	struct emu_opts o = m->o;
	o.sinks.n = 0;
	o.quiet = 1;
	o.progress = 0;
	o.reuse = NULL;
	o.streams_lo = s->lo;
	o.streams_hi = s->hi;
	/* a log the main run converted is read from its conversion */
	const char **conv = weft_xcalloc((size_t) m->tr.ninputs + 1, sizeof(*conv));
	for (int i = 0; i < m->tr.ninputs; i++)
		conv[i] = m->tr.inputs[i].source ? m->tr.inputs[i].dir : NULL;
	o.converted = conv;
	int rc = emu_open(e, m->run.trace, &o, err);
	free(conv);
	if (rc)
		return -1;
	if (s->follow)
		merge_follow(&e->merge, s->follow, s->fk);
	if (!m->o.quiet || m->o.keep_warns || m->o.keep_going)
		warns_keep(e, s->lo); /* printed by the merging run, in one run's order */
	/* as paraver_open leaves the files: thread.prv is file 0, cpu.prv 1,
	 * each CPU row names its CPU, no row has a state (emu_share_why_not) */
	prv_front_init(&e->out.prv[EMU_THREAD_FILE], s->ring, 0, e->sys.nth, e->out.slots.n[EMU_THREAD_FILE]);
	prv_front_init(&e->out.prv[EMU_CPU_FILE], s->ring, 1, e->sys.ncpu, e->out.slots.n[EMU_CPU_FILE]);
	for (int k = 0; k < EMU_NFILES; k++)
		emu_fresh_apply(e, k, &e->out.prv[k]);
	for (int i = 0; i < e->sys.ncpu; i++)
		e->out.prv[EMU_CPU_FILE].rows[i].cpu = (uint32_t) i + 1;
	/* its rows that open with a state, as paraver_open gives them, in row
	 * order; the main run's are not flushed (emu_share_handover) */
	for (int r = 0; r < e->sys.nth; r++) {
		const struct emu_thread *t = e->sys.by_row[r];
		int k = (int) (t - e->sys.th);
		if (k >= s->lo && k < s->hi && emu_owner(e, t) != 'O')
			prv_state(&e->out.prv[EMU_THREAD_FILE], r, EMU_STATE_NOT_STARTED);
	}
	e->out.writing = 1;
	e->run.t0 = m->run.t0;
	e->part.t0_fixed = 1;
	e->part.halt = s->halt;
	e->part.done = s->done;
	e->part.match_defer = 1; /* message ends go to the merger (match.h) */
	return 0;
}

int emu_share_run(struct emu *e, struct emu_share_fail *f, struct weft_err *err)
{
	int rc = 0;
	int r = emu_run_events(e, err);
	if (r < 0) {
		rc = -1;
		f->time = e->run.now + e->run.t0;
		f->stream = e->merge.cur ? e->merge.cur->index : e->o.streams_lo;
	} else if (r == 0 && emu_run_end(e, &f->model, err)) {
		rc = -2;
	}
	/* the states of its last instant */
	prv_flush_now(&e->out.prv[EMU_THREAD_FILE]);
	prv_flush_now(&e->out.prv[EMU_CPU_FILE]);
	prv_pipe_untime(e->out.prv[EMU_THREAD_FILE].pw);
	return rc;
}

void emu_share_free(struct emu *e)
{
	if (e->out.writing) {
		for (int f = 0; f < EMU_NFILES; f++)
			prv_front_free(&e->out.prv[f]);
		e->out.writing = 0;
	}
	emu_free(e);
}

const char *emu_share_why_not(const struct emu *e, char *buf, size_t n)
{
	if (!e->out.writing)
		return "no output";
	if (e->obs.on_event || e->obs.acct)
		return "an observer sees every event in order";
	if (e->o.breakdown)
		return "the breakdown views (-b) sort the CPUs of all looms at every change";
	if (e->o.bursts)
		return "--bursts reports over all threads";
	if (e->o.reuse)
		return "the trace is taken over from an earlier pass";
	for (int m = 0; m < e->models.n; m++) {
		const struct weft_model_def *d = e->models.def[m];
		const struct weft_model_par *par = d->hooks->par;
		const char *why = par && par->serial_why ? par->serial_why(d) : NULL;
		if (!par)
			why = "keeps state across looms";
		if (why) {
			snprintf(buf, n, "model %s %s", d->name, why);
			return buf;
		}
	}
	if (e->tr.sys.nlooms < 2)
		return "the trace has one loom";
	if (e->out.prv[EMU_CPU_FILE].nsdirty)
		return "CPU rows open with a state";
	/* rows that open with a state (Not started) are flushed in row order:
	 * by worker only when rows follow the streams (ovniemu's row order sorts pids as numbers, the
	 * streams are in path order) */
	for (int i = 1; i < e->sys.nth && e->out.prv[EMU_THREAD_FILE].nsdirty; i++)
		if (e->sys.th[i].row < e->sys.th[i - 1].row)
			return "rows open with a state and are not in stream order";
	for (int i = 1; i < e->sys.nth; i++)
		if (e->sys.th[i].sys->proc->loom->gindex < e->sys.th[i - 1].sys->proc->loom->gindex)
			return "the streams of a loom are not together";
	return NULL;
}

struct prv_pipe *emu_share_handover(struct emu *e)
{
	prv_pipe_drain(e->out.pipe);
	prv_front_forget(&e->out.prv[EMU_THREAD_FILE]);
	return e->out.pipe;
}

int emu_share_split(const struct emu *e, int want, int *cut)
{
	int nl = e->tr.sys.nlooms;
	if (want > nl)
		want = nl;
	uint64_t total = 0;
	for (int i = 0; i < e->sys.nth; i++)
		total += e->tr.streams[i].map.size + 1;
	int k = 0;
	uint64_t acc = 0;
	cut[0] = 0;
	for (int i = 0; i < e->sys.nth; i++) {
		acc += e->tr.streams[i].map.size + 1;
		int loom_ends = i + 1 == e->sys.nth || e->sys.th[i + 1].sys->proc->loom != e->sys.th[i].sys->proc->loom;
		/* cut where this job has its share, leaving a loom for each job after */
		if (loom_ends && i + 1 < e->sys.nth && k + 1 < want &&
		    acc * (uint64_t) want >= total * (uint64_t) (k + 1))
			cut[++k] = i + 1;
	}
	cut[++k] = e->sys.nth;
	return k;
}

void emu_share_prime(struct emu *e)
{
	e->run.t0 = merge_peek_time(&e->merge);
	for (int i = 0; i < e->sys.nth; i++)
		map_release_now(&e->tr.streams[i].map, e->tr.streams[i].map.size);
}

void emu_share_progress(const struct emu *e, struct progress *pg)
{
	progress_start(pg, e->o.progress && !e->o.quiet, e->tr.streams, e->sys.nth);
}

void emu_share_gather(struct emu *e, const struct emu *w)
{
	e->count.nevents += w->count.nevents;
	e->count.nerrors += w->count.nerrors;
	e->run.now = w->run.now > e->run.now ? w->run.now : e->run.now;
	for (int m = 0; m < MCV_NCHARS; m++)
		e->count.skipped[m] += w->count.skipped[m];
}

int *emu_share_procs(const struct emu *w, int lo, int hi, int *n)
{
	int *procs = weft_xcalloc((size_t) w->tr.sys.nprocs + 1, sizeof(int));
	int *seen = weft_xcalloc((size_t) w->tr.sys.nprocs + 1, sizeof(int));
	*n = 0;
	for (int i = lo; i < hi; i++) {
		int p = w->sys.th[i].sys->proc->gindex;
		if (!seen[p]++)
			procs[(*n)++] = p;
	}
	free(seen);
	return procs;
}

int emu_share_nrows(const struct emu *e, int file)
{
	return file == EMU_THREAD_FILE ? e->sys.nth : e->sys.ncpu;
}

const struct emu_thread *emu_share_row_thread(const struct emu *e, uint32_t row)
{
	return e->sys.by_row[row];
}
