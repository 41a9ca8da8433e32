/* picl: PICL trace files, new format (ORNL/TM-12125) and old format (PICL
 * 1.x), as ovni streams of the msg model (legacy-formats.md §2-5).
 * The whole log is read into records, converted to model events (old-format
 * calls get their ends from compstats pairs), stable-sorted by (time, line)
 * and written one stream per processor: loom picl.P, one CPU, pid = tid =
 * P + 1; the host (32767 new, -32768 old) is loom picl.host. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "strbuf.h"
#include "writer.h"

#define HOST 32767
#define NPROC_IDS 32768 /* processor ids 0..32767 (32767 = host) */
#define MAX_WARN 20

enum { K_ENTRY, K_EXIT, K_MARK, K_USER, K_UBEGIN, K_UEND, K_STAT };

struct orec {
	int64_t t;     /* ns */
	uint32_t line, seq;
	int32_t proc;  /* 0..32767 */
	uint8_t kind;
	uint8_t sub;   /* K_STAT: 't', 'c' or 'v' (-101, -102, -103) */
	uint8_t digits; /* K_STAT time: decimals of the value */
	int32_t type, a, b, c; /* K_STAT: event type, context, value (b low, c high) */
};

struct tok {
	const char *p;
	size_t n;
};

struct label {
	int64_t value;
	char *text;
};

struct picl {
	const char *path;
	struct orec *r;
	size_t n, cap;
	struct tok *tk;
	int ntk, ctk;
	struct label *lab;
	int nlab, clab;
	int nwarn;
	int ts_digits; /* most decimals seen in a timestamp */
	/* -6 aliases: code -> control string */
	struct { int64_t code; char *ctrl; } *alias;
	int nalias, calias;
	struct weft_err *err;
};

static void pwarn(struct picl *p, unsigned line, const char *fmt, const char *what)
{
	if (p->nwarn++ < MAX_WARN)
		weft_warn("%s:%u: %s%s", p->path, line, fmt, what ? what : "");
	else if (p->nwarn == MAX_WARN + 1)
		weft_warn("%s: more warnings follow; not shown", p->path);
}

static struct orec *add(struct picl *p)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4096;
		p->r = weft_xrealloc(p->r, p->cap * sizeof(*p->r));
	}
	struct orec *o = &p->r[p->n++];
	memset(o, 0, sizeof(*o));
	return o;
}

static void add_label(struct picl *p, int64_t value, const char *s, size_t n)
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
static int tokenize(struct picl *p, const char *s, const char *e)
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

static int tok_int(const struct tok *t, int64_t lo, int64_t hi, int64_t *out)
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
static int tok_seconds(const struct tok *t, int64_t *out)
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
		if (tok_int(&ex, -400, 400, &x))
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
static int tok_decimals(const struct tok *t)
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
		if (tok_int(&ex, -400, 400, &x) == 0)
			d -= (int) x;
	}
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

#define FIELD_ERR(line, k, name, exp)                                                                   \
	weft_fail(p->err, WEFT_EINPUT, "%s:%u: field %d (%s): expected %s, found '%.*s'", p->path, line, \
		  (k) + 1, name, exp, (int) (p->tk[k].n > 40 ? 40 : p->tk[k].n), p->tk[k].p)

/* ---- new format ----------------------------------------------------------- */

/* Tokens one data field of control string `s` takes, or 0 for character
 * data (the rest of the line), -1 if it has no conversion. */
static int ctrl_tokens(const char *s, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '%')
			continue;
		i++;
		if (i < n && s[i] == '%')
			continue;
		while (i < n && (isdigit((unsigned char) s[i]) || s[i] == '.' || s[i] == '-'))
			i++;
		while (i < n && (s[i] == 'l' || s[i] == 'h'))
			i++;
		if (i >= n)
			return -1;
		switch (s[i]) {
		case 'd': case 'i': case 'u': case 'f': case 'e': case 'g': case 'x':
			k++;
			break;
		case 's': case 'c':
			return 0;
		default:
			return -1;
		}
	}
	return k ? k : -1;
}

static int ctrl_of_code(struct picl *p, int64_t code, const char **s, size_t *n)
{
	for (int i = p->nalias - 1; i >= 0; i--)
		if (p->alias[i].code == code) {
			*s = p->alias[i].ctrl;
			*n = strlen(p->alias[i].ctrl);
			return 1;
		}
	return 0;
}

static int new_proc(struct picl *p, unsigned line, int64_t proc, int32_t *out)
{
	if (proc == HOST || (proc >= 0 && proc < HOST)) {
		*out = (int32_t) proc;
		return 0;
	}
	return FIELD_ERR(line, 3, "processor id", "0..32766 or the host 32767 (-1 and below are global)");
}

