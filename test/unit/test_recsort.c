/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/import/recsort.c: records sorted by (time, offset) in
 * window mode (nearly sorted input, overflow detection) and spill mode
 * (any order, many runs, ties kept in offset order). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/recsort.h"
#include "suites.h"

struct got {
	struct rs_key *k;
	size_t n, cap;
};

static int collect(void *ctx, uint64_t t, uint64_t off)
{
	struct got *g = ctx;
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->k = realloc(g->k, g->cap * sizeof(*g->k));
	}
	g->k[g->n++] = (struct rs_key){t, off};
	return 0;
}

/* The keys came out sorted by (t, off), n of them, offsets 0..n-1 once each. */
static void assert_sorted(const struct got *g, size_t n)
{
	ck_assert_uint_eq(g->n, n);
	char *seen = calloc(n, 1);
	for (size_t i = 0; i < g->n; i++) {
		ck_assert_uint_lt(g->k[i].off, n);
		ck_assert(!seen[g->k[i].off]);
		seen[g->k[i].off] = 1;
		if (i)
			ck_assert(g->k[i - 1].t < g->k[i].t ||
				  (g->k[i - 1].t == g->k[i].t && g->k[i - 1].off < g->k[i].off));
	}
	free(seen);
}

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Times that increase with jitter of at most `jit`, often equal. */
static uint64_t *times(size_t n, uint64_t jit, uint64_t seed)
{
	uint64_t *t = malloc(n * sizeof(*t));
	for (size_t i = 0; i < n; i++)
		t[i] = 10 * (uint64_t) i + next(&seed) % (jit + 1);
	return t;
}

START_TEST(window_sorts_nearly_sorted)
{
	size_t n = 100000;
	uint64_t *t = times(n, 500, 3); /* displaced by at most 50 records */
	struct got g = {0};
	struct recsort s;
	struct weft_err e;
	rs_window(&s, 64, collect, &g);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(rs_add(&s, t[i], i, &e), 0);
	ck_assert_int_eq(rs_finish(&s, &e), 0);
	rs_free(&s);
	assert_sorted(&g, n);
	free(g.k);
	free(t);
}
END_TEST

START_TEST(window_overflow)
{
	struct got g = {0};
	struct recsort s;
	struct weft_err e;
	rs_window(&s, 4, collect, &g);
	int rc = 0;
	for (uint64_t i = 0; i < 10 && rc == 0; i++)
		rc = rs_add(&s, 100 + i, i, &e);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(rs_add(&s, 50, 10, &e), RS_OVERFLOW); /* earlier than handed on */
	rs_free(&s);
	free(g.k);
}
END_TEST

START_TEST(window_one_record)
{
	struct got g = {0};
	struct recsort s;
	struct weft_err e;
	rs_window(&s, 1, collect, &g);
	ck_assert_int_eq(rs_add(&s, 5, 0, &e), 0);
	ck_assert_int_eq(rs_add(&s, 5, 1, &e), 0);
	ck_assert_int_eq(rs_add(&s, 7, 2, &e), 0);
	ck_assert_int_eq(rs_add(&s, 6, 3, &e), RS_OVERFLOW);
	rs_free(&s);
	free(g.k);
}
END_TEST

/* The window's rule, simply: keep `window` keys sorted in an array, hand on
 * the smallest when full; a key below the last handed on is an overflow.
 * Returns the index of the overflowing key, or n. */
static size_t reference(const uint64_t *t, size_t n, size_t window, struct got *g)
{
	struct rs_key *held = malloc(window * sizeof(*held)), last = {0, 0};
	size_t nh = 0, i;
	for (i = 0; i < n; i++) {
		if (nh == window) {
			last = held[0];
			collect(g, last.t, last.off);
			memmove(held, held + 1, --nh * sizeof(*held));
		}
		if (t[i] < last.t)
			break;
		size_t j = nh;
		while (j > 0 && held[j - 1].t > t[i])
			j--;
		memmove(held + j + 1, held + j, (nh - j) * sizeof(*held));
		held[j] = (struct rs_key){t[i], i};
		nh++;
	}
	for (size_t j = 0; i == n && j < nh; j++)
		collect(g, held[j].t, held[j].off);
	free(held);
	return i;
}

/* Mostly small displacements (insertion near the first queue's tail), some
 * far ones (the other queues and the heap), some beyond the window: the
 * records handed on and the overflow point are the simple rule's. */
START_TEST(window_matches_the_rule)
{
	uint64_t seed = 11;
	for (int round = 0; round < 40; round++) {
		size_t n = 3000, window = 1 + next(&seed) % 400;
		uint64_t *t = malloc(n * sizeof(*t));
		for (size_t i = 0; i < n; i++) {
			uint64_t r = next(&seed) % 100, base = 100000 + 10 * (uint64_t) i;
			t[i] = r < 80 ? base : r < 95 ? base - next(&seed) % 300 : base - next(&seed) % (round * 200 + 1);
		}
		struct got want = {0}, got = {0};
		size_t stop = reference(t, n, window, &want);
		struct recsort s;
		struct weft_err e;
		rs_window(&s, window, collect, &got);
		size_t i;
		int rc = 0;
		for (i = 0; i < n && (rc = rs_add(&s, t[i], i, &e)) == 0; i++)
			;
		ck_assert_uint_eq(i, stop);
		ck_assert_int_eq(rc, stop < n ? RS_OVERFLOW : 0);
		if (stop == n)
			ck_assert_int_eq(rs_finish(&s, &e), 0);
		rs_free(&s);
		ck_assert_uint_eq(got.n, want.n);
		for (size_t j = 0; j < got.n; j++) {
			ck_assert_uint_eq(got.k[j].t, want.k[j].t);
			ck_assert_uint_eq(got.k[j].off, want.k[j].off);
		}
		free(got.k);
		free(want.k);
		free(t);
	}
}
END_TEST

static void spill_case(size_t n, size_t window, uint64_t range)
{
	uint64_t seed = n + window;
	struct got g = {0};
	struct recsort s;
	struct weft_err e;
	ck_assert_int_eq(rs_spill(&s, window, collect, &g, &e), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(rs_add(&s, next(&seed) % range, i, &e), 0);
	ck_assert_int_eq(rs_finish(&s, &e), 0);
	rs_free(&s);
	assert_sorted(&g, n);
	free(g.k);
}

START_TEST(spill_sorts_anything)
{
	spill_case(50000, 1000, 1000000); /* 50 runs */
	spill_case(50000, 7, 50);         /* 7143 runs, many ties */
	spill_case(10, 100, 5);           /* one run, in memory */
	spill_case(0, 16, 5);
}
END_TEST

Suite *recsort_suite(void)
{
	Suite *s = suite_create("recsort");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, window_sorts_nearly_sorted);
	tcase_add_test(tc, window_overflow);
	tcase_add_test(tc, window_one_record);
	tcase_add_test(tc, window_matches_the_rule);
	tcase_add_test(tc, spill_sorts_anything);
	suite_add_tcase(s, tc);
	return s;
}
