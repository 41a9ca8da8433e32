/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bounds: least slack per pair, shortest paths from each reference (see
 * bounds.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "clock/bounds.h"
#include "util/err.h"

struct bounds_pair {
	struct {
		int32_t from, to;
	} k;
	int64_t slack; /* the least of the pass (>= 0) */
	UT_hash_handle hh;
};

void bounds_init(struct bounds *b, int nlooms, int64_t min_latency)
{
	memset(b, 0, sizeof(*b));
	b->nlooms = nlooms;
	b->min_latency = min_latency;
}

void bounds_reset(struct bounds *b)
{
	int n = b->nlooms;
	int64_t l = b->min_latency;
	bounds_free(b);
	bounds_init(b, n, l);
}

void bounds_add(struct bounds *b, int from, int to, uint64_t send, uint64_t recv)
{
	if (from == to)
		return;
	b->nmsg++;
	int64_t s = (int64_t) (recv - send) - b->min_latency;
	if (s < 0) {
		b->nneg++;
		s = 0;
	}
	struct bounds_pair *p = b->last;
	if (!p || p->k.from != from || p->k.to != to) {
		struct {
			int32_t from, to;
		} k = {from, to};
		HASH_FIND(hh, b->pairs, &k, sizeof(k), p);
		if (!p) {
			p = weft_xcalloc(1, sizeof(*p));
			p->k.from = from;
			p->k.to = to;
			p->slack = s;
			HASH_ADD(hh, b->pairs, k, sizeof(p->k), p);
		}
		b->last = p;
	}
	if (s < p->slack)
		p->slack = s;
}

/* Edges out of each loom in one array (first[k] .. first[k + 1]). */
struct graph {
	int *first, *to;
	double *w;
};

/* forward: for each pair s -> r the edge r -> s (d_s <= d_r + slack);
 * else s -> r (the same constraint for -d). */
static void graph_build(const struct bounds *b, int forward, struct graph *g)
{
	int n = b->nlooms, m = (int) HASH_COUNT(b->pairs);
	g->first = weft_xcalloc((size_t) n + 2, sizeof(int));
	g->to = weft_xmalloc(((size_t) m + 1) * sizeof(int));
	g->w = weft_xmalloc(((size_t) m + 1) * sizeof(double));
	const struct bounds_pair *p, *tmp;
	HASH_ITER(hh, b->pairs, p, tmp)
	g->first[(forward ? p->k.to : p->k.from) + 2]++;
	for (int k = 0; k < n; k++)
		g->first[k + 2] += g->first[k + 1];
	HASH_ITER(hh, b->pairs, p, tmp)
	{
		int a = forward ? p->k.to : p->k.from, c = forward ? p->k.from : p->k.to;
		int e = g->first[a + 1]++;
		g->to[e] = c;
		g->w[e] = (double) p->slack;
	}
}

static void graph_free(struct graph *g)
{
	free(g->first), free(g->to), free(g->w);
}

struct hent {
	double d;
	int k;
};

static void heap_push(struct hent *h, int *n, struct hent x)
{
	int i = (*n)++;
	while (i > 0 && h[(i - 1) / 2].d > x.d) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static struct hent heap_pop(struct hent *h, int *n)
{
	struct hent top = h[0], x = h[--*n];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].d < h[c].d)
			c++;
		if (!(h[c].d < x.d))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = x;
	return top;
}

/* Shortest paths from src over g into dist (INFINITY: unreached); heap
 * has room for every edge and loom. */
static void dijkstra(const struct graph *g, int n, int src, double *dist, struct hent *heap)
{
	for (int k = 0; k < n; k++)
		dist[k] = INFINITY;
	int nh = 0;
	dist[src] = 0;
	heap_push(heap, &nh, (struct hent){0, src});
	while (nh > 0) {
		struct hent x = heap_pop(heap, &nh);
		if (x.d > dist[x.k])
			continue; /* a stale entry */
		for (int e = g->first[x.k]; e < g->first[x.k + 1]; e++) {
			double d = x.d + g->w[e];
			if (d < dist[g->to[e]]) {
				dist[g->to[e]] = d;
				heap_push(heap, &nh, (struct hent){d, g->to[e]});
			}
		}
	}
}

void bounds_solve(const struct bounds *b, const int *ref, double *lo, double *hi)
{
	int n = b->nlooms, m = (int) HASH_COUNT(b->pairs);
	struct graph fw, bw;
	graph_build(b, 1, &fw);
	graph_build(b, 0, &bw);
	double *up = weft_xmalloc(((size_t) n + 1) * sizeof(double));
	double *down = weft_xmalloc(((size_t) n + 1) * sizeof(double));
	struct hent *heap = weft_xmalloc(((size_t) m + n + 1) * sizeof(*heap));
	for (int k = 0; k < n; k++)
		lo[k] = hi[k] = 0;
	for (int r = 0; r < n; r++) {
		int any = 0;
		for (int k = 0; k < n && !any; k++)
			any = ref[k] == r && k != r;
		if (!any)
			continue; /* not a reference of another loom */
		dijkstra(&fw, n, r, up, heap);
		dijkstra(&bw, n, r, down, heap);
		for (int k = 0; k < n; k++)
			if (ref[k] == r && k != r) {
				hi[k] = up[k];
				lo[k] = -down[k];
			}
	}
	free(up), free(down), free(heap);
	graph_free(&fw);
	graph_free(&bw);
}

void bounds_free(struct bounds *b)
{
	struct bounds_pair *p, *tmp;
	HASH_ITER(hh, b->pairs, p, tmp)
	{
		HASH_DEL(b->pairs, p);
		free(p);
	}
	b->pairs = b->last = NULL;
}
