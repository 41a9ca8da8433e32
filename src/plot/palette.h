/* SPDX-License-Identifier: GPL-3.0-or-later */
/* palette: the colour wxParaver gives a value in a timeline coloured by
 * code, so that `weft plot` draws a state or an event value in the colour
 * an analyst sees in wxParaver: the .pcf's STATES_COLOR entries at their
 * values, every other value the colour of Paraver's default palette (its
 * 49 base colours, expanded to about 32,000 by single steps of red, green
 * and blue, the steps too close to the black background moved away, as
 * paraver-kernel does it), value v taking entry v modulo the palette's
 * length. Memory: the palette (96 KB) and, while it is built, a set of the
 * colours used (2 MB). */
#ifndef WEFT_PLOT_PALETTE_H
#define WEFT_PLOT_PALETTE_H

#include <stdint.h>

struct palette {
	unsigned char (*rgb)[3];
	uint32_t n;
};

/* Paraver's default palette. */
void palette_init(struct palette *p);
/* The .pcf's colour of value v (v < the palette's length). */
void palette_set(struct palette *p, int64_t v, const unsigned char rgb[3]);
/* The colour of value v: entry v mod n; a negative value has entry 0's. */
void palette_color(const struct palette *p, int64_t v, unsigned char rgb[3]);
void palette_free(struct palette *p);

#endif
