/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jobs: workers by loom, their writer ops merged into one run's order
 * (jobs.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "par/jobs.h"
#include "par/jobs_impl.h"
#include "emu/match.h"
#include "emu/share.h"
#include "emu/sinks.h"
#include "emu/warns.h"
#include "util/strbuf.h"
#include "trace/progress.h"

/* The cores this process may use: its affinity mask (a batch job's share
 * of the node), else the online ones; at least 1. */
static int cores_available(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (int) n : 1;
}

int jobs_cores(void)
{
	return cores_available();
}

int jobs_default(void)
{
	int c = cores_available();
	return c > 3 ? c - 2 : 1;
}

int jobs_auto(int most, uint64_t bytes, int looms)
{
	uint64_t per = JOBS_WORKER_BYTES + (uint64_t) (looms > 0 ? looms : 0) * JOBS_LOOM_BYTES;
	uint64_t n = bytes / per;
	if (n > (uint64_t) most)
		n = (uint64_t) most;
	return n > 1 ? (int) n : 1;
}

int jobs_writers(const struct emu *e)
{
	if (e->o.writers)
		return e->o.writers;
	return cores_available() >= 4 ? 2 : 1;
}

int job_open(struct job *j)
{
	struct emu_share sh = {
		.main = j->main,
		.lo = j->lo,
		.hi = j->hi,
		.ring = j->ring,
		.halt = j->halt,
		.done = j->progress,
		.follow = j->share,
		.fk = j->fk,
	};
	if (emu_share_open(&j->e, &sh, &j->err)) {
		j->rc = -3;
		return -1;
	}
	return 0;
}

void job_run(struct job *j)
{
	struct emu_share_fail f = {0};
	j->rc = emu_share_run(&j->e, &f, &j->err);
	j->failed_model = f.model;
	if (j->rc == -1) {
		j->fail_time = f.time;
		j->fail_stream = f.stream;
		if (j->halt) {
			uint64_t h = atomic_load(j->halt);
			while (j->fail_time < h && !atomic_compare_exchange_weak(j->halt, &h, j->fail_time))
				;
		}
	}
	prv_ring_end(j->ring);
}

void job_free(struct job *j)
{
	if (j->held && j->ring)
		prv_ring_give(j->ring);
	if (j->opened)
		emu_share_free(&j->e);
	prv_ring_free(j->ring);
	memset(j, 0, sizeof(*j));
}

static void *work(void *arg)
{
	struct job *j = arg;
	j->opened = 1;
	if (job_open(j))
		prv_ring_end(j->ring);
	else
		job_run(j);
	if (j->share)
		merge_share_leave(j->share, j->fk);
	return NULL;
}

/* ---- the merger ----------------------------------------------------------------------- */

/* The job's next op (NULL: it ended), taking chunks as they come. */
static const struct prv_op *peek(struct job *j)
{
	while (j->op == j->end) {
		if (!j->ring) {
			/* ops from elsewhere (a rank's file): the job's refill says */
			if (!j->refill || j->refill(j) <= 0)
				return NULL;
			continue;
		}
		if (j->held)
			prv_ring_give(j->ring);
		uint32_t n;
		const struct prv_op *ops = prv_ring_take(j->ring, &n);
		j->held = ops != NULL;
		if (!ops)
			return NULL;
		j->op = ops;
		j->end = ops + n;
	}
	return j->op;
}

enum { ALL_BUT_STATES = -1 };

/* Copy the job's ops up to the first that is not of this part: event ops
 * (file ALL_BUT_STATES: anything but STATE and TIME), or the STATE ops of
 * one file. */
static void copy_part(struct job *j, int file, struct jobs_sink *out)
{
	out->cur = j->index;
	const struct prv_op *o;
	while ((o = peek(j)) != NULL) {
		const struct prv_op *s = o;
		if (file == ALL_BUT_STATES)
			while (o < j->end && o->kind != PRV_OP_STATE && o->kind != PRV_OP_TIME)
				o++;
		else
			while (o < j->end && o->kind == PRV_OP_STATE && o->file == file)
				o++;
		uint64_t at;
		if (o > s)
			out->put(out->arg, s, (size_t) (o - s), UINT64_MAX, &at);
		j->op = o;
		if (o < j->end)
			return;
	}
}

/* The job's next instant: 0, or -1 when its ops are not in shape. */
static int next_instant(struct job *j, struct weft_err *err)
{
	const struct prv_op *o = peek(j);
	if (!o) {
		j->done = 1;
		return 0;
	}
	if (o->kind != PRV_OP_TIME)
		return weft_fail(err, WEFT_EINTERNAL,
				 "emu -j: a worker's op %d at time %llu is not where "
				 "an instant ends",
				 o->kind, (unsigned long long) j->t);
	j->t = (uint64_t) o->value;
	j->op++;
	return 0;
}

static size_t pipe_put(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	return prv_pipe_apply_until(arg, ops, n, bound, at);
}

struct jobs_sink jobs_pipe_sink(struct prv_pipe *p)
{
	return (struct jobs_sink){pipe_put, p, 0, UINT64_MAX};
}

/* Apply the job's ops up to its first TIME op at or past `bound` (it then
 * waits at that instant) or its end; returns the last instant applied. */
static uint64_t drain_until(struct job *j, uint64_t bound, uint64_t at, struct jobs_sink *out)
{
	out->cur = j->index;
	const struct prv_op *o;
	while ((o = peek(j)) != NULL) {
		o += out->put(out->arg, o, (size_t) (j->end - o), bound, &at);
		j->op = o;
		if (o < j->end) {
			j->t = (uint64_t) o->value;
			j->op++;
			return at;
		}
	}
	j->done = 1;
	return at;
}

int jobs_merge(struct job *jobs, int n, struct jobs_sink *out, void (*tick)(void *), void *arg, struct weft_err *err)
{
	for (int k = 0; k < n; k++) {
		jobs[k].index = k;
		const struct prv_op *o = peek(&jobs[k]);
		jobs[k].t = 0; /* a front starts at 0: ops there come with no TIME op */
		if (!o)
			jobs[k].done = 1;
		else if (o->kind == PRV_OP_TIME)
			next_instant(&jobs[k], err);
	}
	uint64_t last = 0; /* the writer's pipe is at 0 (prv_open) */
	int rc = 0;
	for (unsigned iter = 1;; iter++) {
		if (tick && (iter & 0xfff) == 0)
			tick(arg);
		uint64_t t = UINT64_MAX, next = UINT64_MAX;
		int first = -1, tied = 0;
		for (int k = 0; k < n; k++) {
			if (jobs[k].done)
				continue;
			if (jobs[k].t < t) {
				next = t;
				t = jobs[k].t;
				first = k;
				tied = 0;
			} else if (jobs[k].t == t) {
				tied = 1;
			} else if (jobs[k].t < next) {
				next = jobs[k].t;
			}
		}
		if (t == UINT64_MAX || t >= out->until)
			break;
		if (next > out->until)
			next = out->until;
		if (!tied) {
			/* one job alone until `next`: its ops in its order, TIME ops
			 * included (the merge's run of one stream) */
			if (t != last)
				jobs[first].op--; /* its TIME op, still in its chunk: applied with the run */
			last = drain_until(&jobs[first], next, t, out);
			continue;
		}
		if (t != last) {
			struct prv_op time = {PRV_OP_TIME, 0, 0, 0, (int64_t) t};
			uint64_t at;
			out->put(out->arg, &time, 1, UINT64_MAX, &at);
			last = t;
		}
		static const int part[] = {ALL_BUT_STATES, EMU_THREAD_FILE, EMU_CPU_FILE};
		for (int p = 0; p < 3; p++)
			for (int k = 0; k < n; k++)
				if (!jobs[k].done && jobs[k].t == t)
					copy_part(&jobs[k], part[p], out);
		for (int k = 0; k < n; k++)
			if (!jobs[k].done && jobs[k].t == t && rc == 0 && next_instant(&jobs[k], err))
				rc = -1;
		if (rc)
			break;
	}
	/* take what is left (a failed run): no worker waits on a full ring */
	for (int k = 0; k < n; k++)
		while (jobs[k].ring && peek(&jobs[k]))
			jobs[k].op = jobs[k].end;
	return rc;
}

/* ---- what one run gathers from every job ------------------------------------------ */

int jobs_main_end(struct emu *e, struct weft_err *err)
{
	/* reports and the labels, no thread of its own */
	e->part.th_lo = e->part.th_hi = 0;
	warns_print_events(e);
	int failed;
	return emu_run_end(e, &failed, err) == 0 ? -1 : failed;
}

void jobs_state_save(const struct emu *w, struct strbuf *b)
{
	for (int m = 0; m < w->models.n; m++) {
		const struct weft_model_hooks *h = w->models.def[m]->hooks;
		if (!h || !h->par || !h->par->save)
			continue;
		sb_printf(b, "%c ", w->models.def[m]->id);
		h->par->save(w, b);
		sb_printf(b, "\n");
	}
	warns_save(w, b);
}

int jobs_state_load(struct emu *e, const char *text, size_t n, struct weft_err *err)
{
	const char *p = text, *end = text + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		if (nl && nl - p >= 2 && p[0] == '!' && p[1] == ' ') {
			/* a worker's warning (warns.h) */
			char *line = weft_xasprintf("%.*s", (int) (nl - p - 2), p + 2);
			int rc = warns_load(e, line);
			free(line);
			if (rc)
				return weft_fail(err, WEFT_EINTERNAL,
						 "emu -j: a worker's warning line is not "
						 "'! T A W SEQ KIND TEXT'");
			p = nl + 1;
			continue;
		}
		const struct weft_model_def *d = nl && nl - p >= 2 && p[1] == ' ' ? emu_registry_id(e, p[0]) : NULL;
		if (!d || !d->hooks || !d->hooks->par || !d->hooks->par->load)
			return weft_fail(err, WEFT_EINTERNAL,
					 "emu -j: a worker's model state line is not "
					 "'MODEL TEXT' of a model that keeps one");
		char *line = weft_xasprintf("%.*s", (int) (nl - p - 2), p + 2);
		int rc = d->hooks->par->load(e, line);
		free(line);
		if (rc)
			return weft_fail(err, WEFT_EINTERNAL, "emu -j: model %s could not take a worker's state",
					 d->name);
		p = nl + 1;
	}
	return 0;
}

