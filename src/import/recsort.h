/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recsort: records of a log sorted by (time, byte offset) with bounded
 * memory, for importers of formats whose records are nearly but not quite in
 * time order. The offset breaks ties, so the sort is stable in file order.
 *
 * Two modes behind one interface:
 *  - window (rs_window): a sliding window of at most `window` records: a
 *    few ascending queues (a record joins the first whose last key is not
 *    above its own, as in patience sorting: nearly sorted input stays in
 *    sequential memory; a record a little out of order, whose place is
 *    among the last RS_SHIFT keys of the first queue, is inserted there) and
 *    a heap for records no queue takes; the smallest record is handed on
 *    whenever the window is full. rs_add returns
 *    RS_OVERFLOW when a record is earlier than one already handed on: the
 *    input is out of order by more than the window, and the importer
 *    restarts in spill mode.
 *  - spill (rs_spill): runs of `window` records are sorted in memory and
 *    written to an unlinked temporary file in $TMPDIR (or /tmp); rs_finish
 *    merges the runs. Memory: the run buffer plus a small read buffer per
 *    run; the file disappears when closed, even after a crash.
 * Either way, records reach `emit(ctx, time, offset)` in sorted order; a
 * non-zero return of emit stops the sort and is returned. */
#ifndef WEFT_RECSORT_H
#define WEFT_RECSORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "util/macros.h"

#define RS_OVERFLOW 1
#define RS_NQUEUES 4
#define RS_SHIFT 32 /* keys moved at most to insert into the first queue */

struct rs_key {
	uint64_t t, off;
};

typedef int (*rs_emit_fn)(void *ctx, uint64_t t, uint64_t off);

struct recsort {
	rs_emit_fn emit;
	void *ctx;
	size_t window;
	int spill;
	/* window mode */
	struct rs_queue {
		struct rs_key *buf; /* a ring of mask + 1 keys, ascending */
		size_t head, n;
		struct rs_key tail;
	} q[RS_NQUEUES];
	size_t mask;         /* ring size - 1: a power of two >= window */
	size_t held;         /* records in the queues and the heap */
	size_t nother;       /* of which not in the first queue */
	struct rs_key *heap; /* records no queue takes */
	size_t nheap;
	struct rs_key last;  /* the last key handed on ((0, 0) before any) */
	/* spill mode */
	struct rs_key *run;
	size_t nrun;
	FILE *f;
	uint64_t *runstart;  /* record index of each run in the file */
	size_t nruns;
	uint64_t nspilled;
};

/* The window size for importers: `deflt`, or $WEFT_SORT_WINDOW when set to a
 * positive count (tests force small windows and spills with it). */
size_t rs_window_size(size_t deflt);

void rs_window(struct recsort *s, size_t window, rs_emit_fn emit, void *ctx);
WEFT_MUST_CHECK int rs_spill(struct recsort *s, size_t window, rs_emit_fn emit, void *ctx, struct weft_err *e);
/* Add a record; may hand on records. Returns 0, RS_OVERFLOW (window mode),
 * emit's return, or -1 with e filled (an I/O error on the spill file). */
WEFT_MUST_CHECK int rs_add(struct recsort *s, uint64_t t, uint64_t off, struct weft_err *e);
/* The smallest offset of a record not handed on yet, once every record
 * below `scanned` has been added: `scanned` when none is held (window mode;
 * in spill mode every record may still come, so 0). Costs a pass over the
 * records held: call it once per window or so. */
uint64_t rs_low_off(const struct recsort *s, uint64_t scanned);
/* A hint for prefetching, in window mode: the offset of the record k
 * places after the next to be handed on when it is in the first queue,
 * else UINT64_MAX. */
static inline uint64_t rs_ahead(const struct recsort *s, size_t k)
{
	const struct rs_queue *q = &s->q[0];
	return !s->spill && k < q->n ? q->buf[(q->head + k) & s->mask].off : UINT64_MAX;
}

/* Hand on every record left. */
WEFT_MUST_CHECK int rs_finish(struct recsort *s, struct weft_err *e);
void rs_free(struct recsort *s);

#endif
