/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_hdr: the first line of a .prv,
 *   #Paraver (DATE):FTIME[_unit]:RESOURCES:NAPPL:APPL[,APPL...][,NCOMM]
 * as paraver-kernel reads it. On success it fills the object model the body
 * is checked against (nodes and their CPUs, applications, tasks with their
 * node, threads) and sets st.header_ok; on the first error it reports the
 * column and what was expected, and the body is not checked. At most 65,535
 * objects per level. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_int.h"
#include "util/err.h"

#define TWO53 (UINT64_C(1) << 53)

struct hcur {
	const char *s, *p, *e;
};

static COLD __attribute__((format(printf, 3, 4))) int hdr_err(struct prvchk *c, const struct hcur *h,
							      const char *fmt, ...)
{
	char what[1024];
	WEFT_VFORMAT(what, fmt);
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
		return hdr_err(c, h, "%s: expected an unsigned integer, found %s", what, chk_token(tok, s, h->e));
	if (big || v > max)
		return hdr_err(c, h, "%s: %s is too large; expected at most %llu", what,
			       chk_quote(tok, s, (size_t) (p - s), 24), (unsigned long long) max);
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
		       h->p < h->e ? chk_quote(tok, h->p, 1, 1) : "the end of the line");
}

/* "#Paraver (DATE):": the date itself is free text. */
static int hdr_magic(struct prvchk *c, struct hcur *h)
{
	char tok[4 * QUOTE_MAX + 8];
	static const char magic[] = "#Paraver (";
	size_t n = (size_t) (h->e - h->s);
	if (n < sizeof(magic) - 1 || memcmp(h->s, magic, sizeof(magic) - 1) != 0)
		return hdr_err(c, h, "expected a first line starting with \"#Paraver (\", found %s",
			       chk_quote(tok, h->s, n, 40));
	h->p += sizeof(magic) - 1;
	const char *rp = memchr(h->p, ')', (size_t) (h->e - h->p));
	if (!rp)
		return hdr_err(c, h, "the date has no closing ')'; expected \"#Paraver (DATE):FTIME_ns:...\"");
	h->p = rp + 1;
	return hdr_expect(c, h, ':', "after the date");
}

/* The unit suffix [u, fe) of FTIME (u == fe: none), as the reader takes it. */
static void hdr_unit(struct prvchk *c, const char *u, const char *fe)
{
	char tok[4 * QUOTE_MAX + 8];
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
		     chk_quote(tok, u, (size_t) (fe - u), 24));
	}
}

/* "FTIME[_unit]:" */
static int hdr_ftime(struct prvchk *c, struct hcur *h)
{
	char tok[4 * QUOTE_MAX + 8];
	const char *f = h->p, *fe = memchr(f, ':', (size_t) (h->e - f));
	if (!fe)
		fe = h->e;
	const char *u = f;
	while (u < fe && *u >= '0' && *u <= '9')
		u++;
	if (u == f || (u < fe && *u != '_'))
		return hdr_err(c, h, "FTIME: expected an unsigned integer with an optional unit suffix "
				     "(like 1000_ns), found %s",
			       chk_quote(tok, f, (size_t) (fe - f), 40));
	if (hdr_uint(c, h, "FTIME", 0, UINT64_MAX, &c->st.ftime))
		return -1;
	hdr_unit(c, u, fe);
	h->p = fe;
	if (c->st.ftime > TWO53)
		WARN(c, c->name, c->lineno,
		     "header: FTIME %llu is above 2^53; the reader keeps times as doubles and loses precision",
		     (unsigned long long) c->st.ftime);
	return hdr_expect(c, h, ':', "after FTIME");
}

/* "NNODES[(NCPUS,...)]" after RESOURCES' first digit: the CPUs of each node
 * (one each without the list), numbered globally from 1. */