/* One run's error: the first failing event in (time, stream) order, then
 * the end-of-run checks by model (the main run's label check first), then
 * a worker that could not open. -1 with err filled, or 0. */
int jobs_error(struct job *jobs, int n, int main_model, struct weft_err *main_err, struct weft_err *err)
{
	const struct job *best = NULL;
	for (int k = 0; k < n; k++)
		if (jobs[k].rc == -1 &&
		    (!best || jobs[k].fail_time < best->fail_time ||
		     (jobs[k].fail_time == best->fail_time && jobs[k].fail_stream < best->fail_stream)))
			best = &jobs[k];
	if (!best)
		for (int k = 0; k < n; k++)
			if (jobs[k].rc == -2 && (!best || jobs[k].failed_model < best->failed_model))
				best = &jobs[k];
	if (main_model >= 0 && (!best || best->rc != -1) && (!best || main_model <= best->failed_model)) {
		*err = *main_err;
		return -1;
	}
	for (int k = 0; k < n && !best; k++)
		if (jobs[k].rc == -3)
			best = &jobs[k];
	if (!best)
		return 0;
	*err = best->err;
	return -1;
}

struct prog {
	struct progress pg;
	struct job *jobs;
	int n;
};

static void show_progress(void *arg)
{
	struct prog *p = arg;
	uint64_t ev = 0, bytes = 0;
	for (int k = 0; k < p->n; k++) {
		ev += atomic_load_explicit(&p->jobs[k].progress[0], memory_order_relaxed);
		bytes += atomic_load_explicit(&p->jobs[k].progress[1], memory_order_relaxed);
	}
	progress_update_bytes(&p->pg, ev, bytes);
}

