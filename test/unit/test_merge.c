/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/emu/merge.c: the k-way merge over real stream files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/merge.h"
#include "suites.h"
#include "testutil.h"

static char *dir;

static void setup(void)
{
	dir = tu_mkdtemp();
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
	dir = NULL;
}

/* Streams under test; paths are owned here. */
struct set {
	struct weft_stream *s;
	int n;
};

/* Write one file per event list and open each as stream i (index i). */
static void open_set(struct set *set, struct evbuf *bufs, int n)
{
	set->s = calloc((size_t) n, sizeof(*set->s));
	ck_assert_ptr_nonnull(set->s);
	set->n = n;
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "s%d.obs", i);
		struct weft_stream *s = &set->s[i];
		s->obs_path = tu_join(dir, name);
		s->index = i;
		tu_write(s->obs_path, bufs[i].d, bufs[i].n);
		struct weft_err e = {0};
		ck_assert_msg(stream_open(s, STREAM_ORDERED, &e) == 0, "%s", e.msg);
	}
}

static void close_set(struct set *set)
{
	for (int i = 0; i < set->n; i++) {
		stream_close(&set->s[i]);
		free(set->s[i].obs_path);
	}
	free(set->s);
}

struct out {
	char mcv[4];
	int stream;
	uint64_t time;
};

/* Merge everything; returns the number of events, *rc the final status. */
static int drain(struct set *set, struct out *o, int max, int *rc, struct weft_err *e)
{
	struct weft_merge m;
	memset(e, 0, sizeof(*e));
	int n = 0;
	*rc = merge_init(&m, set->s, set->n, e);
	while (*rc == 0) {
		struct weft_ev *ev;
		int r = merge_next(&m, &ev, e);
		if (r <= 0) {
			*rc = r;
			break;
		}
		ck_assert_int_lt(n, max);
		o[n].mcv[0] = (char) ev->model;
		o[n].mcv[1] = (char) ev->cat;
		o[n].mcv[2] = (char) ev->val;
		o[n].mcv[3] = '\0';
		o[n].stream = ev->stream->index;
		o[n].time = ev->time;
		n++;
	}
	merge_free(&m);
	return n;
}

static void mkbuf(struct evbuf *b)
{
	eb_init(b, tu_host_be());
	eb_header(b);
}

