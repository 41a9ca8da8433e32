/* check: the Paraver trace validator behind `weft check` (see prvcheck.h).
 *
 * The .prv is read line by line from pieces of any size; only a line that
 * straddles two pieces is copied. Numbers are parsed by hand. Per thread the
 * checker keeps the latest first-time seen and the end of the last state;
 * labels live in open-addressing hash sets. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "err.h"
#include "mapfile.h"
#include "prvcheck.h"

#define MAX_OBJ 65535u           /* objects per level (16-bit kernel types) */
#define MAX_TRACK 100000u        /* distinct unlabelled keys remembered */
#define MAX_LINE (64u << 20)     /* longest line kept across pieces */
#define QUOTE_MAX 80             /* record bytes quoted in a message */
#define TWO53 (UINT64_C(1) << 53)

#define COLD __attribute__((cold, noinline))

/* ---- hash sets keyed by two words ---------------------------------------- */

struct hent {
	uint64_t k1, k2;
	uint64_t line;   /* where the key was first seen */
	uint32_t flags;
	uint32_t used;
};

struct hset {
	struct hent *t;
	size_t cap, n;
};

#define HAS_VALUES 1u /* types: the EVENT_TYPE block has a non-empty VALUES list */

static inline size_t hs_slot(const struct hset *s, uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * UINT64_C(0xC2B2AE3D27D4EB4F))) * UINT64_C(0x9E3779B97F4A7C15);
	return (size_t) (h ^ (h >> 29)) & (s->cap - 1);
}

static inline struct hent *hs_find(const struct hset *s, uint64_t a, uint64_t b)
{
	if (s->n == 0)
		return NULL;
	size_t i = hs_slot(s, a, b);
	for (;;) {
		struct hent *e = &s->t[i];
		if (!e->used)
			return NULL;
		if (e->k1 == a && e->k2 == b)
			return e;
		i = (i + 1) & (s->cap - 1);
	}
}

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

/* The entry for (a, b); added with `line` when absent (*added set to 1). */
static struct hent *hs_add(struct hset *s, uint64_t a, uint64_t b, uint64_t line, int *added)
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

static void hs_free(struct hset *s)
{
	free(s->t);
	memset(s, 0, sizeof(*s));
}

/* ---- checker state -------------------------------------------------------- */

struct thr {
	uint64_t last_time;  /* latest first-time of the thread's records */
	uint64_t last_line;  /* line of that record; 0 = none yet */
	uint64_t state_end;  /* latest state end */
	uint64_t state_line; /* line of that state; 0 = none yet */
};

enum phase { PH_HEADER, PH_COMM, PH_BODY, PH_SKIP };

struct prvchk {
	char *name;
	struct prvchk_opts o;
	struct prvchk_stats st;

	enum phase phase;
	uint64_t lineno;
	uint64_t comm_seen;

	/* the header's model */
	int resources;
	uint32_t *cpu_node;     /* [ncpus + 1]: 1-based node of each global CPU */
	uint32_t *node_cpu0;    /* [nnodes + 1]: first global CPU of each node */
	uint32_t *appl_task0;   /* [nappl + 1]: first global task of each appl */
	uint32_t *task_thread0; /* [ntasks + 1]: first global thread of each task */
	uint32_t *task_node;    /* [ntasks] */
	struct thr *thr;        /* [nthreads] */
	int warned_appl_sep;

	/* a line cut between two pieces */
	char *carry;
	size_t carry_len, carry_cap;
	int carry_overlong;
	int last_nl;

	/* the record being checked, for messages */
	const char *rec;
	size_t rec_len;
	const char *kind;

	/* labels */
	int pcf_ok;
	char *pcfname;
	struct hset types;  /* (type, 0), flags HAS_VALUES */
	struct hset values; /* (type, value) */
	struct hset slabel; /* (state, 0) */
	struct hset scolor; /* (state, 0) */
	struct hset used_states;                  /* (state, 0): first line */
	struct hset miss_types, miss_values;      /* first line of use */
	uint64_t dropped;                         /* keys not remembered */
	uint64_t globalop_line;
};

/* ---- reporting ------------------------------------------------------------ */

static int wanted(const struct prvchk *c, enum prvchk_level lv)
{
	uint64_t n = lv == PRVCHK_ERROR ? c->st.errors : c->st.warnings;
	return c->o.report && (c->o.max_reports == 0 || n < c->o.max_reports);
}

static void vreport(struct prvchk *c, enum prvchk_level lv, const char *file, uint64_t line,
		    const char *fmt, va_list ap)
{
	int want = wanted(c, lv);
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

#define ERR(c, file, line, ...) prvchk_report((c), PRVCHK_ERROR, (file), (line), __VA_ARGS__)
#define WARN(c, file, line, ...) prvchk_report((c), PRVCHK_WARNING, (file), (line), __VA_ARGS__)

/* `p[0..n)` as a C-like quoted string, at most `max` input bytes. dst needs
 * 4 * max + 8 bytes. */
static char *quote(char *dst, const char *p, size_t n, size_t max)
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

/* The text at p up to the next ':' (or the end), quoted, or "end of line". */
static char *token(char *dst, const char *p, const char *e)
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
	return quote(dst, p, (size_t) (t - p), 24);
}

/* An error about the current record. */
static COLD __attribute__((format(printf, 2, 3))) void rec_err(struct prvchk *c, const char *fmt, ...)
{
	if (!wanted(c, PRVCHK_ERROR)) {
		c->st.errors++;
		return;
	}
	char q[4 * QUOTE_MAX + 8], what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ERR(c, c->name, c->lineno, "%s record %s: %s", c->kind, quote(q, c->rec, c->rec_len, QUOTE_MAX),
	    what);
}

/* ---- numbers in records ---------------------------------------------------- */

struct lp {
	const char *p, *e;
	unsigned field; /* 1-based; field 1 is the record kind */
};

/* A field that did not parse: missing, not a number, or out of range. */
static COLD int fld_bad(struct prvchk *c, const struct lp *l, const char *what, int sgn, uint64_t max)
{
	const char *type = sgn ? "a signed 64-bit integer" : "an unsigned integer";
	char tok[128];
	const char *p = l->p, *e = l->e;
	if (p >= e) {
		rec_err(c, "field %u (%s) is missing: the record ends after field %u; expected %s", l->field,
			what, l->field - 1, type);
		return -1;
	}
	const char *t = p;
	if (sgn && t < e && *t == '-')
		t++;
	const char *d = t;
	while (t < e && *t >= '0' && *t <= '9')
		t++;
	if (t > d && (t == e || *t == ':')) {
		rec_err(c, "field %u (%s): %s is out of range; expected %s up to %llu", l->field, what,
			token(tok, p, e), type, (unsigned long long) max);
		return -1;
	}
	rec_err(c, "field %u (%s): expected %s, found %s", l->field, what, type, token(tok, p, e));
	return -1;
}

/* Text after a field where ':' or the end of the line belongs (`last` as
 * in fld_u). */
static COLD int fld_after(struct prvchk *c, const struct lp *l, const char *p, const char *what, int last)
{
	char tok[128];
	if (last == 0 && p >= l->e)
		rec_err(c, "the record ends after field %u (%s); expected ':' and more fields", l->field - 1,
			what);
	else
		rec_err(c, "unexpected %s after field %u (%s); expected %s", token(tok, p, l->e), l->field - 1,
			what,
			last > 0 ? "the end of the line" : last == 0 ? "':'" : "':' or the end of the line");
	return -1;
}

/* Every line handed to the record parsers is followed by a '\n' (the one
 * memchr found, or one written after the carried copy), so digit loops stop
 * there without a bound check. */

