/* merge: k-way heap merge with run draining (see merge.h). */
#include <stdlib.h>

#include "merge.h"

/* Branch-free: how streams interleave is unpredictable. */
static inline int before(const struct weft_stream *a, const struct weft_stream *b)
{
	return (a->ev.time < b->ev.time) | ((a->ev.time == b->ev.time) & (a->index < b->index));
}

static void sift_down(struct weft_merge *m, int i)
{
	struct weft_stream *x = m->heap[i];
	for (;;) {
		int c = 2 * i + 1;
		if (c >= m->n)
			break;
		if (c + 1 < m->n)
			c += before(m->heap[c + 1], m->heap[c]);
		if (!before(m->heap[c], x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
}

int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e)
{
	m->heap = weft_xcalloc((size_t) n, sizeof(*m->heap));
	m->n = 0;
	m->cur = NULL;
	m->started = 0;
	for (int i = 0; i < n; i++) {
		struct weft_stream *s = &streams[i];
		if (!s->active)
			continue;
		int r = stream_next(s, e);
		if (r < 0)
			return -1;
		if (r > 0)
			m->heap[m->n++] = s;
	}
	for (int i = m->n / 2 - 1; i >= 0; i--)
		sift_down(m, i);
	return 0;
}

int merge_next(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e)
{
	struct weft_stream *s = m->cur;
	if (s) {
		int r = stream_next(s, e);
		if (r < 0)
			return -1;
		if (r > 0) {
			if (m->n == 0 || before(s, m->heap[0])) {
				*ev = &s->ev; /* the run goes on */
				return 1;
			}
			/* swap with the top: the new top is the next event */
			m->cur = m->heap[0];
			m->heap[0] = s;
			sift_down(m, 0);
			*ev = &m->cur->ev;
			return 1;
		}
	}
	if (m->n == 0) {
		m->cur = NULL;
		return 0;
	}
	m->cur = m->heap[0];
	m->heap[0] = m->heap[--m->n];
	if (m->n)
		sift_down(m, 0);
	*ev = &m->cur->ev;
	return 1;
}

void merge_free(struct weft_merge *m)
{
	free(m->heap);
	m->heap = NULL;
	m->n = 0;
}
