/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_new: new-format records (ORNL/TM-12125; doc/formats/legacy.md §2.4). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"

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
static int stat_line(struct picl *p, unsigned line, int64_t rt, int64_t ctx, int64_t t, int64_t proc, int64_t process,
		     int chars, int first)
{
	if (chars) {
		picl_warn(p, line, "statistics record with character data: skipped", NULL);
		return 0;
	}
	if (ctx < INT16_MIN || ctx > INT16_MAX) {
		picl_warn(p, line, "statistics relative to an event type beyond -32768..32767: skipped", NULL);
		return 0;
	}
	/* processor -1 (or a subset): stated for several rows, compared with
	 * their sum */
	int32_t pr = PICL_ALL;
	if (proc >= 0 && new_proc(p, line, proc, &pr))
		return -1;
	if ((p->ntk - first) % 2)
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: statistics record: expected pairs of event type and value, found %d tokens",
				 p->path, line, p->ntk - first);
	for (int k = first; k + 1 < p->ntk; k += 2) {
		int64_t type, v;
		if (picl_tok_int(&p->tk[k], INT32_MIN, INT32_MAX, &type))
			return FIELD_ERR(line, k, "event type of a statistic", "an integer");
		int digits = 0;
		if (rt == -101) {
			if (picl_tok_seconds(&p->tk[k + 1], &v))
				return FIELD_ERR(line, k + 1, "cumulative time", "decimal seconds");
			digits = picl_tok_decimals(&p->tk[k + 1]);
		} else if (picl_tok_int(&p->tk[k + 1], INT64_MIN / 2, INT64_MAX / 2, &v)) {
			return FIELD_ERR(line, k + 1, rt == -102 ? "count" : "volume", "an integer");
		}
		if (v < 0)
			continue; /* -1: not measured */
		p->has_stats = 1;
		struct orec *o = picl_add(p);
		o->t = t;
		o->line = line;
		o->seq = 3;
		o->proc = pr;
		o->d = (int32_t) proc; /* the scope of a record of several processors */
		o->process = (int32_t) process;
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

/* A record weft keeps beside the timeline (K_TEXT, K_SUBSET; `a` its
 * datum): on its processor's stream, or on every stream when its
 * processor id is global (-1 or below). */
static struct orec *kept_record(struct picl *p, unsigned line, int kind, int64_t t, int64_t proc, int64_t et,
				 int32_t a)
{
	int32_t pr = PICL_ALL;
	if (proc >= 0 && new_proc(p, line, proc, &pr))
		return NULL;
	struct orec *o = picl_add(p);
	o->t = t;
	o->line = line;
	o->proc = pr;
	o->kind = (uint8_t) kind;
	o->type = (int32_t) et;
	o->a = a;
	o->b = o->c = 0;
	return o;
}

/* One new-format line's fixed fields and the shape of its data. */
struct nline {
	int64_t rt, et, t, proc, process, nd;
	int per;   /* tokens a data field takes */
	int chars; /* the data is character data */
	int first; /* the token its data starts at */
};

/* The six fixed fields: record type, event type, timestamp, processor,
 * process, number of data fields. */
static int read_fixed(struct picl *p, unsigned line, struct nline *l)
{
	if (p->ntk < 6) {
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: record of %d fields: expected at least 6 (record type, event type, "
				 "timestamp, processor, process, number of data fields)",
				 p->path, line, p->ntk);
	}
	if (picl_tok_int(&p->tk[0], INT32_MIN, INT32_MAX, &l->rt))
		return FIELD_ERR(line, 0, "record type", "an integer");
	if (picl_tok_int(&p->tk[1], INT32_MIN, INT32_MAX, &l->et))
		return FIELD_ERR(line, 1, "event type", "an integer");
	if (picl_tok_seconds(&p->tk[2], &l->t))
		return FIELD_ERR(line, 2, "timestamp", "decimal seconds");
	int td = picl_tok_decimals(&p->tk[2]);
	if (td > p->ts_digits)
		p->ts_digits = td;
	if (picl_tok_int(&p->tk[3], INT32_MIN, INT32_MAX, &l->proc))
		return FIELD_ERR(line, 3, "processor id", "an integer");
	if (picl_tok_int(&p->tk[4], INT32_MIN, INT32_MAX, &l->process))
		return FIELD_ERR(line, 4, "process id", "an integer");
	if (picl_tok_int(&p->tk[5], 0, 1000000, &l->nd))
		return FIELD_ERR(line, 5, "number of data fields", "an integer >= 0");
	l->per = 1, l->chars = 0, l->first = 6;
	return 0;
}

/* The data descriptor of a line with data fields (its code, alias or
 * control string) and the data's token count. Returns 0, 1 when the line
 * was a descriptor record (-6, taken whole), or -1 with the error. */
static int read_data(struct picl *p, unsigned line, struct nline *l)
{
	if (p->ntk < 7)
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: field 7 (data descriptor): expected a code or a quoted control "
				 "string for %lld data fields, found the end of the line",
				 p->path, line, (long long) l->nd);
	const struct tok *d = &p->tk[6];
	const char *cs = NULL;
	size_t cn = 0;
	int64_t code;
	if (d->p[0] == '"') {
		cs = d->p + 1, cn = d->n - 2;
	} else if (picl_tok_int(d, INT32_MIN, INT32_MAX, &code)) {
		return FIELD_ERR(line, 6, "data descriptor", "an integer code or a quoted control string");
	} else if (!picl_alias_find(p, code, l->et, l->proc, l->process, &cs, &cn)) {
		if (code == 0 || code == 1)
			l->chars = 1;
		else if (code < 0 || code > 5) {
			picl_warn(p, line, "unknown data descriptor code: data kept as raw tokens", NULL);
			l->chars = 1;
		}
	}
	if (cs) {
		int k = ctrl_tokens(cs, cn);
		if (k < 0)
			return FIELD_ERR(line, 6, "data descriptor", "a control string with conversions");
		if (k == 0)
			l->chars = 1;
		else
			l->per = k;
	}
	l->first = 7;
	if (l->rt == -6) {
		/* descriptor: an integer code and a quoted control string */
		int64_t c;
		if (p->ntk != 9 || picl_tok_int(&p->tk[7], INT32_MIN, INT32_MAX, &c) || p->tk[8].p[0] != '"')
			return weft_fail(p->err, WEFT_EINPUT,
					 "%s:%u: descriptor record: expected a code and a quoted control "
					 "string as data",
					 p->path, line);
		picl_alias_add(p, c, p->tk[8].p + 1, p->tk[8].n - 2, l->et, l->proc, l->process);
		return 1;
	}
	if (!l->chars && p->ntk - l->first != l->nd * l->per)
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: data: expected %lld tokens (%lld fields of %d), found %d", p->path,
				 line, (long long) (l->nd * l->per), (long long) l->nd, l->per, p->ntk - l->first);
	if (l->chars && p->ntk == l->first)
		return weft_fail(p->err, WEFT_EINPUT, "%s:%u: data: expected character data, found "
				 "the end of the line", p->path, line);
	return 0;
}

