/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the emulator's sinks (src/emu/sink.h, sinks.c): a sink
 * beside the Paraver output is begun once with the run's layout, sees
 * the change stream, is ended once with success; -j 2 hands it the same
 * records as -j 1 (after the rule of SET: a repeat is no record), and so
 * does a run without the Paraver sink. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par/jobs.h"
#include "emu/paraver_out.h"
#include "emu/sinks.h"
#include "model.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

struct rec {
	int nbegin, nend, ok;
	uint64_t n, nset, nstate, ntime, hash;
	int nthreads, ncpus, has_subsystem;
	uint64_t ftime, last_time;
	int bad_chan, bad_time;
	const struct sink_layout *l;
	int64_t *last[SINK_NROWSETS]; /* by row * nchannels + chan: the last record's value */
};

#define NEVER INT64_MIN

static int rec_begin(struct sink *s, const struct sink_layout *l, struct weft_err *err)
{
	(void) err;
	struct rec *r = s->self;
	r->nbegin++;
	r->l = l;
	for (int set = 0; set < SINK_NROWSETS; set++) {
		const struct sink_rowset *rs = &l->set[set];
		r->last[set] = calloc((size_t) rs->nrows * (size_t) rs->nchannels + 1, sizeof(int64_t));
		for (int row = 0; row < rs->nrows; row++)
			for (int c = 0; c < rs->nchannels; c++)
				r->last[set][row * rs->nchannels + c] = rs->channels[c].fresh ? NEVER : 0;
	}
	r->nthreads = l->set[SINK_THREADS].nrows;
	r->ncpus = l->set[SINK_CPUS].nrows;
	for (int set = 0; set < SINK_NROWSETS; set++)
		for (int c = 0; c < l->set[set].nchannels; c++)
			if (strcmp(l->set[set].channels[c].name, "nosv.subsystem") == 0 &&
			    l->set[set].channels[c].kind == SINK_STATE && l->set[set].channels[c].nlabels > 10)
				r->has_subsystem++;
	return 0;
}

static void rec_changes(struct sink *s, const struct sink_change *c, size_t n)
{
	struct rec *r = s->self;
	for (size_t i = 0; i < n; i++) {
		const struct sink_change *x = &c[i];
		if ((x->kind == SINK_CH_SET || x->kind == SINK_CH_PUT) && x->set < SINK_NROWSETS &&
		    x->chan < r->l->set[x->set].nchannels) {
			/* the records a sink writes: a SET of the last value is none */
			int64_t *last = &r->last[x->set][x->row * r->l->set[x->set].nchannels + x->chan];
			if (x->kind == SINK_CH_SET && *last == x->value)
				continue;
			*last = x->value;
		}
		struct sink_change y = *x;
		if (y.kind == SINK_CH_SET)
			y.kind = SINK_CH_PUT; /* a record either way */
		x = &y;
		r->n++;
		r->hash = (r->hash ^
			   ((uint64_t) x->kind << 56 ^ (uint64_t) x->set << 48 ^ (uint64_t) x->chan << 32 ^ x->row)) *
			0x100000001b3ull;
		r->hash = (r->hash ^ (uint64_t) x->value) * 0x100000001b3ull;
		if (x->kind == SINK_CH_TIME) {
			r->ntime++;
			if ((uint64_t) x->value < r->last_time)
				r->bad_time++;
			r->last_time = (uint64_t) x->value;
		} else if (x->kind == SINK_CH_SET || x->kind == SINK_CH_PUT) {
			r->nset++;
			if (x->set < SINK_NROWSETS && x->chan >= r->l->set[x->set].nchannels)
				r->bad_chan++;
		} else if (x->kind == SINK_CH_STATE)
			r->nstate++;
	}
}

static int rec_end(struct sink *s, int ok, uint64_t ftime, struct weft_err *err)
{
	(void) err;
	struct rec *r = s->self;
	r->nend++;
	r->ok = ok;
	r->ftime = ftime;
	for (int set = 0; set < SINK_NROWSETS; set++)
		free(r->last[set]);
	return 0;
}

/* A run with the recording sink, after the Paraver sink or alone. */
static void run_win(const char *trace, int njobs, struct rec *r, int paraver, uint64_t from, uint64_t to)
{
	char *out = tu_mkdtemp();
	memset(r, 0, sizeof(*r));
	struct sink s = {.name = "test", .self = r, .begin = rec_begin, .changes = rec_changes, .end = rec_end};
	struct sink *par = paraver ? paraver_sink_new(out, 0) : NULL;
	struct sink *list[] = {par ? par : &s, &s};
	struct emu_opts o = {0};
	o.models = *tu_models();
	o.quiet = 1;
	o.sinks = (struct sink_list){list, par ? 2 : 1};
	if (to) {
		o.win = 1;
		o.win_from = from;
		o.win_to = to;
	}
	struct emu e;
	struct weft_err err = {0};
	int rc = emu_open(&e, trace, &o, &err);
	ck_assert_msg(rc == 0, "%s: %s", trace, err.msg);
	ck_assert_int_eq(r->nbegin, 1);
	rc = emu_run_jobs(&e, njobs, 0, &err);
	ck_assert_msg(rc == 0, "%s -j %d: %s", trace, njobs, err.msg);
	rc = emu_close(&e, &err);
	ck_assert_msg(rc == 0, "%s: %s", trace, err.msg);
	emu_free(&e);
	if (par) {
		char *prv = weft_xasprintf("%s/thread.prv", out);
		ck_assert_msg(access(prv, R_OK) == 0, "%s: no %s", trace, prv);
		free(prv);
		par->free(par);
	} else {
		char *prv = weft_xasprintf("%s/thread.prv", out);
		ck_assert_msg(access(prv, F_OK) != 0, "%s: %s written with no Paraver sink", trace, prv);
		free(prv);
	}
	ck_assert_int_eq(r->nend, 1);
	ck_assert_int_eq(r->ok, 1);
	ck_assert_int_eq(r->bad_chan, 0);
	ck_assert_int_eq(r->bad_time, 0);
	ck_assert_msg(to || (r->nset > 100 && r->nstate > 10 && r->ntime > 100), "%s: %llu sets, %llu states", trace,
		      (unsigned long long) r->nset, (unsigned long long) r->nstate);
	ck_assert_msg(r->ftime >= r->last_time, "ftime %llu before the last time %llu", (unsigned long long) r->ftime,
		      (unsigned long long) r->last_time);
	tu_rmtree(out);
	free(out);
}

