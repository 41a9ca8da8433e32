/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of cfgview: what a view's text asks of a trace, and its
 * rewrite with a maximum and one type. Cases as tables. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "prv/cfgview.h"
#include "suites.h"
#include "util/macros.h"

#define SEL_STATE "window_selected_functions { 14, { {cpu, Active Thd}, {thread, State As Is}, {evt_type, All} } }\n"
#define SEL_LAST "window_selected_functions { 14, { {cpu, Active Thd}, {thread, Last Evt Val}, {evt_type, =} } }\n"

static const struct {
	const char *text;
	int rc, states, events, ntypes;
	int32_t t0, t1;
	enum cfgview_color color;
	int has_max;
	double max;
	const char *msg; /* start of the message when rc != 0 */
} parse_cases[] = {
	{"< NEW DISPLAYING WINDOW A >\nwindow_color_mode window_in_code_mode\nwindow_maximum_y 52.0\n" SEL_STATE,
	 0, 1, 0, 0, 0, 0, CFGVIEW_COLOR_CODE, 1, 52.0, NULL},
	{"< NEW DISPLAYING WINDOW A >\nwindow_color_mode window_in_null_gradient_mode\n" SEL_LAST
	 "window_filter_module evt_type 2 1070 1071\n",
	 0, 0, 1, 2, 1070, 1071, CFGVIEW_COLOR_GRADIENT, 0, 0, NULL},
	{SEL_LAST "window_filter_module evt_type 1 100\n", 0, 0, 1, 1, 100, 0, CFGVIEW_COLOR_NONE, 0, 0, NULL},
	{"window_color_mode window_in_rainbow\n", 0, 0, 0, 0, 0, 0, CFGVIEW_COLOR_OTHER, 0, 0, NULL},
	{"a\nwindow_maximum_y lots\n", -1, 0, 0, 0, 0, 0, CFGVIEW_COLOR_NONE, 0, 0, "line 2: expected a number"},
	{"window_filter_module evt_type 3 1 2\n", -1, 0, 0, 0, 0, 0, CFGVIEW_COLOR_NONE, 0, 0,
	 "line 1: evt_type names 3 types, found 2"},
	{"window_filter_module evt_type x\n", -1, 0, 0, 0, 0, 0, CFGVIEW_COLOR_NONE, 0, 0,
	 "line 1: expected a type count"},
};

START_TEST(test_parse)
{
	struct cfgview v;
	char msg[160] = "";
	int rc = cfgview_parse(parse_cases[_i].text, strlen(parse_cases[_i].text), &v, msg, sizeof(msg));
	ck_assert_int_eq(rc, parse_cases[_i].rc);
	if (rc) {
		ck_assert_msg(strncmp(msg, parse_cases[_i].msg, strlen(parse_cases[_i].msg)) == 0, "got \"%s\"", msg);
		return;
	}
	ck_assert_int_eq(v.states, parse_cases[_i].states);
	ck_assert_int_eq(v.events, parse_cases[_i].events);
	ck_assert_int_eq(v.ntypes, parse_cases[_i].ntypes);
	if (v.ntypes > 0)
		ck_assert_int_eq(v.types[0], parse_cases[_i].t0);
	if (v.ntypes > 1)
		ck_assert_int_eq(v.types[1], parse_cases[_i].t1);
	ck_assert_int_eq(v.color, parse_cases[_i].color);
	ck_assert_int_eq(v.has_max, parse_cases[_i].has_max);
	if (v.has_max)
		ck_assert(v.max == parse_cases[_i].max);
}
END_TEST

static const struct {
	const char *rel;
	int file;
	const char *model;
} file_cases[] = {
	{"thread/ovni/state.cfg", 0, "ovni"},
	{"cpu/ovni/mark-101.cfg", 1, "ovni"},
	{"cpu/nanos6/breakdown.cfg", CFGVIEW_BREAKDOWN, "nanos6"},
	{"thread/nosv/breakdown.cfg", 0, "nosv"}, /* a thread view, whatever its name */
	{"ovni/thread-state.cfg", -1, NULL}, /* weft's layout before ovni's */
	{"thread/state.cfg", -1, NULL},
	{"thread//state.cfg", -1, NULL},
	{"thread/ovni/x/state.cfg", -1, NULL},
	{"thread/ovni/state.txt", -1, NULL},
	{"thread/ovni/.cfg", -1, NULL},
	{"threads/ovni/state.cfg", -1, NULL},
};

START_TEST(test_file)
{
	char model[16] = "";
	ck_assert_int_eq(cfgview_file(file_cases[_i].rel, model, sizeof(model)), file_cases[_i].file);
	if (file_cases[_i].model)
		ck_assert_str_eq(model, file_cases[_i].model);
	ck_assert_int_eq(cfgview_file(file_cases[_i].rel, NULL, 0), file_cases[_i].file);
}
END_TEST

static const struct {
	const char *in;
	int64_t max;
	int32_t type;
	const char *suffix, *out;
} rewrite_cases[] = {
	{"x\nwindow_maximum_y 1000.0\ny", 37, -1, NULL, "x\nwindow_maximum_y 37.000000000000\ny"},
	{"< NEW DISPLAYING WINDOW Marks >\nwindow_name Marks\nwindow_maximum_y 1\n"
	 "window_filter_module evt_type 1 100\n",
	 4, 101, ": Phase",
	 "< NEW DISPLAYING WINDOW Marks: Phase >\nwindow_name Marks: Phase\nwindow_maximum_y 4.000000000000\n"
	 "window_filter_module evt_type 1 101\n"},
	{"", 1, -1, NULL, ""},
};

START_TEST(test_rewrite)
{
	char *s = cfgview_rewrite(rewrite_cases[_i].in, rewrite_cases[_i].max, rewrite_cases[_i].type,
				  rewrite_cases[_i].suffix);
	ck_assert_str_eq(s, rewrite_cases[_i].out);
	free(s);
}
END_TEST

Suite *cfgview_suite(void)
{
	Suite *s = suite_create("cfgview");
	TCase *tc = tcase_create("cfgview");
	tcase_add_loop_test(tc, test_parse, 0, (int) (ARRAY_SIZE(parse_cases)));
	tcase_add_loop_test(tc, test_file, 0, (int) (ARRAY_SIZE(file_cases)));
	tcase_add_loop_test(tc, test_rewrite, 0, (int) (ARRAY_SIZE(rewrite_cases)));
	suite_add_tcase(s, tc);
	return s;
}
