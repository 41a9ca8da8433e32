/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_common: the parts of the Paraver checker every validator uses (see
 * check_int.h): two-word hash sets for labels and first uses, the reporting
 * path with its limit on formatted messages, quoting of record bytes, small
 * text helpers, and the checker's life cycle (new, finish, free). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_int.h"
#include "util/err.h"

/* ---- hash sets ------------------------------------------------------------- */

static void hs_grow(struct hset *s)
{
	struct hset ns = {NULL, s->cap ? s->cap * 2 : 64, s->n};
	ns.t = weft_xcalloc(ns.cap, sizeof(*ns.t));
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->t[i].used)
			continue;
		size_t j = hs_slot(&ns, s->t[i].k1, s->t[i].k2);
		while (ns.t[j].used)
			j = (j + 1) & (ns.cap - 1);
		ns.t[j] = s->t[i];
	}
	free(s->t);
	*s = ns;
}

struct hent *chk_hs_add(struct hset *s, uint64_t a, uint64_t b, uint64_t line, int *added)
{
	struct hent *e = hs_find(s, a, b);
	*added = 0;
	if (e)
		return e;
	if ((s->n + 1) * 2 > s->cap)
		hs_grow(s);
	size_t i = hs_slot(s, a, b);
	while (s->t[i].used)
		i = (i + 1) & (s->cap - 1);
	e = &s->t[i];
	e->k1 = a;
	e->k2 = b;
	e->line = line;
	e->flags = 0;
	e->used = 1;
	s->n++;
	*added = 1;
	return e;
}

void chk_hs_free(struct hset *s)
{
	free(s->t);
	memset(s, 0, sizeof(*s));
}

/* ---- reporting ------------------------------------------------------------ */

static void vreport(struct prvchk *c, enum prvchk_level lv, const char *file, uint64_t line,
		    const char *fmt, va_list ap)
{
	int want = chk_wanted(c, lv);
	if (lv == PRVCHK_ERROR)
		c->st.errors++;
	else
		c->st.warnings++;
	if (!want)
		return;
	char msg[2048];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	struct prvchk_problem p = {lv, file, line, msg};
	c->o.report(c->o.ctx, &p);
}

void prvchk_report(struct prvchk *c, enum prvchk_level level, const char *file, uint64_t line,
		   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, level, file, line, fmt, ap);
	va_end(ap);
}

char *chk_quote(char *dst, const char *p, size_t n, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	char *d = dst;
	*d++ = '"';
	size_t k = n < max ? n : max;
	for (size_t i = 0; i < k; i++) {
		unsigned char ch = (unsigned char) p[i];
		if (ch == '"' || ch == '\\') {
			*d++ = '\\';
			*d++ = (char) ch;
		} else if (ch == '\r' || ch == '\t') {
			*d++ = '\\';
			*d++ = ch == '\r' ? 'r' : 't';
		} else if (ch < 32 || ch >= 127) {
			*d++ = '\\';
			*d++ = 'x';
			*d++ = hex[ch >> 4];
			*d++ = hex[ch & 15];
		} else {
			*d++ = (char) ch;
		}
	}
	*d++ = '"';
	if (k < n) {
		memcpy(d, "...", 3);
		d += 3;
	}
	*d = '\0';
	return dst;
}

char *chk_token(char *dst, const char *p, const char *e)
{
	if (p >= e) {
		strcpy(dst, "end of line");
		return dst;
	}
	const char *t = p;
	while (t < e && *t != ':')
		t++;
	if (t == p)
		t = p + 1; /* an empty field: show the ':' */
	return chk_quote(dst, p, (size_t) (t - p), 24);
}

/* ---- small helpers --------------------------------------------------------- */

void *chk_grow(void *p, size_t *cap, size_t need, size_t elsz)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	*cap = n;
	return weft_xrealloc(p, n * elsz);
}

int chk_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

const char *chk_skip_blanks(const char *p, const char *e)
{
	while (p < e && chk_blank(*p))
		p++;
	return p;
}

int chk_txt_int(const char **pp, const char *e, int neg_ok, int64_t *out, int *big)
{
	const char *p = *pp;
	int neg = 0;
	*big = 0;
	if (neg_ok && p < e && *p == '-') {
		neg = 1;
		p++;
	}
	const char *s = p;
	uint64_t v = 0;
	while (p < e && *p >= '0' && *p <= '9') {
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t) (*p - '0'), &v))
			*big = 1;
		p++;
	}
	if (p == s || *big || v > (uint64_t) INT64_MAX) {
		*big = p != s;
		return -1;
	}
	*out = neg ? -(int64_t) v : (int64_t) v;
	*pp = p;
	return 0;
}

/* ---- life cycle ------------------------------------------------------------ */

struct prvchk *prvchk_new(const char *name, const struct prvchk_opts *o)
{
	struct prvchk *c = weft_xcalloc(1, sizeof(*c));
	c->name = weft_xstrdup(name);
	if (o)
		c->o = *o;
	c->phase = PH_HEADER;
	c->last_nl = 1;
	return c;
}

void prvchk_finish(struct prvchk *c, struct prvchk_stats *st)
{
	if (c->pcf_ok && c->phase == PH_BODY)
		chk_check_labels(c);
	if (st)
		*st = c->st;
}

void prvchk_free(struct prvchk *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->pcfname);
	free(c->cpu_node);
	free(c->node_cpu0);
	free(c->appl_task0);
	free(c->task_thread0);
	free(c->task_node);
	free(c->thr);
	free(c->carry);
	chk_hs_free(&c->types);
	chk_hs_free(&c->values);
	chk_hs_free(&c->slabel);
	chk_hs_free(&c->scolor);
	chk_hs_free(&c->used_states);
	chk_hs_free(&c->miss_types);
	chk_hs_free(&c->miss_values);
	free(c);
}
