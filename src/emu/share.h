/* SPDX-License-Identifier: GPL-3.0-or-later */
/* share: the one entry src/par/ has into the emulator, a share of a run.
 * A share is the main run's options over a range of its streams, timed
 * from the main run's t0 (fixed: not its own first event), stopping once
 * past a halt time another share may lower, counting its progress, and
 * writing its changes as Paraver ops to a ring (its sink, which the
 * merger reads) with no output of its own; message ends and named texts
 * go to the merger as side ops (match.h). Its rows and CPU rows are the
 * main run's, opened as paraver_open leaves them; the merger rebuilds one
 * run's output from the shares' rings (jobs.h says why the bytes are the
 * same). */
#ifndef WEFT_SHARE_H
#define WEFT_SHARE_H

#include <stdatomic.h>
#include <stdint.h>

#include "emu/emu.h"
#include "util/macros.h"

struct merge_share;
struct prv_pipe;
struct progress;

struct emu_share {
	const struct emu *main; /* opened and primed (emu_share_prime), not run */
	int lo, hi; /* its streams: [lo, hi) of main's */
	struct prv_pipe *ring; /* where its ops go */
	const _Atomic uint64_t *halt; /* a trace time it stops past; NULL: none */
	_Atomic uint64_t *done; /* [events, bytes] read so far */
	struct merge_share *follow; /* the heap's steps to follow (merge.h); NULL: its own */
	int fk; /* its follower number there */
};

/* Where a share's run failed. */
struct emu_share_fail {
	uint64_t time; /* trace time of the failing event */
	int stream;
	int model; /* the model whose end-of-run check failed */
};

/* Open e as the share s. 0, or -1 (err filled). */
WEFT_MUST_CHECK int emu_share_open(struct emu *e, const struct emu_share *s, struct weft_err *err);

/* Run it to its end (or its halt), the last instant's states flushed to
 * its ring (the caller ends the ring): 0; -1 an event failed; -2 an
 * end-of-run check failed; *f says where. */
WEFT_MUST_CHECK int emu_share_run(struct emu *e, struct emu_share_fail *f, struct weft_err *err);

/* Free an opened share (its fronts, then emu_free). */
void emu_share_free(struct emu *e);

/* The main run's streams (emu_share_why_not said NULL: each loom's
 * streams are one run of them) in loom ranges of about equal bytes, in
 * stream order: share k takes streams [cut[k], cut[k + 1]) (cut has want +
 * 1 slots), each cut at the loom boundary nearest k/want of the stream
 * bytes, each share one loom at least. Returns the number of shares:
 * want, or the looms when fewer. */
int emu_share_split(const struct emu *e, int want, int *cut);

/* Say on stderr (not with -q) how the shares divide the looms: "weft: WHO:
 * N UNIT, looms split by stream bytes: ..." (each share's looms and bytes,
 * or their ranges beyond 4 shares). */
void emu_share_say(const struct emu *e, const char *who, const char *unit, const int *cut, int n);

/* The main run's stream bytes (what emu_share_split divides). */
uint64_t emu_share_bytes(const struct emu *e);

/* The main run, opened, before its shares open: its t0 the first event's
 * (every share's fixed t0), its streams' pages let go (the shares map
 * their own). */
void emu_share_prime(struct emu *e);

/* Why the main run e (opened, not run) cannot be shared out, as far as
 * the emulator knows (no output, an observer, -b, --bursts, -k, a
 * model's own reason, one loom, rows that open with a state out of
 * stream order, a loom's streams apart); NULL: it can. A model's reason
 * is written into buf. */
const char *emu_share_why_not(const struct emu *e, char *buf, size_t n);

/* The main run hands its output over to the merger of its shares: what
 * it queued so far is written and its rows' opening states are left to
 * the shares (each flushes its own); returns the pipe the merger writes
 * into, toward the run's sinks. */
struct prv_pipe *emu_share_handover(struct emu *e);

/* The merger's progress line over the main run's streams (on when the
 * run shows progress). */
void emu_share_progress(const struct emu *e, struct progress *pg);

/* Gather share w's counts and last time into the main run e, as one run
 * would have them. */
void emu_share_gather(struct emu *e, const struct emu *w);
/* The processes (global index) streams [lo, hi) of share w belong to,
 * each once, in stream order: *n of them, malloc'd (engine_task_adopt's). */
int *emu_share_procs(const struct emu *w, int lo, int hi, int *n);

/* The main run's rows of `file` (EMU_THREAD_FILE: threads, else CPUs),
 * and the thread on thread row `row`. */
int emu_share_nrows(const struct emu *e, int file);
const struct emu_thread *emu_share_row_thread(const struct emu *e, uint32_t row);

#endif
