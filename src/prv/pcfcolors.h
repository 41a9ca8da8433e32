/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pcfcolors: the STATES_COLOR section of a .pcf. Paraver colours a value
 * shown "in code" (a state, or an event value under Last Evt Val) with the
 * .pcf's entry at that value, so a trace of ovni's runtimes gets ovniemu's
 * table (ovni 1.14.0: 23 colours, values 0-22) and a view shows a nOS-V
 * subsystem or a task type in the same colour on weft's output as on
 * ovniemu's. A model's own state colour replaces the table's entry at its
 * value; states above the table follow it. Pure: writes into a strbuf. */
#ifndef WEFT_PCFCOLORS_H
#define WEFT_PCFCOLORS_H

#include "util/strbuf.h"

#define PCFCOLORS_OVNI 23 /* entries of ovniemu's table */

struct pcf_color {
	int value;
	unsigned char rgb[3];
};

/* ovniemu's colour of value v (0 <= v < PCFCOLORS_OVNI). */
const unsigned char *pcfcolors_ovni(int v);

/* Append "STATES_COLOR" and its lines: when `ovni`, ovniemu's table with
 * own's entries in its place, then own's values above it; else own's
 * entries alone. Values increase; a value given twice in own takes its
 * first colour. */
void pcfcolors_section(struct strbuf *b, int ovni, const struct pcf_color *own, int n);

#endif
