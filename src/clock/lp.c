/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lp: primal simplex with rows brought in when they block (see lp.h).
 *
 * The tableau has one row per row met (k rows) and n + 1 columns: row i
 * says x_basic[i] + sum_j T[i][j] x_nonbasic[j] = T[i][n]. Variables are
 * numbered 0..n-1 (the x's) and n + r (the slack of row r). The cost row
 * holds the reduced costs and, in column n, minus the objective. For the x's
 * `pos` says where each is: its tableau row (>= 0) or its column (-1 - j). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "clock/lp.h"

#define EPS 1e-9
#define STALL 2000 /* steps without gain that end a stalled run (see lp_solve) */
#define EPS_PIVOT 1e-7 /* smaller pivots would blow rounding up */
#define EPS_COST 1e-7 /* reduced costs below are rounding (costs are of order 1) */
#define PERTURB 1e-7 /* of the largest |b| */

struct lp {
	int n, m;
	const struct lp_row *rows;
	int k, cap;            /* tableau rows used, allocated */
	double *T;             /* cap x (n + 1) */
	double *cost;          /* n + 1 */
	int *basic;            /* cap */
	int *nonbasic;         /* n */
	int *pos;              /* n: row i >= 0, or -1 - column */
	int *in;               /* m: tableau row of row r, or -1 */
	double *x, *dx;        /* n: the point, the step's direction */
	double scale;          /* largest |b|, for tolerances */
	double *b;             /* m: the rows' b, perturbed */
	/* Rows outside are skipped without a product when they cannot block:
	 * a row's slack was s when the point had moved `moved` (the sum of
	 * step x largest |direction| over the steps); since, it fell by at most
	 * L (the sum of its |a|) times what the point moved after. key = s / L +
	 * moved then: the row may block a step of length t along a direction of
	 * largest entry D only if key < moved + t D. */
	double *key;           /* m */
	double *L;             /* m: sum of |a| (0: a row that never blocks) */
	double moved;
	double D;              /* largest |direction| of the step under way */
};

struct lp *lp_new(int n, const struct lp_row *rows, int m)
{
	struct lp *p = weft_xcalloc(1, sizeof(*p));
	p->n = n;
	p->m = m;
	p->rows = rows;
	p->cost = weft_xcalloc((size_t) n + 1, sizeof(double));
	p->nonbasic = weft_xmalloc(((size_t) n + 1) * sizeof(int));
	p->pos = weft_xmalloc(((size_t) n + 1) * sizeof(int));
	p->in = weft_xmalloc(((size_t) m + 1) * sizeof(int));
	p->x = weft_xcalloc((size_t) n + 1, sizeof(double));
	p->dx = weft_xcalloc((size_t) n + 1, sizeof(double));
	for (int j = 0; j < n; j++) {
		p->nonbasic[j] = j;
		p->pos[j] = -1 - j;
	}
	p->scale = 1;
	for (int r = 0; r < m; r++) {
		p->in[r] = -1;
		if (fabs(rows[r].b) > p->scale)
			p->scale = fabs(rows[r].b);
	}
	/* Every b raised by its own small amount, far above the tolerance and far
	 * below what the answers need: no two rows meet at a vertex by accident,
	 * so the method does not stall on degenerate vertices (programs of many
	 * nearly parallel rows, such as a max-min slack, have them everywhere).
	 * The amounts come from the row number: the same input, the same result. */
	p->b = weft_xmalloc(((size_t) m + 1) * sizeof(double));
	p->key = weft_xmalloc(((size_t) m + 1) * sizeof(double));
	p->L = weft_xmalloc(((size_t) m + 1) * sizeof(double));
	for (int r = 0; r < m; r++) {
		uint32_t h = (uint32_t) r * 2654435761u;
		p->b[r] = rows[r].b + PERTURB * p->scale * (1 + (double) (h >> 8) / (double) (1u << 24));
		p->L[r] = 0;
		for (int q = 0; q < rows[r].nz; q++)
			p->L[r] += fabs(rows[r].a[q]);
		p->key[r] = p->L[r] > 0 ? p->b[r] / p->L[r] : INFINITY; /* at the origin */
	}
	return p;
}

void lp_free(struct lp *p)
{
	if (!p)
		return;
	free(p->T);
	free(p->cost);
	free(p->basic);
	free(p->nonbasic);
	free(p->pos);
	free(p->in);
	free(p->x);
	free(p->dx);
	free(p->b);
	free(p->key);
	free(p->L);
	free(p);
}

int lp_tableau_rows(const struct lp *p)
{
	return p->k;
}

static double *trow(const struct lp *p, int i)
{
	return p->T + (size_t) i * ((size_t) p->n + 1);
}

/* Row r into the tableau, in the current nonbasic variables; its slack is
 * basic. Returns its tableau row. */
static int bring_in(struct lp *p, int r)
{
	size_t w = (size_t) p->n + 1;
	if (p->k == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->T = weft_xrealloc(p->T, (size_t) p->cap * w * sizeof(double));
		p->basic = weft_xrealloc(p->basic, (size_t) p->cap * sizeof(int));
	}
	int i = p->k++;
	double *row = trow(p, i);
	memset(row, 0, w * sizeof(double));
	const struct lp_row *lr = &p->rows[r];
	row[p->n] = p->b[r];
	for (int q = 0; q < lr->nz; q++) {
		int v = lr->j[q], at = p->pos[v];
		double a = lr->a[q];
		if (at < 0) {
			row[-1 - at] += a;
		} else { /* basic: substitute its row */
			const double *src = trow(p, at);
			for (size_t j = 0; j < w; j++)
				row[j] -= a * src[j];
		}
	}
	/* basic slack columns of other rows stay 0: only x's have coefficients */
	p->basic[i] = p->n + r;
	p->in[r] = i;
	return i;
}

static void pivot(struct lp *p, int pr, int pc)
{
	size_t w = (size_t) p->n + 1;
	double *prow = trow(p, pr);
	double piv = prow[pc];
	for (size_t j = 0; j < w; j++)
		prow[j] /= piv;
	prow[pc] = 1 / piv;
	for (int i = 0; i <= p->k; i++) {
		if (i == pr)
			continue;
		double *row = i < p->k ? trow(p, i) : p->cost;
		double f = row[pc];
		if (f == 0)
			continue;
		for (size_t j = 0; j < w; j++)
			row[j] -= f * prow[j];
		row[pc] = -f / piv;
	}
	int out = p->basic[pr], inv = p->nonbasic[pc];
	p->basic[pr] = inv;
	p->nonbasic[pc] = out;
	if (inv < p->n)
		p->pos[inv] = pr;
	if (out < p->n)
		p->pos[out] = -1 - pc;
	for (int v = 0; v < p->n; v++)
		p->x[v] = p->pos[v] >= 0 ? trow(p, p->pos[v])[p->n] : 0;
}

/* Rows whose slack is basic and positive do not bind: out of the tableau
 * they go (the ratio test over the rows outside brings them back if they
 * block a later step), so the tableau stays near n rows however many rows
 * were met on the way. */
static void drop_loose(struct lp *p)
{
	size_t w = (size_t) p->n + 1;
	int i = 0;
	while (i < p->k) {
		double *row = trow(p, i);
		int v = p->basic[i];
		if (v < p->n || row[p->n] <= EPS * p->scale * 1e3) {
			i++;
			continue;
		}
		p->in[v - p->n] = -1;
		int last = --p->k;
		if (i != last) {
			memcpy(row, trow(p, last), w * sizeof(double));
			p->basic[i] = p->basic[last];
			if (p->basic[i] < p->n)
				p->pos[p->basic[i]] = i;
		}
	}
}

/* Reduced costs of objective c under the current basis. */
static void set_cost(struct lp *p, const double *c)
{
	int n = p->n;
	for (int j = 0; j < n; j++)
		p->cost[j] = p->nonbasic[j] < n ? c[p->nonbasic[j]] : 0;
	p->cost[n] = 0;
	for (int i = 0; i < p->k; i++) {
		int v = p->basic[i];
		if (v >= n || c[v] == 0)
			continue;
		const double *row = trow(p, i);
		for (int j = 0; j <= n; j++)
			p->cost[j] -= c[v] * row[j];
	}
}

/* The direction of the x's when nonbasic column pc grows by one. */
static void direction(struct lp *p, int pc)
{
	for (int v = 0; v < p->n; v++)
		p->dx[v] = p->pos[v] >= 0 ? -trow(p, p->pos[v])[pc] : (p->pos[v] == -1 - pc ? 1 : 0);
}

/* Primal step: the entering column (largest reduced cost, or Bland's
 * smallest index), -1 at an optimum over the tableau. */
static int entering(const struct lp *p, int bland)
{
	int pc = -1;
	for (int j = 0; j < p->n; j++) {
		if (p->cost[j] <= EPS_COST)
			continue;
		if (pc < 0 || (bland ? p->nonbasic[j] < p->nonbasic[pc] : p->cost[j] > p->cost[pc]))
			pc = j;
	}
	return pc;
}

/* Ratio test over the tableau for column pc: the row that blocks first
 * (ties: the smallest basic variable), -1 if none; its step in *step. */
static int leaving(const struct lp *p, int pc, double *step)
{
	int pr = -1, pvar = 0, n = p->n;
	double best = 0;
	for (int i = 0; i < p->k; i++) {
		double a = trow(p, i)[pc];
		if (a <= EPS_PIVOT)
			continue;
		double rhs = trow(p, i)[n];
		double t = (rhs > 0 ? rhs : 0) / a; /* a value a hair below 0 is rounding: 0 */
		if (pr < 0 || t < best - EPS * p->scale / a ||
		    (t <= best + EPS * p->scale / a && p->basic[i] < pvar)) {
			pr = i;
			best = t;
			pvar = p->basic[i];
		}
	}
	*step = best;
	return pr;
}

/* The rows outside, for a step along column pc that the tableau stops at
 * *step (pr >= 0) or not at all: the one that blocks first and earlier,
 * brought in (its tableau row, its step in *step), or -1. */
static int blocking(struct lp *p, int pc, int pr, double *step)
{
	direction(p, pc);
	double D = 0;
	for (int v = 0; v < p->n; v++)
		if (fabs(p->dx[v]) > D)
			D = fabs(p->dx[v]);
	/* beyond this key a row cannot block before the tableau's row does
	 * (with a margin for rounding) */
	double reach = pr < 0 ? INFINITY : p->moved + *step * D * (1 + 1e-9) + EPS * p->scale;
	int out = -1;
	double bo = 0;
	for (int r = 0; r < p->m; r++) {
		if (p->key[r] >= reach || p->in[r] >= 0)
			continue;
		const struct lp_row *lr = &p->rows[r];
		double ad = 0, ax = 0;
		for (int q = 0; q < lr->nz; q++) {
			ad += lr->a[q] * p->dx[lr->j[q]];
			ax += lr->a[q] * p->x[lr->j[q]];
		}
		double s = p->b[r] - ax;
		p->key[r] = s / p->L[r] + p->moved;
		if (ad <= EPS_PIVOT)
			continue;
		double t = (s > 0 ? s : 0) / ad;
		if ((out < 0 || t < bo) && (pr < 0 || t < *step - EPS * p->scale / ad))
			out = r, bo = t;
	}
	p->D = D;
	if (out < 0)
		return -1;
	*step = bo;
	return bring_in(p, out);
}

enum lp_status lp_solve(struct lp *p, const double *c, double *x, double *obj)
{
	int n = p->n;
	set_cost(p, c);
	long budget = 50L * ((long) p->m + n) + 1000;
	int degenerate = 0;
	double best_obj = -INFINITY;
	long since_gain = 0;
	enum lp_status st = LP_ITERLIMIT;
	while (budget-- > 0) {
		int pc = entering(p, degenerate > 50);
		if (pc < 0) {
			st = LP_OPTIMAL;
			break;
		}
		double step = 0;
		int pr = leaving(p, pc, &step);
		int out = blocking(p, pc, pr, &step);
		if (out >= 0)
			pr = out;
		if (pr < 0) {
			st = LP_UNBOUNDED;
			break;
		}
		degenerate = step <= EPS * p->scale ? degenerate + 1 : 0;
		/* On programs of nearly parallel rows rounding can keep a few
		 * reduced costs above the tolerance at what is the optimum up to
		 * rounding: the objective then wanders around its best without
		 * gaining. After STALL steps with no real gain the point (feasible
		 * for every row) is taken as the optimum. */
		double now = -p->cost[n];
		if (now > best_obj + 1e-9 * (fabs(best_obj) + 1)) {
			best_obj = now;
			since_gain = 0;
		} else if (++since_gain > STALL + 4L * n) {
			st = LP_OPTIMAL;
			break;
		}
		pivot(p, pr, pc);
		p->moved += (step > 0 ? step : 0) * p->D;
		if (p->k > n + 32)
			drop_loose(p);
	}
	if (st == LP_OPTIMAL) {
		memcpy(x, p->x, (size_t) n * sizeof(double));
		*obj = -p->cost[n];
	}
	return st;
}
