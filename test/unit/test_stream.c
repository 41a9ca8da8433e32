/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/trace/stream.c: raw and ordered cursors over stream.obs
 * files written into temp dirs. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/stream.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

static char *dir;
static char *path; /* dir/stream.obs */

static void setup(void)
{
	dir = tu_mkdtemp();
	path = tu_join(dir, "stream.obs");
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
	free(path);
	dir = path = NULL;
}

/* One yielded event, as the tests compare it. */
struct got {
	char mcv[4];
	uint64_t clock, off;
};

struct run {
	struct got ev[64];
	int n;          /* events yielded */
	int rc;         /* last stream_next() result: 0 end, -1 error */
	struct weft_err e;
};

static void open_file(struct weft_stream *s, enum stream_mode mode, uint64_t window)
{
	memset(s, 0, sizeof(*s));
	s->obs_path = path;
	s->window = window;
	struct weft_err e = {0};
	ck_assert_msg(stream_open(s, mode, &e) == 0, "stream_open: %s", e.msg);
	ck_assert_int_eq(s->active, 1);
}

/* Write b to the stream file and read it to the end or the first error;
 * with `salvage`, as --salvage reads it (*cut: what it dropped). */
static void run_cut(const struct evbuf *b, enum stream_mode mode, uint64_t window, int salvage, struct run *r,
		    struct weft_stream *cut)
{
	tu_write(path, b->d, b->n);
	struct weft_stream s;
	memset(&s, 0, sizeof(s));
	s.obs_path = path;
	s.window = window;
	s.salvage = salvage;
	struct weft_err oe = {0};
	ck_assert_msg(stream_open(&s, mode, &oe) == 0, "stream_open: %s", oe.msg);
	ck_assert_int_eq(s.active, 1);
	if (cut) {
		*cut = s;
		/* the size read is the cut's, the file's is kept */
		ck_assert_uint_eq(s.file_size, b->n);
		ck_assert_uint_eq(s.map.size, s.was_cut ? s.cut.off : b->n);
	}
	memset(r, 0, sizeof(*r));
	for (;;) {
		r->rc = stream_next(&s, &r->e);
		if (r->rc != 1)
			break;
		ck_assert_int_lt(r->n, 64);
		struct got *g = &r->ev[r->n++];
		g->mcv[0] = (char) s.ev.model;
		g->mcv[1] = (char) s.ev.cat;
		g->mcv[2] = (char) s.ev.val;
		g->mcv[3] = '\0';
		g->clock = s.ev.clock;
		g->off = s.ev.offset;
		ck_assert_ptr_eq(s.ev.stream, &s);
		ck_assert(s.ev.time == s.ev.clock);
	}
	if (r->rc == 0) {
		/* the end is sticky */
		struct weft_err e2 = {0};
		ck_assert_int_eq(stream_next(&s, &e2), 0);
		if (mode == STREAM_RAW) /* the count weft top reports */
			ck_assert_uint_eq(s.nevents, (uint64_t) r->n);
	}
	stream_close(&s);
	ck_assert_ptr_null(s.map.data);
	ck_assert_int_eq(s.was_cut, 0);
}

static void run(const struct evbuf *b, enum stream_mode mode, uint64_t window, struct run *r)
{
	run_cut(b, mode, window, 0, r, NULL);
}

/* Expected events as "MCV clock offset" triples. */
struct want {
	const char *mcv;
	uint64_t clock, off;
};

static void check_events(const struct run *r, const struct want *w, int n)
{
	ck_assert_int_eq(r->n, n);
	for (int i = 0; i < n; i++) {
		ck_assert_msg(strcmp(r->ev[i].mcv, w[i].mcv) == 0 && r->ev[i].clock == w[i].clock &&
				      r->ev[i].off == w[i].off,
			      "event %d: got %s %llu @%llu, expected %s %llu @%llu", i, r->ev[i].mcv,
			      (unsigned long long) r->ev[i].clock, (unsigned long long) r->ev[i].off,
			      w[i].mcv, (unsigned long long) w[i].clock, (unsigned long long) w[i].off);
	}
}

static void check_error(const struct run *r, const char *fmt_after_path)
{
	ck_assert_int_eq(r->rc, -1);
	ck_assert_int_eq(r->e.code, WEFT_EINPUT);
	char want[1024];
	snprintf(want, sizeof(want), "%s%s", path, fmt_after_path);
	ck_assert_str_eq(r->e.msg, want);
}

/* ---- plain streams ----------------------------------------------------------- */

START_TEST(raw_and_ordered_plain)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	uint8_t pl[16];
	for (int i = 0; i < 16; i++)
		pl[i] = (uint8_t) i;
	ck_assert_uint_eq(eb_ev(&b, "OHx", 10, pl, 4), 8);
	ck_assert_uint_eq(eb_ev(&b, "OHp", 10, NULL, 0), 24);
	ck_assert_uint_eq(eb_jumbo(&b, "VYc", 11, "abc", 3), 36);
	ck_assert_uint_eq(eb_ev(&b, "OHe", 20, pl, 16), 55);
	ck_assert_uint_eq(b.n, 83);
	static const struct want w[] = {
		{"OHx", 10, 8}, {"OHp", 10, 24}, {"VYc", 11, 36}, {"OHe", 20, 55}};
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	check_events(&r, w, 4);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	check_events(&r, w, 4);
	eb_free(&b);
}
END_TEST

