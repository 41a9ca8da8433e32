/* SPDX-License-Identifier: GPL-3.0-or-later */
/* merge: one total, deterministic order over many streams: ovniemu's.
 *
 * Events come out by corrected time. Equal times are ordered in two levels:
 *   - between looms: by loom, in the order of each loom's first stream
 *     (stream index); a stream with no loom (no system) is a loom alone;
 *   - between streams of one loom: as ovniemu 1.14.0's player takes them.
 *     Its player keeps every stream of the trace with a pending event in
 *     one binary heap keyed by clock alone, with no tie-break: at each
 *     event it puts the stream it just used back (with its next clock),
 *     then takes the top. Which of two equal clocks comes first is then the
 *     heap's doing: a stream put in rises past parents whose clock is
 *     strictly later, never past an equal one; taking the top moves the
 *     last leaf to the root and down, each step to the left child when it
 *     is strictly earlier than the node, else to the right one when that is
 *     strictly earlier than both (equal children: the left one). The
 *     streams go in first in path order (stream index), each with its
 *     first event.
 * weft keeps that one heap over all the streams it is given, with ovniemu's
 * exact steps, so its sequence is ovniemu's; what it returns is that
 * sequence with each instant's events grouped by loom (stable: a loom's own
 * order is ovniemu's; `by_loom` 0 returns the sequence itself). An
 * instant where a loom would come after a later loom's event is read
 * ahead into a buffer (copies of its events, payloads of normal events
 * copied too) and sorted by loom; any other event is
 * returned from its stream. A run given `own` streams (merge_init_part: a
 * -j worker) still steps every stream through the heap, since ovniemu's
 * heap, so its ties in a loom, depend on all of them, and returns the own
 * streams' events only: exactly one run's events restricted to them. The
 * other streams (merge_foreign) are read for their times only
 * (stream_skip: no decode), in one loop outside the event loop's path.
 * Fast path: the stream that produced the last event stays outside the
 * heap (ovniemu's "put back, then take the top"): while its next time is
 * strictly before the heap's top, ovniemu would put it back and take it
 * again, which leaves the heap as it was unless equal clocks on the path
 * to the leaf it goes in would trade places (merge_again: when no step of
 * that path goes to a right child, as with any power of two of streams,
 * one comparison says it; else merge_same walks the path). Then the run is
 * drained with no heap operation. Else one put-then-take: a stream taken
 * that is own, and strictly before the new top (no tie to group), is
 * returned at once; anything else goes to merge_next_slow.
 * Memory: two heap slots (one of them a sentinel), one rank and one stack
 * slot per stream; the buffer grows to the largest instant read ahead. */
#ifndef WEFT_MERGE_H
#define WEFT_MERGE_H

#include "trace/stream.h"
#include "util/macros.h"

/* One waiting stream of a loom: ovniemu's heap orders by time only. */
struct merge_ent {
	uint64_t time;
	struct weft_stream *s;
};

struct merge_loom {
	struct merge_ent *heap; /* the waiting streams, ovniemu's heap, 0-based;
				 * every slot from n to 2n + 1 holds a sentinel
				 * {UINT64_MAX, NULL}: a child needs no bound check */
	int n;
	/* the path from leaf n to the root, for merge_again (merge_path sets
	 * it when n changes): 0 no step (n <= 2), 1 every step from a left
	 * child (then slots q0, the leaf's parent, and pq0, its parent, say
	 * it), 2 some from a right child (merge_same) */
	int pathk;
	size_t q0, pq0;
	int depth; /* levels below the root: floor(log2 n), 0 when n <= 1 */
};

/* A read-ahead event: its copy and its normal payload's. */
struct merge_buf {
	struct weft_ev ev;
	int rank;
	uint8_t pl[16];
};

struct weft_merge {
	struct merge_loom g; /* ovniemu's heap over every stream */
	struct weft_stream *base; /* the streams given; ranks by s - base */
	int nstreams;
	int lo, hi; /* own streams: indexes [lo, hi) of base; the others
		     * have merge_foreign set */
	int *stack; /* tie_before's */
	struct weft_stream *step; /* returned last from its stream, to step */
	struct weft_stream *pend; /* taken from the heap, its event next */
	struct weft_stream *cur; /* the stream of the event returned last */
	struct merge_buf *buf; /* an instant read ahead, in ovniemu's order */
	uint32_t *ord; /* its entries by loom: the order they are returned in */
	int nbuf, ibuf, capbuf;
	int err_pending; /* 1: an error came while reading ahead */
	struct weft_err err;
	int by_loom; /* 1 (merge_init's default): each instant grouped by loom;
		      * 0: ovniemu's sequence itself (one run that sees every
		      * loom at once: the breakdown views, which sort the CPUs
		      * of all looms at every event) */
	/* following a share (merge_follow): the sequence's chunk being read */
	struct merge_share *share;
	int fk; /* its follower number */
	uint64_t chunk;
	const uint32_t *sp, *se;
};

