/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/jsonscan.c: NULs, deep nesting and what JSON does
 * not allow (trailing content, leading zeros, raw control characters in
 * strings, a key twice) found with their offset; strings, escapes and
 * comments followed. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonscan.h"
#include "suites.h"
#include "util/macros.h"

static const struct {
	const char *text;
	size_t len; /* 0: strlen */
	long off;   /* -1: accepted */
	const char *why;
} cases[] = {
	{"{\"a\": \"b\"}", 0, -1, NULL},
	{"{\"a\": \"x\\u0000y\"}", 0, 8, "\\u0000 inside a string: names and values cannot hold a NUL"},
	{"{\"a\": \"x\\\\u0000\"}", 0, -1, NULL}, /* an escaped backslash, then text */
	{"{\"a\": \"x\\u00001\"}", 0, 8, "\\u0000 inside a string: names and values cannot hold a NUL"},
	{"{\"a\": \"x\\u0001\"}", 0, -1, NULL},
	{"{\"a\": \"x\0y\"}", 11, 8, "a NUL byte inside a string: names and values cannot hold one"},
	{"{\"a\": 1}\0", 9, 8, "a NUL byte (JSON text has none)"},
	{"{\"a\": \"[[[\\\"{{\"}", 0, -1, NULL}, /* brackets in a string */
	{"{// [[[ \"\n\"a\": 1 /* {{ \" */}", 0, -1, NULL}, /* and in comments */
	{"{\"a\": \"\\\"\\u0000\"}", 0, 9, "\\u0000 inside a string: names and values cannot hold a NUL"},
	/* issue 24, item 6: what cJSON accepts and JSON does not */
	{"{\"a\": 1} x", 0, 9, "content after the top-level value (a JSON text holds one)"},
	{"{\"a\": 1}{}", 0, 8, "content after the top-level value (a JSON text holds one)"},
	{"{\"a\": 1} // the end\n\n", 0, -1, NULL},
	{"{\"a\": 007}", 0, 6, "a number with a leading zero (JSON numbers have none: 7, not 07)"},
	{"{\"a\": -01}", 0, 6, "a number with a leading zero (JSON numbers have none: 7, not 07)"},
	{"{\"a\": [0, -0, 0.5, 1e10, -2.5E-3, 10]}", 0, -1, NULL},
	{"{\"a\": 1.}", 0, 6, "a number with no digit after its '.'"},
	{"{\"a\": \"x\ny\"}", 0, 8,
	 "a raw control character (byte 0x0a) inside a string: JSON escapes it (\\n, \\t, \\u00XX)"},
	{"{\"a\": \"x\\ny\"}", 0, -1, NULL},
	{"{\"a\": 1, \"b\": 2, \"a\": 3}", 0, 17, "a key given twice in one object (first at byte offset 1)"},
	{"{\"a\": 1, \"\\u0061\": 2}", 0, 9, "a key given twice in one object (first at byte offset 1)"},
	{"{\"a\": {\"a\": 1}, \"b\": {\"a\": 2}}", 0, -1, NULL}, /* one key in each object */
	{"{\"a\": 1, \"\\u0161\": 2}", 0, -1, NULL}, /* not "a" */
	{"{\"a\": 1,}", 0, 8, "a ',' before '}' (JSON has no trailing comma)"},
	{"{\"a\": \"x\\q\"}", 0, 8, "an unknown escape \\q (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"},
	{"{\"a\": tru}", 0, 6, "expected a value (an object, array, string, number, true, false or null)"},
	{"{\"a\": 1", 0, 0, "an object that never ends (no '}')"},
	{"{/* x", 0, 1, "a comment that never ends (no */)"},
};

START_TEST(table)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text), off = 0;
		char why[256] = "";
		int rc = json_prescan(cases[i].text, len, &off, why, sizeof(why));
		if (cases[i].off < 0) {
			ck_assert_msg(rc == 0, "case %zu: refused at %zu: %s", i, off, why);
			continue;
		}
		ck_assert_msg(rc == -1, "case %zu: accepted", i);
		ck_assert_msg(off == (size_t) cases[i].off, "case %zu: offset %zu", i, off);
		ck_assert_str_eq(why, cases[i].why);
	}
}
END_TEST

START_TEST(depth)
{
	char *t = malloc(2 * JSONSCAN_MAX_DEPTH + 4);
	size_t off;
	char why[256];
	for (int n = JSONSCAN_MAX_DEPTH; n <= JSONSCAN_MAX_DEPTH + 1; n++) {
		memset(t, '[', (size_t) n);
		memset(t + n, ']', (size_t) n);
		int rc = json_prescan(t, 2 * (size_t) n, &off, why, sizeof(why));
		if (n == JSONSCAN_MAX_DEPTH) {
			ck_assert_int_eq(rc, 0);
		} else {
			ck_assert_int_eq(rc, -1);
			ck_assert_uint_eq(off, JSONSCAN_MAX_DEPTH);
		}
	}
	free(t);
}
END_TEST

Suite *jsonscan_suite(void)
{
	Suite *s = suite_create("jsonscan");
	TCase *tc = tcase_create("jsonscan");
	tcase_add_test(tc, table);
	tcase_add_test(tc, depth);
	suite_add_tcase(s, tc);
	return s;
}
