/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mapfile: read-only mmap of inputs, with page release behind the reader,
 * and the SIGBUS handler that survives a file shrinking under its map. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mapfile.h"
#include "util/macros.h"

/* ---- the registry of mappings the SIGBUS handler may repair ---------------
 * Slots live in chunks that are never freed, so the handler can walk them
 * while another thread registers a mapping; a slot is live while its start
 * is not 0. Writers (map_open, map_close) hold the lock; the handler takes
 * none. */
#define SLOTS_PER_CHUNK 256

struct map_slot {
	/* the mapping, whole pages; start 0: a free slot */
	_Atomic uintptr_t start;
	_Atomic size_t len;
	/* the file shrank under it */
	atomic_int hit;
	char *path;
	/* the file's size when mapped, and which file it was: a name may
	 * since be another's */
	size_t size;
	dev_t dev;
	ino_t ino;
};

struct map_chunk {
	struct map_slot s[SLOTS_PER_CHUNK];
	struct map_chunk *_Atomic next;
};

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	struct map_chunk first;
	struct map_chunk *last; /* the newest chunk, its first `used` slots taken once */
	size_t used;
	struct map_slot **free; /* slots given back, to reuse */
	size_t nfree, capfree;
	char **gone; /* files that changed, their maps since closed */
	size_t ngone;
	uintptr_t page;
	struct sigaction old; /* the handler before ours (a sanitizer's, or none) */
} reg = {.lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT};

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t) si->si_addr;
	if (si->si_code > 0) /* raised by a fault, not sent by kill */
		for (struct map_chunk *c = &reg.first; c; c = atomic_load(&c->next))
			for (size_t i = 0; i < SLOTS_PER_CHUNK; i++) {
				struct map_slot *s = &c->s[i];
				uintptr_t st = atomic_load(&s->start), end = st + atomic_load(&s->len);
				if (!st || a < st || a >= end)
					continue;
				/* zero pages from the fault to the map's end: mmap is a
				 * plain system call on Linux, safe in a handler */
				uintptr_t p = a & ~(reg.page - 1);
				if (mmap((void *) p, end - p, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
					 0) == MAP_FAILED)
					break;
				atomic_store(&s->hit, 1);
				return;
			}
	/* not ours: what would have happened without us */
	if (reg.old.sa_flags & SA_SIGINFO && reg.old.sa_sigaction) {
		reg.old.sa_sigaction(sig, si, ctx);
		return;
	}
	if (reg.old.sa_handler != SIG_DFL && reg.old.sa_handler != SIG_IGN && reg.old.sa_handler) {
		reg.old.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL);
	if (si->si_code <= 0)
		raise(SIGBUS);
	/* else the access faults again on return, now fatally */
}

static void install(void)
{
	reg.page = (uintptr_t) sysconf(_SC_PAGESIZE);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &reg.old);
}

static struct map_slot *slot_take(const void *data, const struct stat *st, const char *path)
{
	pthread_once(&reg.once, install);
	char *name = strdup(path);
	if (!name)
		return NULL; /* no name to report: this map's SIGBUS stays fatal */
	pthread_mutex_lock(&reg.lock);
	struct map_slot *s = NULL;
	if (reg.nfree) {
		s = reg.free[--reg.nfree];
	} else {
		/* the next slot never taken, in a new chunk if need be */
		if (!reg.last)
			reg.last = &reg.first;
		if (reg.used == SLOTS_PER_CHUNK) {
			struct map_chunk *n = calloc(1, sizeof(*n));
			if (n) {
				atomic_store(&reg.last->next, n);
				reg.last = n;
				reg.used = 0;
			}
		}
		if (reg.used < SLOTS_PER_CHUNK)
			s = &reg.last->s[reg.used++];
	}
	if (s) {
		s->path = name;
		s->size = (size_t) st->st_size;
		s->dev = st->st_dev;
		s->ino = st->st_ino;
		atomic_store(&s->hit, 0);
		atomic_store(&s->len, (s->size + reg.page - 1) & ~(reg.page - 1));
		atomic_store(&s->start, (uintptr_t) data);
	} else {
		free(name);
	}
	pthread_mutex_unlock(&reg.lock);
	return s;
}

/* Whether the file under a slot is shorter than when mapped: its last page
 * reads as zeros past the new end without a fault (the kernel fills a
 * page's tail), so a reader may have read those zeros with no SIGBUS. */
static int shrunk(const struct map_slot *s)
{
	if (atomic_load(&s->hit))
		return 1;
	struct stat st;
	return stat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino && (size_t) st.st_size < s->size;
}

static void slot_give(struct map_slot *s)
{
	int cut = shrunk(s); /* outside the lock: a system call */
	pthread_mutex_lock(&reg.lock);
	atomic_store(&s->start, 0);
	char *path = s->path;
	if (cut) {
		char **g = realloc(reg.gone, (reg.ngone + 1) * sizeof(*g));
		if (g) {
			reg.gone = g;
			reg.gone[reg.ngone++] = path;
			path = NULL;
		}
	}
	free(path);
	s->path = NULL;
	if (reg.nfree == reg.capfree) {
		size_t cap = reg.capfree * 2 + 16;
		struct map_slot **f = realloc(reg.free, cap * sizeof(*f));
		if (f) {
			reg.free = f;
			reg.capfree = cap;
		}
	}
	if (reg.nfree < reg.capfree) /* else lost: a slot fewer, no harm */
		reg.free[reg.nfree++] = s;
	pthread_mutex_unlock(&reg.lock);
}