START_TEST(payload_points_into_the_map)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "OHx", 10, "\x01\x02\x03\x04", 4);
	eb_jumbo(&b, "VYc", 11, "jumbo!", 6);
	tu_write(path, b.d, b.n);
	for (int mode = 0; mode < 2; mode++) {
		struct weft_stream s;
		struct weft_err e = {0};
		open_file(&s, mode ? STREAM_ORDERED : STREAM_RAW, 0);
		ck_assert_int_eq(stream_next(&s, &e), 1);
		ck_assert_ptr_eq(s.ev.payload, s.map.data + 20);
		ck_assert_uint_eq(s.ev.payload_len, 4);
		ck_assert_mem_eq(s.ev.payload, "\x01\x02\x03\x04", 4);
		ck_assert_int_eq(stream_next(&s, &e), 1);
		ck_assert_int_eq(s.ev.jumbo, 1);
		ck_assert_uint_eq(s.ev.payload_len, 6);
		ck_assert_ptr_eq(s.ev.payload, s.map.data + 40);
		ck_assert_mem_eq(s.ev.payload, "jumbo!", 6);
		ck_assert_int_eq(stream_next(&s, &e), 0);
		stream_close(&s);
	}
	eb_free(&b);
}
END_TEST

START_TEST(header_only_stream)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.n, 0);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.n, 0);
	eb_free(&b);
}
END_TEST

START_TEST(other_byte_order)
{
	struct evbuf b;
	eb_init(&b, !tu_host_be());
	eb_header(&b);
	eb_ev(&b, "OHx", 0x0102030405ull, NULL, 0);
	eb_jumbo(&b, "VYc", 0x0102030406ull, "ab", 2);
	eb_ev(&b, "OHe", 0x0102030404ull, NULL, 0);
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	static const struct want w[] = {{"OHx", 0x0102030405ull, 8}, {"VYc", 0x0102030406ull, 20}};
	check_events(&r, w, 2);
	check_error(&r, ": clock goes backwards at byte offset 38 (event OHe): expected a clock >= "
			"4328719366 (the previous event's), found 4328719364");
	eb_free(&b);
}
END_TEST

START_TEST(open_errors)
{
	struct weft_stream s;
	struct weft_err e = {0};
	char want[1024];
	memset(&s, 0, sizeof(s));
	s.obs_path = path;
	ck_assert_int_eq(stream_open(&s, STREAM_RAW, &e), -1);
	snprintf(want, sizeof(want), "%s: cannot open for reading: No such file or directory", path);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(s.active, 0);

	tu_write(path, "", 0);
	memset(&s, 0, sizeof(s));
	s.obs_path = path;
	ck_assert_int_eq(stream_open(&s, STREAM_ORDERED, &e), -1);
	snprintf(want, sizeof(want), "%s: empty file, expected the 8-byte stream header", path);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(s.active, 0);

	tu_write(path, "ovni\1\0\0", 7);
	memset(&s, 0, sizeof(s));
	s.obs_path = path;
	ck_assert_int_eq(stream_open(&s, STREAM_RAW, &e), -1);
	snprintf(want, sizeof(want), "%s: incomplete stream header: 7 bytes, expected at least 8", path);
	ck_assert_str_eq(e.msg, want);
	ck_assert_ptr_null(s.map.data);

	tu_write(path, "ovni\2\0\0\0", 8);
	memset(&s, 0, sizeof(s));
	s.obs_path = path;
	ck_assert_int_eq(stream_open(&s, STREAM_RAW, &e), -1);
	snprintf(want, sizeof(want),
		 "%s: unsupported stream format version at byte offset 4: expected 1 (in either byte "
		 "order), found bytes 02 00 00 00",
		 path);
	ck_assert_str_eq(e.msg, want);
	ck_assert_ptr_null(s.map.data);
}
END_TEST

/* ---- clock order ----------------------------------------------------------------- */

START_TEST(clock_backwards)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 100, NULL, 0);
	eb_ev(&b, "Bbb", 100, "xy", 2);
	eb_ev(&b, "Ccc", 50, NULL, 0);
	eb_ev(&b, "Ddd", 200, NULL, 0);
	const char *msg = ": clock goes backwards at byte offset 34 (event Ccc): expected a clock >= "
			  "100 (the previous event's), found 50";
	static const struct want w[] = {{"Aaa", 100, 8}, {"Bbb", 100, 20}};
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	check_events(&r, w, 2);
	check_error(&r, msg);
	run(&b, STREAM_ORDERED, 0, &r);
	check_events(&r, w, 2);
	check_error(&r, msg);
	eb_free(&b);
}
END_TEST

START_TEST(clock_backwards_large_values)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", UINT64_MAX, NULL, 0);
	eb_ev(&b, "Bbb", UINT64_MAX - 1, NULL, 0);
	struct run r;
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.n, 1);
	check_error(&r, ": clock goes backwards at byte offset 20 (event Bbb): expected a clock >= "
			"18446744073709551615 (the previous event's), found 18446744073709551614");
	eb_free(&b);
}
END_TEST

/* ---- unordered regions ------------------------------------------------------------ */

/* A region at the start of the stream, sorted in ordered mode and passed
 * through untouched in raw mode. */
