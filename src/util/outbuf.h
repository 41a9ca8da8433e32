/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outbuf: fast text output without printf.
 * One large buffer per output file descriptor; numbers are formatted with a
 * digit-pair table. Callers reserve room for a whole line with ob_room() and
 * then append with the unchecked ob_* writers. Write errors are latched and
 * reported by ob_flush(). A buffer made with fd OB_GROW is memory only: it
 * grows to hold what is appended and is never written out (the caller
 * takes the bytes: weft serve's queues to its analysers). */
#ifndef WEFT_OUTBUF_H
#define WEFT_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/err.h"
#include "util/macros.h"

/* The fd of a buffer that grows instead of being written out. */
#define OB_GROW (-2)

struct outbuf {
	char *buf;
	size_t len, cap;
	int fd;
	int failed;   /* errno of the first failed write, 0 if none */
	uint64_t written;
};

void ob_init(struct outbuf *o, int fd, size_t cap);
void ob_free(struct outbuf *o);
/* Write out what is buffered; returns -1 and fills e on a write error. */
WEFT_MUST_CHECK int ob_flush(struct outbuf *o, struct weft_err *e, const char *what);
/* Write out what is buffered (an OB_GROW buffer keeps it). */
void ob_drain(struct outbuf *o);
/* ob_room's slow path: drain, or grow an OB_GROW buffer. */
void ob_need(struct outbuf *o, size_t n);

/* Make sure n more bytes fit (flushes if needed; n must be <= cap, but for
 * an OB_GROW buffer, which grows to fit). */
static inline void ob_room(struct outbuf *o, size_t n)
{
	if (o->len + n > o->cap)
		ob_need(o, n);
}

static inline void ob_char(struct outbuf *o, char c)
{
	o->buf[o->len++] = c;
}

static inline void ob_mem(struct outbuf *o, const void *p, size_t n)
{
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* Appends a string of any length (checks room itself). */
void ob_str(struct outbuf *o, const char *s);
/* n bytes of s, of any length (in pieces the buffer holds). */
void ob_strn(struct outbuf *o, const char *s, size_t n);

/* Number formatters: at most 20 digits (+ sign); they may write up to 21
 * bytes at dst whatever the length they return. Inline, with the small
 * values most records carry (0..99) handled without a call. */
extern const char ob_digit_pairs[201];
size_t fmt_u64_big(char *dst, uint64_t v);

/* Exactly 8 digits, zero-padded (v < 100000000). */
static inline void fmt_8(char *dst, uint32_t v)
{
	uint32_t a = v / 10000, b = v % 10000;
	memcpy(dst, ob_digit_pairs + 2 * (a / 100), 2);
	memcpy(dst + 2, ob_digit_pairs + 2 * (a % 100), 2);
	memcpy(dst + 4, ob_digit_pairs + 2 * (b / 100), 2);
	memcpy(dst + 6, ob_digit_pairs + 2 * (b % 100), 2);
}

static inline size_t fmt_u64(char *dst, uint64_t v)
{
	if (v < 10) {
		dst[0] = (char) ('0' + v);
		return 1;
	}
	if (v < 100) {
		memcpy(dst, ob_digit_pairs + 2 * v, 2);
		return 2;
	}
	return fmt_u64_big(dst, v);
}

static inline size_t fmt_i64(char *dst, int64_t v)
{
	if (v < 0) {
		dst[0] = '-';
		return 1 + fmt_u64(dst + 1, (uint64_t) 0 - (uint64_t) v);
	}
	return fmt_u64(dst, (uint64_t) v);
}
/* A fixed-point decimal: v units of 10^-dec (dec 0..18) as "[-]I.FFF" with
 * exactly dec fraction digits (no point when dec is 0). At most 41 bytes. */
size_t fmt_fixed(char *dst, int64_t v, int dec);
/* v / unit rounded to the nearest integer, ties to even (unit > 0). */
int64_t div_round_even(int64_t v, int64_t unit);

static inline void ob_u64(struct outbuf *o, uint64_t v)
{
	o->len += fmt_u64(o->buf + o->len, v);
}

static inline void ob_i64(struct outbuf *o, int64_t v)
{
	o->len += fmt_i64(o->buf + o->len, v);
}

static inline void ob_fixed(struct outbuf *o, int64_t v, int dec)
{
	o->len += fmt_fixed(o->buf + o->len, v, dec);
}

/* Two lowercase hex digits per byte, separated by spaces. */
void ob_hexbytes(struct outbuf *o, const uint8_t *p, size_t n);
/* 0x-prefixed lowercase hex number. */
void ob_hex64(struct outbuf *o, uint64_t v);

#endif
