/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/trace/system.c: merge rules and global order. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "trace/system.h"

/* A stream's metadata built in place; strings and arrays are borrowed. */
static struct weft_meta meta(const char *loom, int64_t pid, int64_t tid, int64_t app_id,
			     struct weft_meta_cpu *cpus, int ncpus)
{
	struct weft_meta m;
	memset(&m, 0, sizeof(m));
	m.loom = (char *) loom;
	m.pid = pid;
	m.tid = tid;
	m.has_app_id = app_id > 0;
	m.app_id = app_id;
	m.cpus = cpus;
	m.ncpus = ncpus;
	return m;
}

static struct weft_meta ranked(const char *loom, int64_t pid, int64_t tid, int64_t rank,
			       int64_t nranks, struct weft_meta_cpu *cpus, int ncpus)
{
	struct weft_meta m = meta(loom, pid, tid, 1, cpus, ncpus);
	m.has_rank = 1;
	m.rank = rank;
	m.nranks = nranks;
	return m;
}

static struct weft_meta_cpu cpu1[] = {{0, 0}};
static struct weft_meta_cpu cpu2[] = {{0, 0}, {1, 1}};

static void add_ok(struct weft_system *s, struct weft_meta m, int stream, const char *path)
{
	struct weft_err e = {0};
	ck_assert_msg(sys_add(s, &m, stream, path, &e) == 0, "sys_add %s: %s", path, e.msg);
}

static void add_fails(struct weft_system *s, struct weft_meta m, int stream, const char *path,
		      const char *msg)
{
	struct weft_err e = {0};
	ck_assert_int_eq(sys_add(s, &m, stream, path, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, msg);
}

static void finish_ok(struct weft_system *s)
{
	struct weft_err e = {0};
	ck_assert_msg(sys_finish(s, &e) == 0, "sys_finish: %s", e.msg);
}

static void finish_fails(struct weft_system *s, const char *msg)
{
	struct weft_err e = {0};
	ck_assert_int_eq(sys_finish(s, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, msg);
}

/* ---- CPUs ------------------------------------------------------------------ */

START_TEST(cpu_union_by_phyid)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_cpu a[] = {{1, 10}, {0, 20}};
	struct weft_meta_cpu b[] = {{0, 20}, {2, 5}};
	add_ok(&s, meta("n", 1, 1, 1, a, 2), 0, "A");
	add_ok(&s, meta("n", 1, 2, 0, NULL, 0), 1, "B");
	add_ok(&s, meta("n", 1, 3, 0, b, 2), 2, "C");
	finish_ok(&s);
	ck_assert_int_eq(s.nlooms, 1);
	struct weft_loom *l = s.looms[0];
	ck_assert_int_eq(l->ncpus, 3);
	ck_assert_str_eq(l->cpus_from, "A");
	/* rows in phyid order, then the vCPU */
	ck_assert_int_eq(l->cpus[0]->phyid, 5);
	ck_assert_int_eq(l->cpus[0]->index, 2);
	ck_assert_int_eq(l->cpus[1]->phyid, 10);
	ck_assert_int_eq(l->cpus[1]->index, 1);
	ck_assert_int_eq(l->cpus[2]->phyid, 20);
	ck_assert_int_eq(l->cpus[2]->index, 0);
	ck_assert_ptr_eq(l->cpus[3], &l->vcpu);
	/* events name CPUs by logical index */
	ck_assert_ptr_eq(sys_cpu_by_index(l, 0), l->cpus[2]);
	ck_assert_ptr_eq(sys_cpu_by_index(l, 1), l->cpus[1]);
	ck_assert_ptr_eq(sys_cpu_by_index(l, 2), l->cpus[0]);
	ck_assert_ptr_eq(sys_cpu_by_index(l, -1), &l->vcpu);
	ck_assert_ptr_null(sys_cpu_by_index(l, 3));
	ck_assert_ptr_null(sys_cpu_by_index(l, -2));
	ck_assert_ptr_null(sys_cpu_by_index(l, 1000000));
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(l->cpus[i]->is_virtual, 0);
		ck_assert_ptr_eq(l->cpus[i]->loom, l);
	}
	sys_free(&s);
}
END_TEST

