/* visandor/open: records by 64-bit key (see open.h). */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "open.h"

static void table(struct vao_open *o, int bits)
{
	uint32_t size = 1u << bits;
	o->tab = weft_xmalloc(size * sizeof(*o->tab));
	for (uint32_t i = 0; i < size; i++)
		o->tab[i].slot = -1;
	o->mask = size - 1;
	o->shift = 64 - bits;
}

void vao_open_init(struct vao_open *o, size_t size)
{
	memset(o, 0, sizeof(*o));
	o->size = size;
	o->last_slot = -1;
	table(o, 6);
}

void vao_open_free(struct vao_open *o)
{
	free(o->tab);
	free(o->rec);
	free(o->free);
	memset(o, 0, sizeof(*o));
}

static void put(struct vao_open *o, uint64_t key, int32_t slot)
{
	uint32_t i = vao_open_hash(o, key);
	while (o->tab[i].slot >= 0)
		i = (i + 1) & o->mask;
	o->tab[i].key = key;
	o->tab[i].slot = slot;
}

void *vao_open_add(struct vao_open *o, uint64_t key)
{
	if (2 * (o->n + 1) > o->mask + 1) {
		struct vao_open_ent *old = o->tab;
		uint32_t size = o->mask + 1;
		table(o, 64 - o->shift + 1);
		for (uint32_t i = 0; i < size; i++)
			if (old[i].slot >= 0)
				put(o, old[i].key, old[i].slot);
		free(old);
	}
	int32_t slot;
	if (o->nfree) {
		slot = o->free[--o->nfree];
	} else {
		if (o->nslot == o->cap) {
			int32_t cap = o->cap ? 2 * o->cap : 16;
			o->rec = weft_xrealloc(o->rec, (size_t) cap * o->size);
			memset(o->rec + (size_t) o->cap * o->size, 0, (size_t) (cap - o->cap) * o->size);
			o->free = weft_xrealloc(o->free, (size_t) cap * sizeof(*o->free));
			o->cap = cap;
		}
		slot = o->nslot++;
	}
	put(o, key, slot);
	o->n++;
	o->last_key = key;
	o->last_slot = slot;
	return vao_open_slot(o, slot);
}

void vao_open_del(struct vao_open *o, uint64_t key)
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
