/* SPDX-License-Identifier: GPL-3.0-or-later */
/* visandor: VisAndOr logs (&-Prolog, Ciao, Aurora, MUSE, Andorra-I) as a
 * source (doc/formats/legacy.md §6, weft decisions §6.4).
 *
 * A log is a flag line (0 AND, 1 OR) and one event a line with six fields
 * `u d x d x d`: timestamp, code, Nodeid (hex), field 4, WAM (hex), agent.
 * Each agent becomes one thread (tid = agent + 1) of one process on one loom
 * with one CPU per agent. Records are written, in file order, as events of
 * the and-fork model (A: codes 1-4, and 5-10 in an AND log) or the or-branch
 * model (R: codes 20-27, 33, 34, and 5-10 in an OR log); a change of WAM is
 * an event of the flag's model. Unknown codes are punctual events of the
 * flag's model (one warning per code). The file must be sorted: a
 * decreasing timestamp is an error; equal ones are kept in file order.
 * Lines of the common &-Prolog/Ciao shape are read in one pass by vao_line.h
 * (all but the last VAO_LINE_SPAN bytes of the file); any other line by the
 * careful parser here, which alone reports what is wrong with a line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "util/strbuf.h"
#include "import/vao_line.h"
#include "trace/writer.h"
#include "util/macros.h"

#define VAO_BUF (64u << 10)   /* stream buffer of the first VAO_BIG_AGENTS agents */
#define VAO_BUF_SMALL 4096    /* and of the others (memory stays bounded) */
#define VAO_BIG_AGENTS 256

struct vao_agent { /* 72 bytes */
	struct ovni_writer w;
	uint64_t wam;
	uint8_t used, have_wam;
};

/* What a record of one code becomes (kind_of): 8 bytes, a table row per
 * code. */
struct vao_kind {
	char mcv[4];
	uint8_t generic; /* payload code, field 4, Nodeid (else Nodeid, field 4) */
	uint8_t uses;    /* VAO_USES_AND: and-fork code, VAO_USES_OR: or-branch code */
	uint8_t odd;     /* unknown, or a code of the other model than the flag's: odd_code
			  * warns and notes the other model in `uses` */
	uint8_t pad;
};

enum { VAO_USES_AND = 1, VAO_USES_OR = 2 };

#define VAO_NKIND 64 /* codes 0..63 looked up in a table, others worked out each time */

struct vao {
	const char *path;
	struct weft_err *err;
	const char *outdir;
	int flag;
	struct vao_agent *ag;
	int nag;      /* allocated entries (agent numbers 0..nag-1) */
	int nused;
	uint64_t t0, last;
	int have_t0;
	uint64_t mult;
	uint64_t nties;
	int uses;     /* VAO_USES_* of the codes of the other model than the flag's seen */
	uint8_t warned[256];
	int warned_big, warned_mix;
	int quiet;    /* no warnings (import_opts.quiet) */
	int last_code;
	long last_line;
	struct vao_kind kind[VAO_NKIND];
	char wam_mcv[4];
	struct import_locate *loc; /* import_opts.locate */
	int loc_agent; /* the agent of the stream asked about, -1 none yet */
};

static int is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The first non-empty line: its bounds; returns 0 if there is none. */
static int first_line(const uint8_t *d, size_t len, size_t *pos, size_t *b, size_t *e, long *line)
{
	size_t p = *pos;
	while (p < len) {
		size_t s = p;
		while (p < len && d[p] != '\n')
			p++;
		size_t en = p;
		if (p < len)
			p++;
		(*line)++;
		size_t a = s, z = en;
		while (a < z && is_blank(d[a]))
			a++;
		while (z > a && is_blank(d[z - 1]))
			z--;
		if (a < z) {
			*b = a;
			*e = z;
			*pos = p;
			return 1;
		}
	}
	*pos = p;
	return 0;
}

/* The next blank-separated field of d[*p..e): its start in *s, *p past
 * it; 0 at the end of the line. */
