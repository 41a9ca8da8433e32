/* SPDX-License-Identifier: GPL-3.0-or-later */
/* estimate: streaming hulls per loom pair and the linear programs over
 * them (see estimate.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "clock/estimate.h"
#include "clock/lp.h"

#define BUF 512                 /* points buffered per link before a hull merge */
#define PENALTY 1e-6            /* one-sided components: weight of the correction size */

struct est_link {
	struct { int32_t from, to; } k;
	struct est_pt *hull;
	int nh, caph;
	struct est_pt buf[BUF];
	int nb;
	uint64_t n;
	UT_hash_handle hh;
};

void est_init(struct estimator *x, int nlooms, int64_t min_latency)
{
	memset(x, 0, sizeof(*x));
	x->nlooms = nlooms;
	x->min_latency = min_latency;
}

/* ---- hulls ------------------------------------------------------------------------ */

/* Points are (u, u - v); the upper hull keeps the largest u - v, the
 * tightest bounds. */
static int pt_cmp(const void *a, const void *b)
{
	const struct est_pt *p = a, *q = b;
	if (p->u != q->u)
		return p->u < q->u ? -1 : 1;
	int64_t dp = p->u - p->v, dq = q->u - q->v;
	return dp < dq ? -1 : dp > dq;
}

/* (a - o) x (b - o) in the (u, u - v) plane, exactly. */
static __int128 cross(const struct est_pt *o, const struct est_pt *a, const struct est_pt *b)
{
	__int128 ax = (__int128) a->u - o->u, ay = (__int128) (a->u - a->v) - (o->u - o->v);
	__int128 bx = (__int128) b->u - o->u, by = (__int128) (b->u - b->v) - (o->u - o->v);
	return ax * by - ay * bx;
}

static void hull_merge(struct est_link *l)
{
	if (!l->nb)
		return;
	qsort(l->buf, (size_t) l->nb, sizeof(*l->buf), pt_cmp);
	int n = l->nh + l->nb;
	struct est_pt *all = weft_xmalloc((size_t) n * sizeof(*all));
	int i = 0, j = 0, k = 0;
	while (i < l->nh || j < l->nb)
		all[k++] = (j >= l->nb || (i < l->nh && pt_cmp(&l->hull[i], &l->buf[j]) <= 0)) ? l->hull[i++]
											     : l->buf[j++];
	/* monotone chain, upper side; at equal u only the largest u - v counts */
	int h = 0;
	for (k = 0; k < n; k++) {
		if (h && all[h - 1].u == all[k].u)
			h--; /* all[k] has the larger u - v (sorted) */
		while (h >= 2 && cross(&all[h - 2], &all[h - 1], &all[k]) >= 0)
			h--;
		all[h++] = all[k];
	}
	free(l->hull);
	l->hull = all;
	l->nh = h;
	l->caph = n;
	l->nb = 0;
}

void est_add(struct estimator *x, int from, int to, int64_t u, int64_t v)
{
	if (from == to) {
		x->nself++;
		return;
	}
	x->nmsg++;
	if (v < u)
		x->nviol++;
	struct est_link *l = x->last;
	if (!l || l->k.from != from || l->k.to != to) {
		struct { int32_t from, to; } key = {from, to};
		HASH_FIND(hh, x->links, &key, sizeof(key), l);
		if (!l) {
			l = weft_xcalloc(1, sizeof(*l));
			l->k.from = from;
			l->k.to = to;
			HASH_ADD(hh, x->links, k, sizeof(l->k), l);
		}
		x->last = l;
	}
	l->n++;
	l->buf[l->nb].u = u;
	l->buf[l->nb].v = v;
	if (++l->nb == BUF)
		hull_merge(l);
}

/* ---- components ------------------------------------------------------------------- */

static int find(int *parent, int a)
{
	while (parent[a] != a)
		a = parent[a] = parent[parent[a]];
	return a;
}

