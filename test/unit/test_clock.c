/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/clock: the exact drift term, composition, the three
 * clock-file forms (ovnisync tables written in ovnisync's own layout), and
 * the message-based estimator on synthetic pairs with known offsets and
 * drifts. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock/clock.h"
#include "clock/clockfile.h"
#include "clock/estimate.h"
#include "clock/lp.h"
#include "trace/stream.h"
#include "suites.h"
#include "testutil.h"

/* ---- the map ------------------------------------------------------------------- */

static int64_t ref_term(int64_t dt, int64_t drift)
{
	__int128 p = (__int128) dt * drift;
	__int128 q = p / CLOCK_PPT;
	if (p % CLOCK_PPT != 0 && p < 0)
		q--;
	return (int64_t) q;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* uniform in [0, 1) */
static double urand(void)
{
	return (double) (rnd() >> 11) / 9007199254740992.0;
}

START_TEST(drift_term_exact)
{
	static const int64_t dts[] = {0, 1, -1, 999999, -999999, 1000000000000ll, -1000000000000ll,
				      1234567890123456789ll, -1234567890123456789ll, INT64_MAX / 2,
				      INT64_MIN / 2 + 7};
	static const int64_t drifts[] = {0, 1, -1, 30000000, -30000000, 999999, CLOCK_DRIFT_MAX, -CLOCK_DRIFT_MAX};
	for (size_t i = 0; i < sizeof(dts) / sizeof(dts[0]); i++)
		for (size_t j = 0; j < sizeof(drifts) / sizeof(drifts[0]); j++)
			ck_assert_int_eq(clock_drift_term(dts[i], drifts[j]), ref_term(dts[i], drifts[j]));
	for (int k = 0; k < 200000; k++) {
		int64_t dt = (int64_t) rnd() >> (rnd() % 60);
		int64_t d = (int64_t) (rnd() % (2 * (uint64_t) CLOCK_DRIFT_MAX + 1)) - CLOCK_DRIFT_MAX;
		ck_assert_int_eq(clock_drift_term(dt, d), ref_term(dt, d));
	}
}
END_TEST

START_TEST(map_monotone)
{
	struct clock_map m = {.offset = -5, .drift = -CLOCK_DRIFT_MAX + 3, .tref = 1000};
	uint64_t prev = 0;
	for (uint64_t t = 0; t < 200000; t++) {
		uint64_t g = t + (uint64_t) clock_correction(&m, t);
		if (t)
			ck_assert_uint_ge(g, prev);
		prev = g;
	}
	char buf[32];
	clock_ppm_str(-12500000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-12.500000");
	clock_ppm_str(7, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0.000007");
}
END_TEST

START_TEST(compose)
{
	struct clock_map in = {.offset = 1000, .drift = 20 * CLOCK_PPT_PER_PPM, .tref = 5000000000ull};
	struct clock_map out = {.offset = -300, .drift = -5 * CLOCK_PPT_PER_PPM, .tref = 2000000000ull};
	struct clock_map c = clock_compose(&out, &in);
	for (uint64_t t = 1000000000ull; t < 20000000000ull; t += 999999937ull) {
		uint64_t x = t + (uint64_t) clock_correction(&in, t);
		uint64_t y = x + (uint64_t) clock_correction(&out, x);
		uint64_t z = t + (uint64_t) clock_correction(&c, t);
		int64_t d = (int64_t) (y - z);
		ck_assert_msg(d >= -2 && d <= 2, "t %llu: composed %llu, in turn %llu", (unsigned long long) t,
			      (unsigned long long) z, (unsigned long long) y);
	}
}
END_TEST

/* Streams with drift take the slow path and get the exact drift term, in
 * raw and ordered mode, with an unordered region in the middle. */
START_TEST(stream_drift)
{
	char *dir = tu_mkdtemp();
	char *path = tu_join(dir, "stream.obs");
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	int n = 0;
	for (int i = 0; i < 2000; i++) {
		if (i == 1500) {
			eb_ev(&b, "OU[", 1000000ull * i, NULL, 0);
			n++;
		}
		/* inside the region, clocks 10 ms back: sorted among earlier events */
		uint64_t c = i >= 1500 && i < 1510 ? 1000000ull * (i - 10) + 3 : 1000000ull * i + 7;
		eb_ev(&b, "OHp", c, NULL, 0);
		n++;
		if (i == 1509) {
			eb_ev(&b, "OU]", 1000000ull * i + 8, NULL, 0);
			n++;
		}
	}
	tu_write(path, b.d, b.n);
	for (int mode = 0; mode < 2; mode++) {
		struct weft_stream st;
		memset(&st, 0, sizeof(st));
		st.obs_path = path;
		st.offset = -12345;
		st.drift = -29999999; /* -29.999999 ppm */
		st.tref = 777777777;
		st.window = 4096;
		struct weft_err e = {0};
		ck_assert_msg(stream_open(&st, mode ? STREAM_ORDERED : STREAM_RAW, &e) == 0, "%s", e.msg);
		uint64_t prev = 0;
		int k = 0, r;
		while ((r = stream_next(&st, &e)) > 0) {
			const struct weft_ev *ev = &st.ev;
			uint64_t want = ev->clock - 12345 + (uint64_t) ref_term((int64_t) (ev->clock - st.tref), st.drift);
			ck_assert_uint_eq(ev->time, want);
			if (mode && k)
				ck_assert_uint_ge(ev->time, prev);
			prev = ev->time;
			k++;
		}
		ck_assert_msg(r == 0, "%s", e.msg);
		ck_assert_int_eq(k, n);
		stream_close(&st);
	}
	eb_free(&b);
	tu_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/* ---- clock files ------------------------------------------------------------------ */

static struct clock_table parse_ok(const char *text)
{
	struct clock_table t;
	struct weft_err e = {0};
	ck_assert_msg(clockfile_parse(&t, text, strlen(text), "t.txt", &e) == 0, "%s", e.msg);
	return t;
}

static void parse_fails(const char *text, const char *want)
{
	struct clock_table t;
	struct weft_err e = {0};
	ck_assert_int_eq(clockfile_parse(&t, text, strlen(text), "t.txt", &e), -1);
	ck_assert_msg(strstr(e.msg, want), "error \"%s\" lacks \"%s\"", e.msg, want);
}

START_TEST(ovnisync_offset_table)
{
	/* ovnisync's layout: "%-10s %-20s %-20s %-20s %-20s" */
	char text[1024];
	snprintf(text, sizeof(text), "%-10s %-20s %-20s %-20s %-20s\n%-10d %-20s %-20ld %-20f %-20f\n"
		 "%-10d %-20s %-20ld %-20f %-20f\n",
		 "rank", "hostname", "offset_median", "offset_mean", "offset_std", 0, "alpha", 0L, 0.0, 0.0, 1,
		 "beta", -2047L, -2100.25, 310.125);
	struct clock_table t = parse_ok(text);
	ck_assert_int_eq(t.form, CLOCK_FORM_OFFSETS);
	ck_assert_int_eq(t.n, 2);
	struct clock_entry *b = clockfile_find(&t, "beta.3", "beta");
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->map.offset, -2047);
	ck_assert_int_eq(b->map.drift, 0);
	ck_assert_ptr_null(clockfile_find(&t, "gamma", "gamma"));
	clockfile_free(&t);
}
END_TEST

START_TEST(ovnisync_drift_table)
{
	/* ovnisync -d: "%-20s" wallclock, " %-20s" per host; rows "%-20f" then " %-20ld".
	 * beta drifts by +20 ppm of the reference's time (offset grows 100 us every
	 * 5 s) and starts 5 ms behind; alpha is the reference (always 0). */
	char text[4096];
	int n = snprintf(text, sizeof(text), "%-20s %-20s %-20s\n", "wallclock", "alpha", "beta");
	for (int k = 0; k < 5; k++) {
		double w = 1700000000.250000 + 5.0 * k;
		long off = 5000000L + 100000L * k;
		n += snprintf(text + n, sizeof(text) - (size_t) n, "%-20f %-20ld %-20ld\n", w, 0L, off);
	}
	struct clock_table t = parse_ok(text);
	ck_assert_int_eq(t.form, CLOCK_FORM_DRIFT);
	struct clock_entry *a = clockfile_find(&t, "alpha", "alpha"), *b = clockfile_find(&t, "beta", "beta");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert(a->reference && !b->reference && b->tref_from_start);
	ck_assert_int_eq(a->map.offset, 0);
	ck_assert_int_eq(a->map.drift, 0);
	ck_assert_int_eq(b->nsamples, 5);
	/* x_k = 5e9 k - off_k (beta's local time), y = off_k: slope 1e5 / (5e9 - 1e5) */
	double want = 1e5 / (5e9 - 1e5) * 1e12;
	ck_assert_msg(fabs((double) b->map.drift - want) <= 1, "drift %lld ppt, expected %.1f",
		      (long long) b->map.drift, want);
	/* referred to the samples' mean: x = 2 (5e9 - 1e5) - 5e6, y = 5e6 + 2e5 */
	ck_assert_int_eq(b->tref_rel, 9994800000ll);
	ck_assert_msg(llabs(b->map.offset - 5200000) <= 1, "offset %lld", (long long) b->map.offset);
	clockfile_free(&t);
	parse_fails("wallclock a b\n1700000000.000000 0 1\n1700000005.000000 0\n",
		    "t.txt:3: expected 3 fields");
	parse_fails("wallclock\n1.0\n", "found no host");
	parse_fails("wallclock a\n", "no sample row");
	parse_fails("wallclock a\nx 0\n", "field 1 (wallclock)");
	/* samples whose squares or sums leave 128 bits are refused, not wrapped (fuzz_clock) */
	parse_fails("wallclock a\n1700000000.000000 0\n1700000000.000000 5000000000000000000\n",
		    "t.txt:3: field 2 (offset of host a): expected an offset and a time since the first row "
		    "within +-2^62 ns, found \"5000000000000000000\"");
	char big[1024] = "wallclock a\n";
	for (int k = 0; k < 11; k++)
		strcat(big, "1700000000.000000 -4000000000000000000\n");
	parse_fails(big, "t.txt:12: field 2 (offset of host a): the drift fit's sums overflow 128 bits here");
	strcpy(big, "wallclock a\n");
	for (int k = 0; k < 5; k++)
		strcat(big, "1700000000.000000 -4000000000000000000\n");
	parse_fails(big, "t.txt: host a: the drift fit overflows 128 bits");
}
END_TEST

START_TEST(json_roundtrip)
{
	char *dir = tu_mkdtemp();
	char *path = tu_join(dir, "clock.json");
	struct clock_table t = {0};
	struct clock_entry *en = clockfile_add(&t, "node\"1", 0);
	en->map.offset = -123456789;
	en->map.drift = -29999999;
	en->map.tref = 1700000000123456789ull; /* beyond 2^53: written as a string */
	en->uncertainty = 812;
	en = clockfile_add(&t, "node2", 0);
	en->map.offset = 5;
	int linked[2] = {1, 0};
	struct weft_err e = {0};
	ck_assert_msg(clockfile_write(&t, path, "test", linked, &e) == 0, "%s", e.msg);
	clockfile_free(&t);
	struct clock_table r;
	ck_assert_msg(clockfile_load(&r, path, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(r.form, CLOCK_FORM_WEFT);
	ck_assert_int_eq(r.n, 2);
	ck_assert_str_eq(r.ent[0].name, "node\"1");
	ck_assert_int_eq(r.ent[0].map.offset, -123456789);
	ck_assert_int_eq(r.ent[0].map.drift, -29999999);
	ck_assert_uint_eq(r.ent[0].map.tref, 1700000000123456789ull);
	ck_assert_int_eq(r.ent[0].uncertainty, 812);
	ck_assert_int_eq(r.ent[1].map.offset, 5);
	ck_assert_int_eq(r.ent[1].uncertainty, -1);
	clockfile_free(&r);
	parse_fails("{\"weft_clock\": 2, \"looms\": []}", "key 'weft_clock'");
	parse_fails("{\"weft_clock\": 1, \"looms\": [{\"loom\": \"a\", \"offset_ns\": 0}, "
		    "{\"loom\": \"a\", \"offset_ns\": 1}]}", "appears twice");
	parse_fails("{\"weft_clock\": 1, \"looms\": [{\"loom\": \"a\", \"offset_ns\": 0, \"drift_ppm\": 20000, "
		    "\"ref_ns\": 0}]}", "within +-10000");
	tu_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/* ---- the estimator -------------------------------------------------------------------- */

#define NL 4

struct truth {
	double off[NL], drift[NL]; /* local = tau + off + drift tau */
};

static double local(const struct truth *tr, int k, double tau)
{
	return tau + tr->off[k] + tr->drift[k] * tau;
}

/* Messages over 10 s with latencies in [2, 10] us; ring: k -> k + 1 only. */
static void feed(struct estimator *x, const struct truth *tr, int ring, int nmsg)
{
	for (int i = 0; i < nmsg; i++) {
		double tau = 1e6 + 10e9 * (double) i / nmsg;
		int s = (int) (rnd() % NL), r;
		if (ring)
			r = (s + 1) % NL;
		else
			do
				r = (int) (rnd() % NL);
			while (r == s);
		double lat = 2000 + 8000 * urand();
		est_add(x, s, r, llround(local(tr, s, tau)), llround(local(tr, r, tau + lat)));
	}
}

static void check_estimate(int ring, int nmsg, double max_err)
{
	struct truth tr;
	for (int k = 0; k < NL; k++) {
		tr.off[k] = (urand() * 2 - 1) * 2e6;
		tr.drift[k] = (urand() * 2 - 1) * 30e-6;
	}
	struct estimator x;
	est_init(&x, NL, 0);
	feed(&x, &tr, ring, nmsg);
	ck_assert_uint_gt(x.nviol, 0);
	struct est_result r;
	struct weft_err e = {0};
	int64_t t0 = 0, t1 = (int64_t) 10.1e9;
	ck_assert_msg(est_solve(&x, t0, t1, &r, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(r.ncomponents, 1);
	ck_assert_int_eq(r.loom[0].status, EST_REFERENCE);
	for (int k = 1; k < NL; k++) {
		ck_assert_int_eq(r.loom[k].status, EST_ESTIMATED);
		ck_assert(r.loom[k].bounded);
		for (int end = 0; end < 2; end++) {
			double tau = end ? 10e9 : 1e6;
			double xk = local(&tr, k, tau);
			double truth = local(&tr, 0, tau) - xk;
			double est = r.loom[k].p + r.loom[k].q * (xk - (double) t0) / (double) (t1 - t0);
			ck_assert_msg(fabs(est - truth) <= max_err,
				      "%s: loom %d at the %s: estimate %.1f ns, truth %.1f ns (error %.1f)",
				      ring ? "ring" : "random", k, end ? "end" : "start", est, truth, est - truth);
		}
	}
	ck_assert_uint_eq(est_check(&x, &r), 0);
	ck_assert(r.min_slack >= 0);
	est_result_free(&r);
	est_free(&x);
}

START_TEST(estimate_random)
{
	for (int rep = 0; rep < 5; rep++)
		check_estimate(0, 20000, 2000);
}
END_TEST

START_TEST(estimate_ring)
{
	for (int rep = 0; rep < 5; rep++)
		check_estimate(1, 20000, 2000);
}
END_TEST

START_TEST(estimate_unlinked_and_one_sided)
{
	struct estimator x;
	est_init(&x, 5, 0);
	/* 0 -> 1 only: bounded from one side; 2 <-> 3 both ways; 4 alone */
	for (int i = 0; i < 1000; i++) {
		int64_t t = 1000000 + (int64_t) i * 1000000;
		est_add(&x, 0, 1, t, t - 5000 + 3000);
		est_add(&x, 2, 3, t, t + 3000);
		est_add(&x, 3, 2, t + 500000, t + 503000);
	}
	est_add(&x, 4, 4, 10, 20);
	struct est_result r;
	struct weft_err e = {0};
	ck_assert_msg(est_solve(&x, 0, 1002000000, &r, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(r.ncomponents, 2);
	ck_assert_int_eq(r.loom[0].status, EST_REFERENCE);
	ck_assert_int_eq(r.loom[1].status, EST_ONE_SIDED);
	ck_assert_int_eq(r.loom[2].status, EST_REFERENCE);
	ck_assert_int_eq(r.loom[3].status, EST_ESTIMATED);
	ck_assert_int_eq(r.loom[4].status, EST_UNLINKED);
	/* the smallest correction that removes the violation: +2000 ns */
	ck_assert_msg(fabs(r.loom[1].p - 2000) < 1 && fabs(r.loom[1].q) < 1, "p %f q %f", r.loom[1].p,
		      r.loom[1].q);
	ck_assert_msg(fabs(r.loom[3].p) < 1, "p %f", r.loom[3].p);
	ck_assert_uint_eq(est_check(&x, &r), 0);
	est_result_free(&r);
	est_free(&x);
}
END_TEST

START_TEST(estimate_hull_memory)
{
	struct estimator x;
	est_init(&x, 2, 0);
	for (int i = 0; i < 1000000; i++) {
		int64_t t = (int64_t) i * 10000;
		int64_t lat = 2000 + (int64_t) (rnd() % 8000);
		est_add(&x, i & 1, !(i & 1), t, t + lat + (i & 1 ? 700 : -700));
	}
	struct est_result r;
	struct weft_err e = {0};
	ck_assert_msg(est_solve(&x, 0, 10000000000ll, &r, &e) == 0, "%s", e.msg);
	ck_assert_uint_lt(x.hull_points, 200);
	ck_assert_msg(fabs(r.loom[1].p - 700) < 100, "p %f", r.loom[1].p);
	est_result_free(&r);
	est_free(&x);
}
END_TEST

/* ---- lp: small programs with known answers ------------------------------------- */

#define R1(j0, a0, B) {.nz = 1, .j = {j0}, .a = {a0}, .b = B}
#define R2(j0, a0, j1, a1, B) {.nz = 2, .j = {j0, j1}, .a = {a0, a1}, .b = B}

static const struct lp_case {
	const char *name;
	int n, m;
	struct lp_row rows[4];
	double c[2];
	enum lp_status st;
	double obj, x0, x1;
} lp_cases[] = {
	{"box and a diagonal", 2, 3, {R1(0, 1, 4), R1(1, 1, 3), R2(0, 1, 1, 1, 5)}, {1, 1}, LP_OPTIMAL, 5, -1, -1},
	{"one corner", 2, 3, {R1(0, 1, 4), R1(1, 1, 3), R2(0, 1, 1, 1, 5)}, {2, 1}, LP_OPTIMAL, 9, 4, 1},
	{"unbounded along x0", 2, 1, {R1(1, 1, 1)}, {1, 0}, LP_UNBOUNDED, 0, 0, 0},
	{"degenerate at the origin", 2, 3, {R1(0, 1, 0), R1(1, 1, 0), R2(0, 1, 1, 1, 0)}, {1, 1}, LP_OPTIMAL, 0, 0, 0},
	{"a row that never binds", 2, 2, {R2(0, -1, 1, -1, 7), R1(0, 1, 2)}, {1, 0}, LP_OPTIMAL, 2, 2, 0},
	{"nothing to gain", 2, 1, {R1(0, 1, 3)}, {-1, 0}, LP_OPTIMAL, 0, 0, 0},
};

START_TEST(lp_table)
{
	const struct lp_case *k = &lp_cases[_i];
	struct lp *p = lp_new(k->n, k->rows, k->m);
	double x[2] = {-9, -9}, obj = -9;
	enum lp_status st = lp_solve(p, k->c, x, &obj);
	ck_assert_msg(st == k->st, "%s: status %d, expected %d", k->name, st, k->st);
	if (st == LP_OPTIMAL) {
		/* the perturbation of b moves answers by 1e-7 of the largest b at most */
		ck_assert_msg(fabs(obj - k->obj) < 1e-5, "%s: objective %g, expected %g", k->name, obj, k->obj);
		if (k->x0 >= 0)
			ck_assert_msg(fabs(x[0] - k->x0) < 1e-5 && fabs(x[1] - k->x1) < 1e-5,
				      "%s: x = (%g, %g), expected (%g, %g)", k->name, x[0], x[1], k->x0, k->x1);
	}
	lp_free(p);
}
END_TEST

/* Many rows, few binding: the tableau holds the binding ones only; and a
 * second objective starts from the first one's vertex. */
START_TEST(lp_lazy_rows_and_warm_start)
{
	enum { M = 5000 };
	struct lp_row *rows = calloc(M, sizeof(*rows));
	for (int r = 0; r < M; r++) /* x0 + x1 / (r + 1) <= 10 + r: only r = 0 binds at x1 = 0 */
		rows[r] = (struct lp_row) R2(0, 1, 1, 1.0 / (r + 1), 10.0 + r);
	rows[M - 1] = (struct lp_row) R1(1, 1, 50); /* x1 <= 50 */
	struct lp *p = lp_new(2, rows, M);
	double x[2], obj;
	ck_assert_int_eq(lp_solve(p, (double[]) {1, 0}, x, &obj), LP_OPTIMAL);
	ck_assert(fabs(obj - 10) < 1e-3);
	ck_assert_int_le(lp_tableau_rows(p), 4);
	/* max x1: 10 (row 0 with x0 = 0), every row holding */
	ck_assert_int_eq(lp_solve(p, (double[]) {0, 1}, x, &obj), LP_OPTIMAL);
	ck_assert(fabs(obj - 10) < 1e-3 && fabs(x[0]) < 1e-3);
	for (int r = 0; r < M; r++)
		ck_assert_msg(rows[r].a[0] * x[rows[r].j[0]] + (rows[r].nz > 1 ? rows[r].a[1] * x[rows[r].j[1]] : 0) <=
				      rows[r].b + 1e-3,
			      "row %d violated at (%g, %g)", r, x[0], x[1]);
	ck_assert_int_le(lp_tableau_rows(p), 16);
	lp_free(p);
	free(rows);
}
END_TEST

Suite *clock_suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("map");
	tcase_add_test(tc, drift_term_exact);
	tcase_add_test(tc, map_monotone);
	tcase_add_test(tc, compose);
	tcase_add_test(tc, stream_drift);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_add_test(tc, ovnisync_offset_table);
	tcase_add_test(tc, ovnisync_drift_table);
	tcase_add_test(tc, json_roundtrip);
	suite_add_tcase(s, tc);
	tc = tcase_create("estimate");
	tcase_add_test(tc, estimate_random);
	tcase_add_test(tc, estimate_ring);
	tcase_add_test(tc, estimate_unlinked_and_one_sided);
	tcase_add_test(tc, estimate_hull_memory);
	suite_add_tcase(s, tc);
	tc = tcase_create("lp");
	tcase_add_loop_test(tc, lp_table, 0, (int) (sizeof(lp_cases) / sizeof(lp_cases[0])));
	tcase_add_test(tc, lp_lazy_rows_and_warm_start);
	suite_add_tcase(s, tc);
	return s;
}