static int next_field(const uint8_t *d, size_t *p, size_t e, size_t *s)
{
	while (*p < e && is_blank(d[*p]))
		(*p)++;
	if (*p >= e)
		return 0;
	*s = *p;
	while (*p < e && !is_blank(d[*p]))
		(*p)++;
	return 1;
}

/* A first non-empty line of one digit, 0 or 1, is VisAndOr's flag line:
 * no other format weft reads starts so (PICL's first record has six
 * fields or more, CHARISMA is binary), so the lines after it are not
 * looked at: a faulty one is then reported by the conversion, naming its
 * line and field, as with --format visandor. */
static int vao_detect(const uint8_t *data, size_t len)
{
	size_t pos = 0, b, e;
	long line = 0;
	if (len > 1 << 20)
		len = 1 << 20; /* detection looks at the beginning only */
	if (!first_line(data, len, &pos, &b, &e, &line))
		return 0;
	return e - b == 1 && (data[b] == '0' || data[b] == '1');
}

static const char *const field_name[6] = {"timestamp", "event code", "Nodeid", "field 4", "WAM id",
					  "agent"};

static const char *code_name(int c)
{
	switch (c) {
	case 1: return "FORK";
	case 2: return "START_GOAL";
	case 3: return "FINISH_GOAL";
	case 4: return "JOIN";
	case 5: return "START_TIME";
	case 6: return "STOP_TIME";
	case 7: return "AGENT_BUSY";
	case 8: return "AGENT_IDLE";
	case 9: return "CREATE_WAM";
	case 10: return "CREATE_AGENT";
	case 20: return "MAKE_PUBLIC";
	case 21: return "START_BRANCH";
	case 22: return "SUCC_BRANCH";
	case 23: return "FAIL_BRANCH";
	case 24: return "SUSPEND_BRANCH";
	case 25: return "RESUME_BRANCH";
	case 26: return "CUTTING_BRANCH";
	case 27: return "LEAF-CUT";
	case 33: return "START_BUSY";
	case 34: return "STOP_BUSY";
	default: return NULL;
	}
}

/* What field 4 means for event code c, in the seed's words ("The middle
 * fields are ... interpreted differently for each event"). */
static const char *field4_name(int32_t c)
{
	static const struct {
		int32_t lo, hi;
		const char *name;
	} f4[] = {{1, 1, "#tasks"}, {2, 4, "task#"}, {20, 20, "#branches"}, {21, 27, "branch #"}, {33, 34, "branch #"}};
	for (size_t i = 0; i < ARRAY_SIZE(f4); i++)
		if (c >= f4[i].lo && c <= f4[i].hi)
			return f4[i].name;
	return "field 4";
}

static int bad_field(struct vao *v, long line, int k, int32_t code, const uint8_t *tok, size_t n, const char *expect)
{
	return weft_fail(v->err, WEFT_EINPUT, "%s:%ld: field %d (%s) '%.*s': expected %s", v->path, line, k + 1,
			 k == 3 ? field4_name(code) : field_name[k], (int) (n > 40 ? 40 : n), (const char *) tok,
			 expect);
}

static int parse_u64(const uint8_t *s, size_t n, uint64_t *out)
{
	if (n == 0 || n > 20)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned dg = (unsigned) s[i] - '0';
		if (dg > 9)
			return -1;
		if (v > (UINT64_MAX - dg) / 10)
			return -1;
		v = v * 10 + dg;
	}
	*out = v;
	return 0;
}

static int parse_i32(const uint8_t *s, size_t n, int32_t *out)
{
	int neg = 0;
	if (n && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	if (n == 0 || n > 11)
		return -1;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned dg = (unsigned) s[i] - '0';
		if (dg > 9)
			return -1;
		v = v * 10 + dg;
	}
	if (neg)
		v = -v;
	if (v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int32_t) v;
	return 0;
}

static int parse_hex(const uint8_t *s, size_t n, uint64_t *out)
{
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return -1;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned c = s[i], dg;
		if (c >= '0' && c <= '9')
			dg = c - '0';
		else if (c >= 'a' && c <= 'f')
			dg = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			dg = c - 'A' + 10;
		else
			return -1;
		v = v << 4 | dg;
	}
	*out = v;
	return 0;
}

