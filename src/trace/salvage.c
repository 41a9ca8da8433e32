/* SPDX-License-Identifier: GPL-3.0-or-later */
/* salvage: the last whole event of a stream cut mid-event (salvage.h). */
#include <string.h>

#include "trace/obs.h"
#include "trace/salvage.h"

/* The MCV of a cut event, when its three bytes are there and printable. */
static void cut_mcv(const uint8_t *p, size_t n, char out[4])
{
	memset(out, 0, 4);
	if (n < 4 || !obs_mcv_ok(p[1]) || !obs_mcv_ok(p[2]) || !obs_mcv_ok(p[3]))
		return;
	memcpy(out, p + 1, 3);
}

/* Whether the MCV bytes of the cut event that are there are printable: a
 * cut leaves the first bytes of a real event, garbage rarely looks like
 * one. */
static int cut_plausible(const uint8_t *p, size_t n)
{
	for (size_t i = 1; i < 4 && i < n; i++)
		if (!obs_mcv_ok(p[i]))
			return 0;
	return 1;
}

/* The whole size of the event starting at p, 0 when n bytes cannot tell. */
static uint64_t cut_need(const uint8_t *p, size_t n, int swap)
{
	if (n < 1)
		return 0;
	if (!(p[0] & OBS_FLAG_JUMBO))
		return OBS_EV_HEADER + ((p[0] & 0x0fu) ? (p[0] & 0x0fu) + 1u : 0u);
	if (n < OBS_EV_HEADER + 4)
		return 0;
	return OBS_EV_HEADER + 4 + (uint64_t) obs_u32(p + OBS_EV_HEADER, swap);
}

int obs_find_cut(const uint8_t *d, size_t n, int swap, struct obs_cut *c)
{
	memset(c, 0, sizeof(*c));
	size_t off = OBS_HEADER_SIZE;
	while (off < n) {
		struct weft_ev ev;
		size_t sz;
		int r = obs_decode(d + off, n - off, swap, &ev, &sz);
		if (r == OBS_TRUNC && cut_plausible(d + off, n - off)) {
			c->off = off;
			c->dropped = n - off;
			c->need = cut_need(d + off, n - off, swap);
			cut_mcv(d + off, n - off, c->mcv);
			return 1;
		}
		if (r != OBS_EVENT)
			return 0;
		off += sz;
	}
	return 0;
}
