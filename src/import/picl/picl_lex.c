/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_lex: warnings, record storage, tokens and exact numbers of PICL lines. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"

void picl_warn(struct picl *p, unsigned line, const char *fmt, const char *what)
{
	int k = p->nwarn++;
	if (k < p->wsilent || p->quiet)
		return; /* shown by the reading that found the log unsorted, or -q */
	if (k < MAX_WARN)
		weft_warn("%s:%u: %s%s", p->path, line, fmt, what ? what : "");
	else if (k == MAX_WARN)
		weft_warn("%s: more warnings follow; not shown", p->path);
}

/* Only the first MAX_WARN + 1 can be shown (even after no warning of the
 * reading): the rest are counted. */
void picl_warn_later(struct picl *p, unsigned line, const char *what)
{
	if (p->nlater < MAX_WARN + 1)
		p->later[p->nlater++] = (struct picl_later){line, what};
	else
		p->nlater_more++;
}

void picl_warn_flush(struct picl *p)
{
	for (int i = 0; i < p->nlater; i++)
		picl_warn(p, p->later[i].line, p->later[i].what, NULL);
	p->nwarn += p->nlater_more;
	p->nlater = p->nlater_more = 0;
}

void picl_grow(struct picl *p)
{
	p->cap = p->cap ? 2 * p->cap : 4096;
	p->r = weft_xrealloc(p->r, p->cap * sizeof(*p->r));
}

void picl_add_label(struct picl *p, int64_t value, const char *s, size_t n)
{
	for (int i = 0; i < p->nlab; i++)
		if (p->lab[i].value == value) {
			free(p->lab[i].text);
			p->lab[i].text = weft_xasprintf("%.*s", (int) n, s);
			return;
		}
	if (p->nlab == p->clab) {
		p->clab = p->clab ? 2 * p->clab : 16;
		p->lab = weft_xrealloc(p->lab, (size_t) p->clab * sizeof(*p->lab));
	}
	p->lab[p->nlab].value = value;
	p->lab[p->nlab++].text = weft_xasprintf("%.*s", (int) n, s);
}

/* ---- tokens and numbers --------------------------------------------------- */

/* Split [s, e) at white space; a token starting with '"' runs to the next
 * '"'. Returns -1 on an unterminated quote. */
int picl_tokenize(struct picl *p, const char *s, const char *e)
{
	p->ntk = 0;
	while (s < e) {
		while (s < e && isspace((unsigned char) *s))
			s++;
		if (s >= e)
			break;
		const char *b = s;
		if (*s == '"') {
			s++;
			while (s < e && *s != '"')
				s++;
			if (s >= e)
				return -1;
			s++;
		} else {
			while (s < e && !isspace((unsigned char) *s))
				s++;
		}
		if (p->ntk == p->ctk) {
			p->ctk = p->ctk ? 2 * p->ctk : 64;
			p->tk = weft_xrealloc(p->tk, (size_t) p->ctk * sizeof(*p->tk));
		}
		p->tk[p->ntk].p = b;
		p->tk[p->ntk++].n = (size_t) (s - b);
	}
	return 0;
}

int picl_tok_int(const struct tok *t, int64_t lo, int64_t hi, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	if (i < t->n && (t->p[i] == '-' || t->p[i] == '+'))
		neg = t->p[i++] == '-';
	if (i == t->n)
		return -1;
	int64_t v = 0;
	for (; i < t->n; i++) {
		if (t->p[i] < '0' || t->p[i] > '9')
			return -1;
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (t->p[i] - '0');
	}
	v = neg ? -v : v;
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Decimal seconds ("-0.715036", "1.5e-3") to ns exactly, rounding half to
 * even at the nanosecond; no binary floating point. */
int picl_tok_seconds(const struct tok *t, int64_t *out)
{
	size_t i = 0;
	int neg = 0, digits = 0;
	if (i < t->n && (t->p[i] == '-' || t->p[i] == '+'))
		neg = t->p[i++] == '-';
	__int128 m = 0;
	int scale = 0; /* value = m * 10^scale seconds */
	int sig = 0;
	for (; i < t->n && isdigit((unsigned char) t->p[i]); i++, digits++)
		if (sig < 30) {
			m = m * 10 + (t->p[i] - '0');
			sig += m != 0;
		} else
			scale++;
	if (i < t->n && t->p[i] == '.') {
		for (i++; i < t->n && isdigit((unsigned char) t->p[i]); i++, digits++)
			if (sig < 30) {
				m = m * 10 + (t->p[i] - '0');
				sig += m != 0;
				scale--;
			}
	}
	if (!digits)
		return -1;
	if (i < t->n && (t->p[i] == 'e' || t->p[i] == 'E')) {
		int64_t x;
		struct tok ex = {t->p + i + 1, t->n - i - 1};
		if (picl_tok_int(&ex, -400, 400, &x))
			return -1;
		scale += (int) x;
		i = t->n;
	}
	if (i != t->n)
		return -1;
	scale += 9; /* to ns */
	if (m != 0) {
		for (; scale > 0; scale--) {
			m *= 10;
			if (m > (__int128) INT64_MAX)
				return -1;
		}
		if (scale < 0) {
			__int128 d = 1;
			for (int k = 0; k < -scale; k++) {
				d *= 10;
				if (d > m * 10 + 10) {
					m = 0, d = 1;
					break;
				}
			}
			__int128 q = m / d, r = m % d;
			if (2 * r > d || (2 * r == d && (q & 1)))
				q++;
			m = q;
		}
	}
	if (m > (__int128) INT64_MAX)
		return -1;
	*out = neg ? -(int64_t) m : (int64_t) m;
	return 0;
}

/* Decimal places a number's text resolves (digits after the point minus the
 * exponent), clamped to 0..9: "0.001212" 6, "1.5e-3" 4. */
int picl_tok_decimals(const struct tok *t)
{
	int d = 0, after = 0;
	size_t i = 0;
	for (; i < t->n && t->p[i] != 'e' && t->p[i] != 'E'; i++) {
		if (t->p[i] == '.')
			after = 1;
		else if (after)
			d++;
	}
	if (i < t->n) {
		int64_t x;
		struct tok ex = {t->p + i + 1, t->n - i - 1};
		if (picl_tok_int(&ex, -400, 400, &x) == 0)
			d -= (int) x;
	}
	return d < 0 ? 0 : d > 9 ? 9 : d;
}
