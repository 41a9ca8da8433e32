/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mkdirp: create a directory and its missing parents, as `mkdir -p` does.
 * Directories that exist already are fine; the first one that cannot be
 * made is named in the error: a name that cannot be a directory (empty, a
 * file in the way of a parent, too long) is a usage error (2), whatever else
 * the system refuses is 1 with what to do (weft_out_fail). Any EEXIST of the
 * last level counts as done, so a file there is not reported here: the
 * caller's first open inside it fails and names it. */
#ifndef WEFT_MKDIRP_H
#define WEFT_MKDIRP_H

#include "util/err.h"
#include "util/macros.h"

/* 0, or -1 with `e` filled. *made (unless made is NULL) is how many levels,
 * the deepest ones, this call created: rmdir_made undoes them. */
WEFT_MUST_CHECK int mkdir_p(const char *path, int *made, struct weft_err *e);

/* Remove the `made` deepest levels of path again, as far as they are empty
 * (allocating nothing: it runs at an exit for want of memory too). */
void rmdir_made(const char *path, int made);

#endif
