/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sync: clock estimation from a run's matched messages (weft sync,
 * weft emu --sync=messages). One pass of emu without outputs feeds every
 * pair the models report (pairs.h) to the estimator (estimate.h), on the
 * timeline of the given clocks (-c FILE or the trace's own table); the
 * solution is composed with those clocks into a table of per-loom maps in
 * memory (clockfile.h), every loom listed: linked looms with their
 * estimate, the others with the clock they were given. The opened trace is
 * kept in the result (sync_result.tr) so the next pass does not convert a
 * log again. */
#ifndef WEFT_SYNC_H
#define WEFT_SYNC_H

#include "clock/clockfile.h"
#include "emu/emu.h"
#include "clock/estimate.h"
#include "util/macros.h"

struct sync_loom {
	const char *name;
	enum est_status status;
	int reference;              /* loom index of its component's reference */
	int64_t given0, given1;     /* correction at the start and end before (ns) */
	int64_t corr0, corr1;       /* correction at the start and end after (ns) */
	double scatter; /* rms residual of its points (ns) */
	double lo, hi; /* --bounds (bounds.h): the shifts its messages allow, ns */
	int nseg; /* segments of its estimate */
	uint64_t nmsg;
};

struct sync_result {
	struct clock_table table;   /* one entry per loom, by name */
	int *linked;                /* per entry: estimated from messages */
	struct sync_loom *loom;     /* by loom gindex */
	int nlooms;
	uint64_t nmsg, nviol_before, npairs;
	uint64_t nlinks, nvertices;
	int ncomponents, nbreaks, nlocated, cg_iters;
	/* the repair (sync_repair) */
	int rounds;
	uint64_t moved; /* late receives moved forward, all rounds */
	double largest; /* the largest move, ns */
	uint64_t nviol_after;
	int have_bounds; /* lo, hi of every loom are set */
	uint64_t nneg; /* --bounds: messages late in the last pass (slack 0) */
	uint64_t t0, t1;            /* the span (global times of the first pass) */
	const char *trace; /* as given (borrowed) */
	struct weft_trace tr;       /* the opened inputs, rewound by the next pass */
	int have_tr;
};

/* The first pass. `o` are the emulation options (inputs, clock file, import
 * options); outputs are never written. */
WEFT_MUST_CHECK int sync_estimate(const char *trace, const struct emu_opts *o, int64_t min_latency,
				  struct sync_result *r, struct weft_err *err);
/* The repair (repair.h): passes with the table until no receive is before
 * its send + min_latency (at most max_rounds); with repair 0 one pass that
 * only counts. nviol_after gets the count of the last pass. With bounds,
 * the last pass's messages also give every loom its bounds (bounds.h:
 * sync_loom lo, hi and the table's entries). */
/* The passes read the streams with little of them resident: peak memory
 * is the estimator's, whatever the trace's length. */
#define SYNC_MAP_BUDGET (4u << 20)
#define SYNC_ROUNDS 16 /* repair passes at most */
WEFT_MUST_CHECK int sync_repair(struct sync_result *r, const struct emu_opts *o, int64_t min_latency, int repair,
				int max_rounds, int bounds, struct weft_err *err);
void sync_result_free(struct sync_result *r);

#endif
