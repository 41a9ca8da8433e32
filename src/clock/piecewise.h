/* SPDX-License-Identifier: GPL-3.0-or-later */
/* piecewise: piecewise clocks (clock.h struct clock_seg) as maps of local
 * time: the correction at a time, the local time of a corrected one, and
 * the composition with a piecewise-linear addition on the corrected side
 * (the repair's ramps, repair.h). Segments are sorted by from, seg[0].from
 * is 0, n >= 1. */
#ifndef WEFT_PIECEWISE_H
#define WEFT_PIECEWISE_H

#include "clock/clock.h"

/* The correction at local time t. */
int64_t pw_corr(const struct clock_seg *s, int n, uint64_t t);
/* A local time l with l + pw_corr(l) as close to g as the map allows. */
uint64_t pw_invert(const struct clock_seg *s, int n, uint64_t g);

/* A piecewise-linear function of corrected time: value[i] at at[i]
 * (increasing), linear between, 0 before the first and after the last. */
struct pw_add {
	const uint64_t *at;
	const double *value;
	int n;
};

/* The map local -> F(local) + add(F(local)) as segments (a new array, *nout
 * of them); drifts clamped to CLOCK_DRIFT_MAX. */
struct clock_seg *pw_compose_add(const struct clock_seg *s, int n, const struct pw_add *a, int *nout);

#endif