/* -101/-102/-103: pairs (event type, statistic) become K_STAT records of
 * the processor, compared by weft stats with what weft measures. -1 values
 * ("not measured") are dropped, as are global records. */
static int stat_line(struct picl *p, unsigned line, int64_t rt, int64_t ctx, int64_t t, int64_t proc, int chars,
		     int first)
{
	if (chars || proc < 0) {
		pwarn(p, line, chars ? "statistics record with character data: skipped"
				     : "statistics record of a global processor id: skipped", NULL);
		return 0;
	}
	if (ctx < INT16_MIN || ctx > INT16_MAX) {
		pwarn(p, line, "statistics relative to an event type beyond -32768..32767: skipped", NULL);
		return 0;
	}
	int32_t pr = 0;
	if (new_proc(p, line, proc, &pr))
		return -1;
	if ((p->ntk - first) % 2)
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: statistics record: expected pairs of event type and value, found %d tokens",
				 p->path, line, p->ntk - first);
	for (int k = first; k + 1 < p->ntk; k += 2) {
		int64_t type, v;
		if (tok_int(&p->tk[k], INT32_MIN, INT32_MAX, &type))
			return FIELD_ERR(line, k, "event type of a statistic", "an integer");
		int digits = 0;
		if (rt == -101) {
			if (tok_seconds(&p->tk[k + 1], &v))
				return FIELD_ERR(line, k + 1, "cumulative time", "decimal seconds");
			digits = tok_decimals(&p->tk[k + 1]);
		} else if (tok_int(&p->tk[k + 1], INT64_MIN / 2, INT64_MAX / 2, &v)) {
			return FIELD_ERR(line, k + 1, rt == -102 ? "count" : "volume", "an integer");
		}
		if (v < 0)
			continue; /* -1: not measured */
		struct orec *o = add(p);
		o->t = t;
		o->line = line;
		o->seq = 3;
		o->proc = pr;
		o->kind = K_STAT;
		o->sub = rt == -101 ? 't' : rt == -102 ? 'c' : 'v';
		o->digits = (uint8_t) digits;
		o->type = (int32_t) type;
		o->a = (int32_t) ctx;
		o->b = (int32_t) (uint32_t) ((uint64_t) v & 0xffffffffu);
		o->c = (int32_t) (uint32_t) ((uint64_t) v >> 32);
	}
	return 0;
}