/* The data as one text: from token `first` to the end of the line, its
 * quotes dropped. */
static void quoted_data(const struct picl *p, int first, const char **ps, size_t *pn)
{
	const char *s = p->tk[first].p, *e = p->tk[p->ntk - 1].p + p->tk[p->ntk - 1].n;
	if (*s == '"' && e > s + 1 && e[-1] == '"')
		s++, e--;
	*ps = s;
	*pn = (size_t) (e - s);
}

/* The system records weft keeps beside the timeline or reads for itself
 * (-5 labels, -7 text, statistics, subsets) and those it skips. Returns 1
 * when the line is an event record (not taken here), else 0 or -1. */
static int system_line(struct picl *p, unsigned line, const struct nline *l)
{
	int64_t rt = l->rt, nd = l->nd;
	int chars = l->chars, first = l->first;
	const char *s;
	size_t n;
	if (rt == -5) {
		if (nd > 0) {
			quoted_data(p, first, &s, &n);
			picl_label_rec(p, l->et, l->proc, l->process, s, n);
		}
		return 0;
	}
	if (rt <= -101 && rt >= -103)
		return stat_line(p, line, rt, l->et, l->t, l->proc, l->process, chars, first);
	if (rt >= -203 && rt <= -201 && !chars) {
		if (picl_subset_add(p, line, rt, first))
			return -1;
		return kept_record(p, line, K_SUBSET, l->t, l->proc, l->et, p->nsubset - 1) ? 0 : -1;
	}
	if (rt >= -203 && rt <= -201)
		return chars ? (picl_warn(p, line, "subset record with character data: skipped", NULL), 0)
			     : picl_subset_add(p, line, rt, first);
	if (rt == -7) {
		if (nd == 0)
			return 0; /* an empty message */
		struct orec *o = kept_record(p, line, K_TEXT, l->t, l->proc, l->et, 0);
		if (!o)
			return -1;
		picl_data_text(p, first, &s, &n);
		picl_set_off(o, picl_text_add(p, NULL, 0, s, n));
		return 0;
	}
	if (rt <= -101)
		return 0;
	if (rt != -2 && rt != -3 && rt != -4 && rt < 0) {
		picl_warn(p, line, "unknown system record type: skipped", NULL);
		return 0;
	}
	return 1;
}

