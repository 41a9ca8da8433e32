/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plot: a picture of a Paraver trace (.prv or .prv.gz) as one SVG file
 * (text, no library): one row per thread or CPU of the .prv (rows binned
 * when there are more than opts.max_rows pixel rows), the states (or the
 * values of one event type) in the colours wxParaver gives them (the .pcf's,
 * then Paraver's palette: palette.h), communication lines, a time axis in
 * ns, us, ms or s, a legend with the .pcf labels and the share of time of
 * each state, and a bar chart of the time per state of each row.
 *
 * The event type is a number or a label of the .pcf (its whole label, or a
 * part of one label only). A type with no record in the trace is an error
 * listing the types there are. A trace without state records (cpu.prv)
 * and no type asked for is drawn by its main type: the first present of
 * the runtimes' subsystem types (nOS-V, Nanos6, OpenMP, NODES, TAMPI),
 * MPI's function, the CPU agent of and-fork and or-branch, the file I/O
 * clients, the ovni thread state, the running thread's TID; else the
 * lowest type present (a second pass).
 *
 * Summarised in bounded memory, whatever the trace's length: the timeline is
 * cut into opts.width pixel columns per row bin, and each cell keeps the
 * three states with the most time seen in it (the one with the most is
 * drawn); time per state per row bin is exact. Memory: cells (bins x width
 * x 32 bytes, 12.8 MB at 400 x 1000), one last value per row for --type,
 * the palette, and at most PLOT_MAX_LINES communication lines
 * (deduplicated by their pixels; beyond that number, an even sample of
 * them over the whole run, every 2nd, 4th... line in time order). Same
 * input, same bytes. */
#ifndef WEFT_PLOT_H
#define WEFT_PLOT_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

#define PLOT_MAX_LINES 4000

struct plot_opts {
	const char *prv;   /* X.prv, with X.pcf and X.row beside it */
	const char *out;   /* the SVG file (written under a temporary name) */
	int width;         /* timeline columns in pixels (default 1000) */
	int max_rows;      /* pixel rows before rows are binned (default 400) */
	int64_t type;      /* -1: the states; else the values of this event type */
	const char *type_label; /* not NULL: the type whose .pcf label this is */
};

struct plot_stats {
	uint32_t rows, bins;   /* rows of the trace, rows drawn (bins) */
	uint64_t records, intervals, comms, lines;
	uint64_t ftime;
	int64_t type; /* the type drawn, -1: the states */
	int chosen; /* the type is the trace's main type (no states) */
};

/* 0, or -1 with err filled (the .prv unreadable or malformed: WEFT_EINPUT;
 * a type not in the trace or a label naming none or several: WEFT_EUSAGE,
 * listing the types; the SVG not writable: WEFT_EINTERNAL). */
WEFT_MUST_CHECK int plot_svg(const struct plot_opts *o, struct plot_stats *st, struct weft_err *err);

#endif
