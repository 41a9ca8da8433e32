/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/otf2/: the OTF2 sink turns a layout and its change
 * records into an archive whose events (read back with otf2-print) are
 * the records' regions, metrics and messages at their times; a send waits
 * for its receive and the sender's later events wait behind it; a failed
 * run leaves nothing. Without OTF2 the sink says so. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf2/otf2_sink.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

static const struct sink_label state_labels[] = {{.value = 1, .label = "Running"}, {.value = 2, .label = "Paused"}};
static const struct sink_label sub_labels[] = {{.value = 5, .label = "Idle"}};
static const struct sink_channel th_channels[] = {
	{.name = "t.subsystem",
	 .model = 't',
	 .title = "Subsystem",
	 .kind = SINK_STATE,
	 .labels = sub_labels,
	 .nlabels = 1},
	{.name = "t.counter", .model = 't', .title = "Counter", .kind = SINK_VALUE},
};
static const struct sink_loom looms[] = {{.name = "node1", .hostname = "node1", .first_cpu = 0, .ncpus = 2}};
static const struct sink_proc procs[] = {{.loom = 0, .pid = 100, .appid = 1, .rank = -1, .first_row = 0, .nrows = 2}};
static const struct sink_row th_rows[] = {
	{.loom = 0, .proc = 0, .tid = 100, .cpu = -1, .stream = 0, .name = "THREAD 1.1.1"},
	{.loom = 0, .proc = 0, .tid = 101, .cpu = -1, .stream = 1, .name = "THREAD 1.1.2"},
};
static const struct sink_row cpu_rows[] = {
	{.loom = 0, .proc = -1, .tid = -1, .cpu = 0, .stream = -1, .name = "CPU 0.0"},
	{.loom = 0, .proc = -1, .tid = -1, .cpu = -1, .stream = -1, .name = "vCPU 0"},
};

static struct sink_layout layout(void)
{
	struct sink_layout l = {.set = {{.name = "thread",
					 .nrows = 2,
					 .rows = th_rows,
					 .nchannels = 2,
					 .channels = th_channels,
					 .state_labels = state_labels,
					 .nstate_labels = 2},
					{.name = "cpu", .nrows = 2, .rows = cpu_rows}},
				.nlooms = 1,
				.nprocs = 1,
				.looms = looms,
				.procs = procs,
				.trace = "t",
				.clock_ns = 1};
	return l;
}

#define T(t)                                       \
	{                                          \
		.kind = SINK_CH_TIME, .value = (t) \
	}
#define ST(r, v)                                                \
	{                                                       \
		.kind = SINK_CH_STATE, .row = (r), .value = (v) \
	}
#define SET(r, c, v)                                                       \
	{                                                                  \
		.kind = SINK_CH_SET, .row = (r), .chan = (c), .value = (v) \
	}
#define PUT(r, c, v)                                                       \
	{                                                                  \
		.kind = SINK_CH_PUT, .row = (r), .chan = (c), .value = (v) \
	}

static const struct sink_change run[] = {
	T(10),
	ST(0, 1),
	SET(0, 0, 5),
	SET(0, 1, 0),
	T(20),
	SET(0, 1, 7),
	SET(0, 1, 7),
	{.kind = SINK_CH_SEND, .row = 0, .value = 3},
	T(25),
	ST(0, 2),
	PUT(0, 0, 5),
	T(30),
	{.kind = SINK_CH_RECV, .row = 1, .value = 0},
	T(40),
	SET(0, 0, 0),
	{.kind = SINK_CH_SEND, .row = 1, .value = 4},
	T(45),
	SET(1, 1, 2),
};

/* otf2-print's event lines of DIR's archive, reduced to
 * "EVENT LOC TIME ATTRS" and joined with ';'. */
