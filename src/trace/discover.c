/* SPDX-License-Identifier: GPL-3.0-or-later */
/* discover: recursive stream discovery with old-layout detection. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/discover.h"

struct seen {
	dev_t dev;
	ino_t ino;
	int used;
};

struct walk {
	const char *root;
	struct weft_found *f;
	int cap;
	/* every directory visited, by device and inode: each is walked once,
	 * however many links lead to it (a maze of links to links would
	 * otherwise double the walk at each level, and a link back up the tree
	 * never end) */
	struct seen *seen;
	size_t nseen, capseen; /* capseen: 0 or a power of two */
	char old_hint[4096]; /* first file that looks like a v1/v2 trace */
	int old_version;
	/* trace roots (directories holding loom.* folders) met, the first two
	 * named; the first error met outside every root, kept for when there
	 * is no root (a tree of someone else's files fails no trace) */
	int nroots;
	char root_rel[2][1024];
	int stray;
	struct weft_err stray_err;
	struct weft_err *e;
};

static void add(struct walk *w, const char *rel)
{
	if (w->f->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->f->rel = weft_xrealloc(w->f->rel, (size_t) w->cap * sizeof(char *));
	}
	w->f->rel[w->f->n++] = weft_xstrdup(rel);
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && strcmp(s + n - k, suf) == 0;
}

static void note_old(struct walk *w, const char *rel, const char *name, int version)
{
	/* highest version first, then the byte-wise smallest path: the message
	 * must not depend on readdir order */
	char hint[sizeof(w->old_hint)];
	snprintf(hint, sizeof(hint), "%s%s%s", rel, rel[0] ? "/" : "", name);
	if (w->old_version > version || (w->old_version == version && strcmp(hint, w->old_hint) >= 0))
		return;
	w->old_version = version;
	memcpy(w->old_hint, hint, sizeof(hint));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static int walk_dir_at(struct walk *w, const char *rel, const char *path, int inside);

static size_t seen_slot(const struct seen *t, size_t cap, dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t) ino * 0x9e3779b97f4a7c15ull) ^ ((uint64_t) dev * 0xc2b2ae3d27d4eb4full);
	size_t i = (size_t) (h >> 17) & (cap - 1);
	while (t[i].used && (t[i].dev != dev || t[i].ino != ino))
		i = (i + 1) & (cap - 1);
	return i;
}

/* 1 the first time a directory is met, 0 after. */
static int first_visit(struct walk *w, dev_t dev, ino_t ino)
{
	if (2 * (w->nseen + 1) > w->capseen) {
		size_t cap = w->capseen ? 2 * w->capseen : 64;
		struct seen *t = weft_xcalloc(cap, sizeof(*t));
		for (size_t i = 0; i < w->capseen; i++)
			if (w->seen[i].used)
				t[seen_slot(t, cap, w->seen[i].dev, w->seen[i].ino)] = w->seen[i];
		free(w->seen);
		w->seen = t;
		w->capseen = cap;
	}
	size_t i = seen_slot(w->seen, w->capseen, dev, ino);
	if (w->seen[i].used)
		return 0;
	w->seen[i] = (struct seen){dev, ino, 1};
	w->nseen++;
	return 1;
}

static int walk_dir(struct walk *w, const char *rel, int inside)
{
	char *path = weft_xasprintf("%s%s%s", w->root, rel[0] ? "/" : "", rel);
	int rc = walk_dir_at(w, rel, path, inside);
	free(path);
	return rc;
}

/* An error of the walk: at once inside a trace (or in no trace at all, as
 * it turns out at the end), else kept. Returns the walk's rc. */
static int walk_fail(struct walk *w, int inside, int rc)
{
	if (inside)
		return rc;
	if (!w->stray) {
		w->stray = 1;
		w->stray_err = *w->e;
	}
	return 0;
}

/* `inside`: the directory is below a trace root's loom.* folder (or is
 * TRACE, when TRACE is a loom folder itself). */
