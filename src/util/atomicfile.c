/* SPDX-License-Identifier: GPL-3.0-or-later */
/* atomicfile: temporary name, then rename (see atomicfile.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/outbuf.h"
#include "util/rmtree.h"
#include "util/tmpdir.h"

/* path split into its folder ("." for none) and its last component */
struct where {
	char *dir, *base;
};

static void where_free(struct where *w)
{
	free(w->dir);
	free(w->base);
}

/* Is `path` a name weft can write a new file (want_dir 0) or folder at? */
static int usable(const char *path, int want_dir, struct where *w, struct weft_err *e)
{
	memset(w, 0, sizeof(*w));
	const char *what = want_dir ? "directory" : "file";
	if (!*path)
		return weft_fail(e, WEFT_EUSAGE, "an empty name names no %s", what);
	char *p = weft_xstrdup(path);
	size_t n = strlen(p);
	int trailing = p[n - 1] == '/';
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	char *slash = strrchr(p, '/');
	w->base = weft_xstrdup(slash ? slash + 1 : p);
	w->dir = slash == p ? weft_xstrdup("/")
		: slash	    ? weft_xasprintf("%.*s", (int) (slash - p), p)
			    : weft_xstrdup(".");
	free(p);
	struct stat st;
	int rc = 0;
	if (!*w->base || strcmp(w->base, ".") == 0 || strcmp(w->base, "..") == 0 || (trailing && !want_dir))
		rc = weft_fail(e, WEFT_EUSAGE, "%s: names a directory, not a new %s", path, what);
	else if (stat(w->dir, &st) != 0 || !S_ISDIR(st.st_mode))
		rc = weft_fail(e, WEFT_EUSAGE, "%s: %s is no directory to write it in", path, w->dir);
	else if (!want_dir && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		rc = weft_fail(e, WEFT_EUSAGE, "%s: is a directory; -o names the %s to write", path, what);
	if (rc)
		where_free(w);
	return rc;
}

int atomic_check(const char *path, int want_dir, struct weft_err *e)
{
	struct where w;
	if (usable(path, want_dir, &w, e))
		return -1;
	where_free(&w);
	return 0;
}

/* Temporaries of w->base that killed runs left in w->dir: removed. */
static void sweep(const struct where *w)
{
	int fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	char *tag = weft_xasprintf(".%s.weft-tmp-", w->base);
	int d2 = dup(fd);
	DIR *d = d2 < 0 ? NULL : fdopendir(d2);
	struct dirent *de;
	size_t n = strlen(tag);
	while (d && (de = readdir(d)))
		if (strncmp(de->d_name, tag, n) == 0 && tmpdir_pid_gone(tmpdir_pid_after(de->d_name, tag)))
			rmtree_at(fd, de->d_name);
	if (d)
		closedir(d);
	else if (d2 >= 0)
		close(d2);
	close(fd);
	free(tag);
}

static char *tmp_name(const struct where *w)
{
	return weft_xasprintf("%s/.%s.weft-tmp-%ld-XXXXXX", w->dir, w->base, (long) getpid());
}

int atomic_open(const char *path, char **tmp, struct weft_err *e)
{
	struct where w;
	*tmp = NULL;
	if (usable(path, 0, &w, e))
		return -1;
	sweep(&w);
	*tmp = tmp_name(&w);
	where_free(&w);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		weft_out_fail(e, errno, "%s: cannot create", path);
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	/* mkstemp makes it 0600 */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0)
		weft_warn("%s: cannot set permissions: %s", *tmp, strerror(errno));
	return fd;
}

int atomic_commit(int fd, char *tmp, const char *path, int rc, struct weft_err *e)
{
	if (fd >= 0 && close(fd) != 0 && rc == 0)
		rc = weft_out_fail(e, errno, "%s: write failed", path);
	if (rc == 0 && rename(tmp, path) != 0)
		rc = weft_out_fail(e, errno, "%s: cannot rename its temporary %s to it", path, tmp);
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int atomic_write(const char *path, const char *text, size_t len, struct weft_err *e)
{
	char *tmp;
	int fd = atomic_open(path, &tmp, e);
	if (fd < 0)
		return -1;
	struct outbuf o = {.buf = (char *) text, .len = len, .cap = len, .fd = fd};
	ob_drain(&o);
	int rc = 0;
	if (o.failed)
		rc = weft_out_fail(e, o.failed, "%s: write failed", path);
	return atomic_commit(fd, tmp, path, rc, e);
}

static int empty_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n == 0;
}

int atomic_dir_open(const char *path, char **tmp, struct weft_err *e)
{
	struct where w;
	*tmp = NULL;
	if (usable(path, 1, &w, e))
		return -1;
	struct stat st;
	if (lstat(path, &st) == 0 && (!S_ISDIR(st.st_mode) || !empty_dir(path))) {
		where_free(&w);
		return weft_fail(e, WEFT_EUSAGE, "%s: already exists and is not an empty directory", path);
	}
	sweep(&w);
	*tmp = tmp_name(&w);
	where_free(&w);
	if (!mkdtemp(*tmp)) {
		weft_out_fail(e, errno, "%s: cannot create", path);
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (chmod(*tmp, 0777 & ~mask) != 0)
		weft_warn("%s: cannot set permissions: %s", *tmp, strerror(errno));
	return 0;
}

int atomic_dir_commit(char *tmp, const char *path, int rc, struct weft_err *e)
{
	/* an empty directory in the way is replaced (rename(2) allows it) */
	if (rc == 0 && rename(tmp, path) != 0)
		rc = weft_out_fail(e, errno, "%s: cannot rename its temporary %s to it", path, tmp);
	if (rc)
		rmtree(tmp);
	free(tmp);
	return rc;
}
