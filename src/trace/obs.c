/* SPDX-License-Identifier: GPL-3.0-or-later */
/* obs: stream.obs header and event decoding. */
#include <string.h>

#include "trace/obs.h"

int obs_check_header(const uint8_t *d, size_t n, int *swap, const char *path, struct weft_err *e)
{
	if (n == 0)
		return weft_fail(e, WEFT_EINPUT, "%s: empty file, expected the 8-byte stream header", path);
	if (n < OBS_HEADER_SIZE)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: incomplete stream header: %zu bytes, expected at least 8", path, n);
	if (memcmp(d, "ovni", 4) != 0)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: bad magic at byte offset 0: expected \"ovni\" (6f 76 6e 69), found "
				 "%02x %02x %02x %02x",
				 path, d[0], d[1], d[2], d[3]);
	uint32_t v = obs_u32(d + 4, 0);
	if (v == 1) {
		*swap = 0;
	} else if (__builtin_bswap32(v) == 1) {
		*swap = 1;
	} else {
		return weft_fail(e, WEFT_EINPUT,
				 "%s: unsupported stream format version at byte offset 4: expected 1 "
				 "(in either byte order), found bytes %02x %02x %02x %02x",
				 path, d[4], d[5], d[6], d[7]);
	}
	return 0;
}

int obs_explain(const uint8_t *p, size_t n, int swap, int res, const char *path, uint64_t off,
		struct weft_err *e)
{
	if (res == OBS_BADMCV)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: garbage at byte offset %llu: expected an event header with a "
				 "printable MCV, found bytes %02x %02x %02x %02x",
				 path, (unsigned long long) off, p[0], p[1], p[2], p[3]);
	if (n < OBS_EV_HEADER)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: truncated event at byte offset %llu: expected a 12-byte event "
				 "header, found %zu bytes before the end of the file",
				 path, (unsigned long long) off, n);
	char mcv[4] = {0};
	for (int i = 0; i < 3; i++)
		mcv[i] = obs_mcv_ok(p[1 + i]) ? (char) p[1 + i] : '?';
	if ((p[0] & OBS_FLAG_JUMBO) && n < OBS_EV_HEADER + 4)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: truncated jumbo event %s at byte offset %llu: expected a 16-byte "
				 "header with its length word, found %zu bytes before the end of the file",
				 path, mcv, (unsigned long long) off, n);
	size_t need;
	if (p[0] & OBS_FLAG_JUMBO)
		need = (size_t) OBS_EV_HEADER + 4 + obs_u32(p + OBS_EV_HEADER, swap);
	else
		need = OBS_EV_HEADER + ((p[0] & 0x0f) ? (p[0] & 0x0f) + 1u : 0u);
	return weft_fail(e, WEFT_EINPUT,
			 "%s: truncated event %s at byte offset %llu: expected %zu bytes, found %zu "
			 "before the end of the file",
			 path, mcv, (unsigned long long) off, need, n);
}
