/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clock: weft's clock model (doc/clock.md).
 * Each loom's raw clock maps to the global timeline by a line:
 *
 *   t_global = t_local + offset + drift * (t_local - t_ref)
 *
 * offset and t_ref in ns, drift a rational number of parts per 10^12
 * (CLOCK_PPT; 1 ppm = 10^6 ppt). The drift term is computed exactly, as the
 * floor of the rational product, with 64-bit integer arithmetic only (no
 * floating point, nothing accumulated): the same inputs always give the same
 * nanosecond, and the map never decreases (|drift| < 1). A map with drift 0
 * is a constant offset: the per-event cost is one addition. */
#ifndef WEFT_CLOCK_H
#define WEFT_CLOCK_H

#include <stdint.h>

#define CLOCK_PPT 1000000000000ll           /* drift unit: parts per 10^12 */
#define CLOCK_PPT_PER_PPM 1000000ll
#define CLOCK_DRIFT_MAX (10000ll * CLOCK_PPT_PER_PPM) /* |drift| <= 10000 ppm (1 %) */

struct clock_map {
	int64_t offset; /* ns added at t_ref */
	int64_t drift;  /* parts per 10^12 */
	uint64_t tref;  /* local ns */
};

static inline int64_t clock_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* floor(dt * drift / 10^12), exact for |drift| <= CLOCK_DRIFT_MAX and any
 * int64 dt: dt is split so that no product leaves 64 bits. */
static inline int64_t clock_drift_term(int64_t dt, int64_t drift)
{
	const int64_t M = 1000000;                  /* 10^6 */
	int64_t q = clock_floordiv(dt, CLOCK_PPT);  /* dt = q 10^12 + r, 0 <= r < 10^12 */
	int64_t r = dt - q * CLOCK_PPT;
	int64_t r1 = r / M, r0 = r % M;             /* r = r1 10^6 + r0 */
	int64_t a = r1 * drift;                     /* |a| < 2^54 */
	int64_t a1 = clock_floordiv(a, M);          /* a = a1 10^6 + a0 */
	int64_t a0 = a - a1 * M;
	/* r drift / 10^12 = a1 + (a0 10^6 + r0 drift) / 10^12 */
	return q * drift + a1 + clock_floordiv(a0 * M + r0 * drift, CLOCK_PPT);
}

/* The correction t_global - t_local at local time t (signed ns). */
static inline int64_t clock_correction(const struct clock_map *m, uint64_t t)
{
	if (m->drift == 0)
		return m->offset;
	return m->offset + clock_drift_term((int64_t) (t - m->tref), m->drift);
}

/* A piecewise clock (clock file v2): segment i applies from local time
 * seg[i].from (seg[0].from is 0) up to the next one's; each its own line. A
 * loom with one segment is a plain map. */
struct clock_seg {
	uint64_t from;
	struct clock_map map;
};

/* The segment of local time t (segments sorted by from, n >= 1). */
static inline const struct clock_seg *clock_seg_at(const struct clock_seg *s, int n, uint64_t t)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (s[mid].from <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &s[lo];
}

/* Compose: the map `outer` applied to the result of `inner` (both on the
 * same loom), as one map referred to inner's t_ref, with the drift rounded
 * to the nearest ppt (exact when either drift is 0). */
struct clock_map clock_compose(const struct clock_map *outer, const struct clock_map *inner);

/* drift in ppm as text with 6 decimals (exact), e.g. "-12.500000". */
void clock_ppm_str(int64_t drift, char *buf, int n);

#endif
