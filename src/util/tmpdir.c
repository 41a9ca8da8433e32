/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tmpdir: the private folder and its sweep (see tmpdir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/rmtree.h"
#include "util/tmpdir.h"

#define TMP_HINT "set TMPDIR to a folder of your own"

int tmpdir_open(char **path, struct weft_err *e)
{
	const char *base = getenv("TMPDIR");
	base = base && *base ? base : "/tmp";
	uid_t uid = geteuid();
	char *p = weft_xasprintf("%s/weft-%ld", base, (long) uid);
	*path = NULL;
	if (mkdir(p, 0700) != 0 && errno != EEXIST) {
		int er = errno;
		weft_tmp_fail(e, er, "%s: cannot create weft's temporary folder", p);
		free(p);
		return -1;
	}
	struct stat st;
	int link = lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
	int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = 0;
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		rc = weft_fail(e, WEFT_EINPUT, "%s: %s, not weft's private temporary folder (remove it, or %s)", p,
			       link ? "a symbolic link" : "not a directory", TMP_HINT);
	else if (fd < 0)
		rc = weft_tmp_fail(e, errno, "%s: cannot open weft's temporary folder", p);
	else if (fstat(fd, &st) != 0)
		rc = weft_tmp_fail(e, errno, "%s", p);
	else if (st.st_uid != uid)
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s: owned by user %ld, not by you (%ld): weft keeps its temporaries "
			       "only in a folder of yours (remove it, or %s)",
			       p, (long) st.st_uid, (long) uid, TMP_HINT);
	else if (st.st_mode & 077)
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s: other users can reach it (mode %04o): weft keeps its temporaries "
			       "only in a folder no one else can (chmod 700 it, or %s)",
			       p, (unsigned) (st.st_mode & 07777), TMP_HINT);
	if (rc) {
		if (fd >= 0)
			close(fd);
		free(p);
		return -1;
	}
	*path = p;
	return fd;
}

long tmpdir_pid_after(const char *name, const char *tag)
{
	const char *d = NULL;
	for (const char *m = strstr(name, tag); m; m = strstr(m + 1, tag))
		d = m; /* the last: NAME itself may hold the tag */
	if (!d)
		return 0;
	d += strlen(tag);
	long pid = 0;
	for (; *d && *d != '-'; d++) {
		if (*d < '0' || *d > '9' || pid > 100000000)
			return 0;
		pid = pid * 10 + (*d - '0');
	}
	return pid;
}

int tmpdir_pid_gone(long pid)
{
	/* alive, or someone else's (EPERM): the run may still go on */
	return pid > 0 && pid != (long) getpid() && kill((pid_t) pid, 0) != 0 && errno == ESRCH;
}

int tmpdir_sweep(int fd, const char *prefix)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	char *tag = weft_xasprintf("%s-", prefix);
	size_t n = strlen(tag);
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, tag, n) == 0 && tmpdir_pid_gone(tmpdir_pid_after(de->d_name, tag)))
			removed += rmtree_at(fd, de->d_name) == 0;
	free(tag);
	closedir(d);
	return removed;
}
