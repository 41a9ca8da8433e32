/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recpipe: record offsets handed from the thread that scans and sorts a log
 * to a thread that turns the records into events, in the order given, in
 * batches (one lock per batch of RP_BATCH offsets, at most RP_NBATCH
 * batches on the way: bounded memory). The consumer calls
 * handle(ctx, off) for each offset; its first non-zero return stops it and
 * is kept, and the producer gets it back from its next rp_put. So the work
 * of an importer's two halves overlaps on two cores while every record is
 * handled in the same order, by one thread, as without the pipe. */
#ifndef WEFT_RECPIPE_H
#define WEFT_RECPIPE_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

#define RP_BATCH 4096
#define RP_NBATCH 8
#define RP_AHEAD 8 /* the offset handed to handle for prefetching */

/* Handle the record at `off`; `ahead` is one handled soon after (for a
 * prefetch), UINT64_MAX when none is known. */
typedef int (*rp_handle_fn)(void *ctx, uint64_t off, uint64_t ahead);

struct recpipe;

/* Start the consumer thread; NULL (e filled) if it cannot be created. */
WEFT_MUST_CHECK struct recpipe *rp_start(rp_handle_fn handle, void *ctx, struct weft_err *e);
/* Queue one offset: 0, or the consumer's non-zero return once it stopped. */
int rp_put(struct recpipe *p, uint64_t off);
/* The smallest offset queued or being handled, UINT64_MAX if none (the
 * producer's view, for giving back input it will not read again). */
uint64_t rp_low_off(const struct recpipe *p);
/* Hand over what is queued, wait for the consumer to finish and release
 * everything; returns 0 or the consumer's first non-zero return. */
int rp_finish(struct recpipe *p);

#endif
