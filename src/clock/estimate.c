/* SPDX-License-Identifier: GPL-3.0-or-later */
/* estimate: bins per loom pair, least-squares fits, breaks (estimate.h).
 * Over 700 lines: the bins, the two fits with their two solvers (conjugate
 * gradients and the band factorisation share the rows and weights), the
 * breaks and their second pass are one method whose parts share the fit's
 * numbering of unknowns; split, each part would export it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "clock/estimate.h"

#define EMPTY INT64_MIN
#define SHIFT0 20 /* first bin width: 2^20 ns, about 1 ms */
#define TREND_BINS 16 /* bins the running trend is fitted to */
#define LAMBDA 0.1 /* grid fit: weight of the second differences */
#define MU 1e-2 /* weight of the latency prior D = L */
#define RIDGE 1e-9 /* keeps unseen unknowns at 0 */
#define CG_TOL 1e-9
#define CG_MAX 20000
#define NSUB 4096 /* buckets of a break's window (est_locate) */
#define NOISE_K 8.0 /* a break departs from a line by this many sigmas */
#define TAU 0.95 /* expectile: weight of points above the fit (1 - TAU below) */
#define BAND_WORK 4e8 /* band solver when nb bw^2 is below */
#define IRLS 4 /* reweighted fits */
#define OUTLIER 100000.0 /* ns below the fit: a bound too loose to count */
#define MIN_SEG 5 /* knots of the shortest segment */
#define FULL_BIN 8 /* messages of a bin of full weight */
#define PER_KNOT 4 /* grid: bin points per pair and interval */

struct est_bin {
	int64_t u, y; /* y = u - v; u EMPTY: no message */
	int64_t n; /* messages that fell in the bin */
};

struct est_link {
	struct { int32_t from, to; } k;
	int shift, top; /* bin width 2^shift; highest bin used */
	double trend; /* running slope of y (the pair's relative drift) */
	uint64_t n;
	UT_hash_handle hh;
	struct est_bin bin[];
};

/* A break to locate: between segments idx - 1 and idx of loom k, in [lo, hi). */
struct est_change {
	int k, idx;
	int64_t lo, hi;
	double bad[2][NSUB]; /* bounds crossed with the left (0) / right (1) line */
};

void est_init(struct estimator *x, int nlooms, int64_t min_latency, int64_t origin)
{
	memset(x, 0, sizeof(*x));
	x->nlooms = nlooms;
	x->min_latency = min_latency;
	x->origin = origin;
	/* bins: 8 MiB for all pairs of a full mesh, 32 to 512 per pair */
	double pairs = (double) nlooms * (nlooms > 1 ? nlooms - 1 : 1);
	double b = (8.0 * 1024 * 1024 / sizeof(struct est_bin)) / pairs;
	x->nbins = b > 512 ? 512 : b < 32 ? 32 : (int) b;
}

/* ---- bins ------------------------------------------------------------------------- */

static double key(const struct est_link *l, const struct est_bin *b)
{
	return (double) b->y - l->trend * (double) b->u;
}

/* The slope of y over the last TREND_BINS bins used (least squares). */
static void retrend(struct est_link *l)
{
	double n = 0, su = 0, sy = 0, suu = 0, suy = 0;
	int got = 0;
	for (int i = l->top; i >= 0 && got < TREND_BINS; i--) {
		const struct est_bin *b = &l->bin[i];
		if (b->u == EMPTY)
			continue;
		double u = (double) (b->u - l->bin[l->top].u), y = (double) (b->y - l->bin[l->top].y);
		n++, su += u, sy += y, suu += u * u, suy += u * y;
		got++;
	}
	double d = n * suu - su * su;
	if (got >= 3 && d > 0)
		l->trend = (n * suy - su * sy) / d;
}

static void put(const struct est_link *l, struct est_bin *b, int64_t u, int64_t y, int64_t n)
{
	struct est_bin c = {u, y, n};
	if (b->u == EMPTY) {
		*b = c;
		return;
	}
	c.n += b->n;
	if (key(l, &c) > key(l, b))
		*b = c;
	else
		b->n = c.n;
}

/* Twice the bin width: bins 2i and 2i + 1 become bin i. */
static void widen(struct est_link *l, int nbins)
{
	for (int i = 0; i < nbins / 2; i++) {
		struct est_bin a = l->bin[2 * i], b = l->bin[2 * i + 1];
		l->bin[i] = a;
		if (b.u != EMPTY)
			put(l, &l->bin[i], b.u, b.y, b.n);
	}
	for (int i = nbins / 2; i < nbins; i++)
		l->bin[i].u = EMPTY;
	l->shift++;
	l->top /= 2;
}

