/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_read: the decoder of a CHARISMA trace, knowing nothing of ovni.
 * It promises: the file's magic and version checked and its byte order
 * found; a machine profile loaded or probed on the header record; every
 * scalar read in the file's byte order with the profile's size and
 * signedness; every record's size (or the error naming the byte offset,
 * record and field); the header record read; ticks turned into
 * nanoseconds. Reads the mapped file only; writes nothing. */
#ifndef WEFT_CHARISMA_READ_H
#define WEFT_CHARISMA_READ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "import/charisma_fields.h"
#include "import/charisma_profile.h"
#include "util/err.h"
#include "util/macros.h"

struct import_opts;

struct rdr {
	const char *path;
	const uint8_t *d;
	size_t len;
	int be;
	int swap; /* the file's byte order is not this machine's */
	const struct profile *p;
	double unit;
	uint64_t mul;  /* ns per tick when the unit is a power of ten, else 0 */
	uint64_t tmax; /* the most ticks to_ns turns into ns without wrapping around */
	struct flay fl[R_NBUILTIN]; /* the profile's built-in records, read fast */
	size_t margin; /* a record read fast starts this many bytes before the end or more */
};

/* The header record (at byte 8). */
struct header {
	int64_t start_date, gmt;
	uint64_t ts;
	double unit;
	size_t size;
};

static inline uint64_t raw(const struct rdr *r, size_t off, int size)
{
	const uint8_t *b = r->d + off;
	switch (size) {
	case 1:
		return b[0];
	case 2: {
		uint16_t v;
		memcpy(&v, b, 2);
		return r->swap ? __builtin_bswap16(v) : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, b, 4);
		return r->swap ? __builtin_bswap32(v) : v;
	}
	default: {
		uint64_t v;
		memcpy(&v, b, 8);
		return r->swap ? __builtin_bswap64(v) : v;
	}
	}
}

/* A scalar of the profile's type `type` at byte `off`, sign-extended. */
static inline int64_t rd(const struct rdr *r, size_t off, int type)
{
	const struct scalar *s = &r->p->t[type];
	uint64_t v = raw(r, off, s->size);
	if (s->sgn && s->size < 8 && (v >> (s->size * 8 - 1)) & 1)
		v |= ~0ull << (s->size * 8);
	return (int64_t) v;
}

/* Is v the profile's sentinel `val` (or, with `all`, all ones in the type's size)? */
static inline int is_sentinel(const struct rdr *r, int64_t v, int type, int all, int64_t val)
{
	if (!all)
		return v == val;
	int sz = r->p->t[type].size;
	uint64_t mask = sz == 8 ? ~0ull : (1ull << (sz * 8)) - 1;
	return ((uint64_t) v & mask) == mask;
}

static inline uint64_t to_ns(const struct rdr *r, uint64_t ticks)
{
	if (__builtin_expect(r->mul != 0, 1))
		return ticks * r->mul;
	return (uint64_t) llroundl((long double) ticks * (long double) r->unit * 1e9L);
}

/* Does the file start with a CHARISMA magic (either byte order)? */
int chr_detect(const uint8_t *d, size_t len);
/* Set up r on the mapped file: its magic, byte order and FORMAT_VERSION
 * checked. Returns 0, or -1 with e filled. */
WEFT_MUST_CHECK int chr_open(struct rdr *r, const char *path, const uint8_t *d, size_t len, struct weft_err *e);
/* r->p: the profile of --charisma-profile, or the one built-in profile
 * the header and the first records are plausible with (said on stderr
 * unless o->quiet), loaded into *p. Returns 0, or -1 with e filled. */
WEFT_MUST_CHECK int chr_choose_profile(struct rdr *r, const struct import_opts *o, struct profile *p,
				       struct weft_err *e);
/* Read the header record at byte 8; `why` gets the first implausible field
 * when `check` (the probe's rules). Returns 0, or -1 with `why` filled. */
int chr_read_header(const struct rdr *r, struct header *h, int check, char *why, size_t n);
/* The tick length: r->unit, r->mul and r->tmax. */
void chr_set_unit(struct rdr *r, double unit);
/* Size of the record at `off` (its type `rt` is known), or -1 with the error. */
int64_t chr_record_size(const struct rdr *r, size_t off, int rt, struct weft_err *e);
/* The first times of a record (its sort key and its end time). */
void chr_record_times(const struct rdr *r, const struct layout *l, size_t off, uint64_t *t1, uint64_t *t2);
/* start_date in ns minus the header's timestamp in ns (the absolute time
 * of tick 0), or -1 when that does not fit 64 bits. */
int chr_origin_ns(const struct rdr *r, const struct header *h, int64_t *out);

#endif
