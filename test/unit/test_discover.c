/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/trace/discover.c: stream discovery in temp dirs. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/discover.h"
#include "suites.h"
#include "testutil.h"

static char *root;

static void setup(void)
{
	root = tu_mkdtemp();
}

static void teardown(void)
{
	tu_rmtree(root);
	free(root);
	root = NULL;
}

/* Create root/rel/name (and the directories above it) with some bytes. */
static void touch(const char *rel, const char *name)
{
	char *dir = tu_join(root, rel);
	tu_mkdirs(dir);
	char *f = tu_join(dir, name);
	tu_write_str(f, "x");
	free(f);
	free(dir);
}

static void stream(const char *rel)
{
	touch(rel, "stream.json");
	touch(rel, "stream.obs");
}

static void expect_streams(const char *const *want, int n)
{
	struct weft_found f;
	struct weft_err e = {0};
	int rc = discover_streams(root, &f, &e);
	ck_assert_msg(rc == 0, "discover: %s", e.msg);
	ck_assert_int_eq(f.n, n);
	for (int i = 0; i < n; i++)
		ck_assert_str_eq(f.rel[i], want[i]);
	discover_free(&f);
	ck_assert_int_eq(f.n, 0);
	ck_assert_ptr_null(f.rel);
}

static void expect_error(const char *dir, const char *msg)
{
	struct weft_found f;
	struct weft_err e = {0};
	ck_assert_int_eq(discover_streams(dir, &f, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, msg);
	ck_assert_int_eq(f.n, 0);
	ck_assert_ptr_null(f.rel);
}

START_TEST(sorted_bytewise)
{
	stream("loom.a/proc.1/thread.99");
	stream("loom.a/proc.1/thread.100");
	stream("loom.a/proc.1/thread.9");
	stream("loom.a/proc.10/thread.1");
	stream("loom.a/proc.2/thread.1");
	stream("loom.B/proc.1/thread.1");
	stream("loom.a.b/proc.1/thread.1");
	static const char *const want[] = {
		"loom.B/proc.1/thread.1",   "loom.a.b/proc.1/thread.1", "loom.a/proc.1/thread.100",
		"loom.a/proc.1/thread.9",   "loom.a/proc.1/thread.99",  "loom.a/proc.10/thread.1",
		"loom.a/proc.2/thread.1",
	};
	expect_streams(want, 7);
}
END_TEST

START_TEST(stream_at_root_and_any_depth)
{
	/* any directory holding stream.json is a stream, whatever its name */
	stream(".");
	stream("x");
	stream("deep/er/and/deeper");
	touch("other", "notes.txt");
	touch(".", "clock-offsets.txt");
	static const char *const want[] = {".", "deep/er/and/deeper", "x"};
	expect_streams(want, 3);
}
END_TEST

START_TEST(symlinks_followed_loops_skipped)
{
	stream("real/thread.1");
	char *target = tu_join(root, "real");
	char *link = tu_join(root, "link");
	ck_assert_int_eq(symlink(target, link), 0);
	char *loop = tu_join(root, "real/up");
	ck_assert_int_eq(symlink(root, loop), 0);
	char *dangling = tu_join(root, "dangling");
	ck_assert_int_eq(symlink("/nonexistent/weft/target", dangling), 0);
	/* one directory, one stream (issue 24): named by the first path in
	 * byte order */
	static const char *const want[] = {"link/thread.1"};
	expect_streams(want, 1);
	free(target);
	free(link);
	free(loop);
	free(dangling);
}
END_TEST

START_TEST(obs_without_json)
{
	stream("loom.a/proc.1/thread.1");
	touch("loom.a/proc.1/thread.2", "stream.obs");
	char msg[1024];
	snprintf(msg, sizeof(msg),
		 "%s/loom.a/proc.1/thread.2: stream.obs without stream.json: the stream's metadata "
		 "is missing (the thread may not have finished)",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(json_without_obs)
{
	touch("t", "stream.json");
	char msg[1024];
	snprintf(msg, sizeof(msg), "%s/t: stream.json without stream.obs: a stream needs both files",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(json_without_obs_at_root)
{
	touch(".", "stream.json");
	char msg[1024];
	snprintf(msg, sizeof(msg), "%s: stream.json without stream.obs: a stream needs both files",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(first_bad_directory_is_reported)
{
	/* several bad directories: the report must not depend on readdir order */
	touch("b", "stream.json");
	touch("a", "stream.obs");
	touch("c", "stream.json");
	char msg[1024];
	snprintf(msg, sizeof(msg),
		 "%s/a: stream.obs without stream.json: the stream's metadata is missing (the thread "
		 "may not have finished)",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(stream_files_as_directories)
{
	/* a directory named stream.obs is not the stream file */
	touch("t", "stream.json");
	touch("t/stream.obs", "x");
	char msg[1024];
	snprintf(msg, sizeof(msg), "%s/t: stream.json without stream.obs: a stream needs both files",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(empty_dir)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), "no ovni streams found under %s", root);
	expect_error(root, msg);
	/* unrelated files and directories are still no streams */
	touch("a/b", "readme");
	touch(".", "thread.json.bak");
	expect_error(root, msg);
}
END_TEST

START_TEST(v1_layout)
{
	touch("loom.n/proc.1", "metadata.json");
	touch("loom.n/proc.1", "thread.1.obs");
	touch("loom.n/proc.1", "thread.2.obs");
	char msg[1024];
	snprintf(msg, sizeof(msg),
		 "%s: this is an ovni trace format v1 (written by libovni 1.4 or earlier; found "
		 "loom.n/proc.1/metadata.json); weft reads format v3 (libovni 1.11 or later, "
		 "stream.json + stream.obs)",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(v1_layout_threads_only)
{
	touch("loom.n/proc.1", "thread.20.obs");
	touch("loom.n/proc.1", "thread.100.obs");
	touch("loom.m/proc.1", "thread.3.obs");
	char msg[1024];
	snprintf(msg, sizeof(msg),
		 "%s: this is an ovni trace format v1 (written by libovni 1.4 or earlier; found "
		 "loom.m/proc.1/thread.3.obs); weft reads format v3 (libovni 1.11 or later, "
		 "stream.json + stream.obs)",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(v2_layout)
{
	touch("loom.n/proc.1", "metadata.json");
	touch("loom.n/proc.1", "thread.5.obs");
	touch("loom.n/proc.1", "thread.5.json");
	touch("loom.n/proc.1", "thread.10.obs");
	touch("loom.n/proc.1", "thread.10.json");
	char msg[1024];
	snprintf(msg, sizeof(msg),
		 "%s: this is an ovni trace format v2 (written by libovni 1.5 to 1.10; found "
		 "loom.n/proc.1/thread.10.json); weft reads format v3 (libovni 1.11 or later, "
		 "stream.json + stream.obs)",
		 root);
	expect_error(root, msg);
}
END_TEST

START_TEST(old_files_beside_streams_ignored)
{
	/* once there are v3 streams, leftovers of old layouts do not matter */
	stream("loom.n/proc.1/thread.1");
	touch("loom.n/proc.1", "metadata.json");
	touch("loom.n/proc.1", "thread.1.json");
	static const char *const want[] = {"loom.n/proc.1/thread.1"};
	expect_streams(want, 1);
}
END_TEST

START_TEST(not_a_directory)
{
	char *f = tu_join(root, "file");
	tu_write_str(f, "hello");
	char msg[1024];
	snprintf(msg, sizeof(msg), "%s: not a directory (expected an ovni trace directory)", f);
	expect_error(f, msg);
	free(f);
	char *m = tu_join(root, "missing");
	snprintf(msg, sizeof(msg), "%s: cannot read trace: No such file or directory", m);
	expect_error(m, msg);
	free(m);
}
END_TEST

START_TEST(many_streams)
{
	/* more streams than the initial capacity, in a scrambled creation order */
	char rel[64];
	for (int i = 0; i < 150; i++) {
		snprintf(rel, sizeof(rel), "t.%03d", (i * 37) % 150);
		stream(rel);
	}
	struct weft_found f;
	struct weft_err e = {0};
	ck_assert_int_eq(discover_streams(root, &f, &e), 0);
	ck_assert_int_eq(f.n, 150);
	for (int i = 0; i < 150; i++) {
		snprintf(rel, sizeof(rel), "t.%03d", i);
		ck_assert_str_eq(f.rel[i], rel);
	}
	discover_free(&f);
}
END_TEST

Suite *discover_suite(void)
{
	Suite *s = suite_create("discover");
	TCase *tc = tcase_create("discover");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sorted_bytewise);
	tcase_add_test(tc, stream_at_root_and_any_depth);
	tcase_add_test(tc, symlinks_followed_loops_skipped);
	tcase_add_test(tc, obs_without_json);
	tcase_add_test(tc, json_without_obs);
	tcase_add_test(tc, json_without_obs_at_root);
	tcase_add_test(tc, first_bad_directory_is_reported);
	tcase_add_test(tc, stream_files_as_directories);
	tcase_add_test(tc, empty_dir);
	tcase_add_test(tc, v1_layout);
	tcase_add_test(tc, v1_layout_threads_only);
	tcase_add_test(tc, v2_layout);
	tcase_add_test(tc, old_files_beside_streams_ignored);
	tcase_add_test(tc, not_a_directory);
	tcase_add_test(tc, many_streams);
	suite_add_tcase(s, tc);
	return s;
}