static struct est_link *link_of(struct estimator *x, int from, int to)
{
	struct est_link *l = x->last;
	if (l && l->k.from == from && l->k.to == to)
		return l;
	struct {
		int32_t from, to;
	} k = {from, to};
	HASH_FIND(hh, x->links, &k, sizeof(k), l);
	if (!l) {
		l = weft_xcalloc(1, sizeof(*l) + (size_t) x->nbins * sizeof(struct est_bin));
		l->k.from = from;
		l->k.to = to;
		l->shift = SHIFT0;
		l->top = -1;
		for (int i = 0; i < x->nbins; i++)
			l->bin[i].u = EMPTY;
		HASH_ADD(hh, x->links, k, sizeof(l->k), l);
		x->nlinks++;
	}
	x->last = l;
	return l;
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
	struct est_link *l = link_of(x, from, to);
	l->n++;
	int64_t rel = u > x->origin ? u - x->origin : 0;
	while ((rel >> l->shift) >= x->nbins)
		widen(l, x->nbins);
	int i = (int) (rel >> l->shift);
	if (i > l->top) {
		if (l->top >= 0)
			retrend(l);
		l->top = i;
	}
	put(l, &l->bin[i], u, u - v, 1);
}

/* ---- the least-squares fits --------------------------------------------------------- */

/* The unknowns: per loom either grid knots (G + 1) or two per segment
 * (value at its start, change over it); per component one latency D. */
struct fit {
	const struct estimator *x;
	struct est_result *r;
	int grid; /* 1: knots, 0: segments */
	int G; /* grid intervals */
	double t0, W; /* grid origin and interval */
	int *base; /* per loom: first unknown, -1: none (reference or unlinked) */
	int *dvar; /* per component: D's unknown */
	int n; /* unknowns */
	/* segment fit: points within a break's guard are left out */
	double guard;
	const double *prev; /* the last fit (NULL: every weight 1) */
};

/* The terms of c_k(t): up to two (index, weight). */
static int terms(const struct fit *f, int k, double t, int *j, double *w)
{
	int b = f->base[k];
	if (b < 0)
		return 0;
	if (f->grid) {
		double s = (t - f->t0) / f->W;
		int i = (int) floor(s);
		if (i < 0)
			i = 0;
		if (i > f->G - 1)
			i = f->G - 1;
		double a = s - i;
		j[0] = b + i, w[0] = 1 - a;
		j[1] = b + i + 1, w[1] = a;
		return 2;
	}
	const struct est_loom *l = &f->r->loom[k];
	int s = 0;
	while (s + 1 < l->nseg && (double) l->seg[s + 1].from <= t)
		s++;
	double end = s + 1 < l->nseg ? (double) l->seg[s + 1].from : (double) f->r->t1;
	double len = end - (double) l->seg[s].from;
	j[0] = b + 2 * s, w[0] = 1;
	j[1] = b + 2 * s + 1, w[1] = len > 0 ? (t - (double) l->seg[s].from) / len : 0;
	return 2;
}

/* Is t within the guard of a break of loom k (segment fit)? */
static int near_break(const struct fit *f, int k, double t)
{
	const struct est_loom *l = &f->r->loom[k];
	for (int s = 1; s < l->nseg; s++)
		if (fabs(t - (double) l->seg[s].from) < f->guard)
			return 1;
	return 0;
}

struct row {
	int nz;
	int j[5];
	double a[5];
	double y, w;
};

/* The point's row: c_to(v) - c_from(u) - D = y. 0: left out. */
static int make_row(const struct fit *f, const struct est_link *l, const struct est_bin *b, struct row *rw)
{
	int s = l->k.from, d = l->k.to;
	double u = (double) b->u, v = (double) (b->u - b->y);
	if (!f->grid && (near_break(f, s, u) || near_break(f, d, v)))
		return 0;
	int j[2];
	double w[2];
	rw->nz = 0;
	int n = terms(f, d, v, j, w);
	for (int q = 0; q < n; q++)
		rw->j[rw->nz] = j[q], rw->a[rw->nz++] = w[q];
	n = terms(f, s, u, j, w);
	for (int q = 0; q < n; q++)
		rw->j[rw->nz] = j[q], rw->a[rw->nz++] = -w[q];
	rw->j[rw->nz] = f->dvar[f->r->loom[s].component], rw->a[rw->nz++] = -1;
	rw->y = (double) b->y;
	/* a bin of few messages is a loose bound */
	rw->w = b->n >= FULL_BIN ? 1 : (double) b->n / FULL_BIN;
	return 1;
}

/* The fit's rows: every bin point make_row keeps, link by link, of the
 * links whose looms are in a component. */
struct rows {
	const struct fit *f;
	const struct est_link *l;
	int i; /* the bin last returned in l */
};

static void rows_begin(struct rows *it, const struct fit *f)
{
	it->f = f;
	it->l = f->x->links;
	it->i = -1;
}

/* The next row into *rw: 1, or 0 after the last. */
static inline int rows_next(struct rows *it, struct row *rw)
{
	for (; it->l; it->l = it->l->hh.next, it->i = -1) {
		const struct est_link *l = it->l;
		if (it->f->r->loom[l->k.from].component < 0)
			continue;
		while (++it->i <= l->top)
			if (l->bin[it->i].u != EMPTY && make_row(it->f, l, &l->bin[it->i], rw))
				return 1;
	}
	return 0;
}

