/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outgen: lock, repair, links and switch of an output directory (outgen.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outgen.h"
#include "util/rmtree.h"
#include "util/tmpdir.h"

/* names in DIR/.weft besides the generations */
#define LOCK "lock"
#define CURRENT "current"
#define CURRENT_NEW "current.new"
#define LINK_TMP "link-tmp"
#define ADOPT_TMP "adopt-tmp"

/* ---- names ---------------------------------------------------------------------------- */

void outgen_names_add(struct outgen_names *l, const char *rel)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = weft_xrealloc(l->v, (size_t) l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = weft_xstrdup(rel);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

void outgen_names_sort(struct outgen_names *l)
{
	if (l->n > 1)
		qsort(l->v, (size_t) l->n, sizeof(*l->v), cmp_str);
}

int outgen_names_has(const struct outgen_names *l, const char *rel)
{
	return l->n > 0 && bsearch(&rel, l->v, (size_t) l->n, sizeof(*l->v), cmp_str) != NULL;
}

void outgen_names_free(struct outgen_names *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- paths by descriptors ---------------------------------------------------------------- */

int outgen_dir(int root, const char *rel, int make)
{
	int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *c = rel;
	while (fd >= 0 && *c) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t) (slash - c) : strlen(c);
		char comp[256];
		if (n == 0 || n >= sizeof(comp)) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, c, n);
		comp[n] = '\0';
		int sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 && errno == ENOENT && make && (mkdirat(fd, comp, 0777) == 0 || errno == EEXIST))
			sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int er = errno;
		close(fd);
		errno = er;
		fd = sub;
		c += n + (slash != NULL);
	}
	return fd;
}

/* rel's folder part ("" for none) into buf; its last component returned */
static const char *split(const char *rel, char *buf, size_t n)
{
	const char *slash = strrchr(rel, '/');
	size_t k = slash ? (size_t) (slash - rel) : 0;
	if (k >= n)
		k = n - 1;
	memcpy(buf, rel, k);
	buf[k] = '\0';
	return slash ? slash + 1 : rel;
}

/* What weft's link DIR/rel points to: up to DIR, then .weft/current/rel. */
static char *target(const char *rel)
{
	size_t depth = 0;
	for (const char *c = rel; *c; c++)
		depth += *c == '/';
	size_t n = 3 * depth + strlen(OUTSET_HIDDEN "/" CURRENT "/") + strlen(rel) + 1;
	char *t = weft_xmalloc(n), *p = t;
	for (size_t i = 0; i < depth; i++, p += 3)
		memcpy(p, "../", 3);
	snprintf(p, n - 3 * depth, "%s/%s/%s", OUTSET_HIDDEN, CURRENT, rel);
	return t;
}

/* Is `base` in the folder pfd weft's link for rel? */
static int is_ours(int pfd, const char *base, const char *rel)
{
	char buf[4096];
	ssize_t n = readlinkat(pfd, base, buf, sizeof(buf) - 1);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	char *t = target(rel);
	int ours = strcmp(buf, t) == 0;
	free(t);
	return ours;
}

int outgen_walk(int fd, const char *prefix, struct outgen_names *out)
{
	int d2 = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = d2 < 0 ? NULL : fdopendir(d2);
	if (!d) {
		int er = errno;
		if (d2 >= 0)
			close(d2);
		return er;
	}
	int er = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			er = er ? er : errno;
			continue;
		}
		char *rel = *prefix ? weft_xasprintf("%s/%s", prefix, de->d_name) : weft_xstrdup(de->d_name);
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int r = sub >= 0 ? outgen_walk(sub, rel, out) : errno;
			if (sub >= 0)
				close(sub);
			er = er ? er : r;
		} else {
			outgen_names_add(out, rel);
		}
		free(rel);
	}
	closedir(d);
	return er;
}

/* ---- the lock -------------------------------------------------------------------------------- */

static int same_file(int fd, int at, const char *name)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstatat(at, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
		a.st_ino == b.st_ino;
}

static int held(struct outset *s, struct weft_err *e)
{
	struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(s->lfd, F_GETLK, &q) != 0 || q.l_type == F_UNLCK)
		return 1; /* released meanwhile: try again */
	if (q.l_pid > 0)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: another weft run (PID %ld) is writing its outputs here: wait "
				 "for it to end, or use -o to write elsewhere",
				 s->dir, (long) q.l_pid);
	return weft_fail(e, WEFT_EINPUT,
			 "%s: another weft run is writing its outputs here: wait for it to end, "
			 "or use -o to write elsewhere",
			 s->dir);
}

