/* SPDX-License-Identifier: GPL-3.0-or-later */
/* merge: ovniemu's heap per loom, a heap of looms over them (see merge.h). */
#include <stdlib.h>

#include "emu/merge.h"
#include "trace/system.h"

/* ---- a loom's heap: ovniemu's steps, time alone as the key ----------------------- */

/* ovniemu's insertion: at the first free leaf, up past every parent whose
 * time is strictly later. */
static void loom_put(struct merge_loom *l, struct weft_stream *s)
{
	uint64_t t = s->ev.time;
	int i = l->n++;
	while (i > 0) {
		int p = (i - 1) / 2;
		if (!(t < l->heap[p].time))
			break;
		l->heap[i] = l->heap[p];
		i = p;
	}
	l->heap[i].time = t;
	l->heap[i].s = s;
	l->same = -1;
}

/* ovniemu's removal of the top: the last leaf to the root, then down to the
 * left child when it is strictly earlier, else the right one when it is
 * strictly earlier than the node and the left child. */
static struct weft_stream *loom_take(struct merge_loom *l)
{
	struct weft_stream *top = l->heap[0].s;
	int n = --l->n;
	if (n > 0) {
		struct merge_ent x = l->heap[n];
		int i = 0;
		for (;;) {
			int c = 2 * i + 1, to = i;
			uint64_t least = x.time;
			if (c >= n)
				break;
			if (l->heap[c].time < least) {
				to = c;
				least = l->heap[c].time;
			}
			if (c + 1 < n && l->heap[c + 1].time < least)
				to = c + 1;
			if (to == i)
				break;
			l->heap[i] = l->heap[to];
			i = to;
		}
		l->heap[i] = x;
	}
	l->same = -1;
	return top;
}

/* Whether putting a stream earlier than all in the heap back, then taking
 * the top, leaves the heap as it is. The stream goes in at leaf n and rises
 * to the root; the path's entries move one down; the take moves the leaf's
 * new entry y (the old parent of leaf n) to the root and down again. y
 * comes back to its slot, and each path entry to its own, when at each
 * node on the way the path's entry is strictly earlier than y and, where
 * the path goes right, strictly earlier than its left sibling whenever that
 * one is earlier than y (else the sibling is taken). */
int merge_same(struct merge_loom *l)
{
	const struct merge_ent *h = l->heap;
	int q = (l->n - 1) / 2, same = 1;
	uint64_t y = h[q].time;
	while (same && q > 0) {
		int par = (q - 1) / 2;
		if (!(h[par].time < y))
			same = 0;
		else if (q % 2 == 0 && h[q - 1].time < y && !(h[par].time < h[q - 1].time))
			same = 0;
		q = par;
	}
	l->same = same;
	return same;
}

/* ---- the heap of looms --------------------------------------------------------------- */

static struct merge_loom *loom_of(const struct weft_merge *m, uint64_t k)
{
	return &m->looms[k & m->mask];
}

/* The key of rank r's next event; saturated when too far after the base
 * (or, which the streams' order rules out, before it). */
