/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cfgview: what a Paraver view file (.cfg) asks of a trace, read from its
 * text: the file it is for (from its path under cfg/, ovni's layout:
 * thread/MODEL/NAME.cfg for thread.prv, cpu/MODEL/NAME.cfg for cpu.prv, and
 * cpu/MODEL/breakdown*.cfg for the model's MODEL-breakdown.prv of
 * `weft emu -b`),
 * whether it shows states (State As Is) or event values, the event types
 * its filter names, its colour mode and its value range. Shared by the
 * copier (views.c: which views fit a run) and `weft check --views`. Pure:
 * no file access. */
#ifndef WEFT_CFGVIEW_H
#define WEFT_CFGVIEW_H

#include <stddef.h>
#include <stdint.h>

#define CFGVIEW_MAX_TYPES 16

enum cfgview_color { CFGVIEW_COLOR_NONE, CFGVIEW_COLOR_CODE, CFGVIEW_COLOR_GRADIENT, CFGVIEW_COLOR_OTHER };

struct cfgview {
	int states;          /* the thread function is State As Is */
	int events;          /* the thread function reads event values (Last/Next Evt Val) */
	int ntypes;          /* event types of window_filter_module evt_type */
	int32_t types[CFGVIEW_MAX_TYPES];
	enum cfgview_color color;
	int has_min, has_max;
	double min, max;     /* window_minimum_y, window_maximum_y */
	int compute_y;       /* window_compute_y_max true: Paraver sets the range
			      * from the values when it opens the view */
	int nwindows;        /* "< NEW DISPLAYING WINDOW" lines */
};

/* Parse a view's text; returns 0, or -1 with a message in msg (line and
 * what was expected) when a line it reads is malformed. */
int cfgview_parse(const char *text, size_t len, struct cfgview *v, char *msg, size_t msglen);

/* The file a view's path under cfg/ ("thread/ovni/state.cfg") applies to:
 * 0 thread/MODEL/NAME.cfg, 1 cpu/MODEL/NAME.cfg, CFGVIEW_BREAKDOWN
 * cpu/MODEL/breakdown*.cfg (the folder's MODEL-breakdown.prv), -1 any other
 * path. When it is not -1 and model is not NULL, the MODEL part goes into
 * model (at most modellen - 1 characters). */
#define CFGVIEW_BREAKDOWN 2
int cfgview_file(const char *rel, char *model, size_t modellen);

/* A copy of `text` with every window_maximum_y set to `max` and, when
 * type >= 0, the filter narrowed to that one type and `suffix` appended to
 * the window name, kept to its line (sb_text: it holds a mark's title from
 * the trace). Returns a malloc'd string. */
char *cfgview_rewrite(const char *text, int64_t max, int32_t type, const char *suffix);

#endif
