/* SPDX-License-Identifier: GPL-3.0-or-later */
/* or-branch model (R): the or-parallel (Aurora, MUSE) and Andorra-I events
 * of a VisAndOr log (doc/formats/legacy.md §6.4, items 7-9). Private to the model
 * folder; doc/models/orbranch.md lists every event, state, type and check. */
#ifndef WEFT_ORBRANCH_H
#define WEFT_ORBRANCH_H

#include "emu/emu.h"
#include "util/strbuf.h"
#include "util/macros.h"

/* Paraver state values (thread.prv) */
enum { OB_ST_RUNNING = 20, OB_ST_SLAVE = 21, OB_ST_IDLE = 22 };

/* Paraver event types, thread.prv */
enum {
	OB_T_NODE = 1020,    /* current or-node (dense id from 1) */
	OB_T_BRANCH = 1021,  /* branch number + 1 */
	OB_T_OUTCOME = 1022, /* punctual: 1 success 2 fail 3 suspend 4 cut 5 leaf-cut */
	OB_T_OPEN = 1023,    /* public nodes this agent made that are still open */
	OB_T_ACTIVE = 1024,  /* AGENT_BUSY (1) / AGENT_IDLE (2) in an OR log */
	OB_T_NACT = 1025,    /* their field 4 */
	OB_T_WAM = 1026,     /* WAM id */
	OB_T_OTHER = 1027,   /* other event codes (punctual) */
	OB_T_AGENT = 1028,   /* cpu.prv: the agent of the CPU, + 1 */
};

WEFT_MUST_CHECK int orb_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
WEFT_MUST_CHECK int orb_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
void orb_free(struct emu *e, const struct weft_model_def *self);

WEFT_MUST_CHECK int orb_time(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int orb_public(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int orb_branch(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int orb_busy(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int orb_active(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int orb_wam(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int orb_other(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);

#endif
