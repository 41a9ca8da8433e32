/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vao_line: the common VisAndOr record line read in one pass, 8 bytes at a
 * time (doc/formats/legacy.md §6.4: the &-Prolog/Ciao writer's layout).
 *
 * The line it takes: blanks (' ', at most 31), then the six fields, each
 * followed by one ' ' except the agent, which ends with "\n" or " \n":
 *   timestamp  unsigned decimal, 1 to 15 digits
 *   code       decimal, optional '-', 1 to 8 digits
 *   Nodeid     hexadecimal, 1 to 16 digits (no 0x)
 *   field 4    decimal, optional '-', 1 to 8 digits
 *   WAM id     hexadecimal, 1 to 16 digits (no 0x)
 *   agent      decimal, 1 to 7 digits, at most VAO_MAX_AGENT
 * vao_line() fills the record and returns the start of the next line; for
 * any other line (tabs, CR, several blanks between fields, 0x, '+', longer
 * numbers, a missing newline, anything malformed) it returns NULL and the
 * importer's careful parser reads the line, so errors are its alone. Values
 * it accepts are those the careful parser gives.
 *
 * It reads at most VAO_LINE_SPAN bytes from the start of the line, whatever
 * they are: the caller guarantees that many bytes are readable. A hint
 * carried from line to line picks the faster way to read the hex ids; the
 * values do not depend on it. */
#ifndef WEFT_VAO_LINE_H
#define WEFT_VAO_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VAO_MAX_AGENT 1048575
#define VAO_LINE_SPAN 192

/* One record. Nodeid and field 4 are adjacent, in the order of the events'
 * payload (VAO_PAYLOAD bytes from &node). */
struct vao_rec {
	uint64_t ts, wam;
	uint64_t node;
	int32_t f4;
	int32_t code, ag;
};

/* What vao_line learnt from the lines before (speed only, never values). */
struct vao_hint {
	uint8_t long_id[2]; /* Nodeid, WAM: the last one had five hex digits or more */
};

#define VAO_PAYLOAD 12
_Static_assert(offsetof(struct vao_rec, f4) == offsetof(struct vao_rec, node) + 8,
	       "Nodeid and field 4 make the payload");

#define VL_ONES 0x0101010101010101ull
#define VL_INLINE static inline __attribute__((always_inline))

/* 8 bytes of text, the first in the low byte. */
VL_INLINE uint64_t vl_load(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* The tests below flag a byte with its bit 7. Their carries and borrows
 * start only at a flagged byte and move towards later bytes, so the first
 * flagged byte is always right (later ones may be wrong). */

/* Bytes that are not '0'..'9'. */
VL_INLINE uint64_t vl_not_dec(uint64_t w)
{
	uint64_t d = w ^ (0x30 * VL_ONES); /* digits: 0..9 */
	return ((d + 0x76 * VL_ONES) | d) & (0x80 * VL_ONES);
}

/* Bytes that are not hex digits (0-9, a-f, A-F). */
VL_INLINE uint64_t vl_not_hex(uint64_t w)
{
	uint64_t d = w ^ (0x30 * VL_ONES);                               /* digits: 0..9 */
	uint64_t u = ((w | 0x20 * VL_ONES) ^ 0x60 * VL_ONES) - VL_ONES; /* letters: 0..5 */
	return ((d + 0x76 * VL_ONES) | d) & ((u + 0x7a * VL_ONES) | u) & (0x80 * VL_ONES);
}

/* How many bytes come before the first flagged one (0..8). */
VL_INLINE unsigned vl_count(uint64_t bad)
{
	return bad ? (unsigned) __builtin_ctzll(bad) >> 3 : 8;
}

/* The value of 8 digit values (0..9, the first in the low byte). */
VL_INLINE uint64_t vl_dec8(uint64_t d)
{
	d = (d * 10 + (d >> 8)) & 0x00ff00ff00ff00ffull;
	d = (d * 100 + (d >> 16)) & 0x0000ffff0000ffffull;
	return (d * 10000 + (d >> 32)) & 0xffffffffull;
}

/* The value of the first n (1..8) decimal digits of w. */
VL_INLINE uint64_t vl_dec(uint64_t w, unsigned n)
{
	return vl_dec8((w ^ (0x30 * VL_ONES)) << (64 - 8 * n));
}

/* The value of the first n (1..8) hex digits of w: their nibbles, the last
 * digit moved to the low byte, then pairs of bytes, words and halves
 * merged. */
VL_INLINE uint64_t vl_hex(uint64_t w, unsigned n)
{
	uint64_t v = (w & 0x0f * VL_ONES) + 9 * ((w >> 6) & VL_ONES);
	v = __builtin_bswap64(v) >> (64 - 8 * n);
	v = (v | v >> 4) & 0x00ff00ff00ff00ffull;
	v = (v | v >> 8) & 0x0000ffff0000ffffull;
	return (v | v >> 16) & 0xffffffffull;
}

/* An unsigned decimal of 1..8 digits and its blank, 8 at a time. */
static inline const uint8_t *vl_udec_long(const uint8_t *p, uint64_t *out)
{
	uint64_t w = vl_load(p);
	unsigned n = vl_count(vl_not_dec(w));
	if (n == 0 || p[n] != ' ')
		return NULL;
	*out = vl_dec(w, n);
	return p + n + 1;
}

/* A signed decimal of 1..8 digits and its blank: one or two digits without
 * a sign directly (the usual code and field 4), anything else by
 * vl_udec_long. */
VL_INLINE const uint8_t *vl_sdec(const uint8_t *p, int32_t *out)
{
	unsigned d0 = (unsigned) p[0] - '0', d1 = (unsigned) p[1] - '0';
	if (d0 <= 9 && p[1] == ' ') {
		*out = (int32_t) d0;
		return p + 2;
	}
	if (d0 <= 9 && d1 <= 9 && p[2] == ' ') {
		*out = (int32_t) (10 * d0 + d1);
		return p + 3;
	}
	int neg = *p == '-';
	uint64_t v;
	if (!(p = vl_udec_long(p + neg, &v)))
		return NULL;
	*out = neg ? -(int32_t) v : (int32_t) v;
	return p;
}

/* Hex digit value by byte, X (16 or more) for any other byte. */
#define X 0x10
static const uint8_t vl_hexv[256] = {
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  X,  X,  X,  X,  X,  X,
	 X, 10, 11, 12, 13, 14, 15,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X, 10, 11, 12, 13, 14, 15,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
	 X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,  X,
};
#undef X

/* 1..16 hex digits and their blank, 8 at a time. */
static inline const uint8_t *vl_hex_long(const uint8_t *p, uint64_t *out)
{
	uint64_t w = vl_load(p);
	unsigned n = vl_count(vl_not_hex(w));
	if (n == 0)
		return NULL;
	uint64_t v = vl_hex(w, n);
	if (n == 8 && p[8] != ' ') {
		uint64_t w2 = vl_load(p + 8);
		unsigned n2 = vl_count(vl_not_hex(w2));
		if (n2) {
			v = v << (4 * n2) | vl_hex(w2, n2);
			n += n2;
		}
	}
	if (p[n] != ' ')
		return NULL;
	*out = v;
	return p + n + 1;
}

/* 1..16 hex digits and their blank. The hint says how the same field of
 * the line before read (1: five digits or more, like Ciao's addresses:
 * vl_hex_long; 0: short ids, one digit at a time) and is kept up to date;
 * either way gives the same value. */
VL_INLINE const uint8_t *vl_hex16(const uint8_t *p, uint64_t *out, uint8_t *hint)
{
	if (*hint) {
		const uint8_t *q = vl_hex_long(p, out);
		if (q && q - p <= 5)
			*hint = 0;
		return q;
	}
	uint64_t v = vl_hexv[p[0]], c;
	unsigned n = 1;
	if (v > 15)
		return NULL;
	if ((c = vl_hexv[p[1]]) <= 15) {
		v = v << 4 | c;
		n = 2;
		if ((c = vl_hexv[p[2]]) <= 15) {
			v = v << 4 | c;
			n = 3;
			if ((c = vl_hexv[p[3]]) <= 15) {
				v = v << 4 | c;
				n = 4;
				if (vl_hexv[p[4]] <= 15) {
					*hint = 1;
					return vl_hex_long(p, out);
				}
			}
		}
	}
	if (p[n] != ' ')
		return NULL;
	*out = v;
	return p + n + 1;
}

static const uint64_t vl_pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* Blanks and a timestamp of up to 15 digits, and the blank after it. */
static inline const uint8_t *vl_stamp(const uint8_t *p, uint64_t *out)
{
	uint64_t w = vl_load(p), sp;
	for (int k = 0; (sp = w ^ (0x20 * VL_ONES)) == 0; k++) {
		if (k == 3)
			return NULL;
		p += 8;
		w = vl_load(p);
	}
	p += __builtin_ctzll(sp) >> 3;
	w = vl_load(p);
	unsigned n = vl_count(vl_not_dec(w));
	if (n == 0)
		return NULL;
	uint64_t ts = vl_dec(w, n);
	if (n == 8) {
		uint64_t w2 = vl_load(p + 8);
		unsigned n2 = vl_count(vl_not_dec(w2));
		if (n2 == 8)
			return NULL;
		if (n2) {
			ts = ts * vl_pow10[n2] + vl_dec(w2, n2);
			n += n2;
		}
	}
	if (p[n] != ' ')
		return NULL;
	*out = ts;
	return p + n + 1;
}

VL_INLINE const uint8_t *vao_line(const uint8_t *p, struct vao_rec *r, struct vao_hint *h)
{
	/* Ciao's "%8lu ": blanks then digits filling 8 bytes, in one word;
	 * any other timestamp through vl_stamp */
	uint64_t w = vl_load(p), ts;
	uint64_t sp = w ^ (0x20 * VL_ONES);
	uint64_t digits = sp ? ~0ull << (__builtin_ctzll(sp) & ~7u) : 0;
	if (sp && !(vl_not_dec(w) & digits) && p[8] == ' ') {
		ts = vl_dec8((w ^ (0x30 * VL_ONES)) & digits);
		p += 9;
	} else if (!(p = vl_stamp(p, &ts))) {
		return NULL;
	}
	unsigned n;
	uint64_t ag;
	if (!(p = vl_sdec(p, &r->code)) || !(p = vl_hex16(p, &r->node, &h->long_id[0])) ||
	    !(p = vl_sdec(p, &r->f4)) || !(p = vl_hex16(p, &r->wam, &h->long_id[1])))
		return NULL;
	/* agent: 1..7 digits, then " \n" (Ciao) or "\n" */
	unsigned d0 = (unsigned) p[0] - '0';
	if (d0 <= 9 && p[1] == ' ' && p[2] == '\n') {
		ag = d0;
		p += 2;
	} else {
		w = vl_load(p);
		n = vl_count(vl_not_dec(w));
		if (n == 0 || n > 7)
			return NULL;
		ag = vl_dec(w, n);
		p += n;
		p += *p == ' ';
		if (*p != '\n' || ag > VAO_MAX_AGENT)
			return NULL;
	}
	r->ts = ts;
	r->ag = (int32_t) ag;
	return p + 1;
}

#endif
