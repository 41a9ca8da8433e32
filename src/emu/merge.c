/* merge: k-way heap merge with run draining (see merge.h). */
#include <stdlib.h>

#include "merge.h"

void merge_sift_down(merge_key *h, int n, int i, merge_key x)
{
	for (;;) {
		int c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n)
			c += h[c + 1] < h[c];
		if (!(h[c] < x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e)
{
	m->heap = weft_xcalloc((size_t) (n ? n : 1), sizeof(*m->heap));
	m->n = 0;
	m->base = streams;
	m->cur = NULL;
	for (int i = 0; i < n; i++) {
		struct weft_stream *s = &streams[i];
		if (!s->active)
			continue;
		int r = stream_next(s, e);
		if (r < 0)
			return -1;
		if (r > 0)
			m->heap[m->n++] = merge_key_of(s->ev.time, s, (uint32_t) i);
	}
	for (int i = m->n / 2 - 1; i >= 0; i--)
		merge_sift_down(m->heap, m->n, i, m->heap[i]);
	return 0;
}

/* The current stream ended (or there is none yet): take the heap's top. */
int merge_next_slow(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e)
{
	(void) e;
	if (m->n == 0) {
		m->cur = NULL;
		return 0;
	}
	m->cur = m->base + merge_key_pos(m->heap[0]);
	m->n--;
	if (m->n)
		merge_sift_down(m->heap, m->n, 0, m->heap[m->n]);
	*ev = &m->cur->ev;
	return 1;
}

void merge_free(struct weft_merge *m)
{
	free(m->heap);
	m->heap = NULL;
	m->n = 0;
}
