/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/prv/pcfcolors.c: the STATES_COLOR section. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "prv/pcfcolors.h"
#include "suites.h"
#include "util/macros.h"

static const struct pcf_color legacy[] = {
	{30, {1, 2, 3}},
	{12, {9, 9, 9}},
	{12, {7, 7, 7}}, /* given twice: the first wins */
	{6, {230, 230, 230}},
};

static const struct {
	int ovni, n;
	const char *lines; /* a few lines the section must hold, in order */
	int nlines; /* lines after the keyword */
} cases[] = {
	/* ovniemu's table alone: 23 lines, nOS-V "API: Create" (12) teal */
	{1, 0, "STATES_COLOR\n0 {0,0,0}\n1 {0,130,200}\n", 23},
	{1, 0, "12 {0,128,128}\n13 {128,128,128}\n", 23},
	{1, 0, "19 {128,128,0}\n20 {255,215,180}\n21 {0,0,128}\n22 {0,0,255}\n", 23},
	/* a model's states replace their entries and follow the table */
	{1, 4, "5 {255,225,25}\n6 {230,230,230}\n7 {145,30,180}\n", 24},
	{1, 4, "11 {250,190,212}\n12 {9,9,9}\n13 {128,128,128}\n", 24},
	{1, 4, "22 {0,0,255}\n30 {1,2,3}\n", 24},
	/* without ovni threads: the model's entries alone, increasing */
	{0, 4, "STATES_COLOR\n6 {230,230,230}\n12 {9,9,9}\n30 {1,2,3}\n", 3},
	{0, 0, "STATES_COLOR\n", 0},
};

START_TEST(test_section)
{
	struct strbuf b = {0};
	pcfcolors_section(&b, cases[_i].ovni, legacy, cases[_i].n);
	ck_assert_msg(b.s && strstr(b.s, cases[_i].lines), "got \"%s\"", b.s ? b.s : "");
	int nl = 0;
	for (const char *p = b.s; *p; p++)
		nl += *p == '\n';
	ck_assert_int_eq(nl - 1, cases[_i].nlines);
	sb_free(&b);
}
END_TEST

START_TEST(test_table)
{
	/* the named colours of the table: blue runtime, teal 12, olive 19 */
	const unsigned char *c = pcfcolors_ovni(1);
	ck_assert(c[0] == 0 && c[1] == 130 && c[2] == 200);
	c = pcfcolors_ovni(12);
	ck_assert(c[0] == 0 && c[1] == 128 && c[2] == 128);
	c = pcfcolors_ovni(19);
	ck_assert(c[0] == 128 && c[1] == 128 && c[2] == 0);
}
END_TEST

Suite *pcfcolors_suite(void)
{
	Suite *s = suite_create("pcfcolors");
	TCase *tc = tcase_create("pcfcolors");
	tcase_add_loop_test(tc, test_section, 0, (int) (ARRAY_SIZE(cases)));
	tcase_add_test(tc, test_table);
	suite_add_tcase(s, tc);
	return s;
}
