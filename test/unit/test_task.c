/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/emu/task.c: every body transition rule and every error
 * cause, as scripts of operations on one process with three threads. The
 * error texts are ovniemu's causes (its emulator tests match them). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "emu/task.h"
#include "util/macros.h"

enum {
	NV = TASK_RESURRECT | TASK_PAUSE,          /* nOS-V task */
	NVP = TASK_PARALLEL,                       /* nOS-V parallel task */
	N6 = TASK_PAUSE | TASK_RELAX_NESTING,      /* Nanos6 task */
	OMP = TASK_RELAX_NESTING | TASK_RESURRECT, /* OpenMP task */
};

/* Y: type id (label); C: task id, type id, flags; x p r e: task id, body
 * id, thread. want NULL: succeeds with transition tr (0: do not check). */
struct op {
	char op;
	uint32_t id, arg, flags;
	const char *label;
	const char *want;
	char tr;
};

#define Y(id, label) {'Y', id, 0, 0, label, NULL, 0}
#define YBAD(id, label, want) {'Y', id, 0, 0, label, want, 0}
#define C(id, type, fl) {'C', id, type, fl, NULL, NULL, 0}
#define CBAD(id, type, fl, want) {'C', id, type, fl, NULL, want, 0}
#define OK(o, id, body, th, tr) {o, id, body, th, NULL, NULL, tr}
#define BAD(o, id, body, th, want) {o, id, body, th, NULL, want, 0}
#define END {0, 0, 0, 0, NULL, NULL, 0}

struct script {
	const char *name;
	struct op ops[24];
};