/* Take every active stream of the array; primes each with its first
 * event. */
WEFT_MUST_CHECK int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e);

/* merge_init over streams [0, n) of which [lo, hi) are returned (the
 * others are only stepped, as ovniemu steps them). */
WEFT_MUST_CHECK int merge_init_part(struct weft_merge *m, struct weft_stream *streams, int n, int lo, int hi,
				    struct weft_err *e);
WEFT_MUST_CHECK int merge_next_slow(struct weft_merge *m, int r, struct weft_ev **ev, struct weft_err *e);

/* ---- -j: the heap's steps taken once, for every worker ---------------------
 * merge_share_start takes over `all`, a primed merge over every stream (the
 * main run's, which reads no event itself), and starts a thread that takes
 * its heap steps on the streams' times only (stream_skip) and writes the
 * sequence: stream indexes in the order merge_next would return them
 * (instants grouped by loom), then an end or the error a step met. A worker
 * whose merge follows it (merge_follow, after merge_init_part over the same
 * streams) takes no heap step: it reads the sequence, returns its own
 * streams' entries and skips the others', so its order is the one its own
 * heap would give. The thread keeps at most MERGE_SHARE_AHEAD chunks ahead
 * of the furthest follower, and each chunk until every follower has read
 * it or left (merge_share_leave: a worker that stops, or never followed);
 * so no follower waits on another. NULL: no thread (each worker then steps
 * every stream itself). */
struct merge_share *merge_share_start(struct weft_merge *all, int nfollow);
void merge_follow(struct weft_merge *m, struct merge_share *sh, int k);
void merge_share_leave(struct merge_share *sh, int k);
/* After every follower has left: the thread joined, all freed. */
void merge_share_end(struct merge_share *sh);
int merge_same(const struct merge_loom *l);
void merge_path(struct merge_loom *l);

/* ---- the heap, ovniemu's steps (inline: most events take them) ---------- */

/* Slot `off` of a heap, counted in bytes: a child's offset is twice its
 * parent's plus one entry, with no scaling of indexes on the way down. */
#define MERGE_AT(h, off) ((struct merge_ent *) ((char *) (h) + (off)))

/* ovniemu's insertion: at the first free leaf, up past every parent whose
 * time is strictly later. */
static inline __attribute__((always_inline)) void merge_put(struct merge_loom *l, struct weft_stream *s)
{
	struct merge_ent *h = l->heap;
	uint64_t t = s->ev.time;
	size_t i = (size_t) l->n++;
	while (i > 0) {
		size_t p = (i - 1) >> 1;
		if (!(t < h[p].time))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i].time = t;
	h[i].s = s;
	merge_path(l);
}

/* t < u ? a : b without a branch (GCC turns the plain select back into
 * one where the data decides). */
static inline __attribute__((always_inline)) size_t merge_sel_lt(uint64_t t, uint64_t u, size_t a, size_t b)
{
#if defined(__GNUC__) && defined(__x86_64__)
	__asm__("cmpq %[u], %[t]\n\tcmovbq %[a], %[b]" : [b] "+r"(b) : [a] "r"(a), [t] "r"(t), [u] "r"(u) : "cc");
	return b;
#else
	return t < u ? a : b;
#endif
}

/* ovniemu's way down from the root: to the left child when it is strictly
 * earlier than x, else to the right one when that is strictly earlier than
 * x and the left child; which is: to the earlier child (the left one when
 * they are equal) when it is strictly earlier than x. A child past the last
 * entry is a sentinel (merge_loom), never earlier. Branch-free, `depth`
 * levels every time: where x stops depends on the data, and a branch on it
 * was mispredicted about twice a take. Once x has stopped at i, each level
 * after finds the same children of i, neither earlier than x, and copies i
 * onto itself. */
static inline __attribute__((always_inline)) void merge_sink_n(struct merge_ent *h, struct merge_ent x, int depth)
{
	size_t i = 0;
#pragma GCC unroll 8
	for (int k = 0; k < depth; k++) {
		size_t c = 2 * i + sizeof(*h);
		uint64_t tl = MERGE_AT(h, c)->time, tr = MERGE_AT(h, c + sizeof(*h))->time;
		c = merge_sel_lt(tr, tl, c + sizeof(*h), c);
		uint64_t tc = tr < tl ? tr : tl;
		size_t j = merge_sel_lt(tc, x.time, c, i);
		*MERGE_AT(h, i) = *MERGE_AT(h, j);
		i = j;
	}
	*MERGE_AT(h, i) = x;
}

