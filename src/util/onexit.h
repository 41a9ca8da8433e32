/* SPDX-License-Identifier: GPL-3.0-or-later */
/* onexit: what a run must undo when the process exits where no caller can
 * (weft_xmalloc's out-of-memory exit, deep in an allocation): handlers added
 * here run at exit(), newest first, unless removed before. This list is
 * weft's one piece of process-wide mutable state, because exit() hands no
 * context to its handlers; add and remove from one thread. A signal that
 * kills the process runs nothing: the next run sweeps (outset.h). */
#ifndef WEFT_ONEXIT_H
#define WEFT_ONEXIT_H

/* At most ONEXIT_MAX at once (a run needs one per output folder and one per
 * converted log); more are ignored (the next run sweeps what they leave). */
#define ONEXIT_MAX 64

void onexit_add(void (*fn)(void *), void *arg);
/* Forget the handler added with `arg`. */
void onexit_remove(void *arg);

#endif
