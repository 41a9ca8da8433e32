/* progress: "events done, rate, ETA" on stderr when it is a terminal.
 * The ETA is estimated from the bytes of the streams read so far. */
#ifndef WEFT_PROGRESS_H
#define WEFT_PROGRESS_H

#include <stdint.h>

struct weft_stream;

struct progress {
	int on;
	double t0, last;
	uint64_t total_bytes;
	struct weft_stream *streams;
	int nstreams;
};

void progress_start(struct progress *p, int wanted, struct weft_stream *s, int n);
void progress_update(struct progress *p, uint64_t events);
/* The same when the caller counts the bytes read (emu -j: the workers'). */
void progress_update_bytes(struct progress *p, uint64_t events, uint64_t done_bytes);
void progress_end(struct progress *p);

#endif