/* The digits at s with overflow detection, for numbers of 20 digits or more
 * (zero-padded fields). */
static COLD const char *digits_slow(const char *s, int *ovf, uint64_t *out)
{
	uint64_t v = 0;
	unsigned d;
	*ovf = 0;
	while ((d = (unsigned) (unsigned char) *s - '0') <= 9) {
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t) d, &v))
			*ovf = 1;
		s++;
	}
	*out = v;
	return s;
}

/* What follows a field at p. last > 0: the end of the line must follow;
 * last == 0: ':' must follow and is consumed; last < 0: either may follow
 * and l->p is left on it. */
static inline int fld_sep(struct prvchk *c, struct lp *l, const char *p, const char *what, int last)
{
	l->field++;
	if (last > 0) {
		if (__builtin_expect(p != l->e, 0))
			return fld_after(c, l, p, what, 1);
	} else if (last == 0) {
		if (__builtin_expect(p == l->e || *p != ':', 0))
			return fld_after(c, l, p, what, 0);
		p++;
	} else if (__builtin_expect(p != l->e && *p != ':', 0)) {
		return fld_after(c, l, p, what, -1);
	}
	l->p = p;
	return 0;
}

/* An unsigned decimal field <= max, then the separator `last` asks for.
 * Returns 0, or reports and returns -1. */
static inline int fld_u(struct prvchk *c, struct lp *l, const char *what, uint64_t max, uint64_t *out,
			int last)
{
	const char *p = l->p, *s = p;
	uint64_t v = 0;
	unsigned d;
	while ((d = (unsigned) (unsigned char) *p - '0') <= 9) {
		v = v * 10 + d;
		p++;
	}
	if (__builtin_expect(p - s > 19, 0)) {
		int ovf;
		p = digits_slow(s, &ovf, &v);
		if (ovf)
			return fld_bad(c, l, what, 0, max);
	}
	if (__builtin_expect(p == s || v > max, 0))
		return fld_bad(c, l, what, 0, max);
	if (fld_sep(c, l, p, what, last))
		return -1;
	*out = v;
	return 0;
}

/* A signed int64 decimal field (optional '-'); `last` as in fld_sep. */
static inline int fld_i(struct prvchk *c, struct lp *l, const char *what, int64_t *out, int last)
{
	const char *p = l->p;
	int neg = *p == '-';
	p += neg;
	const char *s = p;
	uint64_t v = 0;
	unsigned d;
	while ((d = (unsigned) (unsigned char) *p - '0') <= 9) {
		v = v * 10 + d;
		p++;
	}
	if (__builtin_expect(p - s > 19, 0)) {
		int ovf;
		p = digits_slow(s, &ovf, &v);
		if (ovf)
			return fld_bad(c, l, what, 1, INT64_MAX);
	}
	uint64_t lim = neg ? (UINT64_C(1) << 63) : (uint64_t) INT64_MAX;
	if (__builtin_expect(p == s || v > lim, 0))
		return fld_bad(c, l, what, 1, INT64_MAX);
	if (fld_sep(c, l, p, what, last))
		return -1;
	*out = neg ? (int64_t) (0 - v) : (int64_t) v;
	return 0;
}

/* ---- the header ----------------------------------------------------------- */

struct hcur {
	const char *s, *p, *e;
};

static COLD __attribute__((format(printf, 3, 4))) int hdr_err(struct prvchk *c, const struct hcur *h,
							      const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ERR(c, c->name, c->lineno, "header: %s (column %zu); the body is not checked", what,
	    (size_t) (h->p - h->s) + 1);
	return -1;
}

/* An unsigned number in min..max: digits only. */
static int hdr_uint(struct prvchk *c, struct hcur *h, const char *what, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	char tok[128];
	const char *p = h->p, *s = p;
	uint64_t v = 0;
	int big = 0;
	while (p < h->e && *p >= '0' && *p <= '9') {
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t) (*p - '0'), &v))
			big = 1;
		p++;
	}
	if (p == s)
		return hdr_err(c, h, "%s: expected an unsigned integer, found %s", what, token(tok, s, h->e));
	if (big || v > max)
		return hdr_err(c, h, "%s: %s is too large; expected at most %llu", what,
			       quote(tok, s, (size_t) (p - s), 24), (unsigned long long) max);
	if (v < min)
		return hdr_err(c, h, "%s must be at least %llu, found %llu", what, (unsigned long long) min,
			       (unsigned long long) v);
	h->p = p;
	*out = v;
	return 0;
}

static int hdr_expect(struct prvchk *c, struct hcur *h, char ch, const char *where)
{
	char tok[16];
	if (h->p < h->e && *h->p == ch) {
		h->p++;
		return 0;
	}
	return hdr_err(c, h, "expected '%c' %s, found %s", ch, where,
		       h->p < h->e ? quote(tok, h->p, 1, 1) : "the end of the line");
}

static void *grow(void *p, size_t *cap, size_t need, size_t elsz)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	*cap = n;
	return weft_xrealloc(p, n * elsz);
}

