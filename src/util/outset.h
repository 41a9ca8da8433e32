/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outset: the outputs of one run appear all at once or not at all, whatever
 * instant the run is killed at (doc/dev/outputs.md tells the whole protocol).
 *
 * POSIX renames one name at a time, so a set of names can only change at
 * once through one indirection. Each output NAME in DIR is a relative
 * symbolic link into DIR/.weft/current/NAME, and `current` is itself a link
 * to the generation folder shown (gen-N). A run writes its outputs into a
 * new generation, gen-(N+1), invisible until the commit, whose one atomic
 * step renames a new `current` link over the old one: before it every name
 * shows the previous output, after it the new one (a link whose name the
 * shown generation lacks does not open: that output is absent). Names the
 * new generation lacks then lose their links and the old generation goes.
 * Plain files of weft's names (an older weft's outputs, ovniemu's) first
 * become links to an identical copy (a hard link where possible) in the
 * shown generation, so no name ever shows a mix.
 *
 * A lock (fcntl on DIR/.weft/lock, held from outset_open to the end)
 * keeps one run at a time: a second run into DIR exits 1 naming the PID
 * that holds it. Under the lock, what killed runs left (generations other
 * than current, temporary links, --mpi part folders, older weft versions'
 * ".NAME.weft-tmp-PID") is removed first, with the links to names only they
 * held. Nothing of the previous output changes before the commit; a run that
 * fails removes its generation, and DIR/.weft and what it created of DIR
 * when nothing was ever shown. An exit() on the way (out of memory) does the
 * same (onexit.h). */
#ifndef WEFT_OUTSET_H
#define WEFT_OUTSET_H

#include <stddef.h>

#include "util/err.h"
#include "util/macros.h"

/* DIR's hidden folder, and the prefix of an --mpi run's part folder in it */
#define OUTSET_HIDDEN ".weft"
#define OUTSET_RANKS "ranks-"

struct outset {
	char *dir; /* DIR as given: messages name DIR/NAME */
	int dfd, wfd, lfd; /* DIR, DIR/.weft, its lock */
	int cfd, sfd; /* the generation shown (-1: none), the new one */
	int shown; /* DIR/.weft/current exists */
	long cur, gen; /* the numbers of those two: gen = cur + 1 */
	int made; /* levels of DIR this run created */
	int open, locked;
	int made_hidden; /* this run created DIR/.weft */
	char *hidden, *stage; /* DIR/.weft, DIR/.weft/gen-N */
	char **name, **path; /* weft's names this run may write, their paths in the stage */
	int n, cap;
	char **retire; /* weft's names it does not write */
	int nretire, rcap;
};

/* Make DIR (and missing parents) when needed, take its lock, clear what
 * killed runs left and open a new generation. 0, or -1 with e filled: 2 for
 * a DIR that cannot be one, 1 when the system refuses or another run holds
 * the lock. */
WEFT_MUST_CHECK int outset_open(struct outset *s, const char *dir, struct weft_err *e);
/* NAME (relative to DIR, may contain '/') is one of this run's outputs:
 * the path to write it at, in the new generation, owned by the set
 * (outset_write makes the folders of a NAME with '/' there). */
const char *outset_add(struct outset *s, const char *name);
/* A name of weft's that this run does not write: a plain file of that name
 * in DIR goes at the commit, with the other stale outputs (a link of
 * weft's whose name the new generation lacks goes anyway). */
void outset_retire(struct outset *s, const char *name);
/* DIR/NAME, as messages name it (the caller frees it). */
char *outset_shown(const struct outset *s, const char *name);
/* Write `len` bytes of text as output NAME. */
WEFT_MUST_CHECK int outset_write(struct outset *s, const char *name, const char *text, size_t len, struct weft_err *e);
/* Can every added name be shown? A directory in the way, or a folder of DIR
 * on the way that is a file or a link, is a usage error. */
WEFT_MUST_CHECK int outset_check(const struct outset *s, struct weft_err *e);
/* Show what the new generation holds (the files written at outset_add's
 * paths) instead of the previous output, in one step; then unlock. Frees
 * the set; on failure it is aborted. */
WEFT_MUST_CHECK int outset_commit(struct outset *s, struct weft_err *e);
/* Forget the new generation (see above) and free the set. No-op when the
 * set is not open. */
void outset_abort(struct outset *s);

#endif
