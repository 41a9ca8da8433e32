/* obs: the binary layout of ovni's stream.obs (stream format version 1).
 * Pure functions over a byte range: header check with byte-order detection,
 * and decoding of one normal or jumbo event. Every length is checked before
 * the bytes are read: 12 bytes of header, then 16 for a jumbo length word,
 * then the whole event. Nothing here allocates or touches files. */
#ifndef WEFT_OBS_H
#define WEFT_OBS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "event.h"

#define OBS_HEADER_SIZE 8
#define OBS_EV_HEADER 12
#define OBS_FLAG_JUMBO 0x10

/* Check the 8-byte file header. On success sets *swap to 1 when the stream
 * was written in the other byte order than this machine's. `path` is used in
 * the error message only. */
int obs_check_header(const uint8_t *d, size_t n, int *swap, const char *path, struct weft_err *e);

enum obs_result {
	OBS_EVENT = 0,  /* one event decoded, *size set */
	OBS_TRUNC = -1, /* not enough bytes for the event that starts here */
	OBS_BADMCV = -2 /* the MCV holds a byte that is not printable ASCII */
};

/* Decode the event at p (n bytes available). Fills ev (model..payload) and
 * the event's total size. */
int obs_decode(const uint8_t *p, size_t n, int swap, struct weft_ev *ev, size_t *size);

/* Explain a non-zero obs_decode() result at byte offset `off` of `path`. */
int obs_explain(const uint8_t *p, size_t n, int swap, int res, const char *path, uint64_t off,
		struct weft_err *e);

/* Integer readers honouring the stream byte order (unaligned-safe). */
uint16_t obs_u16(const uint8_t *p, int swap);
uint32_t obs_u32(const uint8_t *p, int swap);
uint64_t obs_u64(const uint8_t *p, int swap);

static inline int obs_mcv_ok(uint8_t c)
{
	return c >= 0x21 && c <= 0x7e;
}

#endif
