/* Unit tests of src/trace/writer.c: ow_event_fixed writes the same bytes as
 * ow_event (header, flushes of a small buffer, payload sizes 2..16), and
 * those bytes are events obs_decode reads back. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obs.h"
#include "suites.h"
#include "testutil.h"
#include "writer.h"

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	uint8_t *d = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			d = realloc(d, cap);
		}
		size_t k = fread(d + *n, 1, cap - *n, f);
		if (k == 0)
			break;
		*n += k;
	}
	fclose(f);
	return d;
}

/* One event of each payload size the importers use, many times, so a 64-byte
 * buffer flushes in the middle of events of every size. */
static void write_all(struct ovni_writer *w, int fixed)
{
	uint8_t pl[16];
	for (int i = 0; i < 16; i++)
		pl[i] = (uint8_t) (0xa0 + i);
	for (uint64_t k = 0; k < 300; k++) {
		uint64_t clk = 1000 + 7 * k;
		switch (k % 4) {
		case 0:
			fixed ? ow_event_fixed(w, "AG[", clk, pl, 12) : ow_event(w, "AG[", clk, pl, 12);
			break;
		case 1:
			fixed ? ow_event_fixed(w, "AW=", clk, pl, 8) : ow_event(w, "AW=", clk, pl, 8);
			break;
		case 2:
			fixed ? ow_event_fixed(w, "AX.", clk, pl, 16) : ow_event(w, "AX.", clk, pl, 16);
			break;
		default:
			fixed ? ow_event_fixed(w, "XY2", clk, pl, 2) : ow_event(w, "XY2", clk, pl, 2);
			break;
		}
	}
}

START_TEST(fixed_same_bytes)
{
	char *dir = tu_mkdtemp();
	char *a = tu_join(dir, "a"), *b = tu_join(dir, "b");
	struct weft_err e = {0};
	struct ovni_writer wa, wb;
	ck_assert_int_eq(ow_open(&wa, a, 64, &e), 0);
	ck_assert_int_eq(ow_open(&wb, b, 64, &e), 0);
	write_all(&wa, 0);
	write_all(&wb, 1);
	ck_assert_uint_eq(wa.nevents, 300);
	ck_assert_uint_eq(wb.nevents, 300);
	ck_assert_int_eq(ow_close(&wa, &e), 0);
	ck_assert_int_eq(ow_close(&wb, &e), 0);
	char *fa = tu_join(a, "stream.obs"), *fb = tu_join(b, "stream.obs");
	size_t na, nb;
	uint8_t *da = slurp(fa, &na), *db = slurp(fb, &nb);
	ck_assert_uint_eq(na, nb);
	ck_assert_int_eq(memcmp(da, db, na), 0);
	/* and they decode: header, then 300 events with their clocks and payloads */
	int swap = 0;
	ck_assert_int_eq(obs_check_header(db, nb, &swap, fb, &e), 0);
	size_t pos = 8;
	for (uint64_t k = 0; k < 300; k++) {
		struct weft_ev ev;
		size_t sz;
		ck_assert_int_eq(obs_decode(db + pos, nb - pos, swap, &ev, &sz), OBS_EVENT);
		ck_assert_uint_eq(ev.clock, 1000 + 7 * k);
		static const uint32_t len[4] = {12, 8, 16, 2};
		ck_assert_uint_eq(ev.payload_len, len[k % 4]);
		ck_assert_uint_eq(ev.payload[0], 0xa0);
		ck_assert_uint_eq(ev.payload[ev.payload_len - 1], 0xa0 + ev.payload_len - 1);
		pos += sz;
	}
	ck_assert_uint_eq(pos, nb);
	free(da);
	free(db);
	free(fa);
	free(fb);
	free(a);
	free(b);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("fixed");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_test(tc, fixed_same_bytes);
	suite_add_tcase(s, tc);
	return s;
}