static int parse_header(struct prvchk *c, const char *line, size_t n)
{
	struct hcur h = {line, line, line + n};
	char tok[4 * QUOTE_MAX + 8], where[128];
	static const char magic[] = "#Paraver (";
	if (n < sizeof(magic) - 1 || memcmp(line, magic, sizeof(magic) - 1) != 0)
		return hdr_err(c, &h, "expected a first line starting with \"#Paraver (\", found %s",
			       quote(tok, line, n, 40));
	h.p += sizeof(magic) - 1;
	const char *rp = memchr(h.p, ')', (size_t) (h.e - h.p));
	if (!rp)
		return hdr_err(c, &h, "the date has no closing ')'; expected \"#Paraver (DATE):FTIME_ns:...\"");
	h.p = rp + 1;
	if (hdr_expect(c, &h, ':', "after the date"))
		return -1;

	/* FTIME[_unit] */
	const char *f = h.p, *fe = memchr(f, ':', (size_t) (h.e - f));
	if (!fe)
		fe = h.e;
	const char *u = f;
	while (u < fe && *u >= '0' && *u <= '9')
		u++;
	if (u == f || (u < fe && *u != '_'))
		return hdr_err(c, &h, "FTIME: expected an unsigned integer with an optional unit suffix "
				      "(like 1000_ns), found %s",
			       quote(tok, f, (size_t) (fe - f), 40));
	if (hdr_uint(c, &h, "FTIME", 0, UINT64_MAX, &c->st.ftime))
		return -1;
	if (u == fe) {
		c->st.unit = "us";
		WARN(c, c->name, c->lineno,
		     "header: FTIME has no unit suffix; the reader takes every time as microseconds "
		     "(expected _ns, _us or _ms)");
	} else if (fe - u == 3 && memcmp(u, "_ns", 3) == 0) {
		c->st.unit = "ns";
	} else if (fe - u == 3 && memcmp(u, "_ms", 3) == 0) {
		c->st.unit = "ms";
	} else if (fe - u == 3 && memcmp(u, "_us", 3) == 0) {
		c->st.unit = "us";
	} else {
		c->st.unit = "us";
		WARN(c, c->name, c->lineno,
		     "header: unknown time unit %s; the reader takes it as microseconds (expected _ns, _us or _ms)",
		     quote(tok, u, (size_t) (fe - u), 24));
	}
	h.p = fe;
	if (c->st.ftime > TWO53)
		WARN(c, c->name, c->lineno,
		     "header: FTIME %llu is above 2^53; the reader keeps times as doubles and loses precision",
		     (unsigned long long) c->st.ftime);
	if (hdr_expect(c, &h, ':', "after FTIME"))
		return -1;

	/* RESOURCES */
	size_t ccap = 0;
	uint64_t v;
	if (h.p < h.e && *h.p == '0') {
		h.p++;
		if (h.p >= h.e || *h.p != ':')
			return hdr_err(c, &h, "RESOURCES: a leading 0 means no resource model and must be the "
					      "whole field; expected ':' after it, found %s",
				       token(tok, h.p, h.e));
		c->resources = 0;
	} else {
		if (hdr_uint(c, &h, "RESOURCES: the node count NNODES", 1, MAX_OBJ, &v))
			return -1;
		c->resources = 1;
		c->st.nnodes = (uint32_t) v;
		c->node_cpu0 = weft_xcalloc(c->st.nnodes + 2, sizeof(uint32_t));
		c->cpu_node = grow(NULL, &ccap, 1, sizeof(uint32_t));
		c->cpu_node[0] = 0;
		int list = h.p < h.e && *h.p == '(';
		if (list)
			h.p++;
		uint64_t total = 0;
		for (uint32_t k = 1; k <= c->st.nnodes; k++) {
			uint64_t ncpu = 1;
			if (list) {
				snprintf(where, sizeof(where), "RESOURCES: the CPU count of node %u", k);
				if (hdr_uint(c, &h, where, 0, MAX_OBJ, &ncpu))
					return -1;
				if (ncpu == 0)
					WARN(c, c->name, c->lineno,
					     "header: node %u has no CPU; its tasks can only use CPU 0", k);
			}
			if (total + ncpu > MAX_OBJ)
				return hdr_err(c, &h, "RESOURCES: more than %u CPUs in total", MAX_OBJ);
			c->node_cpu0[k] = (uint32_t) total + 1;
			c->cpu_node = grow(c->cpu_node, &ccap, total + ncpu + 1, sizeof(uint32_t));
			for (uint64_t i = 1; i <= ncpu; i++)
				c->cpu_node[total + i] = k;
			total += ncpu;
			if (list) {
				snprintf(where, sizeof(where),
					 k < c->st.nnodes ? "after the CPU count of node %u (NNODES is %u)"
							  : "after the CPU count of node %u, the last of %u",
					 k, c->st.nnodes);
				if (hdr_expect(c, &h, k < c->st.nnodes ? ',' : ')', where))
					return -1;
			}
		}
		c->node_cpu0[c->st.nnodes + 1] = (uint32_t) total + 1;
		c->st.ncpus = (uint32_t) total;
	}
	if (hdr_expect(c, &h, ':', "after RESOURCES"))
		return -1;

	/* NAPPL:APPL,APPL... */
	if (hdr_uint(c, &h, "NAPPL (the number of applications)", 1, MAX_OBJ, &v))
		return -1;
	c->st.nappl = (uint32_t) v;
	if (hdr_expect(c, &h, ':', "after NAPPL"))
		return -1;
	c->appl_task0 = weft_xcalloc(c->st.nappl + 1, sizeof(uint32_t));
	size_t tcap = 0, ncap = 0;
	uint32_t ntasks = 0, nthreads = 0;
	for (uint32_t a = 1; a <= c->st.nappl; a++) {
		snprintf(where, sizeof(where), "NTASKS of application %u", a);
		if (hdr_uint(c, &h, where, 1, MAX_OBJ, &v))
			return -1;
		if (ntasks + v > MAX_OBJ)
			return hdr_err(c, &h, "more than %u tasks in total", MAX_OBJ);
		uint32_t nt = (uint32_t) v;
		c->appl_task0[a - 1] = ntasks;
		snprintf(where, sizeof(where), "after NTASKS of application %u", a);
		if (hdr_expect(c, &h, '(', where))
			return -1;
		c->task_thread0 = grow(c->task_thread0, &tcap, (size_t) ntasks + nt + 1, sizeof(uint32_t));
		c->task_node = grow(c->task_node, &ncap, (size_t) ntasks + nt + 1, sizeof(uint32_t));
		for (uint32_t t = 1; t <= nt; t++) {
			snprintf(where, sizeof(where), "NTHREADS of task %u:%u", a, t);
			if (hdr_uint(c, &h, where, 1, MAX_OBJ, &v))
				return -1;
			if (nthreads + v > MAX_OBJ)
				return hdr_err(c, &h, "more than %u threads in total", MAX_OBJ);
			c->task_thread0[ntasks] = nthreads;
			nthreads += (uint32_t) v;
			snprintf(where, sizeof(where), "after NTHREADS of task %u:%u", a, t);
			if (hdr_expect(c, &h, ':', where))
				return -1;
			snprintf(where, sizeof(where), "the node of task %u:%u", a, t);
			if (hdr_uint(c, &h, where, 0, UINT32_MAX, &v))
				return -1;
			if (c->resources && (v < 1 || v > c->st.nnodes))
				return hdr_err(c, &h, "task %u:%u is on node %llu; expected a node in 1..%u (NNODES)", a,
					       t, (unsigned long long) v, c->st.nnodes);
			c->task_node[ntasks] = (uint32_t) v;
			ntasks++;
			snprintf(where, sizeof(where),
				 t < nt ? "after task %u:%u (NTASKS is %u)" : "after task %u:%u, the last of %u", a, t,
				 nt);
			if (hdr_expect(c, &h, t < nt ? ',' : ')', where))
				return -1;
		}
		if (a < c->st.nappl) {
			if (h.p < h.e && *h.p == ':') {
				if (!c->warned_appl_sep++)
					WARN(c, c->name, c->lineno,
					     "header: applications separated by ':' (the reader skips any one character; "
					     "expected ',')");
				h.p++;
			} else {
				snprintf(where, sizeof(where), "between applications %u and %u (NAPPL is %u)", a, a + 1,
					 c->st.nappl);
				if (hdr_expect(c, &h, ',', where))
					return -1;
			}
		}
	}
	c->appl_task0[c->st.nappl] = ntasks;
	c->task_thread0[ntasks] = nthreads;
	c->st.ntasks = ntasks;
	c->st.nthreads = nthreads;

	/* [,NCOMM] */
	c->st.ncomm = 0;
	if (h.p < h.e) {
		if (*h.p != ',')
			return hdr_err(c, &h, "expected ',NCOMM' or the end of the line after the last "
					      "application, found %s",
				       token(tok, h.p, h.e));
		h.p++;
		if (hdr_uint(c, &h, "NCOMM (the number of communicator lines)", 0, UINT64_MAX, &c->st.ncomm))
			return -1;
		if (h.p < h.e)
			return hdr_err(c, &h, "expected the end of the line after NCOMM, found %s",
				       quote(tok, h.p, (size_t) (h.e - h.p), 24));
	}
	c->thr = weft_xcalloc(nthreads, sizeof(*c->thr));
	c->st.header_ok = 1;
	return 0;
}

/* ---- body records ---------------------------------------------------------- */

/* Global thread index of appl:task:thread after checking that it exists and
 * that `cpu` may carry it. `who` prefixes the messages ("" or "receiver "). */