static char *events(const char *dir)
{
	char cmd[4200], line[1024];
	static char out[8192];
	snprintf(cmd, sizeof(cmd), "otf2-print '%s/traces.otf2' 2>&1", dir);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	out[0] = '\0';
	while (fgets(line, sizeof(line), p)) {
		char ev[64], rest[900];
		unsigned loc;
		unsigned long long t;
		if (sscanf(line, "%63s %u %llu %899[^\n]", ev, &loc, &t, rest) < 3)
			continue;
		if (!strcmp(ev, "EVENT") || !strcmp(ev, "==="))
			continue;
		for (char *s = rest; *s; s++)
			if (*s == ' ' && s[1] == ' ')
				memmove(s, s + 1, strlen(s));
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s %u %llu %s", out[0] ? ";" : "", ev, loc, t,
			 rest);
	}
	pclose(p);
	return out;
}

START_TEST(records_become_events)
{
	if (!otf2_sink_available() || system("command -v otf2-print >/dev/null 2>&1"))
		return; /* built without OTF2: see without_otf2 */
	char *d = tu_mkdtemp(), *dir = tu_join(d, "out");
	struct weft_err err = {0};
	struct sink *s = otf2_sink_new(dir, &err);
	ck_assert_msg(s, "%s", err.msg);
	struct sink_layout l = layout();
	ck_assert_int_eq(s->begin(s, &l, &err), 0);
	s->changes(s, run, ARRAY_SIZE(run));
	ck_assert_msg(s->end(s, 1, 50, &err) == 0, "%s", err.msg);
	s->free(s);
	/* the first 0 of a channel that is not fresh and the repeated 7 are no
	 * records; the state at 25 waits behind the send at 20 until its
	 * receive at 30; a PUT of the value shown leaves and enters again; the
	 * send at 40 is never received: not written */
	const char *want =
		"ENTER 0 10 Region: \"Running\" <0>;"
		"ENTER 4 10 Region: \"Idle\" <1>;"
		"METRIC 0 20 Metric: 0, 1 Value: (\"t.counter\" <0>; INT64; 7);"
		"MPI_SEND 0 20 Receiver: 1 (\"THREAD 1.1.2\" <1>), Communicator: \"weft messages\" <0>, Tag: 3, Length: 0;"
		"LEAVE 0 25 Region: \"Running\" <0>;"
		"ENTER 0 25 Region: \"Paused\" <2>;"
		"LEAVE 4 25 Region: \"Idle\" <1>;"
		"ENTER 4 25 Region: \"Idle\" <1>;"
		"MPI_RECV 1 30 Sender: 0 (\"THREAD 1.1.1\" <0>), Communicator: \"weft messages\" <0>, Tag: 3, Length: 0;"
		"LEAVE 4 40 Region: \"Idle\" <1>;"
		"METRIC 1 45 Metric: 0, 1 Value: (\"t.counter\" <0>; INT64; 2)";
	ck_assert_str_eq(events(dir), want);
	tu_rmtree(d);
	free(dir);
	free(d);
}
END_TEST

START_TEST(failed_run_leaves_nothing)
{
	if (!otf2_sink_available())
		return;
	char *d = tu_mkdtemp(), *dir = tu_join(d, "out");
	struct weft_err err = {0};
	struct sink *s = otf2_sink_new(dir, &err);
	ck_assert_msg(s, "%s", err.msg);
	struct sink_layout l = layout();
	ck_assert_int_eq(s->begin(s, &l, &err), 0);
	s->changes(s, run, 5);
	ck_assert_int_eq(s->end(s, 0, 50, &err), 0);
	s->free(s);
	struct stat st;
	ck_assert_int_ne(stat(dir, &st), 0);
	tu_rmtree(d);
	free(dir);
	free(d);
}
END_TEST

START_TEST(without_otf2)
{
	if (otf2_sink_available())
		return;
	struct weft_err err = {0};
	ck_assert_ptr_null(otf2_sink_new("/nonexistent/x", &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "built without OTF2"));
}
END_TEST

Suite *otf2_suite(void)
{
	Suite *s = suite_create("otf2");
	TCase *tc = tcase_create("otf2");
	tcase_add_test(tc, records_become_events);
	tcase_add_test(tc, failed_run_leaves_nothing);
	tcase_add_test(tc, without_otf2);
	suite_add_tcase(s, tc);
	return s;
}
