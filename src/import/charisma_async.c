/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_async: asynchronous requests in flight (see charisma_async.h).
 * Linear probing; a removal shifts the entries after it back, so there are
 * no tombstones and a lookup stops at the first empty slot. */
#include <stdlib.h>
#include <string.h>

#include "import/charisma_async.h"
#include "util/err.h"

static uint32_t hash(struct akey k)
{
	uint64_t h = (uint64_t) k.who * 0x9e3779b97f4a7c15ull ^ (uint64_t) k.id * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t) k.kind;
	return (uint32_t) (h ^ h >> 32);
}

static int same(struct akey a, struct akey b)
{
	return a.kind == b.kind && a.who == b.who && a.id == b.id;
}

struct async_req *at_find(const struct atab *t, struct akey k)
{
	if (!t->slot)
		return NULL;
	for (uint32_t i = hash(k) & t->mask; t->slot[i]; i = (i + 1) & t->mask) {
		struct async_req *q = &t->pool[t->slot[i] - 1];
		if (same(q->k, k))
			return q;
	}
	return NULL;
}

static void place(struct atab *t, uint32_t idx)
{
	uint32_t i = hash(t->pool[idx].k) & t->mask;
	while (t->slot[i])
		i = (i + 1) & t->mask;
	t->slot[i] = idx + 1;
}

static void grow_slots(struct atab *t)
{
	uint32_t *old = t->slot, n = old ? t->mask + 1 : 0;
	t->mask = n ? 2 * n - 1 : 63;
	t->slot = weft_xcalloc((size_t) t->mask + 1, sizeof(*t->slot));
	for (uint32_t i = 0; i < n; i++)
		if (old[i])
			place(t, old[i] - 1);
	free(old);
}

struct async_req *at_add(struct atab *t, struct akey k, size_t ncl)
{
	if (!t->slot || (t->used + 1) * 4 > (t->mask + 1) * 3)
		grow_slots(t);
	uint32_t idx;
	if (t->nfreed) {
		idx = t->freed[--t->nfreed];
	} else {
		if (t->npool == t->cappool) {
			t->cappool = t->cappool ? 2 * t->cappool : 64;
			t->pool = weft_xrealloc(t->pool, (size_t) t->cappool * sizeof(*t->pool));
			t->freed = weft_xrealloc(t->freed, (size_t) t->cappool * sizeof(*t->freed));
		}
		idx = t->npool++;
		memset(&t->pool[idx], 0, sizeof(t->pool[idx]));
	}
	struct async_req *q = &t->pool[idx];
	if (ncl > q->capcl) {
		q->capcl = ncl;
		q->cl = weft_xrealloc(q->cl, ncl * sizeof(*q->cl));
	}
	q->k = k;
	q->ncl = 0;
	q->off = 0;
	q->seq = t->seq++;
	place(t, idx);
	t->used++;
	return q;
}

void at_del(struct atab *t, struct async_req *q)
{
	uint32_t idx = (uint32_t) (q - t->pool), i = hash(q->k) & t->mask;
	while (t->slot[i] != idx + 1)
		i = (i + 1) & t->mask;
	/* shift back the entries that probed past slot i */
	for (uint32_t j = (i + 1) & t->mask; t->slot[j]; j = (j + 1) & t->mask) {
		uint32_t h = hash(t->pool[t->slot[j] - 1].k) & t->mask;
		if (((j - h) & t->mask) >= ((j - i) & t->mask)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i] = 0;
	t->freed[t->nfreed++] = idx;
	t->used--;
}

static int by_seq(const void *a, const void *b)
{
	const struct async_req *x = *(struct async_req *const *) a, *y = *(struct async_req *const *) b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t at_left(const struct atab *t, struct async_req ***out)
{
	size_t n = 0;
	*out = weft_xmalloc(((size_t) t->used + 1) * sizeof(**out));
	for (uint32_t i = 0; t->slot && i <= t->mask; i++)
		if (t->slot[i])
			(*out)[n++] = &t->pool[t->slot[i] - 1];
	qsort(*out, n, sizeof(**out), by_seq);
	return n;
}

void at_free(struct atab *t)
{
	for (uint32_t i = 0; i < t->npool; i++)
		free(t->pool[i].cl);
	free(t->pool);
	free(t->freed);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
