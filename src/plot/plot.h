/* plot: a picture of a Paraver trace as one SVG file (text, no library):
 * one row per thread or CPU of the .prv (rows binned when there are more
 * than opts.max_rows pixel rows), the states (or the values of one event
 * type) in the .pcf colours, communication lines, a time axis in ns, us,
 * ms or s, a legend with the .pcf labels and the share of time of each
 * state, and a bar chart of the time per state of each row.
 *
 * Summarised in bounded memory, whatever the trace's length: the timeline is
 * cut into opts.width pixel columns per row bin, and each cell keeps the
 * three states with the most time seen in it (the one with the most is
 * drawn); time per state per row bin is exact. Memory: cells (bins x width
 * x 32 bytes, 12.8 MB at 400 x 1000), one last value per row for --type,
 * and at most PLOT_MAX_LINES communication lines (deduplicated by their
 * pixels). Same input, same bytes. */
#ifndef WEFT_PLOT_H
#define WEFT_PLOT_H

#include <stdint.h>

#include "util/err.h"

#define PLOT_MAX_LINES 4000

struct plot_opts {
	const char *prv;   /* X.prv, with X.pcf and X.row beside it */
	const char *out;   /* the SVG file (written under a temporary name) */
	int width;         /* timeline columns in pixels (default 1000) */
	int max_rows;      /* pixel rows before rows are binned (default 400) */
	int64_t type;      /* -1: the states; else the values of this event type */
};

struct plot_stats {
	uint32_t rows, bins;   /* rows of the trace, rows drawn (bins) */
	uint64_t records, intervals, comms, lines;
	uint64_t ftime;
};

/* 0, or -1 with err filled (the .prv unreadable or malformed: WEFT_EINPUT;
 * the SVG not writable: WEFT_EINTERNAL). */
int plot_svg(const struct plot_opts *o, struct plot_stats *st, struct weft_err *err);

#endif