static int walk_dir_at(struct walk *w, const char *rel, const char *path, int inside)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return walk_fail(w, inside, weft_fail(w->e, WEFT_EINPUT, "%s: cannot read: %s", path, strerror(errno)));
	if (!first_visit(w, st.st_dev, st.st_ino))
		return 0; /* reached before, through another link */

	DIR *d = opendir(path);
	if (!d) {
		return walk_fail(w, inside,
				 weft_fail(w->e, WEFT_EINPUT, "%s: cannot open directory: %s", path, strerror(errno)));
	}
	int has_json = 0, has_obs = 0, rc = 0; /* rc: first error of this subtree */
	int looms = 0;
	char **subdirs = NULL;
	int nsub = 0, capsub = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		char *child = weft_xasprintf("%s/%s", path, name);
		struct stat cs;
		int ok = stat(child, &cs) == 0;
		free(child);
		if (!ok)
			continue; /* a dangling link is not part of the trace */
		if (S_ISDIR(cs.st_mode)) {
			if (nsub == capsub) {
				capsub = capsub ? 2 * capsub : 16;
				subdirs = weft_xrealloc(subdirs, (size_t) capsub * sizeof(char *));
			}
			subdirs[nsub++] = weft_xstrdup(name);
			looms += strncmp(name, "loom.", 5) == 0;
			continue;
		}
		if (strcmp(name, "stream.json") == 0)
			has_json = 1;
		else if (strcmp(name, "stream.obs") == 0)
			has_obs = 1;
		else if (strcmp(name, "metadata.json") == 0)
			note_old(w, rel, name, 1);
		else if (strncmp(name, "thread.", 7) == 0 && ends_with(name, ".json"))
			note_old(w, rel, name, 2);
		else if (strncmp(name, "thread.", 7) == 0 && ends_with(name, ".obs"))
			note_old(w, rel, name, 1);
	}
	closedir(d);
	if (looms) {
		/* a trace root: its loom.* folders are walked, nothing else */
		if (w->nroots < 2)
			snprintf(w->root_rel[w->nroots], sizeof(w->root_rel[0]), "%s", rel[0] ? rel : ".");
		w->nroots++;
	}
	if (has_json && !has_obs)
		rc = walk_fail(w, inside,
			       weft_fail(w->e, WEFT_EINPUT,
					 "%s: stream.json without stream.obs: a stream needs both files", path));
	else if (has_obs && !has_json)
		rc = walk_fail(w, inside,
			       weft_fail(w->e, WEFT_EINPUT,
					 "%s: stream.obs without stream.json: the stream's metadata is missing "
					 "(the thread may not have finished)",
					 path));
	else if (has_json)
		add(w, rel[0] ? rel : ".");
	/* walk subdirectories in byte order, so the first error reported does
	 * not depend on readdir order either */
	if (nsub > 1)
		qsort(subdirs, (size_t) nsub, sizeof(char *), cmp_str);
	for (int i = 0; i < nsub; i++) {
		int loom = strncmp(subdirs[i], "loom.", 5) == 0;
		/* below a second root, nothing: the run fails on two traces */
		if (rc == 0 && (!looms || (loom && w->nroots == 1))) {
			char *crel = weft_xasprintf("%s%s%s", rel, rel[0] ? "/" : "", subdirs[i]);
			rc = walk_dir(w, crel, inside || loom);
			free(crel);
		}
		free(subdirs[i]);
	}
	free(subdirs);
	return rc;
}

int discover_streams(const char *dir, struct weft_found *f, struct weft_err *e)
{
	memset(f, 0, sizeof(*f));
	struct stat st;
	if (stat(dir, &st) != 0)
		return weft_fail(e, WEFT_EINPUT, "%s: cannot read trace: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return weft_fail(e, WEFT_EINPUT, "%s: not a directory (expected an ovni trace directory)",
				 dir);
	struct walk w = {.root = dir, .f = f, .e = e};
	const char *base = strrchr(dir, '/');
	base = base && base[1] ? base + 1 : dir;
	int rc = walk_dir(&w, "", strncmp(base, "loom.", 5) == 0);
	free(w.seen);
	if (rc == 0 && w.nroots > 1)
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s: %d ovni traces under it (folders holding loom.* folders: %s, %s%s): give one of "
			       "them as TRACE",
			       dir, w.nroots, w.root_rel[0], w.root_rel[1], w.nroots > 2 ? ", ..." : "");
	else if (rc == 0 && w.nroots == 1 && strcmp(w.root_rel[0], ".") != 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: not an ovni trace, but one is below it: %s/%s: give that as TRACE",
			       dir, dir, w.root_rel[0]);
	else if (rc == 0 && w.nroots == 0 && w.stray) {
		*e = w.stray_err; /* no trace root: the tree is the trace, its error is the run's */
		rc = -1;
	}
	if (rc) {
		discover_free(f);
		return -1;
	}
	if (f->n == 0) {
		if (w.old_version == 2)
			return weft_fail(e, WEFT_EINPUT,
					 "%s: this is an ovni trace format v2 (written by libovni 1.5 to "
					 "1.10; found %s); weft reads format v3 (libovni 1.11 or later, "
					 "stream.json + stream.obs)",
					 dir, w.old_hint);
		if (w.old_version == 1)
			return weft_fail(e, WEFT_EINPUT,
					 "%s: this is an ovni trace format v1 (written by libovni 1.4 or "
					 "earlier; found %s); weft reads format v3 (libovni 1.11 or later, "
					 "stream.json + stream.obs)",
					 dir, w.old_hint);
		return weft_fail(e, WEFT_EINPUT, "no ovni streams found under %s", dir);
	}
	qsort(f->rel, (size_t) f->n, sizeof(char *), cmp_str);
	return 0;
}

void discover_free(struct weft_found *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->rel[i]);
	free(f->rel);
	memset(f, 0, sizeof(*f));
}
