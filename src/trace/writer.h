/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writer: produce ovni streams (format v3) on disk.
 * A stream writer buffers stream.obs bytes in memory and appends them to the
 * file when the buffer fills (open, append, close: no descriptor is held, so
 * thousands of streams can be written at once). Events are written in this
 * machine's byte order, as libovni does. Used by `weft synth` and importers. */
#ifndef WEFT_WRITER_H
#define WEFT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/err.h"
#include "util/macros.h"

struct ovni_writer {
	char *obs_path;
	uint8_t *buf;
	size_t len, cap;
	uint64_t nevents;
	uint64_t flushed; /* bytes of stream.obs on disk (its header included) */
	int failed;
};

/* The byte offset in stream.obs of the next event written (a reader's
 * ev->offset of it). */
static inline uint64_t ow_offset(const struct ovni_writer *w)
{
	return w->flushed + w->len;
}

/* Create DIR (and parents) and start DIR/stream.obs with its header. */
WEFT_MUST_CHECK int ow_open(struct ovni_writer *w, const char *dir, size_t bufsize, struct weft_err *e);
/* Append one normal event (payload 0 or 2..16 bytes). The buffer must hold
 * at least one event (ow_open makes it 64 bytes or more). */
void ow_event(struct ovni_writer *w, const char mcv[3], uint64_t clock, const void *payload,
	      size_t len);
/* The fast paths of ow_event for importers writing millions of events: the
 * first 4 bytes of the event (flags and MCV) made once by ow_head or
 * ow_jumbo_head, and a payload length that is a constant at the call site,
 * so every copy is a plain store. */
static inline uint32_t ow_head4(uint8_t flags, const char mcv[3])
{
	uint8_t b[4] = {flags, (uint8_t) mcv[0], (uint8_t) mcv[1], (uint8_t) mcv[2]};
	uint32_t h;
	memcpy(&h, b, 4);
	return h;
}

static inline uint32_t ow_head(const char mcv[3], size_t len)
{
	return ow_head4(len ? (uint8_t) (len - 1) : 0, mcv);
}

/* A jumbo event's: flags 0x13, as libovni writes them (jumbo bit, size code 3). */
static inline uint32_t ow_jumbo_head(const char mcv[3])
{
	return ow_head4(0x13, mcv);
}

/* Append the buffered bytes to the file and empty the buffer. */
void ow_drain(struct ovni_writer *w);

/* Room for an event of n bytes (n must fit the buffer), its head and clock
 * written; returns where the rest of it goes. */
static inline uint8_t *ow_put_head(struct ovni_writer *w, size_t n, uint32_t head, uint64_t clock)
{
	if (__builtin_expect(w->len + n > w->cap, 0))
		ow_drain(w);
	uint8_t *p = w->buf + w->len;
	memcpy(p, &head, 4);
	memcpy(p + 4, &clock, 8);
	w->len += n;
	w->nevents++;
	return p + 12;
}

/* A normal event: the same bytes as ow_event. */
static inline void ow_event_fixed(struct ovni_writer *w, uint32_t head, uint64_t clock, const void *payload,
				  size_t len)
{
	uint8_t *p = ow_put_head(w, 12 + len, head, clock);
	if (len)
		memcpy(p, payload, len);
}

/* A jumbo event: its length word, then `len` data bytes (len + 16 must fit
 * the buffer: importers write small fixed records this way, e.g. more than
 * 16 bytes of integers). */
static inline void ow_jumbo_fixed(struct ovni_writer *w, uint32_t head, uint64_t clock, const void *data,
				  uint32_t len)
{
	uint8_t *p = ow_put_head(w, 16 + (size_t) len, head, clock);
	memcpy(p, &len, 4);
	memcpy(p + 4, data, len);
}

/* ow_event with the MCV given as text, for a payload size known when
 * compiling: the same bytes, every copy a few moves. */
static inline __attribute__((always_inline)) void ow_event_mcv(struct ovni_writer *w, const char mcv[3],
							       uint64_t clock, const void *payload, size_t len)
{
	ow_event_fixed(w, ow_head(mcv, len), clock, payload, len);
}

/* Flush and release; returns -1 on an I/O error (recorded at any time). */
WEFT_MUST_CHECK int ow_close(struct ovni_writer *w, struct weft_err *e);
/* Write DIR/stream.json with `text` (a complete JSON document). */
WEFT_MUST_CHECK int ow_write_json(const char *dir, const char *text, struct weft_err *e);

#endif
