/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sinks: the emulator's side of sink.h. emu_sinks_begin builds the layout
 * of a run whose stream opened (e->out.writing: the fronts and the pipe, emu.c)
 * from its rows and its models' channels, attaches and begins every sink of
 * e->o.sinks in order, then taps the pipe for the sinks that take batches
 * (prv_pipe_tap: one serial run's order, -j included); the Paraver sink's
 * files are the pipe's backs instead (paraver_out.h). emu_sinks_end ends
 * every sink begun. Without sinks these do nothing. */
#ifndef WEFT_SINKS_H
#define WEFT_SINKS_H

#include "emu/emu.h"
#include "emu/sink.h"

/* After the stream opened, before any record is queued (0 or -1, err;
 * the sinks begun so far, the failing one too, are ended by emu_sinks_end
 * or emu_sinks_free). */
int emu_sinks_begin(struct emu *e, struct weft_err *err);
/* ok: the run succeeded (every record applied), finished at ftime. The
 * first error of the sinks, or 0; every sink is ended once. */
int emu_sinks_end(struct emu *e, int ok, uint64_t ftime, struct weft_err *err);
/* Release the layout (ending sinks not ended with ok 0). */
void emu_sinks_free(struct emu *e);
/* The layout handed to the sinks, NULL before emu_sinks_begin. */
const struct sink_layout *emu_sinks_layout(const struct emu *e);

#endif