static int hdr_nodes(struct prvchk *c, struct hcur *h)
{
	char where[128];
	size_t ccap = 0;
	uint64_t v;
	if (hdr_uint(c, h, "RESOURCES: the node count NNODES", 1, MAX_OBJ, &v))
		return -1;
	c->resources = 1;
	c->st.nnodes = (uint32_t) v;
	c->node_cpu0 = weft_xcalloc(c->st.nnodes + 2, sizeof(uint32_t));
	c->cpu_node = chk_grow(NULL, &ccap, 1, sizeof(uint32_t));
	c->cpu_node[0] = 0;
	int list = h->p < h->e && *h->p == '(';
	if (list)
		h->p++;
	uint64_t total = 0;
	for (uint32_t k = 1; k <= c->st.nnodes; k++) {
		uint64_t ncpu = 1;
		if (list) {
			snprintf(where, sizeof(where), "RESOURCES: the CPU count of node %u", k);
			if (hdr_uint(c, h, where, 0, MAX_OBJ, &ncpu))
				return -1;
			if (ncpu == 0)
				WARN(c, c->name, c->lineno, "header: node %u has no CPU; its tasks can only use CPU 0",
				     k);
		}
		if (total + ncpu > MAX_OBJ)
			return hdr_err(c, h, "RESOURCES: more than %u CPUs in total", MAX_OBJ);
		c->node_cpu0[k] = (uint32_t) total + 1;
		c->cpu_node = chk_grow(c->cpu_node, &ccap, total + ncpu + 1, sizeof(uint32_t));
		for (uint64_t i = 1; i <= ncpu; i++)
			c->cpu_node[total + i] = k;
		total += ncpu;
		if (list) {
			snprintf(where, sizeof(where),
				 k < c->st.nnodes ? "after the CPU count of node %u (NNODES is %u)"
						  : "after the CPU count of node %u, the last of %u",
				 k, c->st.nnodes);
			if (hdr_expect(c, h, k < c->st.nnodes ? ',' : ')', where))
				return -1;
		}
	}
	c->node_cpu0[c->st.nnodes + 1] = (uint32_t) total + 1;
	c->st.ncpus = (uint32_t) total;
	return 0;
}

/* "RESOURCES:": a lone 0 (no resource model) or the nodes. */
static int hdr_resources(struct prvchk *c, struct hcur *h)
{
	char tok[4 * QUOTE_MAX + 8];
	if (h->p < h->e && *h->p == '0') {
		h->p++;
		if (h->p >= h->e || *h->p != ':')
			return hdr_err(c, h, "RESOURCES: a leading 0 means no resource model and must be the "
					     "whole field; expected ':' after it, found %s",
				       chk_token(tok, h->p, h->e));
		c->resources = 0;
	} else if (hdr_nodes(c, h)) {
		return -1;
	}
	return hdr_expect(c, h, ':', "after RESOURCES");
}

/* Tasks and threads counted so far, and the capacity of their arrays. */
struct hdr_count {
	size_t tcap, ncap;
	uint32_t ntasks, nthreads;
};

/* "NTHREADS:NODE" of task a:t. */
static int hdr_task(struct prvchk *c, struct hcur *h, struct hdr_count *k, uint32_t a, uint32_t t)
{
	char where[128];
	uint64_t v;
	snprintf(where, sizeof(where), "NTHREADS of task %u:%u", a, t);
	if (hdr_uint(c, h, where, 1, MAX_OBJ, &v))
		return -1;
	if (k->nthreads + v > MAX_OBJ)
		return hdr_err(c, h, "more than %u threads in total", MAX_OBJ);
	c->task_thread0[k->ntasks] = k->nthreads;
	k->nthreads += (uint32_t) v;
	snprintf(where, sizeof(where), "after NTHREADS of task %u:%u", a, t);
	if (hdr_expect(c, h, ':', where))
		return -1;
	snprintf(where, sizeof(where), "the node of task %u:%u", a, t);
	if (hdr_uint(c, h, where, 0, UINT32_MAX, &v))
		return -1;
	if (c->resources && (v < 1 || v > c->st.nnodes))
		return hdr_err(c, h, "task %u:%u is on node %llu; expected a node in 1..%u (NNODES)", a, t,
			       (unsigned long long) v, c->st.nnodes);
	c->task_node[k->ntasks] = (uint32_t) v;
	k->ntasks++;
	return 0;
}