START_TEST(cpu_same_phyid_other_index)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_cpu b[] = {{1, 1}, {0, 0}, {1, 0}};
	add_ok(&s, meta("L", 1, 1, 1, cpu2, 2), 0, "first.json");
	add_fails(&s, meta("L", 1, 2, 1, b, 3), 1, "second.json",
		  "second.json: key 'ovni.loom_cpus[2]': CPU phyid 0 of loom L has index 0 in "
		  "first.json, found index 1");
	sys_free(&s);
}
END_TEST

START_TEST(cpu_duplicate_index)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_cpu a[] = {{0, 0}, {1, 1}, {0, 2}};
	add_ok(&s, meta("L", 1, 1, 1, a, 3), 0, "x.json");
	finish_fails(&s, "loom L: CPU index 0 is taken by both phyid 0 and phyid 2, expected each "
			 "index once (from x.json)");
	sys_free(&s);
}
END_TEST

START_TEST(cpu_duplicate_index_across_streams)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_cpu a[] = {{0, 7}};
	struct weft_meta_cpu b[] = {{0, 3}};
	add_ok(&s, meta("L", 1, 1, 1, a, 1), 0, "x.json");
	add_ok(&s, meta("L", 1, 2, 1, b, 1), 1, "y.json");
	/* phyid order: 3 first, so 7 finds index 0 taken */
	finish_fails(&s, "loom L: CPU index 0 is taken by both phyid 3 and phyid 7, expected each "
			 "index once (from x.json)");
	sys_free(&s);
}
END_TEST

START_TEST(cpu_index_out_of_range)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_cpu a[] = {{0, 0}, {2, 1}};
	add_ok(&s, meta("L", 1, 1, 1, a, 2), 0, "x.json");
	finish_fails(&s, "loom L: CPU phyid 1 has index 2, expected an index below the number of "
			 "CPUs (2) (from x.json)");
	sys_free(&s);
}
END_TEST

START_TEST(loom_without_cpus)
{
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, meta("a", 1, 1, 1, cpu1, 1), 0, "x.json");
	add_ok(&s, meta("b", 1, 1, 1, NULL, 0), 1, "y.json");
	finish_fails(&s, "loom b has no physical CPUs: no stream of it lists 'ovni.loom_cpus'");
	sys_free(&s);
}
END_TEST

/* ---- processes and threads ------------------------------------------------------ */

START_TEST(app_id_conflict)
{
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, meta("L", 5, 1, 1, cpu1, 1), 0, "t1.json");
	add_ok(&s, meta("L", 5, 2, 0, NULL, 0), 1, "t2.json");
	add_ok(&s, meta("L", 5, 3, 1, NULL, 0), 2, "t3.json");
	add_fails(&s, meta("L", 5, 4, 2, NULL, 0), 3, "t4.json",
		  "t4.json: key 'ovni.app_id': process 5 of loom L has app_id 1 in t3.json, found 2");
	sys_free(&s);
}
END_TEST

START_TEST(app_id_same_pid_other_loom)
{
	/* a process is (loom, pid): equal pids in two looms are two processes */
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, meta("L", 5, 1, 1, cpu1, 1), 0, "t1.json");
	add_ok(&s, meta("M", 5, 1, 2, cpu1, 1), 1, "t2.json");
	finish_ok(&s);
	ck_assert_int_eq(s.nprocs, 2);
	ck_assert_int_eq(s.nthreads, 2);
	ck_assert_int_eq(s.looms[0]->procs[0]->app_id, 1);
	ck_assert_int_eq(s.looms[1]->procs[0]->app_id, 2);
	sys_free(&s);
}
END_TEST

START_TEST(app_id_missing)
{
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, meta("L", 5, 1, 1, cpu1, 1), 0, "t1.json");
	add_ok(&s, meta("L", 7, 1, 0, NULL, 0), 1, "t2.json");
	add_ok(&s, meta("L", 7, 2, 0, NULL, 0), 2, "t3.json");
	finish_fails(&s, "process 7 of loom L has no app_id: expected 'ovni.app_id' in at least one "
			 "of its streams");
	sys_free(&s);
}
END_TEST

START_TEST(app_id_from_any_thread)
{
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, meta("L", 5, 1, 0, cpu1, 1), 0, "t1.json");
	add_ok(&s, meta("L", 5, 2, 0, NULL, 0), 1, "t2.json");
	add_ok(&s, meta("L", 5, 3, 9, NULL, 0), 2, "t3.json");
	finish_ok(&s);
	struct weft_proc *p = s.looms[0]->procs[0];
	ck_assert_int_eq(p->has_app_id, 1);
	ck_assert_int_eq(p->app_id, 9);
	ck_assert_str_eq(p->app_id_from, "t3.json");
	ck_assert_int_eq(p->nthreads, 3);
	sys_free(&s);
}
END_TEST

