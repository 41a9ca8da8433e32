/* SPDX-License-Identifier: GPL-3.0-or-later */
/* shrink.so: an LD_PRELOAD shim that truncates one input while weft reads
 * it, at a moment fixed by the reader's own calls (no timing): the file
 * named by SHRINK_FILE is cut to SHRINK_TO bytes right after it is mapped
 * (SHRINK_AT=0) or when the reader gives back its pages the SHRINK_AT-th
 * time (madvise MADV_DONTNEED inside that map). Used by trust.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

static uintptr_t lo, hi;
static long calls;

static void cut(void)
{
	const char *f = getenv("SHRINK_FILE"), *to = getenv("SHRINK_TO");
	if (truncate(f, to ? atoll(to) : 0) != 0)
		perror("shrink.so: truncate");
	lo = hi = 0; /* once */
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	if (!real)
		real = (void *(*) (void *, size_t, int, int, int, off_t)) dlsym(RTLD_NEXT, "mmap");
	void *p = real(addr, len, prot, flags, fd, off);
	const char *f = getenv("SHRINK_FILE");
	if (p == MAP_FAILED || fd < 0 || !f || calls < 0)
		return p;
	char link[64], path[4096];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	char *want = realpath(f, NULL);
	if (n > 0 && want) {
		path[n] = '\0';
		if (strcmp(path, want) == 0) {
			lo = (uintptr_t) p;
			hi = lo + len;
			const char *at = getenv("SHRINK_AT");
			if (!at || atol(at) == 0) {
				calls = -1;
				cut();
			}
		}
	}
	free(want);
	return p;
}

int madvise(void *addr, size_t len, int advice)
{
	static int (*real)(void *, size_t, int);
	if (!real)
		real = (int (*)(void *, size_t, int)) dlsym(RTLD_NEXT, "madvise");
	int rc = real(addr, len, advice);
	uintptr_t a = (uintptr_t) addr;
	if (advice == MADV_DONTNEED && hi && a >= lo && a < hi) {
		const char *at = getenv("SHRINK_AT");
		if (++calls >= (at ? atol(at) : 1)) {
			calls = -1;
			cut();
		}
	}
	return rc;
}
