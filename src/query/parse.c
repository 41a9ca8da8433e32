/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parse: the pattern grammar of doc/man/weft-query.1 (GRAMMAR), by recursive descent.
 *
 *   pattern ::= label ':' 'when' expr ('do' | 'do_synchro') actions
 *   expr    ::= expr 'or' expr | expr 'and' expr | 'not' expr | '(' expr ')' | cond
 *   cond    ::= attr op value | 'true' | 'has' '(' attr ')' | 'isNamed' '(' attr ')'
 *
 * Precedence: not > and > or. Keywords are case-insensitive; '#' outside a
 * string ends the input (comments). Every error names the column (1-based
 * byte) and what was expected versus found. Attributes are resolved once,
 * as they are parsed (attr.c). Over 700 lines because it is the whole
 * grammar: its lexer, values, conditions and actions share the parser's
 * state, its one token of look-ahead and its column-naming errors, which
 * splitting it would export. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"
#include "query/qint.h"
#include "util/macros.h"

const char *const qstate_name[QSTATE_N] = {"Unknown", "Running", "Paused", "Dead", "Cooling", "Warming"};

enum tk { TK_END, TK_WORD, TK_INT, TK_STR, TK_LP, TK_RP, TK_LB, TK_RB, TK_COMMA, TK_COLON,
	  TK_DOTDOT, TK_OP };

struct tok {
	enum tk t;
	size_t start, n;        /* source text of the token */
	int64_t i;              /* TK_INT: value before the unit */
	int64_t scale;          /* TK_INT: 1, or the unit's ns */
	size_t unit_start, unit_n;
	enum qop op;            /* TK_OP */
	char *s;                /* TK_STR: decoded (owned by the parser) */
	size_t slen;
};

struct parser {
	struct query *q;
	const char *src;
	size_t len, pos;
	const char *where;      /* "pattern 1" */
	const char *what;       /* "pattern", "filter", "attribute list" */
	struct weft_err *e;
	struct tok tk;          /* the current token after next() */
	struct tok pk;          /* lookahead */
	int have_pk;
	int failed;
	int nest;               /* parentheses and not open around the current token */
	struct qpattern *p;     /* the pattern being built (needs_emu, depth) */
};

static const char op_list[] = "(=, \\=, !=, <, >, =<, <=, >=, in, notin, contains, notcontains)";

/* ---- errors -------------------------------------------------------------- */

