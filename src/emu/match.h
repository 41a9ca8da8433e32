/* SPDX-License-Identifier: GPL-3.0-or-later */
/* match: messages matched by key (source, destination, type), FIFO per
 * key, in one run's order, for a model whose two ends of a message may
 * fall on different looms (msg: PICL processors are looms). The model
 * gives emu each end; emu pairs them, patches the communication record
 * (emu_comm_recv) and tells pairs.h (emu_pair). A send finds the oldest
 * receive waiting on its key or waits, and a receive alike; at most
 * MATCH_PENDING_CAP ends wait (beyond, a send is dropped and a receive
 * only counted). In one run it matches at once. A -j worker (e->part.match_defer)
 * instead queues each end as a side op (MATCH_OP_SEND/RECV) for the merger, whose
 * matcher runs in one run's order on the main run and writes the records
 * itself (jobs.c): the model cannot tell the difference. */
#ifndef WEFT_MATCH_H
#define WEFT_MATCH_H

#include <stdint.h>

#include "emu/keys.h"
#include "prv/prv_writer.h"

struct emu;
struct emu_thread;

#define MATCH_PENDING_CAP 1000000

/* The -j workers' side messages to their merger (par/jobs_pairs.c): op
 * kinds of their own on the Paraver pipe, which carries them unread
 * (PRV_OP_SIDE), never written.
 * SEND: a message end to match; row = sender, value = its comm id; ARGs
 *   src << 32 | dst, tag, the time. RECV: row = receiver; ARGs src << 32 |
 *   dst, tag, lrecv, the time.
 * TEXT_PUNCT, TEXT_NAME: a text-named value; its bytes in the ARG ops
 *   before (8 each); value = model << 56 | table << 40 | length.
 *   TEXT_PUNCT: a punctual event (row, slot) of the text's value;
 *   TEXT_NAME: the ARG before the bytes is the value it names. */
enum match_op {
	MATCH_OP_SEND = PRV_OP_SIDE,
	MATCH_OP_RECV,
	MATCH_OP_TEXT_PUNCT,
	MATCH_OP_TEXT_NAME,
};

struct emu_match {
	struct keytab keys;
	uint64_t npending, noverflow;
	/* a matched receive and a dropped send go to the output through
	 * these (NULL: emu_comm_recv and emu_comm_drop of the run); `now` is
	 * the time of the event that matched */
	void (*recv)(void *arg, uint64_t id, const struct emu_thread *to, uint64_t lrecv, uint64_t precv,
		     uint64_t now);
	void (*drop)(void *arg, uint64_t id);
	void *arg;
};

/* A send from thread t (its comm id, from emu_comm_send) or a receive by t
 * (lrecv: when it was posted; the receive is e->run.now), on key (src, dst,
 * tag). */
void emu_match_send(struct emu *e, struct emu_thread *t, int32_t src, int32_t dst, int32_t tag, uint64_t id);
void emu_match_recv(struct emu *e, struct emu_thread *t, int32_t src, int32_t dst, int32_t tag, uint64_t lrecv);
/* The ends as the merger sees them: `now` given, not e->run.now. */
void match_send_at(struct emu *e, const struct emu_thread *t, int32_t src, int32_t dst, int32_t tag, uint64_t id,
		   uint64_t now);
void match_recv_at(struct emu *e, const struct emu_thread *t, int32_t src, int32_t dst, int32_t tag,
		   uint64_t lrecv, uint64_t now);
/* A value a model names by a text, in one run's numbering (texts.h): one
 * run asks the model's hooks at once; a -j worker sends the text to the
 * merger (MATCH_OP_TEXT_*), which asks the main run's model. text_punct
 * writes the value as a punctual event of thread t on thread.prv's `slot`;
 * text_name names `value` by s. */
void emu_text_punct(struct emu *e, const struct emu_thread *t, int slot, char model, int table, const char *s);
void emu_text_name(struct emu *e, char model, int table, int64_t value, const char *s);

/* The run's end: unmatched sends dropped (oldest first), a warning per key
 * with ends waiting (the first `nkeys`, in first-seen order) unless quiet,
 * the totals. */
/* `name` (NULL: "processor N") names an end's key in the reports. */
void emu_match_finish(struct emu *e, int nkeys, void (*name)(const struct emu *e, int32_t end, char *buf, int n));
void emu_match_free(struct emu *e);

#endif
