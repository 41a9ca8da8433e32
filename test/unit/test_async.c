/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/import/charisma_async.c: the table of asynchronous
 * requests in flight against a plain array, through many random issues and
 * ends (growth, reuse of entries, removal shifting probe chains back), and
 * the requests left listed in order of issue. */
#include <check.h>
#include <stdlib.h>

#include "import/charisma_async.h"
#include "suites.h"

struct ref {
	struct akey k;
	size_t off;
	int live;
};

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* The request in flight with key k in the list, or NULL. */
static struct ref *live_with(struct ref *ref, int n, struct akey k)
{
	for (int i = 0; i < n; i++)
		if (ref[i].live && ref[i].k.kind == k.kind && ref[i].k.who == k.who && ref[i].k.id == k.id)
			return &ref[i];
	return NULL;
}

START_TEST(table_matches_a_list)
{
	enum { N = 3000 };
	struct ref *ref = calloc(N, sizeof(*ref));
	struct atab t = {0};
	uint64_t seed = 5;
	int nref = 0;
	for (int step = 0; step < 40000; step++) {
		uint64_t r = next(&seed) % 100;
		if (r < 55 && nref < N) { /* issue a new request (keys collide in who and id) */
			struct akey k = {(int64_t) (next(&seed) % 2), (int64_t) (next(&seed) % 40),
					 (int64_t) (next(&seed) % 200)};
			int dup = live_with(ref, nref, k) != NULL;
			ck_assert_int_eq(at_find(&t, k) != NULL, dup);
			if (dup)
				continue;
			struct async_req *q = at_add(&t, k, (size_t) (next(&seed) % 5));
			q->off = (size_t) step;
			ref[nref++] = (struct ref){k, (size_t) step, 1};
		} else if (nref) { /* end one by the key of any issued, maybe ended */
			struct akey k = ref[next(&seed) % (uint64_t) nref].k;
			struct ref *x = live_with(ref, nref, k);
			struct async_req *q = at_find(&t, k);
			ck_assert_int_eq(q != NULL, x != NULL);
			if (q) {
				ck_assert_uint_eq(q->off, x->off);
				at_del(&t, q);
				x->live = 0;
			}
		}
		if (nref == N) { /* compact the list of the ended */
			int j = 0;
			for (int i = 0; i < nref; i++)
				if (ref[i].live)
					ref[j++] = ref[i];
			nref = j;
		}
	}
	struct async_req **left;
	size_t n = at_left(&t, &left), j = 0;
	for (int i = 0; i < nref; i++) {
		if (!ref[i].live)
			continue;
		ck_assert_uint_lt(j, n);
		ck_assert_uint_eq(left[j]->off, ref[i].off); /* in order of issue */
		j++;
	}
	ck_assert_uint_eq(j, n);
	free(left);
	at_free(&t);
	free(ref);
}
END_TEST

Suite *async_suite(void)
{
	Suite *s = suite_create("charisma_async");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, table_matches_a_list);
	suite_add_tcase(s, tc);
	return s;
}
