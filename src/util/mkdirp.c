/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mkdirp: mkdir -p (see mkdirp.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mkdirp.h"

static int refused(struct weft_err *e, const char *p, int er)
{
	if (er == ENOTDIR || er == ENAMETOOLONG || er == ELOOP)
		return weft_fail(e, WEFT_EUSAGE, "%s: cannot create directory: %s", p, strerror(er));
	return weft_out_fail(e, er, "%s: cannot create directory", p);
}

int mkdir_p(const char *path, int *made, struct weft_err *e)
{
	int n = 0;
	if (made)
		*made = 0;
	if (!*path)
		return weft_fail(e, WEFT_EUSAGE, "an empty name names no directory");
	char *p = weft_xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		if (s[-1] == '/') { /* "a//b", "a/": no new level */
			if (!*s)
				break;
			continue;
		}
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) == 0) {
			n++;
		} else if (errno == EEXIST) {
			n = 0; /* an existing level: only deeper ones count as made */
		} else {
			rc = refused(e, p, errno);
			char *up = strrchr(p, '/');
			if (up)
				*up = '\0';
			if (up && up > p)
				rmdir_made(p, n);
			break;
		}
		if (!c)
			break;
		*s = c;
	}
	free(p);
	if (rc == 0 && made)
		*made = n;
	return rc;
}

void rmdir_made(const char *path, int made)
{
	/* no allocation: this runs at an exit for want of memory too */
	char p[PATH_MAX];
	size_t len = strlen(path);
	if (len >= sizeof(p))
		return;
	memcpy(p, path, len + 1);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	for (int i = 0; i < made; i++) {
		if (rmdir(p) != 0)
			break;
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		while (slash > p && slash[-1] == '/')
			slash--;
		*slash = '\0';
	}
}