START_TEST(region_sorted)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "OU[", 10, NULL, 0); /* 8 */
	eb_ev(&b, "Xxx", 30, NULL, 0); /* 20 */
	eb_ev(&b, "Yyy", 20, NULL, 0); /* 32 */
	eb_ev(&b, "OU]", 40, NULL, 0); /* 44 */
	eb_ev(&b, "Zzz", 45, NULL, 0); /* 56 */
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want raw[] = {
		{"OU[", 10, 8}, {"Xxx", 30, 20}, {"Yyy", 20, 32}, {"OU]", 40, 44}, {"Zzz", 45, 56}};
	check_events(&r, raw, 5);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want ord[] = {
		{"OU[", 10, 8}, {"Yyy", 20, 32}, {"Xxx", 30, 20}, {"OU]", 40, 44}, {"Zzz", 45, 56}};
	check_events(&r, ord, 5);
	eb_free(&b);
}
END_TEST

/* Events inside the region go back before events that precede the OU[. */
START_TEST(region_reaches_back)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "Bbb", 20, NULL, 0); /* 20 */
	eb_ev(&b, "OU[", 30, NULL, 0); /* 32 */
	eb_ev(&b, "Xxx", 15, NULL, 0); /* 44 */
	eb_ev(&b, "Yyy", 25, NULL, 0); /* 56 */
	eb_ev(&b, "OU]", 40, NULL, 0); /* 68 */
	eb_ev(&b, "Ccc", 50, NULL, 0); /* 80 */
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.n, 7);
	ck_assert_uint_eq(r.ev[3].clock, 15);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want ord[] = {{"Aaa", 10, 8},  {"Xxx", 15, 44}, {"Bbb", 20, 20},
					  {"Yyy", 25, 56}, {"OU[", 30, 32}, {"OU]", 40, 68},
					  {"Ccc", 50, 80}};
	check_events(&r, ord, 7);
	eb_free(&b);
}
END_TEST

/* Reaching back before every earlier event: the whole prefix is sorted. */
START_TEST(region_reaches_back_to_start)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "Bbb", 20, NULL, 0); /* 20 */
	eb_ev(&b, "OU[", 30, NULL, 0); /* 32 */
	eb_ev(&b, "Xxx", 5, NULL, 0);  /* 44 */
	eb_ev(&b, "OU]", 31, NULL, 0); /* 56 */
	struct run r;
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want ord[] = {
		{"Xxx", 5, 44}, {"Aaa", 10, 8}, {"Bbb", 20, 20}, {"OU[", 30, 32}, {"OU]", 31, 56}};
	check_events(&r, ord, 5);
	eb_free(&b);
}
END_TEST

/* A plain event after OU] that is earlier than an event inside the region
 * is not sorted in: ovnisort sorts up to the OU], so ovniemu finds the
 * clock going backwards (legal in raw mode only while the region is open). */
START_TEST(region_absorbs_later_events)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "OU[", 30, NULL, 0);  /* 8 */
	eb_ev(&b, "Xxx", 100, NULL, 0); /* 20 */
	eb_ev(&b, "OU]", 140, NULL, 0); /* 32 */
	eb_ev(&b, "Ddd", 60, NULL, 0);  /* 44 */
	eb_ev(&b, "Eee", 200, NULL, 0); /* 56 */
	const char *msg = ": clock goes backwards at byte offset 44 (event Ddd): expected a clock >= 140 (the "
			  "previous event's), found 60";
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.n, 3);
	check_error(&r, msg);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.n, 3);
	check_error(&r, msg);
	eb_free(&b);
}
END_TEST

/* A second region reaching back into the first one (ovnisort sorts it from
 * the last event before its earliest) joins its span. */
START_TEST(regions_chained)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "OU[", 10, NULL, 0); /* 8 */
	eb_ev(&b, "Xxx", 50, NULL, 0); /* 20 */
	eb_ev(&b, "OU]", 20, NULL, 0); /* 32 */
	eb_ev(&b, "OU[", 30, NULL, 0); /* 44 */
	eb_ev(&b, "Yyy", 15, NULL, 0); /* 56 */
	eb_ev(&b, "OU]", 60, NULL, 0); /* 68 */
	eb_ev(&b, "Zzz", 70, NULL, 0); /* 80 */
	struct run r;
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want ord[] = {{"OU[", 10, 8},  {"Yyy", 15, 56}, {"OU]", 20, 32}, {"OU[", 30, 44},
					  {"Xxx", 50, 20}, {"OU]", 60, 68}, {"Zzz", 70, 80}};
	check_events(&r, ord, 7);
	eb_free(&b);
}
END_TEST

/* A second region whose events go back before the first one's, but not
 * before the first one's misplaced OU]: ovnisort sorts it from just after
 * the OU] (the last event earlier than its earliest), so the OU] stays
 * after a later event and ovniemu finds the clock going backwards. */
START_TEST(regions_chained_short)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "OU[", 10, NULL, 0); /* 8 */
	eb_ev(&b, "Xxx", 50, NULL, 0); /* 20 */
	eb_ev(&b, "OU]", 20, NULL, 0); /* 32 */
	eb_ev(&b, "OU[", 30, NULL, 0); /* 44 */
	eb_ev(&b, "Yyy", 40, NULL, 0); /* 56 */
	eb_ev(&b, "OU]", 60, NULL, 0); /* 68 */
	struct run r;
	run(&b, STREAM_ORDERED, 0, &r);
	/* ovnisort's order: OU[ 10, Xxx 50, OU] 20, ... */
	static const struct want w[] = {{"OU[", 10, 8}, {"Xxx", 50, 20}};
	check_events(&r, w, 2);
	check_error(&r,
		    ": clock goes backwards at byte offset 32 (event OU]): expected a clock >= 50 "
		    "(the previous event's), found 20 (after sorting the unordered regions as "
		    "ovnisort does; a region may also reach back further than weft's look-back "
		    "window of 1048576 bytes)");
	eb_free(&b);
}
END_TEST