static int new_line(struct picl *p, unsigned line)
{
	int64_t rt, et, proc, process, nd;
	int64_t t;
	if (p->ntk < 6) {
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: record of %d fields: expected at least 6 (record type, event type, "
				 "timestamp, processor, process, number of data fields)",
				 p->path, line, p->ntk);
	}
	if (tok_int(&p->tk[0], INT32_MIN, INT32_MAX, &rt))
		return FIELD_ERR(line, 0, "record type", "an integer");
	if (tok_int(&p->tk[1], INT32_MIN, INT32_MAX, &et))
		return FIELD_ERR(line, 1, "event type", "an integer");
	if (tok_seconds(&p->tk[2], &t))
		return FIELD_ERR(line, 2, "timestamp", "decimal seconds");
	int td = tok_decimals(&p->tk[2]);
	if (td > p->ts_digits)
		p->ts_digits = td;
	if (tok_int(&p->tk[3], INT32_MIN, INT32_MAX, &proc))
		return FIELD_ERR(line, 3, "processor id", "an integer");
	if (tok_int(&p->tk[4], INT32_MIN, INT32_MAX, &process))
		return FIELD_ERR(line, 4, "process id", "an integer");
	if (tok_int(&p->tk[5], 0, 1000000, &nd))
		return FIELD_ERR(line, 5, "number of data fields", "an integer >= 0");
	int per = 1, chars = 0, first = 6;
	int32_t pr = 0;
	if (nd > 0) {
		if (p->ntk < 7)
			return weft_fail(p->err, WEFT_EINPUT,
					 "%s:%u: field 7 (data descriptor): expected a code or a quoted control "
					 "string for %lld data fields, found the end of the line",
					 p->path, line, (long long) nd);
		const struct tok *d = &p->tk[6];
		const char *cs = NULL;
		size_t cn = 0;
		int64_t code;
		if (d->p[0] == '"') {
			cs = d->p + 1, cn = d->n - 2;
		} else if (tok_int(d, INT32_MIN, INT32_MAX, &code)) {
			return FIELD_ERR(line, 6, "data descriptor", "an integer code or a quoted control string");
		} else if (!ctrl_of_code(p, code, &cs, &cn)) {
			if (code == 0 || code == 1)
				chars = 1;
			else if (code < 0 || code > 5) {
				pwarn(p, line, "unknown data descriptor code: data kept as raw tokens", NULL);
				chars = 1;
			}
		}
		if (cs) {
			int k = ctrl_tokens(cs, cn);
			if (k < 0)
				return FIELD_ERR(line, 6, "data descriptor", "a control string with conversions");
			if (k == 0)
				chars = 1;
			else
				per = k;
		}
		first = 7;
		if (rt == -6) {
			/* descriptor: an integer code and a quoted control string */
			int64_t c;
			if (p->ntk != 9 || tok_int(&p->tk[7], INT32_MIN, INT32_MAX, &c) || p->tk[8].p[0] != '"')
				return weft_fail(p->err, WEFT_EINPUT,
						 "%s:%u: descriptor record: expected a code and a quoted control "
						 "string as data",
						 p->path, line);
			if (p->nalias == p->calias) {
				p->calias = p->calias ? 2 * p->calias : 8;
				p->alias = weft_xrealloc(p->alias, (size_t) p->calias * sizeof(*p->alias));
			}
			p->alias[p->nalias].code = c;
			p->alias[p->nalias++].ctrl = weft_xasprintf("%.*s", (int) p->tk[8].n - 2, p->tk[8].p + 1);
			return 0;
		}
		if (!chars && p->ntk - first != nd * per)
			return weft_fail(p->err, WEFT_EINPUT,
					 "%s:%u: data: expected %lld tokens (%lld fields of %d), found %d", p->path,
					 line, (long long) (nd * per), (long long) nd, per, p->ntk - first);
		if (chars && p->ntk == first)
			return weft_fail(p->err, WEFT_EINPUT, "%s:%u: data: expected character data, found "
					 "the end of the line", p->path, line);
	} else if (p->ntk != 6) {
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: field 7: expected the end of the line (0 data fields), found '%.*s'",
				 p->path, line, (int) (p->tk[6].n > 40 ? 40 : p->tk[6].n), p->tk[6].p);
	}
	if (rt == -5) {
		if (nd > 0 && et >= 0) {
			const char *s = p->tk[first].p, *e = p->tk[p->ntk - 1].p + p->tk[p->ntk - 1].n;
			if (*s == '"' && e > s + 1 && e[-1] == '"')
				s++, e--;
			add_label(p, et + 1, s, (size_t) (e - s));
		}
		return 0;
	}
	if (rt <= -101 && rt >= -103)
		return stat_line(p, line, rt, et, t, proc, chars, first);
	if (rt == -7 || rt <= -101)
		return 0; /* messages and subsets: not on the timeline */
	if (rt != -2 && rt != -3 && rt != -4 && rt < 0) {
		pwarn(p, line, "unknown system record type: skipped", NULL);
		return 0;
	}

	if (proc < 0) {
		pwarn(p, line, "event record of a global processor id (-1 or below): skipped", NULL);
		return 0;
	}
	if (new_proc(p, line, proc, &pr))
		return -1;
	struct orec *o = add(p);
	o->t = t;
	o->line = line;
	o->proc = pr;
	o->type = (int32_t) et;
	o->a = o->b = o->c = -1;
	int32_t *dv[3] = {&o->a, &o->b, &o->c};
	for (int k = 0; k < 3 && !chars && first + k < p->ntk; k++) {
		int64_t v;
		if (tok_int(&p->tk[first + k], INT32_MIN, INT32_MAX, &v) == 0)
			*dv[k] = (int32_t) v;
	}
	if (rt >= 0) {
		o->kind = K_USER;
		o->a = (int32_t) rt;
	} else if (et >= 0) {
		o->kind = rt == -3 ? K_UBEGIN : rt == -4 ? K_UEND : K_MARK;
	} else {
		o->kind = rt == -3 ? K_ENTRY : rt == -4 ? K_EXIT : K_MARK;
	}
	return 0;
}

/* ---- old format ----------------------------------------------------------- */

static const struct {
	const char *name;
	int nf; /* fields after the node */
} old_keys[25] = {
	{NULL, 0},          {"trace_start", 3}, {"open", 0},      {"load", 0},
	{"send", 3},        {"probe", 1},       {"recv", 3},      {"recv_blocking", 1},
	{"recv_waking", 3}, {"message", 0},     {"sync", 0},      {"compstats", 2},
	{"commstats", 5},   {"close", 0},       {"trace_level", 3}, {"trace_mark", 1},
	{"trace_message", 0}, {"trace_stop", 0}, {"trace_flush", 2}, {"trace_exit", 1},
	{"block_begin", 3}, {"block_end", 3},   {"trace_marks", -1}, {"clock_sync", 0},
	{"trace_files", 2},
};