/* How the data of a mark splits into its entry's and its exit's (seed
 * §2.3.3: "the data fields for an event mark record are the data fields for
 * the corresponding event entry record followed by the data fields for the
 * event exit record"), by call: the (entry, exit) counts its Tables 7-8
 * allow (the full ones, and those "the next version of PICL" writes), in
 * the order tried. */
static const struct {
	int16_t type;
	int8_t split[4][2];
} mark_split[] = {
	{-21, {{4, 0}, {3, 0}}},
	{-27, {{4, 1}, {3, 1}}},
	{-28, {{1, 0}}},
	{-30, {{1, 0}}},
	{-31, {{1, 0}}},
	{-51, {{3, 4}, {1, 4}, {3, 3}, {1, 3}}},
	{-52, {{3, 4}, {1, 4}, {3, 3}, {1, 3}}},
	{-56, {{3, 4}, {1, 4}, {3, 3}, {1, 3}}},
	{-57, {{3, 1}, {1, 1}}},
	{-58, {{1, 4}, {1, 3}}},
	{-60, {{1, 4}, {1, 3}}},
	{-61, {{1, 4}, {1, 3}}},
};

/* A mark of a call (picl_call_mark): its values, split into the entry's and
 * the exit's, as the message or request they give (struct orec, K_MARK
 * 'm'). A count no split gives is read as the entry's data first (the
 * exit's dropped, or cut short; extra values are left). */
