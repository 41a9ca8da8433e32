/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sinks: the emulator's side of sink.h. emu_sinks_begin builds the layout
 * of a run whose stream opened (e->out.writing: the fronts and the pipe, emu.c)
 * from its rows and its models' channels, begins every sink of e->o.sinks
 * in order, then taps the pipe (prv_pipe_tap: one serial run's order, -j
 * included; the pipe has no file of its own) and hands every batch to
 * every sink, through the --from/--to window when there is one.
 * emu_sinks_end ends every sink begun. Without sinks these do nothing. */
#ifndef WEFT_SINKS_H
#define WEFT_SINKS_H

#include "emu/emu.h"
#include "emu/sink.h"
#include "util/macros.h"

/* After the stream opened, before any record is queued (0 or -1, err;
 * the sinks begun so far, the failing one too, are ended by emu_sinks_end
 * or emu_sinks_free). */
WEFT_MUST_CHECK int emu_sinks_begin(struct emu *e, struct weft_err *err);
/* on 1: the sinks that can write with threads of their own from now on
 * (sink.writers; -j --writers): 0, or -1 when none did; on 0: they wrote
 * everything handed so far. */
int emu_sinks_writers(struct emu *e, int on);
/* ok: the run succeeded (every record applied), finished at ftime. The
 * first error of the sinks, or 0; every sink is ended once. */
WEFT_MUST_CHECK int emu_sinks_end(struct emu *e, int ok, uint64_t ftime, struct weft_err *err);
/* Release the layout (ending sinks not ended with ok 0). */
void emu_sinks_free(struct emu *e);
/* The layout handed to the sinks, NULL before emu_sinks_begin. */
const struct sink_layout *emu_sinks_layout(const struct emu *e);

#endif
