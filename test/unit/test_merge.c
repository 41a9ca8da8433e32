/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/emu/merge.c: the k-way merge over real stream files. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/merge.h"
#include "trace/system.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

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

/* ---- equal times in one loom: ovniemu's player ------------------------------------ */

/* Looms for the streams of a set: stream i in loom which[i]. */
struct looms {
	struct weft_loom loom[4];
	struct weft_proc proc[4];
	struct weft_thread *th;
};

static void set_looms(struct looms *L, struct set *set, const int *which)
{
	memset(L, 0, sizeof(*L));
	for (int k = 0; k < 4; k++) {
		L->loom[k].gindex = k;
		L->proc[k].loom = &L->loom[k];
	}
	L->th = calloc((size_t) set->n, sizeof(*L->th));
	ck_assert_ptr_nonnull(L->th);
	for (int i = 0; i < set->n; i++) {
		L->th[i].proc = &L->proc[which[i]];
		set->s[i].thread = &L->th[i];
	}
}

/* Three streams of one loom at time 10, then later: ovniemu's heap has
 * them as [0, 1, 2]; taking 0 moves 2 to the root, and 1 is not strictly
 * earlier, so 2 comes before 1 (stream index order would say 0, 1, 2). */
START_TEST(one_loom_ties_as_ovniemu)
{
	struct evbuf b[3];
	for (int i = 0; i < 3; i++) {
		mkbuf(&b[i]);
		eb_ev(&b[i], i == 0 ? "Aaa" : i == 1 ? "Bbb" : "Ccc", 10, NULL, 0);
		eb_ev(&b[i], i == 0 ? "Ddd" : i == 1 ? "Eee" : "Fff", 20 + (uint64_t) i, NULL, 0);
	}
	struct set set;
	open_set(&set, b, 3);
	struct looms L;
	static const int which[3] = {0, 0, 0};
	set_looms(&L, &set, which);
	struct out o[8];
	int rc;
	struct weft_err e;
	int n = drain(&set, o, 8, &rc, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	static const char *const want[] = {"Aaa", "Ccc", "Bbb", "Ddd", "Eee", "Fff"};
	ck_assert_int_eq(n, 6);
	for (int i = 0; i < 6; i++)
		ck_assert_str_eq(o[i].mcv, want[i]);
	close_set(&set);
	free(L.th);
	for (int i = 0; i < 3; i++)
		eb_free(&b[i]);
}
END_TEST

/* Ties where the heap is shared by every loom's streams, as ovniemu's is.
 * Stream i: loom which[i], events ev[i][k] at t[i][k] (NULL ends);
 * merge_init_part returns streams [lo, hi) only (hi 0: all). */
struct tie_case {
	const char *name;
	int n, lo, hi;
	int which[4];
	const char *ev[4][3];
	uint64_t t[4][3];
	const char *want[12];
};

static const struct tie_case tie_cases[] = {
	/* ovniemu's heap [0, 1, 2]: taking 0 moves 2 to the root, 1 is not
	 * strictly earlier: loom 0's streams 1, 2 come as 2, 1 (a heap of that
	 * loom alone, [1, 2], would give 1, 2) */
	{"another loom's stream shapes the heap",
	 3,
	 0,
	 0,
	 {1, 0, 0},
	 {{"Aaa"}, {"Bbb"}, {"Ccc"}},
	 {{10}, {10}, {10}},
	 {"Aaa", "Ccc", "Bbb"}},
	/* the same sequence 0, 2, 1 over three looms: grouped by loom */
	{"an instant grouped by loom",
	 3,
	 0,
	 0,
	 {0, 1, 2},
	 {{"Aaa", "Ddd"}, {"Bbb", "Eee"}, {"Ccc", "Fff"}},
	 {{10, 20}, {10, 21}, {10, 22}},
	 {"Aaa", "Bbb", "Ccc", "Ddd", "Eee", "Fff"}},
	/* loom 1 (streams 1, 3) at 10: ovniemu takes 0, 3, 2, 1 */
	{"a loom read ahead past a later one",
	 4,
	 0,
	 0,
	 {0, 1, 2, 1},
	 {{"Aaa"}, {"Bbb"}, {"Ccc"}, {"Ddd"}},
	 {{10}, {10}, {10}, {10}},
	 {"Aaa", "Ddd", "Bbb", "Ccc"}},
	/* a stream's own equal times: ovniemu takes 0, 2, 0, 1; loom 0's
	 * three come first */
	{"a stream again at the same time",
	 3,
	 0,
	 0,
	 {0, 0, 1},
	 {{"Aaa", "Bbb"}, {"Ccc"}, {"Ddd"}},
	 {{10, 10}, {10}, {10}},
	 {"Aaa", "Bbb", "Ccc", "Ddd"}},
	/* a -j worker's part: the first case's streams 1, 2 as one run has them */
	{"a part keeps the whole heap's order",
	 3,
	 1,
	 3,
	 {1, 0, 0},
	 {{"Aaa"}, {"Bbb"}, {"Ccc"}},
	 {{10}, {10}, {10}},
	 {"Ccc", "Bbb"}},
};

START_TEST(ties_across_looms_as_ovniemu)
{
	const struct tie_case *c = &tie_cases[_i];
	struct evbuf b[4];
	for (int i = 0; i < c->n; i++) {
		mkbuf(&b[i]);
		for (int k = 0; k < 3 && c->ev[i][k]; k++)
			eb_ev(&b[i], c->ev[i][k], c->t[i][k], NULL, 0);
	}
	struct set set;
	open_set(&set, b, c->n);
	struct looms L;
	set_looms(&L, &set, c->which);
	struct weft_merge m;
	struct weft_err e = {0};
	ck_assert_int_eq(merge_init_part(&m, set.s, c->n, c->lo, c->hi ? c->hi : c->n, &e), 0);
	struct weft_ev *ev;
	int n = 0, r;
	while ((r = merge_next(&m, &ev, &e)) == 1) {
		ck_assert_msg(c->want[n], "%s: event %d (%c%c%c) beyond the expected", c->name, n, ev->model, ev->cat,
			      ev->val);
		char mcv[4] = {(char) ev->model, (char) ev->cat, (char) ev->val, 0};
		ck_assert_msg(strcmp(mcv, c->want[n]) == 0, "%s: event %d is %s, expected %s", c->name, n, mcv,
			      c->want[n]);
		ck_assert_ptr_eq(m.cur, ev->stream);
		n++;
	}
	ck_assert_msg(r == 0, "%s: %s", c->name, e.msg);
	ck_assert_msg(c->want[n] == NULL, "%s: %d events, expected more", c->name, n);
	merge_free(&m);
	close_set(&set);
	free(L.th);
	for (int i = 0; i < c->n; i++)
		eb_free(&b[i]);
}
END_TEST

/* The reference: ovniemu's player written out plainly (a 1-based array
 * heap on time alone over every stream of the trace; every step puts the
 * last stream back, then takes the top); its sequence, split by loom, is
 * then merged by (time, loom): each instant grouped by loom, each loom's
 * events in the player's order. Loop 1: by_loom 0 (a breakdown view's
 * run) returns the player's sequence itself. */
struct player {
	int heap[64 + 1]; /* stream numbers */
	int n;
};

static uint64_t ref_time(const uint64_t *const *clk, const int *pos, int s)
{
	return clk[s][pos[s]];
}

static void ref_put(struct player *p, const uint64_t *const *clk, const int *pos, int s)
{
	int i = ++p->n;
	p->heap[i] = s;
	while (i > 1 && ref_time(clk, pos, p->heap[i]) < ref_time(clk, pos, p->heap[i / 2])) {
		int t = p->heap[i];
		p->heap[i] = p->heap[i / 2];
		p->heap[i / 2] = t;
		i /= 2;
	}
}

static int ref_take(struct player *p, const uint64_t *const *clk, const int *pos)
{
	int top = p->heap[1];
	p->heap[1] = p->heap[p->n--];
	for (int i = 1;;) {
		int l = 2 * i, r = l + 1, m = i;
		if (l <= p->n && ref_time(clk, pos, p->heap[l]) < ref_time(clk, pos, p->heap[m]))
			m = l;
		if (r <= p->n && ref_time(clk, pos, p->heap[r]) < ref_time(clk, pos, p->heap[m]))
			m = r;
		if (m == i)
			break;
		int t = p->heap[i];
		p->heap[i] = p->heap[m];
		p->heap[m] = t;
		i = m;
	}
	return top;
}

START_TEST(looms_ties_against_ovniemus_player)
{
	enum { NS = 24, NE = 40, NL = 3 };
	for (int round = 0; round < 20; round++) {
		struct evbuf b[NS];
		uint64_t clkv[NS][NE];
		const uint64_t *clk[NS];
		int ne[NS], which[NS], pos[NS];
		uint64_t x = 777 + (uint64_t) round;
		for (int s = 0; s < NS; s++) {
			mkbuf(&b[s]);
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			which[s] = (int) ((x >> 40) % NL);
			ne[s] = 1 + (int) ((x >> 20) % NE);
			uint64_t c = (x >> 50) % 4;
			for (int k = 0; k < ne[s]; k++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				c += (x >> 61) % 3; /* steps of 0, 1 or 2: many ties */
				clkv[s][k] = c;
				uint8_t pl[8];
				uint32_t a = (uint32_t) s, q = (uint32_t) k;
				memcpy(pl, &a, 4);
				memcpy(pl + 4, &q, 4);
				eb_ev(&b[s], "Mmm", c, pl, 8);
			}
			clk[s] = clkv[s];
		}
		/* the player's sequence over all streams, split by loom */
		int seq[NL][NS * NE][2], nseq[NL] = {0};
		static int all[NS * NE][2];
		int nall = 0;
		{
			struct player p = {.n = 0};
			memset(pos, 0, sizeof(pos));
			for (int s = 0; s < NS; s++)
				ref_put(&p, clk, pos, s);
			int last = -1;
			for (;;) {
				if (last >= 0 && ++pos[last] < ne[last])
					ref_put(&p, clk, pos, last);
				if (p.n == 0)
					break;
				last = ref_take(&p, clk, pos);
				int l = which[last];
				seq[l][nseq[l]][0] = last;
				seq[l][nseq[l]++][1] = pos[last];
				all[nall][0] = last;
				all[nall++][1] = pos[last];
			}
		}
		struct set set;
		open_set(&set, b, NS);
		struct looms L;
		set_looms(&L, &set, which);
		/* loom ranks: the order of their first streams */
		int rank[NL], nr = 0;
		for (int l = 0; l < NL; l++)
			rank[l] = -1;
		for (int s = 0; s < NS; s++)
			if (rank[which[s]] < 0)
				rank[which[s]] = nr++;
		struct weft_merge m;
		struct weft_err e = {0};
		ck_assert_int_eq(merge_init(&m, set.s, NS, &e), 0);
		int at[NL] = {0}, n = 0, r;
		struct weft_ev *ev;
		if (_i == 1) {
			m.by_loom = 0;
			while ((r = merge_next(&m, &ev, &e)) == 1) {
				ck_assert_int_lt(n, nall);
				uint32_t a, q;
				memcpy(&a, ev->payload, 4);
				memcpy(&q, ev->payload + 4, 4);
				ck_assert_msg(
					(int) a == all[n][0] && (int) q == all[n][1],
					"round %d event %d: got stream %u #%u, expected stream %d #%d (by_loom 0)",
					round, n, a, q, all[n][0], all[n][1]);
				n++;
			}
			ck_assert_msg(r == 0, "%s", e.msg);
			ck_assert_int_eq(n, nall);
			for (int l = 0; l < NL; l++)
				at[l] = nseq[l];
		}
		while ((r = merge_next(&m, &ev, &e)) == 1) {
			/* the expected next: the earliest loom head, by (time, rank) */
			int best = -1;
			for (int l = 0; l < NL; l++) {
				if (at[l] == nseq[l])
					continue;
				uint64_t t = clk[seq[l][at[l]][0]][seq[l][at[l]][1]];
				if (best < 0 || t < clk[seq[best][at[best]][0]][seq[best][at[best]][1]] ||
				    (t == clk[seq[best][at[best]][0]][seq[best][at[best]][1]] && rank[l] < rank[best]))
					best = l;
			}
			ck_assert_int_ge(best, 0);
			uint32_t a, q;
			memcpy(&a, ev->payload, 4);
			memcpy(&q, ev->payload + 4, 4);
			ck_assert_msg((int) a == seq[best][at[best]][0] && (int) q == seq[best][at[best]][1],
				      "round %d event %d: got stream %u #%u, expected stream %d #%d", round, n, a, q,
				      seq[best][at[best]][0], seq[best][at[best]][1]);
			at[best]++;
			n++;
		}
		ck_assert_msg(r == 0, "%s", e.msg);
		for (int l = 0; l < NL; l++)
			ck_assert_int_eq(at[l], nseq[l]);
		merge_free(&m);
		close_set(&set);
		free(L.th);
		for (int s = 0; s < NS; s++)
			eb_free(&b[s]);
	}
}
END_TEST

/* A second set over the files of `src` (each its own cursor). */
static void open_again(struct set *dst, const struct set *src)
{
	dst->n = src->n;
	dst->s = calloc((size_t) src->n, sizeof(*dst->s));
	ck_assert_ptr_nonnull(dst->s);
	for (int i = 0; i < src->n; i++) {
		struct weft_stream *s = &dst->s[i];
		s->obs_path = strdup(src->s[i].obs_path);
		s->index = i;
		struct weft_err e = {0};
		ck_assert_msg(stream_open(s, STREAM_ORDERED, &e) == 0, "%s", e.msg);
	}
}

/* Every event a merge returns, as (stream, place in it) from its payload. */
static int drain_ids(struct weft_merge *m, uint32_t (*out)[2], int max)
{
	struct weft_ev *ev;
	struct weft_err e = {0};
	int n = 0, r;
	while ((r = merge_next(m, &ev, &e)) == 1) {
		ck_assert_int_lt(n, max);
		memcpy(&out[n][0], ev->payload, 4);
		memcpy(&out[n][1], ev->payload + 4, 4);
		ck_assert_ptr_eq(m->cur, ev->stream);
		n++;
	}
	ck_assert_msg(r == 0, "%s", e.msg);
	return n;
}

/* -j: one thread takes the heap's steps (merge_share_start on a merge over
 * every stream) and two followers, parts [0, cut) and [cut, n), each give
 * what merge_init_part of their part gives alone; the first is drained
 * whole before the second reads (the thread keeps the chunks it needs).
 * Many ties across three looms; the long case spans several chunks. */
START_TEST(shared_steps_as_each_part_alone)
{
	static const struct {
		int ns, ne, cut;
	} cases[] = {{24, 40, 9}, {8, 24000, 3}};
	for (size_t ci = 0; ci < ARRAY_SIZE(cases); ci++) {
		int ns = cases[ci].ns, ne = cases[ci].ne, cut = cases[ci].cut;
		struct evbuf *b = calloc((size_t) ns, sizeof(*b));
		int *which = calloc((size_t) ns, sizeof(*which));
		ck_assert_ptr_nonnull(b);
		ck_assert_ptr_nonnull(which);
		uint64_t x = 4242 + ci;
		for (int i = 0; i < ns; i++) {
			mkbuf(&b[i]);
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			which[i] = (int) ((x >> 40) % 3);
			uint64_t c = (x >> 50) % 4;
			for (int k = 0; k < ne; k++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				c += (x >> 61) % 3;
				uint8_t pl[8];
				uint32_t a = (uint32_t) i, q = (uint32_t) k;
				memcpy(pl, &a, 4);
				memcpy(pl + 4, &q, 4);
				eb_ev(&b[i], "Mmm", c, pl, 8);
			}
		}
		struct set all, part[2], ref[2];
		struct looms La, Lp[2], Lr[2];
		open_set(&all, b, ns);
		set_looms(&La, &all, which);
		struct weft_err e = {0};
		struct weft_merge mall, mp[2], mr[2];
		ck_assert_int_eq(merge_init(&mall, all.s, ns, &e), 0);
		struct merge_share *sh = merge_share_start(&mall, 2);
		ck_assert_ptr_nonnull(sh);
		int max = ns * ne + 1;
		uint32_t(*got)[2] = calloc((size_t) max, sizeof(*got));
		uint32_t(*want)[2] = calloc((size_t) max, sizeof(*want));
		ck_assert_ptr_nonnull(got);
		ck_assert_ptr_nonnull(want);
		for (int k = 0; k < 2; k++) {
			int lo = k ? cut : 0, hi = k ? ns : cut;
			open_again(&part[k], &all);
			set_looms(&Lp[k], &part[k], which);
			ck_assert_int_eq(merge_init_part(&mp[k], part[k].s, ns, lo, hi, &e), 0);
			merge_follow(&mp[k], sh, k);
			open_again(&ref[k], &all);
			set_looms(&Lr[k], &ref[k], which);
			ck_assert_int_eq(merge_init_part(&mr[k], ref[k].s, ns, lo, hi, &e), 0);
		}
		for (int k = 0; k < 2; k++) {
			int n = drain_ids(&mp[k], got, max), nw = drain_ids(&mr[k], want, max);
			ck_assert_int_eq(n, nw);
			for (int i = 0; i < n; i++)
				ck_assert_msg(got[i][0] == want[i][0] && got[i][1] == want[i][1],
					      "case %zu part %d event %d: stream %u #%u, expected stream %u #%u", ci, k,
					      i, got[i][0], got[i][1], want[i][0], want[i][1]);
			merge_share_leave(sh, k);
		}
		merge_share_end(sh);
		for (int k = 0; k < 2; k++) {
			merge_free(&mp[k]);
			merge_free(&mr[k]);
			close_set(&part[k]);
			close_set(&ref[k]);
			free(Lp[k].th);
			free(Lr[k].th);
		}
		merge_free(&mall);
		close_set(&all);
		free(La.th);
		free(got);
		free(want);
		for (int i = 0; i < ns; i++)
			eb_free(&b[i]);
		free(b);
		free(which);
	}
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
	tcase_add_test(tc, one_loom_ties_as_ovniemu);
	tcase_add_loop_test(tc, looms_ties_against_ovniemus_player, 0, 2);
	tcase_add_test(tc, shared_steps_as_each_part_alone);
	tcase_add_loop_test(tc, ties_across_looms_as_ovniemu, 0, (int) (ARRAY_SIZE(tie_cases)));
	suite_add_tcase(s, tc);
	return s;
}