static double row_weight(const struct fit *f, const struct row *rw);

/* out = (A^T A + regularisation) p; with rhs: also A^T y + priors. */
static void apply(const struct fit *f, const double *p, double *out, double *rhs, double *diag)
{
	memset(out, 0, (size_t) f->n * sizeof(double));
	struct rows it;
	struct row rw;
	for (rows_begin(&it, f); rows_next(&it, &rw);) {
		double s = 0, w = row_weight(f, &rw);
		for (int q = 0; q < rw.nz; q++)
			s += rw.a[q] * p[rw.j[q]];
		for (int q = 0; q < rw.nz; q++)
			out[rw.j[q]] += w * rw.a[q] * s;
		if (rhs)
			for (int q = 0; q < rw.nz; q++)
				rhs[rw.j[q]] += w * rw.a[q] * rw.y;
		if (diag)
			for (int q = 0; q < rw.nz; q++)
				diag[rw.j[q]] += w * rw.a[q] * rw.a[q];
	}
	for (int k = 0; k < f->x->nlooms; k++) {
		int b = f->base[k];
		if (b < 0 || !f->grid)
			continue;
		for (int i = 1; i < f->G; i++) {
			double s = p[b + i - 1] - 2 * p[b + i] + p[b + i + 1];
			out[b + i - 1] += LAMBDA * s, out[b + i] -= 2 * LAMBDA * s, out[b + i + 1] += LAMBDA * s;
			if (diag)
				diag[b + i - 1] += LAMBDA, diag[b + i] += 4 * LAMBDA, diag[b + i + 1] += LAMBDA;
		}
	}
	for (int c = 0; c < f->r->ncomponents; c++) {
		int j = f->dvar[c];
		out[j] += MU * p[j];
		if (rhs)
			rhs[j] += MU * (double) f->x->min_latency;
		if (diag)
			diag[j] += MU;
	}
	for (int j = 0; j < f->n; j++) {
		out[j] += RIDGE * p[j];
		if (diag)
			diag[j] += RIDGE;
	}
}

/* Preconditioned conjugate gradients from x (the last fit, or 0); x gets
 * the solution. */
static int cg(const struct fit *f, double *x)
{
	int n = f->n;
	double *b = weft_xcalloc((size_t) n + 1, sizeof(double)), *dg = weft_xcalloc((size_t) n + 1, sizeof(double));
	double *r = weft_xcalloc((size_t) n + 1, sizeof(double)), *z = weft_xcalloc((size_t) n + 1, sizeof(double));
	double *p = weft_xcalloc((size_t) n + 1, sizeof(double)), *q = weft_xcalloc((size_t) n + 1, sizeof(double));
	apply(f, x, q, b, dg);
	double bn = 0, rz = 0;
	for (int j = 0; j < n; j++) {
		r[j] = b[j] - q[j];
		z[j] = r[j] / dg[j];
		p[j] = z[j];
		rz += r[j] * z[j];
		bn += b[j] * b[j];
	}
	int it = 0;
	for (; it < CG_MAX && bn > 0; it++) {
		apply(f, p, q, NULL, NULL);
		double pq = 0;
		for (int j = 0; j < n; j++)
			pq += p[j] * q[j];
		if (pq <= 0)
			break;
		double a = rz / pq, rn = 0, rz2 = 0;
		for (int j = 0; j < n; j++) {
			x[j] += a * p[j];
			r[j] -= a * q[j];
			rn += r[j] * r[j];
		}
		if (rn <= CG_TOL * CG_TOL * bn)
			break;
		for (int j = 0; j < n; j++) {
			z[j] = r[j] / dg[j];
			rz2 += r[j] * z[j];
		}
		for (int j = 0; j < n; j++)
			p[j] = z[j] + rz2 / rz * p[j];
		rz = rz2;
	}
	free(b), free(dg), free(r), free(z), free(p), free(q);
	return it;
}

/* ---- a banded direct solver ------------------------------------------------------- */

/* The row's weight in the current fit (apply's). */
static double row_weight(const struct fit *f, const struct row *rw)
{
	double w = rw->w;
	if (f->prev) {
		double e = rw->y;
		for (int q = 0; q < rw->nz; q++)
			e -= rw->a[q] * f->prev[rw->j[q]];
		w *= e > 0 ? TAU : e < -OUTLIER ? 0 : 1 - TAU;
	}
	return w;
}

/* The unknowns before the D's (nb) are banded when numbered loom by loom
 * and the loom graph is a path or a ring (a ring's reference has none):
 * the normal equations are then a band of half-width bw plus k border
 * columns (the D's), solved exactly by a band Cholesky factorisation and
 * the Schur complement of the border, in O(nb bw^2). bw: the band, or -1. */
