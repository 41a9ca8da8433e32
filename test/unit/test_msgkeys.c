/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/emu/keys.c: keys with ends waiting found again after
 * the table grows and after other keys leave it (backward shift), one cache
 * line each; the waiting keys reported in first-seen order (also for keys
 * seen long before they had ends waiting); FIFOs in order through ring
 * growth and wrap-around. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "emu/keys.h"
#include "suites.h"

static void push(struct keytab *t, int32_t s, int32_t d, int32_t g, int dir, uint64_t a)
{
	struct key *k = keytab_find(t, s, d, g);
	ck_assert(k == NULL || k->dir == dir);
	struct pend p = {a, a * 10, NULL};
	keytab_push(t, k, s, d, g, dir, &p);
}

START_TEST(keys_found_after_growth_and_removal)
{
	struct keytab t = {0};
	const int n = 20000;
	for (int i = 0; i < n; i++)
		push(&t, i % 97, i / 97, i % 5 - 2, KEY_SENDS, (uint64_t) i);
	ck_assert_uint_eq(t.n, (size_t) n);
	/* take every third key's end: the key leaves the table */
	for (int i = 0; i < n; i += 3) {
		struct key *k = keytab_find(&t, i % 97, i / 97, i % 5 - 2);
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(keytab_pop(&t, k).a, (uint64_t) i);
	}
	for (int i = n - 1; i >= 0; i--) {
		struct key *k = keytab_find(&t, i % 97, i / 97, i % 5 - 2);
		if (i % 3 == 0) {
			ck_assert_ptr_null(k);
			continue;
		}
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(k->n, 1);
		ck_assert_uint_eq(k->first.a, (uint64_t) i);
		ck_assert_uint_eq((uintptr_t) k % 64, 0);
	}
	/* negative and extreme fields are keys like any other */
	push(&t, -1, INT32_MAX, INT32_MIN, KEY_RECVS, 1);
	push(&t, INT32_MAX, -1, INT32_MIN, KEY_RECVS, 2);
	ck_assert_uint_eq(keytab_find(&t, -1, INT32_MAX, INT32_MIN)->first.a, 1);
	ck_assert_uint_eq(keytab_find(&t, INT32_MAX, -1, INT32_MIN)->first.a, 2);
	keytab_free(&t);
}
END_TEST

START_TEST(waiting_keys_in_first_seen_order)
{
	struct keytab t = {0};
	/* keys 0..999 seen in order, each matched at once; then ends wait on
	 * keys in reverse order, key 500 first seen again */
	for (int i = 0; i < 1000; i++) {
		push(&t, i, 0, 7, KEY_SENDS, (uint64_t) i);
		struct key *k = keytab_find(&t, i, 0, 7);
		ck_assert_int_eq(key_waiting(k, KEY_SENDS), 1);
		keytab_pop(&t, k);
	}
	ck_assert_uint_eq(t.n, 0);
	for (int i = 999; i >= 0; i -= 7)
		push(&t, i, 0, 7, KEY_RECVS, (uint64_t) i);
	push(&t, 5000, 0, 7, KEY_SENDS, 5000); /* a new key: last */
	struct key **w;
	size_t n = keytab_waiting(&t, &w);
	ck_assert_uint_eq(n, t.n);
	for (size_t i = 1; i < n; i++)
		ck_assert_int_lt(w[i - 1]->src, w[i]->src);
	ck_assert_int_eq(w[n - 1]->src, 5000);
	free(w);
	keytab_free(&t);
}
END_TEST

START_TEST(fifo_order_through_growth)
{
	struct keytab t = {0};
	uint64_t next_in = 0, next_out = 0;
	/* grow to 1000 waiting, then alternate so the ring wraps many times */
	for (int step = 0; step < 5000; step++) {
		int in = step < 1000 || step % 3 != 0;
		if (in) {
			push(&t, 1, 2, 3, KEY_SENDS, next_in);
			next_in++;
		} else {
			struct key *k = keytab_find(&t, 1, 2, 3);
			ck_assert_uint_eq(key_waiting(k, KEY_SENDS), next_in - next_out);
			struct pend p = keytab_pop(&t, k);
			ck_assert_uint_eq(p.a, next_out);
			ck_assert_uint_eq(p.b, next_out * 10);
			next_out++;
		}
	}
	struct key *k = keytab_find(&t, 1, 2, 3);
	ck_assert_uint_eq(key_waiting(k, KEY_RECVS), 0);
	while (next_out < next_in) {
		k = keytab_find(&t, 1, 2, 3);
		ck_assert_uint_eq(keytab_pop(&t, k).a, next_out++);
	}
	/* empty: the key is gone, the other direction may wait now */
	ck_assert_ptr_null(keytab_find(&t, 1, 2, 3));
	push(&t, 1, 2, 3, KEY_RECVS, 7);
	k = keytab_find(&t, 1, 2, 3);
	ck_assert_uint_eq(key_waiting(k, KEY_RECVS), 1);
	ck_assert_uint_eq(key_waiting(k, KEY_SENDS), 0);
	push(&t, 1, 2, 3, KEY_RECVS, 8); /* into the ring left by the sends */
	k = keytab_find(&t, 1, 2, 3);
	ck_assert_uint_eq(keytab_pop(&t, k).a, 7);
	k = keytab_find(&t, 1, 2, 3);
	ck_assert_uint_eq(keytab_pop(&t, k).a, 8);
	ck_assert_uint_eq(t.n, 0);
	keytab_free(&t);
}
END_TEST

Suite *msgkeys_suite(void)
{
	Suite *s = suite_create("msgkeys");
	TCase *tc = tcase_create("keys");
	tcase_add_test(tc, keys_found_after_growth_and_removal);
	tcase_add_test(tc, waiting_keys_in_first_seen_order);
	tcase_add_test(tc, fifo_order_through_growth);
	suite_add_tcase(s, tc);
	return s;
}
