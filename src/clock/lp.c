/* lp: primal simplex on a condensed tableau (see lp.h).
 *
 * Tableau T, (m + 1) rows x (n + 1) columns: row i < m is constraint i,
 * expressed in the current nonbasic variables, with its right-hand side in
 * column n; row m holds the reduced costs and, in column n, minus the
 * objective. basic[i] names the variable of row i, nonbasic[j] the variable
 * of column j (0..n-1 are the x's, n..n+m-1 the slacks). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "lp.h"

#define EPS 1e-9

enum lp_status lp_max(int m, int n, const double *A, const double *b, const double *c, double *x,
		      double *obj)
{
	size_t w = (size_t) n + 1;
	double *T = weft_xcalloc((size_t) (m + 1) * w, sizeof(double));
	int *basic = weft_xmalloc((size_t) (m + 1) * sizeof(int));
	int *nonbasic = weft_xmalloc((size_t) (n + 1) * sizeof(int));
	double scale = 1;
	for (int i = 0; i < m; i++) {
		memcpy(T + (size_t) i * w, A + (size_t) i * (size_t) n, (size_t) n * sizeof(double));
		T[(size_t) i * w + (size_t) n] = b[i];
		basic[i] = n + i;
		if (fabs(b[i]) > scale)
			scale = fabs(b[i]);
	}
	for (int j = 0; j < n; j++) {
		T[(size_t) m * w + (size_t) j] = c[j];
		nonbasic[j] = j;
	}
	enum lp_status st = LP_ITERLIMIT;
	long limit = 50L * (m + n) + 1000;
	int degenerate = 0;
	for (long it = 0; it < limit; it++) {
		double *cost = T + (size_t) m * w;
		int bland = degenerate > 50;
		int pc = -1;
		for (int j = 0; j < n; j++) {
			if (cost[j] <= EPS)
				continue;
			if (pc < 0 || (bland ? nonbasic[j] < nonbasic[pc] : cost[j] > cost[pc]))
				pc = j;
		}
		if (pc < 0) {
			st = LP_OPTIMAL;
			break;
		}
		int pr = -1;
		double best = 0;
		for (int i = 0; i < m; i++) {
			double a = T[(size_t) i * w + (size_t) pc];
			if (a <= EPS)
				continue;
			double r = T[(size_t) i * w + (size_t) n] / a;
			if (pr < 0 || r < best - EPS * scale / a ||
			    (r <= best + EPS * scale / a && basic[i] < basic[pr])) {
				pr = i;
				best = r;
			}
		}
		if (pr < 0) {
			st = LP_UNBOUNDED;
			break;
		}
		degenerate = best <= EPS * scale ? degenerate + 1 : 0;
		/* pivot on (pr, pc) */
		double *prow = T + (size_t) pr * w;
		double p = prow[pc];
		for (size_t j = 0; j < w; j++)
			prow[j] /= p;
		prow[pc] = 1 / p;
		for (int i = 0; i <= m; i++) {
			if (i == pr)
				continue;
			double *row = T + (size_t) i * w;
			double f = row[pc];
			if (f == 0)
				continue;
			for (size_t j = 0; j < w; j++)
				row[j] -= f * prow[j];
			row[pc] = -f / p;
		}
		int t = basic[pr];
		basic[pr] = nonbasic[pc];
		nonbasic[pc] = t;
	}
	if (st == LP_OPTIMAL) {
		for (int j = 0; j < n; j++)
			x[j] = 0;
		for (int i = 0; i < m; i++)
			if (basic[i] < n)
				x[basic[i]] = T[(size_t) i * w + (size_t) n];
		*obj = -T[(size_t) m * w + (size_t) n];
	}
	free(T);
	free(basic);
	free(nonbasic);
	return st;
}