static int bandwidth(const struct fit *f)
{
	int nb = f->n - f->r->ncomponents, bw = f->grid ? f->G + 1 : 0;
	struct rows it;
	struct row rw;
	for (rows_begin(&it, f); rows_next(&it, &rw);)
		for (int a = 0; a < rw.nz; a++)
			for (int b = 0; b < rw.nz; b++)
				if (rw.j[a] < nb && rw.j[b] < nb && rw.j[a] - rw.j[b] > bw)
					bw = rw.j[a] - rw.j[b];
	return (double) nb * bw * bw > BAND_WORK ? -1 : bw;
}

/* M[i][j] (i >= j, i - j <= bw) at L[i (bw + 1) + i - j]. */
static void band_add(double *L, int bw, int i, int j, double v)
{
	if (i < j) {
		int t = i;
		i = j, j = t;
	}
	L[(size_t) i * (bw + 1) + (i - j)] += v;
}

static int band_factor(double *L, int n, int bw)
{
	for (int j = 0; j < n; j++) {
		double *Lj = L + (size_t) j * (bw + 1);
		int k0 = j - bw > 0 ? j - bw : 0;
		double d = Lj[0];
		for (int k = k0; k < j; k++)
			d -= Lj[j - k] * Lj[j - k];
		if (!(d > 0))
			return -1;
		Lj[0] = sqrt(d);
		for (int i = j + 1; i < n && i <= j + bw; i++) {
			double *Li = L + (size_t) i * (bw + 1);
			int k1 = i - bw > 0 ? i - bw : 0;
			double v = Li[i - j];
			for (int k = k1 > k0 ? k1 : k0; k < j; k++)
				v -= Li[i - k] * Lj[j - k];
			Li[i - j] = v / Lj[0];
		}
	}
	return 0;
}

static void band_solve1(const double *L, int n, int bw, double *b)
{
	for (int i = 0; i < n; i++) { /* L y = b */
		const double *Li = L + (size_t) i * (bw + 1);
		int k0 = i - bw > 0 ? i - bw : 0;
		for (int k = k0; k < i; k++)
			b[i] -= Li[i - k] * b[k];
		b[i] /= Li[0];
	}
	for (int i = n - 1; i >= 0; i--) { /* L^T x = y */
		b[i] /= L[(size_t) i * (bw + 1)];
		int k0 = i - bw > 0 ? i - bw : 0;
		for (int k = k0; k < i; k++)
			b[k] -= L[(size_t) i * (bw + 1) + (i - k)] * b[i];
	}
}

/* Assemble and solve the fit's normal equations exactly; -1: not positive. */
static int band(const struct fit *f, int bw, double *x)
{
	int n = f->n, kc = f->r->ncomponents, nb = n - kc;
	double *L = weft_xcalloc((size_t) nb * (bw + 1) + 1, sizeof(double));
	double *C = weft_xcalloc((size_t) nb * kc + 1, sizeof(double)); /* border: C[c nb + i] */
	double *E = weft_xcalloc((size_t) kc * kc + 1, sizeof(double)); /* D-D block */
	double *rhs = weft_xcalloc((size_t) n + 1, sizeof(double));
	struct rows it;
	struct row rw;
	for (rows_begin(&it, f); rows_next(&it, &rw);) {
		double w = row_weight(f, &rw);
		for (int a = 0; a < rw.nz; a++) {
			rhs[rw.j[a]] += w * rw.a[a] * rw.y;
			for (int b = 0; b < rw.nz; b++) {
				int ja = rw.j[a], jb = rw.j[b];
				double v = w * rw.a[a] * rw.a[b];
				if (ja < nb && jb < nb) {
					if (ja >= jb)
						band_add(L, bw, ja, jb, v);
				} else if (ja < nb) {
					C[(size_t) (jb - nb) * nb + ja] += v;
				} else if (jb >= nb) {
					E[(ja - nb) * kc + (jb - nb)] += v;
				}
			}
		}
	}
	for (int k = 0; k < f->x->nlooms && f->grid; k++) {
		int b = f->base[k];
		for (int i = 1; b >= 0 && i < f->G; i++) {
			int j3[3] = {b + i - 1, b + i, b + i + 1};
			double c3[3] = {1, -2, 1};
			for (int p = 0; p < 3; p++)
				for (int q = 0; q <= p; q++)
					band_add(L, bw, j3[p], j3[q], LAMBDA * c3[p] * c3[q]);
		}
	}
	for (int j = 0; j < nb; j++)
		band_add(L, bw, j, j, RIDGE);
	for (int c = 0; c < kc; c++) {
		E[c * kc + c] += MU + RIDGE;
		rhs[nb + c] += MU * (double) f->x->min_latency;
	}
	int rc = band_factor(L, nb, bw);
	/* Schur complement: (E - C^T B^-1 C) D = r_D - C^T B^-1 r_B */
	double *Z = weft_xmalloc(((size_t) nb * kc + 1) * sizeof(double));
	memcpy(Z, C, (size_t) nb * kc * sizeof(double));
	for (int c = 0; c < kc && rc == 0; c++)
		band_solve1(L, nb, bw, Z + (size_t) c * nb);
	if (rc == 0)
		band_solve1(L, nb, bw, rhs);
	double *S = weft_xcalloc((size_t) kc * kc + 1, sizeof(double)),
	       *t = weft_xcalloc((size_t) kc + 1, sizeof(double));
	for (int a = 0; a < kc && rc == 0; a++) {
		t[a] = rhs[nb + a];
		for (int i = 0; i < nb; i++)
			t[a] -= C[(size_t) a * nb + i] * rhs[i];
		for (int b = 0; b < kc; b++) {
			S[a * kc + b] = E[a * kc + b];
			for (int i = 0; i < nb; i++)
				S[a * kc + b] -= C[(size_t) a * nb + i] * Z[(size_t) b * nb + i];
		}
	}
	/* the small dense system (Gaussian elimination, kc is a few) */
	for (int a = 0; a < kc && rc == 0; a++) {
		if (!(fabs(S[a * kc + a]) > 0)) {
			rc = -1;
			break;
		}
		for (int b = a + 1; b < kc; b++) {
			double m = S[b * kc + a] / S[a * kc + a];
			for (int q = a; q < kc; q++)
				S[b * kc + q] -= m * S[a * kc + q];
			t[b] -= m * t[a];
		}
	}
	for (int a = kc - 1; a >= 0 && rc == 0; a--) {
		for (int q = a + 1; q < kc; q++)
			t[a] -= S[a * kc + q] * t[q];
		t[a] /= S[a * kc + a];
	}
	if (rc == 0) {
		for (int i = 0; i < nb; i++) {
			x[i] = rhs[i];
			for (int c = 0; c < kc; c++)
				x[i] -= Z[(size_t) c * nb + i] * t[c];
		}
		for (int c = 0; c < kc; c++)
			x[nb + c] = t[c];
	}
	free(L), free(C), free(E), free(rhs), free(Z), free(S), free(t);
	return rc;
}