/* merge_sink with the depth a constant for the usual heaps (up to 127
 * streams): each one unrolled, no loop counter. */
static inline __attribute__((always_inline)) void merge_sink(struct merge_ent *h, struct merge_ent x, int depth)
{
	switch (depth) {
	case 1:
		merge_sink_n(h, x, 1);
		break;
	case 2:
		merge_sink_n(h, x, 2);
		break;
	case 3:
		merge_sink_n(h, x, 3);
		break;
	case 4:
		merge_sink_n(h, x, 4);
		break;
	case 5:
		merge_sink_n(h, x, 5);
		break;
	case 6:
		merge_sink_n(h, x, 6);
		break;
	default:
		merge_sink_n(h, x, depth);
	}
}

/* ovniemu's removal of the top: the last leaf to the root, then down. */
static inline __attribute__((always_inline)) struct weft_stream *merge_take(struct merge_loom *l)
{
	struct merge_ent *h = l->heap;
	struct weft_stream *top = h[0].s;
	size_t n = (size_t) --l->n;
	struct merge_ent x = h[n];
	h[n] = (struct merge_ent){UINT64_MAX, NULL};
	merge_path(l);
	if (n > 0)
		merge_sink(h, x, l->depth);
	return top;
}

/* merge_put of s, then merge_take, with no entry moved twice; *tx the time
 * of the stream taken. s goes in at leaf n and rises to slot i past the
 * strictly later parents, each one level down; the take then moves what the
 * leaf holds to the root and down: s itself when it did not rise, else w,
 * the leaf's old parent. */
static inline __attribute__((always_inline)) struct weft_stream *merge_put_take(struct merge_loom *l,
										struct weft_stream *s, uint64_t *tx)
{
	struct merge_ent *h = l->heap, x = {s->ev.time, s}, e0 = h[0];
	size_t n = (size_t) l->n;
	if (__builtin_expect(n == 0, 0)) {
		*tx = x.time;
		return s;
	}
	size_t i = (n - 1) >> 1;
	if (!(x.time < h[i].time)) { /* s stays at its leaf */
		*tx = e0.time;
		merge_sink(h, x, l->depth);
		return e0.s;
	}
	struct merge_ent w = h[i];
	while (i > 0) {
		size_t p = (i - 1) >> 1;
		if (!(x.time < h[p].time))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
	if (i == 0)
		e0 = x;
	*tx = e0.time;
	merge_sink(h, w, l->depth);
	return e0.s;
}

/* Putting the stream just used back (its next time t) and taking the top
 * would give it back with the heap as it is. */
static inline __attribute__((always_inline)) int merge_again(struct merge_loom *g, uint64_t t)
{
	const struct merge_ent *h = g->heap;
	if (!(t < h[0].time))
		return 0;
	/* every entry of the path is strictly before the leaf's parent, its
	 * parent's the latest */
	if (__builtin_expect(g->pathk == 1, 1))
		return h[g->pq0].time < h[g->q0].time;
	return g->pathk == 0 || merge_same(g);
}

/* Next event in global order: 1 = *ev set, 0 = all streams done, -1 = error.
 * Inline: the emulator's loop runs it once per event. */
static inline __attribute__((always_inline)) int merge_next(struct weft_merge *m, struct weft_ev **ev,
							    struct weft_err *e)
{
	struct weft_stream *s = m->step;
	int r = 0;
	if (__builtin_expect(s != NULL, 1)) {
		r = stream_next(s, e);
		if (__builtin_expect(r < 0, 0))
			return -1;
		if (__builtin_expect(r > 0, 1)) {
			struct merge_loom *g = &m->g;
			if (merge_again(g, s->ev.time)) {
				/* ovniemu would take this stream again, and no
				 * other waits at its time */
				*ev = &s->ev;
				return 1;
			}
			/* ovniemu's step: this stream back, the top out; the
			 * general step when it is only stepped or ties */
			uint64_t tx;
			struct weft_stream *x = merge_put_take(g, s, &tx);
			if (__builtin_expect(!x->merge_foreign && tx < g->heap[0].time, 1)) {
				m->step = m->cur = x;
				*ev = &x->ev;
				return 1;
			}
			m->step = NULL;
			m->pend = x;
		}
	}
	return merge_next_slow(m, r, ev, e);
}

/* Time of the earliest waiting event (0 when none): before the first
 * merge_next, the first event's time. */
uint64_t merge_peek_time(const struct weft_merge *m);
void merge_free(struct weft_merge *m);

#endif
