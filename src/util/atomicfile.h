/* atomicfile: outputs appear whole or not at all.
 * A file is written under a temporary name beside its final one and renamed
 * only when complete; on any failure the temporary is removed, so a failed
 * run never leaves a half file that looks whole. The temporary gets the
 * permissions a plain creation would (0666 less the umask). */
#ifndef WEFT_ATOMICFILE_H
#define WEFT_ATOMICFILE_H

#include <stddef.h>

#include "util/err.h"

/* Create the temporary file for `path`; returns its descriptor and sets
 * *tmp (to free with atomic_commit), or -1 with e filled. */
int atomic_open(const char *path, char **tmp, struct weft_err *e);

/* Finish: close fd (unless fd < 0: the caller closed it) and, when rc is 0,
 * rename tmp to path; otherwise, or if that fails, remove tmp. Frees tmp.
 * Returns rc, or -1 with e filled when closing or renaming failed. */
int atomic_commit(int fd, char *tmp, const char *path, int rc, struct weft_err *e);

/* Write `len` bytes of text to path that way. */
int atomic_write(const char *path, const char *text, size_t len, struct weft_err *e);

#endif
