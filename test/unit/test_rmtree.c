/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/rmtree.c and src/util/tmpdir.c: a tree goes with
 * everything in it but never what a link in it points to; weft's private
 * temporary folder is made 0700 and refused when it is a link, someone
 * else's, or open to others; the sweep removes killed runs' entries only. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/rmtree.h"
#include "util/tmpdir.h"
#include "suites.h"
#include "testutil.h"

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = tu_join(dir, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	tu_mkdirs(p);
	*slash = '/';
	tu_write_str(p, text);
	free(p);
}

START_TEST(never_follows_links)
{
	char *dir = tu_mkdtemp();
	put(dir, "outside/keep1", "1");
	put(dir, "outside/keep2", "2");
	put(dir, "tree/a/b/c", "x");
	put(dir, "tree/d", "y");
	char *out = tu_join(dir, "outside");
	const char *links[] = {"tree/to-dir", "tree/a/to-dir", "top-link"};
	for (int i = 0; i < 3; i++) {
		char *l = tu_join(dir, links[i]);
		ck_assert_int_eq(symlink(out, l), 0);
		free(l);
	}
	char *tree = tu_join(dir, "tree"), *top = tu_join(dir, "top-link");
	ck_assert_int_eq(rmtree(tree), 0);
	ck_assert_int_eq(rmtree(top), 0); /* the link, not what it names */
	ck_assert_int_eq(entries(dir), 1);
	ck_assert_int_eq(entries(out), 2);
	ck_assert_int_eq(rmtree(tree), 0); /* gone already: fine */
	free(top);
	free(tree);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* TMPDIR/weft-UID: made private; refused when it is not. */
START_TEST(private_folder)
{
	char *dir = tu_mkdtemp();
	const char *old = getenv("TMPDIR");
	char *keep = old ? strdup(old) : NULL;
	setenv("TMPDIR", dir, 1);
	char *path, *got;
	struct weft_err e = {0};
	int fd = tmpdir_open(&path, &e);
	ck_assert_msg(fd >= 0, "%s", e.msg);
	close(fd);
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	/* open to others */
	ck_assert_int_eq(chmod(path, 0777), 0);
	ck_assert_int_eq(tmpdir_open(&got, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "other users can reach it (mode 0777)"));
	/* someone else's (only root can give it away) */
	if (geteuid() == 0) {
		ck_assert_int_eq(chmod(path, 0700), 0);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(tmpdir_open(&got, &e), -1);
		ck_assert_ptr_nonnull(strstr(e.msg, "owned by user 65534, not by you"));
	}
	/* a link planted in its place */
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(symlink(dir, path), 0);
	ck_assert_int_eq(tmpdir_open(&got, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "a symbolic link, not weft's private temporary folder"));
	free(path);
	if (keep)
		setenv("TMPDIR", keep, 1);
	else
		unsetenv("TMPDIR");
	free(keep);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(sweep_killed_runs)
{
	char *dir = tu_mkdtemp();
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	char dead[64], own[64];
	snprintf(dead, sizeof(dead), "weft-import-%ld-aaaaaa/loom.x/f", (long) child);
	snprintf(own, sizeof(own), "weft-import-%ld-bbbbbb/f", (long) getpid());
	const char *keep[] = {own, "weft-import-1-cccccc/f", "weft-import-zz/f", "other-5-x/f"};
	put(dir, dead, "x");
	for (int i = 0; i < 4; i++)
		put(dir, keep[i], "x");
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(tmpdir_sweep(fd, "weft-import"), 1);
	close(fd);
	ck_assert_int_eq(entries(dir), 4);
	ck_assert_int_eq(tmpdir_pid_after(".a.weft-tmp-5.svg.weft-tmp-123-x", ".weft-tmp-"), 123);
	ck_assert_int_eq(tmpdir_pid_after("weft-import-12ab", "weft-import-"), 0);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *rmtree_suite(void)
{
	Suite *s = suite_create("rmtree");
	TCase *tc = tcase_create("rmtree");
	tcase_add_test(tc, never_follows_links);
	tcase_add_test(tc, private_folder);
	tcase_add_test(tc, sweep_killed_runs);
	suite_add_tcase(s, tc);
	return s;
}
