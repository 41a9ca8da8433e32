/* SPDX-License-Identifier: GPL-3.0-or-later */
/* msg model (X): PICL's message-passing view (doc/formats/legacy.md §2-5).
 * Private to the model folder. The PICL importer writes, per processor
 * thread, entries, exits and marks of PICL event types with up to three
 * integer data fields (the ones the model needs: length, message type,
 * partner, or a request id); the model turns them into thread states, punctual
 * events and matched communication records. */
#ifndef WEFT_MSG_H
#define WEFT_MSG_H

#include "emu/emu.h"
#include "util/strbuf.h"
#include "util/macros.h"

/* Paraver state values (30-49). */
enum {
	MSG_RUNNING = 30, MSG_SENDING, MSG_RECEIVING, MSG_WAITING, MSG_PROBING, MSG_SYNC,
	MSG_CLOCKSYNC, MSG_IDLE, MSG_OVERHEAD, MSG_TRACING
};

/* Paraver event types (1040-1069), thread.prv. */
enum {
	MSG_T_CALL = 1040,  /* PICL event type of the innermost open call, negated */
	MSG_T_SEND_SIZE = 1041, MSG_T_SEND_TAG = 1042, MSG_T_SEND_TO = 1043,
	MSG_T_RECV_SIZE = 1044, MSG_T_RECV_TAG = 1045, MSG_T_RECV_FROM = 1046,
	MSG_T_MARK = 1047,  /* PICL mark, event type negated (user types: type + 1) */
	/* 1048-1050: unused (PICL file I/O is in the fileio model) */
	MSG_T_USER_REC = 1051, /* user record: record type + 1 */
	MSG_T_USER_VAL = 1052, /* its first data field, in 10^-9 units */
	MSG_T_MESSAGE = 1053,  /* -7 message: its text's value (.pcf) */
	MSG_T_USER_TEXT = 1054, /* user record data that is no number: its text's value */
	MSG_T_SUBSET = 1055    /* 1055-1057: processor, process, event type subset defined: -id */
};

/* weft stats operations of kept records (msg_op_label): PICL's record types
 * for messages and subsets; user record type R is MSG_OP_USER_REC - R. */
enum { MSG_OP_MESSAGE = -7, MSG_OP_USER_REC = -100000 };

WEFT_MUST_CHECK int msg_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
WEFT_MUST_CHECK int msg_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
void msg_free(struct emu *e, const struct weft_model_def *self);

WEFT_MUST_CHECK int msg_entry(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int msg_exit(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int msg_mark(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int msg_partner(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int msg_call_mark(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
				  struct weft_err *err);
WEFT_MUST_CHECK int msg_user(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int msg_stat(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int msg_text(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int msg_subset(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
void msg_op_label(const struct emu *e, int thread, int32_t op, char *buf, int n);
int64_t msg_text_value(struct emu *e, int table, const char *s);
void msg_text_name(struct emu *e, int table, int64_t value, const char *s);
void msg_save(const struct emu *e, struct strbuf *b);
int msg_load(struct emu *e, const char *line);

/* stats.c: the statistics records (msg_stat) and the subsets they may
 * name. */
struct msg_stats;
struct msg_stats *msg_stats_new(void);
void msg_stats_free(struct msg_stats *s);
/* A subset (kind 0 processors, 1 processes, 2 event types) defined with
 * its members as text. */
void msg_stats_subset(struct msg_stats *s, int kind, int32_t id, const char *members);
struct msg_stats *msg_stats_of(struct emu *e);
/* A thread's PICL processor and process (-1: the row holds every process
 * of its processor): its stream.json's picl.processor and picl.process,
 * else tid - 1 and -1. */
void msg_thread_ids(const struct emu_thread *t, int32_t *proc, int32_t *process);
/* The name of event type `op` when it is a set ("send events"), else "". */
void msg_set_label(const struct emu *e, int32_t op, char *buf, int n);

/* State value of a PICL system event type (0 if it has none). */
int msg_state_of(int type);

#endif
