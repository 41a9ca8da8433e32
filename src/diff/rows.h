/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rows: row names of the traces of a diff (the THREAD level of X.row),
 * each name a key id shared by both traces. */
#ifndef WEFT_DIFF_ROWS_H
#define WEFT_DIFF_ROWS_H

#include <stdint.h>
#include <uthash.h>

#include "diff/diff.h"
#include "util/macros.h"

struct rowkey {
	char *name;
	uint32_t id;
	UT_hash_handle hh;
};

struct rowkeys {
	struct rowkey *by_name;
	char **names; /* by id */
	uint32_t n, cap;
};

/* The id of a key (a new one for a new name). */
uint32_t rowkeys_id(struct rowkeys *k, const char *name);
/* The key ids of the nrows rows of trace prv (*out, allocated), from the
 * .row beside it: 0, or -1 with err filled (no .row, another size). The
 * n-th row (n > 1) of a name its file repeats is keyed "NAME #n", so it
 * meets the other trace's n-th row of that name. */
WEFT_MUST_CHECK int rowkeys_load(struct rowkeys *k, const char *prv, uint32_t nrows, enum diff_rows mode,
				 uint32_t **out, struct weft_err *err);
void rowkeys_free(struct rowkeys *k);

#endif