static const struct script scripts[] = {
	{"run and end", {Y(1, "a"), C(1, 1, NV), OK('x', 1, 0, 0, 'x'), OK('e', 1, 0, 0, 'e'), END}},
	{"pause to nest (nOS-V)",
	 {Y(1, "a"), C(1, 1, NV), C(2, 1, NV), OK('x', 1, 0, 0, 'x'), OK('p', 1, 0, 0, 'p'),
	  OK('x', 2, 0, 0, 'x'), OK('e', 2, 0, 0, 'e'), OK('r', 1, 0, 0, 'r'), OK('e', 1, 0, 0, 'e'), END}},
	{"relaxed nesting (Nanos6)",
	 {Y(1, "a"), C(1, 1, N6), C(2, 1, N6), OK('x', 1, 0, 0, 'x'), OK('x', 2, 0, 0, 'X'),
	  OK('e', 2, 0, 0, 'E'), OK('e', 1, 0, 0, 'e'), END}},
	{"pause and resume on another thread's stack is refused",
	 {Y(1, "a"), C(1, 1, N6), OK('x', 1, 0, 0, 'x'), OK('p', 1, 0, 0, 'p'),
	  BAD('r', 1, 0, 1, "body(id=1,taskid=1) has another stack"), OK('r', 1, 0, 0, 'r'), END}},
	{"resurrect (nOS-V, OpenMP)",
	 {Y(1, "a"), C(1, 1, NV), C(2, 1, OMP), OK('x', 1, 0, 0, 'x'), OK('e', 1, 0, 0, 'e'),
	  OK('x', 1, 0, 1, 'x'), OK('e', 1, 0, 1, 'e'), OK('x', 2, 0, 2, 'x'), OK('e', 2, 0, 2, 'e'),
	  OK('x', 2, 0, 2, 'x'), END}},
	{"parallel bodies on several threads",
	 {Y(1, "a"), C(1, 1, NVP), OK('x', 1, 1, 0, 'x'), OK('x', 1, 2, 1, 'x'), OK('x', 1, 3, 2, 'x'),
	  OK('e', 1, 2, 1, 'e'), OK('e', 1, 1, 0, 'e'), OK('x', 1, 4, 0, 'x'), OK('e', 1, 3, 2, 'e'),
	  OK('e', 1, 4, 0, 'e'), END}},
	{"nest into a parallel task after pausing",
	 {Y(1, "a"), C(1, 1, NV), C(2, 1, NVP), OK('x', 1, 0, 0, 'x'), OK('p', 1, 0, 0, 'p'),
	  OK('x', 2, 1, 0, 'x'), OK('e', 2, 1, 0, 'e'), OK('r', 1, 0, 0, 'r'), END}},
	/* errors */
	{"type errors",
	 {Y(1, "a"), YBAD(1, "b", "a task type with id 1 already exists"), YBAD(0, "z", "invalid task type id 0"),
	  END}},
	{"task errors",
	 {Y(1, "a"), C(1, 1, NV), CBAD(1, 1, NV, "task_id 1 already exists"), CBAD(2, 9, NV, "unknown type id 9"),
	  BAD('x', 5, 0, 0, "cannot find task with id 5"), C(2, 1, N6), OK('x', 2, 0, 0, 'x'), OK('e', 2, 0, 0, 'e'),
	  CBAD(2, 1, N6, "task_id 2 already exists"), END}},
	{"body id rules",
	 {Y(1, "a"), C(1, 1, NV), C(2, 1, NVP), BAD('x', 1, 1, 0, "the body_id must be 0 for non-parallel task 1"),
	  BAD('x', 2, 0, 0, "the body_id must be > 0 for parallel task 2"), END}},
	{"no body yet",
	 {Y(1, "a"), C(1, 1, NV), BAD('p', 1, 0, 0, "cannot find body with id 1 in task 1"),
	  BAD('r', 1, 0, 0, "cannot find body with id 1 in task 1"),
	  BAD('e', 1, 0, 0, "cannot find body with id 1 in task 1"), END}},
	{"double execute (ovni nosv bad-double-execute)",
	 {Y(1, "a"), C(1, 1, NV), C(2, 1, NV), OK('x', 1, 0, 0, 'x'),
	  BAD('x', 2, 0, 0, "cannot nest body(id=1,taskid=2) over body(id=1,taskid=1) which is already running"),
	  OK('e', 1, 0, 0, 'e'), OK('x', 2, 0, 0, 'x'), END}},
	{"nest from a parallel body (ovni nosv bad-nest-from-parallel)",
	 {Y(1, "a"), C(1, 1, NVP), C(2, 1, NVP), OK('x', 1, 1, 0, 'x'),
	  BAD('x', 2, 2, 0, "cannot nest body(id=2,taskid=2) over body(id=1,taskid=1) which is already running"),
	  END}},
	{"run a paused body (ovni nosv bad-nest-same-task)",
	 {Y(1, "a"), C(1, 1, NV), OK('x', 1, 0, 0, 'x'), OK('p', 1, 0, 0, 'p'),
	  BAD('x', 1, 0, 0, "refusing to run body(id=1,taskid=1) in Paused state, needs to resume intead"), END}},
	{"pause a parallel body (ovni nosv bad-pause-parallel)",
	 {Y(1, "a"), C(1, 1, NVP), OK('x', 1, 1, 0, 'x'),
	  BAD('p', 1, 1, 0, "body(id=1,taskid=1) is not allowed to pause"), END}},
	{"run a running body (ovni nanos6 nested-tasks-bad)",
	 {Y(1, "a"), C(1, 1, N6), OK('x', 1, 0, 0, 'x'),
	  BAD('x', 1, 0, 0, "body(id=1,taskid=1) state must be Created but is Running"), END}},
	{"run an ended body again (ovni nanos6 rerun-task-bad)",
	 {Y(1, "a"), C(1, 1, N6), C(2, 1, NVP), OK('x', 1, 0, 0, 'x'), OK('e', 1, 0, 0, 'e'),
	  BAD('x', 1, 0, 0, "body(id=1,taskid=1) is not allowed to run again"), OK('x', 2, 7, 0, 'x'),
	  OK('e', 2, 7, 0, 'e'), BAD('x', 2, 7, 0, "body(id=7,taskid=2) is not allowed to run again"), END}},
	{"wrong states",
	 {Y(1, "a"), C(1, 1, N6), C(2, 1, NVP), OK('x', 1, 0, 0, 'x'),
	  BAD('r', 1, 0, 0, "body(id=1,taskid=1) state must be Paused but is Running"), OK('p', 1, 0, 0, 'p'),
	  BAD('e', 1, 0, 0, "body(id=1,taskid=1) state must be Running but is Paused"),
	  BAD('p', 1, 0, 0, "body(id=1,taskid=1) state must be Running but is Paused"), OK('r', 1, 0, 0, 'r'),
	  OK('e', 1, 0, 0, 'e'), BAD('p', 1, 0, 0, "body(id=1,taskid=1) state must be Running but is Dead"),
	  BAD('e', 1, 0, 0, "body(id=1,taskid=1) state must be Running but is Dead"),
	  BAD('r', 1, 0, 0, "body(id=1,taskid=1) state must be Paused but is Dead"), OK('x', 2, 3, 0, 'x'),
	  OK('e', 2, 3, 0, 'e'), BAD('e', 2, 3, 0, "body(id=3,taskid=2) state must be Running but is Dead"), END}},
	{"end on another thread",
	 {Y(1, "a"), C(1, 1, NV), OK('x', 1, 0, 0, 'x'), BAD('e', 1, 0, 1, "body(id=1,taskid=1) has another stack"),
	  OK('e', 1, 0, 0, 'e'), END}},
	{"end below the top",
	 {Y(1, "a"), C(1, 1, N6), C(2, 1, N6), OK('x', 1, 0, 0, 'x'), OK('x', 2, 0, 0, 'X'),
	  BAD('e', 1, 0, 0, "body(id=1,taskid=1) is not on top of the stack"),
	  BAD('p', 1, 0, 0, "body(id=1,taskid=1) is not on top of the stack"), OK('e', 2, 0, 0, 'E'),
	  OK('e', 1, 0, 0, 'e'), END}},
	{"relaxed nesting is the running body's flag",
	 {Y(1, "a"), C(1, 1, NV), C(2, 1, N6), OK('x', 1, 0, 0, 'x'),
	  BAD('x', 2, 0, 0, "cannot nest body(id=1,taskid=2) over body(id=1,taskid=1) which is already running"),
	  OK('e', 1, 0, 0, 'e'), OK('x', 2, 0, 0, 'x'), OK('x', 1, 0, 0, 'X'), END}},
};

