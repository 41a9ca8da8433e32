/* SPDX-License-Identifier: GPL-3.0-or-later */
/* texts: distinct texts as Paraver values with .pcf labels (texts.h). */
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "util/err.h"
#include "texts.h"

struct text_ent {
	char *s;
	int64_t value;
	UT_hash_handle ht, hv;
};

static struct text_ent *add(struct texts *t, int64_t value, const char *s)
{
	struct text_ent *x = weft_xcalloc(1, sizeof(*x));
	x->s = weft_xasprintf("%s", s);
	x->value = value;
	HASH_ADD_KEYPTR(ht, t->by_text, x->s, strlen(x->s), x);
	HASH_ADD(hv, t->by_value, value, sizeof(x->value), x);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->order = weft_xrealloc(t->order, (size_t) t->cap * sizeof(*t->order));
	}
	t->order[t->n++] = x;
	return x;
}

int64_t texts_id(struct texts *t, const char *s)
{
	struct text_ent *x;
	HASH_FIND(ht, t->by_text, s, strlen(s), x);
	if (x)
		return x->value;
	return add(t, ++t->next, s)->value;
}

int texts_has(const struct texts *t, int64_t value)
{
	struct text_ent *x;
	HASH_FIND(hv, t->by_value, &value, sizeof(value), x);
	return x != NULL;
}

void texts_set(struct texts *t, int64_t value, const char *s)
{
	struct text_ent *x;
	HASH_FIND(hv, t->by_value, &value, sizeof(value), x);
	if (!x) {
		add(t, value, s);
		return;
	}
	if (strcmp(x->s, s) == 0)
		return;
	HASH_DELETE(ht, t->by_text, x);
	free(x->s);
	x->s = weft_xasprintf("%s", s);
	HASH_ADD_KEYPTR(ht, t->by_text, x->s, strlen(x->s), x);
}

const char *texts_nth(const struct texts *t, int i, int64_t *value)
{
	*value = t->order[i]->value;
	return t->order[i]->s;
}

void texts_free(struct texts *t)
{
	HASH_CLEAR(ht, t->by_text);
	HASH_CLEAR(hv, t->by_value);
	for (int i = 0; i < t->n; i++) {
		free(t->order[i]->s);
		free(t->order[i]);
	}
	free(t->order);
	memset(t, 0, sizeof(*t));
}