static inline __attribute__((always_inline)) int locate(struct prvchk *c, const char *who, uint64_t cpu, uint64_t appl, uint64_t task,
			 uint64_t thread, uint32_t *gt)
{
	if (__builtin_expect(appl == 0 || appl > c->st.nappl, 0)) {
		rec_err(c, "%sapplication %llu does not exist; expected 1..%u (NAPPL)", who,
			(unsigned long long) appl, c->st.nappl);
		return -1;
	}
	uint32_t t0 = c->appl_task0[appl - 1], nt = c->appl_task0[appl] - t0;
	if (__builtin_expect(task == 0 || task > nt, 0)) {
		rec_err(c, "%stask %llu does not exist in application %llu; expected 1..%u", who,
			(unsigned long long) task, (unsigned long long) appl, nt);
		return -1;
	}
	uint32_t gtask = t0 + (uint32_t) task - 1;
	uint32_t h0 = c->task_thread0[gtask], nh = c->task_thread0[gtask + 1] - h0;
	if (__builtin_expect(thread == 0 || thread > nh, 0)) {
		rec_err(c, "%sthread %llu does not exist in task %llu:%llu; expected 1..%u", who,
			(unsigned long long) thread, (unsigned long long) appl, (unsigned long long) task, nh);
		return -1;
	}
	if (cpu != 0) {
		if (!c->resources) {
			rec_err(c, "%sCPU %llu but the header has no resource model (RESOURCES 0); expected CPU 0",
				who, (unsigned long long) cpu);
			return -1;
		}
		if (cpu > c->st.ncpus) {
			rec_err(c, "%sCPU %llu does not exist; expected 0..%u (the header declares %u CPUs)", who,
				(unsigned long long) cpu, c->st.ncpus, c->st.ncpus);
			return -1;
		}
		uint32_t node = c->cpu_node[cpu], tn = c->task_node[gtask];
		if (node != tn) {
			rec_err(c, "%sCPU %llu is on node %u but task %llu:%llu runs on node %u; expected CPU 0 or "
				   "one of node %u (%u..%u)",
				who, (unsigned long long) cpu, node, (unsigned long long) appl,
				(unsigned long long) task, tn, tn, c->node_cpu0[tn], c->node_cpu0[tn + 1] - 1);
			return -1;
		}
	}
	*gt = h0 + (uint32_t) thread - 1;
	return 0;
}

static COLD void err_ftime(struct prvchk *c, const char *what, uint64_t t)
{
	rec_err(c, "%s %llu is after the trace end; expected at most FTIME %llu", what,
		(unsigned long long) t, (unsigned long long) c->st.ftime);
}

static COLD void err_order(struct prvchk *c, const struct thr *h, uint64_t appl, uint64_t task,
			   uint64_t thread, const char *what, uint64_t t)
{
	rec_err(c, "thread %llu:%llu:%llu goes back in time: %s %llu is before time %llu of its record "
		   "at line %llu; expected >= %llu (one thread's records must be in time order)",
		(unsigned long long) appl, (unsigned long long) task, (unsigned long long) thread, what,
		(unsigned long long) t, (unsigned long long) h->last_time, (unsigned long long) h->last_line,
		(unsigned long long) h->last_time);
}

/* Per-thread order by first time. */
static inline void order(struct prvchk *c, uint32_t gt, uint64_t t, uint64_t appl, uint64_t task,
			 uint64_t thread, const char *what)
{
	struct thr *h = &c->thr[gt];
	if (__builtin_expect(t < h->last_time, 0)) {
		err_order(c, h, appl, task, thread, what, t);
		return;
	}
	h->last_time = t;
	h->last_line = c->lineno;
}

static void track(struct prvchk *c, struct hset *s, uint64_t a, uint64_t b)
{
	if (hs_find(s, a, b))
		return;
	if (s->n >= MAX_TRACK) {
		c->dropped++;
		return;
	}
	int added;
	hs_add(s, a, b, c->lineno, &added);
}

static inline void label_event(struct prvchk *c, uint64_t type, int64_t value)
{
	if (!c->pcf_ok)
		return;
	const struct hent *e = hs_find(&c->types, type, 0);
	if (__builtin_expect(!e, 0)) {
		track(c, &c->miss_types, type, 0);
		return;
	}
	if ((e->flags & HAS_VALUES) && value != 0 &&
	    (value < INT32_MIN || value > INT32_MAX || !hs_find(&c->values, type, (uint64_t) value)))
		track(c, &c->miss_values, type, (uint64_t) value);
}

static void rec_state(struct prvchk *c, const char *p, size_t n)
{
	struct lp l = {p + 2, p + n, 2};
	uint64_t cpu = 0, appl = 0, task = 0, thread = 0, b = 0, e = 0, s = 0;
	uint32_t gt = 0;
	c->kind = "state";
	c->st.states++;
	if (fld_u(c, &l, "CPU", UINT64_MAX, &cpu, 0) || fld_u(c, &l, "application", UINT64_MAX, &appl, 0) ||
	    fld_u(c, &l, "task", UINT64_MAX, &task, 0) || fld_u(c, &l, "thread", UINT64_MAX, &thread, 0) ||
	    fld_u(c, &l, "begin time", UINT64_MAX, &b, 0) || fld_u(c, &l, "end time", UINT64_MAX, &e, 0) ||
	    fld_u(c, &l, "state", UINT32_MAX, &s, 1))
		return;
	if (locate(c, "", cpu, appl, task, thread, &gt))
		return;
	if (__builtin_expect(e < b, 0)) {
		rec_err(c, "end %llu < begin %llu; expected begin <= end", (unsigned long long) e,
			(unsigned long long) b);
		return;
	}
	if (__builtin_expect(e > c->st.ftime, 0))
		err_ftime(c, "end time", e);
	struct thr *h = &c->thr[gt];
	if (__builtin_expect(b < h->state_end, 0)) {
		rec_err(c, "state [%llu, %llu) of thread %llu:%llu:%llu overlaps its previous state ending at "
			   "%llu (line %llu); expected begin >= %llu",
			(unsigned long long) b, (unsigned long long) e, (unsigned long long) appl,
			(unsigned long long) task, (unsigned long long) thread, (unsigned long long) h->state_end,
			(unsigned long long) h->state_line, (unsigned long long) h->state_end);
	}
	order(c, gt, b, appl, task, thread, "begin time");
	if (e >= h->state_end) {
		h->state_end = e;
		h->state_line = c->lineno;
	}
	track(c, &c->used_states, s, 0);
}

static void rec_event(struct prvchk *c, const char *p, size_t n)
{
	struct lp l = {p + 2, p + n, 2};
	uint64_t cpu = 0, appl = 0, task = 0, thread = 0, t = 0, type = 0;
	int64_t value = 0;
	uint32_t gt = 0;
	c->kind = "event";
	c->st.events++;
	if (fld_u(c, &l, "CPU", UINT64_MAX, &cpu, 0) || fld_u(c, &l, "application", UINT64_MAX, &appl, 0) ||
	    fld_u(c, &l, "task", UINT64_MAX, &task, 0) || fld_u(c, &l, "thread", UINT64_MAX, &thread, 0))
		return;
	if (fld_u(c, &l, "time", UINT64_MAX, &t, -1))
		return;
	if (__builtin_expect(l.p >= l.e, 0)) {
		rec_err(c, "no type:value pair after the time; expected at least one");
		return;
	}
	l.p++;
	if (locate(c, "", cpu, appl, task, thread, &gt))
		return;
	if (__builtin_expect(t > c->st.ftime, 0))
		err_ftime(c, "time", t);
	order(c, gt, t, appl, task, thread, "time");
	for (;;) {
		if (fld_u(c, &l, "event type", UINT32_MAX, &type, -1))
			return;
		if (__builtin_expect(l.p + 1 >= l.e, 0)) {
			rec_err(c, "event type %llu has no value; expected type:value pairs",
				(unsigned long long) type);
			return;
		}
		l.p++;
		if (fld_i(c, &l, "event value", &value, -1))
			return;
		c->st.pairs++;
		label_event(c, type, value);
		if (l.p >= l.e)
			return;
		l.p++; /* the ':' before the next pair */
	}
}

