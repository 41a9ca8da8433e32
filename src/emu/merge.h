/* merge: one total, deterministic order over many streams.
 * Events come out by (corrected time, stream index, position in stream).
 * The heap holds each waiting stream's key (time, index) inline, so a
 * comparison never dereferences a stream. The stream that produced the last
 * event is kept outside the heap and compared with the heap's top: while it
 * stays first, its run is drained with one comparison per event and no heap
 * operation. Memory: one slot per stream. */
#ifndef WEFT_MERGE_H
#define WEFT_MERGE_H

#include "stream.h"

/* (time << 64 | stream index << 32 | position in the array given to
 * merge_init): one unsigned comparison orders by time, then by the stream's
 * index; the position finds the stream. */
__extension__ typedef unsigned __int128 merge_key;

struct weft_merge {
	merge_key *heap;            /* min-heap of streams with a pending event */
	int n;
	struct weft_stream *base;  /* the array given to merge_init */
	struct weft_stream *cur;   /* the stream whose event was returned last */
};

/* Take every active stream of the array; primes each with its first event. */
int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e);
static inline merge_key merge_key_of(uint64_t time, const struct weft_stream *s, uint32_t pos)
{
	return (merge_key) time << 64 | (uint64_t) (uint32_t) s->index << 32 | pos;
}

static inline uint32_t merge_key_pos(merge_key k)
{
	return (uint32_t) k;
}

void merge_sift_down(merge_key *h, int n, int i, merge_key x);
int merge_next_slow(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e);

/* Next event in global order: 1 = *ev set, 0 = all streams done, -1 = error.
 * Inline: the emulator's loop runs it once per event. */
static inline int merge_next(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e)
{
	struct weft_stream *s = m->cur;
	if (__builtin_expect(s != NULL, 1)) {
		int r = stream_next(s, e);
		if (__builtin_expect(r < 0, 0))
			return -1;
		if (__builtin_expect(r > 0, 1)) {
			merge_key k = merge_key_of(s->ev.time, s, (uint32_t) (s - m->base));
			if (m->n == 0 || k < m->heap[0]) {
				*ev = &s->ev; /* the run goes on */
				return 1;
			}
			/* the top is next; this stream takes its place in the heap */
			m->cur = m->base + merge_key_pos(m->heap[0]);
			merge_sift_down(m->heap, m->n, 0, k);
			*ev = &m->cur->ev;
			return 1;
		}
	}
	return merge_next_slow(m, ev, e);
}

/* Time of the earliest waiting event (0 when none): before the first
 * merge_next, the first event's time. */
static inline uint64_t merge_peek_time(const struct weft_merge *m)
{
	return m->n ? (uint64_t) (m->heap[0] >> 64) : 0;
}
void merge_free(struct weft_merge *m);

#endif
