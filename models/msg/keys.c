/* keys: matching keys of the msg model (see keys.h): an index of linear
 * probing slots over a 64-byte aligned array of keys, and the FIFO rings of
 * keys with more than one end waiting. */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "keys.h"

static void index_put(uint64_t *slot, uint32_t bits, uint64_t h, uint32_t pos)
{
	uint64_t mask = ((uint64_t) 1 << bits) - 1;
	uint64_t j = h & mask;
	while (slot[j])
		j = (j + 1) & mask;
	slot[j] = h >> 32 << 32 | ((uint64_t) pos + 1);
}

static void grow_index(struct keytab *t)
{
	uint32_t bits = t->slot ? t->bits + 1 : 10;
	uint64_t *ns = weft_xcalloc((size_t) 1 << bits, sizeof(*ns));
	for (size_t i = 0; i < t->n; i++) {
		const struct key *k = &t->key[i];
		index_put(ns, bits, key_hash(k->src, k->dst, k->tag), (uint32_t) i);
	}
	free(t->slot);
	t->slot = ns;
	t->bits = bits;
}

/* The key array, on a cache-line boundary (one line per key). */
static void grow_keys(struct keytab *t)
{
	size_t ncap = t->cap ? 2 * t->cap : 256;
	char *mem = weft_xmalloc(ncap * sizeof(struct key) + 64);
	struct key *nk = (struct key *) (mem + (64 - (uintptr_t) mem % 64) % 64);
	if (t->n)
		memcpy(nk, t->key, t->n * sizeof(*nk));
	free(t->keymem);
	t->keymem = mem;
	t->key = nk;
	t->cap = ncap;
}

struct key *keytab_add(struct keytab *t, int32_t src, int32_t dst, int32_t tag, uint64_t h)
{
	if (!t->slot || 2 * (t->n + 1) > ((size_t) 1 << t->bits))
		grow_index(t);
	if (t->n == t->cap)
		grow_keys(t);
	struct key *k = &t->key[t->n];
	memset(k, 0, sizeof(*k));
	k->src = src, k->dst = dst, k->tag = tag;
	index_put(t->slot, t->bits, h, (uint32_t) t->n);
	t->n++;
	return k;
}

void keytab_free(struct keytab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->key[i].ring);
	free(t->keymem);
	free(t->slot);
	memset(t, 0, sizeof(*t));
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
