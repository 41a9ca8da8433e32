/* SPDX-License-Identifier: GPL-3.0-or-later */
/* discover: find the streams of an ovni trace directory.
 * Every directory below TRACE (symbolic links followed) that holds
 * stream.json is a stream and must hold stream.obs too, and the reverse.
 * Each directory is walked once, by device and inode, however many links
 * reach it (a maze or a loop of links costs one visit a directory); it is
 * named by the first path that reaches it, walking names in byte order.
 * A directory holding loom.* folders is a trace root: only its loom.*
 * folders are walked. TRACE must be the one root (or a tree with none, or
 * a loom folder): a TRACE above one or several traces (weft emu /tmp) is
 * an error naming how many there are and the first ones, not a walk of
 * unrelated trees failing on someone else's file; an error outside every
 * root counts only when there is no root at all.
 * Streams are returned sorted by their path relative to TRACE, compared byte
 * by byte (strcmp), the order ovniemu uses. Traces written by libovni before
 * 1.11 (format v1/v2: metadata.json, thread.*.obs) are recognised and refused
 * with the ovni version that wrote them. */
#ifndef WEFT_DISCOVER_H
#define WEFT_DISCOVER_H

#include "util/err.h"
#include "util/macros.h"

struct weft_found {
	char **rel; /* relative directory of each stream ("." for TRACE itself) */
	int n;
};

WEFT_MUST_CHECK int discover_streams(const char *dir, struct weft_found *f, struct weft_err *e);
void discover_free(struct weft_found *f);

#endif