struct oldrec {
	int64_t t;
	uint32_t line;
	int32_t proc;
	int key;
	int64_t f[5];
};

struct oldlog {
	struct oldrec *v;
	size_t n, cap;
};

static int old_key_of(const struct tok *t)
{
	for (int k = 1; k <= 24; k++)
		if (strlen(old_keys[k].name) == t->n && memcmp(old_keys[k].name, t->p, t->n) == 0)
			return k;
	return 0;
}

static int old_line(struct picl *p, unsigned line, struct oldlog *L, int *skipping)
{
	int verbose = !(isdigit((unsigned char) p->tk[0].p[0]) || p->tk[0].p[0] == '-');
	int64_t key, s, us, node;
	int base;
	if (verbose) {
		key = old_key_of(&p->tk[0]);
		if (!key) {
			if (*skipping)
				return 0;
			return FIELD_ERR(line, 0, "record name", "a PICL record name such as send or compstats");
		}
		if (p->ntk < 6 || p->tk[1].n != 5 || memcmp(p->tk[1].p, "clock", 5) ||
		    p->tk[4].n != 4 || memcmp(p->tk[4].p, "node", 4))
			return weft_fail(p->err, WEFT_EINPUT,
					 "%s:%u: verbose record: expected '<name> clock <s> <us> node <n> ...'",
					 p->path, line);
		if (tok_int(&p->tk[2], INT32_MIN, INT32_MAX, &s))
			return FIELD_ERR(line, 2, "seconds", "an integer");
		if (tok_int(&p->tk[3], INT32_MIN, INT32_MAX, &us))
			return FIELD_ERR(line, 3, "microseconds", "an integer");
		if (tok_int(&p->tk[5], -32768, 32767, &node))
			return FIELD_ERR(line, 5, "node", "an integer");
		base = 6;
	} else {
		if (p->ntk >= 6 && p->tk[1].n == 2 && memcmp(p->tk[1].p, "is", 2) == 0) {
			pwarn(p, line, "not a legal record type: raw trace data skipped", NULL);
			*skipping = 1;
			return 0;
		}
		if (tok_int(&p->tk[0], 1, 24, &key)) {
			if (*skipping)
				return 0;
			return FIELD_ERR(line, 0, "record key", "an integer 1..24");
		}
		if (p->ntk < 4)
			return weft_fail(p->err, WEFT_EINPUT,
					 "%s:%u: record of %d fields: expected at least 4 (key, seconds, "
					 "microseconds, node)",
					 p->path, line, p->ntk);
		if (tok_int(&p->tk[1], INT32_MIN, INT32_MAX, &s))
			return FIELD_ERR(line, 1, "seconds", "an integer");
		if (tok_int(&p->tk[2], INT32_MIN, INT32_MAX, &us))
			return FIELD_ERR(line, 2, "microseconds", "an integer");
		if (tok_int(&p->tk[3], -32768, 32767, &node))
			return FIELD_ERR(line, 3, "node", "an integer -32768..32767");
		base = 4;
	}
	*skipping = 0;
	struct oldrec r = {s * 1000000000 + us * 1000, line, 0, (int) key, {0}};
	if (node == -32768)
		r.proc = HOST;
	else if (node >= 0 && node < HOST)
		r.proc = (int32_t) node;
	else if (node == -1 && key == 3)
		return 0; /* load for all processes */
	else
		return FIELD_ERR(line, base - 1, "node", "0..32766 or the host -32768");
	/* the values: every integer token after the node (verbose lines label
	 * them with words, which are skipped) */
	int64_t val[64];
	int have = 0;
	for (int k = base; k < p->ntk && have < 64; k++) {
		if (verbose && !(isdigit((unsigned char) p->tk[k].p[0]) || p->tk[k].p[0] == '-'))
			continue;
		if (tok_int(&p->tk[k], INT64_MIN / 2, INT64_MAX / 2, &val[have]))
			return FIELD_ERR(line, k, old_keys[key].name, "an integer");
		have++;
	}
	int nf = old_keys[key].nf;
	if (nf < 0)
		nf = have; /* trace_marks: count, then that many integers */
	if (key == 11 && verbose && have == 4)
		nf = 4; /* verbose compstats: busy s us, idle s us */
	if (have < nf)
		return weft_fail(p->err, WEFT_EINPUT, "%s:%u: %s record: expected %d fields after the node, "
				 "found %d", p->path, line, old_keys[key].name, nf, have);
	for (int k = 0; k < nf && k < 5; k++)
		r.f[k] = val[k];
	if (key == 11 && nf == 4)
		r.f[0] = r.f[2], r.f[1] = r.f[3];
	if ((key == 4 || key == 6 || key == 8) && r.f[0] == -32768)
		r.f[0] = HOST; /* partner is the host */
	if (L->n == L->cap) {
		L->cap = L->cap ? 2 * L->cap : 4096;
		L->v = weft_xrealloc(L->v, L->cap * sizeof(*L->v));
	}
	L->v[L->n++] = r;
	return 0;
}

