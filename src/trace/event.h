/* event: the decoded view of one event, shared by every stage.
 * It never owns memory: the payload points into the mapped stream (or an
 * importer's buffer). For jumbo events the payload starts after the 32-bit
 * length word, so argument offsets count from the jumbo data. */
#ifndef WEFT_EVENT_H
#define WEFT_EVENT_H

#include <stdint.h>

struct weft_stream;

struct weft_ev {
	uint8_t model, cat, val; /* the MCV: three printable characters */
	uint8_t jumbo;           /* 1 when the payload came from a jumbo event */
	uint32_t payload_len;    /* normal: 0 or 2..16, jumbo: < 2^32 */
	uint64_t clock;          /* raw stream clock, ns */
	uint64_t time;           /* corrected global time, ns */
	uint64_t offset;         /* byte offset of the event in its stream */
	const uint8_t *payload;
	struct weft_stream *stream;
};

/* stream_decode_scanned writes the first five fields as one 8-byte word */
_Static_assert(__builtin_offsetof(struct weft_ev, model) == 0 && __builtin_offsetof(struct weft_ev, cat) == 1 &&
		       __builtin_offsetof(struct weft_ev, val) == 2 && __builtin_offsetof(struct weft_ev, jumbo) == 3 &&
		       __builtin_offsetof(struct weft_ev, payload_len) == 4,
	       "struct weft_ev layout");

#endif
