/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/outbuf.c: number formatting and buffered output. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/outbuf.h"
#include "suites.h"
#include "testutil.h"

/* Format into a buffer full of '#' and check the text, the returned length
 * and that nothing was written past the 21 bytes the formatters may use
 * (they store whole words; callers keep that much room). */
static void check_u64(uint64_t v, const char *want)
{
	char buf[32];
	memset(buf, '#', sizeof(buf));
	size_t n = fmt_u64(buf, v);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert_mem_eq(buf, want, n);
	for (size_t i = 21; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == '#', "fmt_u64(%s) wrote byte %zu", want, i);
}

static void check_i64(int64_t v, const char *want)
{
	char buf[32];
	memset(buf, '#', sizeof(buf));
	size_t n = fmt_i64(buf, v);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert_mem_eq(buf, want, n);
	for (size_t i = 21; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == '#', "fmt_i64(%s) wrote byte %zu", want, i);
}

START_TEST(u64_small)
{
	check_u64(0, "0");
	check_u64(1, "1");
	check_u64(9, "9");
	check_u64(10, "10");
	check_u64(11, "11");
	check_u64(42, "42");
	check_u64(99, "99");
	check_u64(100, "100");
	check_u64(101, "101");
	check_u64(110, "110");
	check_u64(999, "999");
	check_u64(1000, "1000");
	check_u64(1005, "1005");
	check_u64(12345, "12345");
}
END_TEST

START_TEST(u64_powers_of_ten)
{
	uint64_t p = 1;
	char want[32];
	for (int k = 0; k <= 19; k++) {
		/* 10^k: a 1 and k zeros */
		want[0] = '1';
		memset(want + 1, '0', (size_t) k);
		want[k + 1] = '\0';
		check_u64(p, want);
		/* 10^k - 1: k nines (skipping 0) */
		if (k > 0) {
			memset(want, '9', (size_t) k);
			want[k] = '\0';
			check_u64(p - 1, want);
		}
		/* 10^k + 1 */
		if (k > 0) {
			want[0] = '1';
			memset(want + 1, '0', (size_t) k);
			want[k] = '1';
			want[k + 1] = '\0';
			check_u64(p + 1, want);
		}
		if (k < 19)
			p *= 10;
	}
}
END_TEST

START_TEST(u64_extremes)
{
	check_u64(UINT64_MAX, "18446744073709551615");
	check_u64(UINT64_MAX - 1, "18446744073709551614");
	check_u64((uint64_t) INT64_MAX, "9223372036854775807");
	check_u64((uint64_t) INT64_MAX + 1, "9223372036854775808");
	check_u64(4294967295u, "4294967295");
	check_u64(4294967296ull, "4294967296");
}
END_TEST

START_TEST(u64_matches_printf)
{
	/* a spread of values over every magnitude, compared with printf */
	uint64_t v = 1;
	for (int i = 0; i < 2000; i++) {
		char want[32];
		snprintf(want, sizeof(want), "%llu", (unsigned long long) v);
		check_u64(v, want);
		v = v * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t w = v >> (i % 64);
		snprintf(want, sizeof(want), "%llu", (unsigned long long) w);
		check_u64(w, want);
	}
}
END_TEST

START_TEST(i64_values)
{
	check_i64(0, "0");
	check_i64(9, "9");
	check_i64(10, "10");
	check_i64(99, "99");
	check_i64(100, "100");
	check_i64(-1, "-1");
	check_i64(-9, "-9");
	check_i64(-10, "-10");
	check_i64(-99, "-99");
	check_i64(-100, "-100");
	check_i64(INT64_MAX, "9223372036854775807");
	check_i64(INT64_MIN, "-9223372036854775808");
	check_i64(INT64_MIN + 1, "-9223372036854775807");
	check_i64(-1000000000000000000ll, "-1000000000000000000");
	check_i64(INT32_MIN, "-2147483648");
}
END_TEST

/* ---- the buffer -------------------------------------------------------------- */

static char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	char *buf = malloc(1 << 16);
	ck_assert_ptr_nonnull(buf);
	*n = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

