/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/prv/prv_writer.c: the same calls give the same .prv
 * bytes whether the back runs in the writer thread (a prv_pipe shared by two
 * files) or inline, across many pipe chunks, instants that write nothing
 * (their TIME op is reused), states, cpu changes and communications. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prv/prv_writer.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

#define NROWS 6
#define NSLOTS 4

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A fixed pseudo-random schedule written to dir/a.prv and dir/b.prv; with
 * `piped` both files share one writer thread. Returns the records' count
 * of file a (so a test can see the schedule wrote something). */
static void write_schedule(const char *dir, int piped, uint64_t *nrec)
{
	static const int32_t types[NSLOTS] = {10, 11, 12, 13};
	uint32_t ids[NROWS][3];
	for (int r = 0; r < NROWS; r++) {
		ids[r][0] = 1;
		ids[r][1] = 1 + (uint32_t) r / 2;
		ids[r][2] = 1 + (uint32_t) r % 2;
	}
	struct prv_pipe *pipe = piped ? prv_pipe_start() : NULL;
	ck_assert(!piped || pipe);
	struct prv_file f[2];
	struct weft_err e = {0};
	for (int k = 0; k < 2; k++) {
		char *path = tu_join(dir, k ? "b.prv" : "a.prv");
		ck_assert_msg(prv_open(&f[k], pipe, path, NULL, "01/01/2026 at 00:00", "1(6):1:3(2,2,2)", NROWS,
				       (const uint32_t(*)[3]) ids, NSLOTS, types, 0, &e) == 0,
			      "%s", e.msg);
		free(path);
	}
	uint64_t seed = 42, t = 0;
	uint64_t open_comm[8];
	int nopen = 0;
	/* enough instants for many 8192-op chunks; a third of them write
	 * nothing, so their TIME ops are reused, also at chunk ends */
	for (int i = 0; i < 60000; i++) {
		t += 1 + rnd(&seed) % 1000;
		prv_time2(&f[0], &f[1], t);
		uint64_t what = rnd(&seed) % 12;
		if (what < 4)
			continue;
		struct prv_file *x = &f[rnd(&seed) % 2];
		int row = (int) (rnd(&seed) % NROWS);
		int n = 1 + (int) (rnd(&seed) % 3);
		for (int j = 0; j < n; j++)
			prv_set(x, row, (int) (rnd(&seed) % NSLOTS), (int64_t) (rnd(&seed) % 5) - 1);
		if (what == 5)
			prv_punct(x, (row + 1) % NROWS, 3, (int64_t) (rnd(&seed) % 3));
		if (what == 6)
			prv_state(&f[0], row, (uint32_t) (rnd(&seed) % 4));
		if (what == 7)
			prv_cpu(x, row, 1 + (uint32_t) (rnd(&seed) % 4));
		if (what == 8 && nopen < 8)
			open_comm[nopen++] = prv_comm_send(&f[0], row, t, (int64_t) (rnd(&seed) % 4096),
							   (int64_t) (rnd(&seed) % 9));
		if (what == 9 && nopen > 0) {
			uint64_t id = open_comm[--nopen];
			if (rnd(&seed) % 2)
				prv_comm_psend(&f[0], id, t);
			prv_comm_recv(&f[0], id, (row + 3) % NROWS, t - rnd(&seed) % 50, t);
		}
		if (what == 10 && nopen > 0)
			prv_comm_drop(&f[0], open_comm[--nopen]);
	}
	t += 7;
	prv_time2(&f[0], &f[1], t);
	prv_flush_now(&f[0]);
	prv_flush_now(&f[1]);
	prv_pipe_finish(pipe);
	*nrec = f[0].back.nrecords;
	for (int k = 0; k < 2; k++)
		ck_assert_msg(prv_close(&f[k], t, &e) == 0, "%s", e.msg);
}

START_TEST(piped_and_inline_write_the_same_bytes)
{
	char *dir[2] = {tu_mkdtemp(), tu_mkdtemp()};
	uint64_t nrec[2];
	write_schedule(dir[0], 1, &nrec[0]);
	write_schedule(dir[1], 0, &nrec[1]);
	ck_assert_uint_gt(nrec[0], 20000);
	ck_assert_uint_eq(nrec[0], nrec[1]);
	for (int k = 0; k < 2; k++) {
		char *p0 = tu_join(dir[0], k ? "b.prv" : "a.prv");
		char *p1 = tu_join(dir[1], k ? "b.prv" : "a.prv");
		size_t n0, n1;
		char *d0 = tu_read(p0, &n0), *d1 = tu_read(p1, &n1);
		ck_assert_uint_gt(n0, 100000);
		ck_assert_uint_eq(n0, n1);
		size_t i = 0;
		while (i < n0 && d0[i] == d1[i])
			i++;
		ck_assert_msg(i == n0, "%s: piped and inline differ at byte %zu", k ? "b.prv" : "a.prv", i);
		free(d0);
		free(d1);
		free(p0);
		free(p1);
	}
	for (int k = 0; k < 2; k++) {
		tu_rmtree(dir[k]);
		free(dir[k]);
	}
}
END_TEST

