/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/emu/taskprim.c: the channel writes of the task
 * primitives for the nOS-V, Nanos6 and OpenMP channel layouts, and their
 * errors. Writes print as "S<chan>=<v>" (set), "+<chan>=<v>" (push) and
 * "-<chan>=<v>" (pop); the values of types "a" and "b" print as A and B. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "emu/taskprim.h"
#include "util/macros.h"

/* nOS-V: body, id, type, appid, rank are single channels 0..4 */
static const struct taskprim_bind nosv = {{0, 1, 2, 3, 4}, {0, 0, 0, 0, 0}};
/* Nanos6: id 0, type 1, rank 3 */
static const struct taskprim_bind nanos6 = {{-1, 0, 1, -1, 3}, {0, 0, 0, 0, 0}};
/* OpenMP: task id and label are stacks, 1 and 0 */
static const struct taskprim_bind openmp = {{-1, 1, 0, -1, -1}, {0, 1, 1, 0, 0}};

enum { NV = TASK_RESURRECT | TASK_PAUSE, N6 = TASK_PAUSE | TASK_RELAX_NESTING, OMP = TASK_RELAX_NESTING | TASK_RESURRECT };

struct call {
	const char *name;
	int proc, thread;
	int64_t a[3];
	const char *str;
	const char *want; /* the writes, or the error when fail */
	int fail;
};

struct tpcase {
	const char *name;
	const struct taskprim_bind *bind;
	int64_t appid, rank;
	struct call calls[12];
};

#define TY(p, id, l) {"task.type", p, 0, {id, 0, 0}, l, "", 0}
#define CR(p, id, ty, fl) {"task.create", p, 0, {id, ty, fl}, NULL, "", 0}
#define DO(op, p, th, id, body, want) {op, p, th, {id, body, 0}, NULL, want, 0}
#define FAIL(op, p, th, id, body, want) {op, p, th, {id, body, 0}, NULL, want, 1}

static const struct tpcase cases[] = {
	{"nosv run, pause, resume, end", &nosv, 7, 2,
	 {TY(0, 1, "a"), CR(0, 5, 1, NV), DO("task.execute", 0, 0, 5, 0, "S0=1 S1=5 S2=A S3=7 S4=3"),
	  DO("task.pause", 0, 0, 5, 0, "S0=0 S1=0 S2=0 S3=0 S4=0"),
	  DO("task.resume", 0, 0, 5, 0, "S0=1 S1=5 S2=A S3=7 S4=3"),
	  DO("task.end", 0, 0, 5, 0, "S0=0 S1=0 S2=0 S3=0 S4=0")}},
	{"nosv without a rank", &nosv, 1, -1,
	 {TY(0, 1, "a"), CR(0, 5, 1, NV), DO("task.execute", 0, 0, 5, 0, "S0=1 S1=5 S2=A S3=1"),
	  DO("task.end", 0, 0, 5, 0, "S0=0 S1=0 S2=0 S3=0")}},
	{"nosv parallel bodies", &nosv, 1, -1,
	 {TY(0, 1, "a"), CR(0, 5, 1, TASK_PARALLEL), DO("task.execute", 0, 0, 5, 3, "S0=3 S1=5 S2=A S3=1"),
	  DO("task.execute", 0, 1, 5, 4, "S0=4 S1=5 S2=A S3=1"), DO("task.end", 0, 0, 5, 3, "S0=0 S1=0 S2=0 S3=0")}},
	{"nosv app id", &nosv, 0, -1,
	 {TY(0, 1, "a"), CR(0, 5, 1, NV), FAIL("task.execute", 0, 0, 5, 0, "app id must be positive")}},
	{"task id 0 is refused when shown", &nanos6, 1, -1,
	 {TY(0, 1, "a"), CR(0, 0, 1, N6), FAIL("task.execute", 0, 0, 0, 0, "task id cannot be 0")}},
	{"nanos6 nested switch", &nanos6, 1, 0,
	 {TY(0, 1, "a"), TY(0, 2, "b"), CR(0, 5, 1, N6), CR(0, 6, 2, N6),
	  DO("task.execute", 0, 0, 5, 0, "S0=5 S1=A S3=1"), DO("task.execute", 0, 0, 6, 0, "S0=6 S1=B S3=1"),
	  DO("task.end", 0, 0, 6, 0, "S0=5 S1=A S3=1"), DO("task.end", 0, 0, 5, 0, "S0=0 S1=0 S3=0")}},
	{"processes and threads are apart", &nanos6, 1, -1,
	 {TY(0, 1, "a"), TY(1, 1, "b"), CR(0, 5, 1, N6), CR(1, 5, 1, N6), DO("task.execute", 0, 0, 5, 0, "S0=5 S1=A"),
	  DO("task.execute", 1, 1, 5, 0, "S0=5 S1=B"), DO("task.end", 1, 1, 5, 0, "S0=0 S1=0"),
	  FAIL("task.end", 0, 1, 5, 0, "body(id=1,taskid=5) has another stack")}},
	{"openmp stacks", &openmp, 1, -1,
	 {TY(0, 1, "a"), TY(0, 2, "b"), CR(0, 5, 1, OMP), CR(0, 6, 2, OMP), DO("task.execute", 0, 0, 5, 0, "+1=5 +0=A"),
	  DO("task.execute", 0, 0, 6, 0, "+1=6 +0=B"), DO("task.end", 0, 0, 6, 0, "-1=6 -0=B"),
	  DO("task.label_push", 0, 0, 2, 0, "+0=B"), DO("task.label_pop", 0, 0, 2, 0, "-0=B"),
	  DO("task.end", 0, 0, 5, 0, "-1=5 -0=A")}},
	{"openmp worksharing errors", &openmp, 1, -1,
	 {TY(0, 1, "a"), FAIL("task.label_push", 0, 0, 0, 0, "worksharing type id cannot be 0"),
	  FAIL("task.label_pop", 0, 0, 3, 0, "cannot find ws with type 3")}},
	{"task errors pass through", &nosv, 1, -1,
	 {TY(0, 1, "a"), FAIL("task.type", 0, 0, 1, 0, "a task type with id 1 already exists"),
	  FAIL("task.execute", 0, 0, 9, 0, "cannot find task with id 9")}},
};

