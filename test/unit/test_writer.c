/* Unit tests of src/trace/writer.c: the stream writer's bytes, through
 * ow_event and its inline fixed-size form ow_event_fixed, across buffer
 * drains. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "testutil.h"
#include "writer.h"

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	size_t cap = 1 << 16, len = 0;
	uint8_t *d = malloc(cap);
	ck_assert_ptr_nonnull(d);
	size_t k;
	while ((k = fread(d + len, 1, cap - len, f)) > 0) {
		len += k;
		if (len == cap) {
			cap *= 2;
			d = realloc(d, cap);
			ck_assert_ptr_nonnull(d);
		}
	}
	fclose(f);
	*n = len;
	return d;
}

/* One event of each payload size, `rounds` times, alternating the two
 * writers, against the same events built by testutil. */
static void check_sizes(size_t bufsize, int rounds)
{
	char *dir = tu_mkdtemp();
	char *sub = tu_join(dir, "loom.x/proc.1/thread.1");
	struct ovni_writer w;
	struct weft_err e = {0};
	ck_assert_int_eq(ow_open(&w, sub, bufsize, &e), 0);
	struct evbuf want;
	eb_init(&want, tu_host_be());
	eb_header(&want);
	uint8_t pl[16];
	for (int i = 0; i < 16; i++)
		pl[i] = (uint8_t) (0xa0 + i);
	uint64_t clk = 1000;
	for (int r = 0; r < rounds; r++) {
		/* constant sizes: the inline form is compiled for each */
		ow_event_fixed(&w, "XE[", clk, pl, 16);
		eb_ev(&want, "XE[", clk++, pl, 16);
		ow_event_fixed(&w, "OM]", clk, pl, 12);
		eb_ev(&want, "OM]", clk++, pl, 12);
		ow_event_fixed(&w, "XU.", clk, pl, 8);
		eb_ev(&want, "XU.", clk++, pl, 8);
		ow_event_fixed(&w, "OHe", clk, NULL, 0);
		eb_ev(&want, "OHe", clk++, NULL, 0);
		for (size_t len = 2; len <= 16; len++) {
			ow_event(&w, "FW[", clk, pl, len);
			eb_ev(&want, "FW[", clk++, pl, len);
		}
		ow_event(&w, "Fo]", clk, NULL, 0);
		eb_ev(&want, "Fo]", clk++, NULL, 0);
	}
	ck_assert_uint_eq(w.nevents, (uint64_t) rounds * 20);
	ck_assert_int_eq(ow_close(&w, &e), 0);
	char *obs = tu_join(sub, "stream.obs");
	size_t n;
	uint8_t *got = read_all(obs, &n);
	ck_assert_uint_eq(n, want.n);
	ck_assert_mem_eq(got, want.d, n);
	free(got);
	free(obs);
	eb_free(&want);
	tu_rmtree(dir);
	free(sub);
	free(dir);
}

START_TEST(fixed_and_generic_same_bytes)
{
	check_sizes(1 << 16, 3);
}
END_TEST

START_TEST(fixed_across_drains)
{
	/* a buffer smaller than two events: nearly every event drains it */
	check_sizes(40, 50);
	check_sizes(64, 50);
}
END_TEST

Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("events");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_test(tc, fixed_and_generic_same_bytes);
	tcase_add_test(tc, fixed_across_drains);
	suite_add_tcase(s, tc);
	return s;
}
