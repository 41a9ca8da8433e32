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

#include "err.h"

struct ovni_writer {
	char *obs_path;
	uint8_t *buf;
	size_t len, cap;
	uint64_t nevents;
	int failed;
};

/* Create DIR (and parents) and start DIR/stream.obs with its header. */
int ow_open(struct ovni_writer *w, const char *dir, size_t bufsize, struct weft_err *e);
/* Append one normal event (payload 0 or 2..16 bytes). */
void ow_event(struct ovni_writer *w, const char mcv[3], uint64_t clock, const void *payload,
	      size_t len);
/* Append the buffered bytes to the file (an I/O error is recorded for
 * ow_close). ow_event and ow_event_fixed call it when the buffer is full. */
void ow_flush(struct ovni_writer *w);

/* ow_event for a payload of 2..16 bytes whose size `len` is a compile-time
 * constant: the same bytes, inline and without the generic length logic
 * (an importer writes one per record). */
static inline void ow_event_fixed(struct ovni_writer *w, const char mcv[3], uint64_t clock,
				  const void *payload, size_t len)
{
	if (__builtin_expect(w->len + 12 + len > w->cap, 0))
		ow_flush(w);
	uint8_t *p = w->buf + w->len;
	p[0] = (uint8_t) (len - 1);
	memcpy(p + 1, mcv, 3);
	memcpy(p + 4, &clock, 8);
	memcpy(p + 12, payload, len);
	w->len += 12 + len;
	w->nevents++;
}

/* Flush and release; returns -1 on an I/O error (recorded at any time). */
int ow_close(struct ovni_writer *w, struct weft_err *e);
/* Write DIR/stream.json with `text` (a complete JSON document). */
int ow_write_json(const char *dir, const char *text, struct weft_err *e);
/* mkdir -p */
int mkdir_p(const char *path, struct weft_err *e);

#endif
