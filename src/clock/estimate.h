/* SPDX-License-Identifier: GPL-3.0-or-later */
/* estimate: piecewise clock corrections from matched messages (doc/clock.md).
 *
 * Input, one call per message: the sending and receiving loom and the send
 * and receive times on the timeline of the pass that saw them (u, v, ns).
 * A message says the receiver's corrected clock read at least the sender's
 * plus the minimum latency when it arrived:
 *
 *   c_r(v) - c_s(u) >= (u - v) + L      (F_k(x) = x + c_k(x))
 *
 * Memory is fixed per directed loom pair, whatever the number of messages:
 * est_add() keeps, per pair, B time bins (B from the number of looms) and in
 * each the message with the largest u - v once the pair's running trend is
 * taken off (the tightest bound of the bin: the one of least latency); the
 * bins double in width when the run outgrows them. est_solve() then
 *  1. fits every loom's correction as a continuous piecewise-linear function
 *     on a grid of B intervals, by weighted least squares over the bins'
 *     points with the equal-latency model c_r(v) - c_s(u) - D = u - v (one D
 *     per linked component: messages both ways put each line halfway between
 *     its bounds, a one-way cycle shares its latency out evenly; conjugate
 *     gradients, cost O(points x iterations));
 *  2. finds, per loom, where that function leaves a line (binary
 *     segmentation: a split is kept when two lines fit better than one by
 *     more than the noise and by at least EST_BREAK_NS): rate changes and
 *     steps;
 *  3. fits one line per segment (the same least squares, points near a
 *     break left out), and places each break where the two lines meet when
 *     they meet near it (a rate change), or else marks it for est_locate()
 *     (a step): a second pass over the same messages (est_locate_add) puts
 *     it where the fewest bounds are crossed.
 * Receive-before-send pairs that remain are for the repair (repair.h). */
#ifndef WEFT_ESTIMATE_H
#define WEFT_ESTIMATE_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

#define EST_SEG_MAX 12 /* segments per loom */
#define EST_BREAK_NS 5000.0 /* smallest departure from a line taken as a break */

struct est_link; /* one directed pair of looms: its bins */

struct estimator {
	int nlooms;
	int64_t min_latency;  /* L, ns */
	int64_t origin; /* bins count from here (the pass's first time) */
	int nbins; /* B */
	struct est_link *links; /* hash by (from, to) */
	struct est_link *last;  /* the last link used (messages come in runs) */
	uint64_t nmsg, nviol, nself;
	uint64_t nlinks;
	struct est_change *chg; /* breaks to locate (after est_solve) */
	int nchg;
	const struct est_result *res;
};

enum est_status {
	EST_UNLINKED = 0, /* no message to or from another loom: keeps its clock */
	EST_REFERENCE, /* its component's reference: keeps its clock */
	EST_ESTIMATED, /* bounded on both sides */
	EST_ONE_SIDED, /* its component is bounded from one side only */
	EST_INCONSISTENT /* unused since the least-squares fit: kept for the names */
};

/* On [from, next from): c(T) = p + q (T - from), T the pass's time. */
struct est_seg {
	int64_t from;
	double p, q;
};

struct est_loom {
	enum est_status status;
	int component, reference;   /* reference: the loom index of its reference */
	int nseg;
	struct est_seg seg[EST_SEG_MAX];
	int located; /* breaks placed by est_locate */
	double scatter; /* rms of its points' residuals (ns): the fit's noise */
	uint64_t nmsg;              /* messages to or from other looms */
};

struct est_result {
	int64_t t0, t1;
	struct est_loom *loom;      /* nlooms */
	double *latency; /* per component: the fitted D */
	int ncomponents;
	uint64_t nlinks, npoints; /* pairs, bin points fitted */
	int cg_iters; /* of the largest fit */
	int nbreaks, nlocate; /* breaks found; of them, to locate */
};

void est_init(struct estimator *x, int nlooms, int64_t min_latency, int64_t origin);
void est_add(struct estimator *x, int from, int to, int64_t u, int64_t v);
/* Solve over the span [t0, t1] (t1 > t0). */
WEFT_MUST_CHECK int est_solve(struct estimator *x, int64_t t0, int64_t t1, struct est_result *r, struct weft_err *e);
/* The correction of loom k at time T under the result. */
double est_eval(const struct est_result *r, int k, int64_t t);
/* The second pass for the breaks est_solve could not place (r->nlocate > 0):
 * every message again, then est_locate_finish() moves the breaks. */
void est_locate_add(struct estimator *x, int from, int to, int64_t u, int64_t v);
void est_locate_finish(struct estimator *x, struct est_result *r);
void est_result_free(struct est_result *r);
void est_free(struct estimator *x);

#endif
