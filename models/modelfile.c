/* SPDX-License-Identifier: GPL-3.0-or-later */
/* modelfile: the line-oriented parser of model files (doc/dev/models.md)
 * and their compilation into tables. One pass: each line is split into
 * tokens, its first word says what it is, and a block (channel, event or
 * breakdown) lasts until the next statement that opens one. Over 700 lines
 * because it is the whole grammar with its error texts: the statements
 * share the tokenizer and the place-naming errors, and splitting them would
 * export both. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "evtable.h"
#include "modelfile.h"
#include "util/mapfile.h"
#include "util/macros.h"

#define MAX_TOK 16

struct tok {
	const char *s; /* in the line; for a string, its unescaped copy */
	int len;
	int col;       /* 1-based */
	int quoted;
};

struct parser {
	const char *path;
	int line;
	struct weft_err *err;
	struct tok t[MAX_TOK];
	int nt;
	int eol_col;   /* column just past the line's last token */
	char sbuf[MAX_TOK][512]; /* unescaped strings of the line */
	struct mf_model *m;
	int cap_ev, cap_act, cap_ch;
	int nacts;
	int *ev_first;  /* first action of each event (acts moves while growing) */
	enum { B_NONE, B_CHAN, B_EVENT, B_BREAKDOWN, B_PARAVER } block;
	int have_format, have_model;
	int format; /* the weft-model version */
	struct evinfo tmp; /* an event row compiled, for its fields */
};

static int fail(struct parser *p, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, int col, const char *fmt, ...)
{
	char what[1024];
	WEFT_VFORMAT(what, fmt);
	return weft_fail(p->err, WEFT_EINPUT, "%s:%d:%d: %s", p->path, p->line, col, what);
}

/* "found X" for token k (past the last: end of line). */
static const char *found(struct parser *p, int k, char *buf, size_t n)
{
	if (k >= p->nt)
		return "end of line";
	snprintf(buf, n, "%s%.*s%s", p->t[k].quoted ? "\"" : "'", p->t[k].len > 60 ? 60 : p->t[k].len,
		 p->t[k].s, p->t[k].quoted ? "\"" : "'");
	return buf;
}