static void rec_comm(struct prvchk *c, const char *p, size_t n)
{
	struct lp l = {p + 2, p + n, 2};
	uint64_t cs = 0, as = 0, ts = 0, hs = 0, ls = 0, ps = 0, cr = 0, ar = 0, tr = 0, hr = 0, lr = 0, pr = 0;
	int64_t size = 0, tag = 0;
	uint32_t gs = 0, gr = 0;
	c->kind = "communication";
	c->st.comms++;
	if (fld_u(c, &l, "sender CPU", UINT64_MAX, &cs, 0) ||
	    fld_u(c, &l, "sender application", UINT64_MAX, &as, 0) ||
	    fld_u(c, &l, "sender task", UINT64_MAX, &ts, 0) || fld_u(c, &l, "sender thread", UINT64_MAX, &hs, 0) ||
	    fld_u(c, &l, "lsend (logical send time)", UINT64_MAX, &ls, 0) ||
	    fld_u(c, &l, "psend (physical send time)", UINT64_MAX, &ps, 0) ||
	    fld_u(c, &l, "receiver CPU", UINT64_MAX, &cr, 0) ||
	    fld_u(c, &l, "receiver application", UINT64_MAX, &ar, 0) ||
	    fld_u(c, &l, "receiver task", UINT64_MAX, &tr, 0) ||
	    fld_u(c, &l, "receiver thread", UINT64_MAX, &hr, 0) ||
	    fld_u(c, &l, "lrecv (logical receive time)", UINT64_MAX, &lr, 0) ||
	    fld_u(c, &l, "precv (physical receive time)", UINT64_MAX, &pr, 0) ||
	    fld_i(c, &l, "size", &size, 0) || fld_i(c, &l, "tag", &tag, 1))
		return;
	if (locate(c, "sender ", cs, as, ts, hs, &gs) || locate(c, "receiver ", cr, ar, tr, hr, &gr))
		return;
	if (__builtin_expect(ls > ps, 0))
		rec_err(c, "lsend %llu > psend %llu; expected lsend <= psend", (unsigned long long) ls,
			(unsigned long long) ps);
	if (__builtin_expect(lr > pr, 0))
		rec_err(c, "lrecv %llu > precv %llu; expected lrecv <= precv", (unsigned long long) lr,
			(unsigned long long) pr);
	if (__builtin_expect(ls > c->st.ftime, 0))
		err_ftime(c, "lsend", ls);
	if (__builtin_expect(ps > c->st.ftime, 0))
		err_ftime(c, "psend", ps);
	if (__builtin_expect(lr > c->st.ftime, 0))
		err_ftime(c, "lrecv", lr);
	if (__builtin_expect(pr > c->st.ftime, 0))
		err_ftime(c, "precv", pr);
	order(c, gs, ls, as, ts, hs, "lsend");
}

static COLD void rec_unknown(struct prvchk *c, const char *p, size_t n)
{
	char q[4 * QUOTE_MAX + 8], k[16];
	c->kind = "unknown";
	if (!wanted(c, PRVCHK_ERROR)) {
		c->st.errors++;
		return;
	}
	ERR(c, c->name, c->lineno,
	    "line %s: unknown record kind %s; expected 1 (state), 2 (event), 3 (communication), "
	    "4 (global operation), '#' (comment) or an empty line",
	    quote(q, p, n, QUOTE_MAX), quote(k, p, 1, 1));
}

static COLD void rec_nocolon(struct prvchk *c, const char *p, size_t n)
{
	char k[16];
	c->kind = p[0] == '1' ? "state" : p[0] == '2' ? "event" : p[0] == '3' ? "communication" : "global operation";
	rec_err(c, "expected ':' after the record kind '%c', found %s", p[0],
		n > 1 ? quote(k, p + 1, 1, 1) : "end of line");
}

static void body_line(struct prvchk *c, const char *p, size_t n)
{
	if (n == 0)
		return;
	c->rec = p;
	c->rec_len = n;
	char k = p[0];
	if (k >= '1' && k <= '4') {
		c->st.records++;
		if (__builtin_expect(n < 2 || p[1] != ':', 0)) {
			rec_nocolon(c, p, n);
			return;
		}
	}
	switch (k) {
	case '2':
		rec_event(c, p, n);
		break;
	case '1':
		rec_state(c, p, n);
		break;
	case '3':
		rec_comm(c, p, n);
		break;
	case '4':
		c->st.globalops++;
		if (!c->globalop_line)
			c->globalop_line = c->lineno;
		break;
	case '#':
		c->st.comments++;
		break;
	default:
		rec_unknown(c, p, n);
	}
}

static void comm_line(struct prvchk *c, const char *p, size_t n)
{
	if (n > 0 && (p[0] == 'c' || p[0] == 'C' || p[0] == 'i' || p[0] == 'I')) {
		if (++c->comm_seen == c->st.ncomm)
			c->phase = PH_BODY;
		return;
	}
	char q[4 * QUOTE_MAX + 8];
	ERR(c, c->name, c->lineno,
	    "expected communicator line %llu of %llu (NCOMM in the header), starting with c, C, i or I; "
	    "found %s",
	    (unsigned long long) c->comm_seen + 1, (unsigned long long) c->st.ncomm,
	    n ? quote(q, p, n, QUOTE_MAX) : "an empty line");
	c->phase = PH_BODY;
	body_line(c, p, n);
}

static void one_line(struct prvchk *c, const char *p, size_t n)
{
	c->lineno++;
	switch (c->phase) {
	case PH_BODY:
		body_line(c, p, n);
		break;
	case PH_HEADER:
		if (parse_header(c, p, n) == 0)
			c->phase = c->st.ncomm ? PH_COMM : PH_BODY;
		else
			c->phase = PH_SKIP;
		break;
	case PH_COMM:
		comm_line(c, p, n);
		break;
	case PH_SKIP:
		break;
	}
}

/* ---- feeding the .prv ------------------------------------------------------ */

static void carry_add(struct prvchk *c, const char *p, size_t n)
{
	if (c->carry_overlong)
		return;
	if (c->carry_len + n > MAX_LINE) {
		c->carry_overlong = 1;
		return;
	}
	c->carry = grow(c->carry, &c->carry_cap, c->carry_len + n + 1, 1); /* + the '\n' sentinel */
	memcpy(c->carry + c->carry_len, p, n);
	c->carry_len += n;
}

static void carry_flush(struct prvchk *c)
{
	if (c->carry_overlong) {
		c->lineno++;
		ERR(c, c->name, c->lineno, "line longer than %u MiB; not checked", MAX_LINE >> 20);
	} else {
		c->carry = grow(c->carry, &c->carry_cap, c->carry_len + 1, 1);
		c->carry[c->carry_len] = '\n';
		one_line(c, c->carry, c->carry_len);
	}
	c->carry_len = 0;
	c->carry_overlong = 0;
}

void prvchk_feed(struct prvchk *c, const void *data, size_t len)
{
	const char *p = data, *e = p + len;
	if (len == 0)
		return;
	c->last_nl = e[-1] == '\n';
	if (c->carry_len || c->carry_overlong) {
		const char *nl = memchr(p, '\n', len);
		carry_add(c, p, nl ? (size_t) (nl - p) : len);
		if (!nl)
			return;
		carry_flush(c);
		p = nl + 1;
	}
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t) (e - p));
		if (!nl) {
			carry_add(c, p, (size_t) (e - p));
			return;
		}
		one_line(c, p, (size_t) (nl - p));
		p = nl + 1;
	}
}