/* A later region reaching back further than an earlier one: the event
 * before both must wait for the later one too. */
START_TEST(later_region_reaches_further)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 50, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 60, NULL, 0); /* 20 */
	eb_ev(&b, "Xxx", 61, NULL, 0); /* 32 */
	eb_ev(&b, "OU]", 62, NULL, 0); /* 44 */
	eb_ev(&b, "OU[", 70, NULL, 0); /* 56 */
	eb_ev(&b, "Yyy", 10, NULL, 0); /* 68 */
	eb_ev(&b, "OU]", 80, NULL, 0); /* 80 */
	eb_ev(&b, "Zzz", 90, NULL, 0); /* 92 */
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.n, 8);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	static const struct want ord[] = {{"Yyy", 10, 68}, {"Aaa", 50, 8},  {"OU[", 60, 20},
					  {"Xxx", 61, 32}, {"OU]", 62, 44}, {"OU[", 70, 56},
					  {"OU]", 80, 80}, {"Zzz", 90, 92}};
	check_events(&r, ord, 8);
	eb_free(&b);
}
END_TEST

/* Equal clocks keep their file order (the sort is by clock, then offset). */
START_TEST(region_ties_keep_file_order)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 20, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 25, NULL, 0); /* 20 */
	eb_ev(&b, "Ppp", 30, NULL, 0); /* 32 */
	eb_ev(&b, "Qqq", 20, NULL, 0); /* 44 */
	eb_ev(&b, "Rrr", 30, NULL, 0); /* 56 */
	eb_ev(&b, "Sss", 20, NULL, 0); /* 68 */
	eb_ev(&b, "OU]", 30, NULL, 0); /* 80 */
	struct run r;
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want ord[] = {{"Aaa", 20, 8},  {"Qqq", 20, 44}, {"Sss", 20, 68},
					  {"OU[", 25, 20}, {"Ppp", 30, 32}, {"Rrr", 30, 56},
					  {"OU]", 30, 80}};
	check_events(&r, ord, 7);
	eb_free(&b);
}
END_TEST

START_TEST(raw_region_rules)
{
	/* raw mode: OU[ and OU] themselves must follow the clock order */
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 50, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 60, NULL, 0); /* 20 */
	eb_ev(&b, "Xxx", 1, NULL, 0);  /* 32 */
	eb_ev(&b, "OU]", 70, NULL, 0); /* 44 */
	eb_ev(&b, "Bbb", 65, NULL, 0); /* 56 */
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.n, 4);
	check_error(&r, ": clock goes backwards at byte offset 56 (event Bbb): expected a clock >= 70 "
			"(the previous event's), found 65");
	eb_free(&b);

	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 50, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 40, NULL, 0); /* 20 */
	eb_ev(&b, "OU]", 70, NULL, 0); /* 32 */
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.n, 1);
	check_error(&r, ": clock goes backwards at byte offset 20 (event OU[): expected a clock >= 50 "
			"(the previous event's), found 40");
	eb_free(&b);
}
END_TEST

START_TEST(region_beyond_window)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "Bbb", 20, NULL, 0); /* 20 */
	eb_ev(&b, "Ccc", 30, NULL, 0); /* 32 */
	eb_ev(&b, "Ddd", 40, NULL, 0); /* 44 */
	eb_ev(&b, "OU[", 50, NULL, 0); /* 56 */
	eb_ev(&b, "Xxx", 5, NULL, 0);  /* 68 */
	eb_ev(&b, "OU]", 60, NULL, 0); /* 80 */
	struct run r;
	/* a small window cannot reach back to the start */
	run(&b, STREAM_ORDERED, 12, &r);
	static const struct want w[] = {
		{"Aaa", 10, 8}, {"Bbb", 20, 20}, {"Ccc", 30, 32}, {"Ddd", 40, 44}};
	check_events(&r, w, 4);
	check_error(&r,
		    ": clock goes backwards at byte offset 68 (event Xxx): expected a clock >= 40 "
		    "(the previous event's), found 5 (after sorting the unordered regions as "
		    "ovnisort does; a region may also reach back further than weft's look-back "
		    "window of 12 bytes)");
	/* the default window does */
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want all[] = {{"Xxx", 5, 68},  {"Aaa", 10, 8},  {"Bbb", 20, 20},
					  {"Ccc", 30, 32}, {"Ddd", 40, 44}, {"OU[", 50, 56},
					  {"OU]", 60, 80}};
	check_events(&r, all, 7);
	eb_free(&b);
}
END_TEST

/* As ovnisort: a region runs from an OU[ to the first OU] after it, an OU[
 * inside being one of its events (sorted with them), the OU] keeping its
 * place; the second OU] closes nothing and is an event like others. */
START_TEST(nested_region)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 20, NULL, 0); /* 20 */
	eb_ev(&b, "Bbb", 35, NULL, 0); /* 32 */
	eb_ev(&b, "OU[", 30, NULL, 0); /* 44 */
	eb_ev(&b, "Ccc", 25, NULL, 0); /* 56 */
	eb_ev(&b, "OU]", 40, NULL, 0); /* 68 */
	eb_ev(&b, "OU]", 50, NULL, 0); /* 80 */
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.n, 7);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	static const struct want w[] = {{"Aaa", 10, 8},	 {"OU[", 20, 20}, {"Ccc", 25, 56}, {"OU[", 30, 44},
					{"Bbb", 35, 32}, {"OU]", 40, 68}, {"OU]", 50, 80}};
	check_events(&r, w, 7);
	eb_free(&b);
}
END_TEST

