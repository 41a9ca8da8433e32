/* picl_fast: the common new-format line read in one pass over its bytes,
 * without tokens: an event record (-2, -3, -4) or a user record (>= 0) of
 * one processor, a plain decimal timestamp (at most 9 integer and 9
 * fraction digits, no exponent), and no data or integer data under
 * descriptor code 2 or 3 (not redefined by a -6 record). It stores exactly
 * what picl_new_line would; anything else (quotes, other records, odd
 * numbers, errors) is left to picl_new_line, which alone reports errors. */
#include "picl_int.h"

static inline int is_sp(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline const char *skip_sp(const char *s, const char *e)
{
	while (s < e && is_sp(*s))
		s++;
	return s;
}

/* A decimal integer in [lo, hi] ending at white space or the end. */
static inline int f_int(const char **sp, const char *e, int64_t lo, int64_t hi, int64_t *out)
{
	const char *s = *sp;
	int neg = 0;
	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	const char *d = s;
	int64_t v = 0;
	while (s < e && (unsigned) (*s - '0') < 10u && s - d < 18)
		v = v * 10 + (*s++ - '0');
	if (s == d || (s < e && !is_sp(*s))) /* also a 19th digit */
		return -1;
	v = neg ? -v : v;
	if (v < lo || v > hi)
		return -1;
	*out = v;
	*sp = s;
	return 0;
}

static const int64_t pow10_ns[10] = {
	1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1,
};

/* "[-+]D[.D]" seconds to ns, and the number of decimals. */
static inline int f_seconds(const char **sp, const char *e, int64_t *out, int *decimals)
{
	const char *s = *sp;
	int neg = 0;
	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	const char *d = s;
	int64_t ip = 0, fp = 0;
	while (s < e && (unsigned) (*s - '0') < 10u && s - d < 9)
		ip = ip * 10 + (*s++ - '0');
	int ni = (int) (s - d), nf = 0;
	if (s < e && *s == '.') {
		const char *f = ++s;
		while (s < e && (unsigned) (*s - '0') < 10u && s - f < 9)
			fp = fp * 10 + (*s++ - '0');
		nf = (int) (s - f);
	}
	if (ni + nf == 0 || (s < e && !is_sp(*s))) /* also a 10th digit, an exponent */
		return -1;
	int64_t v = ip * 1000000000 + fp * pow10_ns[nf];
	*out = neg ? -v : v;
	*decimals = nf;
	*sp = s;
	return 0;
}

static int aliased(const struct picl *p, int64_t code)
{
	for (int i = 0; i < p->nalias; i++)
		if (p->alias[i].code == code)
			return 1;
	return 0;
}

int picl_fast_line(struct picl *p, const char *s, const char *e, unsigned line)
{
	int64_t rt, et, t, proc, process, nd;
	int dec;
	s = skip_sp(s, e);
	if (f_int(&s, e, INT32_MIN, INT32_MAX, &rt) || (rt < 0 && rt != -2 && rt != -3 && rt != -4))
		return 0;
	s = skip_sp(s, e);
	if (f_int(&s, e, INT32_MIN, INT32_MAX, &et))
		return 0;
	s = skip_sp(s, e);
	if (f_seconds(&s, e, &t, &dec))
		return 0;
	s = skip_sp(s, e);
	if (f_int(&s, e, 0, HOST, &proc))
		return 0;
	s = skip_sp(s, e);
	if (f_int(&s, e, INT32_MIN, INT32_MAX, &process))
		return 0;
	s = skip_sp(s, e);
	if (f_int(&s, e, 0, 1000000, &nd))
		return 0;
	s = skip_sp(s, e);
	int32_t d[3] = {-1, -1, -1};
	if (nd > 0) {
		int64_t code;
		if (f_int(&s, e, INT32_MIN, INT32_MAX, &code) || (code != 2 && code != 3) || aliased(p, code))
			return 0;
		for (int64_t k = 0; k < nd; k++) {
			int64_t v;
			s = skip_sp(s, e);
			if (f_int(&s, e, INT32_MIN, INT32_MAX, &v))
				return 0;
			if (k < 3)
				d[k] = (int32_t) v;
		}
		s = skip_sp(s, e);
	}
	if (s != e)
		return 0;
	if (dec > p->ts_digits)
		p->ts_digits = dec;
	struct orec *o = picl_add(p);
	o->t = t;
	o->line = line;
	o->proc = (int32_t) proc;
	o->type = (int32_t) et;
	o->a = d[0], o->b = d[1], o->c = d[2];
	picl_set_kind(p, o, rt);
	return 1;
}
