/* SPDX-License-Identifier: GPL-3.0-or-later */
/* and-fork/join model (A): the and-parallel events of a VisAndOr log
 * (doc/formats/legacy.md §6.4, item 8). Private to the model folder: the handlers its
 * event table names and the hooks the emulator calls. doc/models/andfork.md
 * lists every event, state, Paraver type and check. */
#ifndef WEFT_ANDFORK_H
#define WEFT_ANDFORK_H

#include "emu/emu.h"
#include "util/strbuf.h"
#include "util/macros.h"

/* Paraver state values (thread.prv) */
enum { AF_ST_RUNNING = 10, AF_ST_WAITING = 11, AF_ST_IDLE = 12 };

/* Paraver event types, thread.prv */
enum {
	AF_T_NODE = 1000,   /* current and-node (dense id from 1) */
	AF_T_TASK = 1001,   /* task number + 1 */
	AF_T_DEPTH = 1002,  /* nesting depth (root goal 1) */
	AF_T_ACTIVE = 1003, /* AGENT_BUSY (1) / AGENT_IDLE (2) */
	AF_T_NACT = 1004,   /* field 4 of AGENT_BUSY/AGENT_IDLE */
	AF_T_WAM = 1005,    /* WAM id */
	AF_T_OTHER = 1006,  /* other event codes (punctual) */
	AF_T_AGENT = 1007,  /* cpu.prv: the agent of the CPU, + 1 */
};

WEFT_MUST_CHECK int af_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
WEFT_MUST_CHECK int af_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
void af_free(struct emu *e, const struct weft_model_def *self);

WEFT_MUST_CHECK int af_time(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int af_fork(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int af_start(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int af_finish_goal(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
				   struct weft_err *err);
WEFT_MUST_CHECK int af_join(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int af_busy(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int af_wam(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int af_other(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);

#endif
