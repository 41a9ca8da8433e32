/* SPDX-License-Identifier: GPL-3.0-or-later */
/* visandor/open: records found by a 64-bit key in O(1) — the open and-nodes
 * or or-nodes of a model by Nodeid, the or-branches by (node, branch).
 *
 * Records of one fixed size live in slots of one array; a slot freed by
 * vao_open_del is handed out again by the next vao_open_add, with its old
 * bytes, so a record may keep a buffer it reuses (per-task arrays) and
 * memory follows the number of records alive at once, not the trace. The
 * table from key to slot is open-addressed (linear probing, deletion by
 * backward shift, at most half full): a lookup is a multiply, a mask and
 * usually one compare, or just one compare when it asks for the key found
 * last (events of one node come in runs). Pointers returned stay valid
 * until the next vao_open_add. */
#ifndef WEFT_VISANDOR_OPEN_H
#define WEFT_VISANDOR_OPEN_H

#include <stddef.h>
#include <stdint.h>

struct vao_open_ent {
	uint64_t key;
	int32_t slot; /* -1: empty */
};

struct vao_open {
	struct vao_open_ent *tab;
	uint32_t mask;  /* table size - 1 (a power of two) */
	int shift;      /* 64 - log2(table size) */
	uint32_t n;     /* keys in the table */
	char *rec;      /* slots */
	size_t size;    /* bytes per record */
	int32_t nslot;  /* slots handed out at least once */
	int32_t cap;
	int32_t *free;  /* freed slots */
	int32_t nfree;
	uint64_t last_key; /* the key found or added last, in slot last_slot (-1: none) */
	int32_t last_slot;
};

/* An empty set of records of `size` bytes. */
void vao_open_init(struct vao_open *o, size_t size);
/* Release the table and the slots (not what the records point to: see
 * vao_open_slot). */
void vao_open_free(struct vao_open *o);

static inline void *vao_open_slot(const struct vao_open *o, int32_t slot)
{
	return o->rec + (size_t) slot * o->size;
}

static inline uint32_t vao_open_hash(const struct vao_open *o, uint64_t key)
{
	return (uint32_t) ((key * 0x9e3779b97f4a7c15ull) >> o->shift);
}

/* The record of `key`, or NULL. */
static inline void *vao_open_find(struct vao_open *o, uint64_t key)
{
	if (key == o->last_key && o->last_slot >= 0)
		return vao_open_slot(o, o->last_slot);
	for (uint32_t i = vao_open_hash(o, key);; i = (i + 1) & o->mask) {
		const struct vao_open_ent *t = &o->tab[i];
		if (t->slot < 0)
			return NULL;
		if (t->key == key) {
			o->last_key = key;
			o->last_slot = t->slot;
			return vao_open_slot(o, t->slot);
		}
	}
}

/* Out of line: double the table (vao_open_add keeps it at most half full);
 * a slot never handed out (zeroed). */
void vao_open_grow(struct vao_open *o);
int32_t vao_open_new_slot(struct vao_open *o);

/* A record for `key`, which must not be in the set: a slot freed earlier
 * (its old bytes kept) or a new one (zeroed). */
static inline void *vao_open_add(struct vao_open *o, uint64_t key)
{
	if (__builtin_expect(2 * (o->n + 1) > o->mask + 1, 0))
		vao_open_grow(o);
	int32_t slot = o->nfree ? o->free[--o->nfree] : vao_open_new_slot(o);
	uint32_t i = vao_open_hash(o, key);
	while (o->tab[i].slot >= 0)
		i = (i + 1) & o->mask;
	o->tab[i].key = key;
	o->tab[i].slot = slot;
	o->n++;
	o->last_key = key;
	o->last_slot = slot;
	return vao_open_slot(o, slot);
}

/* Remove `key`, which must be in the set; its slot is kept for reuse. */
static inline void vao_open_del(struct vao_open *o, uint64_t key)
{
	uint32_t i = vao_open_hash(o, key);
	while (o->tab[i].slot < 0 || o->tab[i].key != key)
		i = (i + 1) & o->mask;
	o->free[o->nfree++] = o->tab[i].slot;
	o->n--;
	if (key == o->last_key)
		o->last_slot = -1;
	/* backward shift: a later entry of the run moves into the hole when
	 * its home is not between the hole and it */
	for (uint32_t j = (i + 1) & o->mask; o->tab[j].slot >= 0; j = (j + 1) & o->mask) {
		uint32_t home = vao_open_hash(o, o->tab[j].key);
		if (((j - home) & o->mask) >= ((j - i) & o->mask)) {
			o->tab[i] = o->tab[j];
			i = j;
		}
	}
	o->tab[i].slot = -1;
}

#endif
