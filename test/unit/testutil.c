/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testutil: see testutil.h. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "util/macros.h"
#include "registry.h"

int tu_host_be(void)
{
	const uint16_t one = 1;
	uint8_t first;
	memcpy(&first, &one, 1);
	return first == 0;
}

/* Set by tu_base_setup(): per-TCase parent of every tu_mkdtemp() directory,
 * removed by tu_base_teardown() in the runner process even when a forked
 * test failed before cleaning up after itself. */
static char *tmp_base;

char *tu_mkdtemp(void)
{
	char tmpl[4096];
	if (tmp_base)
		snprintf(tmpl, sizeof(tmpl), "%s/t-XXXXXX", tmp_base);
	else
		snprintf(tmpl, sizeof(tmpl), "/tmp/weft-unit-XXXXXX");
	if (!mkdtemp(tmpl))
		ck_abort_msg("mkdtemp: %s", strerror(errno));
	char *p = strdup(tmpl);
	ck_assert_ptr_nonnull(p);
	return p;
}

void tu_base_setup(void)
{
	char *old = tmp_base;
	tmp_base = NULL;
	free(old);
	tmp_base = tu_mkdtemp();
}

void tu_base_teardown(void)
{
	if (!tmp_base)
		return;
	tu_rmtree(tmp_base);
	free(tmp_base);
	tmp_base = NULL;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void tu_rmtree(const char *path)
{
	/* only ever under /tmp: refuse anything else rather than delete it */
	if (!path || strncmp(path, "/tmp/weft-unit-", 15) != 0)
		ck_abort_msg("tu_rmtree: refusing to remove %s", path ? path : "(null)");
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void tu_mkdirs(const char *path)
{
	char *p = strdup(path);
	ck_assert_ptr_nonnull(p);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			ck_abort_msg("mkdir %s: %s", p, strerror(errno));
		*s = '/';
	}
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		ck_abort_msg("mkdir %s: %s", p, strerror(errno));
	free(p);
}

char *tu_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

void tu_write(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		ck_abort_msg("open %s: %s", path, strerror(errno));
	const uint8_t *p = data;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			ck_abort_msg("write %s: %s", path, strerror(errno));
		}
		p += w;
		n -= (size_t) w;
	}
	if (close(fd) != 0)
		ck_abort_msg("close %s: %s", path, strerror(errno));
}

char *tu_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		ck_abort_msg("open %s: %s", path, strerror(errno));
	char *d = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n + 1 >= cap) {
			cap = cap ? 2 * cap : 4096;
			d = realloc(d, cap);
			ck_assert_ptr_nonnull(d);
		}
		size_t r = fread(d + *n, 1, cap - *n - 1, f);
		if (r == 0)
			break;
		*n += r;
	}
	fclose(f);
	d[*n] = '\0';
	return d;
}

void tu_write_str(const char *path, const char *s)
{
	tu_write(path, s, strlen(s));
}

void eb_init(struct evbuf *b, int big)
{
	memset(b, 0, sizeof(*b));
	b->big = big;
}

void eb_bytes(struct evbuf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n)
			cap *= 2;
		b->d = realloc(b->d, cap);
		ck_assert_ptr_nonnull(b->d);
		b->cap = cap;
	}
	if (n)
		memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void eb_uint(struct evbuf *b, uint64_t v, int bytes)
{
	uint8_t t[8];
	for (int i = 0; i < bytes; i++) {
		int shift = b->big ? 8 * (bytes - 1 - i) : 8 * i;
		t[i] = (uint8_t) (v >> shift);
	}
	eb_bytes(b, t, (size_t) bytes);
}

void eb_u32(struct evbuf *b, uint32_t v)
{
	eb_uint(b, v, 4);
}

void eb_u64(struct evbuf *b, uint64_t v)
{
	eb_uint(b, v, 8);
}

void eb_header(struct evbuf *b)
{
	eb_bytes(b, "ovni", 4);
	eb_u32(b, 1);
}

size_t eb_ev(struct evbuf *b, const char *mcv, uint64_t clock, const void *payload, size_t plen)
{
	ck_assert_msg(plen == 0 || (plen >= 2 && plen <= 16), "eb_ev: bad payload length %zu", plen);
	size_t off = b->n;
	uint8_t flags = (uint8_t) (plen ? plen - 1 : 0);
	eb_bytes(b, &flags, 1);
	eb_bytes(b, mcv, 3);
	eb_u64(b, clock);
	eb_bytes(b, payload, plen);
	return off;
}

size_t eb_ev_flags(struct evbuf *b, uint8_t flags, const char *mcv, uint64_t clock)
{
	size_t off = b->n;
	eb_bytes(b, &flags, 1);
	eb_bytes(b, mcv, 3);
	eb_u64(b, clock);
	unsigned code = flags & 15u;
	unsigned len = code ? code + 1 : 0;
	for (unsigned i = 0; i < len; i++) {
		uint8_t x = (uint8_t) (0xa0 + i);
		eb_bytes(b, &x, 1);
	}
	return off;
}

size_t eb_jumbo(struct evbuf *b, const char *mcv, uint64_t clock, const void *data, uint32_t len)
{
	size_t off = b->n;
	uint8_t flags = 0x13;
	eb_bytes(b, &flags, 1);
	eb_bytes(b, mcv, 3);
	eb_u64(b, clock);
	eb_u32(b, len);
	eb_bytes(b, data, len);
	return off;
}

void eb_free(struct evbuf *b)
{
	free(b->d);
	memset(b, 0, sizeof(*b));
}

/* Guarded copies: [pages holding the data at their end][a PROT_NONE page].
 * The live mappings are remembered here so tu_guard_free() can unmap them. */
static struct {
	const uint8_t *p;
	void *base;
	size_t total;
} guards[64];

const uint8_t *tu_guard_copy(const void *src, size_t n)
{
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	size_t data_pages = (n + page - 1) / page;
	if (data_pages == 0)
		data_pages = 1;
	size_t total = (data_pages + 1) * page;
	uint8_t *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		ck_abort_msg("mmap: %s", strerror(errno));
	if (mprotect(base + data_pages * page, page, PROT_NONE) != 0)
		ck_abort_msg("mprotect: %s", strerror(errno));
	uint8_t *p = base + data_pages * page - n;
	if (n)
		memcpy(p, src, n);
	for (size_t i = 0; i < ARRAY_SIZE(guards); i++) {
		if (!guards[i].base) {
			guards[i].p = p;
			guards[i].base = base;
			guards[i].total = total;
			return p;
		}
	}
	ck_abort_msg("tu_guard_copy: too many live guarded copies");
	return NULL;
}

void tu_guard_free(const uint8_t *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(guards); i++) {
		if (guards[i].base && guards[i].p == p) {
			munmap(guards[i].base, guards[i].total);
			guards[i].base = NULL;
			guards[i].p = NULL;
			return;
		}
	}
	ck_abort_msg("tu_guard_free: unknown pointer");
}

const struct model_set *tu_models(void)
{
	static struct model_registry *r; /* a test process's: never freed */
	static struct model_set set;
	if (!r) {
		r = model_registry_new();
		set = model_registry_set(r);
	}
	return &set;
}