/* One fit: exactly when banded, else by conjugate gradients. */
static int solve_one(struct fit *f, int bw, double *x)
{
	if (bw >= 0 && band(f, bw, x) == 0)
		return 0;
	return cg(f, x);
}

/* The expectile fit: least squares, then IRLS reweighted ones. */
static int fit_solve(struct fit *f, double *x)
{
	double *prev = weft_xcalloc((size_t) f->n + 1, sizeof(double));
	int bw = bandwidth(f);
	int it = solve_one(f, bw, x), most = it;
	for (int k = 0; k < IRLS; k++) {
		memcpy(prev, x, (size_t) f->n * sizeof(double));
		f->prev = prev;
		it = solve_one(f, bw, x);
		most = it > most ? it : most;
	}
	f->prev = NULL;
	free(prev);
	return most;
}

/* ---- components -------------------------------------------------------------------- */

static int find(int *parent, int a)
{
	while (parent[a] != a)
		a = parent[a] = parent[parent[a]];
	return a;
}

/* Components, references, statuses; the number of components. */
static int components(struct estimator *x, struct est_result *r)
{
	int n = x->nlooms;
	int *parent = weft_xmalloc((size_t) (n + 1) * sizeof(int));
	for (int i = 0; i < n; i++)
		parent[i] = i;
	struct est_link *l, *tmp, *back;
	HASH_ITER(hh, x->links, l, tmp)
	{
		r->loom[l->k.from].nmsg += l->n;
		r->loom[l->k.to].nmsg += l->n;
		int a = find(parent, l->k.from), b = find(parent, l->k.to);
		if (a != b)
			parent[a < b ? b : a] = a < b ? a : b; /* the smallest index is the root */
	}
	int nc = 0;
	int *cid = weft_xmalloc((size_t) (n + 1) * sizeof(int));
	int *edges = weft_xcalloc((size_t) n + 1, sizeof(int)), *size = weft_xcalloc((size_t) n + 1, sizeof(int));
	int *twoway = weft_xcalloc((size_t) n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		cid[i] = -1;
	for (int i = 0; i < n; i++) {
		int root = find(parent, i);
		r->loom[i].component = -1;
		if (r->loom[i].nmsg == 0)
			continue;
		if (cid[root] < 0)
			cid[root] = nc++;
		r->loom[i].component = cid[root];
		r->loom[i].reference = root;
		r->loom[i].status = i == root ? EST_REFERENCE : EST_ESTIMATED;
		size[cid[root]]++;
	}
	HASH_ITER(hh, x->links, l, tmp)
	{
		struct {
			int32_t from, to;
		} k = {l->k.to, l->k.from};
		HASH_FIND(hh, x->links, &k, sizeof(k), back);
		int c = r->loom[l->k.from].component;
		if (back)
			twoway[c] = 1;
		if (!back || l->k.from < l->k.to)
			edges[c]++; /* each unordered pair once */
	}
	for (int i = 0; i < n; i++) {
		int c = r->loom[i].component;
		if (c >= 0 && r->loom[i].status == EST_ESTIMATED && !twoway[c] && edges[c] == size[c] - 1)
			r->loom[i].status = EST_ONE_SIDED; /* a tree of one-way pairs: D is L */
	}
	free(parent), free(cid), free(edges), free(size), free(twoway);
	return nc;
}

/* Number the unknowns: `per` per non-reference linked loom (per < 0: two
 * per segment), then one D per component. */
static void number(struct fit *f, int per)
{
	int n = 0;
	f->base = weft_xmalloc(((size_t) f->x->nlooms + 1) * sizeof(int));
	f->dvar = weft_xmalloc(((size_t) f->r->ncomponents + 1) * sizeof(int));
	for (int k = 0; k < f->x->nlooms; k++) {
		const struct est_loom *l = &f->r->loom[k];
		f->base[k] = -1;
		if (l->status == EST_ESTIMATED || l->status == EST_ONE_SIDED) {
			f->base[k] = n;
			n += per > 0 ? per : 2 * l->nseg;
		}
	}
	for (int c = 0; c < f->r->ncomponents; c++)
		f->dvar[c] = n++;
	f->n = n;
}

static void fit_free(struct fit *f)
{
	free(f->base);
	free(f->dvar);
}

/* ---- breaks -------------------------------------------------------------------------- */

/* Least-squares line through knots lo..hi - 1 (x = index): its squared
 * residuals and largest |residual| against `ref` (a line) if given. */
static void line_fit(const double *y, int lo, int hi, double *a, double *b)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = lo; i < hi; i++) {
		double t = i - lo;
		n++, sx += t, sy += y[i], sxx += t * t, sxy += t * y[i];
	}
	double d = n * sxx - sx * sx;
	*b = d > 0 ? (n * sxy - sx * sy) / d : 0;
	*a = n > 0 ? (sy - *b * sx) / n : 0;
}

