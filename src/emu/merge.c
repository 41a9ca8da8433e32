/* SPDX-License-Identifier: GPL-3.0-or-later */
/* merge: k-way heap merge with run draining (see merge.h). */
#include <stdlib.h>

#include "emu/merge.h"

static struct weft_stream *stream_of(const struct weft_merge *m, uint64_t k)
{
	return m->by_rank[k & m->mask];
}

/* The key of rank r's pending event; saturated when too far after the base
 * (or, which the streams' order rules out, before it). */
static uint64_t key_of(const struct weft_merge *m, uint64_t r)
{
	uint64_t d = m->by_rank[r]->ev.time - m->base;
	if (d > m->dmax)
		d = m->dmax;
	return d << m->shift | r;
}

/* Keys again from the earliest waiting time: the order among saturated
 * keys (and of a time before the base) becomes exact. */
static void rebase(struct weft_merge *m)
{
	uint64_t b = UINT64_MAX;
	for (int i = 0; i < m->n; i++) {
		uint64_t t = stream_of(m, m->heap[i])->ev.time;
		if (t < b)
			b = t;
	}
	m->base = b;
	for (int i = 0; i < m->n; i++)
		m->heap[i] = key_of(m, m->heap[i] & m->mask);
	for (int i = m->n / 2 - 1; i >= 0; i--)
		merge_sift_down(m->heap, m->n, i, m->heap[i]);
}

static int by_index(const void *a, const void *b)
{
	const struct weft_stream *x = *(struct weft_stream *const *) a, *y = *(struct weft_stream *const *) b;
	return (x->index > y->index) - (x->index < y->index);
}

int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e)
{
	m->heap = weft_xcalloc((size_t) (n ? n : 1), sizeof(*m->heap));
	m->by_rank = weft_xcalloc((size_t) (n ? n : 1), sizeof(*m->by_rank));
	m->n = 0;
	m->cur = NULL;
	for (int i = 0; i < n; i++) {
		struct weft_stream *s = &streams[i];
		if (!s->active)
			continue;
		int r = stream_next(s, e);
		if (r < 0)
			return -1;
		if (r > 0)
			m->by_rank[m->n++] = s;
	}
	qsort(m->by_rank, (size_t) m->n, sizeof(*m->by_rank), by_index);
	m->shift = 0;
	while (m->shift < 63 && (1ll << m->shift) < m->n)
		m->shift++;
	m->mask = (1ull << m->shift) - 1;
	m->dmax = UINT64_MAX >> m->shift;
	for (int i = 0; i < m->n; i++)
		m->heap[i] = (uint64_t) i;
	rebase(m);
	return 0;
}

/* The current stream ended (or there is none yet), or its event's key is
 * not exact: take the heap's top, after making the keys again if need be. */
int merge_next_slow(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e)
{
	(void) e;
	if (m->cur) {
		/* its event is too far after the base (or before it): into the
		 * heap, and every key again from the earliest time */
		m->heap[m->n++] = m->cur_rank;
		rebase(m);
	} else if (m->n && m->heap[0] >> m->shift == m->dmax) {
		rebase(m); /* only saturated keys are left */
	}
	if (m->n == 0) {
		m->cur = NULL;
		return 0;
	}
	m->cur_rank = m->heap[0] & m->mask;
	m->cur = m->by_rank[m->cur_rank];
	m->n--;
	if (m->n)
		merge_sift_down(m->heap, m->n, 0, m->heap[m->n]);
	*ev = &m->cur->ev;
	return 1;
}

uint64_t merge_peek_time(const struct weft_merge *m)
{
	return m->n ? stream_of(m, m->heap[0])->ev.time : 0;
}

void merge_free(struct weft_merge *m)
{
	free(m->heap);
	free(m->by_rank);
	m->heap = NULL;
	m->by_rank = NULL;
	m->n = 0;
}
