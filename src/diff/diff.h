/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diff: two Paraver traces compared for what they mean, not their bytes
 * (`weft diff`): weft's output against ovniemu's, or two runs of weft.
 *
 * Rows of A and B are matched by name (the THREAD level of their .row
 * files; with DIFF_ROWS_OVNI by the first two words, so that ovniemu's
 * "TH 1.5" matches weft's "TH 1.5 node00/3"). For every (row, event type)
 * the value is a step function of time: at one time the last record in
 * file order wins, 0 before the first, a repeated value or a first 0
 * changes nothing; two traces are equal when all their step functions
 * are. Each differing (row, type) is reported once, at its first
 * difference, in time order:
 *   row KEY type T: first difference at time X: A has V1, B has V2
 * With states, a row's state records are one more step function (0 where
 * none), "row KEY state: ..."; a trace without state records may take them
 * from an event type (ovniemu writes thread states as type 4). With
 * records, every record counts (zeros and repeats too) and a (row, type)
 * differs from its first record that differs:
 *   row KEY type T: record I differs: A has V1 at X1, B has V2 at X2 (A has
 *   N1 records, B has N2)
 * With order, row i of A and row i of B must have the same name:
 *   row I: A has KEY1, B has KEY2
 * Communications, global operations and comments are not compared. Times
 * are in the traces' unit, in ns when A and B have different units.
 *
 * Streamed: both traces are read once, side by side in time order (weft
 * and ovniemu write them so; a record earlier than the one before it is an
 * input error). Memory: a few words per (row, type) pair and per row, not
 * per record. */
#ifndef WEFT_DIFF_H
#define WEFT_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "util/macros.h"

enum diff_rows { DIFF_ROWS_NAME, DIFF_ROWS_OVNI };

struct diff_range {
	int64_t lo, hi;
};

struct diff_opts {
	enum diff_rows rows;
	const struct diff_range *types; /* NULL: every type */
	int ntypes;
	int states; /* compare the state records too */
	int64_t state_type; /* >= 0: a trace without states takes them from this type */
	int records; /* every record, not the step functions */
	int order; /* the rows in the same order */
	uint64_t max; /* difference lines printed (all are counted) */
};

struct diff_result {
	uint64_t ndiff; /* differences found */
	uint64_t npairs; /* (row, type) pairs compared */
};

/* Compare a and b (each .prv or .prv.gz with its .row), printing the
 * differences and the summary line "N differences in M (row, type) pairs"
 * to out. 0 (res filled), or -1 with err filled (an input error). */
WEFT_MUST_CHECK int diff_traces(const char *a, const char *b, const struct diff_opts *o, FILE *out,
				struct diff_result *res, struct weft_err *err);

#endif
