/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/par/jobs.c's merge: the workers' op streams rebuilt
 * into one run's order (jobs.h), cases as tables. Ops are written as words:
 * Tn a TIME op at n, En an event of thread row n, Fn an event of CPU row n,
 * Sn a state of thread row n, Cn a state of CPU row n. Every case runs with
 * the ops handed over 1, 2 and 1000 at a time (chunk boundaries). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par/jobs.h"
#include "par/jobs_impl.h"
#include "suites.h"
#include "util/macros.h"

#define MAXOPS 64

struct src {
	struct prv_op ops[MAXOPS];
	size_t n, pos, chunk;
};

static size_t parse(const char *s, struct prv_op *ops)
{
	size_t n = 0;
	char w[16];
	int used;
	while (sscanf(s, "%15s%n", w, &used) == 1) {
		s += used;
		struct prv_op o = {0};
		long v = strtol(w + 1, NULL, 10);
		switch (w[0]) {
		case 'T': o.kind = PRV_OP_TIME; o.value = v; break;
		case 'E': o.kind = PRV_OP_EVENT; o.row = (uint32_t) v; break;
		case 'F': o.kind = PRV_OP_EVENT; o.file = 1; o.row = (uint32_t) v; break;
		case 'S': o.kind = PRV_OP_STATE; o.row = (uint32_t) v; break;
		case 'C': o.kind = PRV_OP_STATE; o.file = 1; o.row = (uint32_t) v; break;
		default: ck_abort_msg("bad op word %s", w);
		}
		ops[n++] = o;
	}
	return n;
}

static int refill(struct job *j)
{
	struct src *s = j->src;
	if (s->pos == s->n)
		return 0;
	size_t k = s->n - s->pos < s->chunk ? s->n - s->pos : s->chunk;
	j->op = s->ops + s->pos;
	j->end = j->op + k;
	s->pos += k;
	return 1;
}

/* The recording sink: the ops as words. */
struct rec {
	char text[1024];
};

static size_t put(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	struct rec *r = arg;
	size_t i = 0;
	for (; i < n; i++) {
		const struct prv_op *o = &ops[i];
		char w[24];
		if (o->kind == PRV_OP_TIME) {
			if ((uint64_t) o->value >= bound)
				break;
			*at = (uint64_t) o->value;
			snprintf(w, sizeof(w), "T%lld", (long long) o->value);
		} else {
			char c = o->kind == PRV_OP_STATE ? (o->file ? 'C' : 'S') : (o->file ? 'F' : 'E');
			snprintf(w, sizeof(w), "%c%u", c, o->row);
		}
		if (r->text[0])
			strcat(r->text, " ");
		strcat(r->text, w);
	}
	return i;
}

static const struct {
	const char *name;
	const char *job[3];
	const char *want; /* NULL: the shape error */
} cases[] = {
	{"apart in time", {"T1 E0 T3 E0", "T2 E5 T4 E5"}, "T1 E0 T2 E5 T3 E0 T4 E5"},
	{"a run of one job", {"T1 E0 T2 E0 T3 E0", "T9 E5"}, "T1 E0 T2 E0 T3 E0 T9 E5"},
	{"a tie: events by job, then thread states, then CPU states",
	 {"T5 E0 F0 S0 C0", "T5 E5 F5 S5 C5"}, "T5 E0 F0 E5 F5 S0 S5 C0 C5"},
	{"ops at time 0 need no TIME op", {"E0 T2 E0", "E5 S5"}, "E0 E5 S5 T2 E0"},
	{"a tie where one job has states only", {"T5 E0", "T5 S5 C5"}, "T5 E0 S5 C5"},
	{"an empty job", {"", "T1 E5"}, "T1 E5"},
	{"three jobs, ties of two", {"T1 E0 T4 E0", "T1 E1 S1", "T2 E2 T4 C2"},
	 "T1 E0 E1 S1 T2 E2 T4 E0 C2"},
	{"an instant with no op (a TIME op after a TIME op)", {"T1 T2 E0", "T2 E5"}, "T1 T2 E0 E5"},
	{"an event after the states of a tie is refused", {"T1 E0", "T1 S1 E1"}, NULL},
};

/* The default -j: a worker per 32 MiB + 256 KiB a loom of streams, at
 * most the cap, at least 1 (doc/dev/scaling.md's 1 M and 5 M traces). */
START_TEST(test_jobs_auto)
{
	const uint64_t mb = 1000000;
	ck_assert_int_eq(jobs_auto(62, 0, 2), 1);
	ck_assert_int_eq(jobs_auto(62, 18 * mb, 2), 1); /* synth 1 M, 2 looms */
	ck_assert_int_eq(jobs_auto(62, 18 * mb, 16), 1); /* 1 M, 16 looms */
	ck_assert_int_eq(jobs_auto(62, 87 * mb, 2), 2); /* 5 M, 2 looms */
	ck_assert_int_eq(jobs_auto(62, 87 * mb, 16), 2); /* 5 M, 16 looms: 36 MiB a worker */
	ck_assert_int_eq(jobs_auto(62, 346 * mb, 16), 9); /* 20 M, 16 looms */
	ck_assert_int_eq(jobs_auto(1, 346 * mb, 16), 1); /* 2 cores: the cap */
	ck_assert_int_eq(jobs_auto(2, 346 * mb, 16), 2);
	/* 1,000 looms: 282 MiB a worker (each worker opens every loom) */
	ck_assert_int_eq(jobs_auto(62, 200 * mb, 1000), 1);
	ck_assert_int_eq(jobs_auto(62, 18000 * mb, 1000), 60);
	ck_assert_int_eq(jobs_auto(62, 18000ull * mb * 10, 10000), 62);
	ck_assert_int_eq(jobs_auto(62, 2600 * mb, 10000), 1); /* 10,000 looms, 2.6 GB */
}
END_TEST

START_TEST(test_merge_cases)
{
	static const size_t chunks[] = {1, 2, 1000};
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++)
		for (size_t k = 0; k < 3; k++) {
			struct src src[3];
			struct job jobs[3];
			memset(src, 0, sizeof(src));
			memset(jobs, 0, sizeof(jobs));
			int n = 0;
			for (; n < 3 && cases[c].job[n]; n++) {
				src[n].n = parse(cases[c].job[n], src[n].ops);
				src[n].chunk = chunks[k];
				jobs[n].refill = refill;
				jobs[n].src = &src[n];
			}
			struct rec r = {{0}};
			struct jobs_sink sink = {put, &r, 0, UINT64_MAX};
			struct weft_err err = {0};
			int rc = jobs_merge(jobs, n, &sink, NULL, NULL, &err);
			if (!cases[c].want) {
				ck_assert_msg(rc == -1, "%s (chunk %zu): expected a refusal", cases[c].name, chunks[k]);
				ck_assert_msg(strstr(err.msg, "is not where an instant ends"), "%s: %s", cases[c].name,
					      err.msg);
				continue;
			}
			ck_assert_msg(rc == 0, "%s (chunk %zu): %s", cases[c].name, chunks[k], err.msg);
			ck_assert_msg(strcmp(r.text, cases[c].want) == 0, "%s (chunk %zu): got [%s], expected [%s]",
				      cases[c].name, chunks[k], r.text, cases[c].want);
		}
}
END_TEST

Suite *jobs_suite(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("merge");
	tcase_add_test(tc, test_merge_cases);
	tcase_add_test(tc, test_jobs_auto);
	suite_add_tcase(s, tc);
	return s;
}
