/* SPDX-License-Identifier: GPL-3.0-or-later */
/* msg_int: the msg model's state, shared by its files (model.c: calls,
 * messages, states; kept.c: the records kept beside the timeline; stats.c
 * uses none of it). Private to the model folder. */
#ifndef WEFT_MSG_INT_H
#define WEFT_MSG_INT_H

#include "msg/msg.h"
#include "texts.h"

#define STACK_MAX 256
#define REPORT_KEYS 20
#define MAX_CALL_TYPE 914 /* state_of covers PICL event types -914..0 */

/* The comm ids a send call posted: one inline, a broadcast's in `ids`. */
struct posted {
	uint64_t one;
	uint64_t *ids; /* NULL: just `one` (when n is 1) */
	int n;
};

struct call {
	int32_t type;
	int32_t a, b, c;
	uint64_t time;
	struct posted sent;
	uint8_t st; /* its state (msg_state_of), 0 if none */
};

struct req { /* a non-blocking call's request id */
	int32_t id;
	uint64_t time; /* receives: the posting time */
	struct posted sent; /* sends: the comms it posted */
};

/* The thread.prv values the model wrote last, per slot (the writer drops a
 * value equal to the last: the model does not send it). */
enum { V_CALL, V_SSIZE, V_STAG, V_STO, V_RSIZE, V_RTAG, V_RFROM, V_MARK, V_USER, NV };

struct mthread {
	/* read on every event: together at the start */
	int n; /* calls open */
	int clear; /* punctual values to reset at the next event of a later time */
	uint64_t clear_at; /* the time they were shown */
	uint32_t shown_state; /* the state last given to emu */
	int32_t proc; /* PICL processor id (tid - 1, or its stream.json's) */
	int32_t ep; /* its end in message keys: proc, or a row's own (split processors) */
	int32_t peer_process; /* XP.: the partner process of the next message, -1 none */
	int64_t shown[NV];
	struct req *sreq, *rreq; /* outstanding request ids, FIFO */
	int nsreq, nrreq, csreq, crreq;
	struct call stack[STACK_MAX] __attribute__((aligned(64)));
};

/* A row of one process of a processor shown as a row per process (doc/
 * models/msg.md, "Processes"): its end in message keys is its own. */
struct msg_row {
	int32_t proc, process, ep;
};

struct mstate {
	struct mthread *th; /* by stream index */
	struct emu_thread **by_proc_v;
	int32_t *by_proc_k; /* their ends */
	int32_t *by_proc_p; /* their processors */
	int nproc;
	struct msg_row *rows; /* rows of one process, in thread order */
	int nrows;

	int slot[NV];
	uint8_t state_of[MAX_CALL_TYPE + 1]; /* by -type */
	/* kept records: their punctual types and the texts that name values */
	int kslot[4 + 2]; /* MSG_T_USER_VAL .. MSG_T_SUBSET + 2 */
	unsigned kseen; /* bit k: kslot[k] written (its .pcf block is due) */
	struct texts msgs, utexts, subs[3];
	struct msg_stats *stats;
};

static inline struct mstate *ms(struct emu *e)
{
	return e->models.state[mcv_index('X')];
}

/* Value v of slot k on t's row, when it changes. */
static inline void out(struct emu *e, struct emu_thread *t, struct mthread *x, int k, int64_t v)
{
	if (x->shown[k] != v) {
		x->shown[k] = v;
		emu_out(e, EMU_THREAD_FILE, t->row, ms(e)->slot[k], v);
	}
}
/* x->clear: 1 the punctual values of a receive, mark or user record are
 * shown; 2 those of a send mark too. They are reset at the row's next event
 * of a later time: reset at the same instant, Paraver would show 0 there
 * (a header record at the time of the row's first record was invisible). */
static inline void punctual_reset(struct emu *e, struct emu_thread *t, struct mthread *x)
{
	if (!x->clear || e->run.now == x->clear_at)
		return;
	for (int k = x->clear == 2 ? V_SSIZE : V_RSIZE; k <= V_USER; k++)
		out(e, t, x, k, 0);
	x->clear = 0;
}

/* Punctual values of level `level` (see punctual_reset) shown now. */
static inline void punctual_shown(struct emu *e, struct mthread *x, int level)
{
	if (x->clear < level)
		x->clear = level;
	x->clear_at = e->run.now;
}

#endif
