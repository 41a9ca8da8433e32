/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_fast: the common new-format line read in one pass over its bytes,
 * without tokens: an event record (-2, -3, -4) or a user record (>= 0) of
 * one processor, a plain decimal timestamp (at most 9 integer and 9
 * fraction digits, no exponent), and no data or integer data under
 * descriptor code 2 or 3 (not redefined by a -6 record; user records only
 * without data). It stores exactly
 * what picl_new_line would; anything else (quotes, other records, odd
 * numbers, errors, a '\\' continuing the line) is left to picl_new_line,
 * which alone reports errors. Every scan stops at the line's '\n' (the
 * caller guarantees one, and 8 readable bytes from any byte up to it), so
 * no byte is compared with an end pointer. Integers of more than 9 digits,
 * a '+' sign and the like also go to picl_new_line, with the same result.
 * The common shape (single spaces, short numbers) takes the fewest
 * instructions; blanks of other kinds or lengths take a slower branch.
 * The lines are read into any record array with no other state of the
 * importer (struct picl_plain), so picl_par.c can read them on another
 * thread. */
#include "import/picl/picl_int.h"

/* White space but the newline: ' ', '\t', '\v', '\f', '\r'. */
static inline int is_sp(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r' && c != '\n');
}

static inline const char *skip_sp(const char *s)
{
	while (is_sp((unsigned char) *s))
		s++;
	return s;
}

static inline unsigned digit(const char *s)
{
	return (unsigned) (unsigned char) *s - '0';
}

/* After a field ending at s (not a space): the next field past a blank,
 * the newline itself (where the next field fails: a line with too few
 * fields is not plain), or NULL. */
static const char *field_end(const char *s)
{
	return *s == '\n' ? s : is_sp((unsigned char) *s) ? s + 1 : NULL;
}

/* A field the fast branch does not take: blanks first, a '-' (when
 * `sign`), 1 to 9 digits, then a blank or the newline. */
static __attribute__((noinline)) const char *field_slow(const char *s, int32_t *out, int sign)
{
	s = skip_sp(s);
	unsigned neg = sign && *s == '-';
	s += neg;
	const char *d = s;
	uint32_t v = 0;
	for (unsigned c; (c = digit(s)) < 10; s++)
		v = v * 10 + c;
	if (s == d || s - d > 9)
		return NULL;
	*out = (int32_t) (neg ? 0u - v : v);
	return field_end(s);
}

/* A field: 1 to 9 digits (so an int32_t; longer ones are left to
 * picl_new_line), negative when `sign` allows, then a blank or the
 * newline. Sets *out and returns the start of the next field (see
 * field_end), or NULL. Short numbers are read unrolled. */
static inline __attribute__((always_inline)) const char *f_int(const char *s, int32_t *out, int sign)
{
	unsigned neg = 0;
	if (sign && *s == '-') {
		neg = 1;
		s++;
	}
	uint32_t v = digit(s);
	if (__builtin_expect(v >= 10, 0))
		return neg ? NULL : field_slow(s, out, sign);
	unsigned c = digit(s + 1);
	if (c >= 10) {
		s += 1;
	} else {
		v = v * 10 + c;
		c = digit(s + 2);
		if (c >= 10) {
			s += 2;
		} else {
			const char *d = s;
			s += 2;
			do {
				v = v * 10 + c;
				c = digit(++s);
			} while (c < 10);
			if (s - d > 9)
				return NULL;
		}
	}
	*out = (int32_t) (neg ? 0u - v : v);
	if (__builtin_expect(c == (unsigned) (' ' - '0'), 1))
		return s + 1;
	if (c == (unsigned) ('\n' - '0'))
		return s;
	return field_end(s);
}

/* Up to 7 decimal digits at s, read as one 8-byte word: their number in
 * *n (8: maybe more, read them one by one) and their value. */
static inline uint64_t swar_digits(const char *s, int *n)
{
	uint64_t x;
	memcpy(&x, s, 8);
	uint64_t d = x - 0x3030303030303030ull;
	/* the high bit of each byte that is not a digit: below '0' the
	 * subtraction wraps, above '9' adding 0x76 reaches 0x80; borrows and
	 * carries only move upwards, past the first non-digit */
	uint64_t nondig = (d | (d + 0x7676767676767676ull)) & 0x8080808080808080ull;
	if (!nondig) {
		*n = 8;
		return 0;
	}
	int bits = __builtin_ctzll(nondig) - 7; /* 8 x digits */
	*n = bits >> 3;
	if (!bits)
		return 0;
	d <<= 64 - bits; /* the digits at the top, zeros (leading) below */
	d = (d * 10 + (d >> 8)) & 0x00ff00ff00ff00ffull;
	d = (d * 100 + (d >> 16)) & 0x0000ffff0000ffffull;
	return (d * 10000 + (d >> 32)) & 0xffffffffull;
}

static const int64_t pow10_ns[10] = {
	1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1,
};

/* "[-]D[.D]" seconds (at most 9 digits each side) to ns, and the number
 * of decimals, then a blank: the byte after that, or NULL. */
