/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tmpdir: weft's private folder for temporaries, $TMPDIR/weft-UID ($TMPDIR
 * unset or empty: /tmp), made 0700 when missing. It is used only when it is
 * a directory (not a link) owned by this user that no one else can enter;
 * otherwise the run stops (exit 1) naming it and why: whoever can plant
 * files in a shared /tmp must not be able to make a run read, write or
 * remove the wrong ones. What killed runs left in it is removed by the next
 * run, by descriptors (rmtree.h), never following a link. */
#ifndef WEFT_TMPDIR_H
#define WEFT_TMPDIR_H

#include "util/err.h"
#include "util/macros.h"

/* The folder: its descriptor (close-on-exec; the caller closes it) and, in
 * *path, its name (the caller frees it); or -1 with e filled. */
WEFT_MUST_CHECK int tmpdir_open(char **path, struct weft_err *e);

/* Entries of the folder open as `fd` named PREFIX-PID-... whose PID is no
 * live process (nor this one): removed. Returns how many. */
int tmpdir_sweep(int fd, const char *prefix);

/* The PID a temporary's name carries after `tag` ("weft-import-" in
 * "weft-import-123-x7Gq2a", ".weft-tmp-" in ".out.svg.weft-tmp-123"): the
 * digits up to the end or a '-'; 0 when there are none. */
long tmpdir_pid_after(const char *name, const char *tag);

/* Is the process `pid` gone? (0 when it lives, or is someone else's) */
int tmpdir_pid_gone(long pid);

#endif