static struct vao_agent *agent(struct vao *v, int32_t a)
{
	if (a >= v->nag) {
		int n = v->nag ? v->nag : 16;
		while (n <= a)
			n *= 2;
		v->ag = weft_xrealloc(v->ag, (size_t) n * sizeof(*v->ag));
		memset(v->ag + v->nag, 0, (size_t) (n - v->nag) * sizeof(*v->ag));
		v->nag = n;
	}
	struct vao_agent *g = &v->ag[a];
	if (!g->used) {
		char *dir = weft_xasprintf("%s/loom.visandor/proc.1/thread.%ld", v->outdir, (long) a + 1);
		int rc = ow_open(&g->w, dir, v->nused < VAO_BIG_AGENTS ? VAO_BUF : VAO_BUF_SMALL, v->err);
		if (import_locate_is(v->loc, v->outdir, dir))
			v->loc_agent = a;
		free(dir);
		if (rc)
			return NULL;
		g->used = 1;
		v->nused++;
	}
	return g;
}

/* The model character and event of one record. */
static void mcv_of(int flag, int code, char mcv[4], int *generic)
{
	*generic = 0;
	int fam = flag ? 'R' : 'A';
	const char *s = NULL;
	switch (code) {
	case 1: s = "AF."; break;
	case 2: s = "AG["; break;
	case 3: s = "AG]"; break;
	case 4: s = "AJ."; break;
	case 20: s = "RP."; break;
	case 21: s = "RB["; break;
	case 22: s = "RBs"; break;
	case 23: s = "RBf"; break;
	case 24: s = "RBp"; break;
	case 25: s = "RBr"; break;
	case 26: s = "RBc"; break;
	case 27: s = "RBl"; break;
	case 33: s = "RS["; break;
	case 34: s = "RS]"; break;
	case 5: s = fam == 'A' ? "AT[" : "RT["; break;
	case 6: s = fam == 'A' ? "AT]" : "RT]"; break;
	case 7: s = fam == 'A' ? "AA[" : "RA["; break;
	case 8: s = fam == 'A' ? "AA]" : "RA]"; break;
	default: s = fam == 'A' ? "AX." : "RX."; *generic = 1; break;
	}
	memcpy(mcv, s, 4);
}

/* What a record of one code becomes, worked out once per code. */
static void kind_of(int flag, int code, struct vao_kind *k)
{
	int generic;
	mcv_of(flag, code, k->mcv, &generic);
	k->generic = (uint8_t) generic;
	int isand = code >= 1 && code <= 4, isor = (code >= 20 && code <= 27) || code == 33 || code == 34;
	k->uses = (uint8_t) ((isand ? VAO_USES_AND : 0) | (isor ? VAO_USES_OR : 0));
	k->odd = !code_name(code) || (isand && flag == 1) || (isor && flag == 0);
	k->pad = 0;
}

static int set_mult(struct vao *v, const char *unit)
{
	if (!unit || strcmp(unit, "us") == 0)
		v->mult = 1000;
	else if (strcmp(unit, "ns") == 0)
		v->mult = 1;
	else if (strcmp(unit, "ms") == 0)
		v->mult = 1000000;
	else if (strcmp(unit, "s") == 0)
		v->mult = 1000000000;
	else
		return weft_fail(v->err, WEFT_EUSAGE, "--time-unit '%s': expected ns, us, ms or s", unit);
	return 0;
}

