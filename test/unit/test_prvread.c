/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of prvread: header objects to rows, records of each kind,
 * skipped lines, malformed lines named with their line. Cases as tables. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prv/prvread.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

static const struct {
	const char *text;
	int rc_open;       /* prvread_open */
	uint32_t nrows;
	const char *recs;  /* "kind:row:t0:t1:x" per record, x = state, first pair or receiver */
	const char *error; /* the error of the first failing call, NULL none */
} cases[] = {
	/* two appls, ',' between them (ovni, weft), tasks of 2 and 1 threads */
	{"#Paraver (01/01/2026 at 00:00):00000000000000001000_ns:1(4):2:2(2:1,1:1),1(1:1)\n"
	 "1:1:1:1:1:0:10:1\n2:1:1:2:1:5:6:7:8:9\n# a comment\nc:1:1\n\n"
	 "3:1:1:1:2:1:2:1:2:1:1:3:4:64:1\n1:1:2:1:1:0:1000:30\n",
	 0, 4, "1:0:0:10:1;2:2:5:7:6;3:1:1:3:3;1:3:0:1000:30;", NULL},
	/* ':' between appls (Paraver), no resources */
	{"#Paraver (x):50_ns:0:2:1(1:1):1(3:1)\n1:0:2:1:3:0:50:2\n", 0, 4, "1:3:0:50:2;", NULL},
	{"#Paraver (x):50_ns:0:1:1(1:1)\n1:0:1:1:2:0:50:2\n", 0, 1, "",
	 "x.prv:2: expected K:cpu:appl:task:thread: naming an object of the header"},
	{"#Paraver (x):50_ns:0:1:1(1:1)\n1:0:1:1:1:0:50\n", 0, 1, "",
	 "x.prv:2: expected a state record 1:cpu:appl:task:thread:begin:end:state"},
	{"#Paraver (x):50_ns:0:1:1(1:1)\n2:0:1:1:1:7:1\n", 0, 1, "", "x.prv:2: expected :type:value pairs"},
	{"#Paraver (x):50_ns:0:1:1(1:1)\n5:0:1:1:1:7\n", 0, 1, "",
	 "x.prv:2: expected a record of kind 1, 2, 3 or 4, a comment or a communicator"},
	{"Paraver (x):50_ns:0:1:1(1:1)\n", -1, 0, "",
	 "x.prv:1: expected a header \"#Paraver (DATE):FTIME_ns:RESOURCES:NAPPL:TASKS\""},
	{"#Paraver (x):50_ns:0:1:1(1:1\n", -1, 0, "", "x.prv:1: expected a header"},
};

START_TEST(test_read)
{
	char *dir = tu_mkdtemp();
	char *path = tu_join(dir, "x.prv");
	tu_write_str(path, cases[_i].text);
	struct prvread r;
	struct weft_err err = {0};
	int rc = prvread_open(&r, path, &err);
	ck_assert_int_eq(rc, cases[_i].rc_open);
	char got[512] = "";
	if (rc == 0) {
		ck_assert_uint_eq(r.nrows, cases[_i].nrows);
		struct prvrec rec;
		while ((rc = prvread_next(&r, &rec, &err)) == 1) {
			long long x = rec.kind == 1 ? rec.state : rec.kind == 2 ? rec.type[0] : rec.row2;
			uint64_t t1 = rec.kind == 2 ? (uint64_t) rec.value[0] : rec.t1;
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%d:%u:%llu:%llu:%lld;", rec.kind, rec.row,
				 (unsigned long long) rec.t0, (unsigned long long) t1, x);
		}
	}
	ck_assert_str_eq(got, cases[_i].recs);
	if (cases[_i].error) {
		ck_assert_int_eq(rc, -1);
		const char *m = strstr(err.msg, "x.prv:");
		ck_assert_msg(m && strncmp(m, cases[_i].error, strlen(cases[_i].error)) == 0, "got \"%s\"", err.msg);
	} else {
		ck_assert_int_eq(rc, 0);
	}
	prvread_close(&r);
	tu_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

Suite *prvread_suite(void)
{
	Suite *s = suite_create("prvread");
	TCase *tc = tcase_create("prvread");
	tcase_add_loop_test(tc, test_read, 0, (int) (ARRAY_SIZE(cases)));
	suite_add_tcase(s, tc);
	return s;
}
