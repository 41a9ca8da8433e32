/* SPDX-License-Identifier: GPL-3.0-or-later */
/* viewcheck: `weft check --views DIR` — the static part of "every view
 * loads right in Paraver". For each DIR/cfg/<model>/<file>-<name>.cfg it
 * reads DIR/<file>.pcf and DIR/<file>.prv and reports, naming the view:
 *   - a view not named thread-*.cfg or cpu-*.cfg, with no window, no
 *     window_color_mode or no window_maximum_y;
 *   - a thread function Paraver does not know;
 *   - an event type of the filter with no EVENT_TYPE label in the .pcf, or
 *     never written in the .prv (Paraver: "None/Some of the events specified
 *     in the filter appear in the trace");
 *   - values written outside [window_minimum_y, window_maximum_y] (drawn
 *     black or out of range);
 *   - a state view not in code colour (states take the .pcf colours there),
 *     or a state value written with no STATES label in the .pcf.
 * Returns the number of problems (printed on stderr), or -1 when DIR
 * cannot be read (err filled). */
#ifndef WEFT_VIEWCHECK_H
#define WEFT_VIEWCHECK_H

#include "util/err.h"
#include "util/macros.h"

WEFT_MUST_CHECK long viewcheck_dir(const char *dir, int quiet, struct weft_err *err);

#endif
