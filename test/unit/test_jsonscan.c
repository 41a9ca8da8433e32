/* Unit tests of src/util/jsonscan.c: NULs and deep nesting found with their
 * offset, strings, escapes and comments followed. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonscan.h"
#include "suites.h"

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
	{"{\"a\": \"[[[\\\"{{\"}", 0, -1, NULL},      /* brackets in a string */
	{"{// [[[ \"\n\"a\": 1 /* {{ \" */}", 0, -1, NULL}, /* and in comments */
	{"{\"a\": \"\\\"\\u0000\"}", 0, 9, "\\u0000 inside a string: names and values cannot hold a NUL"},
};

START_TEST(table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text), off = 0;
		const char *why = NULL;
		int rc = json_prescan(cases[i].text, len, &off, &why);
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
	const char *why;
	for (int n = JSONSCAN_MAX_DEPTH; n <= JSONSCAN_MAX_DEPTH + 1; n++) {
		memset(t, '[', (size_t) n);
		memset(t + n, ']', (size_t) n);
		int rc = json_prescan(t, 2 * (size_t) n, &off, &why);
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
