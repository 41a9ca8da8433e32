/* SPDX-License-Identifier: GPL-3.0-or-later */
/* visandor_synth: synthetic VisAndOr logs (see visandor_synth.c): the
 * generator. `weft synth --format visandor` (src/cli) reads its options. */
#ifndef WEFT_VISANDOR_SYNTH_H
#define WEFT_VISANDOR_SYNTH_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

/* Write an and-parallel (or_kind 0) or or-parallel log of about `events`
 * events over `agents` agents (>= 2) to `out`, under a temporary name
 * renamed when complete, *written the events written: 0, or -1 with e
 * filled. */
WEFT_MUST_CHECK int visandor_synth_write(const char *out, int or_kind, int agents, uint64_t events, uint64_t *written,
					 struct weft_err *e);

#endif