int map_changed(const struct mapfile *m)
{
	return m->slot && atomic_load(&m->slot->hit);
}

static int changed(struct weft_err *e, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return weft_fail(e, WEFT_EINPUT, "%s: changed while being read (now gone: %s)", path, strerror(errno));
	return weft_fail(e, WEFT_EINPUT, "%s: changed while being read (now %lld bytes)", path, (long long) st.st_size);
}

int map_inputs_check(struct weft_err *e)
{
	int rc = 0;
	pthread_mutex_lock(&reg.lock);
	if (reg.ngone) {
		rc = changed(e, reg.gone[0]);
	} else {
		for (struct map_chunk *c = reg.page ? &reg.first : NULL; c && !rc; c = atomic_load(&c->next))
			for (size_t i = 0; i < SLOTS_PER_CHUNK && !rc; i++)
				if (atomic_load(&c->s[i].start) && shrunk(&c->s[i]))
					rc = changed(e, c->s[i].path);
	}
	pthread_mutex_unlock(&reg.lock);
	return rc;
}

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
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
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

/* The file mapped read-only at an address aligned as its offsets are to
 * the kernel's blocks: MAP_BLOCK, MAP_REACH for a file that size or
 * larger (mapfile.h). Fault-around and whole folios are mapped in blocks
 * of the address, so on such an address they are blocks of the file and
 * a give-back on a block boundary stays given back; a map at any page
 * would see each fault map pages before the block it is in. A reservation
 * the alignment larger is made first and trimmed; MAP_FAILED on error. */
static void *map_aligned(int fd, size_t size)
{
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	size_t align = size >= MAP_REACH ? MAP_REACH : MAP_BLOCK, len = (size + page - 1) & ~(page - 1);
	uint8_t *r = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	uint8_t *a = (uint8_t *) (((uintptr_t) r + align - 1) & ~(uintptr_t) (align - 1));
	void *p = mmap(a, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		munmap(r, len + align);
		return MAP_FAILED;
	}
	if (a > r)
		munmap(r, (size_t) (a - r));
	if (r + len + align > a + len)
		munmap(a + len, (size_t) (r + len + align - (a + len)));
	return p;
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
		void *p = map_aligned(fd, m->size);
		if (p == MAP_FAILED) {
			int er = errno;
			close(fd);
			return weft_fail(e, WEFT_EINPUT, "%s: cannot map: %s%s", path, strerror(er), weft_sys_hint(er));
		}
		madvise(p, m->size, MADV_SEQUENTIAL);
		m->data = p;
		m->slot = slot_take(p, &st, path);
	} else {
		m->data = (const uint8_t *) ""; /* readers may do data + size */
	}
	close(fd);
	return 0;
}

char *input_slurp(const char *path, size_t max, const char *what, size_t *len, struct weft_err *e)
{
	struct mapfile m;
	int fd = input_open(path, e);
	if (fd < 0)
		return NULL;
	struct stat st;
	int er = fstat(fd, &st) == 0 ? 0 : errno;
	close(fd);
	if (er) {
		weft_fail(e, WEFT_EINPUT, "%s: cannot stat: %s", path, strerror(er));
		return NULL;
	}
	if ((uint64_t) st.st_size > max) {
		weft_fail(e, WEFT_EINPUT, "%s: %lld bytes: larger than weft reads as %s (at most %zu MiB)", path,
			  (long long) st.st_size, what, max >> 20);
		return NULL;
	}
	if (map_open(&m, path, e))
		return NULL;
	if (m.size > max) { /* it grew in between */
		map_close(&m);
		weft_fail(e, WEFT_EINPUT, "%s: larger than weft reads as %s (at most %zu MiB)", path, what, max >> 20);
		return NULL;
	}
	char *text = weft_xmalloc(m.size + 1);
	memcpy(text, m.data, m.size);
	text[m.size] = '\0';
	*len = m.size;
	map_close(&m);
	return text;
}

void map_close(struct mapfile *m)
{
	if (m->slot)
		slot_give(m->slot);
	if (m->data && m->size)
		munmap((void *) m->data, m->size);
	memset(m, 0, sizeof(*m));
}

void map_drop(struct mapfile *m, size_t from, size_t to)
{
	if (!m->data || !m->size || m->keep)
		return;
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	/* through the end of to's block: what the last read there mapped
	 * around it (fault-around) goes too; it comes back when read */
	size_t b = (to + MAP_BLOCK - 1) & ~(size_t) (MAP_BLOCK - 1), all = (m->size + page - 1) & ~(page - 1);
	size_t a = (from + page - 1) & ~(page - 1);
	if (b > all)
		b = all;
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
	/* whole blocks (mapfile.h: fault-around); the last page at the end */
	size_t end = upto >= m->size ? (m->size + page - 1) & ~(page - 1) : upto & ~(size_t) (MAP_BLOCK - 1);
	if (end > m->released) {
		/* kept memory is only marked given back: readers pace on `released`;
		 * from MAP_REACH below it: what a fault in a large folio mapped
		 * again there */
		size_t from = m->released > MAP_REACH ? m->released - MAP_REACH : 0;
		if (!m->keep)
			madvise((void *) (m->data + from), end - from, MADV_DONTNEED);
		m->released = end;
	}
}
