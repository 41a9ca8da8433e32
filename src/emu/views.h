/* SPDX-License-Identifier: GPL-3.0-or-later */
/* views: copy beside a run's output the view files (compiled in from
 * cfg/<file>/<model>/<name>.cfg, ovni's layout, so that
 * `paramedir TRACE/thread.prv TRACE/cfg/thread/ovni/state.cfg` works on
 * weft's output as on ovniemu's) that fit it, with their colour range set
 * to the values written. <file> is thread (thread.prv) or cpu (cpu.prv);
 * cpu/<model>/breakdown*.cfg is for the model's <model>-breakdown.prv of
 * `weft emu -b`. A view fits when
 *   - its model is on in the run (the folder names the model) and its file
 *     is written (a breakdown trace: with -b, when the model allowed it);
 *   - a view of states (State As Is), and every view of the ovni model
 *     (on in every run, its views describe ovni runtime threads), only when
 *     some thread row shows that model's states, and one of its states was
 *     written to the view's file;
 *   - every event type its filter names was written to its file (thread.prv
 *     for thread/, cpu.prv for cpu/, the breakdown trace for
 *     cpu/<model>/breakdown*.cfg): Paraver asks about each missing type
 *     when the view is opened.
 * Views whose filter covers a range of types (marks, counters) are written
 * once per type written, as <name>-<type>.cfg: one row shows one type; the
 * marks' first type (100) also as mark.cfg, ovni's view of it.
 * Copies of views that do not fit, left by an earlier run in the same
 * directory, go when the run's outputs are shown. The copies go into the
 * run's output set s (shown with the traces). Call after the writer drained. */
#ifndef WEFT_VIEWS_H
#define WEFT_VIEWS_H

#include "emu/emu.h"
#include "util/macros.h"

struct outset;

WEFT_MUST_CHECK int views_copy(struct emu *e, struct outset *s, struct weft_err *err);

#endif