static double sse(const double *y, int lo, int hi)
{
	double a, b, s = 0;
	line_fit(y, lo, hi, &a, &b);
	for (int i = lo; i < hi; i++) {
		double e = y[i] - a - b * (i - lo);
		s += e * e;
	}
	return s;
}

/* Largest |one line - two lines| over lo..hi - 1 split at s. */
static double departure(const double *y, int lo, int s, int hi)
{
	double a, b, a1, b1, a2, b2, m = 0;
	line_fit(y, lo, hi, &a, &b);
	line_fit(y, lo, s, &a1, &b1);
	line_fit(y, s, hi, &a2, &b2);
	for (int i = lo; i < hi; i++) {
		double two = i < s ? a1 + b1 * (i - lo) : a2 + b2 * (i - s);
		double d = fabs(a + b * (i - lo) - two);
		m = d > m ? d : m;
	}
	return m;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return x < y ? -1 : x > y;
}

/* Binary segmentation of knots lo..hi - 1: breaks (knot indices) into out. */
static void segment(const double *y, int lo, int hi, double thr, int *out, int *nout)
{
	if (hi - lo < 2 * MIN_SEG || *nout >= EST_SEG_MAX - 1)
		return;
	double all = sse(y, lo, hi), best = 0;
	int bs = -1;
	for (int s = lo + MIN_SEG; s <= hi - MIN_SEG; s++) {
		double g = all - sse(y, lo, s) - sse(y, s, hi);
		if (g > best)
			best = g, bs = s;
	}
	if (bs < 0 || departure(y, lo, bs, hi) < thr)
		return;
	out[(*nout)++] = bs;
	segment(y, lo, bs, thr, out, nout);
	segment(y, bs, hi, thr, out, nout);
}

static int icmp(const void *a, const void *b)
{
	return *(const int *) a - *(const int *) b;
}

/* Breaks of every loom from the grid fit `g` (knots per loom G + 1). */
static void find_breaks(struct fit *f, const double *g)
{
	int G = f->G;
	double *d = weft_xmalloc(((size_t) G + 2) * sizeof(double));
	for (int k = 0; k < f->x->nlooms; k++) {
		struct est_loom *l = &f->r->loom[k];
		l->nseg = 1;
		l->seg[0].from = f->r->t0;
		if (f->base[k] < 0)
			continue;
		const double *y = g + f->base[k];
		int nd = 0;
		for (int i = 1; i < G; i++)
			d[nd++] = fabs(y[i - 1] - 2 * y[i] + y[i + 1]);
		qsort(d, (size_t) nd, sizeof(double), dcmp);
		double sigma = nd ? 1.4826 * d[nd / 2] / sqrt(6.0) : 0;
		double thr = NOISE_K * sigma > EST_BREAK_NS ? NOISE_K * sigma : EST_BREAK_NS;
		int br[EST_SEG_MAX], nb = 0;
		segment(y, 0, G + 1, thr, br, &nb);
		qsort(br, (size_t) nb, sizeof(int), icmp);
		for (int i = 0; i < nb; i++)
			l->seg[l->nseg++].from = (int64_t) llround(f->t0 + f->W * br[i]);
		f->r->nbreaks += nb;
	}
	free(d);
}