/* Records at each instant carry that instant's time, also right after
 * instants that wrote nothing (their TIME op was reused for the next). */
START_TEST(empty_instants_do_not_shift_times)
{
	char *dir = tu_mkdtemp();
	static const int32_t types[1] = {5};
	uint32_t ids[1][3] = {{1, 1, 1}};
	struct prv_pipe *pipe = prv_pipe_start();
	ck_assert_ptr_nonnull(pipe);
	struct prv_file f[2];
	struct weft_err e = {0};
	for (int k = 0; k < 2; k++) {
		char *path = tu_join(dir, k ? "b.prv" : "a.prv");
		ck_assert_int_eq(
			prv_open(&f[k], pipe, path, NULL, "d", "r", 1, (const uint32_t(*)[3]) ids, 1, types, 0, &e), 0);
		free(path);
	}
	/* 20000 instants, a value at every tenth: the others only move time */
	for (uint64_t t = 1; t <= 20000; t++) {
		prv_time2(&f[0], &f[1], t);
		if (t % 10 == 0)
			prv_set(&f[0], 0, 0, (int64_t) (t / 10 % 2 + 1));
	}
	prv_pipe_finish(pipe);
	for (int k = 0; k < 2; k++)
		ck_assert_int_eq(prv_close(&f[k], 20001, &e), 0);
	char *p = tu_join(dir, "a.prv");
	size_t n;
	char *d = tu_read(p, &n);
	char *line = strchr(d, '\n');
	ck_assert_ptr_nonnull(line);
	uint64_t want = 10;
	int lines = 0;
	for (char *l = line + 1; *l; l = strchr(l, '\n') + 1) {
		char expect[64];
		snprintf(expect, sizeof(expect), "2:0:1:1:1:%llu:5:%llu\n", (unsigned long long) want,
			 (unsigned long long) (want / 10 % 2 + 1));
		ck_assert_msg(strncmp(l, expect, strlen(expect)) == 0, "line %d: expected %s", lines, expect);
		want += 10;
		lines++;
	}
	ck_assert_int_eq(lines, 2000);
	free(d);
	free(p);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A -j worker's front (prv_front_init on a ring) drops repeated values and
 * queues each change as a PUNCT op (written as is); a value the merger set
 * (prv_front_unknown) goes as an EVENT op, for the back to compare. Calls:
 * S row slot value (prv_set), P (prv_punct), U row slot (unknown); the ops
 * queued as "P|E row:slot=value". */
static const struct {
	const char *calls, *ops;
} front_cases[] = {
	{"S 0 0 5 ; S 0 0 5 ; S 0 0 6", "P0:0=5 P0:0=6"},
	{"S 0 0 0", ""}, /* 0 is every value's start, as in the back */
	{"S 1 2 3 ; S 0 2 3 ; S 1 2 3", "P1:2=3 P0:2=3"},
	{"P 0 1 7 ; S 0 1 7 ; P 0 1 7", "P0:1=7 P0:1=7"},
	{"S 0 0 4 ; U 0 0 ; S 0 0 4 ; S 0 0 4", "P0:0=4 E0:0=4"},
	{"U 0 0 ; S 0 0 -9223372036854775808 ; S 0 0 -9223372036854775808",
	 "E0:0=-9223372036854775808 E0:0=-9223372036854775808"},
	{"S 0 0 -9223372036854775808 ; S 0 0 -9223372036854775808", "P0:0=-9223372036854775808"},
};

START_TEST(worker_front_drops_repeats)
{
	struct prv_pipe *ring = prv_ring_new();
	ck_assert_ptr_nonnull(ring);
	struct prv_file f;
	prv_front_init(&f, ring, 0, 2, 3);
	const char *c = front_cases[_i].calls;
	char op;
	int row, slot, used;
	long long v;
	while (sscanf(c, " %c %d %d%n", &op, &row, &slot, &used) == 3) {
		c += used;
		if (op != 'U') {
			ck_assert_int_eq(sscanf(c, " %lld%n", &v, &used), 1);
			c += used;
		}
		if (op == 'S')
			prv_set(&f, row, slot, (int64_t) v);
		else if (op == 'P')
			prv_punct(&f, row, slot, (int64_t) v);
		else
			prv_front_unknown(&f, row, slot);
		while (*c == ' ' || *c == ';')
			c++;
	}
	prv_ring_end(ring);
	char got[512] = "";
	uint32_t n;
	const struct prv_op *ops;
	while ((ops = prv_ring_take(ring, &n)) != NULL) {
		for (uint32_t i = 0; i < n; i++) {
			char w[64];
			snprintf(w, sizeof(w), "%s%c%u:%u=%lld", got[0] ? " " : "",
				 ops[i].kind == PRV_OP_PUNCT ? 'P' : 'E', ops[i].row, ops[i].slot,
				 (long long) ops[i].value);
			strcat(got, w);
		}
		prv_ring_give(ring);
	}
	ck_assert_str_eq(got, front_cases[_i].ops);
	prv_front_free(&f);
	prv_ring_free(ring);
}
END_TEST

/* Times of any width: the clock's digits are kept in two parts (the low
 * eight and the rest) and joined without leading zeros. */
START_TEST(times_of_every_width)
{
	static const uint64_t times[] = {1,
					 9,
					 10,
					 99999999,
					 100000000,
					 100000001,
					 123456789012ull,
					 999999999999999999ull,
					 18446744073709551614ull};
	char *dir = tu_mkdtemp();
	static const int32_t types[1] = {5};
	uint32_t ids[1][3] = {{1, 1, 1}};
	struct prv_pipe *pipe = prv_pipe_start();
	ck_assert_ptr_nonnull(pipe);
	struct prv_file f;
	struct weft_err e = {0};
	char *path = tu_join(dir, "a.prv");
	ck_assert_int_eq(prv_open(&f, pipe, path, NULL, "d", "r", 1, (const uint32_t(*)[3]) ids, 1, types, 0, &e), 0);
	int nt = (int) (ARRAY_SIZE(times));
	for (int i = 0; i < nt; i++) {
		prv_time(&f, times[i]);
		prv_set(&f, 0, 0, i + 1);
	}
	prv_pipe_finish(pipe);
	ck_assert_int_eq(prv_close(&f, UINT64_MAX, &e), 0);
	size_t n;
	char *d = tu_read(path, &n);
	char *l = strchr(d, '\n') + 1;
	for (int i = 0; i < nt; i++) {
		char expect[80];
		snprintf(expect, sizeof(expect), "2:0:1:1:1:%llu:5:%d\n", (unsigned long long) times[i], i + 1);
		ck_assert_msg(strncmp(l, expect, strlen(expect)) == 0, "time %llu: expected %s",
			      (unsigned long long) times[i], expect);
		l += strlen(expect);
	}
	free(d);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* ovniemu's rules: a fresh slot writes its first value even when it is 0
 * (another slot's first 0 is dropped as a repeat of the start), and a
 * record line holds one value of a type: a second one starts a line. */
START_TEST(fresh_slots_and_one_value_a_type)
{
	char *dir = tu_mkdtemp();
	static const int32_t types[2] = {10, 11};
	uint32_t ids[1][3] = {{1, 1, 1}};
	struct prv_file f;
	struct weft_err e = {0};
	char *path = tu_join(dir, "a.prv");
	ck_assert_int_eq(prv_open(&f, NULL, path, NULL, "d", "r", 1, (const uint32_t(*)[3]) ids, 2, types, 0, &e), 0);
	prv_slot_fresh(&f, 0);
	prv_time(&f, 5);
	prv_set(&f, 0, 0, 0);
	prv_set(&f, 0, 1, 0);
	prv_time(&f, 6);
	prv_set(&f, 0, 0, 0);
	prv_punct(&f, 0, 0, 3);
	prv_punct(&f, 0, 0, 3);
	prv_set(&f, 0, 1, 4);
	prv_set(&f, 0, 1, 0);
	ck_assert_int_eq(prv_close(&f, 7, &e), 0);
	size_t n;
	char *d = tu_read(path, &n);
	ck_assert_str_eq(strchr(d, '\n') + 1,
			 "2:0:1:1:1:5:10:0\n"
			 "2:0:1:1:1:6:10:3\n"
			 "2:0:1:1:1:6:10:3:11:4\n"
			 "2:0:1:1:1:6:11:0\n");
	free(d);
	free(path);
	tu_rmtree(dir);
	free(dir);

	/* a -j worker's front: a fresh slot's first value goes to the back
	 * to compare (it is never written there either), then repeats drop */
	struct prv_pipe *ring = prv_ring_new();
	ck_assert_ptr_nonnull(ring);
	prv_front_init(&f, ring, 0, 1, 2);
	prv_slot_fresh(&f, 1);
	prv_set(&f, 0, 1, 0);
	prv_set(&f, 0, 1, 0);
	prv_set(&f, 0, 0, 0);
	prv_ring_end(ring);
	uint32_t nops;
	const struct prv_op *ops = prv_ring_take(ring, &nops);
	ck_assert_ptr_nonnull(ops);
	ck_assert_uint_eq(nops, 1);
	ck_assert_int_eq(ops[0].kind, PRV_OP_EVENT);
	ck_assert_int_eq(ops[0].slot, 1);
	prv_ring_give(ring);
	prv_front_free(&f);
	prv_ring_free(ring);
}
END_TEST

Suite *prv_suite(void)
{
	Suite *s = suite_create("prv");
	TCase *tc = tcase_create("pipe");
	tcase_add_test(tc, piped_and_inline_write_the_same_bytes);
	tcase_add_test(tc, empty_instants_do_not_shift_times);
	tcase_add_loop_test(tc, worker_front_drops_repeats, 0, (int) (ARRAY_SIZE(front_cases)));
	tcase_add_test(tc, times_of_every_width);
	tcase_add_test(tc, fresh_slots_and_one_value_a_type);
	suite_add_tcase(s, tc);
	return s;
}