static void run_with(const char *trace, int njobs, struct rec *r, int paraver)
{
	run_win(trace, njobs, r, paraver, 0, 0);
}

static void run(const char *trace, int njobs, struct rec *r)
{
	run_with(trace, njobs, r, 1);
}

START_TEST(test_sink_layout)
{
	struct rec r;
	run("test/corpus/ovni/on-small/trace", 1, &r);
	ck_assert_int_eq(r.nthreads, 8);
	ck_assert_int_eq(r.has_subsystem, 2); /* thread and CPU rows */
}
END_TEST

START_TEST(test_sink_jobs)
{
	static const char *const traces[] = {"test/corpus/ovni/o-small/trace", "test/corpus/ovni/om-small/trace",
					     "test/corpus/ovni/on-small/trace"};
	for (size_t t = 0; t < ARRAY_SIZE(traces); t++) {
		struct rec a, b;
		run(traces[t], 1, &a);
		run(traces[t], 2, &b);
		ck_assert_msg(a.n == b.n && a.hash == b.hash, "%s: -j 1 %llu records, -j 2 %llu (or other ones)",
			      traces[t], (unsigned long long) a.n, (unsigned long long) b.n);
	}
}
END_TEST

/* Paraver is one sink among others: without it the stream is the same,
 * serial or -j 2, and no Paraver file is written. */
START_TEST(test_sink_alone)
{
	static const char *const traces[] = {"test/corpus/ovni/o-small/trace", "test/corpus/ovni/on-small/trace"};
	for (size_t t = 0; t < ARRAY_SIZE(traces); t++) {
		struct rec a, b, c;
		run_with(traces[t], 1, &a, 1);
		run_with(traces[t], 1, &b, 0);
		run_with(traces[t], 2, &c, 0);
		ck_assert_msg(a.n == b.n && a.hash == b.hash, "%s: %llu records beside Paraver, %llu alone", traces[t],
			      (unsigned long long) a.n, (unsigned long long) b.n);
		ck_assert_msg(b.n == c.n && b.hash == c.hash, "%s: alone, -j 1 %llu records, -j 2 %llu", traces[t],
			      (unsigned long long) b.n, (unsigned long long) c.n);
	}
}
END_TEST

/* --from/--to in front of the sinks: times from the window's start, none
 * past its end, the first at 0 (the states open there), fewer records
 * than the whole run; the same with -j 2 and without the Paraver sink. */
START_TEST(test_sink_window)
{
	const char *trace = "test/corpus/ovni/on-small/trace";
	struct rec all, a, b, c;
	run(trace, 1, &all);
	uint64_t from = all.ftime / 3, to = 2 * (all.ftime / 3);
	run_win(trace, 1, &a, 1, from, to);
	run_win(trace, 2, &b, 1, from, to);
	run_win(trace, 1, &c, 0, from, to);
	ck_assert_msg(a.n > 10 && a.n < all.n, "%llu records in the window, %llu in the run", (unsigned long long) a.n,
		      (unsigned long long) all.n);
	ck_assert_msg(a.nstate > 0, "no state in the window");
	ck_assert_msg(a.last_time <= to - from, "a time %llu past the window's end %llu",
		      (unsigned long long) a.last_time, (unsigned long long) (to - from));
	ck_assert_msg(a.ftime == to - from, "ftime %llu, expected %llu", (unsigned long long) a.ftime,
		      (unsigned long long) (to - from));
	ck_assert_msg(a.n == b.n && a.hash == b.hash, "window: -j 1 %llu records, -j 2 %llu", (unsigned long long) a.n,
		      (unsigned long long) b.n);
	ck_assert_msg(a.n == c.n && a.hash == c.hash, "window: %llu records beside Paraver, %llu alone",
		      (unsigned long long) a.n, (unsigned long long) c.n);
}
END_TEST

Suite *sink_suite(void)
{
	Suite *s = suite_create("sink");
	TCase *tc = tcase_create("stream");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_test(tc, test_sink_layout);
	tcase_add_test(tc, test_sink_jobs);
	tcase_add_test(tc, test_sink_alone);
	tcase_add_test(tc, test_sink_window);
	suite_add_tcase(s, tc);
	return s;
}
