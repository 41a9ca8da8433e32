/* mkdirp: mkdir -p (see mkdirp.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mkdirp.h"

int mkdir_p(const char *path, struct weft_err *e)
{
	char *p = weft_xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			int er = errno;
			weft_fail(e, WEFT_EINTERNAL, "%s: cannot create directory: %s", p, strerror(er));
			free(p);
			return -1;
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, 0777) != 0 && errno != EEXIST)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: cannot create directory: %s", p, strerror(errno));
	free(p);
	return rc;
}
