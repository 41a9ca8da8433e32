/* SPDX-License-Identifier: GPL-3.0-or-later */
/* visandor/open: records by 64-bit key (see open.h). */
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "visandor/open.h"

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

void vao_open_grow(struct vao_open *o)
{
	struct vao_open_ent *old = o->tab;
	uint32_t size = o->mask + 1;
	table(o, 64 - o->shift + 1);
	for (uint32_t i = 0; i < size; i++)
		if (old[i].slot >= 0)
			put(o, old[i].key, old[i].slot);
	free(old);
}

int32_t vao_open_new_slot(struct vao_open *o)
{
	if (o->nslot == o->cap) {
		int32_t cap = o->cap ? 2 * o->cap : 16;
		o->rec = weft_xrealloc(o->rec, (size_t) cap * o->size);
		memset(o->rec + (size_t) o->cap * o->size, 0, (size_t) (cap - o->cap) * o->size);
		o->free = weft_xrealloc(o->free, (size_t) cap * sizeof(*o->free));
		o->cap = cap;
	}
	return o->nslot++;
}
