/* Unit tests of src/util/atomicfile.c: whole files or nothing. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "suites.h"
#include "testutil.h"

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
	/* a directory that does not exist: a clear error */
	char *q = tu_join(dir, "no/such/out.txt");
	ck_assert_int_eq(atomic_write(q, "x", 1, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot create"));
	ck_assert_int_eq(entries(dir), 0);
	tu_rmtree(dir);
	free(q);
	free(p);
	free(dir);
}
END_TEST

Suite *atomicfile_suite(void)
{
	Suite *s = suite_create("atomicfile");
	TCase *tc = tcase_create("atomicfile");
	tcase_add_test(tc, write_whole);
	tcase_add_test(tc, failure_leaves_nothing);
	suite_add_tcase(s, tc);
	return s;
}
