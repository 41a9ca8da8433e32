/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_text: the texts PICL records carry that weft keeps (doc/formats/
 * legacy.md §2.4, item 9): user record data, -7 messages. They are held in
 * one buffer (p->txt) beside the records that point into it, and dropped
 * with them once written: no allocation per record. */
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"

size_t picl_text_add(struct picl *p, const void *pre, size_t npre, const char *s, size_t n)
{
	if (n > PICL_TEXT_MAX)
		n = PICL_TEXT_MAX;
	size_t need = p->ntxt + npre + n + 1;
	if (need > p->ctxt) {
		p->ctxt = 2 * need + 4096;
		p->txt = weft_xrealloc(p->txt, p->ctxt);
	}
	size_t off = p->ntxt;
	if (npre)
		memcpy(p->txt + off, pre, npre);
	memcpy(p->txt + off + npre, s, n);
	/* a NUL inside would cut the text short: the reader refuses lines with
	 * one, so there is none */
	p->txt[off + npre + n] = 0;
	p->ntxt = need;
	return off;
}

void picl_data_text(const struct picl *p, int first, const char **s, size_t *n)
{
	const char *b = p->tk[first].p, *e = p->tk[p->ntk - 1].p + p->tk[p->ntk - 1].n;
	if (*b == '"' && e > b + 1 && e[-1] == '"' && first == p->ntk - 1)
		b++, e--;
	*s = b;
	*n = (size_t) (e - b);
}
