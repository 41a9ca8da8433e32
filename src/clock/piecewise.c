/* SPDX-License-Identifier: GPL-3.0-or-later */
/* piecewise: evaluation, inversion, composition (piecewise.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock/piecewise.h"
#include "util/err.h"

int64_t pw_corr(const struct clock_seg *s, int n, uint64_t t)
{
	return clock_correction(&clock_seg_at(s, n, t)->map, t);
}

uint64_t pw_invert(const struct clock_seg *s, int n, uint64_t g)
{
	/* the last segment whose start maps at or before g (maps increase) */
	int k = 0;
	while (k + 1 < n && s[k + 1].from + (uint64_t) pw_corr(s, n, s[k + 1].from) <= g)
		k++;
	uint64_t l = g - (uint64_t) clock_correction(&s[k].map, g);
	for (int it = 0; it < 4; it++)
		l = g - (uint64_t) clock_correction(&s[k].map, l);
	if (l < s[k].from)
		l = s[k].from;
	if (k + 1 < n && l >= s[k + 1].from)
		l = s[k + 1].from - 1;
	return l;
}

static int ucmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
	return x < y ? -1 : x > y;
}

/* The addition's line at corrected time g: value a0 at g0 and slope. */
static void add_line(const struct pw_add *a, uint64_t g, double *a0, uint64_t *g0, double *slope)
{
	*a0 = 0, *g0 = g, *slope = 0;
	if (a->n == 0 || g < a->at[0] || g >= a->at[a->n - 1])
		return;
	int lo = 0, hi = a->n - 1;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (a->at[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	*g0 = a->at[lo];
	*a0 = a->value[lo];
	*slope = (a->value[hi] - a->value[lo]) / (double) (a->at[hi] - a->at[lo]);
}

struct clock_seg *pw_compose_add(const struct clock_seg *s, int n, const struct pw_add *a, int *nout)
{
	int nb = n + a->n;
	uint64_t *b = weft_xmalloc(((size_t) nb + 1) * sizeof(uint64_t));
	for (int i = 0; i < n; i++)
		b[i] = s[i].from;
	for (int i = 0; i < a->n; i++)
		b[n + i] = pw_invert(s, n, a->at[i]);
	qsort(b, (size_t) nb, sizeof(uint64_t), ucmp);
	struct clock_seg *out = weft_xmalloc(((size_t) nb + 1) * sizeof(*out));
	int k = 0;
	for (int i = 0; i < nb; i++) {
		if (i > 0 && b[i] == b[i - 1])
			continue;
		const struct clock_seg *f = clock_seg_at(s, n, b[i]);
		/* the piece's middle decides which line of the addition applies */
		uint64_t end = i + 1 < nb ? b[i + 1] : b[i] + 2;
		uint64_t mid = b[i] + (end - b[i]) / 2;
		uint64_t gm = mid + (uint64_t) clock_correction(&f->map, mid);
		double a0, slope;
		uint64_t g0;
		add_line(a, gm, &a0, &g0, &slope);
		struct clock_seg seg = {b[i], f->map};
		if (a0 != 0 || slope != 0) {
			double d = slope * (double) CLOCK_PPT;
			d = d > (double) CLOCK_DRIFT_MAX ? (double) CLOCK_DRIFT_MAX : d;
			d = d < -(double) CLOCK_DRIFT_MAX ? -(double) CLOCK_DRIFT_MAX : d;
			struct clock_map outer = {llround(a0), llround(d), g0};
			/* rereferenced at the piece's start, then composed */
			struct clock_map inner = f->map;
			inner.offset = clock_correction(&f->map, b[i]);
			inner.tref = b[i];
			seg.map = clock_compose(&outer, &inner);
		}
		out[k++] = seg;
	}
	out[0].from = 0;
	free(b);
	*nout = k;
	return out;
}
