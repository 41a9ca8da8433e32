/* SPDX-License-Identifier: GPL-3.0-or-later */
/* srcdate: the SOURCE_DATE_EPOCH convention of reproducible builds
 * (https://reproducible-builds.org/specs/source-date-epoch/): a decimal count
 * of seconds since 1970-01-01 00:00 UTC that stands for "now" in outputs, so
 * that the same input gives the same bytes. */
#ifndef WEFT_SRCDATE_H
#define WEFT_SRCDATE_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

/* The largest value taken: 9999-12-31 23:59:59 UTC (a four-digit year). */
#define SRCDATE_MAX 253402300799ll

/* 1 and *t set when SOURCE_DATE_EPOCH holds a valid value; 0 when it is unset
 * or empty; -1 (exit 1, the value quoted) when it is anything else. */
WEFT_MUST_CHECK int source_date_epoch(int64_t *t, struct weft_err *e);

#endif