START_TEST(duplicate_tid)
{
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, meta("L", 5, 42, 1, cpu1, 1), 0, "t1.json");
	add_ok(&s, meta("L", 6, 42, 1, NULL, 0), 1, "t2.json"); /* other process: fine */
	add_ok(&s, meta("M", 5, 42, 1, cpu1, 1), 2, "t3.json"); /* other loom: fine */
	add_fails(&s, meta("L", 5, 42, 1, NULL, 0), 3, "t4.json",
		  "t4.json: key 'ovni.tid': thread 42 of process 5 in loom L already exists "
		  "(stream 0)");
	sys_free(&s);
}
END_TEST

/* The caller's resolver decides (system.h): "yes" is 'Y', "old" refused,
 * anything else unknown; without one no thread requires a model. */
static int resolve(const void *arg, const char *path, const char *model, const char *version, struct weft_err *e)
{
	(void) version;
	ck_assert_str_eq(arg, "registry");
	if (strcmp(model, "old") == 0)
		return weft_fail(e, WEFT_EINPUT, "%s: old refused", path);
	return strcmp(model, "yes") == 0 ? 'Y' : 0;
}

START_TEST(require_resolved_by_the_caller)
{
	struct weft_meta_req r[] = {{"yes", "1.0.0"}, {"maybe", "1.0.0"}};
	struct weft_meta_req bad[] = {{"old", "0.1.0"}};
	struct weft_system s;
	sys_init(&s);
	struct weft_meta m = meta("L", 5, 42, 1, cpu1, 1);
	m.req = r;
	m.nreq = 2;
	add_ok(&s, m, 0, "t1.json"); /* no resolver: nothing required */
	s.require = resolve;
	s.require_arg = "registry";
	m.tid = 43;
	add_ok(&s, m, 1, "t2.json");
	m.tid = 44;
	m.req = bad;
	m.nreq = 1;
	add_fails(&s, m, 2, "t3.json", "t3.json: old refused");
	finish_ok(&s);
	ck_assert_int_eq(s.nthreads, 2);
	int sum = 0;
	for (int k = 0; k < MCV_NCHARS; k++)
		sum += s.threads[0]->req[k] + 2 * s.threads[1]->req[k];
	ck_assert_int_eq(s.threads[1]->req[mcv_index('Y')], 1);
	ck_assert_int_eq(sum, 2); /* 'Y' of the second thread alone */
	sys_free(&s);
}
END_TEST

START_TEST(rank_conflict)
{
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, ranked("L", 5, 1, 0, 2, cpu1, 1), 0, "t1.json");
	add_ok(&s, meta("L", 5, 2, 1, NULL, 0), 1, "t2.json");
	add_ok(&s, ranked("L", 5, 3, 0, 2, NULL, 0), 2, "t3.json");
	add_fails(&s, ranked("L", 5, 4, 1, 2, NULL, 0), 3, "t4.json",
		  "t4.json: key 'ovni.rank': process 5 of loom L has rank 0 of 2 in t3.json, found "
		  "rank 1 of 2");
	add_fails(&s, ranked("L", 5, 5, 0, 3, NULL, 0), 4, "t5.json",
		  "t5.json: key 'ovni.rank': process 5 of loom L has rank 0 of 2 in t3.json, found "
		  "rank 0 of 3");
	sys_free(&s);
}
END_TEST

START_TEST(rank_in_some_processes_only)
{
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, ranked("L", 5, 1, 0, 2, cpu1, 1), 0, "t1.json");
	add_ok(&s, meta("L", 6, 1, 1, NULL, 0), 1, "t2.json");
	finish_fails(&s, "process 6 of loom L has no rank, but other processes of the loom do: "
			 "expected 'ovni.rank' in all or none");
	sys_free(&s);
}
END_TEST

/* ---- ordering ---------------------------------------------------------------------- */