START_TEST(buffer_writes)
{
	char *dir = tu_mkdtemp();
	char *path = tu_join(dir, "out");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	struct outbuf o;
	ob_init(&o, fd, 8); /* tiny: forces drains in the middle of lines */
	ob_str(&o, "hello, world: ");
	ob_room(&o, 8);
	ob_u64(&o, 1234567);
	ob_room(&o, 1);
	ob_char(&o, ' ');
	ob_room(&o, 4);
	ob_i64(&o, -123);
	ob_room(&o, 1);
	ob_char(&o, ' ');
	ob_room(&o, 8);
	ob_hex64(&o, 0xbeef);
	ob_room(&o, 1);
	ob_char(&o, ' ');
	ob_room(&o, 3);
	ob_hex64(&o, 0);
	ob_room(&o, 1);
	ob_char(&o, '|');
	static const uint8_t bytes[] = {0x00, 0x0f, 0xa5, 0xff};
	ob_hexbytes(&o, bytes, sizeof(bytes));
	ob_room(&o, 1);
	ob_char(&o, '|');
	ob_hexbytes(&o, bytes, 0);
	ob_str(&o, "");
	ob_str(&o, "end\n");
	struct weft_err e = {0};
	ck_assert_int_eq(ob_flush(&o, &e, "out"), 0);
	const char *want = "hello, world: 1234567 -123 0xbeef 0x0|00 0f a5 ff|end\n";
	ck_assert_uint_eq(o.written, strlen(want));
	ck_assert_uint_eq(o.len, 0);
	ob_free(&o);
	close(fd);
	size_t n;
	char *got = read_all(path, &n);
	ck_assert_uint_eq(n, strlen(want));
	ck_assert_mem_eq(got, want, n);
	free(got);
	unlink(path);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* An OB_GROW buffer keeps every byte, growing past its first size, and
 * ob_drain and ob_flush leave it as it is. */
START_TEST(grow_buffer)
{
	struct outbuf o;
	ob_init(&o, OB_GROW, 4);
	char want[5000];
	size_t n = 0;
	for (int i = 0; i < 500; i++) {
		ob_room(&o, 24);
		ob_u64(&o, (uint64_t) i * 1000003u);
		ob_str(&o, ",");
		n += (size_t) snprintf(want + n, sizeof(want) - n, "%llu,", (unsigned long long) i * 1000003u);
		if (i % 97 == 0)
			ob_drain(&o);
	}
	ob_strn(&o, "0123456789", 10);
	memcpy(want + n, "0123456789", 10);
	n += 10;
	struct weft_err e = {0};
	ck_assert_int_eq(ob_flush(&o, &e, "mem"), 0);
	ck_assert_uint_eq(o.len, n);
	ck_assert_mem_eq(o.buf, want, n);
	ck_assert_uint_ge(o.cap, n);
	ck_assert_uint_eq(o.written, 0);
	ob_free(&o);
}
END_TEST

START_TEST(hex64_max)
{
	struct outbuf o;
	ob_init(&o, -1, 64);
	ob_hex64(&o, UINT64_MAX);
	ck_assert_uint_eq(o.len, 18);
	ck_assert_mem_eq(o.buf, "0xffffffffffffffff", 18);
	o.len = 0;
	ob_hex64(&o, 0x0123456789abcdefull);
	ck_assert_mem_eq(o.buf, "0x123456789abcdef", 17);
	ck_assert_uint_eq(o.len, 17);
	ob_free(&o);
}
END_TEST

START_TEST(write_error_reported)
{
	struct outbuf o;
	ob_init(&o, -1, 16);
	ob_str(&o, "lost");
	struct weft_err e = {0};
	ck_assert_int_eq(ob_flush(&o, &e, "standard output"), -1);
	ck_assert_int_eq(e.code, WEFT_EINTERNAL);
	ck_assert_str_eq(e.msg, "standard output: write failed: Bad file descriptor");
	ck_assert_uint_eq(o.written, 0);
	/* the error is latched: later flushes fail too */
	ob_str(&o, "more");
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(ob_flush(&o, &e, "x"), -1);
	ck_assert_str_eq(e.msg, "x: write failed: Bad file descriptor");
	ob_free(&o);
}
END_TEST

Suite *outbuf_suite(void)
{
	Suite *s = suite_create("outbuf");
	TCase *tc = tcase_create("numbers");
	tcase_add_test(tc, u64_small);
	tcase_add_test(tc, u64_powers_of_ten);
	tcase_add_test(tc, u64_extremes);
	tcase_add_test(tc, u64_matches_printf);
	tcase_add_test(tc, i64_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("buffer");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_test(tc, buffer_writes);
	tcase_add_test(tc, grow_buffer);
	tcase_add_test(tc, hex64_max);
	tcase_add_test(tc, write_error_reported);
	suite_add_tcase(s, tc);
	return s;
}
