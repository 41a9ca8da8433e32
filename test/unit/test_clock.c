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

#include "clock/bounds.h"
#include "clock/clock.h"
#include "clock/clockfile.h"
#include "clock/estimate.h"
#include "clock/piecewise.h"
#include "clock/repair.h"
#include "trace/stream.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

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
	for (size_t i = 0; i < ARRAY_SIZE(dts); i++)
		for (size_t j = 0; j < ARRAY_SIZE(drifts); j++)
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
	parse_fails("{\"weft_clock\": 3, \"looms\": []}", "key 'weft_clock'");
	parse_fails("{\"weft_clock\": 1, \"looms\": [{\"loom\": \"a\", \"offset_ns\": 0, \"segments\": []}]}",
		    "segments need \"weft_clock\": 2");
	parse_fails("{\"weft_clock\": 2, \"looms\": [{\"loom\": \"a\", \"offset_ns\": 0, \"segments\": "
		    "[{\"from_ns\": 0, \"offset_ns\": 5}]}]}",
		    "looms[0].segments[0]' (loom a): expected 'from_ns'");
	{
		/* version 2: the first line, then two more from their local times on */
		struct clock_table v2 =
			parse_ok("{\"weft_clock\": 2, \"looms\": [{\"loom\": \"a\", \"offset_ns\": 7, "
				 "\"segments\": [{\"from_ns\": 100, \"offset_ns\": 9}, {\"from_ns\": 200, "
				 "\"offset_ns\": 4, \"drift_ppm\": 10, \"ref_ns\": 200}]}]}");
		ck_assert_int_eq(v2.n, 1);
		ck_assert_int_eq(v2.ent[0].nseg, 3);
		ck_assert_int_eq(pw_corr(v2.ent[0].seg, 3, 50), 7);
		ck_assert_int_eq(pw_corr(v2.ent[0].seg, 3, 150), 9);
		ck_assert_int_eq(pw_corr(v2.ent[0].seg, 3, 200 + 1000000), 4 + 10);
		clockfile_free(&v2);
	}
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
	est_init(&x, NL, 0, 0);
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
		ck_assert_int_eq(r.loom[k].nseg, 1); /* a line: no break found */
		for (int end = 0; end < 2; end++) {
			double tau = end ? 10e9 : 1e6;
			double xk = local(&tr, k, tau);
			double truth = local(&tr, 0, tau) - xk;
			double est = est_eval(&r, k, llround(xk));
			ck_assert_msg(fabs(est - truth) <= max_err,
				      "%s: loom %d at the %s: estimate %.1f ns, truth %.1f ns (error %.1f)",
				      ring ? "ring" : "random", k, end ? "end" : "start", est, truth, est - truth);
		}
	}
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
	est_init(&x, 5, 0, 0);
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
	ck_assert_msg(fabs(r.loom[1].seg[0].p - 2000) < 1 && fabs(r.loom[1].seg[0].q) < 1e-9, "p %f q %g",
		      r.loom[1].seg[0].p, r.loom[1].seg[0].q);
	ck_assert_msg(fabs(r.loom[3].seg[0].p) < 1, "p %f", r.loom[3].seg[0].p);
	est_result_free(&r);
	est_free(&x);
}
END_TEST

START_TEST(estimate_memory_fixed)
{
	/* a million messages of one pair both ways: two links of fixed bins */
	struct estimator x;
	est_init(&x, 2, 0, 0);
	for (int i = 0; i < 1000000; i++) {
		int64_t t = (int64_t) i * 10000;
		int64_t lat = 2000 + (int64_t) (rnd() % 8000);
		est_add(&x, i & 1, !(i & 1), t, t + lat + (i & 1 ? 700 : -700));
	}
	ck_assert_uint_eq(x.nlinks, 2);
	struct est_result r;
	struct weft_err e = {0};
	ck_assert_msg(est_solve(&x, 0, 10000000000ll, &r, &e) == 0, "%s", e.msg);
	ck_assert_uint_le(r.npoints, 2 * (uint64_t) x.nbins);
	ck_assert_msg(fabs(r.loom[1].seg[0].p - 700) < 100, "p %f", r.loom[1].seg[0].p);
	est_result_free(&r);
	est_free(&x);
}
END_TEST

