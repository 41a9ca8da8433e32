/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sinks: the emulator's side of sink.h. emu_sinks_begin builds the layout
 * of an opened run from its rows and its models' channels and begins every
 * sink of e->o.sinks, then taps the change stream the Paraver writer's
 * pipe carries (prv_pipe_tap: one serial run's order, -j included);
 * emu_sinks_end ends them. Without sinks these do nothing. */
#ifndef WEFT_SINKS_H
#define WEFT_SINKS_H

#include "emu/emu.h"
#include "emu/sink.h"

/* After the Paraver files opened, before any event (0 or -1, err). */
int emu_sinks_begin(struct emu *e, struct weft_err *err);
/* ok: the run succeeded (every record applied), finished at ftime. The
 * first error of the sinks, or 0; every sink is ended once. */
int emu_sinks_end(struct emu *e, int ok, uint64_t ftime, struct weft_err *err);
/* Release the layout (ending sinks not ended with ok 0). */
void emu_sinks_free(struct emu *e);
/* The layout handed to the sinks, NULL before emu_sinks_begin. */
const struct sink_layout *emu_sinks_layout(const struct emu *e);

#endif
