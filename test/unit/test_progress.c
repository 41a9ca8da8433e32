/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of progress_format: the heartbeat line's text, its ETA "?"
 * until a share of the bytes has been read in some time. Cases as a table. */
#include <check.h>
#include <string.h>

#include "suites.h"
#include "trace/progress.h"
#include "util/macros.h"

static const struct {
	uint64_t events;
	double elapsed, frac;
	const char *want;
} cases[] = {
	{0, 0, 0, "weft: 0 events, 0.0 M/s, 0%, ETA ?"},
	{1048576, 2.0, 0, "weft: 1048576 events, 0.5 M/s, 0%, ETA ?"}, /* -j: no bytes reported yet */
	{1048576, 0, 0.5, "weft: 1048576 events, 0.0 M/s, 50%, ETA ?"},
	{3000000, 1.5, 0.25, "weft: 3000000 events, 2.0 M/s, 25%, ETA 4 s"},
	{8000000, 4.0, 1.0, "weft: 8000000 events, 2.0 M/s, 100%, ETA 0 s"},
};

START_TEST(format_cases)
{
	char buf[160];
	progress_format(buf, sizeof(buf), cases[_i].events, cases[_i].elapsed, cases[_i].frac);
	ck_assert_str_eq(buf, cases[_i].want);
}
END_TEST

Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("progress");
	tcase_add_loop_test(tc, format_cases, 0, (int) (ARRAY_SIZE(cases)));
	suite_add_tcase(s, tc);
	return s;
}