void prvchk_end(struct prvchk *c)
{
	if (c->carry_len || c->carry_overlong) {
		carry_flush(c);
		WARN(c, c->name, c->lineno, "the last line has no newline");
	}
	c->st.lines = c->lineno;
	if (c->lineno == 0) {
		ERR(c, c->name, 0, "empty file; expected a header line \"#Paraver (DATE):FTIME_ns:...\"");
		return;
	}
	if (c->phase == PH_COMM) {
		ERR(c, c->name, c->lineno,
		    "the file ends after %llu communicator lines; expected %llu (NCOMM in the header)",
		    (unsigned long long) c->comm_seen, (unsigned long long) c->st.ncomm);
		c->phase = PH_BODY;
	}
	if (c->phase != PH_BODY)
		return;
	if (c->st.states + c->st.events + c->st.comms == 0)
		ERR(c, c->name, 0,
		    "no state, event or communication record after the header; expected at least one "
		    "(the reader cannot load an empty body)");
	if (c->st.globalops)
		WARN(c, c->name, c->globalop_line,
		     "%llu global operation record(s) (kind 4), the first here: accepted, but the reader ignores "
		     "them",
		     (unsigned long long) c->st.globalops);
}

/* ---- the .pcf -------------------------------------------------------------- */

enum psec { S_NONE, S_OPTIONS, S_SEMANTIC, S_STATES, S_COLORS, S_TYPES, S_VALUES, S_GRADIENT };

struct pcfblock {
	uint64_t line;        /* the EVENT_TYPE keyword's line */
	uint32_t *types;
	size_t ntypes, cap;
	size_t nlines;        /* lines in the block, well formed or not */
	size_t nvalues;
};

static int blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* An optionally negative decimal integer at *pp (no sign when !neg_ok);
 * returns 0 and advances, or -1. Values beyond int64 give -1 with *big = 1. */
static int txt_int(const char **pp, const char *e, int neg_ok, int64_t *out, int *big)
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

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && blank(*p))
		p++;
	return p;
}

/* "<int> <label>": the value, with the label non-empty. */
static int value_label(const char *p, const char *e, int64_t *v, int *big)
{
	if (txt_int(&p, e, 1, v, big))
		return -1;
	if (p >= e || !blank(*p))
		return -1;
	p = skip_blanks(p, e);
	return p < e ? 0 : -1;
}

static int color_line(const char *p, const char *e, int64_t *v, int *big)
{
	if (txt_int(&p, e, 1, v, big))
		return -1;
	p = skip_blanks(p, e);
	if (p >= e || *p != '{')
		return -1;
	p++;
	for (int i = 0; i < 3; i++) {
		int64_t comp;
		int b2;
		p = skip_blanks(p, e);
		if (txt_int(&p, e, 0, &comp, &b2) || comp > 255)
			return -1;
		p = skip_blanks(p, e);
		if (p >= e || *p != (i < 2 ? ',' : '}'))
			return -1;
		p++;
	}
	return p == e ? 0 : -1;
}

static void pcf_end_block(struct prvchk *c, struct pcfblock *b)
{
	if (b->line && b->nlines == 0)
		ERR(c, c->pcfname, b->line,
		    "EVENT_TYPE block without a type line; expected '<n> <type> <label>' lines after it");
	b->line = 0;
	b->ntypes = 0;
	b->nvalues = 0;
	b->nlines = 0;
}

static void pcf_line(struct prvchk *c, struct pcfblock *b, enum psec *sec, uint64_t ln, const char *p,
		     const char *e)
{
	static const struct {
		const char *kw;
		enum psec sec;
	} kws[] = {
		{"DEFAULT_OPTIONS", S_OPTIONS}, {"DEFAULT_SEMANTIC", S_SEMANTIC}, {"STATES", S_STATES},
		{"STATES_COLOR", S_COLORS},     {"EVENT_TYPE", S_TYPES},         {"GRADIENT_COLOR", S_GRADIENT},
		{"GRADIENT_NAMES", S_GRADIENT},
	};
	char q[4 * QUOTE_MAX + 8];
	size_t n = (size_t) (e - p);
	int64_t v;
	int big, added;

	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
		if (strlen(kws[i].kw) == n && memcmp(kws[i].kw, p, n) == 0) {
			pcf_end_block(c, b);
			*sec = kws[i].sec;
			if (*sec == S_TYPES)
				b->line = ln;
			return;
		}
	}
	if (*sec == S_TYPES || *sec == S_VALUES)
		b->nlines++;
	if (n == 6 && memcmp(p, "VALUES", 6) == 0) {
		if (*sec == S_TYPES && b->ntypes > 0)
			*sec = S_VALUES;
		else if (*sec == S_TYPES)
			ERR(c, c->pcfname, ln, "VALUES before any type line of its EVENT_TYPE block; expected "
					       "'<n> <type> <label>' lines first");
		else if (*sec == S_VALUES)
			ERR(c, c->pcfname, ln, "a second VALUES line in one EVENT_TYPE block");
		else
			ERR(c, c->pcfname, ln, "VALUES outside an EVENT_TYPE block");
		return;
	}
	if ((*sec == S_TYPES || *sec == S_VALUES) && n > 9 && memcmp(p, "PRECISION", 9) == 0 && blank(p[9])) {
		const char *r = skip_blanks(p + 9, e);
		if (txt_int(&r, e, 0, &v, &big) || r != e)
			ERR(c, c->pcfname, ln, "expected 'PRECISION <n>', found %s", quote(q, p, n, QUOTE_MAX));
		return;
	}

	switch (*sec) {
	case S_NONE:
		ERR(c, c->pcfname, ln,
		    "expected a section keyword (DEFAULT_OPTIONS, DEFAULT_SEMANTIC, STATES, STATES_COLOR, "
		    "EVENT_TYPE), found %s",
		    quote(q, p, n, QUOTE_MAX));
		break;
	case S_OPTIONS:
	case S_SEMANTIC: {
		const char *s = p;
		while (s < e && !blank(*s))
			s++;
		if (s == e)
			ERR(c, c->pcfname, ln, "expected 'KEY value' in %s, found %s",
			    *sec == S_OPTIONS ? "DEFAULT_OPTIONS" : "DEFAULT_SEMANTIC", quote(q, p, n, QUOTE_MAX));
		break;
	}
	case S_STATES:
		if (value_label(p, e, &v, &big)) {
			if (big)
				ERR(c, c->pcfname, ln, "state value out of range in %s; expected an int32",
				    quote(q, p, n, QUOTE_MAX));
			else
				ERR(c, c->pcfname, ln, "expected '<state value> <label>' in STATES, found %s",
				    quote(q, p, n, QUOTE_MAX));
			break;
		}
		if (v < INT32_MIN || v > INT32_MAX) {
			ERR(c, c->pcfname, ln,
			    "state value %lld is outside int32; the reader (stoi) drops this label", (long long) v);
			break;
		}
		{
			struct hent *h = hs_add(&c->slabel, (uint64_t) v, 0, ln, &added);
			if (!added)
				WARN(c, c->pcfname, ln, "state %lld labelled again (first at line %llu)", (long long) v,
				     (unsigned long long) h->line);
		}
		break;
	case S_COLORS:
		if (color_line(p, e, &v, &big) || v < INT32_MIN || v > INT32_MAX) {
			ERR(c, c->pcfname, ln,
			    "expected '<state value> {r,g,b}' with an int32 value and components 0..255 in "
			    "STATES_COLOR, found %s",
			    quote(q, p, n, QUOTE_MAX));
			break;
		}
		hs_add(&c->scolor, (uint64_t) v, 0, ln, &added);
		break;
	case S_TYPES: {
		const char *r = p;
		int64_t k, type;
		if (txt_int(&r, e, 0, &k, &big) || r >= e || !blank(*r))
			goto bad_type;
		r = skip_blanks(r, e);
		if (txt_int(&r, e, 0, &type, &big) || r >= e || !blank(*r))
			goto bad_type;
		if (type > UINT32_MAX) {
			ERR(c, c->pcfname, ln, "event type %lld is outside uint32; expected 0..4294967295",
			    (long long) type);
			break;
		}
		r = skip_blanks(r, e);
		if (r >= e)
			goto bad_type;
		struct hent *h = hs_add(&c->types, (uint64_t) type, 0, ln, &added);
		if (!added)
			WARN(c, c->pcfname, ln, "event type %lld labelled again (first at line %llu)", (long long) type,
			     (unsigned long long) h->line);
		b->types = grow(b->types, &b->cap, b->ntypes + 1, sizeof(uint32_t));
		b->types[b->ntypes++] = (uint32_t) type;
		break;
	bad_type:
		ERR(c, c->pcfname, ln, "expected '<n> <type> <label>' in an EVENT_TYPE block, found %s",
		    quote(q, p, n, QUOTE_MAX));
		break;
	}
	case S_VALUES:
		if (value_label(p, e, &v, &big)) {
			if (big)
				ERR(c, c->pcfname, ln, "value out of range in %s; expected an int32",
				    quote(q, p, n, QUOTE_MAX));
			else
				ERR(c, c->pcfname, ln, "expected '<value> <label>' after VALUES, found %s",
				    quote(q, p, n, QUOTE_MAX));
			break;
		}
		if (v < INT32_MIN || v > INT32_MAX) {
			ERR(c, c->pcfname, ln,
			    "value %lld is outside int32; the reader (stoi) drops this label (event values may be "
			    "int64, their labels may not)",
			    (long long) v);
			break;
		}
		for (size_t i = 0; i < b->ntypes; i++) {
			struct hent *h = hs_add(&c->values, b->types[i], (uint64_t) v, ln, &added);
			if (!added && i == 0)
				WARN(c, c->pcfname, ln, "value %lld labelled again for type %u (first at line %llu)",
				     (long long) v, b->types[i], (unsigned long long) h->line);
			struct hent *t = hs_find(&c->types, b->types[i], 0);
			if (t)
				t->flags |= HAS_VALUES;
		}
		b->nvalues++;
		break;
	case S_GRADIENT:
		break;
	}
}

