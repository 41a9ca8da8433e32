/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prvcheck: validate a Paraver trace (.prv or .prv.gz, with its .pcf and
 * .row) the way paraver-kernel reads it, plus the checks the reader skips
 * (per-thread time order, overlapping states, times beyond FTIME, labels).
 * Format notes: doc/formats/paraver.md §2-8.
 * Implemented in src/check/check_*.c, one file per job (check_int.h lists
 * them), apart from the writer and reader of src/prv.
 *
 * The header is called prvcheck.h, not check.h: a check.h would be easy to
 * take for the Check unit-test framework's <check.h>.
 *
 * Problems go to a callback, one call each, with the file, the 1-based line
 * (0 when the problem is about the whole file) and a message naming the
 * record and what was expected versus found. Memory is bounded by the objects
 * the header declares (at most 65,535 per level) and by the distinct labels
 * and unlabelled types/values seen, never by the number of records.
 *
 * Use, streaming:
 *   c = prvchk_new("x.prv", &opts);
 *   prvchk_pcf(c, "x.pcf", pcf, pcf_len);     before the body: labels are
 *                                             checked record by record
 *   prvchk_feed(c, bytes, n); ...             the .prv in pieces of any size
 *   prvchk_end(c);                            end of the .prv
 *   prvchk_row(c, "x.row", row, row_len);     needs the header's counts
 *   prvchk_finish(c, &stats); prvchk_free(c);
 * or prvchk_file() for all of it from a path. */
#ifndef WEFT_PRVCHECK_H
#define WEFT_PRVCHECK_H

#include <stddef.h>
#include <stdint.h>

enum prvchk_level { PRVCHK_ERROR = 0, PRVCHK_WARNING = 1 };

struct prvchk_problem {
	enum prvchk_level level;
	const char *file; /* the file the problem is in */
	uint64_t line;    /* 1-based; 0 = about the whole file */
	const char *msg;  /* valid during the callback only */
};

typedef void (*prvchk_report_fn)(void *ctx, const struct prvchk_problem *p);

struct prvchk_opts {
	prvchk_report_fn report; /* NULL: problems are only counted */
	void *ctx;
	/* Errors (and, separately, warnings) passed to report(); later ones are
	 * only counted, without formatting. 0 = no limit. */
	uint64_t max_reports;
};

struct prvchk_stats {
	uint64_t lines;      /* lines of the .prv, header included */
	uint64_t records;    /* state + event + communication + global op */
	uint64_t states, events, pairs, comms, globalops, comments;
	int header_ok;       /* the header parsed; the counts below are valid */
	uint64_t ftime;
	const char *unit;    /* "ns", "us" or "ms" (as the reader takes it) */
	uint32_t nappl, ntasks, nthreads, nnodes, ncpus; /* nnodes 0: RESOURCES 0 */
	uint64_t ncomm;      /* communicator lines declared */
	uint64_t errors, warnings;
};

struct prvchk;

/* `name` is the .prv file name used in messages (copied). */
struct prvchk *prvchk_new(const char *name, const struct prvchk_opts *o);
void prvchk_free(struct prvchk *c);

/* The .pcf text (need not be NUL-terminated). Call before the body. */
void prvchk_pcf(struct prvchk *c, const char *name, const void *data, size_t len);
/* Bytes of the .prv, in order, split anywhere. */
void prvchk_feed(struct prvchk *c, const void *data, size_t len);
/* End of the .prv: checks what needs the whole body. */
void prvchk_end(struct prvchk *c);
/* The .row text; call after prvchk_end(). */
void prvchk_row(struct prvchk *c, const char *name, const void *data, size_t len);
/* Report an input problem found outside the checker (a missing file, a
 * read error), counted like the others. line 0 = whole file. */
void prvchk_report(struct prvchk *c, enum prvchk_level level, const char *file, uint64_t line,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Cross-checks labels against the body and fills `st` (may be NULL). */
void prvchk_finish(struct prvchk *c, struct prvchk_stats *st);

/* Check PATH (X.prv or X.prv.gz) with X.pcf and X.row beside it: mmap for
 * .prv, zlib streaming for .prv.gz. Returns 0 when there is no error (there
 * may be warnings), 1 otherwise; `st` may be NULL. */
int prvchk_file(const char *path, const struct prvchk_opts *o, struct prvchk_stats *st);

#endif
