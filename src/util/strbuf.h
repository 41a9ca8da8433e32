/* SPDX-License-Identifier: GPL-3.0-or-later */
/* strbuf: a growable string for small generated files (.pcf, .row). */
#ifndef WEFT_STRBUF_H
#define WEFT_STRBUF_H

#include <stddef.h>
#include <stdint.h>

struct strbuf {
	char *s;
	size_t len, cap;
};

void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes (the string stays NUL-terminated). */
void sb_append(struct strbuf *b, const char *s, size_t n);
/* Append v in decimal (no printf: .pcf files list labels by the 100 k). */
void sb_i64(struct strbuf *b, int64_t v);
void sb_free(struct strbuf *b);

/* Append s as text within one line of a text format (a name or a label
 * in a .pcf or .row): a control character (a newline, which would start a
 * record of its own, a tab, DEL) becomes a space and a byte that is not
 * part of valid UTF-8 becomes '?', so what an input names can never add
 * lines or break a reader. */
void sb_text(struct strbuf *b, const char *s);
/* The length of the valid UTF-8 sequence at s (n bytes left): 1 to 4, or
 * 0 when the bytes there are not UTF-8. */
size_t utf8_seq(const unsigned char *s, size_t n);

#endif
