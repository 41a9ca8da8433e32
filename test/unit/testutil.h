/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testutil: helpers shared by the unit tests.
 * Temporary directories under /tmp, whole-file writes, a builder for
 * stream.obs bytes in either byte order, and "guarded" copies that place a
 * buffer right before an inaccessible page so any read past its end faults
 * (with or without AddressSanitizer). Every helper fails the running test
 * with ck_abort_msg() when the system refuses something. */
#ifndef WEFT_TESTUTIL_H
#define WEFT_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

struct model_set;
/* weft's own models (a registry made on first use, kept for the process):
 * what a command hands the layers below. */
const struct model_set *tu_models(void);

/* 1 when this machine is big-endian. */
int tu_host_be(void);

/* New empty directory /tmp/weft-unit-XXXXXX (or a t-XXXXXX inside the
 * base directory while one is set up); free() the result. */
char *tu_mkdtemp(void);
/* Unchecked fixture pair: a base directory for the temp dirs of one TCase. */
void tu_base_setup(void);
void tu_base_teardown(void);
/* Remove a directory tree (does not follow symbolic links). */
void tu_rmtree(const char *path);
/* mkdir -p. */
void tu_mkdirs(const char *path);
/* "a/b" in a new allocation. */
char *tu_join(const char *a, const char *b);
/* A whole file in a new allocation (with a NUL after its n bytes); free()
 * the result. */
char *tu_read(const char *path, size_t *n);
/* Create or replace a file with exactly these bytes. */
void tu_write(const char *path, const void *data, size_t n);
/* Create or replace a file holding a C string (without its NUL). */
void tu_write_str(const char *path, const char *s);

/* Byte builder for stream.obs contents. `big` picks the byte order of every
 * integer written after eb_init(). */
struct evbuf {
	uint8_t *d;
	size_t n, cap;
	int big;
};

void eb_init(struct evbuf *b, int big);       /* empty, no file header */
void eb_header(struct evbuf *b);              /* "ovni" + version 1 */
void eb_bytes(struct evbuf *b, const void *p, size_t n);
void eb_u32(struct evbuf *b, uint32_t v);
void eb_u64(struct evbuf *b, uint64_t v);
/* A normal event; plen must be 0 or 2..16. Returns its byte offset. */
size_t eb_ev(struct evbuf *b, const char *mcv, uint64_t clock, const void *payload, size_t plen);
/* A normal event with an explicit flags byte (payload of flags&15 ? +1 : 0
 * bytes, filled with 0xa0, 0xa1, ...). Returns its byte offset. */
size_t eb_ev_flags(struct evbuf *b, uint8_t flags, const char *mcv, uint64_t clock);
/* A jumbo event (flags 0x13) with `len` data bytes. Returns its offset. */
size_t eb_jumbo(struct evbuf *b, const char *mcv, uint64_t clock, const void *data, uint32_t len);
void eb_free(struct evbuf *b);

/* Copy n bytes so that the copy ends exactly where an unreadable page
 * starts. Returns the copy; release with tu_guard_free(). */
const uint8_t *tu_guard_copy(const void *src, size_t n);
void tu_guard_free(const uint8_t *p);

#endif