static uint64_t key_of(const struct weft_merge *m, uint64_t r)
{
	uint64_t d = m->looms[r].next->ev.time - m->base;
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
		uint64_t t = loom_of(m, m->heap[i])->next->ev.time;
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

static int loom_gindex(const struct weft_stream *s)
{
	return s->thread && s->thread->proc && s->thread->proc->loom ? s->thread->proc->loom->gindex : -1;
}

/* Each stream's loom rank (in first stream order; a stream without a loom
 * has one of its own); returns the number of looms. */
static int rank_looms(struct weft_stream **by, int n, int *rank)
{
	int maxg = -1, nl = 0;
	for (int i = 0; i < n; i++)
		if (loom_gindex(by[i]) > maxg)
			maxg = loom_gindex(by[i]);
	int *of = weft_xmalloc(((size_t) maxg + 2) * sizeof(*of));
	for (int g = 0; g <= maxg; g++)
		of[g] = -1;
	for (int i = 0; i < n; i++) {
		int g = loom_gindex(by[i]);
		if (g < 0)
			rank[i] = nl++;
		else {
			if (of[g] < 0)
				of[g] = nl++;
			rank[i] = of[g];
		}
	}
	free(of);
	return nl;
}

int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e)
{
	struct weft_stream **by = weft_xcalloc((size_t) (n ? n : 1), sizeof(*by));
	int nby = 0;
	m->heap = NULL;
	m->looms = NULL;
	m->ents = NULL;
	m->n = m->nlooms = 0;
	m->cur = NULL;
	m->curl = NULL;
	for (int i = 0; i < n; i++) {
		struct weft_stream *s = &streams[i];
		if (!s->active)
			continue;
		int r = stream_next(s, e);
		if (r < 0) {
			free(by);
			return -1;
		}
		if (r > 0)
			by[nby++] = s;
	}
	qsort(by, (size_t) nby, sizeof(*by), by_index);
	int *rank = weft_xcalloc((size_t) nby + 1, sizeof(*rank));
	m->nlooms = rank_looms(by, nby, rank);
	m->looms = weft_xcalloc((size_t) m->nlooms + 1, sizeof(*m->looms));
	m->ents = weft_xcalloc((size_t) nby + 1, sizeof(*m->ents));
	m->heap = weft_xcalloc((size_t) m->nlooms + 1, sizeof(*m->heap));
	for (int i = 0; i < nby; i++)
		m->looms[rank[i]].n++;
	/* each loom's slots, then its streams in, in index order (ovniemu
	 * loads them in path order), and its first stream taken */
	for (int r = 0, at = 0; r < m->nlooms; r++) {
		m->looms[r].heap = m->ents + at;
		at += m->looms[r].n;
		m->looms[r].n = 0;
	}
	for (int i = 0; i < nby; i++)
		loom_put(&m->looms[rank[i]], by[i]);
	for (int r = 0; r < m->nlooms; r++)
		m->looms[r].next = loom_take(&m->looms[r]);
	free(rank);
	free(by);
	m->shift = 0;
	while (m->shift < 63 && (1ll << m->shift) < m->nlooms)
		m->shift++;
	m->mask = (1ull << m->shift) - 1;
	m->dmax = UINT64_MAX >> m->shift;
	for (int r = 0; r < m->nlooms; r++)
		m->heap[m->n++] = (uint64_t) r;
	rebase(m);
	return 0;
}

/* Return the next event of the loom whose key k was the top, taken out of
 * the loom heap by the caller. */
static int emit(struct weft_merge *m, uint64_t k, struct weft_ev **ev)
{
	m->cur_rank = k & m->mask;
	m->curl = &m->looms[m->cur_rank];
	m->cur = m->curl->next;
	*ev = &m->cur->ev;
	return 1;
}

/* The current stream was stepped (`r`: 1 it has an event, 0 it ended; no
 * current stream before the first event) and cannot simply go on: its loom
 * puts it back and takes its top, as ovniemu does, and that loom's next
 * event competes with the other looms'. */
int merge_next_slow(struct weft_merge *m, int r, struct weft_ev **ev, struct weft_err *e)
{
	(void) e;
	if (m->cur) {
		struct merge_loom *l = m->curl;
		if (r > 0)
			loom_put(l, m->cur);
		l->next = l->n ? loom_take(l) : NULL;
		m->cur = NULL;
		if (l->next) {
			uint64_t d = l->next->ev.time - m->base;
			if (d < m->dmax) {
				uint64_t k = d << m->shift | m->cur_rank;
				if (m->n == 0 || k < m->heap[0]) {
					m->cur = l->next;
					*ev = &m->cur->ev;
					return 1;
				}
				/* the top loom is next (an exact key, below k);
				 * this loom takes its place in the heap */
				uint64_t top = m->heap[0];
				merge_sift_down(m->heap, m->n, 0, k);
				return emit(m, top, ev);
			}
			/* too far after the base (or before it): into the heap,
			 * and every key again from the earliest time */
			m->heap[m->n++] = m->cur_rank;
			rebase(m);
		}
	}
	if (m->n && m->heap[0] >> m->shift == m->dmax)
		rebase(m); /* only saturated keys are left */
	if (m->n == 0)
		return 0;
	uint64_t top = m->heap[0];
	m->n--;
	if (m->n)
		merge_sift_down(m->heap, m->n, 0, m->heap[m->n]);
	return emit(m, top, ev);
}

uint64_t merge_peek_time(const struct weft_merge *m)
{
	return m->n ? loom_of(m, m->heap[0])->next->ev.time : 0;
}

void merge_free(struct weft_merge *m)
{
	free(m->heap);
	free(m->looms);
	free(m->ents);
	m->heap = NULL;
	m->looms = NULL;
	m->ents = NULL;
	m->n = 0;
	m->nlooms = 0;
	m->cur = NULL;
}
