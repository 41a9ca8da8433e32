/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clockfile: the clock files `-c FILE` reads, as one table of per-loom maps.
 * Three forms, told apart by content:
 *  - weft's own clock file (JSON, doc/clock.md): per loom name an offset
 *    (ns), a drift (ppm), the reference time t_ref (local ns) and an
 *    uncertainty (ns); version 2 adds "segments", more lines each from a
 *    local time on (a piecewise clock); written by `weft sync`
 *    (clockfile_write), version 1 files still read;
 *  - ovnisync's offset table (doc/formats/ovni.md §6.2): per host the
 *    median column as a constant offset (offsets.c);
 *  - ovnisync's drift table (§6.3, header "wallclock host..."): per host a
 *    line fitted by least squares to its (time, offset) samples, the
 *    wall-clock samples mapped onto trace time by the assumption documented
 *    in doc/clock.md (offsets.c).
 * Entries match a loom by its full name (weft) or by its host name, the loom
 * name up to the first '.' (ovnisync). Nothing here knows a trace: see
 * clocksetup.h for how entries become stream corrections. */
#ifndef WEFT_CLOCKFILE_H
#define WEFT_CLOCKFILE_H

#include <stddef.h>
#include <stdint.h>

#include "clock/clock.h"
#include "util/err.h"
#include "util/macros.h"

enum clock_form { CLOCK_FORM_WEFT, CLOCK_FORM_OFFSETS, CLOCK_FORM_DRIFT };

struct clock_entry {
	char *name;           /* loom name (weft) or host name (ovnisync) */
	int by_host;          /* match loom host names instead of full names */
	struct clock_map map; /* the first segment's line */
	/* clock file v2: more segments (nseg > 1; seg[0].map is map) */
	struct clock_seg *seg;
	int nseg;
	/* ovnisync drift table: t_ref is not known until the trace is: it is
	 * the first event of the reference host's looms plus tref_rel */
	int tref_from_start;
	int64_t tref_rel;
	int64_t uncertainty;  /* ns; -1 when unknown */
	/* weft sync --bounds: the shifts of the clock its messages allow, ns
	 * (lo <= 0 <= hi, +-INFINITY: unbounded); written, never read */
	int have_bound;
	double bound_lo, bound_hi;
	int reference;        /* the table's reference host (ovnisync rank 0) */
	int nsamples;         /* drift table: rows fitted */
	int line;             /* where it was defined (JSON: index in "looms") */
	int used;
};

struct clock_table {
	char *path;
	enum clock_form form;
	struct clock_entry *ent;
	int n, cap;
};

/* Read FILE in any of the three forms. */
WEFT_MUST_CHECK int clockfile_load(struct clock_table *t, const char *path, struct weft_err *e);
WEFT_MUST_CHECK int clockfile_parse(struct clock_table *t, const char *text, size_t len, const char *path,
				    struct weft_err *e);
/* weft's JSON form only. */
WEFT_MUST_CHECK int clockfile_parse_json(struct clock_table *t, const char *text, size_t len, const char *path,
					 struct weft_err *e);
/* Write weft's JSON form to PATH (through a temporary name, then renamed).
 * `generator` and `note` are free text kept in the file (may be NULL);
 * linked[i] (may be NULL) marks entries estimated from messages. */
WEFT_MUST_CHECK int clockfile_write(const struct clock_table *t, const char *path, const char *generator,
				    const int *linked, struct weft_err *e);
/* The entry for a loom (by full name first, then by host), or NULL. */
struct clock_entry *clockfile_find(struct clock_table *t, const char *loom, const char *host);
/* Set an entry's segments (copied; n >= 1, seg[0].from 0). */
void clockfile_set_segs(struct clock_entry *en, const struct clock_seg *seg, int n);
/* Append an entry (the name is copied); returns it. */
struct clock_entry *clockfile_add(struct clock_table *t, const char *name, int by_host);
const char *clockfile_form_name(enum clock_form f);
void clockfile_free(struct clock_table *t);

/* ovnisync's two tables (offsets.c); the file is known not to be JSON. */
WEFT_MUST_CHECK int ovnisync_parse(struct clock_table *t, const char *text, size_t len, const char *path,
				   struct weft_err *e);

#endif
