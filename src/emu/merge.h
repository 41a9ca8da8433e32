/* SPDX-License-Identifier: GPL-3.0-or-later */
/* merge: one total, deterministic order over many streams: ovniemu's.
 *
 * Events come out by corrected time. Equal times are ordered in two levels:
 *   - between looms: by loom, in the order of each loom's first stream
 *     (stream index); a stream with no loom (no system) is a loom alone;
 *   - between streams of one loom: as ovniemu 1.14.0's player takes them.
 *     Its player keeps every stream with a pending event in a binary heap
 *     keyed by clock alone, with no tie-break: at each event it puts the
 *     stream it just used back (with its next clock), then takes the top.
 *     Which of two equal clocks comes first is then the heap's doing: a
 *     stream put in rises past parents whose clock is strictly later,
 *     never past an equal one; taking the top moves the last leaf to the
 *     root and down, each step to the left child when it is strictly
 *     earlier than the node, else to the right one when that is strictly
 *     earlier than both (equal children: the left one). The streams go in
 *     first in path order (stream index), each with its first event.
 *     weft keeps one such heap per loom, with ovniemu's exact steps, so a
 *     loom's ties come out as ovniemu takes them when the trace has one
 *     loom; with several, ovniemu's single heap mixes the looms' streams
 *     and its order inside a loom depends on the others', which no
 *     per-loom order can follow (and -j needs one: each worker merges its
 *     own looms). doc/paraver-output.md says so.
 * Per loom, the stream that produced the last event stays outside its heap
 * (ovniemu's "put back, then take the top"): while its next time is
 * strictly before the heap's top, ovniemu would put it back and take it
 * again, which leaves the heap as it was unless equal clocks on the path
 * to the leaf it goes in would trade places (`same`, computed once per
 * change of the heap). Then the run is drained with two comparisons per
 * event and no heap operation. Between looms, a second heap holds each
 * waiting loom's key inline (no tie there: the loom's rank is in the key).
 * Memory: one slot per stream and two per loom. */
#ifndef WEFT_MERGE_H
#define WEFT_MERGE_H

#include "trace/stream.h"

/* One waiting stream of a loom: ovniemu's heap orders by time only. */
struct merge_ent {
	uint64_t time;
	struct weft_stream *s;
};

struct merge_loom {
	struct merge_ent *heap; /* its waiting streams, ovniemu's heap, 0-based */
	int n;
	int same;               /* -1: not known since the heap changed; 1: putting a
				 * stream earlier than every other back and taking it
				 * again leaves the heap as it is; 0: it does not */
	struct weft_stream *next; /* taken from the heap, not returned yet (or the current) */
};

/* A loom key is one 64-bit word: (time - base) << shift | rank, where a
 * loom's rank is its place in first stream index order and `shift` bits
 * hold any rank. One unsigned comparison orders by time, then loom. A time
 * too far after `base` for the bits left is stored as `dmax` (saturated):
 * such keys still compare above every exact one, and before two saturated
 * keys would be compared, the keys are made again from a later base
 * (rebase() in merge.c). The loom heap's layout does not matter (keys are
 * distinct), so a rebase may rebuild it. */
struct weft_merge {
	uint64_t *heap;            /* min-heap of the waiting looms' keys */
	int n;
	int shift;
	uint64_t base;             /* time of key 0 */
	uint64_t dmax;             /* time - base from here on is saturated */
	uint64_t mask;             /* the rank bits */
	struct merge_loom *looms;  /* by rank */
	int nlooms;
	struct merge_ent *ents;    /* the looms' heaps, one slot per stream */
	struct weft_stream *cur;   /* the stream whose event was returned last */
	struct merge_loom *curl;   /* its loom */
	uint64_t cur_rank;         /* its loom's rank */
};

/* Take every active stream of the array; primes each with its first
 * event. */
int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e);

/* Put x at heap slot i and move it down to its place. Inline: the merge
 * calls it for most events when looms interleave closely. */
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
int merge_next_slow(struct weft_merge *m, int r, struct weft_ev **ev, struct weft_err *e);
int merge_same(struct merge_loom *l);

/* Next event in global order: 1 = *ev set, 0 = all streams done, -1 = error.
 * Inline: the emulator's loop runs it once per event. */
static inline __attribute__((always_inline)) int merge_next(struct weft_merge *m, struct weft_ev **ev,
							    struct weft_err *e)
{
	struct weft_stream *s = m->cur;
	int r = 0;
	if (__builtin_expect(s != NULL, 1)) {
		r = stream_next(s, e);
		if (__builtin_expect(r < 0, 0))
			return -1;
		struct merge_loom *l = m->curl;
		uint64_t t = s->ev.time, d = t - m->base;
		if (__builtin_expect(r > 0 && d < m->dmax, 1) &&
		    (l->n == 0 || (t < l->heap[0].time && (l->same > 0 || (l->same < 0 && merge_same(l)))))) {
			/* ovniemu would take this stream again: first in its loom */
			uint64_t k = d << m->shift | m->cur_rank;
			if (m->n == 0 || k < m->heap[0]) {
				*ev = &s->ev; /* the run goes on */
				return 1;
			}
		}
	}
	return merge_next_slow(m, r, ev, e);
}

/* Time of the earliest waiting event (0 when none): before the first
 * merge_next, the first event's time. */
uint64_t merge_peek_time(const struct weft_merge *m);
void merge_free(struct weft_merge *m);

#endif
