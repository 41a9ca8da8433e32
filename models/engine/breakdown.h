/* SPDX-License-Identifier: GPL-3.0-or-later */
/* breakdown: the CPU breakdown views of model files (`breakdown` blocks,
 * doc/dev/models.md), with -b: their values, which the Paraver sink
 * writes as MODEL-breakdown.{prv,pcf,row}, as ovniemu's -b writes them
 * (src/emu/paraver_bd.c, through emu_bd_ops).
 *
 * Per physical CPU, a chain of muxes over the values the model's channels
 * show on that CPU's row; a mux selects again when its select source
 * changes and otherwise follows its selected input. The engine reports each
 * CPU-row change of a watched channel (bd_note); at the end of the event
 * (bd_flush) the changed sources are run through the muxes in the order
 * they changed, then every CPU's last-mux value is sorted and row i of the
 * view gets the i-th smallest: a stacked picture of what the CPUs do.
 * A row is written when its value changes; the first change writes every
 * row (zeros included).
 *
 * Memory: per view, a few values per (CPU, source); nothing per event. */
#ifndef WEFT_BREAKDOWN_H
#define WEFT_BREAKDOWN_H

#include "emu/emu.h"
#include "mfform.h"
#include "util/strbuf.h"
#include "util/macros.h"

struct bd_view;

/* With -b and an output directory, set up model m's view (if it has one);
 * a view whose `require` key is not true in every thread is left off with
 * a warning (a key missing or not a boolean is an error, exit 1). Returns
 * 0 or -1 (err filled). */
WEFT_MUST_CHECK int bd_setup(struct emu *e, const struct mf_model *m, struct weft_err *err);

/* The view that reads channel `chan` of model m, or -1 (for the engine,
 * after bd_setup). */
int bd_chan_view(const struct emu *e, const struct mf_model *m, int chan);

/* Channel `chan` (of the model of view `view`) now shows v on CPU row
 * `cpu` (e->sys.cpu index). */
void bd_note(struct emu *e, int view, int chan, int cpu, int64_t v);

/* The end of an event with notes (e->bd.pending). */
void bd_flush(struct emu *e);

void bd_free(struct emu *e);

#endif