static void call_mark(struct picl *p, unsigned line, struct orec *o, int first)
{
	int32_t v[8];
	int nv = p->ntk - first;
	for (int k = 0; k < 8; k++) {
		int64_t x;
		v[k] = k < nv && picl_tok_int(&p->tk[first + k], INT32_MIN, INT32_MAX, &x) == 0 ? (int32_t) x : -1;
	}
	size_t i = 0;
	while (mark_split[i].type != o->type)
		i++;
	int en = mark_split[i].split[0][0], ex = mark_split[i].split[0][1];
	int k = 0;
	for (; k < 4 && mark_split[i].split[k][0]; k++)
		if (mark_split[i].split[k][0] + mark_split[i].split[k][1] == nv)
			break;
	if (k < 4 && mark_split[i].split[k][0]) {
		en = mark_split[i].split[k][0], ex = mark_split[i].split[k][1];
	} else {
		if (nv > en + ex)
			picl_warn(p, line,
				  "mark of a call with more data values than its entry and exit have: the "
				  "extra ones are left",
				  NULL);
		if (nv < en)
			en = nv;
		ex = nv - en < ex ? nv - en : ex;
	}
	const int32_t *x = v + en; /* the exit's */
	int32_t at = o->type;
	o->sub = 'm';
	o->a = o->b = o->c = o->d = o->e = -1;
	if (at == -21 || at == -27) { /* entry: length, type, destination processor and process */
		o->a = v[0], o->b = en > 1 ? v[1] : -1, o->c = en > 2 ? v[2] : -1, o->d = en > 3 ? v[3] : -1;
		o->e = at == -27 && ex ? x[0] : -1;
	} else if (at == -28 || at == -30 || at == -31) { /* entry: the send request id */
		o->e = en ? v[0] : -1;
	} else if (at == -57) { /* exit: the receive request id */
		o->e = ex ? x[0] : -1;
	} else { /* exit: length, type, source processor and process */
		o->a = ex > 0 ? x[0] : -1, o->b = ex > 1 ? x[1] : -1, o->c = ex > 2 ? x[2] : -1;
		o->d = ex > 3 ? x[3] : -1;
		o->e = at <= -58 && en ? v[0] : -1; /* -58, -60, -61: the request completed */
	}
}

/* An event record (user events, -2/-3/-4): one record of the processor. */
static int event_line(struct picl *p, unsigned line, const struct nline *l)
{
	int64_t rt = l->rt;
	int chars = l->chars, first = l->first;
	int32_t pr = PICL_ALL;
	/* a user record of processor -1 or below (a header record, seed §2.4)
	 * applies to every processor */
	if (l->proc < 0 && rt < 0) {
		picl_warn(p, line, "event record of a global processor id (-1 or below): skipped", NULL);
		return 0;
	}
	if (l->proc >= 0 && new_proc(p, line, l->proc, &pr))
		return -1;
	struct orec *o = picl_add(p);
	o->t = l->t;
	o->line = line;
	o->proc = pr;
	o->process = (int32_t) l->process;
	o->type = (int32_t) l->et;
	o->a = o->b = o->c = -1;
	int32_t *dv[4] = {&o->a, &o->b, &o->c, &o->d};
	for (int k = 0; k < 4 && !chars && first + k < p->ntk; k++) {
		int64_t v;
		if (picl_tok_int(&p->tk[first + k], INT32_MIN, INT32_MAX, &v) == 0)
			*dv[k] = (int32_t) v;
	}
	picl_set_kind(p, o, rt);
	if (rt == -2 && picl_call_mark(o->type) && !chars)
		call_mark(p, line, o, first);
	const char *s;
	size_t n;
	if (o->kind == K_USER && l->nd > 0) { /* its data: the text, and the first field as a number */
		int64_t v = PICL_NO_VALUE;
		if (chars || picl_tok_seconds(&p->tk[first], &v))
			v = PICL_NO_VALUE;
		picl_data_text(p, first, &s, &n);
		o->sub = 'd';
		picl_set_off(o, picl_text_add(p, &v, sizeof(v), s, n));
	}
	if (o->kind != K_USER && o->type == -201 && rt != -4 && chars) { /* the name of the file opened */
		quoted_data(p, first, &s, &n);
		o->a = picl_file_id(p, s, n);
	}
	return 0;
}

int picl_new_line(struct picl *p, unsigned line)
{
	struct nline l;
	if (read_fixed(p, line, &l))
		return -1;
	if (l.nd > 0) {
		int rc = read_data(p, line, &l);
		if (rc)
			return rc > 0 ? 0 : -1;
	} else if (p->ntk != 6) {
		return weft_fail(p->err, WEFT_EINPUT,
				 "%s:%u: field 7: expected the end of the line (0 data fields), found '%.*s'",
				 p->path, line, (int) (p->tk[6].n > 40 ? 40 : p->tk[6].n), p->tk[6].p);
	}
	int rc = system_line(p, line, &l);
	return rc > 0 ? event_line(p, line, &l) : rc;
}
