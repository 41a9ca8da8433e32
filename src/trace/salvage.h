/* SPDX-License-Identifier: GPL-3.0-or-later */
/* salvage: where a stream.obs cut mid-event ends its last whole event.
 * An application that dies while ovni writes its buffer leaves a stream
 * whose last event is incomplete: the bytes after the last whole event are
 * fewer than the event they begin needs. --salvage reads such a stream up to
 * that boundary, as a user would cut it by hand, and says what it dropped.
 * Only a cut at the end is salvaged, and only when the MCV bytes of the cut
 * event that are there are printable: bad bytes (an unprintable MCV, in a
 * whole header or a cut one) stay an error, reported by the reader. Pure: a walk
 * over a byte range with obs_decode, nothing allocated. */
#ifndef WEFT_SALVAGE_H
#define WEFT_SALVAGE_H

#include <stddef.h>
#include <stdint.h>

/* What a cut dropped. */
struct obs_cut {
	/* where the cut event starts: the bytes read */
	uint64_t off;
	/* bytes from off to the end of the file */
	uint64_t dropped;
	/* the cut event's whole size; 0 when its header is cut before its
	 * size is known */
	uint64_t need;
	/* its MCV ("" when a byte of it is missing or not printable) */
	char mcv[4];
};

/* Walk the events of the stream d[0, n) (its 8-byte header already checked,
 * `swap` its byte order). 1: the stream ends mid-event, *c says where and
 * what; 0: it ends at an event boundary, or bad bytes come before the end
 * (not a cut: the reader reports them). */
int obs_find_cut(const uint8_t *d, size_t n, int swap, struct obs_cut *c);

#endif