/* The segments' lines from the segment fit's unknowns. */
static void set_lines(struct fit *f, const double *x)
{
	for (int k = 0; k < f->x->nlooms; k++) {
		struct est_loom *l = &f->r->loom[k];
		if (f->base[k] < 0) {
			l->nseg = 1;
			l->seg[0].p = l->seg[0].q = 0;
			continue;
		}
		for (int s = 0; s < l->nseg; s++) {
			double end = s + 1 < l->nseg ? (double) l->seg[s + 1].from : (double) f->r->t1;
			double len = end - (double) l->seg[s].from;
			l->seg[s].p = x[f->base[k] + 2 * s];
			l->seg[s].q = len > 0 ? x[f->base[k] + 2 * s + 1] / len : 0;
		}
	}
	for (int c = 0; c < f->r->ncomponents; c++)
		f->r->latency[c] = x[f->dvar[c]];
}

/* Each break: where the lines meet, if near; else one to locate. */
static void place_breaks(struct estimator *x, struct est_result *r, double W)
{
	for (int k = 0; k < x->nlooms; k++) {
		struct est_loom *l = &r->loom[k];
		for (int s = 1; s < l->nseg; s++) {
			struct est_seg *a = &l->seg[s - 1], *b = &l->seg[s];
			double t = (double) b->from;
			/* a.p + a.q (t - a.from) = b.p + b.q (t - b.from) */
			double dq = a->q - b->q, meet = NAN;
			if (fabs(dq) > 1e-12)
				meet = (b->p - b->q * (double) b->from - a->p + a->q * (double) a->from) / dq;
			if (!isnan(meet) && fabs(meet - t) <= W) {
				b->p += b->q * (meet - t);
				b->from = (int64_t) llround(meet);
				continue;
			}
			x->chg = weft_xrealloc(x->chg, (size_t) (x->nchg + 1) * sizeof(*x->chg));
			struct est_change *c = &x->chg[x->nchg++];
			memset(c, 0, sizeof(*c));
			c->k = k, c->idx = s;
			c->lo = (int64_t) (t - 2 * W);
			c->hi = (int64_t) (t + 2 * W);
			r->nlocate++;
		}
	}
}

int est_solve(struct estimator *x, int64_t t0, int64_t t1, struct est_result *r, struct weft_err *e)
{
	(void) e;
	memset(r, 0, sizeof(*r));
	r->t0 = t0;
	r->t1 = t1 > t0 ? t1 : t0 + 1;
	int n = x->nlooms;
	r->loom = weft_xcalloc((size_t) n + 1, sizeof(*r->loom));
	for (int k = 0; k < n; k++) {
		r->loom[k].nseg = 1;
		r->loom[k].seg[0].from = t0;
	}
	r->ncomponents = components(x, r);
	r->latency = weft_xcalloc((size_t) r->ncomponents + 1, sizeof(double));
	r->nlinks = x->nlinks;
	struct est_link *l, *tmp;
	HASH_ITER(hh, x->links, l, tmp)
	for (int i = 0; i <= l->top; i++)
		r->npoints += l->bin[i].u != EMPTY;
	if (r->ncomponents == 0)
		return 0;
	/* 1. the grid fit */
	/* intervals: PER_KNOT bin points of the median pair in each */
	int *used = weft_xmalloc(((size_t) x->nlinks + 1) * sizeof(int)), nu = 0;
	HASH_ITER(hh, x->links, l, tmp) {
		int c = 0;
		for (int i = 0; i <= l->top; i++)
			c += l->bin[i].u != EMPTY;
		used[nu++] = c;
	}
	qsort(used, (size_t) nu, sizeof(int), icmp);
	int G = nu ? used[nu / 2] / PER_KNOT : 8;
	free(used);
	struct fit f = {.x = x, .r = r, .grid = 1, .G = G < 8 ? 8 : G > x->nbins ? x->nbins : G};
	f.t0 = (double) r->t0;
	f.W = (double) (r->t1 - r->t0) / f.G;
	number(&f, f.G + 1);
	double *g = weft_xcalloc((size_t) f.n + 1, sizeof(double));
	r->cg_iters = fit_solve(&f, g);
	/* 2. breaks */
	find_breaks(&f, g);
	double W = f.W;
	/* 3. a line per segment, from the grid's values */
	struct fit s = {.x = x, .r = r, .grid = 0, .guard = 1.5 * W};
	number(&s, -1);
	double *y = weft_xcalloc((size_t) s.n + 1, sizeof(double));
	for (int k = 0; k < n; k++) {
		const struct est_loom *el = &r->loom[k];
		int j[2];
		double w[2];
		for (int q = 0; s.base[k] >= 0 && q < el->nseg; q++) {
			double a = (double) el->seg[q].from;
			double b = q + 1 < el->nseg ? (double) el->seg[q + 1].from : (double) r->t1;
			double va = 0, vb = 0;
			terms(&f, k, a, j, w);
			va = w[0] * g[j[0]] + w[1] * g[j[1]];
			terms(&f, k, b, j, w);
			vb = w[0] * g[j[0]] + w[1] * g[j[1]];
			y[s.base[k] + 2 * q] = va;
			y[s.base[k] + 2 * q + 1] = vb - va;
		}
	}
	for (int c = 0; c < r->ncomponents; c++)
		y[s.dvar[c]] = g[f.dvar[c]];
	free(g);
	fit_free(&f);
	int it = fit_solve(&s, y);
	r->cg_iters = it > r->cg_iters ? it : r->cg_iters;
	set_lines(&s, y);
	/* the scatter of each loom's points */
	double *ss = weft_xcalloc((size_t) n + 1, sizeof(double)), *cnt = weft_xcalloc((size_t) n + 1, sizeof(double));
	HASH_ITER(hh, x->links, l, tmp)
	{
		int a = l->k.from, b = l->k.to, c = r->loom[a].component;
		for (int i = 0; i <= l->top; i++) {
			if (l->bin[i].u == EMPTY)
				continue;
			int64_t u = l->bin[i].u, v = u - l->bin[i].y;
			double res = est_eval(r, b, v) - est_eval(r, a, u) - r->latency[c] - (double) l->bin[i].y;
			ss[a] += res * res, ss[b] += res * res, cnt[a]++, cnt[b]++;
		}
	}
	for (int k = 0; k < n; k++)
		r->loom[k].scatter = cnt[k] > 0 ? sqrt(ss[k] / cnt[k]) : 0;
	free(ss), free(cnt), free(y);
	fit_free(&s);
	place_breaks(x, r, W);
	x->res = r;
	return 0;
}