struct comp {
	int *looms;     /* loom indices, the reference first */
	int k;
	int *var;       /* loom -> variable block (-1: the reference / not in it) */
	struct est_link **links;
	int nlinks;
	int m;          /* constraints (hull vertices) */
	struct lp_row *base; /* slack_r = b + row . x over the split variables */
	int nv;         /* 4 (k - 1) */
};

/* Row of a constraint over the split variables: slack = c + row . x (at
 * most 8 terms: p+, p-, q+, q- of the sender and of the receiver). */
static void fill_rows(struct comp *cp, const struct estimator *x, int64_t t0, double span)
{
	int r = 0;
	for (int i = 0; i < cp->nlinks; i++) {
		const struct est_link *l = cp->links[i];
		int vs = cp->var[l->k.from], vr = cp->var[l->k.to];
		for (int h = 0; h < l->nh; h++, r++) {
			struct lp_row *row = &cp->base[r];
			double alpha = (double) (l->hull[h].v - t0) / span, beta = (double) (l->hull[h].u - t0) / span;
			row->nz = 0;
			/* slack = (v - u - L) + p_r + q_r alpha - p_s - q_s beta */
			if (vr >= 0) {
				const double a[4] = {1, -1, alpha, -alpha};
				for (int q = 0; q < 4; q++)
					row->j[row->nz] = vr + q, row->a[row->nz++] = a[q];
			}
			if (vs >= 0) {
				const double a[4] = {-1, 1, -beta, beta};
				for (int q = 0; q < 4; q++)
					row->j[row->nz] = vs + q, row->a[row->nz++] = a[q];
			}
			row->b = (double) (l->hull[h].v - l->hull[h].u) - (double) x->min_latency;
		}
	}
}

static double slack_at(const struct comp *cp, int r, const double *y)
{
	const struct lp_row *row = &cp->base[r];
	double s = row->b;
	for (int q = 0; q < row->nz; q++)
		s += row->a[q] * y[row->j[q]];
	return s;
}

/* The constraint -row . x <= rhs (slack_r(x) >= b - rhs), and with `z`, one
 * more term + x[z]. */
static void negated(struct lp_row *out, const struct lp_row *row, double rhs, int z)
{
	out->nz = row->nz;
	for (int q = 0; q < row->nz; q++)
		out->j[q] = row->j[q], out->a[q] = -row->a[q];
	if (z >= 0)
		out->j[out->nz] = z, out->a[out->nz++] = 1;
	out->b = rhs;
}

/* maximise z (slack_r >= z for all r); penalty > 0: minus penalty x |x|,
 * with z <= 0. Returns the LP status; y gets the split variables. */
static enum lp_status max_min(const struct comp *cp, double penalty, double *y, double *z)
{
	int m = cp->m + (penalty > 0), n = cp->nv + 1;
	double zmin = 0;
	for (int r = 0; r < cp->m; r++)
		if (r == 0 || cp->base[r].b < zmin)
			zmin = cp->base[r].b;
	struct lp_row *rows = weft_xmalloc((size_t) m * sizeof(*rows));
	double *cost = weft_xcalloc((size_t) n, sizeof(double));
	double *sol = weft_xcalloc((size_t) n, sizeof(double));
	/* z = z' + zmin, z' >= 0: -row . x + z' <= c - zmin */
	for (int r = 0; r < cp->m; r++)
		negated(&rows[r], &cp->base[r], cp->base[r].b - zmin, cp->nv);
	if (penalty > 0) {
		rows[cp->m] = (struct lp_row) {.nz = 1, .j = {cp->nv}, .a = {1}, .b = zmin < 0 ? -zmin : 0};
		for (int j = 0; j < cp->nv; j++)
			cost[j] = -penalty;
	}
	cost[cp->nv] = 1;
	double obj;
	struct lp *p = lp_new(n, rows, m);
	enum lp_status st = lp_solve(p, cost, sol, &obj);
	if (st == LP_OPTIMAL) {
		memcpy(y, sol, (size_t) cp->nv * sizeof(double));
		*z = sol[cp->nv] + zmin;
	}
	lp_free(p);
	free(rows);
	free(cost);
	free(sol);
	return st;
}

