/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jobs_impl: the pieces of weft emu -j that the MPI mode (ranks.c) shares:
 * a job is one worker's emulation of a loom range, its ops queued into a
 * ring (threads) or read back from a file (ranks); the merge and the choice
 * of the run's error are the same for both. Not for other callers. */
#ifndef WEFT_JOBS_IMPL_H
#define WEFT_JOBS_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "emu/emu.h"
#include "util/macros.h"

struct job {
	struct emu e;
	const struct emu *main; /* the run whose options, rows and t0 it takes */
	struct prv_pipe *ring; /* NULL: ops in memory from op to end (a file) */
	int lo, hi; /* streams */
	_Atomic uint64_t *halt; /* NULL: none (a rank) */
	_Atomic uint64_t progress[2]; /* events, bytes read: its progress so far */
	pthread_t th;
	int opened;
	int rc; /* 0; -1: events; -2: end-of-run check; -3: open */
	int failed_model;
	uint64_t fail_time; /* trace time of the failing event */
	int fail_stream;
	struct weft_err err;
	/* the merger's side; with no ring, refill sets op and end to the next
	 * ops (1), or says there are none left (0) or it failed (-1) */
	int (*refill)(struct job *j);
	void *src;
	const struct prv_op *op, *end;
	int held, done;
	int index; /* its place in the merge (set by jobs_merge) */
	struct merge_share *share; /* -j: the heap's steps, taken once (merge.h) */
	int fk; /* its follower number there */
	uint64_t t; /* the instant its ops are at */
};

/* How many threads write the files while the jobs' ops are merged: 1 (the
 * merging thread formats and writes) or 2 (prv_pipe_split: a thread a
 * file; the default on 4 cores or more, where the merger is the wall). */
int jobs_writers(const struct emu *e);

/* Open the job's emu (its streams only) with fronts on j->ring; -1: rc -3. */
int job_open(struct job *j);
/* Its events and end-of-run checks; its ring ended. */
void job_run(struct job *j);
void job_free(struct job *j);
/* Where the merged ops go: `put` takes ops up to the first TIME op at or
 * past `bound` (not taken), returns how many it took and sets *at to the
 * last TIME op's time it took (prv_pipe_apply_until on a drained pipe, or
 * a test's recorder). */
struct jobs_sink {
	size_t (*put)(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at);
	void *arg;
	int cur; /* the job whose ops `put` is given (set by jobs_merge) */
	uint64_t until; /* the merge stops before this instant (UINT64_MAX: the end) */
};
/* The sink writing through a drained pipe's files. */
struct jobs_sink jobs_pipe_sink(struct prv_pipe *p);

/* Write the jobs' ops in one run's order into `out`; `tick` (may be NULL)
 * is called now and then, for a progress line. */
WEFT_MUST_CHECK int jobs_merge(struct job *jobs, int n, struct jobs_sink *out, void (*tick)(void *), void *arg,
			       struct weft_err *err);
/* Messages between jobs (match.h): the merger's side. jobs_pairs_begin
 * hooks the pipe of the main run e: the jobs' communication records get
 * one run's ids, their message ends are matched by e's matcher in one
 * run's order, whose records go straight into the files (also at the end
 * of the run, e's unmatched sends). jobs_pairs_end unhooks and frees. */
struct jobs_pairs;
struct jobs_pairs *jobs_pairs_begin(struct emu *e, struct prv_pipe *out, struct jobs_sink *sink, int n);
void jobs_pairs_end(struct emu *e, struct jobs_pairs *x);

/* The models' state one run gathers from every job (model hooks save and
 * load): lines 'MODEL TEXT'. */
struct strbuf;
void jobs_state_save(const struct emu *w, struct strbuf *b);
WEFT_MUST_CHECK int jobs_state_load(struct emu *e, const char *text, size_t n, struct weft_err *err);

/* The main run's end once every job's was gathered: the jobs' warnings of
 * the events, then emu_run_end with no thread of its own. The failing
 * model (err filled), or -1. */
WEFT_MUST_CHECK int jobs_main_end(struct emu *e, struct weft_err *err);

/* The run's error from the jobs' and the main run's end (main_model -1:
 * none); 0 when there is none. */
WEFT_MUST_CHECK int jobs_error(struct job *jobs, int n, int main_model, struct weft_err *main_err,
			       struct weft_err *err);

#endif