/* An OU] that closes no region is an event like others (ovnisort, ovniemu
 * ignore it). */
START_TEST(close_without_open)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "OU]", 20, NULL, 0); /* 20 */
	eb_ev(&b, "Bbb", 30, NULL, 0); /* 32 */
	struct run r;
	static const struct want w[] = {{"Aaa", 10, 8}, {"OU]", 20, 20}, {"Bbb", 30, 32}};
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	check_events(&r, w, 3);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	check_events(&r, w, 3);
	eb_free(&b);
}
END_TEST

/* A region never closed is not sorted (ovnisort sorts closed regions only):
 * in order, it is read as it is; out of order, the clock goes backwards. */
START_TEST(region_open_at_end)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 20, NULL, 0); /* 20 */
	eb_ev(&b, "Xxx", 30, NULL, 0); /* 32 */
	struct run r;
	static const struct want w[] = {{"Aaa", 10, 8}, {"OU[", 20, 20}, {"Xxx", 30, 32}};
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	check_events(&r, w, 3);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.rc, 0);
	check_events(&r, w, 3);
	eb_free(&b);

	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 20, NULL, 0); /* 20 */
	eb_ev(&b, "Xxx", 5, NULL, 0); /* 32 */
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.n, 3);
	check_error(&r,
		    ": clock goes backwards at byte offset 32, in an unordered region (OU[) that never "
		    "closes: expected OU] after it (ovnisort sorts only closed regions)");
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.n, 2);
	check_error(&r,
		    ": clock goes backwards at byte offset 32 (event Xxx): expected a clock >= 20 (the "
		    "previous event's), found 5");
	eb_free(&b);
}
END_TEST

/* The events after a region are not sorted with it (ovnisort sorts up to
 * the OU], which keeps its place): one earlier than the region's last, the
 * OU] included, is a clock going backwards. */
START_TEST(after_region_not_sorted)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 20, NULL, 0); /* 20 */
	eb_ev(&b, "Bbb", 50, NULL, 0); /* 32 */
	eb_ev(&b, "OU]", 40, NULL, 0); /* 44 */
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.n, 3);
	check_error(&r,
		    ": clock goes backwards at byte offset 44 (event OU]): expected a clock >= 50 (the "
		    "previous event's), found 40");
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.n, 3);
	check_error(&r,
		    ": clock goes backwards at byte offset 44 (event OU]): expected a clock >= 50 (the "
		    "previous event's), found 40");
	eb_free(&b);
}
END_TEST

/* ---- damaged bytes ------------------------------------------------------------------- */

START_TEST(truncated_tail)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "Bbb", 20, NULL, 0); /* 20 */
	eb_bytes(&b, "\x03" "Ccc" "\x01", 5); /* 32 */
	const char *msg = ": truncated event at byte offset 32: expected a 12-byte event header, found 5 "
			  "bytes before the end of the file (the stream of a killed application? --salvage reads every "
			  "stream up to its last whole event)";
	static const struct want w[] = {{"Aaa", 10, 8}, {"Bbb", 20, 20}};
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	check_events(&r, w, 2);
	check_error(&r, msg);
	run(&b, STREAM_ORDERED, 0, &r);
	check_events(&r, w, 2);
	check_error(&r, msg);
	eb_free(&b);
}
END_TEST

START_TEST(truncated_jumbo_tail)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0);            /* 8 */
	eb_jumbo(&b, "VYc", 20, "0123456789", 10); /* 20 */
	b.n -= 3;                                  /* cut the last 3 data bytes */
	const char *msg = ": truncated event VYc at byte offset 20: expected 26 bytes, found 23 before "
			  "the end of the file (the stream of a killed application? --salvage reads every "
			  "stream up to its last whole event)";
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.n, 1);
	check_error(&r, msg);
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.n, 1);
	check_error(&r, msg);
	eb_free(&b);
}
END_TEST

START_TEST(garbage_inside_region)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "OU[", 20, NULL, 0); /* 20 */
	uint8_t z[12] = {0};
	eb_bytes(&b, z, sizeof(z)); /* 32 */
	eb_ev(&b, "OU]", 30, NULL, 0);
	const char *msg = ": garbage at byte offset 32: expected an event header with a printable "
			  "MCV, found bytes 00 00 00 00";
	struct run r;
	run(&b, STREAM_RAW, 0, &r);
	ck_assert_int_eq(r.n, 2);
	check_error(&r, msg);
	/* ordered mode cannot sort the region: it stops before the OU[ */
	run(&b, STREAM_ORDERED, 0, &r);
	ck_assert_int_eq(r.n, 1);
	check_error(&r, msg);
	eb_free(&b);
}
END_TEST

/* ---- volume ----------------------------------------------------------------------------- */

struct pair {
	uint64_t clock, off;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->clock != y->clock)
		return x->clock < y->clock ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Thousands of blocks, each with a region reaching back before the plain
 * event that precedes it, read with windows from tiny to default. */
