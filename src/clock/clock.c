/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clock: composition and printing of clock maps (see clock.h). */
#include <stdio.h>
#include <stdlib.h>

#include "clock/clock.h"

struct clock_map clock_compose(const struct clock_map *outer, const struct clock_map *inner)
{
	struct clock_map m;
	m.tref = inner->tref;
	/* inner(t_ref) = t_ref + inner.offset; outer adds its correction there */
	uint64_t x = inner->tref + (uint64_t) inner->offset;
	m.offset = inner->offset + clock_correction(outer, x);
	/* (1 + d1)(1 + d2) - 1, in ppt, rounded to nearest */
	__int128 p = (__int128) inner->drift * outer->drift;
	__int128 h = CLOCK_PPT / 2;
	__int128 c = p >= 0 ? (p + h) / CLOCK_PPT : -((-p + h) / CLOCK_PPT);
	m.drift = inner->drift + outer->drift + (int64_t) c;
	return m;
}

void clock_ppm_str(int64_t drift, char *buf, int n)
{
	uint64_t a = drift < 0 ? (uint64_t) 0 - (uint64_t) drift : (uint64_t) drift;
	snprintf(buf, (size_t) n, "%s%llu.%06llu", drift < 0 ? "-" : "",
		 (unsigned long long) (a / CLOCK_PPT_PER_PPM), (unsigned long long) (a % CLOCK_PPT_PER_PPM));
}
