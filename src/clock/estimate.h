/* SPDX-License-Identifier: GPL-3.0-or-later */
/* estimate: clock offsets and drifts from matched messages (doc/clock.md).
 *
 * Input, one call per message: the sending and receiving loom and the send
 * and receive times on the timeline of the pass that saw them (u, v, ns).
 * Every message says the receiver's corrected clock read at least the
 * sender's plus the minimum latency L when it arrived:
 *
 *   F_r(v) >= F_s(u) + L,  F_k(x) = x + p_k + q_k (x - T0) / (T1 - T0)
 *
 * where p_k is loom k's correction at the start T0 and p_k + q_k at the end
 * T1. Per directed loom pair only the upper convex hull of the points
 * (u, u - v) can ever be binding (the classic convex-hull method: Duda et al.
 * 1987; Jezequel 1989; see doc/clock.md), so memory is a hull plus a small buffer
 * per pair, whatever the number of messages. est_solve() then takes, per set
 * of looms linked by messages (a component), one reference loom (p = q = 0:
 * it keeps its given clock) and solves a linear program over every hull
 * vertex of the component: maximise the smallest slack F_r(v) - F_s(u) - L
 * (the line farthest from every bound: with messages both ways it lies
 * halfway between the tightest bounds, and a one-way cycle shares its total
 * latency out evenly). It also bounds each loom's correction at T0 and T1
 * (min and max over all lines that leave no message received before it was
 * sent), reported as the estimate's uncertainty. A component whose messages
 * bound it from one side only (an unbounded program) gets the smallest
 * correction that leaves no violation instead. */
#ifndef WEFT_ESTIMATE_H
#define WEFT_ESTIMATE_H

#include <stdint.h>

#include "util/err.h"

struct est_pt {
	int64_t u, v;
};

struct est_link; /* one directed pair of looms: its hull */

struct estimator {
	int nlooms;
	int64_t min_latency;  /* L, ns */
	struct est_link *links; /* hash by (from, to) */
	struct est_link *last;  /* the last link used (messages come in runs) */
	uint64_t nmsg, nviol, nself;
	uint64_t hull_points;   /* vertices kept, all links */
};

enum est_status {
	EST_UNLINKED = 0,  /* no message to or from another loom: keeps its clock */
	EST_REFERENCE,     /* its component's reference: keeps its clock */
	EST_ESTIMATED,     /* bounded on both sides */
	EST_ONE_SIDED,     /* its component is bounded from one side only */
	EST_INCONSISTENT   /* no line clock removes every violation */
};

struct est_loom {
	enum est_status status;
	int component, reference;   /* reference: the loom index of its reference */
	double p, q;                /* correction at T0, change from T0 to T1 (ns) */
	double lo0, hi0, lo1, hi1;  /* bounds of the correction at T0 and at T1 */
	int bounded;                /* the four bounds are finite */
	uint64_t nmsg;              /* messages to or from other looms */
};

struct est_result {
	int64_t t0, t1;
	struct est_loom *loom;      /* nlooms */
	int ncomponents;
	double min_slack;           /* smallest F_r(v) - F_s(u) - L over all hull vertices */
	uint64_t nlinks, nconstraints;
};

void est_init(struct estimator *x, int nlooms, int64_t min_latency);
void est_add(struct estimator *x, int from, int to, int64_t u, int64_t v);
/* Solve over the span [t0, t1] (t1 > t0). */
int est_solve(struct estimator *x, int64_t t0, int64_t t1, struct est_result *r, struct weft_err *e);
/* Receive-before-send pairs left among the hull vertices under the result
 * (0 means none among all messages, up to the hulls' approximation). */
uint64_t est_check(const struct estimator *x, const struct est_result *r);
void est_result_free(struct est_result *r);
void est_free(struct estimator *x);

#endif
