/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_synth: synthetic PICL logs (see picl_synth.c): the generator and the
 * time parsers its options use. `weft synth --format picl` (src/cli) reads
 * the options. */
#ifndef WEFT_PICL_SYNTH_H
#define WEFT_PICL_SYNTH_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

enum picl_traffic { TR_RING, TR_ALL, TR_RANDOM };

struct picl_synth_opts {
	int procs;                 /* 2 .. 32767 */
	enum picl_traffic traffic;
	uint64_t records, seed;    /* records 0 and no duration: 1000000 */
	int64_t duration;          /* ns of true time, 0: by records */
	int64_t lat_lo, lat_hi, size_lo, size_hi, comp_lo, comp_hi;
	int digits, stats;
	const char *off_arg, *drift_arg; /* --offset, --drift as given (or NULL) */
	/* clocks that are not lines: --rate-change P:T:PPM[,...] (processor P's
	 * drift changes by PPM at true time T), --step P:T:NS[,...] (its clock
	 * jumps forward by NS at T), --segments K (every processor but 0 gets K
	 * segments of drifts in [-PPM, PPM] of --drift, changes at random
	 * times within --duration) */
	const char *rate_arg, *step_arg;
	int segments;
};

struct picl_synth_done {
	uint64_t records, messages;
};

/* Write the log to `out` (and the true clocks as JSON to `truth`, if not
 * NULL), each under a temporary name renamed when complete. 0, or -1 with
 * e filled: WEFT_EUSAGE for an --offset/--drift that cannot be read. */
WEFT_MUST_CHECK int picl_synth_write(const struct picl_synth_opts *o, const char *out, const char *truth,
				     struct picl_synth_done *done, struct weft_err *e);

/* "12", "2.5us", "-3ms" to ns (def_unit when no unit); "2us-10us", "8-4096"
 * a range lo <= hi, both >= 0. 0 or -1. */
int picl_synth_time(const char *s, int64_t def_unit, int64_t *out);
int picl_synth_range(const char *s, int64_t def_unit, int64_t *lo, int64_t *hi);

#endif
