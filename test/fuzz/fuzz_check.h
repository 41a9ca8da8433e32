/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_check: the invariant checks every fuzz target shares. A broken one
 * aborts, which libFuzzer (and the replay of make check) reports as a crash. */
#ifndef WEFT_FUZZ_CHECK_H
#define WEFT_FUZZ_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "util/err.h"

static inline void check(int cond)
{
	if (!cond)
		abort();
}

/* A refused input: the expected error code and a non-empty, terminated message. */
static inline void check_err_code(const struct weft_err *e, int code)
{
	check(e->code == code);
	check(memchr(e->msg, '\0', sizeof(e->msg)) != NULL);
	check(e->msg[0] != '\0');
}

#endif
