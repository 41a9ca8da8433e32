/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/atomicfile.c: whole files or nothing, unusable
 * names refused as usage errors, killed runs' temporaries swept, folders
 * renamed into place at once. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

/* Entries of a directory besides . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

START_TEST(write_whole)
{
	char *dir = tu_mkdtemp();
	char *p = tu_join(dir, "out.txt");
	struct weft_err e = {0};
	ck_assert_int_eq(atomic_write(p, "hello\n", 6, &e), 0);
	FILE *f = fopen(p, "r");
	ck_assert_ptr_nonnull(f);
	char buf[16] = {0};
	ck_assert_uint_eq(fread(buf, 1, sizeof(buf), f), 6);
	fclose(f);
	ck_assert_str_eq(buf, "hello\n");
	ck_assert_int_eq(entries(dir), 1); /* no temporary left */
	/* the permissions of a plain creation, not mkstemp's 0600 */
	struct stat st;
	ck_assert_int_eq(stat(p, &st), 0);
	mode_t mask = umask(0);
	umask(mask);
	ck_assert_int_eq(st.st_mode & 0777, 0666 & ~mask);
	tu_rmtree(dir);
	free(p);
	free(dir);
}
END_TEST

START_TEST(failure_leaves_nothing)
{
	char *dir = tu_mkdtemp();
	char *p = tu_join(dir, "out.txt");
	struct weft_err e = {0};
	char *tmp;
	int fd = atomic_open(p, &tmp, &e);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "half", 4), 4);
	/* the caller failed: nothing may appear, the temporary goes */
	ck_assert_int_eq(atomic_commit(fd, tmp, p, -1, &e), -1);
	ck_assert_int_eq(entries(dir), 0);
	/* a directory that does not exist: an unusable name (2) */
	char *q = tu_join(dir, "no/such/out.txt");
	ck_assert_int_eq(atomic_write(q, "x", 1, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EUSAGE);
	ck_assert_ptr_nonnull(strstr(e.msg, "is no directory to write it in"));
	ck_assert_int_eq(entries(dir), 0);
	tu_rmtree(dir);
	free(q);
	free(p);
	free(dir);
}
END_TEST

/* Names no file or folder can be written at: 2, nothing made. */
START_TEST(unusable_names)
{
	char *dir = tu_mkdtemp();
	char *sub = tu_join(dir, "sub");
	tu_mkdirs(sub);
	char *f = tu_join(dir, "file");
	tu_write_str(f, "keep");
	char *slash = tu_join(dir, "out/");
	char *under_file = tu_join(dir, "file/x");
	const struct {
		const char *path;
		int dir; /* atomic_dir_open */
	} bad[] = {{"", 0},  {"", 1},	 {".", 0},	  {"/", 0},	   {"..", 1},
		   {sub, 0}, {slash, 0}, {under_file, 0}, {under_file, 1}, {f, 1}};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct weft_err e = {0};
		char *tmp = NULL;
		int rc = bad[i].dir ? atomic_dir_open(bad[i].path, &tmp, &e) : atomic_open(bad[i].path, &tmp, &e);
		ck_assert_msg(rc == -1 && e.code == WEFT_EUSAGE, "%s: rc %d code %d (%s)", bad[i].path, rc, e.code,
			      e.msg);
		ck_assert_ptr_null(tmp);
	}
	ck_assert_int_eq(entries(dir), 2);
	tu_rmtree(dir);
	free(under_file);
	free(slash);
	free(f);
	free(sub);
	free(dir);
}
END_TEST

/* A killed run's temporary of the same name goes with the next write; a
 * live run's, and those of other names, stay. */
START_TEST(sweeps_killed_temporaries)
{
	char *dir = tu_mkdtemp();
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	char names[3][64];
	snprintf(names[0], sizeof(names[0]), ".out.svg.weft-tmp-%ld-aaaaaa", (long) child);
	snprintf(names[1], sizeof(names[1]), ".out.svg.weft-tmp-1-bbbbbb"); /* init: alive */
	snprintf(names[2], sizeof(names[2]), ".other.svg.weft-tmp-%ld-cccccc", (long) child);
	for (int i = 0; i < 3; i++) {
		char *p = tu_join(dir, names[i]);
		tu_write_str(p, "half");
		free(p);
	}
	char *p = tu_join(dir, "out.svg");
	struct weft_err e = {0};
	ck_assert_int_eq(atomic_write(p, "whole", 5, &e), 0);
	ck_assert_int_eq(entries(dir), 3);
	char *gone = tu_join(dir, names[0]);
	ck_assert_int_ne(access(gone, F_OK), 0);
	free(gone);
	free(p);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A folder: built under a temporary name, renamed over an empty directory;
 * a failure removes the temporary with what it holds. */
START_TEST(folder_whole)
{
	char *dir = tu_mkdtemp();
	char *out = tu_join(dir, "trace");
	tu_mkdirs(out);
	struct weft_err e = {0};
	char *tmp;
	ck_assert_int_eq(atomic_dir_open(out, &tmp, &e), 0);
	char *f = tu_join(tmp, "stream.obs");
	tu_write_str(f, "x");
	free(f);
	ck_assert_int_eq(atomic_dir_commit(tmp, out, 0, &e), 0);
	ck_assert_int_eq(entries(out), 1);
	ck_assert_int_eq(atomic_dir_open(out, &tmp, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EUSAGE);
	char *two = tu_join(dir, "two");
	ck_assert_int_eq(atomic_dir_open(two, &tmp, &e), 0);
	char *g = tu_join(tmp, "sub");
	tu_mkdirs(g);
	free(g);
	ck_assert_int_eq(atomic_dir_commit(tmp, two, -1, &e), -1);
	ck_assert_int_eq(entries(dir), 1);
	free(two);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *atomicfile_suite(void)
{
	Suite *s = suite_create("atomicfile");
	TCase *tc = tcase_create("atomicfile");
	tcase_add_test(tc, write_whole);
	tcase_add_test(tc, failure_leaves_nothing);
	tcase_add_test(tc, unusable_names);
	tcase_add_test(tc, sweeps_killed_temporaries);
	tcase_add_test(tc, folder_whole);
	suite_add_tcase(s, tc);
	return s;
}
