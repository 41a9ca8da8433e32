/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/import/recpipe.c: every offset reaches the consumer once,
 * in order, across many batches; a consumer that stops has its return seen
 * by the producer and by rp_finish, and handles nothing after it; the lowest
 * offset not handled yet is never above one still to come. */
#include <check.h>
#include <stdlib.h>

#include "import/recpipe.h"
#include "suites.h"

struct sink {
	uint64_t *got;
	size_t n;
	size_t fail_at; /* return -1 on this offset (SIZE_MAX: never) */
	int bad_ahead;
};

static int take(void *ctx, uint64_t off, uint64_t ahead)
{
	struct sink *s = ctx;
	if (ahead != UINT64_MAX && ahead != off + 3 * RP_AHEAD)
		s->bad_ahead = 1; /* offsets below are 3 apart */
	if (off == s->fail_at)
		return -1;
	s->got[s->n++] = off;
	return 0;
}

START_TEST(offsets_arrive_in_order)
{
	size_t n = 10 * RP_BATCH + 123;
	struct sink s = {calloc(n, sizeof(uint64_t)), 0, SIZE_MAX, 0};
	struct weft_err e;
	struct recpipe *p = rp_start(take, &s, &e);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(rp_put(p, 3 * (uint64_t) i), 0);
		if (i % 5000 == 4999) /* nothing from before the last hand-over can be below it */
			ck_assert_uint_le(rp_low_off(p), 3 * (uint64_t) (i - i % RP_BATCH));
	}
	ck_assert_int_eq(rp_finish(p), 0);
	ck_assert_uint_eq(s.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(s.got[i], 3 * (uint64_t) i);
	ck_assert(!s.bad_ahead);
	free(s.got);
}
END_TEST

START_TEST(a_failure_stops_both)
{
	size_t n = 20 * RP_BATCH;
	struct sink s = {calloc(n, sizeof(uint64_t)), 0, 3 * (uint64_t) (2 * RP_BATCH + 7), 0};
	struct weft_err e;
	struct recpipe *p = rp_start(take, &s, &e);
	size_t i;
	int rc = 0;
	for (i = 0; i < n && (rc = rp_put(p, 3 * (uint64_t) i)) == 0; i++)
		;
	ck_assert_int_eq(rc, -1); /* seen before the end */
	ck_assert_uint_lt(i, n);
	ck_assert_int_eq(rp_finish(p), -1);
	ck_assert_uint_eq(s.n, 2 * RP_BATCH + 7); /* nothing handled after it */
	free(s.got);
}
END_TEST

START_TEST(empty_and_short)
{
	struct sink s = {calloc(8, sizeof(uint64_t)), 0, SIZE_MAX, 0};
	struct weft_err e;
	struct recpipe *p = rp_start(take, &s, &e);
	ck_assert_uint_eq(rp_low_off(p), UINT64_MAX);
	ck_assert_int_eq(rp_finish(p), 0);
	p = rp_start(take, &s, &e);
	ck_assert_int_eq(rp_put(p, 9), 0);
	ck_assert_uint_eq(rp_low_off(p), 9);
	ck_assert_int_eq(rp_finish(p), 0);
	ck_assert_uint_eq(s.n, 1);
	free(s.got);
}
END_TEST

Suite *recpipe_suite(void)
{
	Suite *s = suite_create("recpipe");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, offsets_arrive_in_order);
	tcase_add_test(tc, a_failure_stops_both);
	tcase_add_test(tc, empty_and_short);
	suite_add_tcase(s, tc);
	return s;
}
