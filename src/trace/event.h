/* SPDX-License-Identifier: GPL-3.0-or-later */
/* event: the decoded view of one event, shared by every stage.
 * It never owns memory: the payload points into the mapped stream (or an
 * importer's buffer). For jumbo events the payload starts after the 32-bit
 * length word, so argument offsets count from the jumbo data. */
#ifndef WEFT_EVENT_H
#define WEFT_EVENT_H

#include <stdint.h>

struct weft_stream;

/* The characters of an MCV (model, category, value) are printable ASCII
 * without the space: '!' (0x21) to '~' (0x7e), 94 of them. A table by model
 * character has MCV_NCHARS entries, the one of character c at mcv_index(c);
 * one by (category, value) has MCV_NCHARS * MCV_NCHARS. Here, in the lowest
 * layer, so that sources and models share one definition. */
#define MCV_FIRST 0x21
#define MCV_LAST 0x7e
#define MCV_NCHARS (MCV_LAST - MCV_FIRST + 1)

static inline int mcv_index(int c)
{
	return c - MCV_FIRST;
}

static inline char mcv_char(int i)
{
	return (char) (i + MCV_FIRST);
}

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
