/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lp: a linear-program solver for the clock estimator, for programs with a
 * few hundred variables and very many sparse constraints of which few bind:
 *
 *   maximise c.x  subject to  a_r . x <= b_r (every row r),  x >= 0,  b >= 0
 *
 * (the origin is feasible, so no first phase is needed). Rows stay outside
 * the tableau, in the caller's array, until the primal simplex method meets
 * them: at every step the ratio test runs over all rows (sparse, a few
 * products each), and a row outside that blocks the step first is brought in.
 * The point stays feasible for every row, so an optimum over the rows in the
 * tableau is an optimum over all of them, and the tableau holds one row per
 * row met, never all of them: memory and pivot cost follow the binding rows,
 * not the number of constraints.
 *
 * One program can be solved for several objectives (lp_solve again with
 * another c): the basis of the last one is kept, so the next starts from a
 * feasible vertex and takes a few steps. Entering column: the largest
 * reduced cost, then Bland's rule (smallest indices) after many degenerate
 * steps, which cannot cycle. */
#ifndef WEFT_LP_H
#define WEFT_LP_H

enum lp_status { LP_OPTIMAL = 0, LP_UNBOUNDED = 1, LP_ITERLIMIT = 2 };

#define LP_ROW_NZ 10

/* One constraint: sum of a[k] x[j[k]] over k < nz, at most b (b >= 0). */
struct lp_row {
	int nz;
	int j[LP_ROW_NZ];
	double a[LP_ROW_NZ];
	double b;
};

struct lp;

/* A program over n variables and the m rows (borrowed: they must outlive it). */
struct lp *lp_new(int n, const struct lp_row *rows, int m);
/* Maximise c . x from the last vertex reached (the origin at first). On
 * LP_OPTIMAL x (n values) and *obj are set. */
enum lp_status lp_solve(struct lp *p, const double *c, double *x, double *obj);
/* Rows brought into the tableau so far. */
int lp_tableau_rows(const struct lp *p);
void lp_free(struct lp *p);

#endif
