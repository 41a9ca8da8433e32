/* mapfile: read-only mmap of inputs, with page release behind the reader. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mapfile.h"

static const char *file_kind(mode_t mode)
{
	static const struct {
		mode_t type;
		const char *name;
	} kinds[] = {
		{S_IFIFO, "a FIFO (named pipe)"}, {S_IFDIR, "a directory"},
		{S_IFCHR, "a character device"},  {S_IFBLK, "a block device"},
		{S_IFSOCK, "a socket"},
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((mode & S_IFMT) == kinds[i].type)
			return kinds[i].name;
	return "not a file";
}

int input_open(const char *path, struct weft_err *e)
{
	/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	 * writer, forever if there is none */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return weft_fail(e, WEFT_EINPUT, "%s: cannot open for reading: %s%s", path, strerror(errno),
				 weft_sys_hint(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int er = errno;
		close(fd);
		return weft_fail(e, WEFT_EINPUT, "%s: cannot stat: %s", path, strerror(er));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return weft_fail(e, WEFT_EINPUT, "%s: %s, not a regular file", path, file_kind(st.st_mode));
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int er = errno;
		close(fd);
		return weft_fail(e, WEFT_EINPUT, "%s: cannot read: %s", path, strerror(er));
	}
	return fd;
}

int map_open(struct mapfile *m, const char *path, struct weft_err *e)
{
	memset(m, 0, sizeof(*m));
	int fd = input_open(path, e);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int er = errno;
		close(fd);
		return weft_fail(e, WEFT_EINPUT, "%s: cannot stat: %s", path, strerror(er));
	}
	m->size = (size_t) st.st_size;
	if (m->size > 0) {
		void *p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			int er = errno;
			close(fd);
			return weft_fail(e, WEFT_EINPUT, "%s: cannot map: %s%s", path, strerror(er), weft_sys_hint(er));
		}
		madvise(p, m->size, MADV_SEQUENTIAL);
		m->data = p;
	} else {
		m->data = (const uint8_t *) ""; /* readers may do data + size */
	}
	close(fd);
	return 0;
}

void map_close(struct mapfile *m)
{
	if (m->data && m->size)
		munmap((void *) m->data, m->size);
	memset(m, 0, sizeof(*m));
}

void map_drop(struct mapfile *m, size_t from, size_t to)
{
	if (!m->data || !m->size || m->keep)
		return;
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	size_t a = (from + page - 1) & ~(page - 1), b = to & ~(page - 1);
	if (a < m->released)
		a = (m->released + page - 1) & ~(page - 1);
	if (b > a)
		madvise((void *) (m->data + a), b - a, MADV_DONTNEED);
}

void map_release_now(struct mapfile *m, size_t upto)
{
	if (!m->data || !m->size)
		return;
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	size_t end = upto & ~(page - 1);
	if (end > m->released) {
		/* kept memory is only marked given back: readers pace on `released` */
		if (!m->keep)
			madvise((void *) (m->data + m->released), end - m->released, MADV_DONTNEED);
		m->released = end;
	}
}