static void run_script(const struct script *sc)
{
	struct task_proc p;
	struct task_stack st[3] = {{0}};
	task_proc_init(&p);
	for (int i = 0; sc->ops[i].op; i++) {
		const struct op *o = &sc->ops[i];
		struct weft_err e = {0};
		struct task_step step = {0};
		int rc;
		struct task_stack *s = &st[o->flags % 3];
		switch (o->op) {
		case 'Y': rc = task_type_create(&p, o->id, o->label, &e); break;
		case 'C': rc = task_create(&p, o->id, o->arg, o->flags, &e); break;
		case 'x': rc = task_execute(&p, s, o->id, o->arg, &step, &e); break;
		case 'p': rc = task_pause(&p, s, o->id, o->arg, &step, &e); break;
		case 'r': rc = task_resume(&p, s, o->id, o->arg, &step, &e); break;
		case 'e': rc = task_end(&p, s, o->id, o->arg, &step, &e); break;
		default: ck_abort_msg("bad op %c", o->op); return;
		}
		if (o->want) {
			ck_assert_msg(rc == -1, "%s: op %d (%c %u) should fail with \"%s\"", sc->name, i, o->op,
				      o->id, o->want);
			ck_assert_int_eq(e.code, WEFT_EINPUT);
			ck_assert_str_eq(e.msg, o->want);
		} else {
			ck_assert_msg(rc == 0, "%s: op %d (%c %u): %s", sc->name, i, o->op, o->id, e.msg);
			if (o->tr)
				ck_assert_msg(step.tr == o->tr, "%s: op %d: transition %c, want %c", sc->name, i,
					      step.tr, o->tr);
		}
	}
	task_proc_free(&p);
}

START_TEST(scripts_run)
{
	run_script(&scripts[_i]);
}
END_TEST

/* The step tells the model what runs before and after, also for a task
 * the end frees. */
