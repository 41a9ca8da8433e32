/* atomicfile: temporary name, then rename (see atomicfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/outbuf.h"

int atomic_open(const char *path, char **tmp, struct weft_err *e)
{
	*tmp = weft_xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		weft_fail(e, weft_io_code(errno), "%s: cannot create: %s", *tmp, strerror(errno));
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
		rc = weft_fail(e, weft_io_code(errno), "%s: write failed: %s", path, strerror(errno));
	if (rc == 0 && rename(tmp, path) != 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
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
		rc = weft_fail(e, weft_io_code(o.failed), "%s: write failed: %s", path, strerror(o.failed));
	return atomic_commit(fd, tmp, path, rc, e);
}
