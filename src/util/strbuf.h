/* strbuf: a growable string for small generated files (.pcf, .row). */
#ifndef WEFT_STRBUF_H
#define WEFT_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *s;
	size_t len, cap;
};

void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes (the string stays NUL-terminated). */
void sb_append(struct strbuf *b, const char *s, size_t n);
void sb_free(struct strbuf *b);

#endif