int outgen_lock(struct outset *s, struct weft_err *e)
{
	if (mkdirat(s->dfd, OUTSET_HIDDEN, 0777) == 0)
		s->made_hidden = 1;
	else if (errno != EEXIST)
		return weft_out_fail(e, errno, "%s: cannot create weft's folder of outputs", s->hidden);
	s->wfd = openat(s->dfd, OUTSET_HIDDEN, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->wfd < 0 && (errno == ENOTDIR || errno == ELOOP))
		return weft_fail(e, WEFT_EUSAGE,
				 "%s: not a directory, but weft keeps its outputs there (remove it, "
				 "or use -o to write elsewhere)",
				 s->hidden);
	if (s->wfd < 0)
		return errno == ENOENT ? 1 : weft_out_fail(e, errno, "%s: cannot open", s->hidden);
	s->lfd = openat(s->wfd, LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (s->lfd < 0)
		return errno == ENOENT ? 1 : weft_out_fail(e, errno, "%s/" LOCK ": cannot create", s->hidden);
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(s->lfd, F_SETLK, &fl) != 0) {
		if (errno == EACCES || errno == EAGAIN)
			return held(s, e);
		if (errno != ENOLCK && errno != EOPNOTSUPP && errno != ENOSYS)
			return weft_out_fail(e, errno, "%s/" LOCK ": cannot lock", s->hidden);
		weft_warn("%s/" LOCK ": cannot lock (%s): a second run into %s at once would not be refused", s->hidden,
			  strerror(errno), s->dir);
	}
	/* a run that found nothing to keep removes DIR/.weft: a lock taken on
	 * what it removed is no lock */
	if (!same_file(s->wfd, s->dfd, OUTSET_HIDDEN) || !same_file(s->lfd, s->wfd, LOCK))
		return 1;
	return 0;
}

/* ---- links ------------------------------------------------------------------------------------ */

/* Remove the folders of rel in DIR that are empty, deepest first. */
static void prune(struct outset *s, const char *rel)
{
	char dir[4096];
	split(rel, dir, sizeof(dir));
	while (*dir) {
		char up[4096];
		const char *last = split(dir, up, sizeof(up));
		int pfd = outgen_dir(s->dfd, up, 0);
		int gone = pfd >= 0 && unlinkat(pfd, last, AT_REMOVEDIR) == 0;
		if (pfd >= 0)
			close(pfd);
		if (!gone)
			return;
		memmove(dir, up, strlen(up) + 1);
	}
}

void outgen_unlink(struct outset *s, const char *rel)
{
	char dir[4096];
	const char *base = split(rel, dir, sizeof(dir));
	int pfd = outgen_dir(s->dfd, dir, 0);
	if (pfd < 0)
		return;
	int gone = is_ours(pfd, base, rel) && unlinkat(pfd, base, 0) == 0;
	close(pfd);
	if (gone)
		prune(s, rel);
}

int outgen_link(struct outset *s, const char *rel, int *made, struct weft_err *e)
{
	char dir[4096];
	const char *base = split(rel, dir, sizeof(dir));
	*made = 0;
	int pfd = outgen_dir(s->dfd, dir, 1);
	if (pfd < 0)
		return weft_out_fail(e, errno, "%s/%s: cannot create directory", s->dir, dir);
	int rc = 0;
	if (!is_ours(pfd, base, rel)) {
		char *t = target(rel);
		if (symlinkat(t, pfd, base) == 0)
			*made = 1;
		else if (errno == EEXIST)
			rc = weft_fail(e, WEFT_EINPUT, "%s/%s: appeared while weft wrote its outputs", s->dir, rel);
		else
			rc = weft_out_fail(e, errno, "%s/%s: cannot create", s->dir, rel);
		free(t);
	}
	close(pfd);
	return rc;
}

