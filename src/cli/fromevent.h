/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fromevent: where `weft emu --from-event EXPR` opens its window. */
#ifndef WEFT_FROMEVENT_H
#define WEFT_FROMEVENT_H

#include <stdint.h>

#include "emu/emu.h"
#include "util/err.h"
#include "util/macros.h"

/* The Paraver time (ns from the first event) of the first event of TRACE,
 * read with options o, for which the query expression EXPR holds (the
 * language of weft-query(1), as `dump --filter` takes it). Returns 0, or -1
 * with err filled: WEFT_EUSAGE for a bad expression, WEFT_EINPUT when no
 * event matches or the trace cannot be read. */
WEFT_MUST_CHECK int from_event_time(const char *trace, const struct emu_opts *o, const char *expr, uint64_t *at,
				    struct weft_err *err);

#endif
