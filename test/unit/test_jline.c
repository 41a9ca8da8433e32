/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/cli/jline.c (weft attach's reader of weft serve's
 * lines): values, numbers kept as their text (64-bit clocks exactly),
 * escapes decoded (weft's \u00XX bytes as bytes), and what is not one
 * JSON value refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/jline.h"
#include "suites.h"
#include "util/macros.h"

/* The tree written back: t:text for each node, members as key=..., [..] {..}. */
static void show(const struct jv *v, char *o, size_t cap)
{
	static const char tag[] = "0bnsao";
	size_t k = strlen(o);
	if (v->key)
		k += (size_t) snprintf(o + k, cap - k, "%s=", v->key);
	if (v->t == JV_ARR || v->t == JV_OBJ) {
		snprintf(o + k, cap - k, "%c", v->t == JV_ARR ? '[' : '{');
		for (int i = 0; i < v->nkid; i++) {
			if (i)
				strncat(o, ",", cap - strlen(o) - 1);
			show(&v->kid[i], o, cap);
		}
		strncat(o, v->t == JV_ARR ? "]" : "}", cap - strlen(o) - 1);
		return;
	}
	snprintf(o + k, cap - k, "%c:%.*s", tag[v->t], (int) v->n, v->s ? v->s : "");
}

START_TEST(values)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"{\"labels\":[\"a\",\"b\"],\"stop\":true,\"clock\":18446744073709551615,\"x\":null}",
		 "{labels=[s:a,s:b],stop=b:true,clock=n:18446744073709551615,x=0:null}"},
		{" { \"k\" : -12 , \"v\":1.5e3 } ", "{k=n:-12,v=n:1.5e3}"},
		{"{\"s\":\"a\\\"b\\\\c\\/d\\n\\t\"}", "{s=s:a\"b\\c/d\n\t}"},
		{"{\"b\":\"\\u00ff\\u0041\"}",
		 "{b=s:\xff"
		 "A}"},
		{"{\"u\":\"\\u00e9\\u20ac\"}", "{u=s:\xe9\xe2\x82\xac}"},
		{"[]", "[]"},
		{"{}", "{}"},
		{"{\"a\":{\"b\":[[1,2],[\"x\",null]]}}", "{a={b=[[n:1,n:2],[s:x,0:null]]}}"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct jv v;
		ck_assert_msg(jv_parse(cases[i].in, strlen(cases[i].in), &v) == 0, "%s", cases[i].in);
		char got[512] = "";
		show(&v, got, sizeof(got));
		ck_assert_str_eq(got, cases[i].want);
		jv_free(&v);
	}
	struct jv v;
	const char *t = "{\"ok\":\"add\",\"label\":\"x\",\"from\":0}";
	ck_assert_int_eq(jv_parse(t, strlen(t), &v), 0);
	ck_assert_str_eq(jv_get(&v, "label")->s, "x");
	ck_assert_ptr_null(jv_get(&v, "nope"));
	ck_assert_ptr_null(jv_get(jv_get(&v, "label"), "x"));
	jv_free(&v);
}
END_TEST

START_TEST(refused)
{
	static const char *const bad[] = {
		"",	 "{",	      "{\"a\"}",    "{\"a\":}",	   "{\"a\":1,}", "[1,,2]",	"{\"a\":1} x",
		"\"abc", "\"a\\qb\"", "\"a\\u12\"", "{\"a\":tru}", "{1:2}",	 "\"ctl\x01\"", "nul",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct jv v;
		ck_assert_msg(jv_parse(bad[i], strlen(bad[i]), &v) == -1, "parsed: %s", bad[i]);
	}
	/* deeper than the limit: refused, not a blown stack */
	char deep[300];
	memset(deep, '[', 200);
	memset(deep + 200, ']', 99);
	deep[299] = '\0';
	struct jv v;
	ck_assert_int_eq(jv_parse(deep, 200, &v), -1);
}
END_TEST

Suite *jline_suite(void)
{
	Suite *s = suite_create("jline");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, values);
	tcase_add_test(tc, refused);
	suite_add_tcase(s, tc);
	return s;
}
