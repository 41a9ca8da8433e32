/* keys: matching keys of the msg model in an open-addressing table (linear
 * probing, at most half full) and their FIFOs as ring buffers. */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "keys.h"

static uint64_t key_hash(int32_t src, int32_t dst, int32_t tag)
{
	uint64_t z = (uint64_t) (uint32_t) src << 32 ^ (uint64_t) (uint32_t) dst;
	z ^= (uint64_t) (uint32_t) tag * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void grow(struct keytab *t)
{
	size_t ncap = t->cap ? 2 * t->cap : 1024;
	struct keyslot *ns = weft_xcalloc(ncap, sizeof(*ns));
	for (size_t i = 0; i < t->cap; i++) {
		const struct keyslot *o = &t->slot[i];
		if (!o->used)
			continue;
		size_t j = key_hash(o->src, o->dst, o->tag) & (ncap - 1);
		while (ns[j].used)
			j = (j + 1) & (ncap - 1);
		ns[j] = *o;
	}
	free(t->slot);
	t->slot = ns;
	t->cap = ncap;
}

struct key *keytab_get(struct keytab *t, int32_t src, int32_t dst, int32_t tag)
{
	if (2 * (t->used + 1) > t->cap)
		grow(t);
	size_t j = key_hash(src, dst, tag) & (t->cap - 1);
	for (; t->slot[j].used; j = (j + 1) & (t->cap - 1)) {
		const struct keyslot *o = &t->slot[j];
		if (o->src == src && o->dst == dst && o->tag == tag)
			return o->k;
	}
	struct key *k = weft_xcalloc(1, sizeof(*k));
	k->src = src, k->dst = dst, k->tag = tag;
	t->slot[j] = (struct keyslot){src, dst, tag, 1, k};
	t->used++;
	if (t->norder == t->corder) {
		t->corder = t->corder ? 2 * t->corder : 64;
		t->order = weft_xrealloc(t->order, t->corder * sizeof(*t->order));
	}
	t->order[t->norder++] = k;
	return k;
}

void keytab_free(struct keytab *t)
{
	for (size_t i = 0; i < t->norder; i++) {
		struct key *k = t->order[i];
		if (k->sends.v != &k->sends.one)
			free(k->sends.v);
		if (k->recvs.v != &k->recvs.one)
			free(k->recvs.v);
		free(k);
	}
	free(t->order);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

void fifo_push(struct fifo *f, const struct pend *p)
{
	if (f->cap == 0) {
		f->v = &f->one;
		f->cap = 1;
	}
	if (f->n == f->cap) {
		uint32_t nc = f->cap < 4 ? 4 : 2 * f->cap;
		struct pend *v = weft_xcalloc(nc, sizeof(*v));
		for (uint32_t i = 0; i < f->n; i++)
			v[i] = f->v[(f->head + i) % f->cap];
		if (f->v != &f->one)
			free(f->v);
		f->v = v;
		f->head = 0;
		f->cap = nc;
	}
	f->v[(f->head + f->n++) % f->cap] = *p;
}

struct pend fifo_pop(struct fifo *f)
{
	struct pend p = f->v[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return p;
}
