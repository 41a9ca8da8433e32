/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_sets: the predefined subsets of PICL event types (seed Table 5),
 * shared by the importer (the scope of -6 aliases and -5 labels) and the
 * msg model (statistics of subsets): each is a range lo..hi, or a list. */
#ifndef WEFT_PICL_SETS_H
#define WEFT_PICL_SETS_H

#include <stddef.h>
#include <stdint.h>
#include "util/macros.h"

struct picl_predef {
	int32_t id;
	int32_t lo, hi; /* lo..hi, both inclusive (none when lo > hi) */
	int32_t also[4]; /* or one of these (0 ends) */
	const char *name;
};

static const struct picl_predef picl_predefined[] = {
	{-1001, 0, INT32_MAX, {0}, "user events"},
	{-1002, INT32_MIN, -2, {0}, "system events"},
	{-1011, -200, -11, {0}, "communication events"},
	{-1012, -50, -21, {0}, "send events"},
	{-1013, -80, -51, {0}, "receive events"},
	{-1014, 1, 0, {-31, -52, -56, -61}, "blocked send/receive events"},
	{-1201, -400, -201, {0}, "file I/O events"},
	{-1401, -500, -401, {0}, "synchronization events"},
	{-1501, -600, -501, {0}, "resource allocation events"},
	{-1601, -700, -601, {0}, "generic performance events"},
	{-1901, -1000, -901, {0}, "tracing events"},
	{-1902, 1, 0, {-911, -912, 0, 0}, "trace flushing events"},
};

/* The predefined subset `id`, or NULL. */
static inline const struct picl_predef *picl_predef_of(int64_t id)
{
	for (size_t i = 0; i < ARRAY_SIZE(picl_predefined); i++)
		if (picl_predefined[i].id == id)
			return &picl_predefined[i];
	return NULL;
}

static inline int picl_predef_has(const struct picl_predef *d, int64_t v)
{
	if (v >= d->lo && v <= d->hi)
		return 1;
	for (int k = 0; k < 4 && d->also[k]; k++)
		if (d->also[k] == v)
			return 1;
	return 0;
}

#endif
