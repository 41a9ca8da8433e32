/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_rows: the rows of a PICL log (doc/formats/legacy.md §2.4, item 4):
 * one per processor, or, for a processor that shows two process ids or
 * more (other than -1 and the subsets below it), one per (processor,
 * process). A record of such a processor with process -1 (every process of
 * it, seed Table 2) or a -202 subset goes to each row in scope. While a
 * sorted log is written as it is read, the first process of each
 * processor is noted: a second one stops the streaming (the rows are only
 * known from the whole log), and a log held whole is scanned once. */
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"

#define NONE INT32_MIN

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
	return x < y ? -1 : x > y;
}

int picl_rows_note(struct picl *p)
{
	struct picl_rows *w = &p->rows;
	if (!w->first) {
		w->first = weft_xmalloc(NPROC_IDS * sizeof(*w->first));
		for (int i = 0; i < NPROC_IDS; i++)
			w->first[i] = NONE;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct orec *r = &p->r[i];
		if (r->process < 0 || r->proc < 0)
			continue;
		int32_t *f = &w->first[r->proc];
		if (*f == NONE)
			*f = r->process;
		else if (*f != r->process)
			return 1;
	}
	return 0;
}

void picl_rows_plan(struct picl *p)
{
	struct picl_rows *w = &p->rows;
	if (!picl_rows_note(p))
		return;
	/* some processor shows several processes: their lists */
	int *cnt = weft_xcalloc(NPROC_IDS, sizeof(*cnt));
	int32_t **v = weft_xcalloc(NPROC_IDS, sizeof(*v));
	for (size_t i = 0; i < p->n; i++) {
		const struct orec *r = &p->r[i];
		if (r->process < 0 || r->proc < 0)
			continue;
		int pr = r->proc, k = 0;
		while (k < cnt[pr] && v[pr][k] != r->process)
			k++;
		if (k < cnt[pr])
			continue;
		if ((cnt[pr] & (cnt[pr] - 1)) == 0) /* 0, 1, 2, 4, ...: grow at powers of two */
			v[pr] = weft_xrealloc(v[pr], (size_t) (cnt[pr] ? 2 * cnt[pr] : 1) * sizeof(**v));
		v[pr][cnt[pr]++] = r->process;
	}
	w->split = weft_xcalloc(NPROC_IDS, sizeof(*w->split));
	w->nslots = NPROC_IDS;
	for (int pr = 0; pr < NPROC_IDS; pr++) {
		if (cnt[pr] < 2) {
			free(v[pr]);
			continue;
		}
		qsort(v[pr], (size_t) cnt[pr], sizeof(**v), cmp_i32);
		struct picl_split *s = w->split[pr] = weft_xcalloc(1, sizeof(*s));
		s->n = cnt[pr];
		s->q = v[pr];
		s->base = w->nslots;
		w->nslots += s->n;
	}
	free(cnt);
	free(v);
}

int picl_row_of(const struct picl *p, int32_t proc, int32_t process)
{
	const struct picl_split *s = picl_split_of(p, proc);
	if (!s)
		return proc;
	for (int k = 0; k < s->n; k++)
		if (s->q[k] == process)
			return s->base + k;
	return -1;
}

void picl_rows_free(struct picl *p)
{
	struct picl_rows *w = &p->rows;
	for (int pr = 0; w->split && pr < NPROC_IDS; pr++)
		if (w->split[pr]) {
			free(w->split[pr]->q);
			free(w->split[pr]);
		}
	free(w->split);
	free(w->first);
	memset(w, 0, sizeof(*w));
}