void prvchk_pcf(struct prvchk *c, const char *name, const void *data, size_t len)
{
	free(c->pcfname);
	c->pcfname = weft_xstrdup(name);
	c->pcf_ok = 1;
	const char *p = data, *end = p + len;
	struct pcfblock b = {0};
	enum psec sec = S_NONE;
	uint64_t ln = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		const char *e = nl ? nl : end;
		ln++;
		const char *s = skip_blanks(p, e);
		const char *t = e;
		while (t > s && blank(t[-1]))
			t--;
		if (t > s && *s != '#')
			pcf_line(c, &b, &sec, ln, s, t);
		p = nl ? nl + 1 : end;
	}
	pcf_end_block(c, &b);
	free(b.types);
	if (c->types.n == 0 && c->slabel.n == 0)
		WARN(c, c->pcfname, 0, "no EVENT_TYPE and no STATES label");
}

/* ---- the .row -------------------------------------------------------------- */

void prvchk_row(struct prvchk *c, const char *name, const void *data, size_t len)
{
	static const char *const levels[] = {"WORKLOAD", "APPL", "TASK", "THREAD", "SYSTEM", "NODE", "CPU"};
	enum { NLEVELS = 7, L_THREAD = 3 };
	uint64_t seen[NLEVELS] = {0};
	char q[4 * QUOTE_MAX + 8];
	const char *p = data, *end = p + len;
	uint64_t ln = 0, left = 0, want = 0, bline = 0;
	int blevel = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		const char *e = nl ? nl : end;
		ln++;
		if (e > p && e[-1] == '\r')
			e--;
		size_t n = (size_t) (e - p);
		const char *line = p;
		p = nl ? nl + 1 : end;
		if (left > 0) { /* a name, taken verbatim */
			left--;
			continue;
		}
		if (n == 0 || line[0] == '#')
			continue;
		/* LEVEL <NAME> SIZE <n> */
		const char *r = line;
		int lv = -1;
		if (n > 6 && memcmp(r, "LEVEL ", 6) == 0) {
			r += 6;
			for (int i = 0; i < NLEVELS; i++) {
				size_t k = strlen(levels[i]);
				if ((size_t) (e - r) > k && memcmp(r, levels[i], k) == 0 && r[k] == ' ') {
					lv = i;
					r += k + 1;
					break;
				}
			}
		}
		int64_t size = 0;
		int big = 0;
		if (lv >= 0 && (size_t) (e - r) > 5 && memcmp(r, "SIZE ", 5) == 0) {
			r += 5;
			if (txt_int(&r, e, 0, &size, &big) || r != e)
				lv = -2;
		} else if (lv >= 0) {
			lv = -2;
		}
		if (lv < 0) {
			ERR(c, name, ln,
			    "expected a block header 'LEVEL <NAME> SIZE <n>' (NAME one of WORKLOAD, APPL, TASK, "
			    "THREAD, SYSTEM, NODE, CPU; single spaces), found %s",
			    quote(q, line, n, QUOTE_MAX));
			continue;
		}
		if (seen[lv])
			ERR(c, name, ln, "LEVEL %s declared again (first at line %llu)", levels[lv],
			    (unsigned long long) seen[lv]);
		else
			seen[lv] = ln;
		left = want = (uint64_t) size;
		blevel = lv;
		bline = ln;
		if (!c->st.header_ok)
			continue;
		uint64_t expect = 0;
		const char *what = NULL;
		int resource = 0;
		switch (lv) {
		case 0:
		case 4:
			if (size != 1)
				WARN(c, name, ln, "LEVEL %s SIZE %lld; expected SIZE 1", levels[lv], (long long) size);
			continue;
		case 1:
			expect = c->st.nappl;
			what = "applications";
			break;
		case 2:
			expect = c->st.ntasks;
			what = "tasks";
			break;
		case 3:
			expect = c->st.nthreads;
			what = "threads";
			break;
		case 5:
			expect = c->st.nnodes;
			what = "nodes";
			resource = 1;
			break;
		case 6:
			expect = c->st.ncpus;
			what = "CPUs";
			resource = 1;
			break;
		}
		if (resource && !c->resources) {
			WARN(c, name, ln,
			     "LEVEL %s SIZE %lld but the header of %s has no resource model (RESOURCES 0); the "
			     "reader ignores these names",
			     levels[lv], (long long) size, c->name);
			continue;
		}
		if ((uint64_t) size != expect)
			ERR(c, name, ln, "LEVEL %s SIZE %lld: expected SIZE %llu (the header of %s declares %llu %s)",
			    levels[lv], (long long) size, (unsigned long long) expect, c->name,
			    (unsigned long long) expect, what);
	}
	if (left > 0)
		ERR(c, name, bline, "LEVEL %s SIZE %llu: expected %llu names, found %llu before the end of the file",
		    levels[blevel], (unsigned long long) want, (unsigned long long) want,
		    (unsigned long long) (want - left));
	if (!seen[L_THREAD])
		WARN(c, name, 0, "no LEVEL THREAD block; the reader shows default thread names");
}

