/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jobs: weft emu -j N, the emulation split by loom across N worker threads,
 * with an output byte for byte that of one worker.
 *
 * Why the bytes are the same: the merge orders events by time, then loom,
 * then as ovniemu's player takes a loom's equal times (its one heap over
 * all streams: a worker steps every stream through it and returns its own,
 * merge.h); each worker takes a contiguous range of looms, so of streams,
 * thread rows and CPU rows, and no loom-local model touches another loom's
 * rows. A worker's writer ops are then one run's ops restricted to its rows,
 * in one run's order, and one run's ops at an instant T are: each worker's
 * event ops at T, in worker order; then the thread rows whose state changed
 * at T, each worker's in worker order (one run lists a row where its first
 * change at T came: by stream, so by worker); then the CPU rows alike; then
 * the next instant. The merger (the calling thread) rebuilds exactly that
 * from the workers' rings and writes it itself; the .pcf's task
 * type labels are gathered from the workers' processes in process order.
 * Messages between looms (msg: PICL processors) are paired by the merger in
 * one run's order, and the values models name by texts numbered there
 * (jobs_pairs.c, match.h).
 *
 * What runs on one worker (emu_share_why_not, emu/share.h, says which applies): models that
 * keep other state across looms (VisAndOr agents, file I/O per node: a
 * model is split only when it has -j hooks, weft_model_par), the -b breakdown
 * views (they sort the CPUs of all looms at every change), --bursts,
 * --keep-going (warnings in event order), observers (query, stats), model
 * files with `label` actions, a single loom.
 *
 * Errors are one run's: the first in (time, loom) order (a failing worker
 * lowers a halt time; the others stop once past it), then the end-of-run
 * checks by model. Memory: each worker holds its own streams' windows,
 * live objects and a ring of 16 to 64 chunks of 8192 ops (2 to 8 MiB; 128
 * MiB in all up to 64 workers); every worker keeps the trace's metadata. */
#ifndef WEFT_JOBS_H
#define WEFT_JOBS_H

#include "emu/emu.h"
#include "util/macros.h"

/* The most workers -j gives by default: the cores this process may use
 * (its affinity mask: a batch job's share, not the node's) but two, at
 * least 1. A split run adds two busy threads to its workers, the merger
 * and the thread that takes ovniemu's heap steps for all of them
 * (merge.h), so on 2 or 3 cores a split is slower than one worker with
 * its writer thread (doc/dev/scaling.md: 16 looms, 20 M events, -j 2
 * takes 1.9x the wall of -j 1 here; 2 looms 1.2x). */
int jobs_default(void);
/* The cores this process may use (its affinity mask), at least 1: the
 * threads of emu -z's compression when -j is not given. */
int jobs_cores(void);

/* Stream bytes a worker of the default -j takes at least: a share of
 * JOBS_WORKER_BYTES, and JOBS_LOOM_BYTES more for each loom of the trace
 * (every worker opens every loom). Below that a worker's fixed costs
 * (its thread, ring and opens: 8 ms of CPU on 2 looms, 0.35 ms a loom)
 * are not paid back by the emulation it takes over (doc/dev/scaling.md,
 * "How many workers by default"). */
#define JOBS_WORKER_BYTES (32ull << 20)
#define JOBS_LOOM_BYTES (256ull << 10)

/* The default -j for a trace of `bytes` stream bytes over `looms` looms
 * with `most` workers at most (jobs_default): one a JOBS_WORKER_BYTES +
 * looms x JOBS_LOOM_BYTES, at least 1, at most `most`. */
int jobs_auto(int most, uint64_t bytes, int looms);

/* emu_run with up to `njobs` workers (fewer when the trace has fewer
 * looms; one when emu_share_why_not says so); njobs 0: the default,
 * jobs_auto of the trace. `note` (-j given): say on stderr why a run
 * asked for several workers uses one. A run that splits says how (not
 * with -q: emu_share_say). 0 or -1 (err filled). */
WEFT_MUST_CHECK int emu_run_jobs(struct emu *e, int njobs, int note, struct weft_err *err);

#endif
