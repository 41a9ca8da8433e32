/* SPDX-License-Identifier: GPL-3.0-or-later */
/* views: copy beside a run's output the view files (compiled in from
 * cfg/<model>/<file>-<name>.cfg) that fit it, with their colour range set
 * to the values written. <file> is thread (thread.prv), cpu (cpu.prv) or
 * breakdown (the model's <model>-breakdown.prv of `weft emu -b`). A view
 * fits when
 *   - its model is on in the run (the folder names the model) and its file
 *     is written (a breakdown trace: with -b, when the model allowed it);
 *   - a view of states (State As Is), and every view of the ovni model
 *     (on in every run, its views describe ovni runtime threads), only when
 *     some thread row shows that model's states, and one of its states was
 *     written to the view's file;
 *   - every event type its filter names was written to its file (thread.prv
 *     for thread-*.cfg, cpu.prv for cpu-*.cfg, the
 *     breakdown trace for breakdown-*.cfg): Paraver asks about each
 *     missing type when the view is opened.
 * Views whose filter covers a range of types (marks) are written once per
 * type written, as <file>-<name>-<type>.cfg: one row shows one type.
 * Copies of views that do not fit, left by an earlier run in the same
 * directory, go when the run's outputs are shown. The copies go into the
 * run's output set s (shown with the traces). Call after the writer drained. */
#ifndef WEFT_VIEWS_H
#define WEFT_VIEWS_H

#include "emu/emu.h"

struct outset;

int views_copy(struct emu *e, struct outset *s, struct weft_err *err);

#endif