START_TEST(order_by_name_and_pid)
{
	struct weft_system s;
	sys_init(&s);
	/* streams in an arbitrary order: looms c, a, b; pids and tids mixed */
	add_ok(&s, meta("c", 30, 300, 1, cpu1, 1), 0, "s0");
	add_ok(&s, meta("a", 20, 202, 1, cpu2, 2), 1, "s1");
	add_ok(&s, meta("a", 10, 101, 1, NULL, 0), 2, "s2");
	add_ok(&s, meta("a", 20, 201, 1, NULL, 0), 3, "s3");
	add_ok(&s, meta("b", 99, 1, 1, cpu1, 1), 4, "s4");
	add_ok(&s, meta("a", 10, -5, 1, NULL, 0), 5, "s5");
	add_ok(&s, meta("a", 9, 7, 1, NULL, 0), 6, "s6");
	finish_ok(&s);
	ck_assert_int_eq(s.nlooms, 3);
	ck_assert_str_eq(s.looms[0]->name, "a");
	ck_assert_str_eq(s.looms[1]->name, "b");
	ck_assert_str_eq(s.looms[2]->name, "c");
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(s.looms[i]->gindex, i);
	struct weft_loom *a = s.looms[0];
	ck_assert_int_eq(a->nprocs, 3);
	ck_assert_int_eq(a->procs[0]->pid, 9);
	ck_assert_int_eq(a->procs[1]->pid, 10);
	ck_assert_int_eq(a->procs[2]->pid, 20);
	ck_assert_int_eq(a->procs[0]->gindex, 0);
	ck_assert_int_eq(a->procs[2]->gindex, 2);
	ck_assert_int_eq(s.looms[1]->procs[0]->gindex, 3);
	ck_assert_int_eq(s.looms[2]->procs[0]->gindex, 4);
	ck_assert_int_eq(s.nprocs, 5);
	/* threads: loom a (pid 9: 7; pid 10: -5, 101; pid 20: 201, 202), b, c */
	static const int64_t tids[] = {7, -5, 101, 201, 202, 1, 300};
	static const int streams[] = {6, 5, 2, 3, 1, 4, 0};
	ck_assert_int_eq(s.nthreads, 7);
	for (int i = 0; i < 7; i++) {
		ck_assert_int_eq(s.threads[i]->tid, tids[i]);
		ck_assert_int_eq(s.threads[i]->stream, streams[i]);
		ck_assert_int_eq(s.threads[i]->gindex, i);
	}
	ck_assert_ptr_eq(s.threads[1]->proc, a->procs[1]);
	ck_assert_ptr_eq(a->procs[1]->loom, a);
	sys_free(&s);
}
END_TEST

START_TEST(order_by_rank)
{
	struct weft_system s;
	sys_init(&s);
	/* loom a holds ranks 2 and 3, loom z ranks 0 and 1: z comes first */
	add_ok(&s, ranked("a", 10, 1, 3, 4, cpu1, 1), 0, "s0");
	add_ok(&s, ranked("a", 20, 1, 2, 4, NULL, 0), 1, "s1");
	add_ok(&s, ranked("z", 30, 1, 1, 4, cpu1, 1), 2, "s2");
	add_ok(&s, ranked("z", 40, 1, 0, 4, NULL, 0), 3, "s3");
	finish_ok(&s);
	ck_assert_str_eq(s.looms[0]->name, "z");
	ck_assert_str_eq(s.looms[1]->name, "a");
	/* processes by rank, not by pid */
	ck_assert_int_eq(s.looms[0]->procs[0]->pid, 40);
	ck_assert_int_eq(s.looms[0]->procs[1]->pid, 30);
	ck_assert_int_eq(s.looms[1]->procs[0]->pid, 20);
	ck_assert_int_eq(s.looms[1]->procs[1]->pid, 10);
	static const int streams[] = {3, 2, 1, 0};
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(s.threads[i]->stream, streams[i]);
		ck_assert_int_eq(s.threads[i]->proc->gindex, i);
	}
	sys_free(&s);
}
END_TEST

START_TEST(order_some_looms_ranked)
{
	/* loom b ranked, loom a not: warning, then by name */
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, ranked("b", 1, 1, 0, 1, cpu1, 1), 0, "s0");
	add_ok(&s, meta("a", 2, 1, 1, cpu1, 1), 1, "s1");
	finish_ok(&s);
	ck_assert_str_eq(s.looms[0]->name, "a");
	ck_assert_str_eq(s.looms[1]->name, "b");
	sys_free(&s);
}
END_TEST

