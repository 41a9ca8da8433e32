/* SPDX-License-Identifier: GPL-3.0-or-later */
/* palette: Paraver's code colours (see palette.h). */
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "plot/palette.h"
#include "util/macros.h"

/* Paraver's default code colours (paraver-kernel's SemanticColor), 0 to
 * 48: idle, running, not created, waiting a message, ... */
static const unsigned char base[][3] = {
	{117, 195, 255}, {0, 0, 255},	  {255, 255, 255}, {255, 0, 0},	    {255, 0, 174},  {179, 0, 0},
	{0, 255, 0},	 {255, 255, 0},	  {235, 0, 0},	   {0, 162, 0},	    {255, 0, 255},  {100, 100, 177},
	{172, 174, 41},	 {255, 144, 26},  {2, 255, 177},   {192, 224, 0},   {66, 66, 66},   {189, 168, 100},
	{95, 200, 0},	 {203, 60, 69},	  {0, 109, 255},   {200, 61, 68},   {200, 66, 0},   {10, 66, 40},
	{139, 121, 177}, {116, 116, 116}, {200, 50, 89},   {255, 171, 98},  {0, 68, 189},   {66, 66, 0},
	{255, 46, 0},	 {100, 216, 32},  {0, 50, 120},	   {105, 105, 0},   {132, 75, 255}, {184, 232, 0},
	{0, 109, 112},	 {189, 168, 100}, {132, 75, 75},   {255, 75, 75},   {255, 20, 0},   {130, 30, 30},
	{10, 66, 10},	 {184, 132, 0},	  {100, 16, 32},   {146, 255, 255}, {50, 50, 100},  {146, 0, 255},
	{0, 138, 119},
};
#define NBASE ((uint32_t) (ARRAY_SIZE(base)))
#define MAX_COLORS 32000u

/* The colours used so far: one bit per 24-bit colour. */
struct used {
	uint8_t *bits;
};

static uint32_t key(const unsigned char c[3])
{
	return (uint32_t) c[0] << 16 | (uint32_t) c[1] << 8 | c[2];
}

/* 1 when c was not used yet (and is now). */
static int use(struct used *u, const unsigned char c[3])
{
	uint32_t k = key(c);
	uint8_t bit = (uint8_t) (1u << (k & 7));
	if (u->bits[k >> 3] & bit)
		return 0;
	u->bits[k >> 3] |= bit;
	return 1;
}

/* Paraver's test against the black timeline background: luminances
 * (30% red, 59% green, 11% blue, each rounded down) closer than 42. */
static int near_background(const unsigned char c[3])
{
	int lum = c[0] * 30 / 100 + c[1] * 59 / 100 + c[2] * 11 / 100;
	return lum < 42;
}

/* A colour near the background moved: the components from the last one
 * up, each stepped (wrapping) until a colour is far enough and unused;
 * 1 when one was found. */
static int move_away(struct used *u, unsigned char c[3], int k)
{
	if (k == 3)
		return 0;
	if (move_away(u, c, k + 1))
		return 1;
	unsigned char first = c[k]++;
	while (c[k] != first) {
		if (!near_background(c) && use(u, c))
			return 1;
		if (move_away(u, c, k + 1))
			return 1;
		c[k]++;
	}
	return 0;
}

void palette_init(struct palette *p)
{
	p->rgb = weft_xcalloc(MAX_COLORS, sizeof(*p->rgb));
	memcpy(p->rgb, base, sizeof(base));
	p->n = NBASE;
	struct used u = {weft_xcalloc(1u << 21, 1)};
	uint32_t *moved = weft_xcalloc(MAX_COLORS, sizeof(*moved)), nmoved = 0;
	for (uint32_t i = 0; i < NBASE; i++)
		use(&u, base[i]);
	uint32_t iterations = MAX_COLORS / NBASE / 3, from = 1;
	for (uint32_t it = 0; it < iterations; it++) {
		if (from > p->n - 1)
			from = p->n - 1;
		for (int comp = 0; comp < 3; comp++)
			for (uint32_t i = from; i < from + NBASE && i <= p->n - 1 && p->n < MAX_COLORS; i++) {
				unsigned char c[3] = {p->rgb[i][0], p->rgb[i][1], p->rgb[i][2]};
				c[comp]++;
				if (!use(&u, c))
					continue;
				if (near_background(c))
					moved[nmoved++] = p->n;
				memcpy(p->rgb[p->n++], c, 3);
			}
		from += NBASE;
	}
	for (uint32_t i = 0; i < nmoved; i++)
		move_away(&u, p->rgb[moved[i]], 0);
	free(moved);
	free(u.bits);
}

void palette_set(struct palette *p, int64_t v, const unsigned char rgb[3])
{
	if (v >= 0 && (uint64_t) v < p->n)
		memcpy(p->rgb[v], rgb, 3);
}

void palette_color(const struct palette *p, int64_t v, unsigned char rgb[3])
{
	memcpy(rgb, p->rgb[v < 0 ? 0 : (uint64_t) v % p->n], 3);
}

void palette_free(struct palette *p)
{
	free(p->rgb);
	p->rgb = NULL;
	p->n = 0;
}