static inline __attribute__((always_inline)) const char *seconds_at(const char *s, int64_t *out,
								      int *decimals)
{
	unsigned neg = *s == '-';
	s += neg;
	const char *d = s;
	uint64_t ip = 0, fp = 0;
	for (unsigned c; (c = digit(s)) < 10; s++)
		ip = ip * 10 + c;
	int ni = (int) (s - d), nf = 0;
	if (*s == '.') {
		fp = swar_digits(++s, &nf);
		if (__builtin_expect(nf == 8, 0)) {
			const char *f = s;
			fp = 0;
			for (unsigned c; (c = digit(s)) < 10; s++)
				fp = fp * 10 + c;
			nf = s - f > 9 ? 10 : (int) (s - f);
		} else {
			s += nf;
		}
	}
	if (ni > 9 || nf > 9 || ni + nf == 0 || !is_sp((unsigned char) *s)) /* also an exponent */
		return NULL;
	int64_t v = (int64_t) ip * 1000000000 + (int64_t) fp * pow10_ns[nf];
	*out = neg ? -v : v;
	*decimals = nf;
	return s + 1;
}

static inline const char *f_seconds(const char *s, int64_t *out, int *decimals)
{
	const char *r = seconds_at(s, out, decimals);
	if (__builtin_expect(!r && is_sp((unsigned char) *s), 0))
		r = seconds_at(skip_sp(s), out, decimals);
	return r;
}

/* The kind of a record of type rt (o->type set; see picl_set_kind): 1
 * when it is a file I/O record. */
static inline int plain_kind(struct orec *o, int32_t rt)
{
	if (rt >= 0) {
		o->kind = K_USER;
		o->a = rt;
		return 0;
	}
	int k = rt == -3 ? 0 : rt == -4 ? 1 : 2; /* entry, exit, mark */
	static const uint8_t kinds[2][3] = {{K_ENTRY, K_EXIT, K_MARK}, {K_UBEGIN, K_UEND, K_MARK}};
	o->kind = kinds[o->type >= 0][k];
	return o->type < 0 && picl_is_file(o->type);
}

/* One line (see picl_plain_lines) read into *o (kept by the caller only
 * when the line is plain): the next line, or NULL. `alias`: codes 2 and 3
 * redefined by a -6 record, as bits 1 << (code - 2). */
static inline const char *plain_line(struct orec *o, const char *s, unsigned alias, int *dec, int *file)
{
	int32_t rt, process, nd;
	if (s[0] == '-' && s[1] >= '2' && s[1] <= '4' && s[2] == ' ') { /* -2, -3, -4 */
		rt = '0' - s[1];
		s += 3;
	} else if (!(s = f_int(s, &rt, 1)) || (rt < 0 && rt != -2 && rt != -3 && rt != -4)) {
		return NULL;
	}
	if (!(s = f_int(s, &o->type, 1)) || !(s = f_seconds(s, &o->t, dec)) || !(s = f_int(s, &o->proc, 0)) ||
	    o->proc > HOST || !(s = f_int(s, &process, 1)) || !(s = f_int(s, &nd, 0)) || nd > 1000000)
		return NULL;
	o->a = o->b = o->c = o->d = o->e = -1;
	o->process = process;
	if (nd > 0 && rt >= 0)
		return NULL; /* a user record's data is kept as text: picl_new_line */
	if (rt == -2 && picl_call_mark(o->type))
		return NULL; /* its data split into the entry's and the exit's: picl_new_line */
	if (nd > 0) {
		int32_t code, v;
		if (!(s = f_int(s, &code, 0)) || (code != 2 && code != 3) || (alias >> (code - 2) & 1) ||
		    !(s = f_int(s, &o->a, 1)) || (nd > 1 && !(s = f_int(s, &o->b, 1))) ||
		    (nd > 2 && !(s = f_int(s, &o->c, 1))) || (nd > 3 && !(s = f_int(s, &o->d, 1))))
			return NULL;
		for (int32_t k = 4; k < nd; k++)
			if (!(s = f_int(s, &v, 1)))
				return NULL;
	}
	if (*s != '\n') {
		s = skip_sp(s);
		if (*s != '\n')
			return NULL;
	}
	o->seq = 0;
	o->sub = o->digits = 0;
	*file = plain_kind(o, rt);
	return s + 1;
}

const char *picl_plain_lines(struct picl_plain *c, const char *s, const char *end, size_t stop)
{
	struct orec *r = c->r;
	size_t n = c->n, cap = c->cap;
	unsigned line = c->line, alias = c->alias;
	int dmax = c->dec;
	while (s < end && n < stop) {
		if (__builtin_expect(n == cap, 0)) {
			cap = cap ? 2 * cap : 4096;
			r = weft_xrealloc(r, cap * sizeof(*r));
		}
		struct orec *o = &r[n];
		int dec, file;
		const char *nx = plain_line(o, s, alias, &dec, &file);
		if (!nx)
			break;
		s = nx;
		if (dec > dmax)
			dmax = dec;
		if (__builtin_expect(file, 0) && c->file_at == SIZE_MAX)
			c->file_at = n;
		o->line = ++line;
		n++;
	}
	c->r = r;
	c->n = n;
	c->cap = cap;
	c->line = line;
	c->dec = dmax;
	return s;
}

unsigned picl_alias_bits(const struct picl *p)
{
	unsigned bits = 0;
	for (int i = 0; i < p->nalias; i++)
		if (p->alias[i].code == 2 || p->alias[i].code == 3)
			bits |= 1u << (p->alias[i].code - 2);
	return bits;
}

const char *picl_fast_lines(struct picl *p, const char *s, const char *end, unsigned *line, size_t stop)
{
	struct picl_plain c = {p->r, p->n, p->cap, *line, picl_alias_bits(p), p->ts_digits, SIZE_MAX};
	s = picl_plain_lines(&c, s, end, stop);
	p->r = c.r;
	p->n = c.n;
	p->cap = c.cap;
	p->ts_digits = c.dec;
	p->has_files |= c.file_at != SIZE_MAX;
	*line = c.line;
	return s;
}