/* The bytes of the file open as `in` into DIR/.weft/adopt-tmp. */
static int copy_in(struct outset *s, int in, struct weft_err *e, const char *what)
{
	int out = openat(s->wfd, ADOPT_TMP, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (out < 0)
		return weft_out_fail(e, errno, "%s/" ADOPT_TMP ": cannot create", s->hidden);
	char buf[1 << 16];
	ssize_t r;
	int er = 0;
	while ((r = read(in, buf, sizeof(buf))) > 0 && !er)
		for (ssize_t k = 0; k < r && !er;) {
			ssize_t w = write(out, buf + k, (size_t) (r - k));
			if (w < 0)
				er = errno;
			else
				k += w;
		}
	if (r < 0 && !er)
		er = errno;
	if (close(out) != 0 && !er)
		er = errno;
	return er ? weft_out_fail(e, er, "%s: cannot keep a copy of it", what) : 0;
}

/* The shown generation, made (with `current`) when there is none. */
static int shown_gen(struct outset *s, struct weft_err *e)
{
	if (s->cfd >= 0)
		return 0;
	char g[32];
	snprintf(g, sizeof(g), "gen-%ld", s->cur);
	if (mkdirat(s->wfd, g, 0777) != 0 && errno != EEXIST)
		return weft_out_fail(e, errno, "%s/%s: cannot create", s->hidden, g);
	s->cfd = openat(s->wfd, g, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->cfd < 0)
		return weft_out_fail(e, errno, "%s/%s: cannot open", s->hidden, g);
	if (!s->shown && outgen_switch(s, s->cur, e))
		return -1;
	return 0;
}

/* DIR/rel's bytes into the shown generation (pfd: rel's folder in DIR). */
static int keep_bytes(struct outset *s, int pfd, const char *base, const char *rel, const struct stat *st,
		      struct weft_err *e)
{
	char *what = outset_shown(s, rel);
	int rc = 0, have = 0;
	unlinkat(s->wfd, ADOPT_TMP, 0);
	if (S_ISREG(st->st_mode) && linkat(pfd, base, s->wfd, ADOPT_TMP, 0) == 0) {
		have = 1;
	} else if (S_ISREG(st->st_mode) || S_ISLNK(st->st_mode)) {
		/* no hard link here (or another's link to a file): a copy */
		int in = openat(pfd, base, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		struct stat is;
		if (in >= 0 && fstat(in, &is) == 0 && S_ISREG(is.st_mode)) {
			rc = copy_in(s, in, e, what);
			have = rc == 0;
		}
		if (in >= 0)
			close(in);
	}
	if (have) {
		char dir[4096];
		const char *b = split(rel, dir, sizeof(dir));
		int gfd = outgen_dir(s->cfd, dir, 1);
		if (gfd < 0 || renameat(s->wfd, ADOPT_TMP, gfd, b) != 0)
			rc = weft_out_fail(e, errno, "%s: cannot keep it", what);
		if (gfd >= 0)
			close(gfd);
		/* a rename onto another link to the same file does nothing */
		unlinkat(s->wfd, ADOPT_TMP, 0);
	}
	free(what);
	return rc;
}

int outgen_adopt(struct outset *s, const char *rel, struct weft_err *e)
{
	char dir[4096];
	const char *base = split(rel, dir, sizeof(dir));
	int pfd = outgen_dir(s->dfd, dir, 0);
	if (pfd < 0)
		return 0; /* no folder (or a file, a link: outset_check), nothing to keep */
	struct stat st;
	int rc = 0;
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode) ||
	    (S_ISLNK(st.st_mode) && is_ours(pfd, base, rel))) {
		close(pfd);
		return 0;
	}
	rc = shown_gen(s, e);
	if (rc == 0)
		rc = keep_bytes(s, pfd, base, rel, &st, e);
	if (rc == 0) {
		char *t = target(rel);
		unlinkat(s->wfd, LINK_TMP, 0);
		if (symlinkat(t, s->wfd, LINK_TMP) != 0 || renameat(s->wfd, LINK_TMP, pfd, base) != 0)
			rc = weft_out_fail(e, errno, "%s/%s: cannot make it a link", s->dir, rel);
		free(t);
	}
	close(pfd);
	return rc;
}

int outgen_switch(struct outset *s, long gen, struct weft_err *e)
{
	char g[32];
	snprintf(g, sizeof(g), "gen-%ld", gen);
	unlinkat(s->wfd, CURRENT_NEW, 0);
	if (symlinkat(g, s->wfd, CURRENT_NEW) != 0)
		return weft_out_fail(e, errno, "%s/" CURRENT_NEW ": cannot create", s->hidden);
	if (renameat(s->wfd, CURRENT_NEW, s->wfd, CURRENT) != 0) {
		int er = errno;
		unlinkat(s->wfd, CURRENT_NEW, 0);
		return weft_out_fail(e, er, "%s/" CURRENT ": cannot replace", s->hidden);
	}
	s->shown = 1;
	return 0;
}

