/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outset: a run's outputs, shown at once by one rename (see outset.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mkdirp.h"
#include "util/onexit.h"
#include "util/outbuf.h"
#include "util/outgen.h"
#include "util/outset.h"
#include "util/rmtree.h"
#include "util/macros.h"

/* Remove what this run made and nothing showed: the new generation; DIR/.weft
 * when no generation is shown; what it created of DIR. Only system calls:
 * this also runs at an exit() from anywhere (onexit.h). */
static void undo(struct outset *s)
{
	char g[32];
	snprintf(g, sizeof(g), "gen-%ld", s->gen);
	if (s->sfd >= 0)
		rmtree_at(s->wfd, g);
	if (s->locked && !s->shown) {
		/* the lock goes while held: a run that takes it after checks
		 * that its lock file is still the one in place (outgen_lock) */
		unlinkat(s->wfd, "lock", 0);
		unlinkat(s->dfd, OUTSET_HIDDEN, AT_REMOVEDIR);
	} else if (!s->locked && s->made_hidden && s->dfd >= 0) {
		/* made, but no lock file in it (no descriptor left, say): it
		 * goes when empty; a run that made it too takes it again */
		unlinkat(s->dfd, OUTSET_HIDDEN, AT_REMOVEDIR);
	}
	if (!s->shown && s->made)
		rmdir_made(s->dir, s->made);
}

static void undo_at_exit(void *arg)
{
	undo(arg);
}

static void release(struct outset *s)
{
	onexit_remove(s);
	int fds[] = {s->sfd, s->cfd, s->lfd, s->wfd, s->dfd};
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < s->n; i++) {
		free(s->name[i]);
		free(s->path[i]);
	}
	for (int i = 0; i < s->nretire; i++)
		free(s->retire[i]);
	free(s->name);
	free(s->path);
	free(s->retire);
	free(s->dir);
	free(s->hidden);
	free(s->stage);
	memset(s, 0, sizeof(*s));
	s->dfd = s->wfd = s->lfd = s->cfd = s->sfd = -1;
}

static void close_lock(struct outset *s)
{
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wfd >= 0)
		close(s->wfd);
	s->lfd = s->wfd = -1;
}

int outset_open(struct outset *s, const char *dir, struct weft_err *e)
{
	memset(s, 0, sizeof(*s));
	s->dfd = s->wfd = s->lfd = s->cfd = s->sfd = -1;
	s->dir = weft_xstrdup(dir);
	s->hidden = weft_xasprintf("%s/" OUTSET_HIDDEN, dir);
	if (mkdir_p(dir, &s->made, e)) {
		release(s);
		return -1;
	}
	s->open = 1;
	onexit_add(undo_at_exit, s);
	s->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = s->dfd < 0 ? weft_out_fail(e, errno, "%s: cannot open the output directory", dir) : 1;
	/* a run that removed DIR/.weft as this one came: at most a few rounds */
	for (int tries = 0; rc == 1; tries++) {
		close_lock(s);
		rc = tries == 100 ? weft_fail(e, WEFT_EINPUT, "%s: keeps changing while weft takes its lock", s->hidden)
				  : outgen_lock(s, e);
	}
	s->locked = rc == 0;
	if (rc == 0)
		rc = outgen_recover(s, e);
	if (rc == 0) {
		s->gen = s->cur + 1;
		s->stage = weft_xasprintf("%s/gen-%ld", s->hidden, s->gen);
		s->sfd = outgen_dir(s->wfd, s->stage + strlen(s->hidden) + 1, 1);
		if (s->sfd < 0)
			rc = weft_out_fail(e, errno, "%s: cannot create", s->stage);
	}
	if (rc) {
		outset_abort(s);
		return -1;
	}
	return 0;
}

static int find(char *const *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return i;
	return -1;
}

const char *outset_add(struct outset *s, const char *name)
{
	int i = find(s->name, s->n, name);
	if (i >= 0)
		return s->path[i];
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 32;
		s->name = weft_xrealloc(s->name, (size_t) s->cap * sizeof(*s->name));
		s->path = weft_xrealloc(s->path, (size_t) s->cap * sizeof(*s->path));
	}
	s->name[s->n] = weft_xstrdup(name);
	s->path[s->n] = weft_xasprintf("%s/%s", s->stage, name);
	return s->path[s->n++];
}

void outset_retire(struct outset *s, const char *name)
{
	if (find(s->retire, s->nretire, name) >= 0)
		return;
	if (s->nretire == s->rcap) {
		s->rcap = s->rcap ? 2 * s->rcap : 32;
		s->retire = weft_xrealloc(s->retire, (size_t) s->rcap * sizeof(*s->retire));
	}
	s->retire[s->nretire++] = weft_xstrdup(name);
}

char *outset_shown(const struct outset *s, const char *name)
{
	return weft_xasprintf("%s/%s", s->dir, name);
}

