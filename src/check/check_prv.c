/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_prv: the body of a .prv, fed in pieces of any size and read line by
 * line; only a line that straddles two pieces is copied (up to 64 MiB).
 * After the header (check_hdr.c) and the NCOMM communicator lines, every
 * record is checked as paraver-kernel reads it, plus what the reader skips:
 * integer fields only, the thread exists and the CPU may carry it, per-thread
 * time order by first time, states that do not overlap, times within FTIME,
 * lsend <= psend and lrecv <= precv. The event types, values and states used
 * are remembered (first line of use) for the label check of check_pcf.c.
 *
 * This is the hot path: numbers are parsed by hand, the parsers are inline
 * and every message is built in a cold function. Per thread the checker
 * keeps the latest first time and the end of the last state. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check/check_int.h"
#include "util/err.h"

/* An error about the current record. */
static COLD __attribute__((format(printf, 2, 3))) void rec_err(struct prvchk *c, const char *fmt, ...)
{
	if (!chk_wanted(c, PRVCHK_ERROR)) {
		c->st.errors++;
		return;
	}
	char q[4 * QUOTE_MAX + 8], what[1024];
	WEFT_VFORMAT(what, fmt);
	ERR(c, c->name, c->lineno, "%s record %s: %s", c->kind, chk_quote(q, c->rec, c->rec_len, QUOTE_MAX),
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
			chk_token(tok, p, e), type, (unsigned long long) max);
		return -1;
	}
	rec_err(c, "field %u (%s): expected %s, found %s", l->field, what, type, chk_token(tok, p, e));
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
		rec_err(c, "unexpected %s after field %u (%s); expected %s", chk_token(tok, p, l->e), l->field - 1,
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

/* The decimal digits at s (none: s itself): their value in *v and where
 * they end, or NULL when it does not fit 64 bits. The common short run is
 * inline; a run of 20 digits or more takes digits_slow. */
static inline const char *digits(const char *s, uint64_t *v)
{
	const char *p = s;
	uint64_t x = 0;
	unsigned d;
	while ((d = (unsigned) (unsigned char) *p - '0') <= 9) {
		x = x * 10 + d;
		p++;
	}
	if (__builtin_expect(p - s > 19, 0)) {
		int ovf;
		p = digits_slow(s, &ovf, &x);
		if (ovf)
			return NULL;
	}
	*v = x;
	return p;
}

/* An unsigned decimal field <= max, then the separator `last` asks for.
 * Returns 0, or reports and returns -1. */
static inline int fld_u(struct prvchk *c, struct lp *l, const char *what, uint64_t max, uint64_t *out,
			int last)
{
	const char *s = l->p;
	uint64_t v;
	const char *p = digits(s, &v);
	if (__builtin_expect(!p || p == s || v > max, 0))
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
	uint64_t v;
	p = digits(s, &v);
	uint64_t lim = neg ? (UINT64_C(1) << 63) : (uint64_t) INT64_MAX;
	if (__builtin_expect(!p || p == s || v > lim, 0))
		return fld_bad(c, l, what, 1, INT64_MAX);
	if (fld_sep(c, l, p, what, last))
		return -1;
	*out = neg ? (int64_t) (0 - v) : (int64_t) v;
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
	chk_hs_add(s, a, b, c->lineno, &added);
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
	if (!chk_wanted(c, PRVCHK_ERROR)) {
		c->st.errors++;
		return;
	}
	ERR(c, c->name, c->lineno,
	    "line %s: unknown record kind %s; expected 1 (state), 2 (event), 3 (communication), "
	    "4 (global operation), '#' (comment) or an empty line",
	    chk_quote(q, p, n, QUOTE_MAX), chk_quote(k, p, 1, 1));
}

static COLD void rec_nocolon(struct prvchk *c, const char *p, size_t n)
{
	char k[16];
	c->kind = p[0] == '1' ? "state" : p[0] == '2' ? "event" : p[0] == '3' ? "communication" : "global operation";
	rec_err(c, "expected ':' after the record kind '%c', found %s", p[0],
		n > 1 ? chk_quote(k, p + 1, 1, 1) : "end of line");
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
	    n ? chk_quote(q, p, n, QUOTE_MAX) : "an empty line");
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
		if (chk_parse_header(c, p, n) == 0)
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
	c->carry = chk_grow(c->carry, &c->carry_cap, c->carry_len + n + 1, 1); /* + the '\n' sentinel */
	memcpy(c->carry + c->carry_len, p, n);
	c->carry_len += n;
}

static void carry_flush(struct prvchk *c)
{
	if (c->carry_overlong) {
		c->lineno++;
		ERR(c, c->name, c->lineno, "line longer than %u MiB; not checked", MAX_LINE >> 20);
	} else {
		c->carry = chk_grow(c->carry, &c->carry_cap, c->carry_len + 1, 1);
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

