/* SPDX-License-Identifier: GPL-3.0-or-later */
/* breakdown: the CPU breakdown views of model files (`breakdown` blocks,
 * doc/dev/models.md), written as MODEL-breakdown.{prv,pcf,row} with -b, as
 * ovniemu's -b writes them.
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
struct prv_back;

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

/* Paraver output of every view: open in the Paraver sink's set of files
 * beside thread.prv (their records queued into the run's stream as the
 * sets that follow the rows', >= SINK_NROWSETS), write their .pcf and
 * .row into the output set, finish at ftime (the window's) or abort.
 * Names: bd_outputs adds them to the set. */
struct outset;
struct prv_pipe;
void bd_outputs(struct emu *e, struct outset *s);
WEFT_MUST_CHECK int bd_open(struct emu *e, struct prv_pipe *files, const char *date, struct weft_err *err);
WEFT_MUST_CHECK int bd_write_texts(struct emu *e, struct outset *s, struct weft_err *err);
WEFT_MUST_CHECK int bd_finish(struct emu *e, uint64_t ftime, struct weft_err *err);
void bd_abort(struct emu *e);
void bd_free(struct emu *e);

/* What the views (src/emu/views.c) need to know of the breakdown traces
 * this run writes (after the writer drained, before bd_finish): how many,
 * and for each (0 <= i < bd_nviews) its model's character, its file name
 * without extension ("MODEL-breakdown"), its Paraver type and what was
 * written to it (slot 0 of the back's ranges). A view left off (its
 * `require` key not true everywhere) is not counted. */
int bd_nviews(const struct emu *e);
char bd_view_model(const struct emu *e, int i);
const char *bd_view_name(const struct emu *e, int i);
int32_t bd_view_type(const struct emu *e, int i);
const struct prv_back *bd_view_back(const struct emu *e, int i);
/* Did this run set up model's view (open or already finished)? */
int bd_drawn(const struct emu *e, char model);

#endif