static int expected(struct parser *p, int k, const char *what)
{
	char buf[80];
	int col = k < p->nt ? p->t[k].col : p->eol_col;
	return fail(p, col, "expected %s, found %s", what, found(p, k, buf, sizeof(buf)));
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Split one line (without its '\n') into tokens. */
static int tokenize(struct parser *p, const char *line, int n)
{
	p->nt = 0;
	int i = 0;
	for (;;) {
		while (i < n && is_blank(line[i]))
			i++;
		if (i >= n || line[i] == '#')
			break;
		if (p->nt == MAX_TOK)
			return fail(p, i + 1, "expected at most %d words on a line, found more", MAX_TOK);
		struct tok *t = &p->t[p->nt];
		t->col = i + 1;
		if (line[i] == '"') {
			char *o = p->sbuf[p->nt];
			int len = 0;
			i++;
			while (i < n && line[i] != '"') {
				char c = line[i];
				if (c == '\\') {
					if (i + 1 >= n || (line[i + 1] != '"' && line[i + 1] != '\\'))
						return fail(p, i + 1, "expected \\\" or \\\\ in a string, found '\\%c'",
							    i + 1 < n ? line[i + 1] : ' ');
					c = line[++i];
				}
				if (len == (int) sizeof(p->sbuf[0]) - 1)
					return fail(p, t->col, "expected a string of at most %d bytes, found a longer one",
						    (int) sizeof(p->sbuf[0]) - 1);
				o[len++] = c;
				i++;
			}
			if (i >= n)
				return fail(p, t->col, "expected a closing '\"', found the end of the line");
			o[len] = '\0';
			i++;
			if (i < n && !is_blank(line[i]) && line[i] != '#')
				return fail(p, i + 1, "expected a blank after a string, found '%c'", line[i]);
			t->s = o;
			t->len = len;
			t->quoted = 1;
		} else {
			int s = i;
			while (i < n && !is_blank(line[i]) && line[i] != '"')
				i++;
			t->s = line + s;
			t->len = i - s;
			t->quoted = 0;
		}
		p->nt++;
		p->eol_col = i + 1;
	}
	if (p->nt == 0)
		p->eol_col = 1;
	return 0;
}

static int is_word(const struct parser *p, int k, const char *w)
{
	return k < p->nt && !p->t[k].quoted && p->t[k].len == (int) strlen(w) &&
	       memcmp(p->t[k].s, w, (size_t) p->t[k].len) == 0;
}

static char *dup_tok(const struct parser *p, int k)
{
	char *s = weft_xmalloc((size_t) p->t[k].len + 1);
	memcpy(s, p->t[k].s, (size_t) p->t[k].len);
	s[p->t[k].len] = '\0';
	return s;
}

static int need_string(struct parser *p, int k, const char *what)
{
	if (k >= p->nt || !p->t[k].quoted)
		return expected(p, k, what);
	return 0;
}

static int need_word(struct parser *p, int k, const char *what)
{
	if (k >= p->nt || p->t[k].quoted)
		return expected(p, k, what);
	return 0;
}

static int end_of_line(struct parser *p, int k)
{
	if (k < p->nt)
		return expected(p, k, "the end of the line");
	return 0;
}

static int parse_int(struct parser *p, int k, const char *what, int64_t *out)
{
	if (need_word(p, k, what))
		return -1;
	char buf[32];
	if (p->t[k].len >= (int) sizeof(buf))
		return expected(p, k, what);
	memcpy(buf, p->t[k].s, (size_t) p->t[k].len);
	buf[p->t[k].len] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(buf, &end, 0);
	if (*end || errno || !buf[0] || (buf[0] == '0' && buf[1] && buf[1] != 'x' && buf[1] != 'X'))
		return expected(p, k, what);
	*out = v;
	return 0;
}

/* ---- header ---------------------------------------------------------------- */

static int version_ok(const char *v)
{
	int a, b, c, n = 0;
	return sscanf(v, "%d.%d.%d%n", &a, &b, &c, &n) == 3 && v[n] == '\0' && a >= 0 && b >= 0 && c >= 0;
}

static int st_format(struct parser *p)
{
	int64_t v;
	if (parse_int(p, 1, "the format version (1 or 2)", &v))
		return -1;
	if (v < 1 || v > MF_FORMAT)
		return fail(p, p->t[1].col, "expected format version 1 to %d, found %lld", MF_FORMAT, (long long) v);
	p->have_format = 1;
	p->format = (int) v;
	return end_of_line(p, 2);
}

static int st_model(struct parser *p)
{
	if (p->have_model)
		return fail(p, 1, "expected one 'model' line, found a second");
	if (need_word(p, 1, "the model character") || p->t[1].len != 1 || p->t[1].s[0] < MCV_FIRST ||
	    p->t[1].s[0] > MCV_LAST)
		return expected(p, 1, "the model character (one printable character)");
	if (need_word(p, 2, "the model name"))
		return -1;
	if (need_word(p, 3, "the model version (MAJOR.MINOR.PATCH)"))
		return -1;
	char *ver = dup_tok(p, 3);
	if (!version_ok(ver)) {
		free(ver);
		return expected(p, 3, "the model version (MAJOR.MINOR.PATCH)");
	}
	struct mf_model *m = p->m;
	m->def.id = p->t[1].s[0];
	m->def.name = dup_tok(p, 2);
	m->def.version = ver;
	p->have_model = 1;
	return end_of_line(p, 4);
}

static int st_guard(struct parser *p)
{
	if (is_word(p, 1, "running"))
		p->m->guard = MF_GUARD_RUNNING;
	else if (is_word(p, 1, "active"))
		p->m->guard = MF_GUARD_ACTIVE;
	else
		return expected(p, 1, "'running' or 'active'");
	if (p->nt > 2 && is_word(p, 2, "oncpu")) {
		p->m->oncpu = 1;
		return end_of_line(p, 3);
	}
	return end_of_line(p, 2);
}

/* ---- channels ---------------------------------------------------------------- */

static int find_chan(const struct mf_model *m, const char *s, int len)
{
	for (int i = 0; i < m->nchans; i++)
		if ((int) strlen(m->chans[i].name) == len && memcmp(m->chans[i].name, s, (size_t) len) == 0)
			return i;
	return -1;
}

static int st_channel(struct parser *p)
{
	struct mf_model *m = p->m;
	if (need_word(p, 1, "a channel name"))
		return -1;
	if (find_chan(m, p->t[1].s, p->t[1].len) >= 0)
		return fail(p, p->t[1].col, "expected a new channel name, found '%.*s' declared before",
			    p->t[1].len, p->t[1].s);
	int stack;
	if (is_word(p, 2, "stack"))
		stack = 1;
	else if (is_word(p, 2, "single"))
		stack = 0;
	else
		return expected(p, 2, "'stack' or 'single'");
	if (end_of_line(p, 3))
		return -1;
	if (m->nchans == p->cap_ch) {
		p->cap_ch = p->cap_ch ? 2 * p->cap_ch : 4;
		m->chans = weft_xrealloc(m->chans, (size_t) p->cap_ch * sizeof(*m->chans));
		m->prv.thread = weft_xrealloc(m->prv.thread, (size_t) p->cap_ch * sizeof(*m->prv.thread));
		m->prv.cpu = weft_xrealloc(m->prv.cpu, (size_t) p->cap_ch * sizeof(*m->prv.cpu));
	}
	m->prv.thread[m->nchans] = m->prv.cpu[m->nchans] = -1;
	struct mf_chan *c = &m->chans[m->nchans++];
	memset(c, 0, sizeof(*c));
	c->name = dup_tok(p, 1);
	c->stack = stack;
	c->line = p->line;
	p->block = B_CHAN;
	return 0;
}

/* A Paraver event type at token k. */
static int prv_type(struct parser *p, int k, int32_t *type)
{
	int64_t v;
	if (parse_int(p, k, "a Paraver event type (1 to 2147483647)", &v))
		return -1;
	if (v < 1 || v > INT32_MAX)
		return expected(p, k, "a Paraver event type (1 to 2147483647)");
	*type = (int32_t) v;
	return 0;
}

/* A channel's `thread` or `cpu` line: its title (format 1: its Paraver
 * type first); returns the token after them. */
static int chan_rows(struct parser *p, int32_t *type, char **label)
{
	if (*label)
		return fail(p, 1, "expected one '%.*s' line per channel, found a second", p->t[0].len, p->t[0].s);
	int k = 1;
	if (p->format == 1 && prv_type(p, k++, type))
		return -1;
	if (need_string(p, k,
			p->format == 1 ? "the type's label in quotes" : "the channel's title on these rows in quotes"))
		return -1;
	*label = weft_xstrdup(p->t[k].s);
	return k + 1;
}

static int chan_line(struct parser *p)
{
	int ci = p->m->nchans - 1;
	struct mf_chan *c = &p->m->chans[ci];
	if (is_word(p, 0, "thread")) {
		int k = chan_rows(p, &p->m->prv.thread[ci], &c->tlabel);
		if (k < 0)
			return -1;
		c->show = MF_SHOW_ANY;
		if (p->nt > k) {
			if (is_word(p, k, "running"))
				c->show = MF_SHOW_RUNNING;
			else if (is_word(p, k, "active"))
				c->show = MF_SHOW_ACTIVE;
			else if (!is_word(p, k, "any"))
				return expected(p, k, "'any', 'running' or 'active'");
		}
		return end_of_line(p, k + 1);
	}
	if (is_word(p, 0, "cpu")) {
		int k = chan_rows(p, &p->m->prv.cpu[ci], &c->clabel);
		return k < 0 ? -1 : end_of_line(p, k);
	}
	if (is_word(p, 0, "value")) {
		int64_t v;
		if (parse_int(p, 1, "a value", &v) || need_string(p, 2, "the value's label in quotes"))
			return -1;
		for (int i = 0; i < c->nlabels; i++)
			if (c->labels[i].value == v)
				return fail(p, p->t[1].col, "expected a value not labelled yet, found %lld again",
					    (long long) v);
		c->labels = weft_xrealloc(c->labels, (size_t) (c->nlabels + 1) * sizeof(*c->labels));
		c->labels[c->nlabels].value = v;
		c->labels[c->nlabels++].label = weft_xstrdup(p->t[2].s);
		return end_of_line(p, 3);
	}
	if (is_word(p, 0, "labels")) {
		if (!is_word(p, 1, "dynamic"))
			return expected(p, 1, "'dynamic'");
		c->dynamic = 1;
		return end_of_line(p, 2);
	}
	if (is_word(p, 0, "same")) {
		if (is_word(p, 1, "error"))
			c->same = MF_SAME_ERROR;
		else if (is_word(p, 1, "ignore"))
			c->same = MF_SAME_IGNORE;
		else if (is_word(p, 1, "allow"))
			c->same = MF_SAME_ALLOW;
		else
			return expected(p, 1, "'error', 'ignore' or 'allow'");
		return end_of_line(p, 2);
	}
	if (is_word(p, 0, "lint")) {
		if (is_word(p, 1, "yes"))
			c->nolint = 0;
		else if (is_word(p, 1, "no"))
			c->nolint = 1;
		else
			return expected(p, 1, "'yes' or 'no'");
		return end_of_line(p, 2);
	}
	if (is_word(p, 0, "initial") || is_word(p, 0, "cpu-none")) {
		int initial = is_word(p, 0, "initial");
		if (c->stack)
			return fail(p, 1, "expected '%s' on a single channel, found it on stack channel '%s'",
				    initial ? "initial" : "cpu-none", c->name);
		if (parse_int(p, 1, "a value", initial ? &c->initial : &c->cpu_none))
			return -1;
		return end_of_line(p, 2);
	}
	if (is_word(p, 0, "each")) {
		if (c->stack)
			return fail(p, 1, "expected 'each' on a single channel, found it on stack channel '%s'", c->name);
		if (c->each_key)
			return fail(p, 1, "expected one 'each' line per channel, found a second");
		if (need_word(p, 1, "a stream.json object's key (e.g. nosv.hwc)") ||
		    need_word(p, 2, "the entries' label field (e.g. name)") || end_of_line(p, 3))
			return -1;
		c->each_key = dup_tok(p, 1);
		c->each_field = dup_tok(p, 2);
		return 0;
	}
	if (is_word(p, 0, "dup")) {
		static const struct {
			const char *w;
			enum mf_dup d;
		} dups[] = {{"skip", MF_DUP_SKIP}, {"emit", MF_DUP_EMIT}, {"skip-null", MF_DUP_SKIP_NULL}};
		size_t k = 0;
		while (k < ARRAY_SIZE(dups) && !is_word(p, 1, dups[k].w))
			k++;
		if (k == ARRAY_SIZE(dups))
			return expected(p, 1, "'skip', 'emit' or 'skip-null'");
		c->dup = dups[k].d;
		return end_of_line(p, 2);
	}
	if (is_word(p, 0, "zero")) {
		c->zero = 1;
		return end_of_line(p, 1);
	}
	return expected(
		p, 0,
		"a channel line (thread, cpu, value, labels, same, initial, cpu-none, dup, zero, lint, each), 'channel' or 'event'");
}

/* ---- events -------------------------------------------------------------------- */

static int ok_mcv_char(char c)
{
	return c >= MCV_FIRST && c <= MCV_LAST && c != '"';
}

static int st_event(struct parser *p)
{
	struct mf_model *m = p->m;
	if (!p->have_model)
		return fail(p, 1, "expected the 'model' line before the first event, found 'event'");
	if (need_word(p, 1, "an MCV (three characters)"))
		return -1;
	const struct tok *t = &p->t[1];
	if (t->len != 3 || !ok_mcv_char(t->s[1]) || !ok_mcv_char(t->s[2]))
		return expected(p, 1, "an MCV (three characters)");
	if (t->s[0] != m->def.id)
		return fail(p, t->col, "expected an MCV of model %c, found '%.3s'", m->def.id, t->s);
	for (int i = 0; i < m->def.nevents; i++)
		if (memcmp(m->decls[i].mcv, t->s, 3) == 0)
			return fail(p, t->col, "expected a new MCV, found %.3s declared before", t->s);
	int k = 2, jumbo = 0;
	if (is_word(p, k, "jumbo")) {
		jumbo = 1;
		k++;
	}
	if (need_string(p, k, "the payload signature in quotes") ||
	    need_string(p, k + 1, "the event's sentence in quotes") || end_of_line(p, k + 2))
		return -1;
	if (m->def.nevents == p->cap_ev) {
		p->cap_ev = p->cap_ev ? 2 * p->cap_ev : 16;
		m->decls = weft_xrealloc(m->decls, (size_t) p->cap_ev * sizeof(*m->decls));
		m->evs = weft_xrealloc(m->evs, (size_t) p->cap_ev * sizeof(*m->evs));
		p->ev_first = weft_xrealloc(p->ev_first, (size_t) p->cap_ev * sizeof(*p->ev_first));
	}
	int e = m->def.nevents;
	struct weft_evdecl *d = &m->decls[e];
	memset(d, 0, sizeof(*d));
	d->mcv = dup_tok(p, 1);
	d->jumbo = jumbo;
	d->sig = weft_xstrdup(p->t[k].s);
	d->desc = weft_xstrdup(p->t[k + 1].s);
	d->handler = engine_event;
	memset(&m->evs[e], 0, sizeof(m->evs[e]));
	p->ev_first[e] = 0;
	m->def.nevents++;
	/* the row as the event table will compile it: errors here, with the place */
	struct weft_err sub = {0};
	if (evinfo_compile(&p->tmp, d, &m->def, &sub))
		return fail(p, p->t[k].col, "expected a valid signature and sentence: %s", sub.msg);
	p->block = B_EVENT;
	return 0;
}

/* A value; str_ok: a str field may be named (a primitive's argument). */
static int parse_val(struct parser *p, int k, struct mf_val *v, int str_ok)
{
	if (k < p->nt && !p->t[k].quoted && p->t[k].len > 1 && p->t[k].s[0] == '$') {
		char nm[64];
		snprintf(nm, sizeof(nm), "%.*s", p->t[k].len - 1, p->t[k].s + 1);
		int f = evinfo_field(&p->tmp, nm);
		if (f < 0)
			return fail(p, p->t[k].col, "expected a payload field of the event's signature, found '$%s'",
				    nm);
		if (p->tmp.f[f].type == EVF_BYTES)
			return fail(p, p->t[k].col, "expected an integer payload field, found '$%s' (bytes)", nm);
		if (p->tmp.f[f].type == EVF_STR && !str_ok)
			return fail(p, p->t[k].col, "expected an integer payload field, found '$%s' (a str)", nm);
		v->field = (int16_t) f;
		v->k = 0;
		return 0;
	}
	v->field = -1;
	return parse_int(p, k, "a value (an integer or $field)", &v->k);
}

/* A $field of type str at token k. */
static int k_is_str(struct parser *p, int k, struct mf_val *v)
{
	if (k >= p->nt || p->t[k].quoted || p->t[k].s[0] != '$')
		return expected(p, k, "a str payload field ($name)");
	if (parse_val(p, k, v, 1))
		return -1;
	if (p->tmp.f[v->field].type != EVF_STR)
		return fail(p, p->t[k].col, "expected a str payload field, found '%.*s' (an integer)", p->t[k].len,
			    p->t[k].s);
	return 0;
}

static int chan_arg(struct parser *p, int k, int want_stack, struct mf_action *a)
{
	if (need_word(p, k, "a channel name"))
		return -1;
	int c = find_chan(p->m, p->t[k].s, p->t[k].len);
	if (c < 0)
		return fail(p, p->t[k].col, "expected a declared channel, found '%.*s'", p->t[k].len, p->t[k].s);
	if (want_stack >= 0 && p->m->chans[c].stack != want_stack)
		return fail(p, p->t[k].col, "expected a %s channel for '%.*s', found %s channel '%s'",
			    want_stack ? "stack" : "single", p->t[0].len, p->t[0].s,
			    want_stack ? "single" : "stack", p->m->chans[c].name);
	a->chan = (uint16_t) c;
	return 0;
}

static int action_line(struct parser *p)
{
	struct mf_model *m = p->m;
	int e = m->def.nevents - 1;
	struct mf_action a;
	memset(&a, 0, sizeof(a));
	a.v.field = -1;
	if (is_word(p, 0, "todo")) {
		if (end_of_line(p, 1))
			return -1;
		if (m->evs[e].nact)
			return fail(p, 1, "expected 'todo' alone (an event weft does not emulate), found it after actions");
		m->decls[e].handler = NULL;
		return 0;
	}
	if (!m->decls[e].handler)
		return fail(p, 1, "expected no action after 'todo', found '%.*s'", p->t[0].len, p->t[0].s);
	if (is_word(p, 0, "push") || is_word(p, 0, "pop")) {
		a.op = is_word(p, 0, "push") ? MF_PUSH : MF_POP;
		if (chan_arg(p, 1, 1, &a) || parse_val(p, 2, &a.v, 0) || end_of_line(p, 3))
			return -1;
	} else if (is_word(p, 0, "set") || is_word(p, 0, "punct")) {
		a.op = is_word(p, 0, "set") ? MF_SET : MF_PUNCT;
		if (chan_arg(p, 1, 0, &a) || parse_val(p, 2, &a.v, 0) || end_of_line(p, 3))
			return -1;
	} else if (is_word(p, 0, "setall")) {
		a.op = MF_SETALL;
		if (chan_arg(p, 1, 0, &a) || end_of_line(p, 2))
			return -1;
		if (!m->chans[a.chan].each_key)
			return fail(p, p->t[1].col, "expected a channel with an 'each' line, found '%s'",
				    m->chans[a.chan].name);
	} else if (is_word(p, 0, "unset")) {
		a.op = MF_UNSET;
		if (chan_arg(p, 1, -1, &a) || end_of_line(p, 2))
			return -1;
	} else if (is_word(p, 0, "check")) {
		/* the left side: a channel's value, or a payload field (args[0]) */
		if (p->nt > 1 && !p->t[1].quoted && p->t[1].s[0] == '$') {
			if (parse_val(p, 1, &a.args[0], 0))
				return -1;
			a.nargs = 1;
		} else if (chan_arg(p, 1, -1, &a)) {
			return -1;
		}
		if (is_word(p, 2, "=="))
			a.op = MF_CHECK_EQ;
		else if (is_word(p, 2, "!="))
			a.op = MF_CHECK_NE;
		else
			return expected(p, 2, "'==' or '!='");
		if (parse_val(p, 3, &a.v, 0) || need_string(p, 4, "the error message in quotes") || end_of_line(p, 5))
			return -1;
		a.msg = weft_xstrdup(p->t[4].s);
	} else if (is_word(p, 0, "label")) {
		a.op = MF_LABEL;
		if (chan_arg(p, 1, -1, &a) || parse_val(p, 2, &a.v, 0))
			return -1;
		if (!m->chans[a.chan].dynamic)
			return fail(p, p->t[1].col, "expected a channel with 'labels dynamic', found '%s'",
				    m->chans[a.chan].name);
		struct mf_val s;
		if (k_is_str(p, 3, &s) || end_of_line(p, 4))
			return -1;
		a.str = s.field;
	} else if (is_word(p, 0, "call")) {
		a.op = MF_CALL;
		if (need_word(p, 1, "a primitive's name"))
			return -1;
		char nm[64];
		snprintf(nm, sizeof(nm), "%.*s", p->t[1].len, p->t[1].s);
		a.prim = engine_prim_find(nm);
		if (!a.prim)
			return fail(p, p->t[1].col, "expected a primitive's name (see doc/dev/models.md), found '%s'", nm);
		a.nargs = p->nt - 2;
		if (a.nargs < a.prim->minargs || a.nargs > a.prim->maxargs)
			return fail(p, a.nargs ? p->t[2].col : p->eol_col,
				    "expected %d to %d arguments for '%s', found %d", a.prim->minargs,
				    a.prim->maxargs, nm, a.nargs);
		for (int i = 0; i < a.nargs; i++)
			if (parse_val(p, 2 + i, &a.args[i], 1))
				return -1;
	} else {
		return expected(p, 0, "an action (push, pop, set, setall, unset, punct, check, label, call, todo), 'event' or "
				      "'channel'");
	}
	/* actions of one event are contiguous: events are parsed one after another */
	int total = p->nacts++;
	if (total == p->cap_act) {
		p->cap_act = p->cap_act ? 2 * p->cap_act : 64;
		m->acts = weft_xrealloc(m->acts, (size_t) p->cap_act * sizeof(*m->acts));
	}
	if (m->evs[e].nact == 0)
		p->ev_first[e] = total;
	m->acts[total] = a;
	m->evs[e].nact++;
	return 0;
}

/* ---- the breakdown view ---------------------------------------------------------- */

static int st_breakdown(struct parser *p)
{
	struct mf_model *m = p->m;
	if (m->bd)
		return fail(p, 1, "expected one 'breakdown' per model, found a second");
	int k = 1;
	int32_t type = -1;
	if (p->format == 1 && prv_type(p, k++, &type))
		return -1;
	if (need_string(p, k, "the view's label in quotes") || end_of_line(p, k + 1))
		return -1;
	m->bd = weft_xcalloc(1, sizeof(*m->bd));
	if (p->format == 1)
		m->prv.breakdown = type;
	m->bd->label = weft_xstrdup(p->t[k].s);
	m->bd->line = p->line;
	p->block = B_BREAKDOWN;
	return 0;
}

static int find_mux(const struct mf_breakdown *b, const char *s, int len)
{
	for (int i = 0; i < b->nmux; i++)
		if ((int) strlen(b->mux[i].name) == len && memcmp(b->mux[i].name, s, (size_t) len) == 0)
			return i;
	return -1;
}

/* A source at token k: a channel CPU rows show, or a mux declared before
 * (`upto`: how many muxes may be named). */
static int parse_src(struct parser *p, int k, int upto, int16_t *out)
{
	if (need_word(p, k, "a channel or an earlier mux"))
		return -1;
	const struct tok *t = &p->t[k];
	int c = find_chan(p->m, t->s, t->len);
	if (c >= 0) {
		if (!p->m->chans[c].clabel)
			return fail(p, t->col, "expected a channel shown on CPU rows (with a 'cpu' line), found '%s'",
				    p->m->chans[c].name);
		*out = (int16_t) c;
		return 0;
	}
	int x = find_mux(p->m->bd, t->s, t->len);
	if (x >= 0 && x < upto) {
		*out = (int16_t) (-1 - x);
		return 0;
	}
	return fail(p, t->col, "expected a declared channel or an earlier mux, found '%.*s'", t->len, t->s);
}

static int bd_mux(struct parser *p, struct mf_breakdown *b)
{
	if (need_word(p, 1, "the mux's name"))
		return -1;
	if (find_chan(p->m, p->t[1].s, p->t[1].len) >= 0 || find_mux(b, p->t[1].s, p->t[1].len) >= 0)
		return fail(p, p->t[1].col, "expected a new name for the mux, found '%.*s' declared before",
			    p->t[1].len, p->t[1].s);
	struct mf_mux x = {0};
	if (parse_src(p, 2, b->nmux, &x.sel))
		return -1;
	int k = 3;
	if (is_word(p, k, "default")) {
		if (parse_int(p, k + 1, "the default value", &x.def))
			return -1;
		k += 2;
	}
	if (end_of_line(p, k))
		return -1;
	x.name = dup_tok(p, 1);
	b->mux = weft_xrealloc(b->mux, (size_t) (b->nmux + 1) * sizeof(*b->mux));
	b->mux[b->nmux++] = x;
	return 0;
}

/* pick SRC [when SRC ==|!= N [and SRC ==|!= N]...] */
static int bd_pick(struct parser *p, struct mf_breakdown *b)
{
	if (!b->nmux)
		return fail(p, 1, "expected a 'mux' line before its 'pick' lines, found 'pick'");
	struct mf_mux *x = &b->mux[b->nmux - 1];
	struct mf_pick pk = {0};
	if (parse_src(p, 1, b->nmux - 1, &pk.src))
		return -1;
	int k = 2;
	if (k < p->nt) {
		if (!is_word(p, k, "when"))
			return expected(p, k, "'when' or the end of the line");
		for (k++;; k += 4) {
			if (pk.ncond == MF_MAX_CONDS)
				return fail(p, p->t[k].col, "expected at most %d conditions, found more", MF_MAX_CONDS);
			struct mf_cond *c = &pk.cond[pk.ncond++];
			if (parse_src(p, k, b->nmux - 1, &c->src))
				return -1;
			if (is_word(p, k + 1, "=="))
				c->ne = 0;
			else if (is_word(p, k + 1, "!="))
				c->ne = 1;
			else
				return expected(p, k + 1, "'==' or '!='");
			if (parse_int(p, k + 2, "a value", &c->k))
				return -1;
			if (k + 3 >= p->nt)
				break;
			if (!is_word(p, k + 3, "and"))
				return expected(p, k + 3, "'and' or the end of the line");
		}
	}
	x->picks = weft_xrealloc(x->picks, (size_t) (x->npicks + 1) * sizeof(*x->picks));
	x->picks[x->npicks++] = pk;
	return 0;
}

static int breakdown_line(struct parser *p)
{
	struct mf_breakdown *b = p->m->bd;
	if (is_word(p, 0, "labels")) {
		if (p->nt < 2)
			return expected(p, 1, "the channels whose value labels the view lists");
		for (int k = 1; k < p->nt; k++) {
			if (need_word(p, k, "a channel name"))
				return -1;
			int c = find_chan(p->m, p->t[k].s, p->t[k].len);
			if (c < 0)
				return fail(p, p->t[k].col, "expected a declared channel, found '%.*s'", p->t[k].len,
					    p->t[k].s);
			b->labels = weft_xrealloc(b->labels, (size_t) (b->nlabels + 1) * sizeof(*b->labels));
			b->labels[b->nlabels++] = c;
		}
		return 0;
	}
	if (is_word(p, 0, "require")) {
		if (b->require)
			return fail(p, 1, "expected one 'require' line, found a second");
		if (need_word(p, 1, "a stream.json key (e.g. nosv.can_breakdown)") || end_of_line(p, 2))
			return -1;
		b->require = dup_tok(p, 1);
		return 0;
	}
	if (is_word(p, 0, "mux"))
		return bd_mux(p, b);
	if (is_word(p, 0, "pick"))
		return bd_pick(p, b);
	return expected(p, 0, "a breakdown line (labels, require, mux, pick), 'channel' or 'event'");
}

/* The end of the file: a view needs muxes, a mux picks. */
static int breakdown_done(struct parser *p)
{
	const struct mf_breakdown *b = p->m->bd;
	if (!b)
		return 0;
	p->line = b->line;
	p->nt = 0;
	if (!b->nmux)
		return fail(p, 1, "expected at least one 'mux' in the breakdown, found none");
	for (int i = 0; i < b->nmux; i++)
		if (!b->mux[i].npicks)
			return fail(p, 1, "expected at least one 'pick' for mux '%s' of the breakdown, found none",
				    b->mux[i].name);
	return 0;
}

/* ---- the Paraver table ------------------------------------------------------------ */

/* `paraver` opens the block of the numbers a Paraver output gives the
 * model (format 2): `CHANNEL thread|cpu TYPE`, `breakdown TYPE`. */
static int st_paraver(struct parser *p)
{
	if (p->format < 2)
		return fail(
			p, 1,
			"expected a 'paraver' block in a format 2 file only (weft-model 2), found it in format 1, where the types are inline");
	if (end_of_line(p, 1))
		return -1;
	p->block = B_PARAVER;
	return 0;
}

static int paraver_line(struct parser *p)
{
	struct mf_model *m = p->m;
	if (is_word(p, 0, "breakdown")) {
		if (!m->bd)
			return fail(p, 1, "expected a 'breakdown' view declared before its type, found none");
		if (m->prv.breakdown >= 0)
			return fail(p, 1, "expected one type for the breakdown view, found a second");
		return prv_type(p, 1, &m->prv.breakdown) ? -1 : end_of_line(p, 2);
	}
	if (need_word(p, 0, "a channel name or 'breakdown'"))
		return -1;
	int c = find_chan(m, p->t[0].s, p->t[0].len);
	if (c < 0)
		return fail(p, 1, "expected a channel declared before the paraver block, found '%.*s'", p->t[0].len,
			    p->t[0].s);
	int cpu = is_word(p, 1, "cpu");
	if (!cpu && !is_word(p, 1, "thread"))
		return expected(p, 1, "'thread' or 'cpu'");
	if (!(cpu ? m->chans[c].clabel : m->chans[c].tlabel))
		return fail(p, p->t[1].col,
			    "expected a row the channel is shown on, found '%s' (channel '%s' has no '%s' line)",
			    cpu ? "cpu" : "thread", m->chans[c].name, cpu ? "cpu" : "thread");
	int32_t *t = cpu ? &m->prv.cpu[c] : &m->prv.thread[c];
	if (*t >= 0)
		return fail(p, 1, "expected one type for %s rows of channel '%s', found a second",
			    cpu ? "CPU" : "thread", m->chans[c].name);
	return prv_type(p, 2, t) ? -1 : end_of_line(p, 3);
}

/* The end of a format 2 file: the breakdown view has its Paraver type (a
 * channel without one is numbered by the Paraver output). */
static int paraver_done(struct parser *p)
{
	const struct mf_model *m = p->m;
	if (p->format < 2)
		return 0;
	p->nt = 0;
	if (m->bd && m->prv.breakdown < 0) {
		p->line = m->bd->line;
		return fail(
			p, 1,
			"expected a Paraver type for the breakdown view ('breakdown TYPE' in the paraver block), found none");
	}
	return 0;
}

/* ---- the whole file -------------------------------------------------------------- */

static int statement(struct parser *p)
{
	if (!p->have_format) {
		if (!is_word(p, 0, "weft-model"))
			return expected(p, 0, "'weft-model 2' (the format version) as the first line");
		return st_format(p);
	}
	if (is_word(p, 0, "weft-model"))
		return fail(p, 1, "expected one 'weft-model' line, found a second");
	if (!p->have_model && !is_word(p, 0, "model"))
		return expected(p, 0, "'model CHAR NAME VERSION' after the format line");
	if (is_word(p, 0, "model"))
		return st_model(p);
	if (is_word(p, 0, "guard")) {
		p->block = B_NONE;
		return st_guard(p);
	}
	if (is_word(p, 0, "channel"))
		return st_channel(p);
	if (is_word(p, 0, "event"))
		return st_event(p);
	if (is_word(p, 0, "paraver"))
		return st_paraver(p);
	if (p->block == B_PARAVER)
		return paraver_line(p);
	if (is_word(p, 0, "breakdown"))
		return st_breakdown(p);
	if (p->block == B_BREAKDOWN)
		return breakdown_line(p);
	if (p->block == B_CHAN)
		return chan_line(p);
	if (p->block == B_EVENT)
		return action_line(p);
	return expected(p, 0, "'guard', 'channel', 'event', 'breakdown' or 'paraver'");
}

void mf_free(struct mf_model *m)
{
	if (!m)
		return;
	free((char *) m->def.name);
	free((char *) m->def.version);
	for (int i = 0; i < m->def.nevents; i++) {
		free((char *) m->decls[i].mcv);
		free((char *) m->decls[i].sig);
		free((char *) m->decls[i].desc);
	}
	int total = 0;
	for (int i = 0; i < m->def.nevents; i++)
		total += m->evs[i].nact;
	for (int i = 0; i < total; i++)
		free((char *) m->acts[i].msg);
	for (int i = 0; i < m->nchans; i++) {
		struct mf_chan *c = &m->chans[i];
		free(c->name);
		free(c->tlabel);
		free(c->clabel);
		free(c->each_key);
		free(c->each_field);
		for (int k = 0; k < c->nlabels; k++)
			free(c->labels[k].label);
		free(c->labels);
	}
	free(m->chans);
	free(m->prv.thread);
	free(m->prv.cpu);
	free(m->prv_rows);
	if (m->bd) {
		free(m->bd->label);
		free(m->bd->labels);
		free(m->bd->require);
		for (int i = 0; i < m->bd->nmux; i++) {
			free(m->bd->mux[i].name);
			free(m->bd->mux[i].picks);
		}
		free(m->bd->mux);
		free(m->bd);
	}
	free(m->decls);
	free(m->evs);
	free(m->acts);
	free(m->path);
	free(m);
}

struct mf_model *mf_compile(const char *path, const char *text, struct weft_err *err)
{
	struct parser *p = weft_xcalloc(1, sizeof(*p));
	p->path = path;
	p->err = err;
	struct mf_model *m = p->m = weft_xcalloc(1, sizeof(*m));
	m->prv.breakdown = -1;
	m->path = weft_xstrdup(path);
	m->def.file = m->path;
	m->def.version = NULL;
	const char *s = text;
	int rc = 0;
	while (*s && rc == 0) {
		const char *nl = strchr(s, '\n');
		int n = nl ? (int) (nl - s) : (int) strlen(s);
		p->line++;
		rc = tokenize(p, s, n);
		if (rc == 0 && p->nt)
			rc = statement(p);
		s += n + (nl ? 1 : 0);
	}
	if (rc == 0 && !p->have_model) {
		p->line++;
		p->nt = 0;
		p->eol_col = 1;
		rc = fail(p, 1, "expected %s, found the end of the file",
			  p->have_format ? "'model CHAR NAME VERSION'" : "'weft-model 2'");
	}
	if (rc == 0)
		rc = breakdown_done(p);
	if (rc == 0)
		rc = paraver_done(p);
	if (rc == 0 && m->def.nevents == 0) {
		p->line++; /* the end of the file */
		p->nt = 0;
		rc = fail(p, 1, "expected at least one 'event', found the end of the file");
	}
	if (rc) {
		free(p->ev_first);
		free(p);
		mf_free(m);
		return NULL;
	}
	for (int i = 0; i < m->def.nevents; i++) {
		m->evs[i].act = m->evs[i].nact ? &m->acts[p->ev_first[i]] : NULL;
	}
	m->def.events = m->decls;
	m->def.hooks = &engine_hooks;
	/* the Paraver table, by channel name */
	m->prv_rows = weft_xcalloc(2 * (size_t) m->nchans + 2, sizeof(*m->prv_rows));
	for (int c = 0; c < m->nchans; c++)
		for (int set = 0; set < 2; set++) {
			int32_t t = set ? m->prv.cpu[c] : m->prv.thread[c];
			if (t >= 0)
				m->prv_rows[m->def.nparaver++] = (struct weft_prv_type){m->chans[c].name, set, t};
		}
	if (m->bd)
		m->prv_rows[m->def.nparaver++] = (struct weft_prv_type){"breakdown", 2, m->prv.breakdown};
	m->def.paraver = m->prv_rows;
	free(p->ev_first);
	free(p);
	return m;
}

struct mf_model *mf_load(const char *path, struct weft_err *err)
{
	/* a regular file of bounded size, as every input (not /dev/zero, a FIFO) */
	size_t len;
	char *buf = input_slurp(path, INPUT_TEXT_MAX, "a model file", &len, err);
	if (!buf)
		return NULL;
	if (memchr(buf, '\0', len)) {
		free(buf);
		weft_fail(err, WEFT_EINPUT, "%s: expected a text file, found a NUL byte", path);
		return NULL;
	}
	struct mf_model *m = mf_compile(path, buf, err);
	free(buf);
	return m;
}
