/* lp: a small dense linear-program solver for the clock estimator.
 *
 *   maximise c.x  subject to  A x <= b,  x >= 0,  with b >= 0
 *
 * (the origin is feasible, so no first phase is needed). The primal simplex
 * method on a condensed tableau of (m + 1) x (n + 1) doubles, entering the
 * column with the largest reduced cost and falling back to Bland's rule
 * (smallest indices) after many degenerate steps, which cannot cycle. Meant
 * for tens of variables and a few thousand constraints. */
#ifndef WEFT_LP_H
#define WEFT_LP_H

enum lp_status { LP_OPTIMAL = 0, LP_UNBOUNDED = 1, LP_ITERLIMIT = 2 };

/* A is row-major m x n. On LP_OPTIMAL, x (n values) and *obj are set. */
enum lp_status lp_max(int m, int n, const double *A, const double *b, const double *c, double *x,
		      double *obj);

#endif