START_TEST(many_regions)
{
	enum { BLOCKS = 3000 };
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	struct pair *want = malloc(sizeof(*want) * BLOCKS * 6);
	ck_assert_ptr_nonnull(want);
	size_t n = 0;
	for (uint64_t i = 0; i < BLOCKS; i++) {
		uint64_t t = 1000 + 1000 * i;
		static const struct {
			const char *mcv;
			int64_t dt;
		} blk[] = {{"Ppp", 0}, {"OU[", 100}, {"Xxx", 90}, {"Yyy", -10}, {"Zzz", 150}, {"OU]", 200}};
		for (int k = 0; k < 6; k++) {
			uint64_t c = (uint64_t) ((int64_t) t + blk[k].dt);
			size_t off = eb_ev(&b, blk[k].mcv, c, k == 4 ? "pp" : NULL, k == 4 ? 2 : 0);
			want[n].clock = c;
			want[n].off = off;
			n++;
		}
	}
	qsort(want, n, sizeof(*want), pair_cmp);
	tu_write(path, b.d, b.n);
	static const uint64_t windows[] = {100, 4096, 0};
	for (size_t w = 0; w < ARRAY_SIZE(windows); w++) {
		struct weft_stream s;
		open_file(&s, STREAM_ORDERED, windows[w]);
		struct weft_err e = {0};
		size_t i = 0;
		int r;
		while ((r = stream_next(&s, &e)) == 1) {
			ck_assert_uint_lt(i, n);
			ck_assert_msg(s.ev.clock == want[i].clock && s.ev.offset == want[i].off,
				      "window %llu, event %zu: got %llu @%llu, expected %llu @%llu",
				      (unsigned long long) windows[w], i,
				      (unsigned long long) s.ev.clock, (unsigned long long) s.ev.offset,
				      (unsigned long long) want[i].clock,
				      (unsigned long long) want[i].off);
			i++;
		}
		ck_assert_msg(r == 0, "window %llu: %s", (unsigned long long) windows[w], e.msg);
		ck_assert_uint_eq(i, n);
		stream_close(&s);
	}
	/* raw mode accepts the file as it is */
	struct weft_stream s;
	open_file(&s, STREAM_RAW, 0);
	struct weft_err e = {0};
	size_t i = 0;
	int r;
	while ((r = stream_next(&s, &e)) == 1)
		i++;
	ck_assert_msg(r == 0, "raw: %s", e.msg);
	ck_assert_uint_eq(i, n);
	stream_close(&s);
	free(want);
	eb_free(&b);
}
END_TEST

/* Many streams read side by side give back their pages in smaller steps,
 * so that their resident pages together stay near MAP_RELEASE_BUDGET; a
 * step is whole fault-around blocks (MAP_BLOCK), at least one. */
START_TEST(release_step_by_streams)
{
	static const struct {
		size_t n, step;
	} c[] = {
		{0, 2u << 20},	{1, 2u << 20},	   {32, 2u << 20},    {33, 31u << 16},
		{64, 1u << 20}, {1024, 64u << 10}, {4096, 64u << 10}, {10000, 64u << 10},
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		ck_assert_msg(map_release_step(c[i].n) == c[i].step, "%zu streams: step %zu, expected %zu", c[i].n,
			      map_release_step(c[i].n), c[i].step);
}
END_TEST

/* The pages of m that are mapped (/proc/self/pagemap's present bit): *below
 * those under offset `below`, *all of them. 0, or -1 when pagemap cannot be
 * read (the test then checks nothing). */
static int mapped_pages(const struct mapfile *m, size_t below, size_t *nbelow, size_t *nall)
{
	size_t page = (size_t) sysconf(_SC_PAGESIZE), np = (m->size + page - 1) / page;
	uint64_t *pm = malloc(np * sizeof(*pm));
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t want = (ssize_t) (np * sizeof(*pm));
	int ok = fd >= 0 && pm &&
		pread(fd, pm, (size_t) want, (off_t) ((uintptr_t) m->data / page * sizeof(*pm))) == want;
	if (fd >= 0)
		close(fd);
	*nbelow = *nall = 0;
	for (size_t i = 0; ok && i < np; i++)
		if (pm[i] >> 63) {
			(*nall)++;
			*nbelow += i * page + page <= below;
		}
	free(pm);
	return ok ? 0 : -1;
}

/* Pages given back stay out: a stream read to its end in steps of one
 * block, each event's payload read after stream_next returns it (as the
 * merge does, later), keeps nothing mapped more than MAP_REACH below
 * `released` and a few blocks in all wherever it is, whatever the size of
 * the file: with drift (every event on the slow path) and without, in raw
 * and ordered mode, from a file written in 4 KiB pieces (small folios:
 * fault-around maps 64 KiB blocks), in 256 KiB pieces and in one piece
 * (folios of that size, up to 2 MiB, which Linux 6.18 maps whole on one
 * fault). */
START_TEST(released_pages_stay_out)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	uint64_t n = 0;
	while (b.n < (12u << 20) + 12345)
		eb_ev(&b, "Aaa", 1000 + 10 * n++, "\x01\x02\x03\x04\x05\x06\x07", 7);
	size_t page = (size_t) sysconf(_SC_PAGESIZE);
	static const size_t piece[] = {4096, 256u << 10, 0}; /* 0: at once */
	for (int c = 0; c < 12; c++) {
		size_t pieces = piece[c / 4];
		if (c % 4 == 0) {
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			ck_assert_int_ge(fd, 0);
			for (size_t o = 0, k; o < b.n; o += k) {
				k = pieces && b.n - o > pieces ? pieces : b.n - o;
				ck_assert_int_eq(write(fd, b.d + o, k), (ssize_t) k);
			}
			close(fd);
		}
		struct weft_stream s;
		open_file(&s, c & 1 ? STREAM_ORDERED : STREAM_RAW, 0);
		s.map.step = MAP_BLOCK;
		s.drift = c & 2 ? 30000000 : 0; /* 30 ppm */
		struct weft_err e = {0};
		uint64_t i = 0;
		unsigned sum = 0;
		int r, checked = 0;
		size_t most = pieces == 4096 ? 8 * MAP_BLOCK : s.map.step + 2 * MAP_REACH + 2 * MAP_BLOCK;
		while ((r = stream_next(&s, &e)) == 1) {
			sum += s.ev.payload[6]; /* read after the cursor moved on */
			if (++i % 997)
				continue;
			size_t below, all;
			size_t lo = s.map.released > MAP_REACH ? s.map.released - MAP_REACH : 0;
			if (mapped_pages(&s.map, lo, &below, &all))
				break;
			checked++;
			ck_assert_msg(below == 0 && all * page <= most,
				      "%s, drift %lld, written in pieces of %zu (0: at once), event %llu: %zu pages "
				      "mapped, %zu of them below %zu",
				      c & 1 ? "ordered" : "raw", (long long) s.drift, pieces, (unsigned long long) i,
				      all, below, lo);
		}
		ck_assert_msg(r == 1 || r == 0, "%s", e.msg);
		ck_assert(checked == 0 || i == n);
		ck_assert_uint_eq(sum, 7 * (unsigned) i);
		stream_close(&s);
	}
	eb_free(&b);
}
END_TEST