static int perr_at(struct parser *ps, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr_at(struct parser *ps, size_t pos, const char *fmt, ...)
{
	if (ps->failed)
		return -1;
	ps->failed = 1;
	char msg[1024];
	WEFT_VFORMAT(msg, fmt);
	return weft_fail(ps->e, WEFT_EUSAGE, "%s, column %zu: %s", ps->where, pos + 1, msg);
}

/* "the end of the pattern", "\"foo\"" or "the string \"abc\"" */
static void describe(struct parser *ps, const struct tok *t, char *buf, size_t sz)
{
	if (t->t == TK_END) {
		snprintf(buf, sz, "the end of the %s", ps->what);
		return;
	}
	size_t n = t->n > 60 ? 60 : t->n;
	const char *pre = t->t == TK_STR ? "the string " : "";
	if (t->t == TK_STR)
		snprintf(buf, sz, "%s%.*s%s", pre, (int) n, ps->src + t->start, n < t->n ? "..." : "");
	else
		snprintf(buf, sz, "\"%.*s%s\"", (int) n, ps->src + t->start, n < t->n ? "..." : "");
}

static int expected(struct parser *ps, const struct tok *t, const char *what)
{
	char f[128];
	describe(ps, t, f, sizeof(f));
	return perr_at(ps, t->start, "expected %s, found %s", what, f);
}

/* ---- lexer --------------------------------------------------------------- */

static int is_word_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_word_char(int c)
{
	return isalnum(c) || c == '_';
}

static void tok_free(struct tok *t)
{
	free(t->s);
	t->s = NULL;
}

static int lex_int(struct parser *ps, struct tok *t)
{
	const char *s = ps->src;
	size_t p = ps->pos;
	int neg = 0;
	if (s[p] == '-') {
		neg = 1;
		p++;
	}
	uint64_t v = 0;
	int over = 0;
	if (s[p] == '0' && (s[p + 1] == 'x' || s[p + 1] == 'X') && p + 2 < ps->len && isxdigit((unsigned char) s[p + 2])) {
		p += 2;
		while (p < ps->len && isxdigit((unsigned char) s[p])) {
			int d = isdigit((unsigned char) s[p]) ? s[p] - '0' : (tolower((unsigned char) s[p]) - 'a' + 10);
			if (v > (UINT64_MAX >> 4))
				over = 1;
			v = v << 4 | (uint64_t) d;
			p++;
		}
	} else {
		while (p < ps->len && isdigit((unsigned char) s[p])) {
			unsigned d = (unsigned) (s[p] - '0');
			if (v > (UINT64_MAX - d) / 10)
				over = 1;
			v = v * 10 + d;
			p++;
		}
	}
	uint64_t lim = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
	if (over || v > lim)
		return perr_at(ps, t->start, "integer %.*s is out of range (64-bit signed)",
			       (int) (p - t->start), s + t->start);
	t->i = neg ? (int64_t) (0 - v) : (int64_t) v;
	t->scale = 1;
	if (p < ps->len && isalpha((unsigned char) s[p])) {
		size_t u = p;
		while (p < ps->len && isalnum((unsigned char) s[p]))
			p++;
		size_t n = p - u;
		t->unit_start = u;
		t->unit_n = n;
		if (n == 2 && strncmp(s + u, "ns", 2) == 0)
			t->scale = 1;
		else if (n == 2 && strncmp(s + u, "us", 2) == 0)
			t->scale = 1000;
		else if (n == 2 && strncmp(s + u, "ms", 2) == 0)
			t->scale = 1000000;
		else if (n == 1 && s[u] == 's')
			t->scale = 1000000000;
		else
			return perr_at(ps, u, "unknown unit \"%.*s\" (expected ns, us, ms or s)", (int) n,
				       s + u);
	}
	t->t = TK_INT;
	t->n = p - t->start;
	ps->pos = p;
	return 0;
}

static int lex_string(struct parser *ps, struct tok *t)
{
	const char *s = ps->src;
	size_t p = ps->pos + 1;
	char *out = weft_xmalloc(ps->len - ps->pos + 1);
	size_t n = 0;
	for (;;) {
		if (p >= ps->len) {
			free(out);
			return perr_at(ps, t->start, "unterminated string: expected a closing '\"'");
		}
		char c = s[p];
		if (c == '"')
			break;
		if (c == '\\') {
			char d = p + 1 < ps->len ? s[p + 1] : '\0';
			if (d == '"' || d == '\\')
				out[n++] = d;
			else if (d == 'n')
				out[n++] = '\n';
			else if (d == 't')
				out[n++] = '\t';
			else {
				free(out);
				if (!d)
					return perr_at(ps, t->start, "unterminated string: expected a closing '\"'");
				return perr_at(ps, p, "unknown escape \"\\%c\" in a string (expected \\\", \\\\, \\n or \\t)",
					       isprint((unsigned char) d) ? d : '?');
			}
			p += 2;
			continue;
		}
		out[n++] = c;
		p++;
	}
	out[n] = '\0';
	t->t = TK_STR;
	t->s = out;
	t->slen = n;
	t->n = p + 1 - t->start;
	ps->pos = p + 1;
	return 0;
}

static int lex(struct parser *ps, struct tok *t)
{
	memset(t, 0, sizeof(*t));
	const char *s = ps->src;
	while (ps->pos < ps->len && isspace((unsigned char) s[ps->pos]))
		ps->pos++;
	t->start = ps->pos;
	if (ps->pos >= ps->len || s[ps->pos] == '#') {
		t->t = TK_END;
		return 0;
	}
	unsigned char c = (unsigned char) s[ps->pos];
	unsigned char d = ps->pos + 1 < ps->len ? (unsigned char) s[ps->pos + 1] : 0;
	if (isdigit(c) || (c == '-' && isdigit(d)))
		return lex_int(ps, t);
	if (is_word_start(c)) {
		size_t p = ps->pos;
		while (p < ps->len) {
			if (is_word_char((unsigned char) s[p]))
				p++;
			else if (s[p] == '.' && p + 1 < ps->len && is_word_start((unsigned char) s[p + 1]))
				p++;
			else
				break;
		}
		t->t = TK_WORD;
		t->n = p - ps->pos;
		ps->pos = p;
		return 0;
	}
	if (c == '"')
		return lex_string(ps, t);
	t->n = 1;
	switch (c) {
	case '(': t->t = TK_LP; break;
	case ')': t->t = TK_RP; break;
	case '[': t->t = TK_LB; break;
	case ']': t->t = TK_RB; break;
	case ',': t->t = TK_COMMA; break;
	case ':': t->t = TK_COLON; break;
	case '.':
		if (d != '.')
			return perr_at(ps, t->start, "unexpected character '.' (a range is written a..b)");
		t->t = TK_DOTDOT;
		t->n = 2;
		break;
	case '=':
		t->t = TK_OP;
		t->op = QOP_EQ;
		if (d == '<') {
			t->op = QOP_LE;
			t->n = 2;
		}
		break;
	case '\\':
	case '!':
		if (d != '=')
			return perr_at(ps, t->start, "unexpected character '%c' (did you mean %c=?)", c, c);
		t->t = TK_OP;
		t->op = QOP_NE;
		t->n = 2;
		break;
	case '<':
	case '>':
		t->t = TK_OP;
		t->op = c == '<' ? QOP_LT : QOP_GT;
		if (d == '=') {
			t->op = c == '<' ? QOP_LE : QOP_GE;
			t->n = 2;
		}
		break;
	default:
		if (isprint(c))
			return perr_at(ps, t->start, "unexpected character '%c'", c);
		return perr_at(ps, t->start, "unexpected byte 0x%02x", c);
	}
	ps->pos += t->n;
	return 0;
}

/* Advance: ps->tk becomes the next token. */
static int next(struct parser *ps)
{
	tok_free(&ps->tk);
	if (ps->have_pk) {
		ps->tk = ps->pk;
		memset(&ps->pk, 0, sizeof(ps->pk));
		ps->have_pk = 0;
		return 0;
	}
	return lex(ps, &ps->tk);
}

static const struct tok *peek(struct parser *ps)
{
	if (!ps->have_pk) {
		if (lex(ps, &ps->pk))
			return NULL;
		ps->have_pk = 1;
	}
	return &ps->pk;
}

static int word_is(const struct parser *ps, const struct tok *t, const char *kw)
{
	size_t n = strlen(kw);
	return t->t == TK_WORD && t->n == n && strncasecmp(ps->src + t->start, kw, n) == 0;
}

static const char *const keywords[] = {
	"when", "do",  "do_synchro", "dosynchro", "and",   "or",       "not",
	"true", "has", "isnamed",    "in",	  "notin", "contains", "notcontains",
};

static int is_keyword(const struct parser *ps, const struct tok *t)
{
	for (size_t k = 0; k < ARRAY_SIZE(keywords); k++)
		if (word_is(ps, t, keywords[k]))
			return 1;
	return 0;
}

/* ---- attributes (resolved by attr.c) -------------------------------------- */

static int parse_attr(struct parser *ps, struct qattr *a)
{
	if (next(ps))
		return -1;
	const struct tok *t = &ps->tk;
	if (t->t != TK_WORD || is_keyword(ps, t))
		return expected(ps, t, "an attribute");
	char msg[1024];
	if (qresolve_attr(ps->q, ps->src + t->start, t->n, a, msg, sizeof(msg)))
		return perr_at(ps, t->start, "%s", msg);
	if (ps->p && (a->kind == QA_STATE || a->kind == QA_MSTATE || a->kind == QA_CPU))
		ps->p->needs_emu = 1;
	return 0;
}

static int attr_depth(const struct qattr *a)
{
	switch (a->kind) {
	case QA_MODEL:
	case QA_MODEL_NAME:
		return 1;
	case QA_CAT:
		return 2;
	case QA_VAL:
	case QA_MCV:
	case QA_FIELD:
		return 3;
	default:
		return 0;
	}
}

/* ---- values -------------------------------------------------------------- */

static void val_free(struct qval *v)
{
	free(v->s);
	for (int i = 0; i < v->nitem; i++)
		val_free(&v->item[i]);
	free(v->item);
	memset(v, 0, sizeof(*v));
}

static const char *op_name(enum qop op)
{
	static const char *const names[] = {
		"=", "!=", "<", "<=", ">", ">=", "in", "notin", "contains", "notcontains", "isNamed",
	};
	return names[op];
}

/* contains and notcontains: text operators that take a string. */
static int is_contains(enum qop op)
{
	return op == QOP_CONTAINS || op == QOP_NOTCONTAINS;
}

static int is_time_attr(const struct qattr *a)
{
	return a->kind == QA_TIME || a->kind == QA_CLOCK;
}

static int state_by_name(const char *s, size_t n)
{
	for (int k = 0; k < QSTATE_N; k++)
		if (strlen(qstate_name[k]) == n && strncasecmp(qstate_name[k], s, n) == 0)
			return k;
	return -1;
}

/* Text constants of a one- or three-character attribute, or a model name,
 * compared for equality must be able to match. */
static int check_text_value(struct parser *ps, const struct qattr *a, enum qop op, const char *s,
			    size_t n, size_t col)
{
	if (op != QOP_EQ && op != QOP_NE && op != QOP_IN && op != QOP_NOTIN)
		return 0;
	if ((a->kind == QA_MODEL || a->kind == QA_CAT || a->kind == QA_VAL) && n != 1)
		return perr_at(ps, col, "%s is one character: expected a 1-character string, found \"%.*s\"",
			       a->name, (int) (n > 60 ? 60 : n), s);
	if (a->kind == QA_MCV && n != 3)
		return perr_at(ps, col, "mcv is three characters: expected a 3-character string, found \"%.*s\"",
			       (int) (n > 60 ? 60 : n), s);
	if (a->kind == QA_MODEL_NAME) {
		const struct weft_model_def *const *all = ps->q->tab->models.all;
		int nall = ps->q->tab->models.n;
		for (int i = 0; i < nall; i++)
			if (strlen(all[i]->name) == n && memcmp(all[i]->name, s, n) == 0)
				return 0;
		char names[512];
		qmodel_names(ps->q, names, sizeof(names));
		return perr_at(ps, col, "unknown model \"%.*s\" (models: %s)", (int) (n > 60 ? 60 : n), s,
			       names);
	}
	return 0;
}

/* An integer token for this attribute: unit checks and scaling. */
static int int_value(struct parser *ps, const struct qattr *a, const struct tok *t, int64_t *out)
{
	if (t->unit_n && !is_time_attr(a))
		return perr_at(ps, t->unit_start, "a time unit (%.*s) is only allowed with time or clock, not with %s",
			       (int) t->unit_n, ps->src + t->unit_start, a->name);
	if (t->scale != 1) {
		int64_t r;
		if (__builtin_mul_overflow(t->i, t->scale, &r))
			return perr_at(ps, t->start, "%.*s is out of range in ns (64-bit signed)", (int) t->n,
				       ps->src + t->start);
		*out = r;
	} else {
		*out = t->i;
	}
	return 0;
}

/* One value (no list) for attribute a under operator op. */
static int parse_scalar(struct parser *ps, const struct qattr *a, enum qop op, int allow_range,
			struct qval *v)
{
	memset(v, 0, sizeof(*v));
	if (next(ps))
		return -1;
	struct tok *t = &ps->tk;
	size_t col = t->start;
	int text_attr = a->type == QT_TEXT || (a->type == QT_STATE && is_contains(op));
	if (t->t == TK_INT) {
		if (text_attr && a->type != QT_MIXED) {
			if (t->unit_n)
				return perr_at(ps, t->unit_start, "a time unit (%.*s) is only allowed with time or clock, not with %s",
					       (int) t->unit_n, ps->src + t->unit_start, a->name);
			/* a number where text is expected: its digits are the text */
			v->kind = QV_STR;
			v->slen = t->n;
			v->s = weft_xmalloc(t->n + 1);
			memcpy(v->s, ps->src + t->start, t->n);
			v->s[t->n] = '\0';
			if (check_text_value(ps, a, op, v->s, v->slen, col))
				return -1;
		} else {
			v->kind = QV_INT;
			if (int_value(ps, a, t, &v->lo))
				return -1;
		}
		const struct tok *pk = peek(ps);
		if (!pk)
			return -1;
		if (pk->t != TK_DOTDOT)
			return 0;
		if (!allow_range)
			return perr_at(ps, col, "%s needs a single value, found a range (use in)", op_name(op));
		if (v->kind != QV_INT)
			return perr_at(ps, col, "%s is text: a range a..b needs a number attribute", a->name);
		if (next(ps) || next(ps))
			return -1;
		if (t->t != TK_INT)
			return expected(ps, t, "an integer after '..'");
		if (int_value(ps, a, t, &v->hi))
			return -1;
		if (v->hi < v->lo)
			return perr_at(ps, col, "empty range %.*s: the first bound is larger than the second",
				       (int) (t->start + t->n - col), ps->src + col);
		v->kind = QV_RANGE;
		return 0;
	}
	if (t->t == TK_STR || (t->t == TK_WORD && !is_keyword(ps, t))) {
		const char *s = t->t == TK_STR ? t->s : ps->src + t->start;
		size_t n = t->t == TK_STR ? t->slen : t->n;
		if (a->kind == QA_MSTATE && !is_contains(op)) {
			/* a state label of that model, e.g. state.msg = "Sending" */
			const struct weft_model_hooks *h = evtable_model(ps->q->tab, a->model)->hooks;
			int found = 0;
			for (int j = 0; j < h->nstates && !found; j++)
				if (strlen(h->states[j].label) == n &&
				    strncasecmp(h->states[j].label, s, n) == 0) {
					v->kind = QV_INT;
					v->lo = h->states[j].value;
					found = 1;
				}
			if (found)
				return 0;
			return perr_at(ps, col,
				       "unknown %s state \"%.*s\" (expected one of its state labels or a number)",
				       evtable_model(ps->q->tab, a->model)->name, (int) (n > 60 ? 60 : n), s);
		}
		if (a->type == QT_INT) {
			char f[128];
			describe(ps, t, f, sizeof(f));
			return perr_at(ps, col, "%s is a number: expected an integer, found %s", a->name, f);
		}
		if (a->type == QT_STATE && !is_contains(op)) {
			int st = state_by_name(s, n);
			if (st < 0)
				return perr_at(ps, col,
					       "unknown ovni state \"%.*s\" (expected Unknown, Running, Paused, "
					       "Dead, Cooling, Warming or a number)",
					       (int) (n > 60 ? 60 : n), s);
			v->kind = QV_INT;
			v->lo = st;
		} else {
			if (check_text_value(ps, a, op, s, n, col))
				return -1;
			v->kind = QV_STR;
			v->s = weft_xmalloc(n + 1);
			memcpy(v->s, s, n);
			v->s[n] = '\0';
			v->slen = n;
		}
		const struct tok *pk = peek(ps);
		if (!pk)
			return -1;
		if (pk->t == TK_DOTDOT)
			return perr_at(ps, col, "a range a..b needs integers at both ends");
		return 0;
	}
	if (t->t == TK_LB)
		return perr_at(ps, col, "%s needs a single value, found a list (use in)", op_name(op));
	return expected(ps, t, "a value (an integer, a \"string\", a word, a [list] or a range a..b)");
}

static int parse_value(struct parser *ps, const struct qattr *a, enum qop op, struct qval *v)
{
	memset(v, 0, sizeof(*v));
	if (op != QOP_IN && op != QOP_NOTIN)
		return parse_scalar(ps, a, op, 0, v);
	const struct tok *pk = peek(ps);
	if (!pk)
		return -1;
	if (pk->t != TK_LB) {
		size_t col = pk->start;
		if (parse_scalar(ps, a, op, 1, v))
			return -1;
		if (v->kind != QV_RANGE)
			return perr_at(ps, col, "%s needs a list [a, b, ...] or a range a..b, found \"%.*s\"",
				       op_name(op), (int) (ps->tk.start + ps->tk.n - col), ps->src + col);
		return 0;
	}
	if (next(ps))
		return -1;
	v->kind = QV_LIST;
	int cap = 0;
	for (;;) {
		pk = peek(ps);
		if (!pk)
			return -1;
		if (pk->t == TK_LB)
			return perr_at(ps, pk->start, "lists cannot be nested");
		if (v->nitem == cap) {
			cap = cap ? 2 * cap : 4;
			v->item = weft_xrealloc(v->item, (size_t) cap * sizeof(*v->item));
		}
		struct qval *it = &v->item[v->nitem];
		int r = parse_scalar(ps, a, op, 1, it);
		v->nitem++; /* freed with the list either way */
		if (r)
			return -1;
		if (next(ps))
			return -1;
		if (ps->tk.t == TK_RB)
			return 0;
		if (ps->tk.t != TK_COMMA)
			return expected(ps, &ps->tk, "',' or ']' in the list");
	}
}

/* ---- conditions ---------------------------------------------------------- */

static void cond_free(struct qcond *c)
{
	if (!c)
		return;
	qattr_free(&c->a);
	val_free(&c->v);
	free(c->tab);
	free(c->codes);
	free(c);
}

static int ci(int i)
{
	return i + MCV_FIRST;
}

/* Truth tables of attributes whose domain is known now. */
static void cond_static_table(const struct evtable *tab, struct qcond *c)
{
	switch (c->a.kind) {
	case QA_MODEL:
	case QA_CAT:
	case QA_VAL:
	case QA_MODEL_NAME:
		c->ntab = MCV_NCHARS;
		c->tab = weft_xcalloc(MCV_NCHARS, 1);
		for (int i = 0; i < MCV_NCHARS; i++) {
			char ch = (char) ci(i);
			if (c->a.kind == QA_MODEL_NAME) {
				const struct weft_model_def *d = evtable_model(tab, ch);
				c->tab[i] = d ? (uint8_t) qop_str(c, d->name, strlen(d->name)) : 0;
			} else {
				c->tab[i] = (uint8_t) qop_str(c, &ch, 1);
			}
		}
		break;
	case QA_STATE:
		c->ntab = QSTATE_N;
		c->tab = weft_xcalloc(QSTATE_N, 1);
		for (int k = 0; k < QSTATE_N; k++)
			c->tab[k] = (uint8_t) (is_contains(c->op) || c->op == QOP_NAMED
						       ? qop_str(c, qstate_name[k], strlen(qstate_name[k]))
						       : qop_int(c, k));
		break;
	case QA_MCV:
		/* equality tests compare packed MCVs, no string work */
		if (c->op == QOP_EQ || c->op == QOP_NE || c->op == QOP_IN || c->op == QOP_NOTIN) {
			const struct qval *v = &c->v;
			int n = v->kind == QV_LIST ? v->nitem : 1;
			c->codes = weft_xcalloc((size_t) n, sizeof(uint32_t));
			for (int i = 0; i < n; i++) {
				const struct qval *x = v->kind == QV_LIST ? &v->item[i] : v;
				if (x->kind == QV_STR && x->slen == 3)
					c->codes[c->ncodes++] = (uint32_t) (uint8_t) x->s[0] << 16 |
								(uint32_t) (uint8_t) x->s[1] << 8 | (uint8_t) x->s[2];
			}
		}
		break;
	default:
		break;
	}
}

static int parse_or(struct parser *ps, struct qnode **out);
static void cond_kind(const struct evtable *tab, struct qcond *c);

static struct qnode *node_new(enum qnode_type t)
{
	struct qnode *n = weft_xcalloc(1, sizeof(*n));
	n->type = t;
	n->height = 1;
	return n;
}

/* n's height from its children, once they are parsed; pos: where n's
 * connective is, for the error. */
static int set_height(struct parser *ps, struct qnode *n, size_t pos)
{
	int l = n->l ? n->l->height : 0, r = n->r ? n->r->height : 0;
	n->height = 1 + (l > r ? l : r);
	if (n->height > QUERY_MAX_HEIGHT)
		return perr_at(ps, pos,
			       "the expression is more than %d levels deep (and, or, not); for many "
			       "alternatives use 'attr in [v1, v2, ...]'",
			       QUERY_MAX_HEIGHT);
	return 0;
}

/* Entering a parenthesis or a not at pos: the parser recurses once more. */
static int nest_in(struct parser *ps, size_t pos)
{
	if (++ps->nest > QUERY_MAX_NEST)
		return perr_at(ps, pos, "more than %d nested levels of parentheses and not", QUERY_MAX_NEST);
	return 0;
}

static void node_free(struct qnode *n)
{
	if (!n)
		return;
	node_free(n->l);
	node_free(n->r);
	cond_free(n->c);
	free(n);
}

static void note_depth(struct parser *ps, const struct qattr *a)
{
	int d = attr_depth(a);
	if (ps->p && d > ps->p->depth)
		ps->p->depth = d;
}

static int parse_cond(struct parser *ps, struct qnode **out)
{
	const struct tok *pk = peek(ps);
	if (!pk)
		return -1;
	if (word_is(ps, pk, "true")) {
		if (next(ps))
			return -1;
		*out = node_new(QN_TRUE);
		return 0;
	}
	int named = word_is(ps, pk, "isnamed");
	if (named || word_is(ps, pk, "has")) {
		const char *what = named ? "'(' after isNamed" : "'(' after has";
		if (next(ps) || next(ps))
			return -1;
		if (ps->tk.t != TK_LP)
			return expected(ps, &ps->tk, what);
		struct qcond *c = weft_xcalloc(1, sizeof(*c));
		/* isNamed is a condition without a value; has its own node */
		struct qnode *n = node_new(named ? QN_COND : QN_HAS);
		n->c = c;
		*out = n;
		size_t col = peek(ps) ? ps->pk.start : 0;
		if (parse_attr(ps, &c->a))
			return -1;
		if (c->a.kind == QA_DESC)
			return perr_at(ps, col, "desc (the event's sentence) can be printed or counted, not tested");
		if (named && (c->a.type == QT_INT))
			return perr_at(ps, col, "isNamed needs a text attribute: %s is a number", c->a.name);
		note_depth(ps, &c->a);
		if (next(ps))
			return -1;
		if (ps->tk.t != TK_RP)
			return expected(ps, &ps->tk, "')' after the attribute");
		if (named) {
			c->op = QOP_NAMED;
			cond_kind(ps->q->tab, c);
		}
		return 0;
	}
	if (pk->t != TK_WORD || is_keyword(ps, pk))
		return expected(ps, pk, "a condition (an attribute, true, has(...), isNamed(...), not or '(')");
	size_t acol = pk->start;
	struct qcond *c = weft_xcalloc(1, sizeof(*c));
	struct qnode *n = node_new(QN_COND);
	n->c = c;
	*out = n;
	if (parse_attr(ps, &c->a))
		return -1;
	if (c->a.kind == QA_DESC)
		return perr_at(ps, acol, "desc (the event's sentence) can be printed or counted, not tested");
	note_depth(ps, &c->a);
	if (next(ps))
		return -1;
	const struct tok *t = &ps->tk;
	if (t->t == TK_OP)
		c->op = t->op;
	else if (word_is(ps, t, "in"))
		c->op = QOP_IN;
	else if (word_is(ps, t, "notin"))
		c->op = QOP_NOTIN;
	else if (word_is(ps, t, "contains"))
		c->op = QOP_CONTAINS;
	else if (word_is(ps, t, "notcontains"))
		c->op = QOP_NOTCONTAINS;
	else {
		char what[160];
		snprintf(what, sizeof(what), "an operator %s", op_list);
		return expected(ps, t, what);
	}
	if (is_contains(c->op) && (c->a.type == QT_INT))
		return perr_at(ps, t->start, "%s needs a text attribute: %s is a number", op_name(c->op), c->a.name);
	if (parse_value(ps, &c->a, c->op, &c->v))
		return -1;
	cond_kind(ps->q->tab, c);
	return 0;
}

/* How the condition is evaluated, and the tables known at parse time. */
static void cond_kind(const struct evtable *tab, struct qcond *c)
{
	switch (c->a.kind) {
	case QA_MCV:
		c->ck = QCK_MCV;
		break;
	case QA_MODEL:
	case QA_CAT:
	case QA_VAL:
	case QA_MODEL_NAME:
	case QA_STATE:
	case QA_LOOM:
	case QA_STREAM:
		c->ck = QCK_ENUM;
		break;
	case QA_FIELD:
		c->ck = c->a.type == QT_INT ? QCK_FIELD_INT : QCK_FIELD;
		break;
	default:
		c->ck = QCK_INT;
		break;
	}
	cond_static_table(tab, c);
}

static int parse_unary(struct parser *ps, struct qnode **out)
{
	const struct tok *pk = peek(ps);
	if (!pk)
		return -1;
	size_t pos = pk->start;
	if (word_is(ps, pk, "not")) {
		if (nest_in(ps, pos) || next(ps))
			return -1;
		struct qnode *n = node_new(QN_NOT);
		*out = n;
		if (parse_unary(ps, &n->l) || set_height(ps, n, pos))
			return -1;
		ps->nest--;
		return 0;
	}
	if (pk->t == TK_LP) {
		if (nest_in(ps, pos) || next(ps))
			return -1;
		if (parse_or(ps, out))
			return -1;
		if (next(ps))
			return -1;
		if (ps->tk.t != TK_RP)
			return expected(ps, &ps->tk, "')' or a connective (and, or)");
		ps->nest--;
		return 0;
	}
	return parse_cond(ps, out);
}

static int parse_and(struct parser *ps, struct qnode **out)
{
	if (parse_unary(ps, out))
		return -1;
	for (;;) {
		const struct tok *pk = peek(ps);
		if (!pk)
			return -1;
		if (!word_is(ps, pk, "and"))
			return 0;
		size_t pos = pk->start;
		if (next(ps))
			return -1;
		struct qnode *n = node_new(QN_AND);
		n->l = *out;
		*out = n;
		if (parse_unary(ps, &n->r) || set_height(ps, n, pos))
			return -1;
	}
}

static int parse_or(struct parser *ps, struct qnode **out)
{
	if (parse_and(ps, out))
		return -1;
	for (;;) {
		const struct tok *pk = peek(ps);
		if (!pk)
			return -1;
		if (!word_is(ps, pk, "or"))
			return 0;
		size_t pos = pk->start;
		if (next(ps))
			return -1;
		struct qnode *n = node_new(QN_OR);
		n->l = *out;
		*out = n;
		if (parse_and(ps, &n->r) || set_height(ps, n, pos))
			return -1;
	}
}

/* ---- actions ------------------------------------------------------------- */

static int add_attr(struct qattr **arr, int *n, const struct qattr *a)
{
	*arr = weft_xrealloc(*arr, (size_t) (*n + 1) * sizeof(**arr));
	(*arr)[(*n)++] = *a;
	return 0;
}

static int parse_attr_list(struct parser *ps, struct qattr **arr, int *n)
{
	for (;;) {
		struct qattr a;
		if (parse_attr(ps, &a))
			return -1;
		add_attr(arr, n, &a);
		if (next(ps))
			return -1;
		if (ps->tk.t == TK_RP)
			return 0;
		if (ps->tk.t != TK_COMMA)
			return expected(ps, &ps->tk, "',' or ')' after an attribute");
	}
}

static int parse_agg(struct parser *ps, struct qagg **arr, int *n, int numeric)
{
	if (next(ps))
		return -1;
	if (ps->tk.t != TK_LP)
		return expected(ps, &ps->tk, "'(' after sum");
	size_t col = peek(ps) ? ps->pk.start : 0;
	struct qattr a;
	if (parse_attr(ps, &a))
		return -1;
	*arr = weft_xrealloc(*arr, (size_t) (*n + 1) * sizeof(**arr));
	memset(&(*arr)[*n], 0, sizeof(**arr));
	(*arr)[(*n)++].a = a;
	if (numeric && a.type != QT_INT)
		return perr_at(ps, col, "sum needs a number attribute: %s is %s", a.name,
			       a.type == QT_STATE ? "a state" : "text");
	if (next(ps))
		return -1;
	if (ps->tk.t != TK_RP)
		return expected(ps, &ps->tk, "')' after the attribute");
	return 0;
}

/* call(NAME): the analyser's handler NAME (a word). */
static int parse_call(struct parser *ps, struct qpattern *p)
{
	if (next(ps))
		return -1;
	if (ps->tk.t != TK_LP)
		return expected(ps, &ps->tk, "'(' after call");
	if (next(ps))
		return -1;
	if (ps->tk.t != TK_WORD)
		return expected(ps, &ps->tk, "the name of a handler (a word) after call(");
	p->calls = weft_xrealloc(p->calls, (size_t) (p->ncalls + 1) * sizeof(*p->calls));
	char *name = weft_xmalloc(ps->tk.n + 1);
	memcpy(name, ps->src + ps->tk.start, ps->tk.n);
	name[ps->tk.n] = '\0';
	p->calls[p->ncalls++] = name;
	if (next(ps))
		return -1;
	if (ps->tk.t != TK_RP)
		return expected(ps, &ps->tk, "')' after the handler's name");
	return 0;
}

static int parse_actions(struct parser *ps, struct qpattern *p)
{
	for (;;) {
		if (next(ps))
			return -1;
		struct tok *t = &ps->tk;
		size_t col = t->start;
		if (word_is(ps, t, "current")) {
			if (next(ps))
				return -1;
			if (ps->tk.t != TK_LP)
				return expected(ps, &ps->tk, "'(' after current");
			if (parse_attr_list(ps, &p->cur, &p->ncur))
				return -1;
		} else if (word_is(ps, t, "count")) {
			const struct tok *pk = peek(ps);
			if (!pk)
				return -1;
			if (pk->t == TK_LP) {
				if (parse_agg(ps, &p->cby, &p->ncby, 0))
					return -1;
			} else {
				p->count = 1;
			}
		} else if (word_is(ps, t, "sum")) {
			if (parse_agg(ps, &p->sum, &p->nsum, 1))
				return -1;
		} else if (word_is(ps, t, "first") || word_is(ps, t, "last")) {
			int first = word_is(ps, t, "first");
			if ((first && p->last) || (!first && p->first))
				return perr_at(ps, col, "first and last cannot be combined in one pattern");
			if (first)
				p->first = 1;
			else
				p->last = 1;
		} else if (word_is(ps, t, "stop")) {
			p->stop = 1;
		} else if (word_is(ps, t, "call")) {
			if (parse_call(ps, p))
				return -1;
		} else {
			return expected(ps, t, "an action (current, call, count, sum, first, last, stop)");
		}
		if (next(ps))
			return -1;
		if (ps->tk.t == TK_END)
			return 0;
		if (ps->tk.t != TK_COMMA)
			return expected(ps, &ps->tk, "',' or the end of the pattern after an action");
	}
}

/* ---- entry points -------------------------------------------------------- */

/* Does the subtree depend on the MCV alone (so that the prefilter, which
 * sees the whole MCV, always decides it)? */
static int mcv_only(const struct qnode *n)
{
	switch (n->type) {
	case QN_TRUE:
		return 1;
	case QN_AND:
	case QN_OR:
		return mcv_only(n->l) && mcv_only(n->r);
	case QN_NOT:
		return mcv_only(n->l);
	case QN_COND:
	case QN_HAS:
		switch (n->c->a.kind) {
		case QA_MCV:
		case QA_MODEL:
		case QA_CAT:
		case QA_VAL:
		case QA_MODEL_NAME:
			return 1;
		default:
			return 0;
		}
	}
	return 0;
}

/* ... or on the stream alone (its thread, process and loom)? */
static int stream_only(const struct qnode *n)
{
	switch (n->type) {
	case QN_TRUE:
		return 1;
	case QN_AND:
	case QN_OR:
		return stream_only(n->l) && stream_only(n->r);
	case QN_NOT:
		return stream_only(n->l);
	case QN_COND:
	case QN_HAS:
		return qkind_per_stream(n->c->a.kind);
	}
	return 0;
}

static void collect_conj(struct qpattern *p, struct qnode *n, int *cap)
{
	if (n->type == QN_AND) {
		collect_conj(p, n->l, cap);
		collect_conj(p, n->r, cap);
		return;
	}
	if (mcv_only(n) || stream_only(n))
		return;
	if (p->nconj == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		p->conj = weft_xrealloc(p->conj, (size_t) *cap * sizeof(*p->conj));
	}
	p->conj[p->nconj++] = n;
}

void qsplit_conj(struct qpattern *p)
{
	free(p->conj);
	p->conj = NULL;
	p->nconj = 0;
	int cap = 0;
	if (p->root)
		collect_conj(p, p->root, &cap);
}

void qpattern_free(struct qpattern *p)
{
	if (!p)
		return;
	free(p->label);
	free(p->text);
	free(p->conj);
	free(p->live);
	node_free(p->root);
	for (int i = 0; i < p->ncur; i++)
		qattr_free(&p->cur[i]);
	free(p->cur);
	for (int i = 0; i < p->ncby; i++) {
		struct qgroup *g, *tmp;
		HASH_ITER(hh, p->cby[i].groups, g, tmp) {
			HASH_DEL(p->cby[i].groups, g);
			free(g);
		}
		qattr_free(&p->cby[i].a);
	}
	free(p->cby);
	for (int i = 0; i < p->nsum; i++)
		qattr_free(&p->sum[i].a);
	free(p->sum);
	free(p->saved);
	for (int i = 0; i < p->ncalls; i++)
		free(p->calls[i]);
	free(p->calls);
	free(p);
}

static void parser_init(struct parser *ps, struct query *q, const char *text, const char *where,
			const char *what, struct weft_err *e)
{
	memset(ps, 0, sizeof(*ps));
	ps->q = q;
	ps->src = text;
	ps->len = strlen(text);
	ps->where = where;
	ps->what = what;
	ps->e = e;
}

static void parser_done(struct parser *ps)
{
	tok_free(&ps->tk);
	tok_free(&ps->pk);
}

static int label_char(int c)
{
	return isalnum(c) || c == '_' || c == '-';
}

static struct qpattern *parse_pattern(struct query *q, const void *owner, const char *text, const char *where,
				      struct weft_err *e)
{
	struct parser ps;
	parser_init(&ps, q, text, where, "pattern", e);
	struct qpattern *p = weft_xcalloc(1, sizeof(*p));
	p->owner = owner;
	ps.p = p;
	p->text = weft_xstrdup(text);
	size_t i = 0;
	while (i < ps.len && isspace((unsigned char) text[i]))
		i++;
	size_t l0 = i;
	while (i < ps.len && label_char((unsigned char) text[i]))
		i++;
	int rc = -1;
	if (i == l0) {
		ps.pos = l0;
		if (lex(&ps, &ps.tk) == 0)
			expected(&ps, &ps.tk, "a label (letters, digits, '_' or '-') followed by ':'");
		goto out;
	}
	p->label = weft_xmalloc(i - l0 + 1);
	memcpy(p->label, text + l0, i - l0);
	p->label[i - l0] = '\0';
	for (int k = 0; k < q->npat; k++)
		if (q->pat[k]->owner == owner && strcmp(q->pat[k]->label, p->label) == 0) {
			perr_at(&ps, l0, "label \"%s\" is already used by another pattern", p->label);
			goto out;
		}
	ps.pos = i;
	if (next(&ps))
		goto out;
	if (ps.tk.t != TK_COLON) {
		char what[128];
		snprintf(what, sizeof(what), "':' after the label \"%s\"", p->label);
		expected(&ps, &ps.tk, what);
		goto out;
	}
	if (next(&ps))
		goto out;
	if (!word_is(&ps, &ps.tk, "when")) {
		expected(&ps, &ps.tk, "'when'");
		goto out;
	}
	if (parse_or(&ps, &p->root))
		goto out;
	if (next(&ps))
		goto out;
	if (word_is(&ps, &ps.tk, "do_synchro") || word_is(&ps, &ps.tk, "dosynchro")) {
		p->sync = 1;
	} else if (!word_is(&ps, &ps.tk, "do")) {
		expected(&ps, &ps.tk, "'do', 'do_synchro' or a connective (and, or)");
		goto out;
	}
	if (parse_actions(&ps, p))
		goto out;
	for (int k = 0; k < p->ncur; k++)
		if (p->cur[k].kind == QA_STATE || p->cur[k].kind == QA_MSTATE || p->cur[k].kind == QA_CPU)
			p->needs_emu = 1;
	p->prints = p->ncur > 0 || p->ncalls > 0 || (!p->count && !p->ncby && !p->nsum);
	rc = 0;
out:
	parser_done(&ps);
	if (rc) {
		qpattern_free(p);
		return NULL;
	}
	return p;
}

static int install(struct query *q, struct qpattern *p, struct weft_err *e)
{
	qsplit_conj(p);
	if (q->npat == QUERY_MAX_PATTERNS) {
		qpattern_free(p);
		return weft_fail(e, WEFT_EUSAGE, "too many patterns: at most %d at once",
				 QUERY_MAX_PATTERNS);
	}
	if (p->needs_emu && q->no_models) {
		int rc = weft_fail(e, WEFT_EUSAGE,
				   "pattern %s needs the models (state.<model>, cpu), which this run does not emulate",
				   p->label);
		qpattern_free(p);
		return rc;
	}
	if (q->bound && qbind_pattern(q, p, e)) {
		qpattern_free(p);
		return -1;
	}
	q->pat[q->npat++] = p;
	if (p->needs_emu)
		q->needs_emu = 1;
	qphase_reset(q);
	if (q->bound)
		qbuild_prefilter(q);
	return 0;
}

int query_add(struct query *q, const char *text, const char *where, struct weft_err *e)
{
	return query_add_for(q, NULL, text, where, e);
}

int query_add_for(struct query *q, const void *owner, const char *text, const char *where, struct weft_err *e)
{
	struct qpattern *p = parse_pattern(q, owner, text, where, e);
	if (!p)
		return -1;
	return install(q, p, e);
}

int query_add_filter(struct query *q, const char *expr, const char *where, struct weft_err *e)
{
	struct parser ps;
	parser_init(&ps, q, expr, where, "expression", e);
	struct qpattern *p = weft_xcalloc(1, sizeof(*p));
	ps.p = p;
	p->text = weft_xstrdup(expr);
	p->label = weft_xstrdup("filter");
	int rc = -1;
	if (parse_or(&ps, &p->root) || next(&ps))
		goto out;
	if (ps.tk.t != TK_END) {
		expected(&ps, &ps.tk, "a connective (and, or) or the end of the expression");
		goto out;
	}
	rc = 0;
out:
	parser_done(&ps);
	if (rc) {
		qpattern_free(p);
		return -1;
	}
	return install(q, p, e);
}

int query_parse_attrs(struct query *q, const char *text, const char *where, struct qattr **out,
		      struct weft_err *e)
{
	struct parser ps;
	parser_init(&ps, q, text, where, "attribute list", e);
	struct qattr *arr = NULL;
	int n = 0;
	int rc = -1;
	for (;;) {
		struct qattr a;
		if (parse_attr(&ps, &a))
			goto out;
		add_attr(&arr, &n, &a);
		if (next(&ps))
			goto out;
		if (ps.tk.t == TK_END)
			break;
		if (ps.tk.t != TK_COMMA) {
			expected(&ps, &ps.tk, "',' or the end of the attribute list");
			goto out;
		}
	}
	rc = 0;
out:
	parser_done(&ps);
	if (rc) {
		query_free_attrs(arr, n);
		return -1;
	}
	*out = arr;
	return n;
}

void query_free_attrs(struct qattr *a, int n)
{
	for (int i = 0; i < n; i++)
		qattr_free(&a[i]);
	free(a);
}

int query_find(const struct query *q, const void *owner, const char *label)
{
	for (int k = 0; k < q->npat; k++)
		if (q->pat[k]->owner == owner && strcmp(q->pat[k]->label, label) == 0)
			return k;
	return -1;
}

int query_remove(struct query *q, const char *label)
{
	return query_remove_for(q, NULL, label);
}

/* After patterns left: what depends on the set, rebuilt once. */
static void patterns_changed(struct query *q)
{
	q->needs_emu = 0;
	for (int i = 0; i < q->npat; i++)
		q->needs_emu |= q->pat[i]->needs_emu;
	qphase_reset(q);
	if (q->bound)
		qbuild_prefilter(q);
}

/* Take pattern k out of the array (the slots synced first, while they name
 * patterns by their old numbers); the caller rebuilds. */
static struct qpattern *detach(struct query *q, int k)
{
	query_sync(q);
	struct qpattern *p = q->pat[k];
	memmove(&q->pat[k], &q->pat[k + 1], (size_t) (q->npat - k - 1) * sizeof(q->pat[0]));
	q->npat--;
	return p;
}

int query_remove_for(struct query *q, const void *owner, const char *label)
{
	int k = query_find(q, owner, label);
	if (k < 0)
		return -1;
	qpattern_free(detach(q, k));
	patterns_changed(q);
	return 0;
}

int query_remove_owner(struct query *q, const void *owner)
{
	int n = 0;
	for (int k = q->npat - 1; k >= 0; k--)
		if (q->pat[k]->owner == owner) {
			qpattern_free(detach(q, k));
			n++;
		}
	if (n)
		patterns_changed(q);
	return n;
}

struct qpattern *query_take(struct query *q, int k)
{
	struct qpattern *p = detach(q, k);
	patterns_changed(q);
	return p;
}

int query_put(struct query *q, struct qpattern *p, struct weft_err *e)
{
	return install(q, p, e);
}
