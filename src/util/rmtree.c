/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rmtree: descriptor-relative removal (see rmtree.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/rmtree.h"

/* deeper than weft ever writes; bounds the descriptors held open */
#define RMTREE_DEPTH 64

/* No allocation anywhere: this also runs at an exit for want of memory
 * (onexit.h), and folders are read straight from the kernel into a buffer
 * on the stack. What getdents64 returns (glibc declares no type for it
 * before 2.30): */
struct dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* An entry that turns from a folder into a link and back while weft looks
 * (someone swapping them) is tried again, this many times. */
#define RMTREE_TRIES 32

static int rm_dir(int fd, dev_t dev, int depth);

static int rm_at(int at, const char *name, dev_t dev, int depth)
{
	for (int t = 0; t < RMTREE_TRIES; t++) {
		if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
			return 0;
		if (errno != EISDIR && errno != EPERM)
			return -1;
		int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && (errno == ENOTDIR || errno == ELOOP))
			continue; /* it changed: now a link or a file */
		if (fd < 0)
			return errno == ENOENT ? 0 : -1;
		int er = rm_dir(fd, dev, depth) ? errno : 0;
		close(fd);
		if (unlinkat(at, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (!er)
			er = errno;
		if (er != ENOTEMPTY && er != EEXIST && er != ENOTDIR) {
			errno = er;
			return -1;
		}
	}
	errno = EAGAIN;
	return -1;
}

/* Empty the folder open as fd (never following a link). */
static int rm_dir(int fd, dev_t dev, int depth)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	if (st.st_dev != dev || depth >= RMTREE_DEPTH) {
		errno = EXDEV;
		return -1;
	}
	/* removing while reading may make the kernel skip entries: read again
	 * from the start until a pass finds nothing left (or fails to remove
	 * anything) */
	int er = 0;
	for (int pass = 0; pass < RMTREE_TRIES; pass++) {
		int removed = 0, left = 0;
		er = 0;
		if (lseek(fd, 0, SEEK_SET) != 0)
			return -1;
		char buf[2048] __attribute__((aligned(8)));
		long n;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (long k = 0; k < n;) {
				const struct dent64 *d = (const struct dent64 *) (buf + k);
				k += d->reclen;
				if (strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0)
					continue;
				left = 1;
				if (rm_at(fd, d->name, dev, depth + 1) == 0)
					removed = 1;
				else if (!er)
					er = errno;
			}
		if (n < 0)
			return -1;
		if (!left || !removed)
			break;
	}
	errno = er;
	return er ? -1 : 0;
}

int rmtree_at(int at, const char *name)
{
	struct stat st;
	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : -1;
	return rm_at(at, name, st.st_dev, 0);
}

int rmtree(const char *path)
{
	char p[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(p, path, n + 1);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	char *slash = strrchr(p, '/');
	if (!slash)
		return rmtree_at(AT_FDCWD, p);
	*slash = '\0';
	int at = open(slash == p ? "/" : p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = at < 0 ? -1 : rmtree_at(at, slash + 1);
	int er = errno;
	if (at >= 0)
		close(at);
	errno = er;
	return rc;
}