/* ---- finishing ------------------------------------------------------------- */

static int by_line(const void *a, const void *b)
{
	const struct hent *x = *(const struct hent *const *) a, *y = *(const struct hent *const *) b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

/* The entries of `s`, sorted by line. */
static struct hent **sorted(const struct hset *s)
{
	struct hent **v = weft_xmalloc((s->n ? s->n : 1) * sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->t[i].used)
			v[k++] = &s->t[i];
	qsort(v, k, sizeof(*v), by_line);
	return v;
}

static void check_labels(struct prvchk *c)
{
	struct hent **v = sorted(&c->miss_types);
	for (size_t i = 0; i < c->miss_types.n; i++)
		ERR(c, c->name, v[i]->line,
		    "event type %llu (first used here) has no label in %s; expected a line '<n> %llu <label>' in "
		    "an EVENT_TYPE block",
		    (unsigned long long) v[i]->k1, c->pcfname, (unsigned long long) v[i]->k1);
	free(v);
	v = sorted(&c->miss_values);
	for (size_t i = 0; i < c->miss_values.n; i++)
		ERR(c, c->name, v[i]->line,
		    "value %lld of event type %llu (first used here) has no label in %s; expected a '%lld <label>' "
		    "line in the VALUES list of the type's EVENT_TYPE block",
		    (long long) v[i]->k2, (unsigned long long) v[i]->k1, c->pcfname, (long long) v[i]->k2);
	free(v);
	v = sorted(&c->used_states);
	for (size_t i = 0; i < c->used_states.n; i++) {
		uint64_t s = v[i]->k1;
		if (!hs_find(&c->slabel, s, 0))
			ERR(c, c->name, v[i]->line,
			    "state %llu (first used here) has no label in %s; expected a line '%llu <label>' in "
			    "STATES",
			    (unsigned long long) s, c->pcfname, (unsigned long long) s);
		else if (!hs_find(&c->scolor, s, 0))
			WARN(c, c->name, v[i]->line, "state %llu (first used here) has no STATES_COLOR entry in %s",
			     (unsigned long long) s, c->pcfname);
	}
	free(v);
	if (c->dropped)
		ERR(c, c->name, 0,
		    "more than %u distinct unlabelled event types, values or states: %llu more not listed",
		    MAX_TRACK, (unsigned long long) c->dropped);
}

void prvchk_finish(struct prvchk *c, struct prvchk_stats *st)
{
	if (c->pcf_ok && c->phase == PH_BODY)
		check_labels(c);
	if (st)
		*st = c->st;
}

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
	hs_free(&c->types);
	hs_free(&c->values);
	hs_free(&c->slabel);
	hs_free(&c->scolor);
	hs_free(&c->used_states);
	hs_free(&c->miss_types);
	hs_free(&c->miss_values);
	free(c);
}

/* ---- files ----------------------------------------------------------------- */

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* Map an auxiliary file and hand it to fn, or report it missing. */
static void aux_file(struct prvchk *c, const char *path, const char *why,
		     void (*fn)(struct prvchk *, const char *, const void *, size_t))
{
	struct mapfile m;
	struct weft_err e = {0};
	if (map_open(&m, path, &e)) {
		size_t k = strlen(path);
		const char *msg = strncmp(e.msg, path, k) == 0 && e.msg[k] == ':' ? e.msg + k + 2 : e.msg;
		ERR(c, path, 0, "%s (%s)", msg, why);
		return;
	}
	fn(c, path, m.data ? (const void *) m.data : "", m.size);
	map_close(&m);
}

/* The .prv, opened before the side files so a missing trace is one error. */
struct body {
	const char *path;
	int gz;
	struct mapfile m;
	gzFile g;
};

static int body_open(struct prvchk *c, struct body *b)
{
	if (b->gz) {
		struct weft_err e = {0};
		int fd = input_open(b->path, &e);
		b->g = fd < 0 ? NULL : gzdopen(fd, "rb");
		if (!b->g) {
			size_t k = strlen(b->path);
			if (fd >= 0)
				close(fd);
			ERR(c, b->path, 0, "%s",
			    fd >= 0 ? "cannot open for reading"
			    : strncmp(e.msg, b->path, k) == 0 && e.msg[k] == ':' ? e.msg + k + 2 : e.msg);
			return -1;
		}
		gzbuffer(b->g, 256u << 10);
		return 0;
	}
	struct weft_err e = {0};
	if (map_open(&b->m, b->path, &e)) {
		size_t k = strlen(b->path);
		ERR(c, b->path, 0, "%s",
		    strncmp(e.msg, b->path, k) == 0 && e.msg[k] == ':' ? e.msg + k + 2 : e.msg);
		return -1;
	}
	return 0;
}

static void body_plain(struct prvchk *c, struct body *b)
{
	const size_t step = 32u << 20;
	for (size_t off = 0; off < b->m.size; off += step) {
		size_t n = b->m.size - off < step ? b->m.size - off : step;
		prvchk_feed(c, b->m.data + off, n);
		map_release(&b->m, off + n);
	}
	map_close(&b->m);
	prvchk_end(c);
}

static void body_gz(struct prvchk *c, struct body *b)
{
	const unsigned cap = 1u << 20;
	char *buf = weft_xmalloc(cap);
	uint64_t total = 0;
	int n;
	while ((n = gzread(b->g, buf, cap)) > 0) {
		prvchk_feed(c, buf, (size_t) n);
		total += (uint64_t) n;
	}
	/* a truncated stream ends like EOF, with Z_BUF_ERROR left in gzerror() */
	int failed = 0, zerr = Z_OK;
	const char *msg = gzerror(b->g, &zerr);
	if (n < 0 || zerr != Z_OK) {
		ERR(c, b->path, 0, "gzip read failed after %llu uncompressed bytes: %s; the body is not checked further",
		    (unsigned long long) total, msg && *msg ? msg : "unknown error");
		failed = 1;
	}
	free(buf);
	gzclose(b->g);
	if (failed) {
		c->phase = PH_SKIP;
		return;
	}
	prvchk_end(c);
}

int prvchk_file(const char *path, const struct prvchk_opts *o, struct prvchk_stats *st)
{
	struct prvchk *c = prvchk_new(path, o);
	size_t n = strlen(path);
	char *base = NULL;
	int gz = ends_with(path, n, ".gz");
	if (ends_with(path, n, ".prv.gz"))
		base = weft_xasprintf("%.*s", (int) (n - 7), path);
	else if (ends_with(path, n, ".prv"))
		base = weft_xasprintf("%.*s", (int) (n - 4), path);
	else
		ERR(c, path, 0,
		    "the name must end in .prv or .prv.gz (the reader refuses others); .pcf and .row not checked");

	char *pcf = base ? weft_xasprintf("%s.pcf", base) : NULL;
	char *row = base ? weft_xasprintf("%s.row", base) : NULL;
	struct body b = {path, gz, {0}, NULL};
	if (body_open(c, &b) == 0) {
		if (pcf)
			aux_file(c, pcf, "the reader falls back to default labels; expected one beside the .prv",
				 prvchk_pcf);
		if (gz)
			body_gz(c, &b);
		else
			body_plain(c, &b);
		if (row)
			aux_file(c, row, "the reader falls back to default names; expected one beside the .prv",
				 prvchk_row);
	}
	prvchk_finish(c, st);
	int rc = c->st.errors ? 1 : 0;
	prvchk_free(c);
	free(base);
	free(pcf);
	free(row);
	return rc;
}
