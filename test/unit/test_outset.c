/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/outset.c and outgen.c: a run's outputs appear at
 * the commit and not before, a later run replaces the whole set (names it
 * lacks go, plain files of weft's names are taken over, a user's file
 * stays), a failed run leaves nothing, a second run is refused while the
 * lock is held, and what killed runs left is cleared by the next one. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/outset.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

/* The directory's entries, sorted, one string "a b c". */
static char *listing(const char *dir)
{
	struct dirent **de;
	int n = scandir(dir, &de, NULL, alphasort);
	static char buf[4096];
	buf[0] = '\0';
	if (n < 0)
		return strcpy(buf, "(none)");
	for (int i = 0; i < n; i++) {
		if (strcmp(de[i]->d_name, ".") && strcmp(de[i]->d_name, "..")) {
			if (buf[0])
				strcat(buf, " ");
			strcat(buf, de[i]->d_name);
		}
		free(de[i]);
	}
	free(de);
	return buf;
}

/* What DIR/name shows ("(none)" when it does not open). */
static char *shows(const char *dir, const char *name)
{
	static char buf[256];
	char *p = tu_join(dir, name);
	FILE *f = fopen(p, "r");
	free(p);
	if (!f)
		return strcpy(buf, "(none)");
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int is_link(const char *dir, const char *name)
{
	char *p = tu_join(dir, name);
	struct stat st;
	int r = lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
	free(p);
	return r;
}

/* One run: write the files of `files` ("name=text", NULL-terminated),
 * retire the names of `retire`, commit. */
static void run(const char *dir, const char *const *files, const char *const *retire)
{
	struct outset s;
	struct weft_err e = {0};
	ck_assert_msg(outset_open(&s, dir, &e) == 0, "%s", e.msg);
	for (int i = 0; files[i]; i++) {
		const char *eq = strchr(files[i], '=');
		char *name = strndup(files[i], (size_t) (eq - files[i]));
		ck_assert_msg(outset_write(&s, name, eq + 1, strlen(eq + 1), &e) == 0, "%s", e.msg);
		free(name);
	}
	for (int i = 0; retire && retire[i]; i++)
		outset_retire(&s, retire[i]);
	ck_assert_msg(outset_commit(&s, &e) == 0, "%s", e.msg);
}

START_TEST(commit_shows_all)
{
	char *dir = tu_mkdtemp();
	struct outset s;
	struct weft_err e = {0};
	ck_assert_int_eq(outset_open(&s, dir, &e), 0);
	ck_assert_int_eq(outset_write(&s, "a.txt", "A1", 2, &e), 0);
	ck_assert_int_eq(outset_write(&s, "cfg/x/b.cfg", "B1", 2, &e), 0);
	ck_assert_str_eq(listing(dir), ".weft"); /* nothing shown before the commit */
	ck_assert_int_eq(outset_commit(&s, &e), 0);
	ck_assert_str_eq(listing(dir), ".weft a.txt cfg");
	ck_assert(is_link(dir, "a.txt") && is_link(dir, "cfg/x/b.cfg"));
	ck_assert_str_eq(shows(dir, "cfg/x/b.cfg"), "B1");
	char *w = tu_join(dir, ".weft");
	ck_assert_str_eq(listing(w), "current gen-1 lock");
	/* the next run shows its set: b.cfg (and its folders) go */
	run(dir, (const char *const[]){"a.txt=A2", "c.txt=C2", NULL}, NULL);
	ck_assert_str_eq(listing(dir), ".weft a.txt c.txt");
	ck_assert_str_eq(shows(dir, "a.txt"), "A2");
	ck_assert_str_eq(listing(w), "current gen-2 lock");
	free(w);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* Plain files of weft's names (an older weft's, ovniemu's) show the old
 * bytes until the commit, then the new ones; a retired one goes, a file of
 * the user's stays. */
START_TEST(takes_over_plain_files)
{
	char *dir = tu_mkdtemp();
	char *sub = tu_join(dir, "cfg/x");
	tu_mkdirs(sub);
	const char *plain[][2] = {{"a.txt", "old a"}, {"cfg/x/b.cfg", "old b"}, {"cfg/x/mine.cfg", "mine"}};
	for (int i = 0; i < 3; i++) {
		char *p = tu_join(dir, plain[i][0]);
		tu_write_str(p, plain[i][1]);
		free(p);
	}
	struct outset s;
	struct weft_err e = {0};
	ck_assert_int_eq(outset_open(&s, dir, &e), 0);
	ck_assert_int_eq(outset_write(&s, "a.txt", "new a", 5, &e), 0);
	outset_retire(&s, "cfg/x/b.cfg");
	ck_assert_str_eq(shows(dir, "a.txt"), "old a");
	ck_assert_int_eq(outset_commit(&s, &e), 0);
	ck_assert_str_eq(shows(dir, "a.txt"), "new a");
	ck_assert_str_eq(listing(sub), "mine.cfg");
	ck_assert_str_eq(shows(dir, "cfg/x/mine.cfg"), "mine");
	tu_rmtree(dir);
	free(sub);
	free(dir);
}
END_TEST

/* A failed run: the previous output as it was; where there was none, not
 * even the folders the run made. */
START_TEST(abort_leaves_nothing)
{
	char *dir = tu_mkdtemp();
	char *deep = tu_join(dir, "a/b/c");
	struct outset s;
	struct weft_err e = {0};
	ck_assert_int_eq(outset_open(&s, deep, &e), 0);
	ck_assert_int_eq(outset_write(&s, "x.txt", "X", 1, &e), 0);
	outset_abort(&s);
	ck_assert_str_eq(listing(dir), "");
	char *o = tu_join(dir, "o");
	run(o, (const char *const[]){"x.txt=X1", NULL}, NULL);
	ck_assert_int_eq(outset_open(&s, o, &e), 0);
	ck_assert_int_eq(outset_write(&s, "x.txt", "X2", 2, &e), 0);
	ck_assert_int_eq(outset_write(&s, "y.txt", "Y2", 2, &e), 0);
	outset_abort(&s);
	ck_assert_str_eq(listing(o), ".weft x.txt");
	ck_assert_str_eq(shows(o, "x.txt"), "X1");
	char *w = tu_join(o, ".weft");
	ck_assert_str_eq(listing(w), "current gen-1 lock");
	free(w);
	free(o);
	free(deep);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A directory where a file goes, a file or a link where a folder goes:
 * refused (2) before anything changes. */
START_TEST(check_targets)
{
	char *dir = tu_mkdtemp();
	char *d = tu_join(dir, "cpu.prv/x");
	tu_mkdirs(d);
	char *f = tu_join(dir, "cfg");
	tu_write_str(f, "");
	char *l = tu_join(dir, "views");
	ck_assert_int_eq(symlink("/tmp", l), 0);
	static const struct {
		const char *name, *why;
	} cases[] = {
		{"cpu.prv",
		 "%s/cpu.prv: is a directory; weft writes a file of that name and will not replace a directory"},
		{"cfg/v.cfg", "%s/cfg: not a directory, but weft writes %s/cfg/v.cfg in it"},
		{"views/v.cfg",
		 "%s/views: a symbolic link, but weft writes %s/views/v.cfg in a folder there of its "
		 "own (make it a folder, or use -o to write elsewhere)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct outset s;
		struct weft_err e = {0};
		ck_assert_int_eq(outset_open(&s, dir, &e), 0);
		outset_add(&s, "thread.prv");
		outset_add(&s, cases[i].name);
		ck_assert_int_eq(outset_check(&s, &e), -1);
		ck_assert_int_eq(e.code, WEFT_EUSAGE);
		char want[1024];
		snprintf(want, sizeof(want), cases[i].why, dir, dir);
		ck_assert_str_eq(e.msg, want);
		outset_abort(&s);
		ck_assert_str_eq(listing(dir), "cfg cpu.prv views");
	}
	tu_rmtree(dir);
	free(l);
	free(d);
	free(f);
	free(dir);
}
END_TEST

/* While one process holds the set open, another is refused, told who. */
START_TEST(lock_names_the_holder)
{
	char *dir = tu_mkdtemp();
	int go[2], done[2];
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(done), 0);
	pid_t child = fork();
	if (child == 0) {
		struct outset s;
		struct weft_err e = {0};
		char c = outset_open(&s, dir, &e) == 0 ? 'y' : 'n';
		if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		outset_abort(&s);
		_exit(0);
	}
	char c = 0;
	ck_assert_int_eq(read(go[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	struct outset s;
	struct weft_err e = {0};
	ck_assert_int_eq(outset_open(&s, dir, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	char want[1024];
	snprintf(want, sizeof(want),
		 "%s: another weft run (PID %ld) is writing its outputs here: wait for it to end, or use -o to "
		 "write elsewhere",
		 dir, (long) child);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(write(done[1], "x", 1), 1);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	/* the holder's abort removed DIR/.weft: a new run starts afresh */
	ck_assert_int_eq(outset_open(&s, dir, &e), 0);
	outset_abort(&s);
	for (int i = 0; i < 2; i++) {
		close(go[i]);
		close(done[i]);
	}
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* What a killed run left: its generation, the links it made for names the
 * shown generation lacks, its temporary links, its --mpi parts; older
 * versions' temporaries of runs that are over. Cleared by the next run. */
START_TEST(clears_killed_runs)
{
	char *dir = tu_mkdtemp();
	run(dir, (const char *const[]){"a.txt=A", NULL}, NULL);
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child); /* its PID names a run that is over */
	char *w = tu_join(dir, ".weft");
	const char *files[] = {".weft/gen-2/n.txt", ".weft/gen-7/cfg/m.cfg", ".weft/ranks-5/1.ops"};
	for (int i = 0; i < 3; i++) {
		char *p = tu_join(dir, files[i]);
		char *slash = strrchr(p, '/');
		*slash = '\0';
		tu_mkdirs(p);
		*slash = '/';
		tu_write_str(p, "left");
		free(p);
	}
	char *cfg = tu_join(dir, "cfg");
	tu_mkdirs(cfg);
	const char *links[][2] = {{"n.txt", ".weft/current/n.txt"},
				  {"cfg/m.cfg", "../.weft/current/cfg/m.cfg"},
				  {".weft/link-tmp", "x"},
				  {"other", ".weft/current/other"}}; /* not weft's name: kept */
	for (int i = 0; i < 4; i++) {
		char *p = tu_join(dir, links[i][0]);
		ck_assert_int_eq(symlink(links[i][1], p), 0);
		free(p);
	}
	char legacy[2][64];
	snprintf(legacy[0], sizeof(legacy[0]), ".a.txt.weft-tmp-%ld", (long) child);
	snprintf(legacy[1], sizeof(legacy[1]), ".weft-ranks-%ld", (long) child);
	const char *keep[] = {".b.weft-tmp-1" /* init: alive */, ".y.weft-tmp-12ab"};
	for (int i = 0; i < 2; i++) {
		char *p = tu_join(dir, legacy[i]);
		if (i)
			tu_mkdirs(p);
		else
			tu_write_str(p, "half");
		free(p);
		p = tu_join(dir, keep[i]);
		tu_write_str(p, "");
		free(p);
	}
	struct outset s;
	struct weft_err e = {0};
	ck_assert_int_eq(outset_open(&s, dir, &e), 0);
	ck_assert_str_eq(listing(dir), ".b.weft-tmp-1 .weft .y.weft-tmp-12ab a.txt other");
	ck_assert_str_eq(listing(w), "current gen-1 gen-2 lock"); /* gen-2: this run's */
	ck_assert_str_eq(shows(dir, "a.txt"), "A");
	outset_abort(&s);
	ck_assert_str_eq(listing(w), "current gen-1 lock");
	free(cfg);
	free(w);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *outset_suite(void)
{
	Suite *s = suite_create("outset");
	TCase *tc = tcase_create("outset");
	tcase_add_test(tc, commit_shows_all);
	tcase_add_test(tc, takes_over_plain_files);
	tcase_add_test(tc, abort_leaves_nothing);
	tcase_add_test(tc, check_targets);
	tcase_add_test(tc, lock_names_the_holder);
	tcase_add_test(tc, clears_killed_runs);
	suite_add_tcase(s, tc);
	return s;
}
