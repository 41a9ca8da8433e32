/* SPDX-License-Identifier: GPL-3.0-or-later */
/* types: event types counted, named, resolved and chosen (see types.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "plot/types.h"
#include "util/macros.h"

/* The main types, first present first: the runtimes' subsystems (nOS-V 13,
 * Nanos6 37, OpenMP 50, NODES 30, TAMPI 20), MPI's function (25), the CPU
 * agent of and-fork (1007) and or-branch (1028), the file I/O clients
 * (1091), the ovni thread state (4) and the running thread (2). */
static const int64_t main_types[] = {13, 37, 50, 30, 20, 25, 1007, 1028, 1091, 4, 2};

#define NSLOTS (2 * TYPES_MAX)

void types_init(struct type_counts *c)
{
	memset(c, 0, sizeof(*c));
}

static int slot_of(const struct type_counts *c, int64_t t)
{
	uint32_t h = (uint32_t) (((uint64_t) t * 0x9e3779b97f4a7c15ull) >> 40) & (NSLOTS - 1);
	while (c->n[h] && c->type[h] != t)
		h = (h + 1) & (NSLOTS - 1);
	return (int) h;
}

void types_count(struct type_counts *c, int64_t t)
{
	int h = slot_of(c, t);
	if (c->n[h] == 0) {
		if (c->ntypes == TYPES_MAX)
			return;
		c->ntypes++;
		c->type[h] = t;
	}
	c->n[h]++;
}

uint64_t types_records(const struct type_counts *c, int64_t t)
{
	return c->n[slot_of(c, t)];
}

int types_resolve(const struct plot_labels *l, const char *prv, const char *label, int64_t *type, struct weft_err *err)
{
	if (l->ntypes == 0)
		return weft_fail(err, WEFT_EUSAGE,
				 "--type '%s': %s has no .pcf with the types' labels beside it: "
				 "give the type's number",
				 label, prv);
	const struct plot_type *part = NULL;
	int nparts = 0;
	size_t k = strlen(label);
	for (int i = 0; i < l->ntypes; i++) {
		const char *name = l->types[i].name;
		if (strcasecmp(name, label) == 0) {
			*type = l->types[i].type;
			return 0;
		}
		for (const char *s = name; *s; s++)
			if (strncasecmp(s, label, k) == 0) {
				part = nparts++ ? part : &l->types[i];
				break;
			}
	}
	if (nparts == 1) {
		*type = part->type;
		return 0;
	}
	char list[1024];
	size_t used = 0;
	list[0] = '\0';
	for (int i = 0, shown = 0; i < l->ntypes && shown < 12 && used < sizeof(list); i++) {
		int match = 0;
		for (const char *s = l->types[i].name; *s && !match; s++)
			match = strncasecmp(s, label, k) == 0;
		if (nparts && !match)
			continue;
		int w = snprintf(list + used, sizeof(list) - used, "%s%lld %s", shown++ ? "; " : "",
				 (long long) l->types[i].type, l->types[i].name);
		used += w > 0 ? (size_t) w : 0;
	}
	if (nparts)
		return weft_fail(err, WEFT_EUSAGE,
				 "--type '%s': %d event types of the .pcf match: %s; give its "
				 "number or more of its label",
				 label, nparts, list);
	return weft_fail(err, WEFT_EUSAGE, "--type '%s': no event type of the .pcf is labelled so; its types: %s",
			 label, list);
}

int64_t types_main(const struct type_counts *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(main_types); i++)
		if (types_records(c, main_types[i]))
			return main_types[i];
	int64_t low = -1;
	for (int h = 0; h < NSLOTS; h++)
		if (c->n[h] && (low < 0 || c->type[h] < low))
			low = c->type[h];
	return low;
}

void types_list(const struct type_counts *c, const struct plot_labels *l, char *buf, size_t n)
{
	size_t used = 0;
	int64_t after = INT64_MIN;
	buf[0] = '\0';
	/* in type order: the smallest above the last one listed, each time */
	for (int shown = 0; shown < 16; shown++) {
		int best = -1;
		for (int h = 0; h < NSLOTS; h++)
			if (c->n[h] && c->type[h] > after && (best < 0 || c->type[h] < c->type[best]))
				best = h;
		if (best < 0)
			return;
		after = c->type[best];
		const struct plot_type *t = labels_type(l, after);
		int w = snprintf(buf + used, used < n ? n - used : 0, "%s%lld%s%s (%llu records)", shown ? ", " : "",
				 (long long) after, t ? " " : "", t ? t->name : "", (unsigned long long) c->n[best]);
		used += w > 0 ? (size_t) w : 0;
		if (used >= n)
			return;
	}
	if (c->ntypes > 16 && used + 5 < n)
		snprintf(buf + used, n - used, ", ...");
}