START_TEST(ties_by_stream_then_position)
{
	struct evbuf b[3];
	for (int i = 0; i < 3; i++)
		mkbuf(&b[i]);
	eb_ev(&b[0], "Aaa", 10, NULL, 0);
	eb_ev(&b[0], "Bbb", 10, NULL, 0);
	eb_ev(&b[0], "Ccc", 20, NULL, 0);
	eb_ev(&b[1], "Ddd", 10, NULL, 0);
	eb_ev(&b[1], "Eee", 15, NULL, 0);
	eb_ev(&b[2], "Fff", 5, NULL, 0);
	eb_ev(&b[2], "Ggg", 10, NULL, 0);
	struct set set;
	open_set(&set, b, 3);
	struct out o[16];
	int rc;
	struct weft_err e;
	int n = drain(&set, o, 16, &rc, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	static const struct {
		const char *mcv;
		int stream;
		uint64_t time;
	} want[] = {{"Fff", 2, 5},  {"Aaa", 0, 10}, {"Bbb", 0, 10}, {"Ddd", 1, 10},
		    {"Ggg", 2, 10}, {"Eee", 1, 15}, {"Ccc", 0, 20}};
	ck_assert_int_eq(n, 7);
	for (int i = 0; i < 7; i++) {
		ck_assert_str_eq(o[i].mcv, want[i].mcv);
		ck_assert_int_eq(o[i].stream, want[i].stream);
		ck_assert(o[i].time == want[i].time);
	}
	close_set(&set);
	for (int i = 0; i < 3; i++)
		eb_free(&b[i]);
}
END_TEST

START_TEST(index_not_array_position)
{
	/* the tie-break is the stream's index, not where it sits in the array */
	struct evbuf b[2];
	mkbuf(&b[0]);
	mkbuf(&b[1]);
	eb_ev(&b[0], "Aaa", 10, NULL, 0);
	eb_ev(&b[1], "Bbb", 10, NULL, 0);
	struct set set;
	open_set(&set, b, 2);
	set.s[0].index = 7;
	set.s[1].index = 3;
	struct out o[4];
	int rc;
	struct weft_err e;
	int n = drain(&set, o, 4, &rc, &e);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(o[0].mcv, "Bbb");
	ck_assert_str_eq(o[1].mcv, "Aaa");
	close_set(&set);
	eb_free(&b[0]);
	eb_free(&b[1]);
}
END_TEST

START_TEST(clock_offsets)
{
	struct evbuf b[3];
	for (int i = 0; i < 3; i++)
		mkbuf(&b[i]);
	eb_ev(&b[0], "Aaa", 0, NULL, 0);   /* time 100 */
	eb_ev(&b[0], "Bbb", 50, NULL, 0);  /* time 150 */
	eb_ev(&b[1], "Ccc", 60, NULL, 0);  /* time 60 */
	eb_ev(&b[1], "Ddd", 120, NULL, 0); /* time 120 */
	eb_ev(&b[2], "Eee", 100, NULL, 0); /* time 90 */
	eb_ev(&b[2], "Fff", 160, NULL, 0); /* time 150 */
	struct set set;
	open_set(&set, b, 3);
	set.s[0].offset = 100;
	set.s[2].offset = -10;
	struct out o[8];
	int rc;
	struct weft_err e;
	int n = drain(&set, o, 8, &rc, &e);
	ck_assert_int_eq(rc, 0);
	static const char *const mcv[] = {"Ccc", "Eee", "Aaa", "Ddd", "Bbb", "Fff"};
	static const uint64_t time[] = {60, 90, 100, 120, 150, 150};
	ck_assert_int_eq(n, 6);
	for (int i = 0; i < 6; i++) {
		ck_assert_str_eq(o[i].mcv, mcv[i]);
		ck_assert(o[i].time == time[i]);
	}
	close_set(&set);
	for (int i = 0; i < 3; i++)
		eb_free(&b[i]);
}
END_TEST

START_TEST(inactive_and_empty_streams)
{
	struct evbuf b[3];
	for (int i = 0; i < 3; i++)
		mkbuf(&b[i]);
	eb_ev(&b[1], "Bbb", 5, NULL, 0);
	eb_ev(&b[2], "Ccc", 1, NULL, 0);
	struct set set;
	open_set(&set, b, 3); /* stream 0 has no events */
	stream_close(&set.s[2]);
	set.s[2].active = 0; /* never read */
	struct out o[4];
	int rc;
	struct weft_err e;
	int n = drain(&set, o, 4, &rc, &e);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(o[0].mcv, "Bbb");
	close_set(&set);
	for (int i = 0; i < 3; i++)
		eb_free(&b[i]);
}
END_TEST

START_TEST(no_streams)
{
	struct weft_merge m;
	struct weft_err e = {0};
	struct weft_stream none[1];
	memset(none, 0, sizeof(none));
	ck_assert_int_eq(merge_init(&m, none, 0, &e), 0);
	struct weft_ev *ev = NULL;
	ck_assert_int_eq(merge_next(&m, &ev, &e), 0);
	ck_assert_int_eq(merge_next(&m, &ev, &e), 0);
	merge_free(&m);
}
END_TEST

START_TEST(error_while_merging)
{
	struct evbuf b[2];
	mkbuf(&b[0]);
	mkbuf(&b[1]);
	eb_ev(&b[0], "Aaa", 10, NULL, 0);
	eb_ev(&b[0], "Bbb", 5, NULL, 0);
	eb_ev(&b[1], "Ccc", 7, NULL, 0);
	struct set set;
	open_set(&set, b, 2);
	struct out o[4];
	int rc;
	struct weft_err e;
	int n = drain(&set, o, 4, &rc, &e);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(o[0].mcv, "Ccc");
	ck_assert_str_eq(o[1].mcv, "Aaa");
	ck_assert_int_eq(rc, -1);
	char want[1024];
	snprintf(want, sizeof(want),
		 "%s: clock goes backwards at byte offset 20 (event Bbb): expected a clock >= 10 (the "
		 "previous event's), found 5",
		 set.s[0].obs_path);
	ck_assert_str_eq(e.msg, want);
	close_set(&set);
	eb_free(&b[0]);
	eb_free(&b[1]);
}
END_TEST

START_TEST(error_in_first_event)
{
	struct evbuf b[2];
	mkbuf(&b[0]);
	mkbuf(&b[1]);
	eb_ev(&b[0], "Aaa", 10, NULL, 0);
	eb_bytes(&b[1], "\x05junk", 5);
	struct set set;
	open_set(&set, b, 2);
	struct weft_merge m;
	struct weft_err e = {0};
	ck_assert_int_eq(merge_init(&m, set.s, 2, &e), -1);
	char want[1024];
	snprintf(want, sizeof(want),
		 "%s: truncated event at byte offset 8: expected a 12-byte event header, found 5 "
		 "bytes before the end of the file (the stream of a killed application? --salvage "
		 "reads every stream up to its last whole event)",
		 set.s[1].obs_path);
	ck_assert_str_eq(e.msg, want);
	merge_free(&m);
	close_set(&set);
	eb_free(&b[0]);
	eb_free(&b[1]);
}
END_TEST

/* ---- against a reference order ---------------------------------------------------- */

struct ref {
	uint64_t time;
	int stream, seq;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

START_TEST(many_streams_with_ties)
{
	enum { NS = 37, NE = 300 };
	struct evbuf *b = calloc(NS, sizeof(*b));
	struct ref *want = calloc(NS * NE, sizeof(*want));
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(want);
	uint64_t x = 12345;
	int nw = 0;
	for (int s = 0; s < NS; s++) {
		mkbuf(&b[s]);
		uint64_t clock = 0;
		int ne = (s % 5 == 0) ? 1 : NE - s; /* some short streams */
		for (int k = 0; k < ne; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			clock += (x >> 60) % 3; /* steps of 0, 1 or 2: many ties */
			/* the payload carries (stream, seq) to identify the event */
			uint8_t pl[8];
			uint32_t a = (uint32_t) s, q = (uint32_t) k;
			memcpy(pl, &a, 4);
			memcpy(pl + 4, &q, 4);
			eb_ev(&b[s], "Mmm", clock, pl, 8);
			want[nw].time = clock;
			want[nw].stream = s;
			want[nw].seq = k;
			nw++;
		}
	}
	qsort(want, (size_t) nw, sizeof(*want), ref_cmp);
	struct set set;
	open_set(&set, b, NS);
	struct weft_merge m;
	struct weft_err e = {0};
	ck_assert_int_eq(merge_init(&m, set.s, NS, &e), 0);
	struct weft_ev *ev;
	int n = 0, r;
	while ((r = merge_next(&m, &ev, &e)) == 1) {
		ck_assert_int_lt(n, nw);
		uint32_t a, q;
		memcpy(&a, ev->payload, 4);
		memcpy(&q, ev->payload + 4, 4);
		ck_assert_msg(ev->time == want[n].time && (int) a == want[n].stream &&
				      (int) q == want[n].seq && ev->stream->index == want[n].stream,
			      "event %d: got t=%llu s=%u q=%u, expected t=%llu s=%d q=%d", n,
			      (unsigned long long) ev->time, a, q, (unsigned long long) want[n].time,
			      want[n].stream, want[n].seq);
		n++;
	}
	ck_assert_msg(r == 0, "%s", e.msg);
	ck_assert_int_eq(n, nw);
	merge_free(&m);
	close_set(&set);
	for (int s = 0; s < NS; s++)
		eb_free(&b[s]);
	free(b);
	free(want);
}
END_TEST

/* Times further apart than a key holds exactly (with 6 streams a key keeps
 * 61 bits of time): the keys are made again from a later base, both when
 * the current stream's next event is too far ahead and when the last
 * stream with a near event ends (stream 5), and the order stays exact,
 * ties included. */
START_TEST(times_beyond_the_key_range)
{
	static const uint64_t clk[6][4] = {
		{0, 1ull << 62, 3ull << 62, UINT64_MAX},
		{5, (1ull << 62) + 1, 3ull << 62, UINT64_MAX},
		{2ull << 62, (2ull << 62) + 1, UINT64_MAX - 1, UINT64_MAX},
		{7ull << 60, 7ull << 61, (7ull << 61) + 1, UINT64_MAX},
		{(1ull << 61) + 100, 1ull << 63, (1ull << 63) + 9, UINT64_MAX - 2},
		{10},
	};
	static const int count[6] = {4, 4, 4, 4, 4, 1};
	struct evbuf b[6];
	struct {
		uint64_t time;
		int stream;
	} want[24];
	int nw = 0;
	for (int i = 0; i < 6; i++) {
		mkbuf(&b[i]);
		for (int k = 0; k < count[i]; k++) {
			eb_ev(&b[i], "Aaa", clk[i][k], NULL, 0);
			want[nw].time = clk[i][k];
			want[nw++].stream = i;
		}
	}
	/* the expected order: by time, then stream (insertion sort) */
	for (int i = 1; i < nw; i++)
		for (int j = i; j > 0 && (want[j].time < want[j - 1].time ||
					  (want[j].time == want[j - 1].time && want[j].stream < want[j - 1].stream));
		     j--) {
			__typeof__(want[0]) t = want[j];
			want[j] = want[j - 1];
			want[j - 1] = t;
		}
	struct set set;
	open_set(&set, b, 6);
	struct out o[24];
	int rc;
	struct weft_err e;
	int n = drain(&set, o, 24, &rc, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_int_eq(n, nw);
	for (int i = 0; i < nw; i++) {
		ck_assert_msg(o[i].time == want[i].time && o[i].stream == want[i].stream,
			      "event %d: stream %d time %llu, expected stream %d time %llu", i, o[i].stream,
			      (unsigned long long) o[i].time, want[i].stream, (unsigned long long) want[i].time);
	}
	close_set(&set);
	for (int i = 0; i < 6; i++)
		eb_free(&b[i]);
}
END_TEST

Suite *merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("merge");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ties_by_stream_then_position);
	tcase_add_test(tc, index_not_array_position);
	tcase_add_test(tc, clock_offsets);
	tcase_add_test(tc, inactive_and_empty_streams);
	tcase_add_test(tc, no_streams);
	tcase_add_test(tc, error_while_merging);
	tcase_add_test(tc, error_in_first_event);
	tcase_add_test(tc, many_streams_with_ties);
	tcase_add_test(tc, times_beyond_the_key_range);
	suite_add_tcase(s, tc);
	return s;
}
