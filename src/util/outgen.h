/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outgen: the generations behind an outset (outset.h): the lock, the
 * repair of what killed runs left, the links of DIR, adoption of plain
 * files, the switch of `current`. Every step works on directory
 * descriptors and never follows a link it did not make. For outset.c only. */
#ifndef WEFT_OUTGEN_H
#define WEFT_OUTGEN_H

#include "util/outset.h"
#include "util/macros.h"

/* names relative to a folder, as outgen_walk lists them */
struct outgen_names {
	char **v;
	int n, cap;
};

void outgen_names_add(struct outgen_names *l, const char *rel);
void outgen_names_sort(struct outgen_names *l);
int outgen_names_has(const struct outgen_names *l, const char *rel); /* sorted */
void outgen_names_free(struct outgen_names *l);

/* Make DIR/.weft and take its lock: 0; 1 when DIR/.weft changed under the
 * attempt (try again); -1 with e filled. */
WEFT_MUST_CHECK int outgen_lock(struct outset *s, struct weft_err *e);
/* Under the lock: find the generation shown, remove what killed runs left. */
WEFT_MUST_CHECK int outgen_recover(struct outset *s, struct weft_err *e);
/* The files (and links) under the folder `fd`, by relative name. 0, or
 * the errno of the first folder it could not read (too many open files,
 * say): the others are still listed. */
int outgen_walk(int fd, const char *prefix, struct outgen_names *out);
/* The folder `rel` (components joined by '/', "" for root itself) under
 * root, each entered without following a link, made when `make`: a new
 * descriptor, or -1 with errno. */
int outgen_dir(int root, const char *rel, int make);
/* DIR/rel made one of weft's links, showing what it showed (see outset.h):
 * a plain file's bytes go into the shown generation first. */
WEFT_MUST_CHECK int outgen_adopt(struct outset *s, const char *rel, struct weft_err *e);
/* DIR/rel made weft's link when it is none; *made = 1 when this made it. */
WEFT_MUST_CHECK int outgen_link(struct outset *s, const char *rel, int *made, struct weft_err *e);
/* DIR/rel removed when it is weft's link, then its folders once empty. */
void outgen_unlink(struct outset *s, const char *rel);
/* Show generation `gen`: the one atomic step. */
WEFT_MUST_CHECK int outgen_switch(struct outset *s, long gen, struct weft_err *e);
/* Remove the generation folder `name`, and the links to every name of it
 * the shown generation lacks. */
void outgen_drop(struct outset *s, const char *name);

#endif
