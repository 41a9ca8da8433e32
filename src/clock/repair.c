/* SPDX-License-Identifier: GPL-3.0-or-later */
/* repair: tents and their envelope (repair.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock/repair.h"
#include "util/err.h"

void repair_init(struct repair *r, int nlooms, int64_t min_latency)
{
	memset(r, 0, sizeof(*r));
	r->nlooms = nlooms;
	r->min_latency = min_latency;
	r->gamma = REPAIR_GAMMA;
	r->loom = weft_xcalloc((size_t) nlooms + 1, sizeof(*r->loom));
}

/* Does tent a cover tent b (b's tent nowhere above a's)? */
static int covers(const struct repair *r, const struct repair_tent *a, const struct repair_tent *b)
{
	double dt = fabs((double) a->t - (double) b->t);
	return a->d - r->gamma * dt >= b->d;
}

static int tcmp(const void *x, const void *y)
{
	const struct repair_tent *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* Sort, drop covered tents; beyond REPAIR_MAX / 2, merge neighbours. */
static void tidy(struct repair *r, struct repair_loom *l)
{
	qsort(l->tent, (size_t) l->n, sizeof(*l->tent), tcmp);
	int k = 0;
	for (int i = 0; i < l->n; i++) {
		while (k > 0 && covers(r, &l->tent[i], &l->tent[k - 1]))
			k--;
		if (k > 0 && covers(r, &l->tent[k - 1], &l->tent[i]))
			continue;
		l->tent[k++] = l->tent[i];
	}
	l->n = k;
	while (l->n > REPAIR_MAX / 2) {
		/* one tent over each pair of neighbours: the later time, the height that covers both */
		int m = 0;
		for (int i = 0; i < l->n; i += 2) {
			struct repair_tent t = l->tent[i];
			if (i + 1 < l->n) {
				struct repair_tent u = l->tent[i + 1];
				double need = t.d + r->gamma * (double) (u.t - t.t);
				t.t = u.t;
				t.d = need > u.d ? need : u.d;
			}
			l->tent[m++] = t;
		}
		l->n = m;
	}
}

void repair_add(struct repair *r, int to, uint64_t send, uint64_t recv)
{
	uint64_t want = send + (uint64_t) r->min_latency;
	if (recv >= want)
		return;
	r->nviol++;
	struct repair_loom *l = &r->loom[to];
	/* where the receive was before the moves so far (x + move(x) = recv:
	 * the moves' slopes are below 1, so this converges), and its move */
	double had = repair_move_at(r, to, recv);
	uint64_t at = recv;
	for (int it = 0; it < 6 && had > 0; it++) {
		at = recv - (uint64_t) llround(had);
		had = repair_move_at(r, to, at);
	}
	struct repair_tent t = {at, had + (double) (want - recv) + 1};
	if (t.d > r->largest)
		r->largest = t.d;
	if (l->n > l->nsorted && covers(r, &l->tent[l->n - 1], &t))
		return;
	if (l->n == l->cap) {
		if (l->cap >= REPAIR_MAX) {
			tidy(r, l);
			l->nsorted = l->n;
		} else {
			l->cap = l->cap ? 2 * l->cap : 16;
			l->tent = weft_xrealloc(l->tent, (size_t) l->cap * sizeof(*l->tent));
		}
	}
	l->tent[l->n++] = t;
}

static void point(uint64_t **at, double **v, int *n, int *cap, double t, double val)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*at = weft_xrealloc(*at, (size_t) *cap * sizeof(**at));
		*v = weft_xrealloc(*v, (size_t) *cap * sizeof(**v));
	}
	uint64_t ti = t <= 0 ? 0 : (uint64_t) llround(t);
	if (*n > 0 && ti <= (*at)[*n - 1])
		ti = (*at)[*n - 1] + 1;
	(*at)[*n] = ti;
	(*v)[*n] = val;
	(*n)++;
}

void repair_moves(struct repair *r, int k, int64_t shift, uint64_t **at, double **value, int *n)
{
	struct repair_loom *l = &r->loom[k];
	*at = NULL, *value = NULL, *n = 0;
	int cap = 0;
	if (!l->n)
		return;
	tidy(r, l);
	l->nsorted = l->n;
	double g = r->gamma, sh = (double) shift;
	for (int i = 0; i < l->n; i++) {
		const struct repair_tent *a = &l->tent[i];
		double ta = (double) a->t - sh;
		if (i == 0 && ta - a->d / g >= 0)
			point(at, value, n, &cap, ta - a->d / g, 0);
		else if (i == 0) /* a ramp from before the run: its height at time 0 */
			point(at, value, n, &cap, 0, a->d - g * ta);
		point(at, value, n, &cap, ta, a->d);
		if (i + 1 < l->n) {
			const struct repair_tent *b = &l->tent[i + 1];
			double tb = (double) b->t - sh;
			double ts = (ta + tb + (a->d - b->d) / g) / 2, vs = a->d - g * (ts - ta);
			if (vs > 0) {
				point(at, value, n, &cap, ts, vs);
			} else {
				point(at, value, n, &cap, ta + a->d / g, 0);
				point(at, value, n, &cap, tb - b->d / g, 0);
			}
		} else {
			point(at, value, n, &cap, ta + a->d / g, 0);
		}
	}
	/* times are whole ns: keep every slope within gamma after the rounding */
	for (int i = 1; i < *n; i++) {
		double lim = (*value)[i - 1] + g * (double) ((*at)[i] - (*at)[i - 1]);
		(*value)[i] = (*value)[i] < lim ? (*value)[i] : lim;
	}
	for (int i = *n - 2; i >= 0; i--) {
		double lim = (*value)[i + 1] + g * (double) ((*at)[i + 1] - (*at)[i]);
		(*value)[i] = (*value)[i] < lim ? (*value)[i] : lim;
	}
}

double repair_move_at(const struct repair *r, int k, uint64_t t)
{
	const struct repair_loom *l = &r->loom[k];
	int n = l->nsorted, lo = 0, hi = n;
	while (lo < hi) { /* the first tent at or after t */
		int mid = (lo + hi) / 2;
		if (l->tent[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* only tents within reach of the largest can be above 0 */
	double reach = r->largest / r->gamma, m = 0;
	for (int i = lo; i < n && (double) (l->tent[i].t - t) <= reach; i++) {
		double v = l->tent[i].d - r->gamma * (double) (l->tent[i].t - t);
		m = v > m ? v : m;
	}
	for (int i = lo - 1; i >= 0 && (double) (t - l->tent[i].t) <= reach; i--) {
		double v = l->tent[i].d - r->gamma * (double) (t - l->tent[i].t);
		m = v > m ? v : m;
	}
	return m;
}

void repair_round(struct repair *r)
{
	for (int k = 0; k < r->nlooms; k++) {
		struct repair_loom *l = &r->loom[k];
		if (l->n > l->nsorted)
			tidy(r, l);
		l->nsorted = l->n;
	}
	r->nviol = 0;
}

void repair_free(struct repair *r)
{
	for (int k = 0; k < r->nlooms; k++)
		free(r->loom[k].tent);
	free(r->loom);
	memset(r, 0, sizeof(*r));
}
