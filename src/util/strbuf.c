/* SPDX-License-Identifier: GPL-3.0-or-later */
/* strbuf: printf-appending string builder. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/outbuf.h"
#include "util/strbuf.h"

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + (size_t) n + 1 > b->cap) {
		b->cap = (b->len + (size_t) n + 1) * 2;
		b->s = weft_xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t) n;
}

/* Room for n more bytes and the NUL. */
static void sb_room(struct strbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = weft_xrealloc(b->s, b->cap);
	}
}

void sb_append(struct strbuf *b, const char *s, size_t n)
{
	sb_room(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_i64(struct strbuf *b, int64_t v)
{
	sb_room(b, 22); /* fmt_i64 may store 21 bytes */
	b->len += fmt_i64(b->s + b->len, v);
	b->s[b->len] = '\0';
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

size_t utf8_seq(const unsigned char *s, size_t n)
{
	if (n == 0)
		return 0;
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	size_t k = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (k == 0 || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return k;
}

void sb_text(struct strbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t n = strlen(s);
	/* the whole text's room at once (a replacement is one byte, never
	 * more than what it replaces), then runs of bytes that stay as they
	 * are copied together: a .pcf of 100 k labels is built in
	 * milliseconds, not one append per byte */
	sb_room(b, n);
	char *d = b->s + b->len;
	while (n > 0) {
		size_t run = 0;
		while (run < n && p[run] >= 0x20 && p[run] < 0x7f)
			run++;
		memcpy(d, p, run);
		d += run;
		p += run;
		n -= run;
		if (n == 0)
			break;
		size_t k = utf8_seq(p, n);
		if (k == 0)
			*d++ = '?';
		else if (k == 1) /* a control character or DEL */
			*d++ = ' ';
		else {
			memcpy(d, p, k);
			d += k;
		}
		k = k ? k : 1;
		p += k;
		n -= k;
	}
	b->len = (size_t) (d - b->s);
	b->s[b->len] = '\0';
}
