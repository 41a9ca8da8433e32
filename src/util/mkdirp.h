/* mkdirp: create a directory and its missing parents, as `mkdir -p` does.
 * Directories that exist already are fine; the first one that cannot be
 * made is named in the error (WEFT_EINTERNAL). Any EEXIST counts as done,
 * so a file where the last level belongs is not reported here: the caller's
 * first open inside it fails and names it. */
#ifndef WEFT_MKDIRP_H
#define WEFT_MKDIRP_H

#include "util/err.h"

/* 0, or -1 with `e` filled. */
int mkdir_p(const char *path, struct weft_err *e);

#endif
