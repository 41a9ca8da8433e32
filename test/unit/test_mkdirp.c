/* Unit tests of src/util/mkdirp.c: mkdir_p makes every missing level,
 * accepts what exists already (trailing and doubled slashes included), and
 * names the first level it cannot make when a file is in the way (a file
 * as the last level is not seen: EEXIST, see mkdirp.h). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mkdirp.h"
#include "suites.h"
#include "testutil.h"

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Paths made under a fresh directory; each must then be a directory. */
static const char *const good[] = {
	"a", "a", "b/c/d", "b/c/d/", "b//e", "b/c/d/e/f/g",
};

START_TEST(test_makes_levels)
{
	char *dir = tu_mkdtemp();
	struct weft_err e = {0};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char *p = tu_join(dir, good[i]);
		ck_assert_msg(mkdir_p(p, &e) == 0, "%s: %s", good[i], e.msg);
		ck_assert_msg(is_dir(p), "%s is not a directory", good[i]);
		free(p);
	}
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
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct weft_err e = {0};
		char *p = tu_join(dir, "f");
		char *q = malloc(strlen(p) + strlen(bad[i].sub) + 1);
		strcpy(q, p);
		strcat(q, bad[i].sub);
		char *want = malloc(strlen(dir) + strlen(bad[i].tail) + 1);
		strcpy(want, dir);
		strcat(want, bad[i].tail);
		ck_assert_int_eq(mkdir_p(q, &e), -1);
		ck_assert_int_eq(e.code, WEFT_EINTERNAL);
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