/* ---- repair ------------------------------------------------------------------------------------ */

void outgen_drop(struct outset *s, const char *name)
{
	int gfd = openat(s->wfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (gfd >= 0) {
		struct outgen_names l = {0};
		outgen_walk(gfd, "", &l);
		close(gfd);
		struct stat st;
		for (int i = 0; i < l.n; i++)
			if (s->cfd < 0 || fstatat(s->cfd, l.v[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
				outgen_unlink(s, l.v[i]);
		outgen_names_free(&l);
	}
	rmtree_at(s->wfd, name);
}

/* "gen-N" -> N, else -1 */
static long gen_number(const char *name)
{
	if (strncmp(name, "gen-", 4) != 0 || !name[4])
		return -1;
	long n = 0;
	for (const char *c = name + 4; *c; c++) {
		if (*c < '0' || *c > '9' || n > 100000000)
			return -1;
		n = n * 10 + (*c - '0');
	}
	return n;
}

static int find_current(struct outset *s, struct weft_err *e)
{
	char buf[64];
	ssize_t n = readlinkat(s->wfd, CURRENT, buf, sizeof(buf) - 1);
	if (n < 0 && errno == ENOENT)
		return 0;
	if (n >= 0)
		buf[n] = '\0';
	if (n < 0 && errno != EINVAL)
		return weft_out_fail(e, errno, "%s/" CURRENT ": cannot read", s->hidden);
	if (n < 0 || gen_number(buf) < 0)
		return weft_fail(e, WEFT_EINPUT,
				 "%s/" CURRENT ": not weft's (a link to gen-N): remove %s to start "
				 "afresh",
				 s->hidden, s->hidden);
	s->shown = 1;
	s->cur = gen_number(buf);
	s->cfd = openat(s->wfd, buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return 0;
}

/* Older weft versions' temporaries in DIR itself (".NAME.weft-tmp-PID",
 * ".NAME.weft-old-PID", ".weft-ranks-PID") of runs that are over. */
static void sweep_legacy(struct outset *s)
{
	int d2 = openat(s->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = d2 < 0 ? NULL : fdopendir(d2);
	if (!d) {
		if (d2 >= 0)
			close(d2);
		return;
	}
	struct outgen_names l = {0};
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		long pid = nm[0] != '.'			       ? 0
			: strncmp(nm, ".weft-ranks-", 12) == 0 ? tmpdir_pid_after(nm, ".weft-ranks-")
			: strstr(nm, ".weft-old-")	       ? tmpdir_pid_after(nm, ".weft-old-")
							       : tmpdir_pid_after(nm, ".weft-tmp-");
		if (tmpdir_pid_gone(pid))
			outgen_names_add(&l, nm);
	}
	closedir(d);
	for (int i = 0; i < l.n; i++)
		rmtree_at(s->dfd, l.v[i]);
	outgen_names_free(&l);
}

int outgen_recover(struct outset *s, struct weft_err *e)
{
	if (find_current(s, e))
		return -1;
	int d2 = openat(s->wfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = d2 < 0 ? NULL : fdopendir(d2);
	if (!d) {
		if (d2 >= 0)
			close(d2);
		return weft_out_fail(e, errno, "%s: cannot read", s->hidden);
	}
	struct outgen_names l = {0};
	struct dirent *de;
	while ((de = readdir(d)))
		outgen_names_add(&l, de->d_name);
	closedir(d);
	for (int i = 0; i < l.n; i++) {
		const char *nm = l.v[i];
		long g = gen_number(nm);
		if (g >= 0 && !(s->shown && g == s->cur))
			outgen_drop(s, nm); /* a killed run's, or one a run did not finish removing */
		else if (strcmp(nm, CURRENT_NEW) == 0 || strcmp(nm, LINK_TMP) == 0 || strcmp(nm, ADOPT_TMP) == 0 ||
			 strncmp(nm, OUTSET_RANKS, strlen(OUTSET_RANKS)) == 0)
			rmtree_at(s->wfd, nm);
	}
	outgen_names_free(&l);
	sweep_legacy(s);
	return 0;
}