double est_eval(const struct est_result *r, int k, int64_t t)
{
	const struct est_loom *l = &r->loom[k];
	int s = 0;
	while (s + 1 < l->nseg && l->seg[s + 1].from <= t)
		s++;
	return l->seg[s].p + l->seg[s].q * (double) (t - l->seg[s].from);
}

/* ---- locating steps ------------------------------------------------------------------- */

static double seg_eval(const struct est_seg *s, int64_t t)
{
	return s->p + s->q * (double) (t - s->from);
}

void est_locate_add(struct estimator *x, int from, int to, int64_t u, int64_t v)
{
	const struct est_result *r = x->res;
	if (from == to || !r)
		return;
	for (int i = 0; i < x->nchg; i++) {
		struct est_change *c = &x->chg[i];
		if (c->k != from && c->k != to)
			continue;
		int64_t t = c->k == from ? u : v;
		if (t < c->lo || t >= c->hi)
			continue;
		int comp = r->loom[from].component;
		if (comp < 0)
			continue;
		const struct est_loom *l = &r->loom[c->k];
		int bk = (int) ((double) (t - c->lo) / (double) (c->hi - c->lo) * NSUB);
		bk = bk < 0 ? 0 : bk >= NSUB ? NSUB - 1 : bk;
		for (int side = 0; side < 2; side++) {
			const struct est_seg *sg = &l->seg[c->idx - 1 + side];
			double cs = c->k == from ? seg_eval(sg, u) : est_eval(r, from, u);
			double cr = c->k == to ? seg_eval(sg, v) : est_eval(r, to, v);
			double over = (double) (u - v) + r->latency[comp] - (cr - cs);
			/* a bound crossed by more than the latency's spread */
			if (over > 0)
				c->bad[side][bk] += over;
		}
	}
}

void est_locate_finish(struct estimator *x, struct est_result *r)
{
	for (int i = 0; i < x->nchg; i++) {
		struct est_change *c = &x->chg[i];
		/* split at bucket s: left line before, right line from s */
		double left = 0, right = 0;
		for (int b = 0; b < NSUB; b++)
			right += c->bad[1][b];
		double best = right;
		int lo = 0, hi = 0;
		for (int s = 1; s <= NSUB; s++) {
			left += c->bad[0][s - 1];
			right -= c->bad[1][s - 1];
			double v = left + right;
			if (v < best - 1e-9)
				best = v, lo = hi = s;
			else if (v <= best + 1e-9 && hi == s - 1)
				hi = s;
		}
		int s = (lo + hi) / 2;
		int64_t t = c->lo + (int64_t) ((double) (c->hi - c->lo) * s / NSUB);
		struct est_loom *l = &r->loom[c->k];
		struct est_seg *sg = &l->seg[c->idx];
		int64_t prev = l->seg[c->idx - 1].from;
		int64_t next = c->idx + 1 < l->nseg ? l->seg[c->idx + 1].from : r->t1;
		if (t <= prev || t >= next)
			continue;
		sg->p += sg->q * (double) (t - sg->from);
		sg->from = t;
		l->located++;
	}
}

void est_result_free(struct est_result *r)
{
	free(r->loom);
	free(r->latency);
	memset(r, 0, sizeof(*r));
}

void est_free(struct estimator *x)
{
	struct est_link *l, *tmp;
	HASH_ITER(hh, x->links, l, tmp) {
		HASH_DEL(x->links, l);
		free(l);
	}
	free(x->chg);
	memset(x, 0, sizeof(*x));
}