static void fmt(const struct taskprim_write *w, int n, char *buf, size_t size)
{
	static const char opc[] = {[TP_SET] = 'S', [TP_PUSH] = '+', [TP_POP] = '-'};
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		char v[24];
		if (w[i].v != 0 && w[i].v == task_type_gid("a"))
			snprintf(v, sizeof(v), "A");
		else if (w[i].v != 0 && w[i].v == task_type_gid("b"))
			snprintf(v, sizeof(v), "B");
		else
			snprintf(v, sizeof(v), "%lld", (long long) w[i].v);
		used += (size_t) snprintf(buf + used, size - used, "%s%c%d=%s", i ? " " : "", opc[w[i].op],
					  w[i].chan, v);
	}
}

START_TEST(calls)
{
	const struct tpcase *c = &cases[_i];
	struct taskprim tp;
	taskprim_init(&tp, c->bind, 2, 2);
	for (int i = 0; i < 12 && c->calls[i].name; i++) {
		const struct call *k = &c->calls[i];
		int op = taskprim_op_find(k->name);
		ck_assert_int_ge(op, 0);
		struct taskprim_write w[TP_MAXWRITES];
		int n = -1;
		struct weft_err e = {0};
		int rc = taskprim_call(&tp, (enum taskprim_op) op, k->proc, k->thread, k->a, k->str, c->appid,
				       c->rank, w, &n, &e);
		if (k->fail) {
			ck_assert_msg(rc == -1, "%s: call %d should fail", c->name, i);
			ck_assert_str_eq(e.msg, k->want);
		} else {
			ck_assert_msg(rc == 0, "%s: call %d: %s", c->name, i, e.msg);
			char got[256];
			fmt(w, n, got, sizeof(got));
			ck_assert_msg(strcmp(got, k->want) == 0, "%s: call %d wrote \"%s\", want \"%s\"", c->name, i,
				      got, k->want);
		}
	}
	taskprim_free(&tp);
}
END_TEST

START_TEST(op_names)
{
	ck_assert_int_eq(taskprim_op_find("task.execute"), TP_OP_EXECUTE);
	ck_assert_int_eq(taskprim_op_find("task.label_pop"), TP_OP_LABEL_POP);
	ck_assert_int_eq(taskprim_op_find("task.exec"), -1);
	for (int i = 0; i < TP_NOPS; i++)
		ck_assert_int_eq(taskprim_op_find(taskprim_ops[i].name), i);
}
END_TEST

static void collect(void *arg, int64_t v, const char *label)
{
	char *s = arg;
	char one[64];
	snprintf(one, sizeof(one), "%s%s", *s ? "," : "", label);
	strcat(s, one);
	ck_assert(v == task_type_gid(label));
}

START_TEST(labels_in_process_order)
{
	struct taskprim tp;
	taskprim_init(&tp, &nanos6, 3, 1);
	static const struct {
		int proc;
		int64_t id;
		const char *label;
	} types[] = {{2, 1, "late"}, {0, 9, "x"}, {1, 1, "y"}, {0, 2, "y"}, {2, 2, "x"}, {1, 3, ""}};
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		int64_t a[3] = {types[i].id, 0, 0};
		struct taskprim_write w[TP_MAXWRITES];
		int n;
		struct weft_err e = {0};
		ck_assert_int_eq(taskprim_call(&tp, TP_OP_TYPE, types[i].proc, 0, a, types[i].label, 1, -1, w, &n, &e),
				 0);
		ck_assert_int_eq(n, 0);
	}
	char got[256] = "";
	struct weft_err e = {0};
	ck_assert_int_eq(taskprim_labels(&tp, collect, got, &e), 0);
	ck_assert_str_eq(got, "x,y,(unlabeled task type 3),late");
	taskprim_free(&tp);
}
END_TEST

Suite *taskprim_suite(void)
{
	Suite *s = suite_create("taskprim");
	TCase *tc = tcase_create("taskprim");
	tcase_add_loop_test(tc, calls, 0, (int) (ARRAY_SIZE(cases)));
	tcase_add_test(tc, op_names);
	tcase_add_test(tc, labels_in_process_order);
	suite_add_tcase(s, tc);
	return s;
}
