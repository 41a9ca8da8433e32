/* SPDX-License-Identifier: GPL-3.0-or-later */
/* keys: matching keys of the msg model (see keys.h): the table of keys with
 * ends waiting (linear probing, removal by backward shift), their FIFO
 * rings, and the set of keys seen with their first-seen order. */
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "emu/keys.h"

/* ---- keys seen ------------------------------------------------------------- */

static void seen_put(struct seenkey *v, uint32_t bits, const struct seenkey *s)
{
	uint64_t mask = ((uint64_t) 1 << bits) - 1;
	uint64_t j = key_hash(s->src, s->dst, s->tag) & mask;
	while (v[j].order)
		j = (j + 1) & mask;
	v[j] = *s;
}

static void seen_grow(struct keytab *t)
{
	uint32_t bits = t->seen ? t->sbits + 1 : 12;
	struct seenkey *v = weft_xcalloc((size_t) 1 << bits, sizeof(*v));
	for (size_t i = 0; t->seen && i < (size_t) 1 << t->sbits; i++)
		if (t->seen[i].order)
			seen_put(v, bits, &t->seen[i]);
	free(t->seen);
	t->seen = v;
	t->sbits = bits;
}

static struct seenkey *seen_find(struct keytab *t, const int32_t *k, uint64_t h)
{
	uint64_t mask = ((uint64_t) 1 << t->sbits) - 1;
	for (uint64_t j = h & mask;; j = (j + 1) & mask) {
		struct seenkey *s = &t->seen[j];
		if (!s->order || (s->src == k[0] && s->dst == k[1] && s->tag == k[2]))
			return s;
	}
}

/* The logged keys into the set, in log order (the first time a key is
 * logged gives its order). Their lines are fetched first, together. */
void keytab_log_flush(struct keytab *t)
{
	uint64_t h[KEY_LOG];
	if (!t->seen || 2 * ((size_t) t->nseen + (size_t) t->nlog) > (size_t) 1 << t->sbits)
		seen_grow(t);
	uint64_t mask = ((uint64_t) 1 << t->sbits) - 1;
	for (int i = 0; i < t->nlog; i++) {
		h[i] = key_hash(t->log[i][0], t->log[i][1], t->log[i][2]);
		__builtin_prefetch(&t->seen[h[i] & mask]);
	}
	for (int i = 0; i < t->nlog; i++) {
		struct seenkey *s = seen_find(t, t->log[i], h[i]);
		if (!s->order)
			*s = (struct seenkey){t->log[i][0], t->log[i][1], t->log[i][2], ++t->nseen};
	}
	t->nlog = 0;
}

/* ---- keys with ends waiting ------------------------------------------------ */

static struct key *key_array(uint32_t bits, void **mem)
{
	size_t n = (size_t) 1 << bits;
	char *m = weft_xcalloc(1, n * sizeof(struct key) + 64);
	*mem = m;
	return (struct key *) (m + (64 - (uintptr_t) m % 64) % 64);
}

static void grow_table(struct keytab *t)
{
	uint32_t bits = t->key ? t->bits + 1 : 8;
	void *mem;
	struct key *nk = key_array(bits, &mem);
	uint64_t mask = ((uint64_t) 1 << bits) - 1;
	for (size_t i = 0; t->key && i < (size_t) 1 << t->bits; i++) {
		struct key *k = &t->key[i];
		if (!k->n) {
			free(k->ring);
			continue;
		}
		uint64_t j = key_hash(k->src, k->dst, k->tag) & mask;
		while (nk[j].n)
			j = (j + 1) & mask;
		nk[j] = *k;
	}
	free(t->keymem);
	t->keymem = mem;
	t->key = nk;
	t->bits = bits;
}

void keytab_insert(struct keytab *t, int32_t src, int32_t dst, int32_t tag, int dir, const struct pend *p)
{
	grow_table(t);
	uint64_t mask = ((uint64_t) 1 << t->bits) - 1;
	uint64_t j = key_hash(src, dst, tag) & mask;
	while (t->key[j].n)
		j = (j + 1) & mask;
	t->hint = (uint32_t) j;
	keytab_push(t, NULL, src, dst, tag, dir, p);
}

void keytab_remove(struct keytab *t, struct key *k)
{
	uint64_t mask = ((uint64_t) 1 << t->bits) - 1;
	uint64_t i = (uint64_t) (k - t->key);
	/* backward shift: move up every entry that the hole would cut off
	 * from its home slot; the hole ends at a free entry. Entries are
	 * swapped, so the rings of free entries stay owned by the table */
	for (uint64_t j = (i + 1) & mask; t->key[j].n; j = (j + 1) & mask) {
		const struct key *e = &t->key[j];
		uint64_t home = key_hash(e->src, e->dst, e->tag) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			struct key tmp = t->key[i];
			t->key[i] = t->key[j];
			t->key[j] = tmp;
			i = j;
		}
	}
	t->key[i].n = 0;
	t->n--;
}

void key_push_slow(struct key *k, const struct pend *p)
{
	uint32_t inring = k->n - 1;
	if (inring == k->cap) {
		uint32_t nc = k->cap ? 2 * k->cap : 4;
		struct pend *v = weft_xmalloc((size_t) nc * sizeof(*v));
		for (uint32_t i = 0; i < inring; i++)
			v[i] = k->ring[(k->head + i) % k->cap];
		free(k->ring);
		k->ring = v;
		k->head = 0;
		k->cap = nc;
	}
	k->ring[(k->head + inring) % k->cap] = *p;
	k->n++;
}

/* ---- the end ---------------------------------------------------------------- */

struct ordered {
	uint32_t order;
	struct key *k;
};

static int cmp_order(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	return x->order < y->order ? -1 : x->order > y->order;
}

size_t keytab_waiting(struct keytab *t, struct key ***out)
{
	keytab_log_flush(t);
	struct ordered *v = weft_xcalloc(t->n + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; t->key && i < (size_t) 1 << t->bits; i++) {
		struct key *k = &t->key[i];
		if (!k->n)
			continue;
		int32_t id[3] = {k->src, k->dst, k->tag};
		v[n].order = seen_find(t, id, key_hash(k->src, k->dst, k->tag))->order;
		v[n++].k = k;
	}
	qsort(v, n, sizeof(*v), cmp_order);
	struct key **r = weft_xcalloc(n + 1, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i] = v[i].k;
	free(v);
	*out = r;
	return n;
}

void keytab_free(struct keytab *t)
{
	for (size_t i = 0; t->key && i < (size_t) 1 << t->bits; i++)
		free(t->key[i].ring);
	free(t->keymem);
	free(t->seen);
	memset(t, 0, sizeof(*t));
}