/* The careful parser: any line, exact messages. */
static int parse_fields(struct vao *v, const uint8_t *d, size_t b, size_t e, long line, struct vao_rec *r)
{
	const uint8_t *tok[7];
	size_t tl[7];
	int n = 0;
	size_t p = b, s;
	while (next_field(d, &p, e, &s)) {
		if (n < 7) {
			tok[n] = d + s;
			tl[n] = p - s;
		}
		n++;
	}
	if (n != 6)
		return weft_fail(v->err, WEFT_EINPUT, "%s:%ld: '%.*s': expected 6 fields (timestamp code "
				 "Nodeid field4 WAM agent), found %d", v->path, line,
				 (int) (e - b > 80 ? 80 : e - b), (const char *) d + b, n);
	uint64_t ts, node, wam;
	int32_t code, f4, ag;
	if (parse_u64(tok[0], tl[0], &ts))
		return bad_field(v, line, 0, 0, tok[0], tl[0], "an unsigned decimal integer below 2^64");
	if (parse_i32(tok[1], tl[1], &code))
		return bad_field(v, line, 1, 0, tok[1], tl[1], "a signed decimal integer");
	if (parse_hex(tok[2], tl[2], &node))
		return bad_field(v, line, 2, code, tok[2], tl[2], "hexadecimal digits (optional 0x, at most 16)");
	if (parse_i32(tok[3], tl[3], &f4))
		return bad_field(v, line, 3, code, tok[3], tl[3], "a signed decimal integer");
	if (parse_hex(tok[4], tl[4], &wam))
		return bad_field(v, line, 4, code, tok[4], tl[4], "hexadecimal digits (optional 0x, at most 16)");
	if (parse_i32(tok[5], tl[5], &ag) || ag < 0 || ag > VAO_MAX_AGENT)
		return bad_field(v, line, 5, code, tok[5], tl[5], "a decimal agent number from 0 to 1048575");
	*r = (struct vao_rec){.ts = ts, .wam = wam, .node = node, .f4 = f4, .code = code, .ag = ag};
	return 0;
}

/* A record whose time is not after the previous one's, or the first:
 * the trace starts at the first, a tie is counted, an earlier time is an
 * error. */
__attribute__((cold, noinline)) static int odd_time(struct vao *v, const struct vao_rec *r, uint64_t ns,
						     long line)
{
	if (!v->have_t0) {
		v->have_t0 = 1;
		v->t0 = ns;
		if (r->code != 5 && !v->quiet)
			weft_warn("%s:%ld: the first event is code %d: expected START_TIME (5); the trace "
				  "starts at the first event", v->path, line, r->code);
		return 0;
	}
	if (ns < v->last)
		return weft_fail(v->err, WEFT_EINPUT, "%s:%ld: timestamp %" PRIu64 " is smaller than the "
				 "previous event's (%" PRIu64 "): expected a file sorted by time", v->path, line,
				 r->ts, v->last / v->mult);
	v->nties++;
	return 0;
}

/* Warnings about a record's code, at most once per code (unknown) or once
 * per log (a code of the other model). */
__attribute__((cold, noinline)) static void odd_code(struct vao *v, const struct vao_kind *k, int32_t code,
						     long line)
{
	/* the flag's own model is always required: only a code of the other
	 * one adds to the streams' requirements, and such a code comes here */
	v->uses |= k->uses;
	if (v->quiet)
		return;
	if (!code_name(code)) {
		unsigned slot = (unsigned) code & 0xff;
		if (!v->warned[slot]) {
			v->warned[slot] = 1;
			weft_warn("%s:%ld: unknown event code %d: kept as a punctual event (warned once per "
				  "code)", v->path, line, code);
		}
	} else if ((k->uses == VAO_USES_AND && v->flag == 1) || (k->uses == VAO_USES_OR && v->flag == 0)) {
		if (!v->warned_mix) {
			v->warned_mix = 1;
			weft_warn("%s:%ld: code %d (%s) in an %s log (flag %d)", v->path, line, code,
				  code_name(code), v->flag ? "OR" : "AND", v->flag);
		}
	}
}

/* One parsed record: checks, then its events on its agent's stream.
 * Inline: the importer's loop runs it per record; what is rare is out of
 * line. */