/* ---- --salvage: a stream cut mid-event ------------------------------------------------ */

/* Both modes read b with --salvage to its end without an error, yield the
 * n events of w, and drop what `want` says (was_cut 0: nothing); what
 * names the case in a failure. */
static void salvaged(const char *what, const struct evbuf *b, const struct want *w, int n,
		     const struct weft_stream *want)
{
	static const enum stream_mode modes[] = {STREAM_RAW, STREAM_ORDERED};
	for (int m = 0; m < 2; m++) {
		struct run r;
		struct weft_stream c;
		run_cut(b, modes[m], 0, 1, &r, &c);
		ck_assert_msg(r.rc == 0, "%s, mode %d: %s", what, m, r.e.msg);
		check_events(&r, w, n);
		ck_assert_msg(c.was_cut == want->was_cut, "%s, mode %d: was_cut %d, expected %d", what, m, c.was_cut,
			      want->was_cut);
		if (!want->was_cut)
			continue;
		ck_assert_msg(
			c.cut.off == want->cut.off && c.cut.dropped == want->cut.dropped &&
				c.cut.need == want->cut.need && strcmp(c.cut.mcv, want->cut.mcv) == 0,
			"%s, mode %d: cut at %llu, %llu dropped of %llu, MCV '%s'; expected %llu, %llu of %llu, '%s'",
			what, m, (unsigned long long) c.cut.off, (unsigned long long) c.cut.dropped,
			(unsigned long long) c.cut.need, c.cut.mcv, (unsigned long long) want->cut.off,
			(unsigned long long) want->cut.dropped, (unsigned long long) want->cut.need, want->cut.mcv);
	}
}

/* The streams of the salvage cases: a file header, Aaa at clock 10 (byte
 * offset 8), then one of these from offset 20. */
enum salvage_tail {
	TAIL_BBB, /* Bbb at 20, no payload: 12 bytes, the file 32 */
	TAIL_BBB_CCC, /* Bbb, then 5 of the 16 bytes of Ccc at 32: 37 */
	TAIL_BBB_PAYLOAD, /* Bbb with an 8-byte payload: 20 bytes, 40 */
	TAIL_JUMBO, /* VYc, a jumbo of 10 bytes at 20: 26 bytes, 46 */
};

static void salvage_stream(struct evbuf *b, int other_order, enum salvage_tail tail)
{
	eb_init(b, other_order ? !tu_host_be() : tu_host_be());
	eb_header(b);
	eb_ev(b, "Aaa", 10, NULL, 0);
	switch (tail) {
	case TAIL_BBB:
		eb_ev(b, "Bbb", 20, NULL, 0);
		break;
	case TAIL_BBB_CCC:
		eb_ev(b, "Bbb", 20, NULL, 0);
		eb_bytes(b, "\003Ccc\001", 5);
		break;
	case TAIL_BBB_PAYLOAD:
		eb_ev(b, "Bbb", 20, "12345678", 8);
		break;
	case TAIL_JUMBO:
		eb_jumbo(b, "VYc", 20, "0123456789", 10);
		break;
	}
}

/* Each stream cut to len bytes: the first nw events of Aaa, Bbb come
 * back, and the cut is the one said (was_cut 0: the stream is whole). */
