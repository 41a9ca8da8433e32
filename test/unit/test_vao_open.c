/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of models/visandor/open.c: records by 64-bit key. Random adds
 * and deletions (keys that collide in the table, runs that wrap around its
 * end, growth) checked against a plain array; freed slots are reused with
 * their bytes, so memory follows the records alive at once. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "visandor/open.h"

struct rec {
	uint64_t key;
	uint64_t kept; /* survives reuse of the slot */
};

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

START_TEST(random_against_array)
{
	struct vao_open o;
	vao_open_init(&o, sizeof(struct rec));
	enum { NKEYS = 3000 };
	uint64_t keys[NKEYS];
	int in[NKEYS] = {0};
	uint64_t seed = 99;
	for (int i = 0; i < NKEYS; i++) {
		/* few distinct high bits: many keys share a home in the table
		 * (key 0 among them) */
		keys[i] = i % 3 ? next(&seed) : ((uint64_t) (i % 7) << 32 | (uint64_t) i);
	}
	int alive = 0, most = 0;
	for (int it = 0; it < 200000; it++) {
		int k = (int) (next(&seed) % (it < 100000 ? NKEYS : 300));
		if (in[k]) {
			struct rec *r = vao_open_find(&o, keys[k]);
			ck_assert_ptr_nonnull(r);
			ck_assert_uint_eq(r->key, keys[k]);
			vao_open_del(&o, keys[k]);
			in[k] = 0;
			alive--;
		} else {
			ck_assert_ptr_null(vao_open_find(&o, keys[k]));
			struct rec *r = vao_open_add(&o, keys[k]);
			r->key = keys[k];
			r->kept++;
			in[k] = 1;
			alive++;
			if (alive > most)
				most = alive;
		}
		if (it % 5000 == 0)
			for (int j = 0; j < NKEYS; j++) {
				struct rec *r = vao_open_find(&o, keys[j]);
				if (in[j]) {
					ck_assert_ptr_nonnull(r);
					ck_assert_uint_eq(r->key, keys[j]);
				} else {
					ck_assert_ptr_null(r);
				}
			}
	}
	ck_assert_uint_eq(o.n, (uint32_t) alive);
	ck_assert_int_le(o.nslot, most);
	/* every add either took a new slot or reused one, keeping its bytes */
	uint64_t adds = 0;
	for (int32_t s = 0; s < o.nslot; s++)
		adds += ((struct rec *) vao_open_slot(&o, s))->kept;
	ck_assert_uint_gt(adds, (uint64_t) o.nslot);
	vao_open_free(&o);
}
END_TEST

START_TEST(wraps_around_the_table)
{
	/* keys whose home is the last entry of the 64-entry table: the run
	 * wraps to the start, and deleting its first entry shifts the rest */
	struct vao_open o;
	vao_open_init(&o, sizeof(struct rec));
	uint64_t k[8];
	int n = 0;
	for (uint64_t x = 1; n < 8; x++)
		if (vao_open_hash(&o, x) == o.mask)
			k[n++] = x;
	for (int i = 0; i < 8; i++)
		((struct rec *) vao_open_add(&o, k[i]))->key = k[i];
	ck_assert_uint_eq(o.mask, 63); /* no growth yet */
	for (int i = 0; i < 8; i++) {
		vao_open_del(&o, k[i]);
		ck_assert_ptr_null(vao_open_find(&o, k[i]));
		for (int j = i + 1; j < 8; j++)
			ck_assert_uint_eq(((struct rec *) vao_open_find(&o, k[j]))->key, k[j]);
	}
	ck_assert_uint_eq(o.n, 0);
	vao_open_free(&o);
}
END_TEST

Suite *vao_open_suite(void)
{
	Suite *s = suite_create("vao_open");
	TCase *tc = tcase_create("records");
	tcase_add_test(tc, random_against_array);
	tcase_add_test(tc, wraps_around_the_table);
	suite_add_tcase(s, tc);
	return s;
}
