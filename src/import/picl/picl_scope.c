/* SPDX-License-Identifier: GPL-3.0-or-later */
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
#include "import/picl/picl_sets.h"

/* Does scope value `scope` of kind (0 processor, 1 process, 2 event type)
 * take in `v`? */
int picl_in_scope(const struct picl *p, int kind, int64_t scope, int64_t v)
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
	const struct picl_predef *d = kind == 2 ? picl_predef_of(scope) : NULL;
	return d && picl_predef_has(d, v);
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
		if (a->code == code && picl_in_scope(p, 2, a->et, et) && picl_in_scope(p, 0, a->proc, proc) &&
		    picl_in_scope(p, 1, a->process, process)) {
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
