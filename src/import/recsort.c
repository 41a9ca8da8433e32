/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recsort: sorting records by (time, offset) with bounded memory (see recsort.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/recsort.h"

#define RS_READ 4096 /* keys read at a time from one run while merging (at most a run) */

static inline int less(struct rs_key a, struct rs_key b)
{
	__extension__ typedef unsigned __int128 u128;
	return ((u128) a.t << 64 | a.off) < ((u128) b.t << 64 | b.off);
}

size_t rs_window_size(size_t deflt)
{
	const char *v = getenv("WEFT_SORT_WINDOW");
	if (!v || !*v)
		return deflt;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	return *end || n == 0 || n > (1ull << 30) ? deflt : (size_t) n;
}

/* ---- a binary min-heap of keys ---------------------------------------------------- */

static void heap_push(struct rs_key *h, size_t *n, struct rs_key x)
{
	size_t i = (*n)++;
	while (i > 0 && less(x, h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static struct rs_key heap_pop(struct rs_key *h, size_t *n)
{
	struct rs_key top = h[0], x = h[--*n];
	size_t i = 0, m = *n;
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= m)
			break;
		if (k + 1 < m && less(h[k + 1], h[k]))
			k++;
		if (!less(h[k], x))
			break;
		h[i] = h[k];
		i = k;
	}
	if (m)
		h[i] = x;
	return top;
}

/* ---- window mode ------------------------------------------------------------------------ */

void rs_window(struct recsort *s, size_t window, rs_emit_fn emit, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->emit = emit;
	s->ctx = ctx;
	s->window = window < 1 ? 1 : window;
	size_t cap = 1;
	while (cap < s->window)
		cap *= 2;
	s->mask = cap - 1;
	s->heap = weft_xmalloc(s->window * sizeof(*s->heap));
}

/* Hand on the smallest record held. */
static int window_pop(struct recsort *s)
{
	struct rs_queue *best = &s->q[0];
	struct rs_key x;
	if (s->nother == 0) {
		/* the usual case: everything held is in the first queue */
		x = best->buf[best->head];
	} else {
		best = NULL;
		for (int i = 0; i < RS_NQUEUES; i++)
			if (s->q[i].n && (!best || less(s->q[i].buf[s->q[i].head], best->buf[best->head])))
				best = &s->q[i];
		if (s->nheap && (!best || less(s->heap[0], best->buf[best->head]))) {
			x = heap_pop(s->heap, &s->nheap);
			best = NULL;
		} else {
			x = best->buf[best->head];
		}
		if (best != &s->q[0])
			s->nother--;
	}
	if (best) {
		best->head = (best->head + 1) & s->mask;
		best->n--;
	}
	s->held--;
	s->last = x;
	return s->emit(s->ctx, x.t, x.off);
}

/* Insert k into the ascending queue q whose tail is above k, when its place
 * is among the last RS_SHIFT keys (a record a little out of order); 0 if it
 * is further back. */
static int insert_near_tail(struct rs_queue *q, size_t mask, struct rs_key k)
{
	size_t lim = q->n > RS_SHIFT ? RS_SHIFT : q->n, e = (q->head + q->n) & mask;
	if (e > lim) {
		/* the last lim keys and the new slot do not wrap: shift up
		 * while the key below is above k */
		struct rs_key *b = q->buf + e, *p = b, *stop = b - lim;
		while (p > stop && less(k, p[-1])) {
			*p = p[-1];
			p--;
		}
		if (p == stop && lim < q->n && less(k, p[-1])) {
			memmove(p, p + 1, (size_t) (b - p) * sizeof(*p)); /* too far back: undo */
			return 0;
		}
		*p = k;
		q->n++;
		return 1;
	}
	size_t j = q->n, stop = q->n - lim;
	while (j > stop && less(k, q->buf[(q->head + j - 1) & mask]))
		j--;
	if (j > 0 && less(k, q->buf[(q->head + j - 1) & mask]))
		return 0;
	for (size_t i = q->n; i > j; i--)
		q->buf[(q->head + i) & mask] = q->buf[(q->head + i - 1) & mask];
	q->buf[(q->head + j) & mask] = k;
	q->n++;
	return 1;
}

/* The window's rule: when `window` records are held, the smallest is handed
 * on before the next is added; a record below one handed on is an
 * overflow. */
static int window_add(struct recsort *s, struct rs_key k)
{
	if (s->held == s->window) {
		int rc = window_pop(s);
		if (rc)
			return rc;
	}
	if (less(k, s->last)) /* last starts at (0, 0): nothing is below it */
		return RS_OVERFLOW;
	s->held++;
	for (int i = 0; i < RS_NQUEUES; i++) {
		struct rs_queue *q = &s->q[i];
		if (!q->buf)
			q->buf = weft_xmalloc((s->mask + 1) * sizeof(*q->buf));
		if (q->n && less(k, q->tail)) {
			if (i == 0 && insert_near_tail(q, s->mask, k))
				goto added;
			continue;
		}
		q->buf[(q->head + q->n) & s->mask] = k;
		q->n++;
		q->tail = k;
		s->nother += i > 0;
		goto added;
	}
	heap_push(s->heap, &s->nheap, k);
	s->nother++;
added:
	return 0;
}

/* ---- spill mode ---------------------------------------------------------------------------- */

int rs_spill(struct recsort *s, size_t window, rs_emit_fn emit, void *ctx, struct weft_err *e)
{
	memset(s, 0, sizeof(*s));
	s->emit = emit;
	s->ctx = ctx;
	s->spill = 1;
	s->window = window < 2 ? 2 : window;
	s->run = weft_xmalloc(s->window * sizeof(*s->run));
	const char *dir = getenv("TMPDIR");
	char *path = weft_xasprintf("%s/weft-sort-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		int er = errno;
		weft_tmp_fail(e, er, "%s: cannot create a temporary file to sort records", path);
		free(path);
		return -1;
	}
	unlink(path); /* gone when closed */
	free(path);
	s->f = fdopen(fd, "w+b");
	if (!s->f) {
		close(fd);
		return weft_tmp_fail(e, errno, "cannot open the temporary sort file");
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct rs_key *x = a, *y = b;
	return less(*x, *y) ? -1 : less(*y, *x) ? 1 : 0;
}

static int spill_run(struct recsort *s, struct weft_err *e)
{
	qsort(s->run, s->nrun, sizeof(*s->run), cmp_key);
	if ((s->nruns & (s->nruns - 1)) == 0) /* 0, 1, 2, 4, ...: grow */
		s->runstart = weft_xrealloc(s->runstart, (s->nruns ? 2 * s->nruns : 1) * sizeof(*s->runstart));
	s->runstart[s->nruns++] = s->nspilled;
	if (fwrite(s->run, sizeof(*s->run), s->nrun, s->f) != s->nrun)
		return weft_tmp_fail(e, errno, "cannot write the temporary sort file in %s",
				     getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	s->nspilled += s->nrun;
	s->nrun = 0;
	return 0;
}

struct cursor {
	uint64_t next, end; /* record indexes in the file */
	struct rs_key *buf;
	size_t pos, n;
};

static int cursor_fill(struct recsort *s, struct cursor *c, struct weft_err *e)
{
	size_t cap = s->window < RS_READ ? s->window : RS_READ;
	size_t want = c->end - c->next < cap ? (size_t) (c->end - c->next) : cap;
	if (fseeko(s->f, (off_t) (c->next * sizeof(struct rs_key)), SEEK_SET) != 0 ||
	    fread(c->buf, sizeof(struct rs_key), want, s->f) != want)
		return ferror(s->f)
			? weft_tmp_fail(e, errno, "cannot read the temporary sort file back")
			: weft_fail(e, WEFT_EINTERNAL, "cannot read the temporary sort file back: short read");
	c->next += want;
	c->pos = 0;
	c->n = want;
	return 0;
}

/* Merge the runs through a heap of run indexes ordered by their current key. */
static int spill_merge(struct recsort *s, struct weft_err *e)
{
	size_t k = s->nruns;
	struct cursor *c = weft_xcalloc(k, sizeof(*c));
	size_t *hrun = weft_xmalloc(k * sizeof(*hrun)), nh = 0;
	int rc = 0;
	for (size_t i = 0; i < k && rc == 0; i++) {
		c[i].next = s->runstart[i];
		c[i].end = i + 1 < k ? s->runstart[i + 1] : s->nspilled;
		c[i].buf = weft_xmalloc((s->window < RS_READ ? s->window : RS_READ) * sizeof(*c[i].buf));
		rc = cursor_fill(s, &c[i], e);
	}
#define KEY(r) (c[r].buf[c[r].pos])
	for (size_t i = 0; i < k && rc == 0; i++) {
		size_t j = nh++;
		while (j > 0 && less(KEY(i), KEY(hrun[(j - 1) / 2]))) {
			hrun[j] = hrun[(j - 1) / 2];
			j = (j - 1) / 2;
		}
		hrun[j] = i;
	}
	while (rc == 0 && nh) {
		size_t r = hrun[0];
		struct rs_key x = KEY(r);
		rc = s->emit(s->ctx, x.t, x.off);
		if (rc)
			break;
		if (++c[r].pos == c[r].n) {
			if (c[r].next < c[r].end)
				rc = cursor_fill(s, &c[r], e);
			else
				r = hrun[--nh]; /* the run is done: sift the last one down */
		}
		if (rc || nh == 0)
			break;
		size_t i = 0;
		for (;;) {
			size_t m = 2 * i + 1;
			if (m >= nh)
				break;
			if (m + 1 < nh && less(KEY(hrun[m + 1]), KEY(hrun[m])))
				m++;
			if (!less(KEY(hrun[m]), KEY(r)))
				break;
			hrun[i] = hrun[m];
			i = m;
		}
		hrun[i] = r;
	}
#undef KEY
	for (size_t i = 0; i < k; i++)
		free(c[i].buf);
	free(c);
	free(hrun);
	return rc;
}

/* ---- the interface -------------------------------------------------------------------------- */

int rs_add(struct recsort *s, uint64_t t, uint64_t off, struct weft_err *e)
{
	struct rs_key k = {t, off};
	if (!s->spill)
		return window_add(s, k);
	s->run[s->nrun++] = k;
	return s->nrun == s->window ? spill_run(s, e) : 0;
}

uint64_t rs_low_off(const struct recsort *s, uint64_t scanned)
{
	if (s->spill)
		return 0;
	uint64_t low = scanned;
	for (int i = 0; i < RS_NQUEUES; i++)
		for (size_t j = 0; j < s->q[i].n; j++) {
			uint64_t off = s->q[i].buf[(s->q[i].head + j) & s->mask].off;
			low = off < low ? off : low;
		}
	for (size_t j = 0; j < s->nheap; j++)
		low = s->heap[j].off < low ? s->heap[j].off : low;
	return low;
}

int rs_finish(struct recsort *s, struct weft_err *e)
{
	if (!s->spill) {
		int rc = 0;
		while (rc == 0 && s->held)
			rc = window_pop(s);
		return rc;
	}
	if (s->nruns == 0) { /* everything fitted in memory */
		qsort(s->run, s->nrun, sizeof(*s->run), cmp_key);
		for (size_t i = 0; i < s->nrun; i++) {
			int rc = s->emit(s->ctx, s->run[i].t, s->run[i].off);
			if (rc)
				return rc;
		}
		s->nrun = 0;
		return 0;
	}
	if (s->nrun && spill_run(s, e))
		return -1;
	if (fflush(s->f) != 0)
		return weft_tmp_fail(e, errno, "cannot write the temporary sort file");
	return spill_merge(s, e);
}

void rs_free(struct recsort *s)
{
	for (int i = 0; i < RS_NQUEUES; i++)
		free(s->q[i].buf);
	free(s->heap);
	free(s->run);
	free(s->runstart);
	if (s->f)
		fclose(s->f);
	memset(s, 0, sizeof(*s));
}
