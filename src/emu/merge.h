/* merge: one total, deterministic order over many streams.
 * Events come out by (corrected time, stream index, position in stream).
 * The stream that produced the last event is kept outside the heap and
 * compared with the heap's top: while it stays first, its run is drained
 * with one comparison per event and no heap operation. Memory: one slot
 * per stream. */
#ifndef WEFT_MERGE_H
#define WEFT_MERGE_H

#include "stream.h"

struct weft_merge {
	struct weft_stream **heap; /* min-heap of streams with a pending event */
	int n;
	struct weft_stream *cur;   /* the stream whose event was returned last */
	int started;
};

/* Take every active stream of the array; primes each with its first event. */
int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e);
/* Next event in global order: 1 = *ev set, 0 = all streams done, -1 = error. */
int merge_next(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e);
void merge_free(struct weft_merge *m);

#endif