static inline __attribute__((always_inline)) int record(struct vao *v, const struct vao_rec *r, long line)
{
	uint64_t ns;
	if (__builtin_mul_overflow(r->ts, v->mult, &ns))
		return weft_fail(v->err, WEFT_EINPUT, "%s:%ld: timestamp %" PRIu64 " does not fit in 64-bit "
				 "nanoseconds with the time unit", v->path, line, r->ts);
	/* v->last starts at UINT64_MAX: the first record comes here too */
	if (__builtin_expect(ns <= v->last, 0) && odd_time(v, r, ns, line))
		return -1;
	v->last = ns;
	struct vao_kind big;
	const struct vao_kind *k = &v->kind[(uint32_t) r->code % VAO_NKIND];
	if (__builtin_expect((uint32_t) r->code >= VAO_NKIND, 0)) {
		kind_of(v->flag, r->code, &big);
		k = &big;
	}
	if (__builtin_expect(k->odd, 0))
		odd_code(v, k, r->code, line);
	struct vao_agent *g;
	if (__builtin_expect(r->ag < v->nag && v->ag[r->ag].used, 1))
		g = &v->ag[r->ag];
	else if (!(g = agent(v, r->ag)))
		return -1;
	uint64_t clk = ns - v->t0 + 1;
	if (__builtin_expect(!g->have_wam || g->wam != r->wam, 0)) {
		g->have_wam = 1;
		g->wam = r->wam;
		ow_event_mcv(&g->w, v->wam_mcv, clk, &r->wam, 8);
	}
	if (__builtin_expect(k->generic, 0)) {
		uint8_t pl[16];
		memcpy(pl, &r->code, 4);
		memcpy(pl + 4, &r->f4, 4);
		memcpy(pl + 8, &r->node, 8);
		ow_event_mcv(&g->w, k->mcv, clk, pl, 16);
	} else {
		ow_event_mcv(&g->w, k->mcv, clk, &r->node, VAO_PAYLOAD); /* Nodeid, field 4 */
	}
	return 0;
}

static int write_json(struct vao *v, int a)
{
	struct strbuf b = {0};
	sb_printf(&b, "{\n  \"version\": 3,\n  \"ovni\": {\n    \"part\": \"thread\",\n    \"tid\": %d,\n"
		      "    \"pid\": 1,\n    \"loom\": \"visandor\",\n    \"app_id\": 1,\n    \"loom_cpus\": [",
		  a + 1);
	int k = 0;
	for (int i = 0; i < v->nag; i++)
		if (v->ag[i].used) {
			sb_printf(&b, "%s\n      {\"index\": %d, \"phyid\": %d}", k ? "," : "", k, i);
			k++;
		}
	int uses_and = v->uses & VAO_USES_AND, uses_or = v->uses & VAO_USES_OR;
	int both = (uses_and || !v->flag) && (uses_or || v->flag);
	sb_printf(&b, "\n    ],\n    \"require\": {");
	if (uses_and || !v->flag)
		sb_printf(&b, "\"andfork\": \"1.0.0\"");
	if (uses_or || v->flag)
		sb_printf(&b, "%s\"orbranch\": \"1.0.0\"", both ? ", " : "");
	sb_printf(&b, "},\n    \"lib\": {\"version\": \"%s\", \"commit\": \"weft-import-visandor-%s\"},\n"
		      "    \"finished\": 1\n  }\n}\n",
		  WEFT_VERSION, v->flag ? "or" : "and");
	char *dir = weft_xasprintf("%s/loom.visandor/proc.1/thread.%d", v->outdir, a + 1);
	int rc = ow_write_json(dir, b.s, v->err);
	free(dir);
	sb_free(&b);
	return rc;
}

