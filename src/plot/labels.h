/* labels: what a plot needs from a trace's .pcf and .row — state names and
 * colours, the names of one event type and of its values, and the THREAD
 * level's row names. Missing files give empty tables (a plot still draws,
 * with numbers for names and a fixed palette). Memory: the labels in the
 * files. */
#ifndef WEFT_PLOT_LABELS_H
#define WEFT_PLOT_LABELS_H

#include <stdint.h>

struct plot_label {
	int64_t value;
	char *text;
	int has_rgb;
	unsigned char rgb[3];
};

struct plot_labels {
	struct plot_label *states; /* STATES with their STATES_COLOR */
	int nstates;
	char *type_name;           /* label of the chosen event type, NULL none */
	struct plot_label *values; /* its VALUES */
	int nvalues;
	char **rows;               /* LEVEL THREAD names */
	int nrows;
};

/* Read X.pcf and X.row beside `prv` (X.prv); `type` >= 0 selects the event
 * type whose names are kept. */
void labels_load(struct plot_labels *l, const char *prv, int64_t type);
void labels_free(struct plot_labels *l);
/* The state's (or, with a type, the value's) label entry, or NULL. */
const struct plot_label *labels_find(const struct plot_label *v, int n, int64_t value);

#endif