/* Chunks a worker's ring holds: as many as 64 (deep rings help when the
 * workers and the merger share cores), but 128 MiB of rings in all, and
 * at least 16 (2 MiB) a worker. */
static int ring_depth(int workers)
{
	int d = (int) ((128u << 20) / (PRV_PIPE_OPS * sizeof(struct prv_op)) / (unsigned) workers);
	return d < 16 ? 16 : d > PRV_PIPE_CHUNKS ? PRV_PIPE_CHUNKS : d;
}

static int run_split(struct emu *e, const int *cut, int n, struct weft_err *err)
{
	_Atomic uint64_t halt = UINT64_MAX;
	struct job *jobs = weft_xcalloc((size_t) n, sizeof(*jobs));
	emu_share_prime(e);
	/* one thread takes the heap's steps for all the workers */
	struct merge_share *share = merge_share_start(&e->merge, n);
	int started = 0, rc = 0;
	for (int k = 0; k < n && rc == 0; k++) {
		struct job *j = &jobs[k];
		j->main = e;
		j->lo = cut[k];
		j->hi = cut[k + 1];
		j->halt = &halt;
		j->share = share;
		j->fk = k;
		j->ring = prv_ring_new_depth(ring_depth(n));
		int er = j->ring ? pthread_create(&j->th, NULL, work, j) : ENOMEM;
		if (er) { /* the system refuses a thread: a limit the user can raise */
			prv_ring_free(j->ring);
			j->ring = NULL;
			rc = weft_fail(err, WEFT_EINPUT, "emu -j %d: cannot start worker %d: %s%s", n, k + 1,
				       strerror(er), weft_sys_hint(er));
			break;
		}
		started++;
	}
	/* the merger writes: the writer thread is done with what was queued;
	 * the workers flush the rows' first states */
	struct prv_pipe *out = emu_share_handover(e);
	struct prog pr = {.jobs = jobs, .n = started};
	emu_share_progress(e, &pr.pg);
	struct jobs_sink sink = jobs_pipe_sink(out);
	struct jobs_pairs *pairs = jobs_pairs_begin(e, out, &sink, n);
	int split = jobs_writers(e) > 1 && emu_sinks_writers(e, 1) == 0;
	if (rc == 0)
		rc = jobs_merge(jobs, started, &sink, show_progress, &pr, err);
	else
		WEFT_IGNORED(
			jobs_merge(jobs, started, &sink, NULL, NULL, &(struct weft_err){0})); /* err has the cause */
	if (split)
		emu_sinks_writers(e, 0); /* its files written so far, back to one thread */
	for (int k = 0; k < started; k++)
		pthread_join(jobs[k].th, NULL);
	for (int k = started; k < n && share; k++)
		merge_share_leave(share, k); /* never started */
	merge_share_end(share);
	progress_end(&pr.pg);
	int main_model = -1;
	struct weft_err main_err = {0};
	if (rc == 0) {
		/* what one run would have at its end: counts, the last time, the
		 * task types of every process */
		for (int k = 0; k < started; k++) {
			struct emu *w = &jobs[k].e;
			if (jobs[k].rc == -3)
				continue;
			emu_share_gather(e, w);
			int np;
			int *procs = emu_share_procs(w, jobs[k].lo, jobs[k].hi, &np);
			engine_task_adopt(e, w, procs, np);
			free(procs);
			struct strbuf b = {0};
			jobs_state_save(w, &b);
			if (rc == 0)
				rc = jobs_state_load(e, b.s ? b.s : "", b.len, err);
			sb_free(&b);
		}
		int any = 0;
		for (int k = 0; k < started; k++)
			any |= jobs[k].rc == -1 || jobs[k].rc == -3;
		if (!any) {
			main_model = jobs_main_end(e, &main_err);
		}
		rc = jobs_error(jobs, started, main_model, &main_err, err);
	}
	jobs_pairs_end(e, pairs);
	for (int k = 0; k < n; k++)
		job_free(&jobs[k]);
	free(jobs);
	return rc;
}

int emu_run_jobs(struct emu *e, int njobs, int note, struct weft_err *err)
{
	int chosen = njobs == 0;
	if (chosen)
		njobs = jobs_auto(jobs_default(), emu_share_bytes(e), e->tr.sys.nlooms);
	if (njobs <= 1)
		return emu_run(e, err);
	char buf[160];
	const char *why = emu_share_why_not(e, buf, sizeof(buf));
	if (why) {
		if (note && !e->o.quiet)
			fprintf(stderr, "weft: -j %d: one worker: %s\n", njobs, why);
		return emu_run(e, err);
	}
	int *cut = weft_xcalloc((size_t) njobs + 2, sizeof(int));
	int n = emu_share_split(e, njobs, cut);
	if ((note || chosen) && n > 1) {
		char who[64];
		if (chosen)
			snprintf(who, sizeof(who), "-j (default: %d of %d cores)", njobs, cores_available());
		else
			snprintf(who, sizeof(who), "-j %d", njobs);
		emu_share_say(e, who, "workers", cut, n);
	}
	int rc = n < 2 ? emu_run(e, err) : run_split(e, cut, n, err);
	free(cut);
	return rc;
}
