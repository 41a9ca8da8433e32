/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pairs: matched messages, as models report them (the generic hook).
 * Any model that pairs a send with a receive calls emu_pair() with the two
 * threads and the times of the send (when the message left at the earliest)
 * and of the receive (when it had arrived at the latest). emu counts the
 * pairs received before they were sent (count, worst case, the first few)
 * and reports them at the end of the run; an observer (weft sync's
 * estimator) may see every pair. Data flows one way: the model tells emu,
 * emu tells the observer; neither calls back into the model. */
#ifndef WEFT_PAIRS_H
#define WEFT_PAIRS_H

#include <stdint.h>

struct emu;
struct emu_thread;

#define PAIRS_FIRST 3

struct emu_pair {
	const struct emu_thread *from, *to;
	uint64_t send, recv; /* global times (the merge's corrected clocks), ns */
};

struct pair_stats {
	uint64_t n;          /* pairs seen */
	uint64_t nviol;      /* received before sent */
	uint64_t worst;      /* largest send - recv, ns */
	struct emu_pair worst_pair;
	struct emu_pair first[PAIRS_FIRST];
	/* the observer, called for every pair */
	void (*observer)(void *arg, const struct emu *e, const struct emu_pair *p);
	void *arg;
};

/* A model matched a message: send and receive times are e->run.now values
 * (ns from the first event) of the two ends. */
void emu_pair(struct emu *e, const struct emu_thread *from, const struct emu_thread *to, uint64_t send_now,
	      uint64_t recv_now);
/* Warn about the receive-before-send pairs of the run (nothing when none). */
void emu_pairs_report(const struct emu *e);

#endif
