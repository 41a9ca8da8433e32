/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outbuf: buffered output with a digit-pair number formatter. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/outbuf.h"

const char ob_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits of v (v < 100000000): the eight zero-padded digits are made with
 * four pair lookups and the leading zeros dropped by copying from the
 * right place (one 8-byte copy: up to 8 bytes at dst are written). */
static inline size_t fmt_u32_small(char *dst, uint32_t v)
{
	char tmp[16];
	size_t n = v < 100 ? (v < 10 ? 1 : 2)
		 : v < 10000 ? (v < 1000 ? 3 : 4)
		 : v < 1000000 ? (v < 100000 ? 5 : 6)
		 : (v < 10000000 ? 7 : 8);
	fmt_8(tmp, v);
	memcpy(dst, tmp + 8 - n, 8);
	return n;
}

size_t fmt_u64_big(char *dst, uint64_t v)
{
	if (v < 100000000)
		return fmt_u32_small(dst, (uint32_t) v);
	uint64_t hi = v / 100000000;
	uint32_t lo = (uint32_t) (v % 100000000);
	size_t n;
	if (hi < 100000000) {
		n = fmt_u32_small(dst, (uint32_t) hi);
	} else {
		n = fmt_u32_small(dst, (uint32_t) (hi / 100000000));
		fmt_8(dst + n, (uint32_t) (hi % 100000000));
		n += 8;
	}
	fmt_8(dst + n, lo);
	return n + 8;
}

static const uint64_t pow10_u64[19] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull,
};

size_t fmt_fixed(char *dst, int64_t v, int dec)
{
	size_t n = 0;
	uint64_t u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
	if (v < 0)
		dst[n++] = '-';
	if (dec <= 0)
		return n + fmt_u64(dst + n, u);
	uint64_t p = pow10_u64[dec];
	n += fmt_u64(dst + n, u / p);
	dst[n++] = '.';
	uint64_t f = u % p;
	for (int k = dec - 1; k >= 0; k--) {
		dst[n + (size_t) k] = (char) ('0' + f % 10);
		f /= 10;
	}
	return n + (size_t) dec;
}

int64_t div_round_even(int64_t v, int64_t unit)
{
	int64_t q = v / unit, r = v % unit;
	if (r < 0)
		q--, r += unit; /* floor */
	if (2 * r > unit || (2 * r == unit && (q & 1)))
		q++;
	return q;
}

void ob_init(struct outbuf *o, int fd, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->buf = weft_xmalloc(cap + 32); /* slack: formatters write whole words */
	o->cap = cap;
	o->fd = fd;
}

void ob_free(struct outbuf *o)
{
	free(o->buf);
	o->buf = NULL;
}

void ob_drain(struct outbuf *o)
{
	if (o->fd == OB_GROW)
		return;
	size_t off = 0;
	while (off < o->len && !o->failed) {
		ssize_t w = write(o->fd, o->buf + off, o->len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			o->failed = errno;
			break;
		}
		off += (size_t) w;
	}
	o->written += off;
	o->len = 0;
}

void ob_need(struct outbuf *o, size_t n)
{
	if (o->fd != OB_GROW) {
		ob_drain(o);
		return;
	}
	size_t cap = o->cap ? o->cap : 64;
	while (cap < o->len + n)
		cap *= 2;
	o->buf = weft_xrealloc(o->buf, cap + 32); /* the slack of ob_init */
	o->cap = cap;
}

int ob_flush(struct outbuf *o, struct weft_err *e, const char *what)
{
	ob_drain(o);
	if (o->failed)
		return weft_out_fail(e, o->failed, "%s: write failed", what);
	return 0;
}

void ob_str(struct outbuf *o, const char *s)
{
	ob_strn(o, s, strlen(s));
}

void ob_strn(struct outbuf *o, const char *s, size_t n)
{
	while (n > 0) {
		ob_room(o, 1);
		size_t k = o->cap - o->len;
		if (k > n)
			k = n;
		ob_mem(o, s, k);
		s += k;
		n -= k;
	}
}

static const char hexd[] = "0123456789abcdef";

void ob_hexbytes(struct outbuf *o, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ob_room(o, 3);
		if (i)
			ob_char(o, ' ');
		ob_char(o, hexd[p[i] >> 4]);
		ob_char(o, hexd[p[i] & 15]);
	}
}

void ob_hex64(struct outbuf *o, uint64_t v)
{
	char tmp[16];
	int n = 0;
	do {
		tmp[n++] = hexd[v & 15];
		v >>= 4;
	} while (v);
	ob_char(o, '0');
	ob_char(o, 'x');
	while (n)
		ob_char(o, tmp[--n]);
}
