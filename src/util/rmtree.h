/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rmtree: remove a file or a directory tree without ever following a link.
 * Every step is relative to an open directory descriptor: a directory is
 * entered with openat(O_NOFOLLOW | O_DIRECTORY) and its entries removed
 * with unlinkat, so a directory swapped for a symbolic link while the walk
 * goes on is removed as the link it has become, never entered; nothing
 * outside the tree named can be reached. A tree on another file system
 * (a mount point inside it) is left alone. Nothing is allocated: this runs
 * at an exit for want of memory too (onexit.h). */
#ifndef WEFT_RMTREE_H
#define WEFT_RMTREE_H

/* Remove `name` (a file, a link, or a directory and all below it) in the
 * directory open as `at` (AT_FDCWD: the working directory). Returns 0, or
 * -1 with errno of the first failure (the rest is still tried). A missing
 * name is 0. */
int rmtree_at(int at, const char *name);

/* The same for a path: its last component is removed in its parent. */
int rmtree(const char *path);

#endif
