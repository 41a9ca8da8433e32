/* picl_scope: where a -6 data descriptor alias applies (seed §2.3.5; its
 * event type, processor and process fields give its scope: -1 is every
 * one, a value >= 0 that one, a value below -1 a subset), and the subsets
 * themselves: -201 (processors), -202 (processes) and -203 (event types)
 * records, plus the predefined event-type subsets of Table 5. Aliases are
 * looked up newest first, so a later record redefines a code within its
 * scope. */
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"

/* Table 5: predefined subsets of event types, as ranges or lists. */
static const struct {
	int32_t id;
	int32_t lo, hi;         /* lo..hi, both inclusive (lo <= hi) */
	int32_t also[4];        /* or one of these (0 ends) */
} predefined[] = {
	{-1001, 0, INT32_MAX, {0}},      {-1002, INT32_MIN, -2, {0}},
	{-1011, -200, -11, {0}},         {-1012, -50, -21, {0}},
	{-1013, -80, -51, {0}},          {-1014, 1, 0, {-31, -52, -56, -61}},
	{-1201, -400, -201, {0}},        {-1401, -500, -401, {0}},
	{-1501, -600, -501, {0}},        {-1601, -700, -601, {0}},
	{-1901, -1000, -901, {0}},       {-1902, 1, 0, {-911, -912, 0, 0}},
};

static int in_predefined(int64_t id, int64_t v, int *known)
{
	for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++) {
		if (predefined[i].id != id)
			continue;
		*known = 1;
		if (v >= predefined[i].lo && v <= predefined[i].hi)
			return 1;
		for (int k = 0; k < 4 && predefined[i].also[k]; k++)
			if (predefined[i].also[k] == v)
				return 1;
		return 0;
	}
	return 0;
}

/* Does scope value `scope` of kind (0 processor, 1 process, 2 event type)
 * take in `v`? */
static int in_scope(const struct picl *p, int kind, int64_t scope, int64_t v)
{
	if (scope == -1 || scope == v)
		return 1;
	if (scope >= 0)
		return 0;
	for (int i = p->nsubset - 1; i >= 0; i--) {
		const struct picl_subset *s = &p->subset[i];
		if (s->kind != kind || s->id != scope)
			continue;
		for (int k = 0; k < s->n; k++)
			if (s->m[k] == v)
				return 1;
		return 0;
	}
	int known = 0;
	return kind == 2 && in_predefined(scope, v, &known);
}

void picl_alias_add(struct picl *p, int64_t code, const char *ctrl, size_t n, int64_t et, int64_t proc,
		    int64_t process)
{
	if (p->nalias == p->calias) {
		p->calias = p->calias ? 2 * p->calias : 8;
		p->alias = weft_xrealloc(p->alias, (size_t) p->calias * sizeof(*p->alias));
	}
	struct picl_alias *a = &p->alias[p->nalias++];
	a->code = code;
	a->ctrl = weft_xasprintf("%.*s", (int) n, ctrl);
	a->et = et, a->proc = proc, a->process = process;
}

int picl_alias_find(const struct picl *p, int64_t code, int64_t et, int64_t proc, int64_t process,
		    const char **s, size_t *n)
{
	for (int i = p->nalias - 1; i >= 0; i--) {
		const struct picl_alias *a = &p->alias[i];
		if (a->code == code && in_scope(p, 2, a->et, et) && in_scope(p, 0, a->proc, proc) &&
		    in_scope(p, 1, a->process, process)) {
			*s = a->ctrl;
			*n = strlen(a->ctrl);
			return 1;
		}
	}
	return 0;
}

int picl_subset_add(struct picl *p, unsigned line, int64_t rt, int first)
{
	int kind = rt == -201 ? 0 : rt == -202 ? 1 : 2;
	int64_t id;
	if (first >= p->ntk || picl_tok_int(&p->tk[first], INT32_MIN, -2, &id))
		return first >= p->ntk
			       ? weft_fail(p->err, WEFT_EINPUT,
					   "%s:%u: subset record: expected a subset id below -1 and its members, "
					   "found no data", p->path, line)
			       : FIELD_ERR(line, first, "subset id", "an integer below -1");
	if (p->nsubset == p->csubset) {
		p->csubset = p->csubset ? 2 * p->csubset : 8;
		p->subset = weft_xrealloc(p->subset, (size_t) p->csubset * sizeof(*p->subset));
	}
	struct picl_subset *s = &p->subset[p->nsubset];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->id = id;
	s->m = weft_xcalloc((size_t) (p->ntk - first), sizeof(*s->m));
	for (int k = first + 1; k < p->ntk; k++)
		if (picl_tok_int(&p->tk[k], INT32_MIN, INT32_MAX, &s->m[s->n++])) {
			free(s->m);
			return FIELD_ERR(line, k, "subset member", "an integer");
		}
	p->nsubset++;
	return 0;
}

void picl_scope_free(struct picl *p)
{
	for (int i = 0; i < p->nalias; i++)
		free(p->alias[i].ctrl);
	free(p->alias);
	for (int i = 0; i < p->nsubset; i++)
		free(p->subset[i].m);
	free(p->subset);
}