START_TEST(order_names_bytewise)
{
	struct weft_system s;
	sys_init(&s);
	static const char *const names[] = {"node10", "node9", "Node", "node1.x", "node1"};
	for (int i = 0; i < 5; i++)
		add_ok(&s, meta(names[i], 1, 1, 1, cpu1, 1), i, "s");
	finish_ok(&s);
	static const char *const sorted[] = {"Node", "node1", "node1.x", "node10", "node9"};
	for (int i = 0; i < 5; i++)
		ck_assert_str_eq(s.looms[i]->name, sorted[i]);
	ck_assert_str_eq(s.looms[2]->hostname, "node1");
	ck_assert_str_eq(s.looms[1]->hostname, "node1");
	sys_free(&s);
}
END_TEST

START_TEST(equal_ranks_keep_first_seen_order)
{
	/* the sorts are stable: equal ranks keep stream order */
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, ranked("L", 50, 1, 0, 2, cpu1, 1), 0, "s0");
	add_ok(&s, ranked("L", 10, 1, 0, 2, NULL, 0), 1, "s1");
	add_ok(&s, ranked("L", 30, 1, 0, 2, NULL, 0), 2, "s2");
	finish_ok(&s);
	ck_assert_int_eq(s.looms[0]->procs[0]->pid, 50);
	ck_assert_int_eq(s.looms[0]->procs[1]->pid, 10);
	ck_assert_int_eq(s.looms[0]->procs[2]->pid, 30);
	sys_free(&s);
}
END_TEST

START_TEST(global_cpu_indices)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_cpu b[] = {{2, 30}, {0, 10}, {1, 20}};
	add_ok(&s, meta("b", 1, 1, 1, b, 3), 0, "s0");
	add_ok(&s, meta("a", 1, 1, 1, cpu2, 2), 1, "s1");
	finish_ok(&s);
	ck_assert_int_eq(s.ncpus, 7);
	/* a: phyid 0, 1, vCPU; b: phyid 10, 20, 30, vCPU */
	static const int64_t phy[] = {0, 1, -1, 10, 20, 30, -1};
	static const int64_t idx[] = {0, 1, -1, 0, 1, 2, -1};
	for (int i = 0; i < 7; i++) {
		ck_assert_int_eq(s.cpus[i]->phyid, phy[i]);
		ck_assert_int_eq(s.cpus[i]->index, idx[i]);
		ck_assert_int_eq(s.cpus[i]->gindex, i);
		ck_assert_int_eq(s.cpus[i]->is_virtual, phy[i] == -1);
	}
	ck_assert_ptr_eq(s.cpus[2], &s.looms[0]->vcpu);
	ck_assert_ptr_eq(s.cpus[6], &s.looms[1]->vcpu);
	ck_assert_ptr_eq(s.cpus[2]->loom, s.looms[0]);
	ck_assert_ptr_eq(s.cpus[6]->loom, s.looms[1]);
	sys_free(&s);
}
END_TEST

/* ---- marks --------------------------------------------------------------------------- */

START_TEST(marks_merge)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_label la[] = {{1, (char *) "init"}, {2, (char *) "run"}};
	struct weft_meta_label lb[] = {{2, (char *) "run"}, {3, (char *) "end"}};
	struct weft_meta_mark ma[] = {{4, (char *) "Phase", 0, la, 2}};
	struct weft_meta_mark mb[] = {{4, (char *) "Phase", 0, lb, 2}, {0, (char *) "Z", 1, NULL, 0}};
	struct weft_meta m1 = meta("L", 1, 1, 1, cpu1, 1);
	m1.marks = ma;
	m1.nmarks = 1;
	struct weft_meta m2 = meta("L", 1, 2, 1, NULL, 0);
	m2.marks = mb;
	m2.nmarks = 2;
	add_ok(&s, m1, 0, "p1");
	add_ok(&s, m2, 1, "p2");
	finish_ok(&s);
	ck_assert_int_eq(s.marks[4].defined, 1);
	ck_assert_str_eq(s.marks[4].title, "Phase");
	ck_assert_int_eq(s.marks[4].stack, 0);
	ck_assert_str_eq(s.marks[4].from, "p1");
	ck_assert_int_eq(s.marks[4].nlabels, 3);
	ck_assert_int_eq(s.marks[4].labels[0].value, 1);
	ck_assert_int_eq(s.marks[4].labels[1].value, 2);
	ck_assert_int_eq(s.marks[4].labels[2].value, 3);
	ck_assert_str_eq(s.marks[4].labels[2].label, "end");
	ck_assert_int_eq(s.marks[0].defined, 1);
	ck_assert_int_eq(s.marks[0].stack, 1);
	ck_assert_int_eq(s.marks[1].defined, 0);
	sys_free(&s);
}
END_TEST