/* Every record after the flag line (ending at line `line`). */
static int read_records(struct vao *v, const uint8_t *data, size_t pos, size_t len, long line)
{
	const uint8_t *p = data + pos, *end = data + len;
	struct vao_rec r = {0};
	struct vao_hint hint = {{0, 0}};
	long last = 0;
	int rc = 0;
	while (p < end) {
		const uint8_t *q;
		if ((size_t) (end - p) >= VAO_LINE_SPAN && (q = vao_line(p, &r, &hint)) != NULL) {
			line++;
			p = q;
		} else {
			/* any other line: bounds, trimmed, the careful parser */
			size_t s = (size_t) (p - data);
			const uint8_t *nl = memchr(p, '\n', (size_t) (end - p));
			size_t en = nl ? (size_t) (nl - data) : len;
			p = nl ? nl + 1 : end;
			line++;
			size_t a = s, z = en;
			while (a < z && is_blank(data[a]))
				a++;
			while (z > a && is_blank(data[z - 1]))
				z--;
			if (a == z)
				continue;
			const uint8_t *nul = memchr(data + a, 0, z - a);
			if (nul) {
				rc = import_nul_byte(v->err, v->path, line, (size_t) (nul - data));
				break;
			}
			if ((rc = parse_fields(v, data, a, z, line, &r)) != 0)
				break;
		}
		if ((rc = record(v, &r, line)) != 0)
			break;
		if (__builtin_expect(v->loc != NULL, 0))
			import_locate_after(v->loc, v->loc_agent >= 0 ? &v->ag[v->loc_agent].w : NULL, 1,
					    (uint64_t) line);
		last = line;
	}
	/* r holds the last record: a line the fast reader refuses is then read
	 * whole by the careful parser, or is blank (refused at its first byte) */
	v->last_line = last;
	v->last_code = r.code;
	return rc;
}

static int vao_convert(const char *path, struct mapfile *in, const struct import_opts *o, const char *outdir,
		       struct weft_err *err)
{
	const uint8_t *data = in->data;
	size_t len = in->size;
	struct vao v;
	memset(&v, 0, sizeof(v));
	v.path = path;
	v.err = err;
	v.outdir = outdir;
	v.quiet = o->quiet;
	v.loc = o->locate;
	v.loc_agent = -1;
	if (v.loc)
		v.loc->text = 1;
	if (set_mult(&v, o->time_unit))
		return -1;
	size_t pos = 0, b, e;
	long line = 0;
	if (!first_line(data, len, &pos, &b, &e, &line))
		return weft_fail(err, WEFT_EINPUT, "%s: empty file: expected a VisAndOr flag line (0 or 1)",
				 path);
	const uint8_t *nul = memchr(data + b, 0, e - b);
	if (nul)
		return import_nul_byte(err, path, line, (size_t) (nul - data));
	if (e - b != 1 || (data[b] != '0' && data[b] != '1'))
		return weft_fail(err, WEFT_EINPUT, "%s:%ld: flag line '%.*s': expected a single digit, 0 "
				 "(AND) or 1 (OR): not a VisAndOr file", path, line,
				 (int) (e - b > 40 ? 40 : e - b), (const char *) data + b);
	v.flag = data[b] - '0';
	v.last = UINT64_MAX;
	for (int c = 0; c < VAO_NKIND; c++)
		kind_of(v.flag, c, &v.kind[c]);
	memcpy(v.wam_mcv, v.flag ? "RW=" : "AW=", 4);
	int rc = read_records(&v, data, pos, len, line);
	if (rc == 0 && !v.have_t0)
		rc = weft_fail(err, WEFT_EINPUT, "%s: no event after the flag line: expected at least "
			       "START_TIME", path);
	if (rc == 0 && !v.quiet) {
		if (v.last_code != 6)
			weft_warn("%s:%ld: the last event is code %d: expected STOP_TIME (6); the trace ends "
				  "at the last event", path, v.last_line, v.last_code);
		if (v.nties)
			weft_warn("%s: %" PRIu64 " events have the timestamp of the event before them: kept "
				  "in file order", path, v.nties);
	}
	for (int i = 0; i < v.nag; i++) {
		if (!v.ag[i].used)
			continue;
		struct weft_err scratch;
		if (ow_close(&v.ag[i].w, rc ? &scratch : err) && rc == 0)
			rc = -1;
		if (rc == 0)
			rc = write_json(&v, i);
	}
	free(v.ag);
	return rc;
}

const struct weft_import_fmt import_visandor = {
	"visandor",
	"VisAndOr logs of &-Prolog, Ciao, Aurora, MUSE, Andorra-I (and-fork and or-branch models)",
	vao_detect,
	vao_convert,
};