START_TEST(step_values)
{
	struct task_proc p;
	struct task_stack s = {0};
	struct weft_err e = {0};
	struct task_step st;
	task_proc_init(&p);
	ck_assert_int_eq(task_type_create(&p, 3, "testtype1", &e), 0);
	ck_assert_int_eq(task_create(&p, 10, 3, N6, &e), 0);
	ck_assert_int_eq(task_create(&p, 11, 3, N6, &e), 0);
	ck_assert_int_eq(task_execute(&p, &s, 10, 0, &st, &e), 0);
	ck_assert(st.tr == 'x' && st.task_id == 10 && st.body_id == 1 && st.type_gid == 1690940984u);
	ck_assert(st.prev_task_id == 0 && st.prev_body_id == 0);
	ck_assert_int_eq(task_execute(&p, &s, 11, 0, &st, &e), 0);
	ck_assert(st.tr == 'X' && st.task_id == 11 && st.prev_task_id == 10);
	ck_assert_int_eq((int) task_stack_depth(&s), 2);
	ck_assert_int_eq(task_end(&p, &s, 11, 0, &st, &e), 0);
	ck_assert(st.tr == 'E' && st.task_id == 10 && st.prev_task_id == 11 && st.prev_body_id == 1);
	ck_assert_int_eq(task_pause(&p, &s, 10, 0, &st, &e), 0);
	ck_assert(st.tr == 'p' && st.task_id == 0 && st.prev_task_id == 10);
	ck_assert_ptr_null(task_running(&s));
	ck_assert_ptr_nonnull(task_top(&s));
	ck_assert_int_eq((int) task_top(&s)->task->id, 10);
	ck_assert_int_eq(task_resume(&p, &s, 10, 0, &st, &e), 0);
	ck_assert(st.tr == 'r' && st.task_id == 10 && st.prev_task_id == 0);
	ck_assert_ptr_eq(task_running(&s), task_top(&s));
	ck_assert_int_eq(task_end(&p, &s, 10, 0, &st, &e), 0);
	ck_assert(st.tr == 'e' && st.task_id == 0 && st.prev_task_id == 10);
	ck_assert_ptr_null(task_top(&s));
	ck_assert_int_eq((int) task_stack_depth(&s), 0);
	task_proc_free(&p);
}
END_TEST

/* ovniemu's Paraver values of type labels (taken from its .pcf output). */
static const struct {
	const char *label;
	uint32_t gid;
} gids[] = {
	{"testtype1", 1690940984u}, {"testtype2", 1504056355u}, {"testtype3", 282923375u},
	{"testtype4", 1135848796u}, {"testtype5", 1896698149u}, {"testtype6", 2097466804u},
	{"testtype7", 2130928067u}, {"testtype8", 43068302u},   {"testtype9", 988260904u},
	{"testtype10", 39445232u},
};

START_TEST(type_gids)
{
	for (size_t i = 0; i < ARRAY_SIZE(gids); i++)
		ck_assert_msg(task_type_gid(gids[i].label) == gids[i].gid, "%s: %u, want %u", gids[i].label,
			      task_type_gid(gids[i].label), gids[i].gid);
}
END_TEST

START_TEST(type_labels)
{
	struct task_proc p;
	struct weft_err e = {0};
	task_proc_init(&p);
	ck_assert_int_eq(task_type_create(&p, 7, "", &e), 0);
	ck_assert_str_eq(task_type_find(&p, 7)->label, "(unlabeled task type 7)");
	ck_assert(task_type_find(&p, 7)->gid == task_type_gid("(unlabeled task type 7)"));
	char l[TASK_LABEL_MAX + 1];
	memset(l, 'a', sizeof(l));
	l[TASK_LABEL_MAX] = '\0'; /* 512 characters: one too many */
	ck_assert_int_eq(task_type_create(&p, 8, l, &e), -1);
	ck_assert_str_eq(e.msg, "task type 8 label too long");
	ck_assert_ptr_null(task_type_find(&p, 8));
	l[TASK_LABEL_MAX - 1] = '\0';
	ck_assert_int_eq(task_type_create(&p, 8, l, &e), 0);
	ck_assert_int_eq(task_type_create(&p, 2, "x", &e), 0);
	/* creation order */
	ck_assert_int_eq((int) p.first->id, 7);
	ck_assert_int_eq((int) p.first->next->id, 8);
	ck_assert_int_eq((int) p.first->next->next->id, 2);
	ck_assert_ptr_null(p.first->next->next->next);
	ck_assert_ptr_eq(p.last, task_type_find(&p, 2));
	task_proc_free(&p);
}
END_TEST

