/* SPDX-License-Identifier: GPL-3.0-or-later */
/* otf2_sink: the emulator's output (emu/sink.h) as an OTF2 archive, for
 * Vampir, Scalasca's tools and otf2-print (doc/otf2-output.md).
 *
 * Locations: a thread row or a CPU row is one location (its row state as
 * regions, its value and punctual channels as metrics, the thread rows'
 * communications as MPI point-to-point records); each state channel a row
 * uses gets a location of its own beside it ("ROW / model.channel"), so
 * that every location's regions nest, as OTF2 requires. The system tree:
 * one machine, a node per loom; a location group per process (its
 * threads) and per loom (its CPUs). Times are the sink's (ns from the
 * run's t0), the clock properties say so.
 *
 * Records: every Paraver record of a state channel is a leave of the
 * region shown until then (none after a 0) and an enter of the new value's
 * (none for 0); a value or punctual record is one metric record. A send is
 * written once its receiver is known: until then the sending location's
 * later records wait behind it (memory bounded by the messages in flight
 * and what their senders did meanwhile); a send never received is not
 * written (Paraver keeps it as a comment).
 *
 * The archive (DIR/traces.otf2, DIR/traces.def, DIR/traces/) appears at
 * once when the run succeeds and is untouched when it fails (util/outset.h).
 * Built when configure finds OTF2 (WEFT_OTF2); otherwise otf2_sink_new
 * fails saying so. */
#ifndef WEFT_OTF2_SINK_H
#define WEFT_OTF2_SINK_H

#include "emu/sink.h"
#include "util/err.h"
#include "util/macros.h"

/* 1 when this weft was built with OTF2. */
int otf2_sink_available(void);
/* A sink writing the archive into DIR (made when missing); NULL with err
 * filled (2: DIR cannot be one; 1: the system refuses, or no OTF2). The
 * caller frees it with s->free(s). */
WEFT_MUST_CHECK struct sink *otf2_sink_new(const char *dir, struct weft_err *err);

#endif
