/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usock: Unix stream sockets in a private folder (usock.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/usock.h"

static int fill_addr(struct sockaddr_un *a, const char *path, struct weft_err *e)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	size_t n = strlen(path);
	if (n == 0)
		return weft_fail(e, WEFT_EUSAGE, "the socket path is empty");
	if (n >= sizeof(a->sun_path))
		return weft_fail(e, WEFT_EUSAGE, "%s: a socket path has at most %zu bytes", path,
				 sizeof(a->sun_path) - 1);
	memcpy(a->sun_path, path, n);
	return 0;
}

/* The folder of path (a new string). */
static char *folder_of(const char *path)
{
	char *copy = weft_xstrdup(path);
	char *d = weft_xstrdup(dirname(copy));
	free(copy);
	return d;
}

/* The folder exists and is private, or is made so. */
static int private_folder(struct usock *u, const char *dir, struct weft_err *e)
{
	struct stat st;
	if (lstat(dir, &st) != 0) {
		if (errno != ENOENT)
			return weft_fail(e, WEFT_EUSAGE, "%s: %s", dir, strerror(errno));
		if (mkdir(dir, 0700) != 0)
			return weft_fail(e, WEFT_EUSAGE, "%s: cannot create the socket's folder: %s", dir,
					 strerror(errno));
		u->made_dir = weft_xstrdup(dir);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return weft_fail(e, WEFT_EUSAGE, "%s: the socket's folder is not a directory", dir);
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return weft_fail(e, WEFT_EUSAGE,
				 "%s: the socket's folder must be private (yours, mode 0700: others could "
				 "connect or replace the socket); found mode %04o, owner %u",
				 dir, (unsigned) (st.st_mode & 07777), (unsigned) st.st_uid);
	return 0;
}

/* What is at path already: nothing, or a stale socket (0), else an error. */
static int path_free(const char *path, struct weft_err *e)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : weft_fail(e, WEFT_EUSAGE, "%s: %s", path, strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return weft_fail(e, WEFT_EUSAGE, "%s exists and is not a socket", path);
	struct weft_err ce = {0};
	int fd = usock_connect(path, &ce);
	if (fd >= 0) {
		close(fd);
		return weft_fail(e, WEFT_EUSAGE, "%s: another server is listening there", path);
	}
	return 0; /* nobody listens: renamed over */
}

int usock_listen(struct usock *u, const char *path, struct weft_err *e)
{
	memset(u, 0, sizeof(*u));
	u->fd = -1;
	struct sockaddr_un a;
	if (fill_addr(&a, path, e))
		return -1;
	char *dir = folder_of(path);
	int rc = private_folder(u, dir, e);
	char *tmp = rc ? NULL : weft_xasprintf("%s/.weft-serve.%ld", dir, (long) getpid());
	free(dir);
	if (rc || path_free(path, e) || fill_addr(&a, tmp, e))
		goto fail;
	u->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		weft_fail(e, WEFT_EINTERNAL, "socket: %s", strerror(errno));
		goto fail;
	}
	unlink(tmp); /* a leftover of a server with this pid */
	mode_t old = umask(0177);
	int b = bind(u->fd, (struct sockaddr *) &a, sizeof(a));
	umask(old);
	if (b != 0 || chmod(tmp, 0600) != 0 || listen(u->fd, 64) != 0) {
		weft_fail(e, WEFT_EINTERNAL, "%s: cannot listen: %s", tmp, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		weft_fail(e, WEFT_EUSAGE, "%s: cannot put the socket there: %s", path, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	free(tmp);
	u->path = weft_xstrdup(path);
	struct stat st;
	if (lstat(path, &st) == 0) {
		u->dev = st.st_dev;
		u->ino = st.st_ino;
	}
	return 0;
fail:
	free(tmp);
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
	if (u->made_dir)
		rmdir(u->made_dir);
	free(u->made_dir);
	u->made_dir = NULL;
	return -1;
}

void usock_unlisten(struct usock *u)
{
	if (u->fd >= 0) {
		struct stat b;
		/* only our socket: another server may have taken the path since */
		if (u->path && lstat(u->path, &b) == 0 && S_ISSOCK(b.st_mode) && b.st_dev == u->dev &&
		    b.st_ino == u->ino)
			unlink(u->path);
		close(u->fd);
	}
	u->fd = -1;
	if (u->made_dir)
		rmdir(u->made_dir);
	free(u->made_dir);
	free(u->path);
	u->made_dir = NULL;
	u->path = NULL;
}

int usock_connect(const char *path, struct weft_err *e)
{
	struct sockaddr_un a;
	if (fill_addr(&a, path, e))
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return weft_fail(e, WEFT_EINTERNAL, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *) &a, sizeof(a)) != 0) {
		int err = errno;
		close(fd);
		return weft_fail(e, WEFT_EINPUT, "%s: cannot connect: %s", path, strerror(err));
	}
	return fd;
}