START_TEST(marks_conflicts)
{
	struct weft_system s;
	sys_init(&s);
	struct weft_meta_label la[] = {{1, (char *) "init"}};
	struct weft_meta_label lb[] = {{1, (char *) "start"}};
	struct weft_meta_mark ma[] = {{4, (char *) "Phase", 0, la, 1}};
	struct weft_meta_mark mb[] = {{4, (char *) "Phase", 1, NULL, 0}};
	struct weft_meta_mark mc[] = {{4, (char *) "Step", 0, NULL, 0}};
	struct weft_meta_mark md[] = {{4, (char *) "Phase", 0, lb, 1}};
	struct weft_meta m = meta("L", 1, 1, 1, cpu1, 1);
	m.marks = ma;
	m.nmarks = 1;
	add_ok(&s, m, 0, "p1");
	m = meta("L", 1, 2, 1, NULL, 0);
	m.marks = mb;
	m.nmarks = 1;
	add_fails(&s, m, 1, "p2",
		  "p2: key 'ovni.mark.4': mark type defined as \"Phase\" (single) in p1, found "
		  "\"Phase\" (stack)");
	m = meta("L", 1, 3, 1, NULL, 0);
	m.marks = mc;
	m.nmarks = 1;
	add_fails(&s, m, 2, "p3",
		  "p3: key 'ovni.mark.4': mark type defined as \"Phase\" (single) in p1, found "
		  "\"Step\" (single)");
	m = meta("L", 1, 4, 1, NULL, 0);
	m.marks = md;
	m.nmarks = 1;
	add_fails(&s, m, 3, "p4",
		  "p4: key 'ovni.mark.4.labels.1': value labelled \"init\" elsewhere, found \"start\"");
	sys_free(&s);
}
END_TEST

START_TEST(free_after_failed_finish)
{
	/* sys_free must release a system whose sys_finish failed half-way */
	struct weft_system s;
	sys_init(&s);
	add_ok(&s, meta("a", 1, 1, 1, cpu2, 2), 0, "s0");
	add_ok(&s, meta("a", 2, 1, 0, NULL, 0), 1, "s1");
	add_ok(&s, meta("b", 1, 1, 1, cpu1, 1), 2, "s2");
	finish_fails(&s, "process 2 of loom a has no app_id: expected 'ovni.app_id' in at least one "
			 "of its streams");
	sys_free(&s);
	ck_assert_int_eq(s.nlooms, 0);
	ck_assert_ptr_null(s.looms);
}
END_TEST

Suite *system_suite(void)
{
	Suite *s = suite_create("system");
	TCase *tc = tcase_create("cpus");
	tcase_add_test(tc, cpu_union_by_phyid);
	tcase_add_test(tc, cpu_same_phyid_other_index);
	tcase_add_test(tc, cpu_duplicate_index);
	tcase_add_test(tc, cpu_duplicate_index_across_streams);
	tcase_add_test(tc, cpu_index_out_of_range);
	tcase_add_test(tc, loom_without_cpus);
	suite_add_tcase(s, tc);

	tc = tcase_create("processes");
	tcase_add_test(tc, app_id_conflict);
	tcase_add_test(tc, app_id_same_pid_other_loom);
	tcase_add_test(tc, app_id_missing);
	tcase_add_test(tc, app_id_from_any_thread);
	tcase_add_test(tc, duplicate_tid);
	tcase_add_test(tc, require_resolved_by_the_caller);
	tcase_add_test(tc, rank_conflict);
	tcase_add_test(tc, rank_in_some_processes_only);
	suite_add_tcase(s, tc);

	tc = tcase_create("order");
	tcase_add_test(tc, order_by_name_and_pid);
	tcase_add_test(tc, order_by_rank);
	tcase_add_test(tc, order_some_looms_ranked);
	tcase_add_test(tc, order_names_bytewise);
	tcase_add_test(tc, equal_ranks_keep_first_seen_order);
	tcase_add_test(tc, global_cpu_indices);
	suite_add_tcase(s, tc);

	tc = tcase_create("marks");
	tcase_add_test(tc, marks_merge);
	tcase_add_test(tc, marks_conflicts);
	tcase_add_test(tc, free_after_failed_finish);
	suite_add_tcase(s, tc);
	return s;
}
