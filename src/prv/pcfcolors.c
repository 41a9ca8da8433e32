/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pcfcolors: ovniemu's STATES_COLOR table, and a .pcf's section from it. */
#include <limits.h>
#include <stddef.h>

#include "prv/pcfcolors.h"

/* ovni 1.14.0's palette, value by value (its src/emu/pv/pcf.c): black,
 * blue, light grey, red, green, yellow, orange, purple, cyan, magenta,
 * lime, pink, teal, grey, lavender, brown, beige, maroon, mint, olive,
 * apricot, navy, deep blue. */
static const unsigned char ovni_table[PCFCOLORS_OVNI][3] = {
	{0, 0, 0},       {0, 130, 200},   {217, 217, 217}, {230, 25, 75},   {60, 180, 75},   {255, 225, 25},
	{245, 130, 48},  {145, 30, 180},  {70, 240, 240},  {240, 50, 230},  {210, 245, 60},  {250, 190, 212},
	{0, 128, 128},   {128, 128, 128}, {220, 190, 255}, {170, 110, 40},  {255, 250, 200}, {128, 0, 0},
	{170, 255, 195}, {128, 128, 0},   {255, 215, 180}, {0, 0, 128},     {0, 0, 255},
};

const unsigned char *pcfcolors_ovni(int v)
{
	return ovni_table[v];
}

/* own's first entry at value v, or NULL */
static const struct pcf_color *own_at(const struct pcf_color *own, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (own[i].value == v)
			return &own[i];
	return NULL;
}

/* own's smallest value above `after`, INT_MAX when none */
static int own_next(const struct pcf_color *own, int n, int after)
{
	int best = INT_MAX;
	for (int i = 0; i < n; i++)
		if (own[i].value > after && own[i].value < best)
			best = own[i].value;
	return best;
}

void pcfcolors_section(struct strbuf *b, int ovni, const struct pcf_color *own, int n)
{
	sb_printf(b, "STATES_COLOR\n");
	int v = -1;
	if (ovni)
		for (v = 0; v < PCFCOLORS_OVNI; v++) {
			const struct pcf_color *c = own_at(own, n, v);
			const unsigned char *rgb = c ? c->rgb : ovni_table[v];
			sb_printf(b, "%d {%d,%d,%d}\n", v, rgb[0], rgb[1], rgb[2]);
		}
	for (v = own_next(own, n, v < 0 ? INT_MIN : v - 1); v != INT_MAX; v = own_next(own, n, v)) {
		const struct pcf_color *c = own_at(own, n, v);
		sb_printf(b, "%d {%d,%d,%d}\n", v, c->rgb[0], c->rgb[1], c->rgb[2]);
	}
}
