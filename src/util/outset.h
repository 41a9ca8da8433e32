/* outset: the outputs of one run appear together or not at all.
 * Each output is written under a temporary name in the output directory
 * (".NAME.weft-tmp-PID", a '/' of NAME spelled '+') and nothing gets its
 * final name until every output is complete. outset_commit then checks every
 * target (none may be a directory, each parent must be a directory or
 * creatable) and only then renames them one after the other; should a
 * rename still fail (the directory changed under the run), the renames
 * already done are undone: the previous versions, kept as hard links
 * ".NAME.weft-old-PID" during the commit, come back and new directories go.
 *
 * What "together" can mean with POSIX: rename(2) replaces one name
 * atomically, never several. So another process reading the directory
 * during the commit (a few renames, well under a millisecond) may see some
 * new and some old files, and a crash inside that window leaves such a mix.
 * Outside it the directory holds all the previous outputs or all the new
 * ones; a run that fails before the commit changes nothing that is visible.
 * (On file systems without hard links the previous version of a file cannot
 * be restored if a later rename fails: it is then replaced, not mixed.)
 *
 * A killed run leaves its temporaries; outset_sweep removes those of runs
 * that are over: the PID in the name is no live process. That includes the
 * part directory of a `weft emu --mpi` run, RANKS_DIR + rank 0's PID, and
 * what is in it. */
#ifndef WEFT_OUTSET_H
#define WEFT_OUTSET_H

#include <stddef.h>

#include "util/err.h"

#define RANKS_DIR ".weft-ranks-"

struct outset_item {
	char *tmp, *final, *old;
	int has_old;
};

struct outset {
	char *dir;
	int n, cap;
	struct outset_item *it;
};

void outset_init(struct outset *s, const char *dir);
/* The temporary path of output NAME (relative to the directory, may contain
 * '/'), registered for the commit. The set owns the string. */
const char *outset_add(struct outset *s, const char *name);
/* Register a temporary written elsewhere (same directory) for NAME. */
void outset_adopt(struct outset *s, const char *tmp, const char *name);
/* Write `len` bytes of text as output NAME (to its temporary). */
int outset_write(struct outset *s, const char *name, const char *text, size_t len,
		 struct weft_err *e);
/* Can every target be replaced? A directory in the way is a usage error. */
int outset_check(const struct outset *s, struct weft_err *e);
/* Check, then rename everything into place (see above). Frees the set. */
int outset_commit(struct outset *s, struct weft_err *e);
/* Remove the temporaries and free the set. */
void outset_abort(struct outset *s);

/* Remove ".*.weft-tmp-PID" and ".*.weft-old-PID" entries of dir whose PID is
 * not alive (not this process). Returns how many were removed. */
int outset_sweep(const char *dir);

#endif