START_TEST(labels_across_processes)
{
	struct task_proc a, b;
	struct weft_err e = {0};
	task_proc_init(&a);
	task_proc_init(&b);
	ck_assert_int_eq(task_type_create(&a, 1, "foo", &e), 0);
	ck_assert_int_eq(task_type_create(&a, 2, "bar", &e), 0);
	ck_assert_int_eq(task_type_create(&b, 1, "bar", &e), 0);
	ck_assert_int_eq(task_type_create(&b, 5, "baz", &e), 0);
	struct task_labels l = {0};
	int added[4], n = 0;
	for (const struct task_type *t = a.first; t; t = t->next)
		added[n++] = task_labels_add(&l, t, &e);
	for (const struct task_type *t = b.first; t; t = t->next)
		added[n++] = task_labels_add(&l, t, &e);
	ck_assert(added[0] == 1 && added[1] == 1 && added[2] == 0 && added[3] == 1);
	const char *want[] = {"foo", "bar", "baz"};
	int i = 0;
	for (struct task_label *x = l.by_gid; x; x = x->hh.next, i++)
		ck_assert_str_eq(x->label, want[i]);
	ck_assert_int_eq(i, 3);
	/* two labels with one value */
	struct task_type forged = {.id = 9, .gid = task_type_gid("foo"), .label = "oof"};
	ck_assert_int_eq(task_labels_add(&l, &forged, &e), -1);
	ck_assert_str_eq(e.msg, "collision occurred in task type labels: foo and oof");
	task_labels_free(&l);
	task_proc_free(&a);
	task_proc_free(&b);
}
END_TEST

/* An ended task is remembered: creating it again is refused. */
static void remembered(struct task_proc *p, uint32_t id)
{
	struct weft_err e = {0};
	char want[64];
	snprintf(want, sizeof(want), "task_id %u already exists", id);
	ck_assert_ptr_null(task_find(p, id));
	ck_assert_int_eq(task_create(p, id, 1, NV, &e), -1);
	ck_assert_str_eq(e.msg, want);
}

/* Memory follows the live tasks: an ended task is freed and remembered by
 * id (its flags, and its type when it may run again). */
START_TEST(ended_tasks_are_freed)
{
	struct task_proc p;
	struct task_stack s = {0};
	struct weft_err e = {0};
	task_proc_init(&p);
	ck_assert_int_eq(task_type_create(&p, 1, "a", &e), 0);
	ck_assert_int_eq(task_type_create(&p, 2, "b", &e), 0);
	for (uint32_t id = 1; id <= 10000; id++) {
		ck_assert_int_eq(task_create(&p, id, 1 + (id & 1), NV, &e), 0);
		ck_assert_int_eq(task_execute(&p, &s, id, 0, NULL, &e), 0);
		ck_assert_int_eq(task_end(&p, &s, id, 0, NULL, &e), 0);
	}
	ck_assert_int_eq((int) p.ntasks, 0);
	ck_assert_int_eq((int) p.ended.n, 10000);
	/* any of them runs again, with its own type */
	static const uint32_t again[] = {2500, 1, 10000, 7777, 2};
	for (size_t i = 0; i < ARRAY_SIZE(again); i++) {
		ck_assert_int_eq(task_execute(&p, &s, again[i], 0, NULL, &e), 0);
		ck_assert_int_eq((int) p.ntasks, 1);
		ck_assert_int_eq((int) p.ended.n, 9999);
		ck_assert_int_eq((int) task_running(&s)->task->type->id, 1 + (int) (again[i] & 1));
		ck_assert_int_eq(task_end(&p, &s, again[i], 0, NULL, &e), 0);
		ck_assert_int_eq((int) p.ended.n, 10000);
	}
	for (uint32_t id = 1; id <= 10000; id++)
		remembered(&p, id);
	/* non-resurrectable ones keep no type */
	ck_assert_int_eq(task_create(&p, 20001, 1, N6, &e), 0);
	ck_assert_int_eq(task_execute(&p, &s, 20001, 0, NULL, &e), 0);
	ck_assert_int_eq(task_end(&p, &s, 20001, 0, NULL, &e), 0);
	ck_assert_int_eq(task_execute(&p, &s, 20001, 0, NULL, &e), -1);
	ck_assert_str_eq(e.msg, "body(id=1,taskid=20001) is not allowed to run again");
	/* the free list is reused: no task is allocated past the live ones */
	int nfree = 0;
	for (struct task *t = p.free_tasks; t; t = t->free_next)
		nfree++;
	ck_assert_int_eq(nfree, 1); /* one lived at a time */
	task_proc_free(&p);
}
END_TEST

/* The oldest ended tasks are dropped past the bound; one that ran again
 * since is not dropped for its older end; the error says it may have been
 * dropped. */