START_TEST(salvage_cuts)
{
	static const struct want ev[] = {{"Aaa", 10, 8}, {"Bbb", 20, 20}};
	static const struct {
		const char *what;
		int other_order;
		enum salvage_tail tail;
		size_t len;
		int nw, was_cut;
		struct obs_cut cut;
	} c[] = {
		{"a header cut after its MCV", 0, TAIL_BBB_CCC, 37, 2, 1, {32, 5, 16, "Ccc"}},
		{"the MCV cut too: the size from the flags", 0, TAIL_BBB_CCC, 34, 2, 1, {32, 2, 16, ""}},
		{"the flags byte alone", 0, TAIL_BBB_CCC, 33, 2, 1, {32, 1, 16, ""}},
		{"a jumbo's payload cut", 0, TAIL_JUMBO, 43, 1, 1, {20, 23, 26, "VYc"}},
		{"inside a jumbo's length word: the size not known", 0, TAIL_JUMBO, 34, 1, 1, {20, 14, 0, "VYc"}},
		{"a plain event's payload cut", 0, TAIL_BBB_PAYLOAD, 39, 1, 1, {20, 19, 20, "Bbb"}},
		{"a whole stream: nothing dropped", 0, TAIL_BBB, 32, 2, 0, {0}},
		{"cut before the first event: no event", 0, TAIL_BBB, 15, 0, 1, {8, 7, 12, "Aaa"}},
		{"the other byte order: the length word read in it", 1, TAIL_JUMBO, 45, 1, 1, {20, 25, 26, "VYc"}},
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct evbuf b;
		salvage_stream(&b, c[i].other_order, c[i].tail);
		ck_assert_msg(c[i].len <= b.n, "%s: the stream has %zu bytes, not %zu", c[i].what, b.n, c[i].len);
		b.n = c[i].len;
		struct weft_stream want = {.was_cut = c[i].was_cut, .cut = c[i].cut};
		salvaged(c[i].what, &b, ev, c[i].nw, &want);
		eb_free(&b);
	}
}
END_TEST

START_TEST(salvage_not_garbage)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_bytes(&b, "\003C\001", 3); /* 20: an unprintable MCV byte */
	struct run r;
	struct weft_stream c;
	run_cut(&b, STREAM_RAW, 0, 1, &r, &c);
	ck_assert_int_eq(c.was_cut, 0);
	ck_assert_int_eq(r.n, 1);
	check_error(&r,
		    ": truncated event at byte offset 20: expected a 12-byte event header, found 3 "
		    "bytes before the end of the file (not salvaged: the bytes there are not the "
		    "start of an event, their MCV is not printable)");
	/* bad bytes before a cut: the cut is not salvaged, the error stays */
	eb_free(&b);
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0); /* 8 */
	eb_ev(&b, "B\001b", 20, NULL, 0); /* 20 */
	eb_bytes(&b, "\003Ccc", 4); /* 32 */
	run_cut(&b, STREAM_ORDERED, 0, 1, &r, &c);
	ck_assert_int_eq(c.was_cut, 0);
	ck_assert_int_eq(r.n, 1);
	check_error(&r,
		    ": garbage at byte offset 20: expected an event header with a printable MCV, "
		    "found bytes 00 42 01 62");
	struct obs_cut oc;
	ck_assert_int_eq(obs_find_cut(b.d, b.n, 0, &oc), 0);
	eb_free(&b);
}
END_TEST

START_TEST(salvage_reopen)
{
	/* stream_close gives back the whole map; a reopen finds the cut again */
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_header(&b);
	eb_ev(&b, "Aaa", 10, NULL, 0);
	eb_bytes(&b, "\003Ccc", 4);
	tu_write(path, b.d, b.n);
	struct weft_stream s;
	memset(&s, 0, sizeof(s));
	s.obs_path = path;
	s.salvage = 1;
	struct weft_err e = {0};
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(stream_open(&s, STREAM_ORDERED, &e), 0);
		ck_assert_int_eq(s.was_cut, 1);
		ck_assert_uint_eq(s.map.size, 20);
		ck_assert_int_eq(stream_next(&s, &e), 1);
		ck_assert_int_eq(stream_next(&s, &e), 0);
		stream_close(&s);
		ck_assert_int_eq(s.was_cut, 0);
	}
	eb_free(&b);
}
END_TEST

Suite *stream_suite(void)
{
	Suite *s = suite_create("stream");
	TCase *tc = tcase_create("plain");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, raw_and_ordered_plain);
	tcase_add_test(tc, payload_points_into_the_map);
	tcase_add_test(tc, header_only_stream);
	tcase_add_test(tc, release_step_by_streams);
	tcase_add_test(tc, released_pages_stay_out);
	tcase_add_test(tc, other_byte_order);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, clock_backwards);
	tcase_add_test(tc, clock_backwards_large_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("regions");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, region_sorted);
	tcase_add_test(tc, region_reaches_back);
	tcase_add_test(tc, region_reaches_back_to_start);
	tcase_add_test(tc, region_absorbs_later_events);
	tcase_add_test(tc, regions_chained);
	tcase_add_test(tc, later_region_reaches_further);
	tcase_add_test(tc, region_ties_keep_file_order);
	tcase_add_test(tc, raw_region_rules);
	tcase_add_test(tc, region_beyond_window);
	tcase_add_test(tc, nested_region);
	tcase_add_test(tc, close_without_open);
	tcase_add_test(tc, region_open_at_end);
	tcase_add_test(tc, after_region_not_sorted);
	tcase_add_test(tc, regions_chained_short);
	tcase_add_test(tc, many_regions);
	suite_add_tcase(s, tc);

	tc = tcase_create("damaged");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, truncated_tail);
	tcase_add_test(tc, truncated_jumbo_tail);
	tcase_add_test(tc, garbage_inside_region);
	suite_add_tcase(s, tc);

	tc = tcase_create("salvage");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, salvage_cuts);
	tcase_add_test(tc, salvage_not_garbage);
	tcase_add_test(tc, salvage_reopen);
	suite_add_tcase(s, tc);
	return s;
}
