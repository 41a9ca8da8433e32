/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni model (O): thread life cycle, CPU affinity, marks, flushes and bursts
 * (doc/models/ovni.md). Private to the model folder: the handlers
 * named by its event table and the setup/finish/labels hooks the emulator
 * calls. Paraver types and values are ovniemu's, so ovni's views work. */
#ifndef WEFT_OVNI_H
#define WEFT_OVNI_H

#include "emu/emu.h"
#include "util/strbuf.h"
#include "util/macros.h"

/* Paraver slots of the ovni model, registered in this order. */
enum { OT_AFFINITY, OT_STATE, OT_TID, OT_FLUSH, OT_MARK0 }; /* thread.prv */
enum { OC_PID, OC_TID, OC_NRUN, OC_FLUSH, OC_MARK0 };       /* cpu.prv */

WEFT_MUST_CHECK int ovni_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
WEFT_MUST_CHECK int ovni_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
void ovni_free(struct emu *e, const struct weft_model_def *self);

WEFT_MUST_CHECK int ovni_ohx(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int ovni_ohc_create(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
				    struct weft_err *err);
WEFT_MUST_CHECK int ovni_state(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int ovni_oas(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int ovni_oar(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int ovni_ocn(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int ovni_flush(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int ovni_nop(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int ovni_burst(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
/* bursts.c: statistics reported once at the end (not with -q) */
void ovni_bursts_report(struct emu *e);
void ovni_bursts_free(struct emu *e);
WEFT_MUST_CHECK int ovni_mark_set(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
				  struct weft_err *err);
WEFT_MUST_CHECK int ovni_mark_push(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
				   struct weft_err *err);
WEFT_MUST_CHECK int ovni_mark_pop(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
				  struct weft_err *err);

#endif
