/* SPDX-License-Identifier: GPL-3.0-or-later */
/* repair: a controlled-logical-clock pass (Becker, Rabenseifner, Wolf,
 * Linford 2009) for the receive-before-send pairs the estimate leaves.
 * Every such receive (at r, its send at s, the minimum latency L) asks its
 * loom's clock to read at least s + L there: it is moved forward by
 * d = s + L - r, and the move is amortized at a rate of at most `gamma`
 * both ways: later events of the loom by d - gamma (t - r) (forward
 * amortization), earlier ones by d - gamma (r - t) (backward amortization),
 * so no local interval stretches or shrinks by more than gamma and the
 * order of each loom's events is kept. The moves of one loom are the upper
 * envelope of these tents: a piecewise-linear addition to its clock
 * (piecewise.h), kept as at most REPAIR_MAX tents per loom (a tent that
 * another covers is dropped; beyond the limit the smallest are merged into
 * their neighbour). Moving a loom's earlier events may make one of its
 * sends late for its receiver: the caller runs the pass again until none
 * is left (sync.h); every round's tents are over the same estimated clocks. */
#ifndef WEFT_REPAIR_H
#define WEFT_REPAIR_H

#include <stdint.h>

#include "clock/piecewise.h"

#define REPAIR_GAMMA 0.009 /* local intervals change by at most 0.9 % */
#define REPAIR_MAX 65536 /* tents per loom */

struct repair_tent {
	uint64_t t;
	double d;
};

struct repair_loom {
	struct repair_tent *tent;
	int n, cap;
	int nsorted; /* tent[0..nsorted) sorted and tidy: the moves of the rounds before */
};

struct repair {
	int nlooms;
	int64_t min_latency;
	double gamma;
	struct repair_loom *loom;
	uint64_t nviol; /* late receives of this round */
	double largest; /* the largest move, ns */
};

void repair_init(struct repair *r, int nlooms, int64_t min_latency);
/* A matched message (global times of a pass whose clocks have the moves of
 * the rounds before): a late receive adds a tent as high as the move there
 * so far plus what it lacks, so the moves of all rounds stay one envelope
 * (slopes within gamma) over the estimated clocks. */
void repair_add(struct repair *r, int to, uint64_t send, uint64_t recv);
/* The end of a round: its tents join the envelope; nviol restarts. */
void repair_round(struct repair *r);
/* Loom k's moves as points of a piecewise-linear function (arrays owned by
 * the caller; the times shifted by -shift into the clock's domain). */
void repair_moves(struct repair *r, int k, int64_t shift, uint64_t **at, double **value, int *n);
/* The move of loom k at time t (of the rounds before). */
double repair_move_at(const struct repair *r, int k, uint64_t t);
void repair_free(struct repair *r);

#endif
