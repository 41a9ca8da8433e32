/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_pcf: the .pcf of a trace, line by line: its sections (DEFAULT_OPTIONS,
 * DEFAULT_SEMANTIC, STATES, STATES_COLOR, EVENT_TYPE with VALUES, GRADIENT_*)
 * parse as paraver-kernel reads them, and labels that the reader would drop
 * (values outside int32) or that repeat are reported. The labels are kept in
 * hash sets; once the body is read, every event type, every non-zero value of
 * a type with a VALUES list and every state the body used should have one:
 * a state without is an error, a type or value without a warning (Paraver
 * shows them by number; ovniemu's cpu.prv leaves types 1-3 unlabelled). */
#include <stdlib.h>
#include <string.h>

#include "check/check_int.h"
#include "util/err.h"
#include "util/macros.h"

enum psec { S_NONE, S_OPTIONS, S_SEMANTIC, S_STATES, S_COLORS, S_TYPES, S_VALUES, S_GRADIENT };

struct pcfblock {
	uint64_t line;        /* the EVENT_TYPE keyword's line */
	uint32_t *types;
	size_t ntypes, cap;
	size_t nlines;        /* lines in the block, well formed or not */
	size_t nvalues;
};

/* "<int> <label>": the value, with the label non-empty. */
static int value_label(const char *p, const char *e, int64_t *v, int *big)
{
	if (chk_txt_int(&p, e, 1, v, big))
		return -1;
	if (p >= e || !chk_blank(*p))
		return -1;
	p = chk_skip_blanks(p, e);
	return p < e ? 0 : -1;
}

static int color_line(const char *p, const char *e, int64_t *v, int *big)
{
	if (chk_txt_int(&p, e, 1, v, big))
		return -1;
	p = chk_skip_blanks(p, e);
	if (p >= e || *p != '{')
		return -1;
	p++;
	for (int i = 0; i < 3; i++) {
		int64_t comp;
		int b2;
		p = chk_skip_blanks(p, e);
		if (chk_txt_int(&p, e, 0, &comp, &b2) || comp > 255)
			return -1;
		p = chk_skip_blanks(p, e);
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

/* A section keyword alone on its line: ends the EVENT_TYPE block before it
 * and starts a section. Returns 1 when the line was one. */
static int pcf_keyword(struct prvchk *c, struct pcfblock *b, enum psec *sec, uint64_t ln, const char *p,
		       size_t n)
{
	static const struct {
		const char *kw;
		enum psec sec;
	} kws[] = {
		{"DEFAULT_OPTIONS", S_OPTIONS}, {"DEFAULT_SEMANTIC", S_SEMANTIC}, {"STATES", S_STATES},
		{"STATES_COLOR", S_COLORS},     {"EVENT_TYPE", S_TYPES},         {"GRADIENT_COLOR", S_GRADIENT},
		{"GRADIENT_NAMES", S_GRADIENT},
	};
	for (size_t i = 0; i < ARRAY_SIZE(kws); i++) {
		if (strlen(kws[i].kw) == n && memcmp(kws[i].kw, p, n) == 0) {
			pcf_end_block(c, b);
			*sec = kws[i].sec;
			if (*sec == S_TYPES)
				b->line = ln;
			return 1;
		}
	}
	return 0;
}

/* VALUES: allowed once per EVENT_TYPE block, after its type lines. */
static void pcf_values_kw(struct prvchk *c, const struct pcfblock *b, enum psec *sec, uint64_t ln)
{
	if (*sec == S_TYPES && b->ntypes > 0)
		*sec = S_VALUES;
	else if (*sec == S_TYPES)
		ERR(c, c->pcfname, ln, "VALUES before any type line of its EVENT_TYPE block; expected "
				       "'<n> <type> <label>' lines first");
	else if (*sec == S_VALUES)
		ERR(c, c->pcfname, ln, "a second VALUES line in one EVENT_TYPE block");
	else
		ERR(c, c->pcfname, ln, "VALUES outside an EVENT_TYPE block");
}

/* "KEY value" in DEFAULT_OPTIONS or DEFAULT_SEMANTIC. */
static void pcf_option(struct prvchk *c, enum psec sec, uint64_t ln, const char *p, const char *e)
{
	char q[4 * QUOTE_MAX + 8];
	const char *s = p;
	while (s < e && !chk_blank(*s))
		s++;
	if (s == e)
		ERR(c, c->pcfname, ln, "expected 'KEY value' in %s, found %s",
		    sec == S_OPTIONS ? "DEFAULT_OPTIONS" : "DEFAULT_SEMANTIC",
		    chk_quote(q, p, (size_t) (e - p), QUOTE_MAX));
}

/* "<number> <label>": the number in *v, or an error naming `what` (out of
 * range) or the line's expected `shape`; returns 0 or -1. */
static int labelled_value(struct prvchk *c, uint64_t ln, const char *p, const char *e, const char *what,
			  const char *shape, int64_t *v)
{
	char q[4 * QUOTE_MAX + 8];
	size_t n = (size_t) (e - p);
	int big;
	if (!value_label(p, e, v, &big))
		return 0;
	if (big)
		ERR(c, c->pcfname, ln, "%s out of range in %s; expected an int32", what, chk_quote(q, p, n, QUOTE_MAX));
	else
		ERR(c, c->pcfname, ln, "expected %s, found %s", shape, chk_quote(q, p, n, QUOTE_MAX));
	return -1;
}

/* "<state value> <label>" in STATES. */
static void pcf_state(struct prvchk *c, uint64_t ln, const char *p, const char *e)
{
	int64_t v;
	int added;
	if (labelled_value(c, ln, p, e, "state value", "'<state value> <label>' in STATES", &v))
		return;
	if (v < INT32_MIN || v > INT32_MAX) {
		ERR(c, c->pcfname, ln, "state value %lld is outside int32; the reader (stoi) drops this label",
		    (long long) v);
		return;
	}
	struct hent *h = chk_hs_add(&c->slabel, (uint64_t) v, 0, ln, &added);
	if (!added)
		WARN(c, c->pcfname, ln, "state %lld labelled again (first at line %llu)", (long long) v,
		     (unsigned long long) h->line);
}

/* "<state value> {r,g,b}" in STATES_COLOR. */
static void pcf_color(struct prvchk *c, uint64_t ln, const char *p, const char *e)
{
	char q[4 * QUOTE_MAX + 8];
	int64_t v;
	int big, added;
	if (color_line(p, e, &v, &big) || v < INT32_MIN || v > INT32_MAX) {
		ERR(c, c->pcfname, ln,
		    "expected '<state value> {r,g,b}' with an int32 value and components 0..255 in "
		    "STATES_COLOR, found %s",
		    chk_quote(q, p, (size_t) (e - p), QUOTE_MAX));
		return;
	}
	chk_hs_add(&c->scolor, (uint64_t) v, 0, ln, &added);
}

/* "<n> <type> <label>" in an EVENT_TYPE block: the type joins the block. */
static void pcf_type(struct prvchk *c, struct pcfblock *b, uint64_t ln, const char *p, const char *e)
{
	char q[4 * QUOTE_MAX + 8];
	const char *r = p;
	int64_t k, type;
	int big, added;
	if (chk_txt_int(&r, e, 0, &k, &big) || r >= e || !chk_blank(*r))
		goto bad_type;
	r = chk_skip_blanks(r, e);
	if (chk_txt_int(&r, e, 0, &type, &big) || r >= e || !chk_blank(*r))
		goto bad_type;
	if (type > UINT32_MAX) {
		ERR(c, c->pcfname, ln, "event type %lld is outside uint32; expected 0..4294967295",
		    (long long) type);
		return;
	}
	r = chk_skip_blanks(r, e);
	if (r >= e)
		goto bad_type;
	struct hent *h = chk_hs_add(&c->types, (uint64_t) type, 0, ln, &added);
	if (!added)
		WARN(c, c->pcfname, ln, "event type %lld labelled again (first at line %llu)", (long long) type,
		     (unsigned long long) h->line);
	b->types = chk_grow(b->types, &b->cap, b->ntypes + 1, sizeof(uint32_t));
	b->types[b->ntypes++] = (uint32_t) type;
	return;
bad_type:
	ERR(c, c->pcfname, ln, "expected '<n> <type> <label>' in an EVENT_TYPE block, found %s",
	    chk_quote(q, p, (size_t) (e - p), QUOTE_MAX));
}

/* "<value> <label>" after VALUES: a label for every type of the block. */
static void pcf_value(struct prvchk *c, struct pcfblock *b, uint64_t ln, const char *p, const char *e)
{
	int64_t v;
	int added;
	if (labelled_value(c, ln, p, e, "value", "'<value> <label>' after VALUES", &v))
		return;
	if (v < INT32_MIN || v > INT32_MAX) {
		ERR(c, c->pcfname, ln,
		    "value %lld is outside int32; the reader (stoi) drops this label (event values may be "
		    "int64, their labels may not)",
		    (long long) v);
		return;
	}
	for (size_t i = 0; i < b->ntypes; i++) {
		struct hent *h = chk_hs_add(&c->values, b->types[i], (uint64_t) v, ln, &added);
		if (!added && i == 0)
			WARN(c, c->pcfname, ln, "value %lld labelled again for type %u (first at line %llu)",
			     (long long) v, b->types[i], (unsigned long long) h->line);
		struct hent *t = hs_find(&c->types, b->types[i], 0);
		if (t)
			t->flags |= HAS_VALUES;
	}
	b->nvalues++;
}

/* One non-blank, non-comment line [p, e) of the .pcf, trimmed. */
static void pcf_line(struct prvchk *c, struct pcfblock *b, enum psec *sec, uint64_t ln, const char *p,
		     const char *e)
{
	char q[4 * QUOTE_MAX + 8];
	size_t n = (size_t) (e - p);
	int64_t v;
	int big;

	if (pcf_keyword(c, b, sec, ln, p, n))
		return;
	if (*sec == S_TYPES || *sec == S_VALUES)
		b->nlines++;
	if (n == 6 && memcmp(p, "VALUES", 6) == 0) {
		pcf_values_kw(c, b, sec, ln);
		return;
	}
	if ((*sec == S_TYPES || *sec == S_VALUES) && n > 9 && memcmp(p, "PRECISION", 9) == 0 &&
	    chk_blank(p[9])) {
		const char *r = chk_skip_blanks(p + 9, e);
		if (chk_txt_int(&r, e, 0, &v, &big) || r != e)
			ERR(c, c->pcfname, ln, "expected 'PRECISION <n>', found %s", chk_quote(q, p, n, QUOTE_MAX));
		return;
	}

	switch (*sec) {
	case S_NONE:
		ERR(c, c->pcfname, ln,
		    "expected a section keyword (DEFAULT_OPTIONS, DEFAULT_SEMANTIC, STATES, STATES_COLOR, "
		    "EVENT_TYPE), found %s",
		    chk_quote(q, p, n, QUOTE_MAX));
		break;
	case S_OPTIONS:
	case S_SEMANTIC:
		pcf_option(c, *sec, ln, p, e);
		break;
	case S_STATES:
		pcf_state(c, ln, p, e);
		break;
	case S_COLORS:
		pcf_color(c, ln, p, e);
		break;
	case S_TYPES:
		pcf_type(c, b, ln, p, e);
		break;
	case S_VALUES:
		pcf_value(c, b, ln, p, e);
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
		const char *s = chk_skip_blanks(p, e);
		const char *t = e;
		while (t > s && chk_blank(t[-1]))
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

/* ---- the labels the body used --------------------------------------------- */

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

void chk_check_labels(struct prvchk *c)
{
	struct hent **v = sorted(&c->miss_types);
	/* Paraver shows an unlabelled type or value by its number, and
	 * ovniemu leaves some unlabelled (cpu.prv's types 1-3): warnings */
	for (size_t i = 0; i < c->miss_types.n; i++)
		WARN(c, c->name, v[i]->line,
		     "event type %llu (first used here) has no label in %s; expected a line '<n> %llu <label>' in "
		     "an EVENT_TYPE block",
		     (unsigned long long) v[i]->k1, c->pcfname, (unsigned long long) v[i]->k1);
	free(v);
	/* a value its type's VALUES list leaves out is legal (ovni's marks
	 * label some values, or none): Paraver shows its number */
	v = sorted(&c->miss_values);
	for (size_t i = 0; i < c->miss_values.n; i++)
		WARN(c, c->name, v[i]->line,
		     "value %lld of event type %llu (first used here) has no label in %s: Paraver shows its "
		     "number (a '%lld <label>' line in the VALUES list of the type's EVENT_TYPE block names it)",
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
		WARN(c, c->name, 0,
		     "more than %u distinct unlabelled event types, values or states: %llu more not listed", MAX_TRACK,
		     (unsigned long long) c->dropped);
}

