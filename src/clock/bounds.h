/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bounds: how far each loom's corrected clock can be shifted, its
 * component's reference fixed and every other loom shifted as it needs,
 * before a message is received before it was sent (weft sync --bounds).
 * A pass with the final clocks gives every message s -> r its slack
 * sigma = recv - send - L (global times; a slack below 0, a violation left,
 * counts as 0). Constant shifts d of the looms keep every message iff
 * d_s - d_r <= sigma for each: difference constraints, whose largest d_k
 * is the shortest path from the reference to k over edges r -> s weighted
 * by the pair's least slack, and whose smallest d_k is minus the shortest
 * path from k to the reference (Dijkstra: no weight is negative). A side
 * no path bounds is unbounded (a loom only sent to, or only received
 * from). The bounds are of a constant shift over the whole run: a clock
 * bent inside them may still contradict a message.
 * Memory: one entry per directed pair that exchanges messages; time: O(1)
 * per message, O(pairs log looms) per component to solve. */
#ifndef WEFT_BOUNDS_H
#define WEFT_BOUNDS_H

#include <stdint.h>

struct bounds_pair;

struct bounds {
	int nlooms;
	int64_t min_latency;
	struct bounds_pair *pairs; /* by (from, to) */
	struct bounds_pair *last; /* the pair of the last message */
	uint64_t nmsg, nneg; /* messages of this pass; of them, of negative slack */
};

void bounds_init(struct bounds *b, int nlooms, int64_t min_latency);
/* Before a pass: forget the slacks of the last one. */
void bounds_reset(struct bounds *b);
/* A matched message between looms (global times of the pass). */
void bounds_add(struct bounds *b, int from, int to, uint64_t send, uint64_t recv);
/* lo[k] <= 0 <= hi[k], ns, for every loom k of reference ref[k] (a loom
 * index; ref[k] < 0 or ref[k] == k: lo = hi = 0); -INFINITY / INFINITY
 * where no message bounds that side. */
void bounds_solve(const struct bounds *b, const int *ref, double *lo, double *hi);
void bounds_free(struct bounds *b);

#endif