static void solve_comp(struct comp *cp, struct est_result *res)
{
	int nv = cp->nv;
	double *y = weft_xcalloc((size_t) nv + 1, sizeof(double));
	double z = 0;
	enum est_status st = EST_ESTIMATED;
	enum lp_status ls = max_min(cp, 0, y, &z);
	if (ls != LP_OPTIMAL) {
		st = EST_ONE_SIDED;
		memset(y, 0, (size_t) nv * sizeof(double));
		if (max_min(cp, PENALTY, y, &z) != LP_OPTIMAL)
			memset(y, 0, (size_t) nv * sizeof(double)), z = 0;
	}
	if (z < -0.5)
		st = EST_INCONSISTENT;
	if (z < res->min_slack || res->ncomponents == 1)
		res->min_slack = z;
	int bounded = st == EST_ESTIMATED;
	double *w = weft_xcalloc((size_t) nv + 1, sizeof(double));
	double *d = weft_xcalloc((size_t) nv + 1, sizeof(double));
	double *lo = weft_xcalloc((size_t) nv + 1, sizeof(double)); /* per loom: lo0 hi0 lo1 hi1 */
	/* bounds at T0 (p) and T1 (p + q) for every non-reference loom: max of
	 * w . d over the moves d from y that leave every slack >= 0, one program
	 * solved for 4 (k - 1) objectives, each from the last one's vertex */
	struct lp_row *rows = NULL;
	struct lp *p = NULL;
	if (bounded) {
		rows = weft_xmalloc(((size_t) cp->m + 1) * sizeof(*rows));
		for (int r = 0; r < cp->m; r++) {
			double s0 = slack_at(cp, r, y);
			negated(&rows[r], &cp->base[r], s0 > 0 ? s0 : 0, -1);
		}
		p = lp_new(nv, rows, cp->m);
	}
	for (int i = 1; i < cp->k && bounded; i++) {
		int v = cp->var[cp->looms[i]];
		/* neighbouring objectives one after the other: the vertex of one is
		 * near the next one's (max at T0, max at T1, min at T1, min at T0) */
		static const int order[4] = {0, 1, 2, 3};
		for (int o = 0; o < 4 && bounded; o++) {
			int which = order[o];
			memset(w, 0, (size_t) nv * sizeof(double));
			double sg = which & 1 ? 1 : -1; /* even: minimise (max -), odd: maximise */
			w[v] = sg, w[v + 1] = -sg;
			if (which >= 2)
				w[v + 2] = sg, w[v + 3] = -sg;
			double ext;
			if (lp_solve(p, w, d, &ext) != LP_OPTIMAL) {
				bounded = 0;
				break;
			}
			double here = (y[v] - y[v + 1]) + (which >= 2 ? y[v + 2] - y[v + 3] : 0);
			lo[v + which] = here + sg * ext;
		}
	}
	lp_free(p);
	free(rows);
	for (int i = 0; i < cp->k; i++) {
		int l = cp->looms[i], v = cp->var[l];
		struct est_loom *el = &res->loom[l];
		el->component = res->ncomponents - 1;
		el->reference = cp->looms[0];
		if (i == 0) {
			el->status = EST_REFERENCE;
			continue;
		}
		el->status = st;
		el->p = y[v] - y[v + 1];
		el->q = y[v + 2] - y[v + 3];
		el->bounded = bounded;
		if (bounded) {
			el->lo0 = lo[v], el->hi0 = lo[v + 1];
			el->lo1 = lo[v + 2], el->hi1 = lo[v + 3];
		}
	}
	free(w);
	free(d);
	free(lo);
	free(y);
}

