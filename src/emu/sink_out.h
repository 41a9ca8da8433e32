/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sink_out: the emulator's other sinks (emu/sink.h; --otf2) fed from the
 * Paraver writer's op stream, which is the stream of channel changes.
 *
 * sink_out_open builds the layout from the emulator (rows in Paraver
 * order, channels = the Paraver types of each file, their kinds and value
 * labels from the .pcf's EVENT_TYPE/VALUES sections), calls every sink's
 * begin and taps the Paraver pipe (prv_pipe_tap), so the sinks see the ops
 * in order in the thread that writes them: the writer thread, or the
 * merging thread under -j. sink_out_close (after the pipe finished) fills
 * the labels named during the run and calls end(ok 1); sink_out_abort
 * calls end(ok 0). The sinks are the caller's (e->o.sinks). No window
 * (--from/--to) nor slices: the command refuses those with other sinks. */
#ifndef WEFT_SINK_OUT_H
#define WEFT_SINK_OUT_H

#include "emu/emu.h"

int sink_out_open(struct emu *e, struct weft_err *err);
int sink_out_close(struct emu *e, struct weft_err *err);
void sink_out_abort(struct emu *e);

#endif
