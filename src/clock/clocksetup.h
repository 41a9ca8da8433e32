/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clocksetup: the clock stage of a run. Before the merge starts, every
 * stream of an opened trace gets its correction (stream.h: offset, drift,
 * tref), so the merge, the models and the sinks see global time only:
 *
 *   time = loom_map(clock) + input_shift
 *
 * loom_map is the loom's line (or segments) from a clock table
 * (clockfile.h): -c FILE, or else the clock file `weft sync` wrote (with
 * sync_file), or else each ovni input's own clock-offsets.txt, or a table
 * in memory (the estimate of `weft sync`); looms without an entry keep
 * their raw clock.
 * input_shift aligns several inputs: inputs whose clocks are absolute (ovni,
 * CHARISMA's start date) by their absolute start, the others start with the
 * earliest; --align adds a signed amount to one input; a common bias keeps
 * every first event at a time >= 0. The maps and shifts are kept in the
 * trace (loom_clock, input_shift) for `weft sync` to compose with. */
#ifndef WEFT_CLOCKSETUP_H
#define WEFT_CLOCKSETUP_H

#include "clock/clockfile.h"
#include "trace/trace.h"
#include "util/macros.h"

struct clock_align {
	char input[1024];   /* the path as given, or its position from 1 */
	int64_t shift;      /* ns added to the input's times */
};

struct clock_opts {
	const char *file;                /* -c FILE (then it must exist) */
	int no_files;                    /* --sync=none: no table, not even TRACE's own */
	const struct clock_table *table; /* a table in memory, used instead of any file */
	const struct clock_align *align;
	int nalign;
	int quiet;                       /* no warnings about unmatched entries */
	int gate;                        /* no table applied: refuse looms hours apart */
	/* without -c: the clock file `weft sync` wrote for the first input
	 * (clock_sync_path), if there is one, instead of the inputs' own
	 * tables; a note on stderr says so unless quiet */
	int sync_file;
	int say; /* print that note */
};

/* Is there such a file for the trace's first input? */
int clock_sync_exists(const struct weft_trace *t);

/* Where `weft sync` writes its clock file for an input by default:
 * INPUT/clock.json for a directory, INPUT.clock.json for a log (a new
 * string). */
char *clock_sync_path(const char *input);

WEFT_MUST_CHECK int clock_setup(struct weft_trace *t, const struct clock_opts *o, struct weft_err *e);

/* Parse "INPUT=OFFSET" (OFFSET an integer with an optional unit ns, us, ms,
 * s; signed). Returns 0, or -1 with a usage message in `why`. */
int clock_parse_align(const char *arg, struct clock_align *a, char *why, int n);

/* Parse a signed duration "12", "-3.5ms", "2us" into ns; -1 when malformed. */
int clock_parse_duration(const char *s, int64_t *ns);

#endif
