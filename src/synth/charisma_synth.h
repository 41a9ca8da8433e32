/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_synth: synthetic CHARISMA traces (see charisma_synth.c): the
 * generator. `weft synth --format charisma` (src/cli) reads its options. */
#ifndef WEFT_CHARISMA_SYNTH_H
#define WEFT_CHARISMA_SYNTH_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

struct charisma_synth_opts {
	const char *profile;   /* a built-in profile's name or a file (NULL: charisma-default) */
	int big_endian;
	uint64_t size;         /* about this many bytes */
	uint64_t apps, clients, files, seed; /* apps 1..256 <= clients 1..65536, files 1..1000 */
};

struct charisma_synth_done {
	uint64_t records, bytes;
};

/* Write the trace to `out` (a temporary renamed when complete): 0, or -1
 * with e filled (a profile that cannot be read, a write error). */
WEFT_MUST_CHECK int charisma_synth_write(const struct charisma_synth_opts *o, const char *out,
					 struct charisma_synth_done *done, struct weft_err *e);

#endif