int est_solve(struct estimator *x, int64_t t0, int64_t t1, struct est_result *r, struct weft_err *e)
{
	(void) e; /* no size limit any more: the programs hold only the rows they meet */
	memset(r, 0, sizeof(*r));
	r->t0 = t0;
	r->t1 = t1 > t0 ? t1 : t0 + 1;
	double span = (double) (r->t1 - r->t0);
	int n = x->nlooms;
	r->loom = weft_xcalloc((size_t) n + 1, sizeof(*r->loom));
	int *parent = weft_xmalloc((size_t) (n + 1) * sizeof(int));
	for (int i = 0; i < n; i++)
		parent[i] = i;
	struct est_link *l, *tmp;
	HASH_ITER(hh, x->links, l, tmp) {
		hull_merge(l);
		r->nlinks++;
		r->nconstraints += (uint64_t) l->nh;
		r->loom[l->k.from].nmsg += l->n;
		r->loom[l->k.to].nmsg += l->n;
		int a = find(parent, l->k.from), b = find(parent, l->k.to);
		if (a != b)
			parent[a < b ? b : a] = a < b ? a : b; /* the smallest index is the root */
	}
	x->hull_points = r->nconstraints;
	int rc = 0;
	struct comp cp;
	memset(&cp, 0, sizeof(cp));
	cp.looms = weft_xmalloc((size_t) (n + 1) * sizeof(int));
	cp.var = weft_xmalloc((size_t) (n + 1) * sizeof(int));
	cp.links = weft_xmalloc(((size_t) r->nlinks + 1) * sizeof(*cp.links));
	for (int root = 0; root < n && rc == 0; root++) {
		if (find(parent, root) != root)
			continue;
		cp.k = 0;
		for (int i = 0; i < n; i++) {
			cp.var[i] = -1;
			if (find(parent, i) == root)
				cp.looms[cp.k++] = i; /* root (the smallest) first: the reference */
		}
		if (cp.k < 2)
			continue;
		for (int i = 1; i < cp.k; i++)
			cp.var[cp.looms[i]] = 4 * (i - 1);
		cp.nv = 4 * (cp.k - 1);
		cp.nlinks = 0;
		cp.m = 0;
		HASH_ITER(hh, x->links, l, tmp) {
			if (find(parent, l->k.from) == root) {
				cp.links[cp.nlinks++] = l;
				cp.m += l->nh;
			}
		}
		r->ncomponents++;
		cp.base = weft_xmalloc(((size_t) cp.m + 1) * sizeof(*cp.base));
		fill_rows(&cp, x, r->t0, span);
		solve_comp(&cp, r);
		free(cp.base);
	}
	free(cp.looms);
	free(cp.var);
	free(cp.links);
	free(parent);
	return rc;
}

uint64_t est_check(const struct estimator *x, const struct est_result *r)
{
	uint64_t bad = 0;
	double span = (double) (r->t1 - r->t0);
	struct est_link *l, *tmp;
	HASH_ITER(hh, x->links, l, tmp) {
		const struct est_loom *s = &r->loom[l->k.from], *d = &r->loom[l->k.to];
		for (int h = 0; h < l->nh; h++) {
			double u = (double) (l->hull[h].u - r->t0), v = (double) (l->hull[h].v - r->t0);
			double fs = u + s->p + s->q * u / span, fr = v + d->p + d->q * v / span;
			if (fr < fs)
				bad++;
		}
	}
	return bad;
}

void est_result_free(struct est_result *r)
{
	free(r->loom);
	memset(r, 0, sizeof(*r));
}

void est_free(struct estimator *x)
{
	struct est_link *l, *tmp;
	HASH_ITER(hh, x->links, l, tmp) {
		HASH_DEL(x->links, l);
		free(l->hull);
		free(l);
	}
	memset(x, 0, sizeof(*x));
}
