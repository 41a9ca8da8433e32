/* SPDX-License-Identifier: GPL-3.0-or-later */
/* merge: one total, deterministic order over many streams.
 * Events come out by (corrected time, stream index, position in stream).
 * The heap holds each
 * waiting stream's key inline, so a comparison never dereferences a
 * stream. The stream that produced the last event is kept outside the heap
 * and compared with the heap's top: while it stays first, its run is
 * drained with one comparison per event and no heap operation. Memory: one
 * slot per stream. */
#ifndef WEFT_MERGE_H
#define WEFT_MERGE_H

#include "trace/stream.h"

/* A key is one 64-bit word: (time - base) << shift | rank, where a
 * stream's rank is its place in stream index order and `shift` bits hold
 * any rank. One unsigned comparison orders by time, then stream index. A
 * time too far after `base` for the bits left is stored as `dmax`
 * (saturated): such keys still compare above every exact one, and before two
 * saturated keys would be compared, the keys are made again from a later base
 * (rebase() in merge.c). */
struct weft_merge {
	uint64_t *heap;            /* min-heap of the waiting streams' keys */
	int n;
	int shift;
	uint64_t base;             /* time of key 0 */
	uint64_t dmax;             /* time - base from here on is saturated */
	uint64_t mask;             /* the rank bits */
	struct weft_stream **by_rank; /* the active streams in index order */
	struct weft_stream *cur;   /* the stream whose event was returned last */
	uint64_t cur_rank;
};

/* Take every active stream of the array; primes each with its first
 * event. */
int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e);

/* Put x at heap slot i and move it down to its place. Inline: the merge
 * calls it for most events when streams interleave closely. */
static inline __attribute__((always_inline)) void merge_sift_down(uint64_t *h, int n, int i, uint64_t x)
{
	for (;;) {
		int c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n)
			c += h[c + 1] < h[c];
		if (!(h[c] < x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}
int merge_next_slow(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e);

/* Next event in global order: 1 = *ev set, 0 = all streams done, -1 = error.
 * Inline: the emulator's loop runs it once per event. */
static inline __attribute__((always_inline)) int merge_next(struct weft_merge *m, struct weft_ev **ev,
							    struct weft_err *e)
{
	struct weft_stream *s = m->cur;
	if (__builtin_expect(s != NULL, 1)) {
		int r = stream_next(s, e);
		if (__builtin_expect(r < 0, 0))
			return -1;
		uint64_t d = s->ev.time - m->base;
		if (__builtin_expect(r > 0 && d < m->dmax, 1)) {
			uint64_t k = d << m->shift | m->cur_rank;
			if (m->n == 0 || k < m->heap[0]) {
				*ev = &s->ev; /* the run goes on */
				return 1;
			}
			/* the top is next (an exact key, below k); this stream
			 * takes its place in the heap */
			m->cur_rank = m->heap[0] & m->mask;
			m->cur = m->by_rank[m->cur_rank];
			merge_sift_down(m->heap, m->n, 0, k);
			*ev = &m->cur->ev;
			return 1;
		}
		if (r == 0)
			m->cur = NULL; /* the stream ended */
	}
	return merge_next_slow(m, ev, e);
}

/* Time of the earliest waiting event (0 when none): before the first
 * merge_next, the first event's time. */
uint64_t merge_peek_time(const struct weft_merge *m);
void merge_free(struct weft_merge *m);

#endif