START_TEST(ended_tasks_are_bounded)
{
	struct task_proc p;
	struct task_stack s = {0};
	struct weft_err e = {0};
	task_proc_init(&p);
	p.ended_max = 4;
	ck_assert_int_eq(task_type_create(&p, 1, "a", &e), 0);
	ck_assert_int_eq(task_type_create(&p, 2, "b", &e), 0);
	for (uint32_t id = 1; id <= 4; id++) {
		ck_assert_int_eq(task_create(&p, id, 1 + (id & 1), NV, &e), 0);
		ck_assert_int_eq(task_execute(&p, &s, id, 0, NULL, &e), 0);
		ck_assert_int_eq(task_end(&p, &s, id, 0, NULL, &e), 0);
	}
	/* 1 runs again: its first end is stale in the ring */
	ck_assert_int_eq(task_execute(&p, &s, 1, 0, NULL, &e), 0);
	ck_assert_int_eq(task_end(&p, &s, 1, 0, NULL, &e), 0);
	ck_assert_int_eq(task_create(&p, 5, 1, NV, &e), 0);
	ck_assert_int_eq(task_execute(&p, &s, 5, 0, NULL, &e), 0);
	ck_assert_int_eq(task_end(&p, &s, 5, 0, NULL, &e), 0);
	/* ring 1 2 3 4 | 1 5: the stale 1 left first, then 2 was dropped */
	ck_assert(p.forgotten == 1 && p.forgot_hi == 2);
	ck_assert_int_eq((int) p.ended.n, 4);
	ck_assert_int_eq(task_execute(&p, &s, 2, 0, NULL, &e), -1);
	ck_assert_str_eq(e.msg, "cannot find task with id 2 (or it ended long ago: weft remembers the last 4 "
				"ended tasks of a process)");
	ck_assert_int_eq(task_execute(&p, &s, 9, 0, NULL, &e), -1);
	ck_assert_str_eq(e.msg, "cannot find task with id 9");
	/* the others run again with their types (no end here: it would drop more) */
	struct task_stack st[6] = {{0}};
	for (uint32_t id = 1; id <= 5; id++) {
		if (id == 2)
			continue;
		ck_assert_int_eq(task_execute(&p, &st[id], id, 0, NULL, &e), 0);
		ck_assert_int_eq((int) task_running(&st[id])->task->type->id, id == 5 ? 1 : 1 + (int) (id & 1));
	}
	ck_assert_int_eq((int) p.ended.n, 0);
	task_proc_free(&p);
}
END_TEST

START_TEST(parallel_bodies_are_freed)
{
	struct task_proc p;
	struct task_stack s[2] = {{0}};
	struct weft_err e = {0};
	task_proc_init(&p);
	ck_assert_int_eq(task_type_create(&p, 1, "a", &e), 0);
	ck_assert_int_eq(task_create(&p, 1, 1, NVP, &e), 0);
	for (uint32_t b = 1; b <= 1000; b += 2) {
		ck_assert_int_eq(task_execute(&p, &s[0], 1, b, NULL, &e), 0);
		ck_assert_int_eq(task_execute(&p, &s[1], 1, b + 1, NULL, &e), 0);
		ck_assert_int_eq(task_end(&p, &s[1], 1, b + 1, NULL, &e), 0);
		ck_assert_int_eq(task_end(&p, &s[0], 1, b, NULL, &e), 0);
	}
	struct task *t = task_find(&p, 1);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_null(t->bodies);
	ck_assert_int_eq((int) t->dead.n, 1);
	ck_assert(t->dead.r[0].lo == 1 && t->dead.r[0].hi == 1000);
	int nfree = 0;
	for (struct task_body *b = p.free_bodies; b; b = b->next)
		nfree++;
	ck_assert_int_eq(nfree, 2);
	task_proc_free(&p);
}
END_TEST

Suite *task_suite(void)
{
	Suite *s = suite_create("task");
	TCase *tc = tcase_create("task");
	tcase_add_loop_test(tc, scripts_run, 0, (int) (ARRAY_SIZE(scripts)));
	tcase_add_test(tc, step_values);
	tcase_add_test(tc, type_gids);
	tcase_add_test(tc, type_labels);
	tcase_add_test(tc, labels_across_processes);
	tcase_add_test(tc, ended_tasks_are_freed);
	tcase_add_test(tc, ended_tasks_are_bounded);
	tcase_add_test(tc, parallel_bodies_are_freed);
	suite_add_tcase(s, tc);
	return s;
}