/* Loom 1's clock changes rate by 40 ppm (change 0) or steps by 50 us
 * (change 1) at 5 s; random traffic among 4 looms: two segments, within
 * 2 us of the truth away from the change. */
static double local_pw(int k, double tau, int change)
{
	double off[NL] = {0, 1.5e6, -0.7e6, 0.3e6}, dr[NL] = {0, 20e-6, -10e-6, 5e-6};
	double l = tau + off[k] + dr[k] * tau;
	if (k == 1 && tau > 5e9)
		l += change == 0 ? 40e-6 * (tau - 5e9) : 50000;
	return l;
}

static void check_change(int change)
{
	struct estimator x;
	est_init(&x, NL, 0, 0);
	for (int i = 0; i < 40000; i++) {
		double tau = 1e6 + 10e9 * (double) i / 40000;
		int s = (int) (rnd() % NL), r;
		do
			r = (int) (rnd() % NL);
		while (r == s);
		double lat = 2000 + 8000 * urand();
		est_add(&x, s, r, llround(local_pw(s, tau, change)), llround(local_pw(r, tau + lat, change)));
	}
	struct est_result r;
	struct weft_err e = {0};
	ck_assert_msg(est_solve(&x, 0, (int64_t) 10.1e9, &r, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(r.loom[1].nseg, 2);
	ck_assert_int_eq(r.nlocate, change == 1);
	for (int k = 2; k < NL; k++)
		ck_assert_int_eq(r.loom[k].nseg, 1);
	for (double tau = 1e6; tau < 10e9 && change == 0; tau += 0.25e9) {
		if (fabs(tau - 5e9) < 0.3e9)
			continue;
		double x1 = local_pw(1, tau, change);
		double truth = local_pw(0, tau, change) - x1;
		double est = est_eval(&r, 1, llround(x1));
		ck_assert_msg(fabs(est - truth) < 2000, "at %.0f ns: estimate %.0f, truth %.0f", tau, est, truth);
	}
	est_result_free(&r);
	est_free(&x);
}

START_TEST(estimate_rate_change)
{
	check_change(0);
}
END_TEST

START_TEST(estimate_step)
{
	check_change(1);
}
END_TEST

/* Composition with an addition: a tent of 1000 ns at 1.2 ms. */
START_TEST(piecewise_add)
{
	struct clock_seg s[2] = {{0, {100, 0, 0}}, {2000000, {50, 0, 2000000}}};
	/* 0 at 1 ms, 1000 at 1.2 ms, 0 at 1.4 ms: slopes of 0.5 % */
	uint64_t at[3] = {1000000, 1200000, 1400000};
	double v[3] = {0, 1000, 0};
	struct pw_add a = {at, v, 3};
	int n;
	struct clock_seg *o = pw_compose_add(s, 2, &a, &n);
	ck_assert_int_ge(n, 4);
	ck_assert_int_eq(pw_corr(o, n, 500000), 100);
	/* local 1199900 -> 1.2 ms corrected: moved by 1000 */
	ck_assert_int_eq(pw_corr(o, n, 1199900), 100 + 1000);
	/* local 1299900 -> 1.3 ms: halfway down */
	ck_assert_int_eq(pw_corr(o, n, 1299900), 100 + 500);
	/* after the tent, the given map */
	ck_assert_int_eq(pw_corr(o, n, 1500000), 100);
	ck_assert_int_eq(pw_corr(o, n, 2500000), 50);
	uint64_t back = pw_invert(o, n, 1201000); /* drifts are rounded to the ppt */
	ck_assert_msg(back >= 1199899 && back <= 1199901, "%llu", (unsigned long long) back);
	free(o);
}
END_TEST

/* A late receive: a tent; one it covers adds nothing. */
START_TEST(repair_tents)
{
	struct repair rp;
	repair_init(&rp, 2, 0);
	repair_add(&rp, 1, 100000000, 99990000); /* 10 us late: tent of 10001 ns */
	repair_add(&rp, 1, 100001000, 100000500); /* covered */
	repair_add(&rp, 0, 5, 10); /* in time */
	ck_assert_uint_eq(rp.nviol, 2);
	ck_assert_int_eq(rp.loom[1].n, 1);
	uint64_t *at;
	double *v;
	int n;
	repair_moves(&rp, 1, 0, &at, &v, &n);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(at[1], 99990000);
	ck_assert(fabs(v[1] - 10001) < 0.01); /* the ramp starts at a whole ns */
	ck_assert(fabs((double) (at[1] - at[0]) - 10001 / REPAIR_GAMMA) <= 1);
	ck_assert(fabs((double) (at[2] - at[1]) - 10001 / REPAIR_GAMMA) <= 1);
	free(at);
	free(v);
	/* a tent whose ramp would start before the run: its height at 0 */
	repair_add(&rp, 0, 1000000, 990000);
	repair_round(&rp);
	repair_moves(&rp, 0, 0, &at, &v, &n);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(at[0], 0);
	ck_assert(fabs(v[0] - (10001 - REPAIR_GAMMA * 990000)) < 1e-6);
	free(at);
	free(v);
	repair_free(&rp);
}
END_TEST

/* Bounds: d_s - d_r <= least slack for each pair s -> r, the reference
 * fixed. Loom 1 is bounded both ways ([-5, 3]); loom 2 only receives (from
 * 1, slack 7): [-12, +inf); loom 3 is its own reference, loom 4 unlinked. */
START_TEST(bounds_paths)
{
	struct bounds b;
	bounds_init(&b, 5, 1000);
	bounds_add(&b, 0, 1, 100, 1200); /* slack 100 */
	bounds_add(&b, 0, 1, 5000, 6005); /* slack 5: the least */
	bounds_add(&b, 1, 0, 7000, 8003); /* slack 3 */
	bounds_add(&b, 1, 2, 9000, 10007); /* slack 7 */
	bounds_add(&b, 1, 2, 9500, 9900); /* late: slack 0... */
	bounds_reset(&b); /* ...but of a pass before */
	ck_assert_uint_eq(b.nmsg, 0);
	bounds_add(&b, 0, 1, 100, 1200);
	bounds_add(&b, 0, 1, 5000, 6005);
	bounds_add(&b, 1, 0, 7000, 8003);
	bounds_add(&b, 1, 2, 9000, 10007);
	bounds_add(&b, 3, 3, 0, 0); /* within a loom: none */
	ck_assert_uint_eq(b.nmsg, 4);
	ck_assert_uint_eq(b.nneg, 0);
	int ref[5] = {0, 0, 0, 3, -1};
	double lo[5], hi[5];
	bounds_solve(&b, ref, lo, hi);
	ck_assert(lo[0] == 0 && hi[0] == 0);
	ck_assert_msg(lo[1] == -5 && hi[1] == 3, "loom 1: [%g, %g]", lo[1], hi[1]);
	ck_assert_msg(lo[2] == -12 && isinf(hi[2]) && hi[2] > 0, "loom 2: [%g, %g]", lo[2], hi[2]);
	ck_assert(lo[3] == 0 && hi[3] == 0 && lo[4] == 0 && hi[4] == 0);
	/* a late message counts as slack 0: loom 1 can no longer move down */
	bounds_add(&b, 0, 1, 9000, 9500);
	ck_assert_uint_eq(b.nneg, 1);
	bounds_solve(&b, ref, lo, hi);
	ck_assert_msg(lo[1] == 0 && hi[1] == 3 && lo[2] == -7, "late: [%g, %g], %g", lo[1], hi[1], lo[2]);
	bounds_free(&b);
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
	tcase_add_test(tc, estimate_memory_fixed);
	tcase_add_test(tc, estimate_rate_change);
	tcase_add_test(tc, estimate_step);
	tcase_add_test(tc, piecewise_add);
	tcase_add_test(tc, repair_tents);
	tcase_add_test(tc, bounds_paths);
	suite_add_tcase(s, tc);
	return s;
}