static int cmp_old(const void *a, const void *b)
{
	const struct oldrec *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void emit(struct picl *p, const struct oldrec *r, int64_t t, uint32_t line, uint8_t kind, int32_t type,
		 int32_t a, int32_t b, int32_t c)
{
	struct orec *o = add(p);
	o->t = t;
	o->line = line;
	o->seq = kind == K_EXIT || kind == K_UEND ? 0 : 1; /* ends first at one line */
	o->proc = r->proc;
	o->kind = kind;
	o->type = type;
	o->a = a, o->b = b, o->c = c;
}

/* Old records to model records: calls end at the second following
 * compstats of their node (legacy-formats.md §3.3). */
static void old_convert(struct picl *p, struct oldlog *L)
{
	qsort(L->v, L->n, sizeof(*L->v), cmp_old);
	int32_t *last = weft_xmalloc(NPROC_IDS * sizeof(int32_t));
	for (int i = 0; i < NPROC_IDS; i++)
		last[i] = -1;
	uint32_t *next = weft_xcalloc(L->n + 1, sizeof(*next));
	for (size_t i = L->n; i-- > 0;) {
		int32_t pr = L->v[i].proc;
		next[i] = last[pr] < 0 ? UINT32_MAX : (uint32_t) last[pr];
		last[pr] = (int32_t) i;
	}
	free(last);
	for (size_t i = 0; i < L->n; i++) {
		const struct oldrec *r = &L->v[i];
		int32_t type = 0, a = -1, b = -1, c = -1;
		switch (r->key) {
		case 1:
			emit(p, r, r->t, r->line, K_ENTRY, -901, -1, -1, -1);
			continue;
		case 13:
			emit(p, r, r->t, r->line, K_EXIT, -901, -1, -1, -1);
			continue;
		case 4:
			type = -21, a = (int32_t) r->f[2], b = (int32_t) r->f[1], c = (int32_t) r->f[0];
			break;
		case 5:
			type = -53, a = (int32_t) r->f[0];
			break;
		case 6:
			type = -51, a = (int32_t) r->f[1];
			break;
		case 10:
			type = -402;
			break;
		case 7:
			emit(p, r, r->t, r->line, K_ENTRY, -52, (int32_t) r->f[0], -1, -1);
			continue;
		case 8:
			emit(p, r, r->t, r->line, K_EXIT, -52, (int32_t) r->f[2], (int32_t) r->f[1], (int32_t) r->f[0]);
			continue;
		case 15:
			emit(p, r, r->t, r->line, K_MARK, (int32_t) r->f[0] >= 0 ? (int32_t) r->f[0] : -1, -1, -1, -1);
			continue;
		case 22:
			emit(p, r, r->t, r->line, K_MARK, -1, (int32_t) r->f[0], -1, -1);
			continue;
		case 23:
			emit(p, r, r->t, r->line, K_MARK, -401, -1, -1, -1);
			continue;
		case 20:
		case 21: {
			int32_t bt = (int32_t) r->f[0];
			emit(p, r, r->t, r->line, r->key == 20 ? K_UBEGIN : K_UEND, bt, -1, -1, -1);
			continue;
		}
		default:
			continue; /* compstats (read below), statistics, levels */
		}
		/* a call: its end is the second following compstats, before any
		 * other call of the node; else it is punctual */
		emit(p, r, r->t, r->line, K_ENTRY, type, a, b, c);
		int64_t et = r->t;
		uint32_t eline = r->line;
		int seen = 0;
		for (uint32_t j = next[i]; j != UINT32_MAX; j = next[j]) {
			int k = L->v[j].key;
			if (k == 11) {
				if (++seen == 2) {
					et = L->v[j].t;
					eline = L->v[j].line;
					break;
				}
			} else if (k == 4 || k == 5 || k == 6 || k == 7 || k == 8 || k == 10 || k == 13) {
				break;
			}
		}
		if (type == -51)
			emit(p, r, et, eline, K_EXIT, type, (int32_t) r->f[2], (int32_t) r->f[1], (int32_t) r->f[0]);
		else
			emit(p, r, et, eline, K_EXIT, type, -1, -1, -1);
		if (eline == r->line)
			p->r[p->n - 1].seq = 2; /* punctual: after its entry */
	}
	free(next);
}

/* ---- detection (legacy-formats.md §4) --------------------------------------- */

enum { V_NONE, V_NEW, V_OLD_VERBOSE, V_OLD_PROV };

static int is_int_tok(const struct tok *t)
{
	int64_t v;
	return tok_int(t, INT64_MIN / 2, INT64_MAX / 2, &v) == 0;
}

static int classify(struct picl *p)
{
	if (p->ntk == 0)
		return V_NONE;
	const struct tok *t = p->tk;
	int64_t v;
	if (p->ntk >= 2 && t[1].n == 5 && memcmp(t[1].p, "clock", 5) == 0 && old_key_of(&t[0]))
		return V_OLD_VERBOSE;
	if (tok_int(&t[0], INT32_MIN, INT32_MAX, &v))
		return V_NONE;
	if (v < 0 && p->ntk >= 6)
		return V_NEW;
	if (v >= 0 && p->ntk >= 6 && (memchr(t[2].p, '.', t[2].n) || memchr(t[2].p, 'e', t[2].n)))
		return V_NEW;
	if (v >= 1 && v <= 24 && p->ntk >= 4 && is_int_tok(&t[1]) && is_int_tok(&t[2]))
		return V_OLD_PROV;
	return V_NONE;
}

/* 0 not PICL, 1 new, 2 old; -1 contradictory. */
static int sniff(struct picl *p, const uint8_t *data, size_t len, unsigned *bad_line)
{
	const char *s = (const char *) data, *end = s + len;
	int verdict = 0, prov = 0, lines = 0, first = 1;
	unsigned line = 0;
	while (s < end && lines < 1000) {
		const char *e = memchr(s, '\n', (size_t) (end - s));
		if (!e)
			e = end;
		line++;
		for (const char *q = s; q < e; q++)
			if ((unsigned char) *q < 32 && !isspace((unsigned char) *q))
				return 0; /* binary */
		if (tokenize(p, s, e) == 0 && p->ntk > 0) {
			if (first && p->ntk == 1)
				return 0; /* VisAndOr and others start with one token */
			first = 0;
			lines++;
			int c = classify(p);
			if (c == V_NEW || c == V_OLD_VERBOSE) {
				int v = c == V_NEW ? 1 : 2;
				if (verdict && verdict != v) {
					*bad_line = line;
					return -1;
				}
				verdict = v;
			} else if (c == V_OLD_PROV) {
				prov = 1;
			}
		}
		s = e + 1;
	}
	if (verdict)
		return verdict;
	return prov ? 2 : 0;
}

static int picl_detect(const uint8_t *data, size_t len)
{
	struct picl p = {0};
	unsigned bad = 0;
	int v = sniff(&p, data, len, &bad);
	free(p.tk);
	return v != 0;
}

/* ---- writing ---------------------------------------------------------------- */

static int cmp_orec(const void *a, const void *b)
{
	const struct orec *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct pstream {
	struct ovni_writer w;
	int open;
	uint64_t last;
	int32_t *sys, *usr; /* open entries (types) */
	int nsys, csys, nusr, cusr;
};

static void push(int32_t **v, int *n, int *cap, int32_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = weft_xrealloc(*v, (size_t) *cap * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

static void xev(struct pstream *s, const char *mcv, uint64_t clk, int32_t type, int32_t a, int32_t b, int32_t c)
{
	int32_t pl[4] = {type, a, b, c};
	ow_event(&s->w, mcv, clk, pl, sizeof(pl));
}

static int64_t mark_value(int32_t type)
{
	return type >= 0 ? (int64_t) type + 1 : type; /* old collective blocks: -1..-4 */
}

static void mark_ev(struct pstream *s, const char *mcv, uint64_t clk, int32_t type)
{
	uint8_t pl[12];
	int64_t v = mark_value(type);
	int32_t ty = 0;
	memcpy(pl, &v, 8);
	memcpy(pl + 8, &ty, 4);
	ow_event(&s->w, mcv, clk, pl, sizeof(pl));
}

static void json_str(struct strbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_printf(b, "\\%c", *s);
		else if ((unsigned char) *s < 32)
			sb_printf(b, "\\u%04x", (unsigned char) *s);
		else
			sb_printf(b, "%c", *s);
	}
	sb_printf(b, "\"");
}

static int write_streams(struct picl *p, const char *outdir)
{
	struct weft_err *err = p->err;
	qsort(p->r, p->n, sizeof(*p->r), cmp_orec);
	int64_t t0 = p->n ? p->r[0].t : 0;
	struct pstream **st = weft_xcalloc(NPROC_IDS, sizeof(*st));
	/* mark labels: -5 labels, defaults for the user types used */
	for (size_t i = 0; i < p->n; i++)
		if (p->r[i].kind == K_UBEGIN) {
			int64_t v = mark_value(p->r[i].type);
			int found = 0;
			for (int k = 0; k < p->nlab && !found; k++)
				found = p->lab[k].value == v;
			if (!found) {
				static const char *const coll[] = {"barrier", "broadcast (-2)", "broadcast (-3)",
								   "global op"};
				char buf[64];
				if (p->r[i].type >= 0)
					snprintf(buf, sizeof(buf), "user event %d", p->r[i].type);
				else
					snprintf(buf, sizeof(buf), "%s",
						 p->r[i].type >= -4 ? coll[-p->r[i].type - 1] : "block");
				add_label(p, v, buf, strlen(buf));
			}
		}
	struct strbuf labels = {0};
	for (int k = 0; k < p->nlab; k++) {
		sb_printf(&labels, "%s\"%lld\": ", k ? ", " : "", (long long) p->lab[k].value);
		json_str(&labels, p->lab[k].text);
	}
	int rc = 0;
	size_t nbad = 0;
	for (size_t i = 0; i < p->n && rc == 0; i++) {
		const struct orec *r = &p->r[i];
		uint64_t clk = (uint64_t) (r->t - t0) + 1;
		struct pstream *s = st[r->proc];
		if (!s) {
			s = st[r->proc] = weft_xcalloc(1, sizeof(*s));
			char loom[32];
			if (r->proc == HOST)
				snprintf(loom, sizeof(loom), "picl.host");
			else
				snprintf(loom, sizeof(loom), "picl.%d", r->proc);
			long long id = (long long) r->proc + 1;
			char *dir = weft_xasprintf("%s/loom.%s/proc.%lld/thread.%lld", outdir, loom, id, id);
			struct strbuf j = {0};
			sb_printf(&j,
				  "{\n  \"version\": 3,\n  \"ovni\": {\n    \"lib\": {\"version\": \"1.14.0\", "
				  "\"commit\": \"weft-import-picl\"},\n    \"part\": \"thread\",\n    \"tid\": %lld,\n"
				  "    \"pid\": %lld,\n    \"loom\": \"%s\",\n    \"app_id\": 1,\n"
				  "    \"require\": {\"ovni\": \"1.1.0\", \"msg\": \"1.0.0\"},\n"
				  "    \"mark\": {\"0\": {\"title\": \"PICL user block\", \"chan_type\": \"stack\", "
				  "\"labels\": {%s}}},\n"
				  "    \"loom_cpus\": [{\"index\": 0, \"phyid\": 0}],\n    \"finished\": 1\n  }\n}\n",
				  id, id, loom, labels.s ? labels.s : "");
			rc = ow_open(&s->w, dir, 1u << 16, err);
			if (rc == 0) {
				s->open = 1;
				rc = ow_write_json(dir, j.s, err);
			}
			sb_free(&j);
			free(dir);
			if (rc)
				break;
			uint8_t pl[16] = {0};
			int32_t cpu = 0, creator = -1;
			memcpy(pl, &cpu, 4);
			memcpy(pl + 4, &creator, 4);
			ow_event(&s->w, "OHx", clk, pl, 16);
		}
		s->last = clk;
		switch (r->kind) {
		case K_ENTRY:
			push(&s->sys, &s->nsys, &s->csys, r->type);
			xev(s, "XE[", clk, r->type, r->a, r->b, r->c);
			break;
		case K_EXIT: {
			int k = s->nsys - 1;
			while (k >= 0 && s->sys[k] != r->type)
				k--;
			if (k < 0) {
				nbad++;
				pwarn(p, r->line, "exit with no open entry of its event type: skipped", NULL);
				break;
			}
			memmove(&s->sys[k], &s->sys[k + 1], (size_t) (s->nsys - k - 1) * sizeof(*s->sys));
			s->nsys--;
			xev(s, "XE]", clk, r->type, r->a, r->b, r->c);
			break;
		}
		case K_MARK:
			xev(s, "XE.", clk, r->type, r->a, r->b, r->c);
			break;
		case K_USER: {
			int32_t pl[2] = {r->a, r->type};
			ow_event(&s->w, "XU.", clk, pl, sizeof(pl));
			break;
		}
		case K_UBEGIN:
			push(&s->usr, &s->nusr, &s->cusr, r->type);
			mark_ev(s, "OM[", clk, r->type);
			if (r->type >= 0) /* a PICL user event: the msg model profiles it */
				xev(s, "XE[", clk, r->type, r->a, r->b, r->c);
			break;
		case K_UEND: {
			int k = s->nusr - 1;
			while (k >= 0 && s->usr[k] != r->type)
				k--;
			if (k < 0) {
				nbad++;
				pwarn(p, r->line, "end of a user block that is not open: skipped", NULL);
				break;
			}
			/* close the inner blocks, this one, and reopen the inner ones */
			for (int j = s->nusr - 1; j >= k; j--)
				mark_ev(s, "OM]", clk, s->usr[j]);
			for (int j = k + 1; j < s->nusr; j++)
				mark_ev(s, "OM[", clk, s->usr[j]);
			memmove(&s->usr[k], &s->usr[k + 1], (size_t) (s->nusr - k - 1) * sizeof(*s->usr));
			s->nusr--;
			if (r->type >= 0)
				xev(s, "XE]", clk, r->type, r->a, r->b, r->c);
			break;
		}
		case K_STAT: {
			uint8_t pl[16];
			int32_t ty = r->type;
			int64_t v = (int64_t) ((uint64_t) (uint32_t) r->b | (uint64_t) (uint32_t) r->c << 32);
			int16_t ctx = (int16_t) r->a;
			memcpy(pl, &ty, 4);
			memcpy(pl + 4, &v, 8);
			memcpy(pl + 12, &ctx, 2);
			pl[14] = r->digits;
			pl[15] = (uint8_t) p->ts_digits;
			char mcv[4] = {'X', 'S', (char) r->sub, 0};
			ow_event(&s->w, mcv, clk, pl, r->sub == 't' ? 16 : 14);
			break;
		}
		}
	}
	for (int pr = 0; pr < NPROC_IDS; pr++) {
		struct pstream *s = st[pr];
		if (!s)
			continue;
		if (rc == 0 && (s->nsys || s->nusr)) {
			char what[96];
			snprintf(what, sizeof(what), "processor %d: %d entries still open at its last record, closed there",
				 pr == HOST ? -1 : pr, s->nsys + s->nusr);
			pwarn(p, 0, what, NULL);
		}
		if (rc == 0) {
			while (s->nusr) {
				int32_t ty = s->usr[--s->nusr];
				mark_ev(s, "OM]", s->last, ty);
				if (ty >= 0)
					xev(s, "XE]", s->last, ty, -1, -1, -1);
			}
			while (s->nsys) {
				s->nsys--;
				xev(s, "XE]", s->last, s->sys[s->nsys], -1, -1, -1);
			}
			ow_event(&s->w, "OHe", s->last, NULL, 0);
		}
		if (s->open && ow_close(&s->w, err) && rc == 0)
			rc = -1;
		free(s->sys);
		free(s->usr);
		free(s);
	}
	free(st);
	sb_free(&labels);
	(void) nbad;
	return rc;
}

/* ---- convert ---------------------------------------------------------------- */

static int picl_convert(const char *path, const uint8_t *data, size_t len, const struct import_opts *o,
			const char *outdir, struct weft_err *e)
{
	struct picl p = {0};
	p.path = path;
	p.err = e;
	unsigned bad = 0;
	int fmt = sniff(&p, data, len, &bad);
	if (o->format && strcmp(o->format, "picl-old") == 0)
		fmt = 2;
	else if (o->format && strcmp(o->format, "picl-new") == 0)
		fmt = 1;
	int rc = 0;
	if (fmt < 0)
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s:%u: this line looks like the %s PICL format but earlier lines like the other: "
			       "expected one format (use --format picl-old or picl-new)",
			       path, bad, "other");
	else if (fmt == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: not a PICL trace: no line looks like a PICL record", path);
	struct oldlog L = {0};
	const char *s = (const char *) data, *end = s + len;
	unsigned line = 0;
	int skipping = 0;
	while (rc == 0 && s < end) {
		const char *q = memchr(s, '\n', (size_t) (end - s));
		if (!q)
			q = end;
		line++;
		if (tokenize(&p, s, q))
			rc = weft_fail(e, WEFT_EINPUT, "%s:%u: a quoted string is not closed: expected '\"'", path, line);
		else if (p.ntk == 0)
			;
		else if (fmt == 1)
			rc = new_line(&p, line);
		else
			rc = old_line(&p, line, &L, &skipping);
		s = q + 1;
	}
	if (rc == 0 && fmt == 2)
		old_convert(&p, &L);
	if (rc == 0 && p.n == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: no event record of any processor: nothing to import", path);
	if (rc == 0)
		rc = write_streams(&p, outdir);
	free(L.v);
	free(p.r);
	free(p.tk);
	for (int i = 0; i < p.nlab; i++)
		free(p.lab[i].text);
	free(p.lab);
	for (int i = 0; i < p.nalias; i++)
		free(p.alias[i].ctrl);
	free(p.alias);
	return rc;
}

const struct weft_import_fmt import_picl = {
	"picl", "PICL traces, new (ORNL/TM-12125) and old (PICL 1.x) formats", picl_detect, picl_convert,
};
