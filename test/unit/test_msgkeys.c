/* Unit tests of models/msg/keys.c: matching keys found again after the
 * index and the key array grow, kept in first-seen order, one cache line
 * each; FIFOs in order through ring growth and wrap-around. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "msg/keys.h"
#include "suites.h"

START_TEST(keys_found_in_first_seen_order)
{
	struct keytab t = {0};
	const int n = 20000;
	for (int i = 0; i < n; i++) {
		struct key *k = keytab_get(&t, i % 97, i / 97, i % 5 - 2);
		ck_assert_int_eq(k->src, i % 97);
		ck_assert_uint_eq(k->n, 0);
		k->n = (uint32_t) i + 1; /* a mark */
	}
	ck_assert_uint_eq(t.n, (size_t) n);
	for (int i = n - 1; i >= 0; i--) {
		struct key *k = keytab_get(&t, i % 97, i / 97, i % 5 - 2);
		ck_assert_uint_eq(k->n, (uint32_t) i + 1);
		ck_assert_ptr_eq(k, &t.key[i]);
		ck_assert_uint_eq((uintptr_t) k % 64, 0);
		k->n = 0;
	}
	ck_assert_uint_eq(t.n, (size_t) n);
	/* negative and extreme fields are keys like any other */
	struct key *a = keytab_get(&t, -1, INT32_MAX, INT32_MIN);
	struct key *b = keytab_get(&t, INT32_MAX, -1, INT32_MIN);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_eq(keytab_get(&t, -1, INT32_MAX, INT32_MIN), &t.key[n]);
	keytab_free(&t);
}
END_TEST

START_TEST(fifo_order_through_growth)
{
	struct keytab t = {0};
	struct key *k = keytab_get(&t, 1, 2, 3);
	uint64_t next_in = 0, next_out = 0;
	/* grow to 1000 waiting, then alternate so the ring wraps many times */
	for (int step = 0; step < 5000; step++) {
		int push = step < 1000 || step % 3 != 0;
		if (push) {
			struct pend p = {next_in, next_in * 10, NULL};
			key_push(k, KEY_SENDS, &p);
			next_in++;
		} else {
			ck_assert_uint_eq(key_waiting(k, KEY_SENDS), next_in - next_out);
			struct pend p = key_pop(k);
			ck_assert_uint_eq(p.a, next_out);
			ck_assert_uint_eq(p.b, next_out * 10);
			next_out++;
		}
	}
	ck_assert_uint_eq(key_waiting(k, KEY_RECVS), 0);
	while (k->n) {
		struct pend p = key_pop(k);
		ck_assert_uint_eq(p.a, next_out++);
	}
	ck_assert_uint_eq(next_out, next_in);
	/* empty: the other direction may wait now */
	struct pend r = {7, 8, NULL};
	key_push(k, KEY_RECVS, &r);
	ck_assert_uint_eq(key_waiting(k, KEY_RECVS), 1);
	ck_assert_uint_eq(key_waiting(k, KEY_SENDS), 0);
	ck_assert_uint_eq(key_pop(k).a, 7);
	keytab_free(&t);
}
END_TEST

Suite *msgkeys_suite(void)
{
	Suite *s = suite_create("msgkeys");
	TCase *tc = tcase_create("keys");
	tcase_add_test(tc, keys_found_in_first_seen_order);
	tcase_add_test(tc, fifo_order_through_growth);
	suite_add_tcase(s, tc);
	return s;
}
