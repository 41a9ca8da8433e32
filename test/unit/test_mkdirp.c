/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/mkdirp.c: mkdir_p makes every missing level,
 * accepts what exists already (trailing and doubled slashes included),
 * counts the levels it made (rmdir_made removes them again), and names the
 * first level it cannot make when a file is in the way (a file as the last
 * level is not seen: EEXIST, see mkdirp.h), or an empty name, as usage
 * errors. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mkdirp.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Paths made under a fresh directory, in turn; each must then be a
 * directory, `made` of its levels new. */
static const struct {
	const char *path;
	int made;
} good[] = {
	{"a", 1}, {"a", 0}, {"b/c/d", 3}, {"b/c/d/", 0}, {"b//e", 1}, {"b/c/d/e/f/g", 3}, {"h//i/", 2},
};

START_TEST(test_makes_levels)
{
	char *dir = tu_mkdtemp();
	struct weft_err e = {0};
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		char *p = tu_join(dir, good[i].path);
		int made = -1;
		ck_assert_msg(mkdir_p(p, &made, &e) == 0, "%s: %s", good[i].path, e.msg);
		ck_assert_msg(is_dir(p), "%s is not a directory", good[i].path);
		ck_assert_int_eq(made, good[i].made);
		free(p);
	}
	/* what one call made goes again, not what was there */
	char *p = tu_join(dir, "b/c/d/e/f/g");
	rmdir_made(p, 3);
	free(p);
	p = tu_join(dir, "b/c/d");
	ck_assert(is_dir(p));
	free(p);
	p = tu_join(dir, "b/c/d/e");
	ck_assert(!is_dir(p));
	free(p);
	struct weft_err u = {0};
	ck_assert_int_eq(mkdir_p("", NULL, &u), -1);
	ck_assert_int_eq(u.code, WEFT_EUSAGE);
	ck_assert_str_eq(u.msg, "an empty name names no directory");
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A file where a level belongs: -1, and the error names that level. */
static const struct {
	const char *sub;  /* made under the file "f" */
	const char *tail; /* the level the message names, after the directory */
} bad[] = {
	{"/x", "/f/x: cannot create directory: Not a directory"},
	{"/x/y", "/f/x: cannot create directory: Not a directory"},
};

START_TEST(test_file_in_the_way)
{
	char *dir = tu_mkdtemp();
	char *f = tu_join(dir, "f");
	tu_write_str(f, "not a directory\n");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct weft_err e = {0};
		char *p = tu_join(dir, "f");
		char *q = malloc(strlen(p) + strlen(bad[i].sub) + 1);
		strcpy(q, p);
		strcat(q, bad[i].sub);
		char *want = malloc(strlen(dir) + strlen(bad[i].tail) + 1);
		strcpy(want, dir);
		strcat(want, bad[i].tail);
		ck_assert_int_eq(mkdir_p(q, NULL, &e), -1);
		ck_assert_int_eq(e.code, WEFT_EUSAGE);
		ck_assert_str_eq(e.msg, want);
		free(want);
		free(q);
		free(p);
	}
	free(f);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *mkdirp_suite(void)
{
	Suite *s = suite_create("mkdirp");
	TCase *tc = tcase_create("mkdir_p");
	tcase_add_test(tc, test_makes_levels);
	tcase_add_test(tc, test_file_in_the_way);
	suite_add_tcase(s, tc);
	return s;
}
