/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/trace/writer.c: ow_event and its fixed-size fast path
 * ow_event_fixed write the same stream.obs bytes (this machine's byte order,
 * as libovni writes), across buffer drains; ow_jumbo_fixed writes libovni's
 * jumbo layout. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "testutil.h"
#include "trace/writer.h"

/* The stream.obs written in DIR/SUB is exactly `want`. */
static void assert_obs(const char *dir, const char *sub, const struct evbuf *want)
{
	char *d = tu_join(dir, sub);
	char *obs = tu_join(d, "stream.obs");
	size_t n;
	uint8_t *got = (uint8_t *) tu_read(obs, &n);
	ck_assert_uint_eq(n, want->n);
	ck_assert(memcmp(got, want->d, n) == 0);
	free(got);
	free(obs);
	free(d);
}

static const char *const mcvs[] = {"FR]", "FA[", "FD.", "FO.", "FR["};
static const size_t lens[] = {0, 4, 8, 12, 16};

/* The i-th test event of either writer. */
static void put(struct ovni_writer *w, int fast, int i)
{
	uint8_t pl[16];
	for (int k = 0; k < 16; k++)
		pl[k] = (uint8_t) (i * 7 + k);
	int j = i % 5;
	uint64_t clock = 1000 + 3 * (uint64_t) i;
	if (!fast) {
		ow_event(w, mcvs[j], clock, pl, lens[j]);
		return;
	}
	switch (j) { /* constant lengths, as importers call it */
	case 0: ow_event_fixed(w, ow_head("FR]", 0), clock, pl, 0); break;
	case 1: ow_event_fixed(w, ow_head("FA[", 4), clock, pl, 4); break;
	case 2: ow_event_fixed(w, ow_head("FD.", 8), clock, pl, 8); break;
	case 3: ow_event_fixed(w, ow_head("FO.", 12), clock, pl, 12); break;
	default: ow_event_fixed(w, ow_head("FR[", 16), clock, pl, 16); break;
	}
}

START_TEST(fixed_path_writes_the_same_bytes)
{
	char *dir = tu_mkdtemp();
	struct evbuf want;
	eb_init(&want, tu_host_be());
	eb_header(&want);
	for (int i = 0; i < 500; i++) {
		uint8_t pl[16];
		for (int k = 0; k < 16; k++)
			pl[k] = (uint8_t) (i * 7 + k);
		eb_ev(&want, mcvs[i % 5], 1000 + 3 * (uint64_t) i, pl, lens[i % 5]);
	}
	for (int fast = 0; fast < 2; fast++) {
		char *sub = tu_join(dir, fast ? "fast" : "slow");
		struct ovni_writer w;
		struct weft_err e;
		ck_assert_int_eq(ow_open(&w, sub, 100, &e), 0); /* small: many drains */
		for (int i = 0; i < 500; i++)
			put(&w, fast, i);
		ck_assert_uint_eq(w.nevents, 500);
		ck_assert_int_eq(ow_close(&w, &e), 0);
		assert_obs(dir, fast ? "fast" : "slow", &want);
		free(sub);
	}
	eb_free(&want);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(jumbo_is_libovni_layout)
{
	char *dir = tu_mkdtemp();
	struct evbuf want;
	eb_init(&want, tu_host_be());
	eb_header(&want);
	struct ovni_writer w;
	struct weft_err e;
	char *sub = tu_join(dir, "j");
	ck_assert_int_eq(ow_open(&w, sub, 64, &e), 0); /* each event drains the last */
	for (int i = 0; i < 50; i++) {
		uint8_t d[24];
		for (int k = 0; k < 24; k++)
			d[k] = (uint8_t) (i + k);
		eb_jumbo(&want, "FRd", 7 + (uint64_t) i, d, 24);
		ow_jumbo_fixed(&w, ow_jumbo_head("FRd"), 7 + (uint64_t) i, d, 24);
		eb_ev(&want, "FR]", 8 + (uint64_t) i, NULL, 0);
		ow_event_fixed(&w, ow_head("FR]", 0), 8 + (uint64_t) i, NULL, 0);
	}
	ck_assert_int_eq(ow_close(&w, &e), 0);
	assert_obs(dir, "j", &want);
	free(sub);
	eb_free(&want);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, fixed_path_writes_the_same_bytes);
	tcase_add_test(tc, jumbo_is_libovni_layout);
	suite_add_tcase(s, tc);
	return s;
}
