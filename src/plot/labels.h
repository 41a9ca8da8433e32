/* SPDX-License-Identifier: GPL-3.0-or-later */
/* labels: what a plot needs from a trace's .pcf and .row — state names and
 * colours, every event type's label and its values' names, and the THREAD
 * level's row names. Missing files give empty tables (a plot still draws,
 * with numbers for names and Paraver's default palette). X.prv and
 * X.prv.gz both have X.pcf and X.row. Memory: the labels in the files. */
#ifndef WEFT_PLOT_LABELS_H
#define WEFT_PLOT_LABELS_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

struct plot_label {
	int64_t value;
	char *text;
	int has_rgb;
	unsigned char rgb[3];
};

/* An EVENT_TYPE line and the VALUES of its block. */
struct plot_type {
	int64_t type;
	char *name;
	struct plot_label *values;
	int nvalues;
};

struct plot_labels {
	struct plot_label *states; /* STATES with their STATES_COLOR */
	int nstates;
	struct plot_type *types; /* in .pcf order */
	int ntypes;
	char **rows;               /* LEVEL THREAD names */
	int nrows;
};

/* Read X.pcf and X.row beside `prv` (X.prv or X.prv.gz). A missing file
 * gives no labels; one that is not a regular file or is too big is an
 * error (-1, *e filled). */
WEFT_MUST_CHECK int labels_load(struct plot_labels *l, const char *prv, struct weft_err *e);
void labels_free(struct plot_labels *l);
/* The state's (or a type's value's) label entry, or NULL. */
const struct plot_label *labels_find(const struct plot_label *v, int n, int64_t value);
/* The event type's entry, or NULL. */
const struct plot_type *labels_type(const struct plot_labels *l, int64_t type);

#endif
