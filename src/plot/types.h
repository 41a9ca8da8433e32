/* SPDX-License-Identifier: GPL-3.0-or-later */
/* types: the event types of a trace as `weft plot` sees them: the records
 * of each type (counted as the trace is read), a .pcf label resolved to its
 * type, the trace's main type (plot.h says which), and the types listed
 * for a message. Memory: a fixed table of TYPES_MAX types (more are not
 * counted). */
#ifndef WEFT_PLOT_TYPES_H
#define WEFT_PLOT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "plot/labels.h"
#include "util/macros.h"

#define TYPES_MAX 2048

struct type_counts {
	int64_t type[2 * TYPES_MAX];
	uint64_t n[2 * TYPES_MAX]; /* 0: an empty slot */
	int ntypes;
};

void types_init(struct type_counts *c);
/* One record of type t (with a value other than 0: those draw nothing). */
void types_count(struct type_counts *c, int64_t t);
uint64_t types_records(const struct type_counts *c, int64_t t);
/* The type whose .pcf label is `label` (case aside), or the one type whose
 * label contains it; 0, or -1 with err filled (WEFT_EUSAGE: no .pcf, no
 * such label, or several types match). */
WEFT_MUST_CHECK int types_resolve(const struct plot_labels *l, const char *prv, const char *label, int64_t *type,
				  struct weft_err *err);
/* The main type among those counted, or -1 when none was. */
int64_t types_main(const struct type_counts *c);
/* "1 CPU: PID of the RUNNING thread (1203 records), 2 ..." in type order,
 * at most 16 of them, into buf. */
void types_list(const struct type_counts *c, const struct plot_labels *l, char *buf, size_t n);

#endif