/* "NTASKS(TASK,TASK...)" of application a. */
static int hdr_appl(struct prvchk *c, struct hcur *h, struct hdr_count *k, uint32_t a)
{
	char where[128];
	uint64_t v;
	snprintf(where, sizeof(where), "NTASKS of application %u", a);
	if (hdr_uint(c, h, where, 1, MAX_OBJ, &v))
		return -1;
	if (k->ntasks + v > MAX_OBJ)
		return hdr_err(c, h, "more than %u tasks in total", MAX_OBJ);
	uint32_t nt = (uint32_t) v;
	c->appl_task0[a - 1] = k->ntasks;
	snprintf(where, sizeof(where), "after NTASKS of application %u", a);
	if (hdr_expect(c, h, '(', where))
		return -1;
	c->task_thread0 = chk_grow(c->task_thread0, &k->tcap, (size_t) k->ntasks + nt + 1, sizeof(uint32_t));
	c->task_node = chk_grow(c->task_node, &k->ncap, (size_t) k->ntasks + nt + 1, sizeof(uint32_t));
	for (uint32_t t = 1; t <= nt; t++) {
		if (hdr_task(c, h, k, a, t))
			return -1;
		snprintf(where, sizeof(where),
			 t < nt ? "after task %u:%u (NTASKS is %u)" : "after task %u:%u, the last of %u", a, t, nt);
		if (hdr_expect(c, h, t < nt ? ',' : ')', where))
			return -1;
	}
	return 0;
}

/* The separator after application a: ',' (or ':', which the reader skips
 * as it skips any one character). */
static int hdr_appl_sep(struct prvchk *c, struct hcur *h, uint32_t a)
{
	char where[128];
	if (h->p < h->e && *h->p == ':') {
		if (!c->warned_appl_sep++)
			WARN(c, c->name, c->lineno,
			     "header: applications separated by ':' (the reader skips any one character; "
			     "expected ',')");
		h->p++;
		return 0;
	}
	snprintf(where, sizeof(where), "between applications %u and %u (NAPPL is %u)", a, a + 1, c->st.nappl);
	return hdr_expect(c, h, ',', where);
}

/* "NAPPL:APPL,APPL..." */
static int hdr_appls(struct prvchk *c, struct hcur *h)
{
	struct hdr_count k = {0, 0, 0, 0};
	uint64_t v;
	if (hdr_uint(c, h, "NAPPL (the number of applications)", 1, MAX_OBJ, &v))
		return -1;
	c->st.nappl = (uint32_t) v;
	if (hdr_expect(c, h, ':', "after NAPPL"))
		return -1;
	c->appl_task0 = weft_xcalloc(c->st.nappl + 1, sizeof(uint32_t));
	for (uint32_t a = 1; a <= c->st.nappl; a++) {
		if (hdr_appl(c, h, &k, a))
			return -1;
		if (a < c->st.nappl && hdr_appl_sep(c, h, a))
			return -1;
	}
	c->appl_task0[c->st.nappl] = k.ntasks;
	c->task_thread0[k.ntasks] = k.nthreads;
	c->st.ntasks = k.ntasks;
	c->st.nthreads = k.nthreads;
	return 0;
}

/* "[,NCOMM]" and the end of the line. */
static int hdr_ncomm(struct prvchk *c, struct hcur *h)
{
	char tok[4 * QUOTE_MAX + 8];
	c->st.ncomm = 0;
	if (h->p >= h->e)
		return 0;
	if (*h->p != ',')
		return hdr_err(c, h, "expected ',NCOMM' or the end of the line after the last "
				     "application, found %s",
			       chk_token(tok, h->p, h->e));
	h->p++;
	if (hdr_uint(c, h, "NCOMM (the number of communicator lines)", 0, UINT64_MAX, &c->st.ncomm))
		return -1;
	if (h->p < h->e)
		return hdr_err(c, h, "expected the end of the line after NCOMM, found %s",
			       chk_quote(tok, h->p, (size_t) (h->e - h->p), 24));
	return 0;
}

int chk_parse_header(struct prvchk *c, const char *line, size_t n)
{
	struct hcur h = {line, line, line + n};
	if (hdr_magic(c, &h) || hdr_ftime(c, &h) || hdr_resources(c, &h) || hdr_appls(c, &h) ||
	    hdr_ncomm(c, &h))
		return -1;
	c->thr = weft_xcalloc(c->st.nthreads, sizeof(*c->thr));
	c->st.header_ok = 1;
	return 0;
}