int outset_write(struct outset *s, const char *name, const char *text, size_t len, struct weft_err *e)
{
	const char *path = outset_add(s, name);
	char *shown = outset_shown(s, name);
	const char *slash = strrchr(name, '/');
	int fd = -1;
	if (slash) { /* its folders in the new generation */
		char *d = weft_xasprintf("%.*s", (int) (slash - name), name);
		fd = outgen_dir(s->sfd, d, 1);
		free(d);
	}
	if (!slash || fd >= 0) {
		if (fd >= 0)
			close(fd);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	}
	int rc = 0;
	if (fd < 0) {
		rc = weft_out_fail(e, errno, "%s: cannot create", shown);
	} else {
		struct outbuf o = {.buf = (char *) text, .len = len, .cap = len, .fd = fd};
		ob_drain(&o);
		int er = o.failed;
		if (close(fd) != 0 && !er)
			er = errno;
		if (er)
			rc = weft_out_fail(e, er, "%s: write failed", shown);
	}
	free(shown);
	return rc;
}

/* The folders of DIR on the way to `name` must be folders (or absent), and
 * `name` no folder. */
static int check_one(const struct outset *s, const char *name, struct weft_err *e)
{
	char *p = outset_shown(s, name);
	size_t base = strlen(s->dir);
	int rc = 0;
	for (char *c = p + base + 1; *c && rc == 0; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			rc = weft_fail(e, WEFT_EUSAGE,
				       "%s: a symbolic link, but weft writes %s/%s in a folder there "
				       "of its own (make it a folder, or use -o to write elsewhere)",
				       p, s->dir, name);
		else if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
			rc = weft_fail(e, WEFT_EUSAGE, "%s: not a directory, but weft writes %s/%s in it", p, s->dir,
				       name);
		*c = '/';
	}
	struct stat st;
	if (rc == 0 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
		rc = weft_fail(e, WEFT_EUSAGE,
			       "%s: is a directory; weft writes a file of that name and will not replace a directory",
			       p);
	free(p);
	return rc;
}

int outset_check(const struct outset *s, struct weft_err *e)
{
	for (int i = 0; i < s->n; i++)
		if (check_one(s, s->name[i], e))
			return -1;
	return 0;
}

/* Before the switch: every name to show or to retire a link of weft's
 * (showing what it showed), every name to show linked. The links made for
 * names nothing showed yet are listed in `made`, to go again on failure. */
static int prepare(struct outset *s, const struct outgen_names *shown, struct outgen_names *made, struct weft_err *e)
{
	for (int i = 0; i < shown->n; i++)
		if (outgen_adopt(s, shown->v[i], e))
			return -1;
	for (int i = 0; i < s->n; i++)
		if (!outgen_names_has(shown, s->name[i]) && outgen_adopt(s, s->name[i], e))
			return -1;
	for (int i = 0; i < s->nretire; i++)
		if (!outgen_names_has(shown, s->retire[i]) && outgen_adopt(s, s->retire[i], e))
			return -1;
	for (int i = 0; i < shown->n; i++) {
		int m = 0;
		if (outgen_link(s, shown->v[i], &m, e))
			return -1;
		if (m)
			outgen_names_add(made, shown->v[i]);
	}
	return 0;
}

int outset_commit(struct outset *s, struct weft_err *e)
{
	if (!s->open)
		return weft_fail(e, WEFT_EINTERNAL, "outset_commit: the set is not open");
	if (outset_check(s, e)) {
		outset_abort(s);
		return -1;
	}
	/* the new generation's files are the outputs */
	struct outgen_names shown = {0}, made = {0};
	/* a name the walk missed would go unshown: no commit then */
	int er = outgen_walk(s->sfd, "", &shown);
	outgen_names_sort(&shown);
	int rc = er ? weft_out_fail(e, er, "%s: cannot list the outputs", s->stage) : prepare(s, &shown, &made, e);
	long old = s->cur;
	if (rc == 0)
		rc = outgen_switch(s, s->gen, e); /* the one step */
	if (rc) {
		for (int i = 0; i < made.n; i++)
			outgen_unlink(s, made.v[i]);
	} else {
		/* the previous generation and the links only it had */
		if (s->cfd >= 0)
			close(s->cfd);
		s->cfd = s->sfd;
		s->sfd = -1;
		s->cur = s->gen;
		char g[32];
		snprintf(g, sizeof(g), "gen-%ld", old);
		outgen_drop(s, g);
	}
	outgen_names_free(&shown);
	outgen_names_free(&made);
	if (rc) {
		outset_abort(s);
		return -1;
	}
	release(s);
	return 0;
}

void outset_abort(struct outset *s)
{
	if (!s->open && !s->dir)
		return;
	if (s->open)
		undo(s);
	release(s);
}
