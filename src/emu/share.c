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
	/* a share is a range of streams: each loom's streams one run of them
	 * (path order keeps a loom's folder together; the looms' own order,
	 * by rank or name, need not be the streams': the merge orders a tie
	 * by each loom's first stream, and rows are named by number) */
	const char *why = NULL;
	char *seen = weft_xcalloc((size_t) e->tr.sys.nlooms + 1, 1);
	for (int i = 0; i < e->sys.nth && !why; i++) {
		const struct weft_loom *l = e->sys.th[i].sys->proc->loom;
		if (i > 0 && l == e->sys.th[i - 1].sys->proc->loom)
			continue;
		if (seen[l->gindex]++)
			why = "the streams of a loom are not together";
	}
	free(seen);
	return why;
}

struct prv_pipe *emu_share_handover(struct emu *e)
{
	prv_pipe_drain(e->out.pipe);
	prv_front_forget(&e->out.prv[EMU_THREAD_FILE]);
	return e->out.pipe;
}

static const struct weft_loom *loom_of(const struct emu *e, int i)
{
	return e->sys.th[i].sys->proc->loom;
}

static uint64_t stream_bytes(const struct emu *e, int i)
{
	return e->tr.streams[i].map.size + 1;
}

int emu_share_split(const struct emu *e, int want, int *cut)
{
	int nth = e->sys.nth;
	/* the looms as runs of streams (emu_share_why_not), in stream order:
	 * loom k starts at stream first[k], after bytes before[k] */
	int *first = weft_xcalloc((size_t) nth + 1, sizeof(*first));
	uint64_t *before = weft_xcalloc((size_t) nth + 1, sizeof(*before));
	int nl = 0;
	uint64_t total = 0;
	for (int i = 0; i < nth; i++) {
		if (i == 0 || loom_of(e, i) != loom_of(e, i - 1)) {
			first[nl] = i;
			before[nl++] = total;
		}
		total += stream_bytes(e, i);
	}
	first[nl] = nth;
	before[nl] = total;
	if (want > nl)
		want = nl;
	if (want < 1)
		want = 1;
	/* cut k at the loom boundary nearest k/want of the bytes, each share
	 * one loom at least: never fewer shares than asked for (an uneven
	 * loom only makes its share the larger) */
	cut[0] = 0;
	int b = 0;
	for (int k = 1; k < want; k++) {
		uint64_t target = total / (uint64_t) want * (uint64_t) k +
			total % (uint64_t) want * (uint64_t) k / (uint64_t) want;
		int lo = b + 1, hi = nl - (want - k);
		b = lo;
		while (b < hi && before[b] < target)
			b++;
		if (b > lo && before[b] >= target && target - before[b - 1] < before[b] - target)
			b--;
		cut[k] = first[b];
	}
	cut[want] = nth;
	free(first);
	free(before);
	return want;
}

/* bytes for a person: "8.8 MB", "52.3 kB" */
static void say_bytes(uint64_t b, FILE *f)
{
	if (b < 1000000)
		fprintf(f, "%.1f kB", (double) b / 1e3);
	else
		fprintf(f, "%.1f MB", (double) b / 1e6);
}

/* "node00 (8.8 MB)", "500 looms node1..node549 (4.1 MB)": share [lo, hi) */
static void say_share(const struct emu *e, int lo, int hi, FILE *f)
{
	int nl = 0;
	uint64_t bytes = 0;
	for (int i = lo; i < hi; i++) {
		nl += i == lo || loom_of(e, i) != loom_of(e, i - 1);
		bytes += stream_bytes(e, i);
	}
	if (nl == 1)
		fprintf(f, "%s", loom_of(e, lo)->name);
	else
		fprintf(f, "%d looms %s..%s", nl, loom_of(e, lo)->name, loom_of(e, hi - 1)->name);
	fprintf(f, " (");
	say_bytes(bytes, f);
	fprintf(f, ")");
}

void emu_share_say(const struct emu *e, const char *who, const char *unit, const int *cut, int n)
{
	if (e->o.quiet)
		return;
	fprintf(stderr, "weft: %s: %d %s, looms split by stream bytes: ", who, n, unit);
	if (n <= 4) {
		for (int k = 0; k < n; k++) {
			fprintf(stderr, "%s", k ? ", " : "");
			say_share(e, cut[k], cut[k + 1], stderr);
		}
	} else {
		/* many: the range of looms and bytes a share */
		int lmin = 0, lmax = 0;
		uint64_t bmin = 0, bmax = 0;
		for (int k = 0; k < n; k++) {
			int nl = 0;
			uint64_t bytes = 0;
			for (int i = cut[k]; i < cut[k + 1]; i++) {
				nl += i == cut[k] || loom_of(e, i) != loom_of(e, i - 1);
				bytes += stream_bytes(e, i);
			}
			if (k == 0 || nl < lmin)
				lmin = nl;
			if (k == 0 || nl > lmax)
				lmax = nl;
			if (k == 0 || bytes < bmin)
				bmin = bytes;
			if (k == 0 || bytes > bmax)
				bmax = bytes;
		}
		fprintf(stderr, "%d to %d looms and ", lmin, lmax);
		say_bytes(bmin, stderr);
		fprintf(stderr, " to ");
		say_bytes(bmax, stderr);
		fprintf(stderr, " each");
	}
	fprintf(stderr, "\n");
}

uint64_t emu_share_bytes(const struct emu *e)
{
	uint64_t total = 0;
	for (int i = 0; i < e->sys.nth; i++)
		total += stream_bytes(e, i);
	return total;
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
