/* SPDX-License-Identifier: GPL-3.0-or-later */
/* atomicfile: outputs of one file or one new folder appear whole or not at
 * all. A file is written under a hidden temporary name beside its final one,
 * ".NAME.weft-tmp-PID-XXXXXX", and renamed only when complete; a folder (a
 * converted or synthetic trace) is built the same way and renamed at once.
 * On any failure the temporary is removed; a killed run's temporary (its PID
 * no live process) goes with the next run that writes the same NAME. A file
 * gets the permissions a plain creation would (0666 less the umask).
 *
 * The output name is checked first: an empty name, a name that is a
 * directory (".", "/", "x/" for a file; an existing one that is not empty
 * for a folder) or one whose parent is missing is a usage error (2); what
 * the system then refuses is 1, with what to do (err.h). */
#ifndef WEFT_ATOMICFILE_H
#define WEFT_ATOMICFILE_H

#include <stddef.h>

#include "util/err.h"
#include "util/macros.h"

/* Is `path` a name a new file (want_dir 0) or folder (1) can be written
 * at? 0, or -1 with e filled (2): to ask before the work. */
WEFT_MUST_CHECK int atomic_check(const char *path, int want_dir, struct weft_err *e);

/* Create the temporary file for `path`; returns its descriptor and sets
 * *tmp (to free with atomic_commit), or -1 with e filled. */
WEFT_MUST_CHECK int atomic_open(const char *path, char **tmp, struct weft_err *e);

/* Finish: close fd (unless fd < 0: the caller closed it) and, when rc is 0,
 * rename tmp to path; otherwise, or if that fails, remove tmp. Frees tmp.
 * Returns rc, or -1 with e filled when closing or renaming failed. */
WEFT_MUST_CHECK int atomic_commit(int fd, char *tmp, const char *path, int rc, struct weft_err *e);

/* Write `len` bytes of text to path that way. */
WEFT_MUST_CHECK int atomic_write(const char *path, const char *text, size_t len, struct weft_err *e);

/* The same for a new folder `path` (absent, or an empty directory): the
 * temporary folder to fill (0777 less the umask), set in *tmp; then
 * atomic_dir_commit renames it into place when rc is 0, else removes it
 * (with all it holds), and frees tmp. */
WEFT_MUST_CHECK int atomic_dir_open(const char *path, char **tmp, struct weft_err *e);
WEFT_MUST_CHECK int atomic_dir_commit(char *tmp, const char *path, int rc, struct weft_err *e);

#endif
