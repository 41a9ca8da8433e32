/* SPDX-License-Identifier: GPL-3.0-or-later */
/* obs: the binary layout of ovni's stream.obs (stream format version 1).
 * Pure functions over a byte range: header check with byte-order detection,
 * and decoding of one normal or jumbo event. Every length is checked before
 * the bytes are read: 12 bytes of header, then 16 for a jumbo length word,
 * then the whole event. Nothing here allocates or touches files. */
#ifndef WEFT_OBS_H
#define WEFT_OBS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/err.h"
#include "trace/event.h"
#include "util/macros.h"

#define OBS_HEADER_SIZE 8
#define OBS_EV_HEADER 12
#define OBS_FLAG_JUMBO 0x10

/* Check the 8-byte file header. On success sets *swap to 1 when the stream
 * was written in the other byte order than this machine's. `path` is used in
 * the error message only. */
WEFT_MUST_CHECK int obs_check_header(const uint8_t *d, size_t n, int *swap, const char *path, struct weft_err *e);

enum obs_result {
	OBS_EVENT = 0,  /* one event decoded, *size set */
	OBS_TRUNC = -1, /* not enough bytes for the event that starts here */
	OBS_BADMCV = -2 /* the MCV holds a byte that is not printable ASCII */
};

/* Integer readers honouring the stream byte order (unaligned-safe). */
static inline uint16_t obs_u16(const uint8_t *p, int swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t obs_u32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t obs_u64(const uint8_t *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

static inline int obs_mcv_ok(uint8_t c)
{
	return c >= MCV_FIRST && c <= MCV_LAST;
}

/* Decode the event at p (n bytes available). Fills ev (model..payload) and
 * the event's total size. Inline: this is the per-event hot path. */
static inline int obs_decode(const uint8_t *p, size_t n, int swap, struct weft_ev *ev, size_t *size)
{
	if (__builtin_expect(n < OBS_EV_HEADER, 0))
		return OBS_TRUNC;
	uint8_t flags = p[0];
	size_t sz;
	if (__builtin_expect(flags & OBS_FLAG_JUMBO, 0)) {
		if (n < OBS_EV_HEADER + 4)
			return OBS_TRUNC;
		uint32_t len = obs_u32(p + OBS_EV_HEADER, swap);
		sz = (size_t) OBS_EV_HEADER + 4 + len;
		ev->payload = p + OBS_EV_HEADER + 4;
		ev->payload_len = len;
		ev->jumbo = 1;
	} else {
		uint32_t code = flags & 0x0fu;
		uint32_t len = code + (code != 0); /* 0, or code + 1 */
		sz = OBS_EV_HEADER + len;
		ev->payload = p + OBS_EV_HEADER;
		ev->payload_len = len;
		ev->jumbo = 0;
	}
	if (__builtin_expect(sz > n, 0))
		return OBS_TRUNC;
	if (__builtin_expect(!obs_mcv_ok(p[1]) || !obs_mcv_ok(p[2]) || !obs_mcv_ok(p[3]), 0))
		return OBS_BADMCV;
	ev->model = p[1];
	ev->cat = p[2];
	ev->val = p[3];
	ev->clock = obs_u64(p + 4, swap);
	*size = sz;
	return OBS_EVENT;
}

/* Explain a non-zero obs_decode() result at byte offset `off` of `path`. */
WEFT_MUST_CHECK int obs_explain(const uint8_t *p, size_t n, int swap, int res, const char *path, uint64_t off,
				struct weft_err *e);


#endif
