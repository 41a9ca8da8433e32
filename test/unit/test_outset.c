/* Unit tests of src/util/outset.c: the outputs of a run appear together,
 * a failed commit changes nothing, killed runs' temporaries are swept. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/outset.h"
#include "suites.h"
#include "testutil.h"

/* The directory's entries, sorted, one string "a b c". */
static char *listing(const char *dir)
{
	struct dirent **de;
	int n = scandir(dir, &de, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	static char buf[4096];
	buf[0] = '\0';
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

static char *slurp(const char *dir, const char *name)
{
	char *p = tu_join(dir, name);
	size_t n;
	char *s = tu_read(p, &n);
	free(p);
	return s;
}

START_TEST(commit_all)
{
	char *dir = tu_mkdtemp();
	struct outset s;
	struct weft_err e = {0};
	outset_init(&s, dir);
	ck_assert_int_eq(outset_write(&s, "a.txt", "A\n", 2, &e), 0);
	ck_assert_int_eq(outset_write(&s, "cfg/x/b.cfg", "B\n", 2, &e), 0);
	/* nothing visible before the commit but the temporaries */
	char want[256];
	snprintf(want, sizeof(want), ".a.txt.weft-tmp-%ld .cfg+x+b.cfg.weft-tmp-%ld", (long) getpid(),
		 (long) getpid());
	ck_assert_str_eq(listing(dir), want);
	ck_assert_int_eq(outset_commit(&s, &e), 0);
	ck_assert_str_eq(listing(dir), "a.txt cfg");
	char *t = slurp(dir, "cfg/x/b.cfg");
	ck_assert_str_eq(t, "B\n");
	free(t);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A rename failing after the checks: the earlier renames are undone, the
 * previous version of a replaced file comes back, new directories go. */
START_TEST(rollback)
{
	char *dir = tu_mkdtemp();
	char *a = tu_join(dir, "a.txt");
	tu_write_str(a, "old\n");
	struct outset s;
	struct weft_err e = {0};
	outset_init(&s, dir);
	ck_assert_int_eq(outset_write(&s, "a.txt", "new\n", 4, &e), 0);
	ck_assert_int_eq(outset_write(&s, "sub/c.txt", "C\n", 2, &e), 0);
	char *gone = tu_join(dir, ".b.weft-tmp-1");
	outset_adopt(&s, gone, "b.txt"); /* its temporary does not exist */
	ck_assert_int_eq(outset_commit(&s, &e), -1);
	char want[1024];
	snprintf(want, sizeof(want), "cannot rename %s to %s/b.txt: No such file or directory", gone, dir);
	ck_assert_str_eq(e.msg, want);
	ck_assert_str_eq(listing(dir), "a.txt");
	char *t = slurp(dir, "a.txt");
	ck_assert_str_eq(t, "old\n");
	free(t);
	tu_rmtree(dir);
	free(gone);
	free(a);
	free(dir);
}
END_TEST

/* A directory where a file goes: refused before anything moves. */
START_TEST(check_targets)
{
	char *dir = tu_mkdtemp();
	char *d = tu_join(dir, "cpu.prv/x");
	tu_mkdirs(d);
	char *f = tu_join(dir, "cfg");
	tu_write_str(f, "");
	struct outset s;
	struct weft_err e = {0};
	outset_init(&s, dir);
	ck_assert_int_eq(outset_write(&s, "thread.prv", "T\n", 2, &e), 0);
	ck_assert_int_eq(outset_write(&s, "cpu.prv", "C\n", 2, &e), 0);
	ck_assert_int_eq(outset_commit(&s, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EUSAGE);
	char want[1024];
	snprintf(want, sizeof(want),
		 "%s/cpu.prv: is a directory; weft writes a file of that name and will not replace a directory",
		 dir);
	ck_assert_str_eq(e.msg, want);
	ck_assert_str_eq(listing(dir), "cfg cpu.prv");
	outset_init(&s, dir);
	ck_assert_int_eq(outset_write(&s, "cfg/v.cfg", "V\n", 2, &e), 0);
	ck_assert_int_eq(outset_commit(&s, &e), -1);
	snprintf(want, sizeof(want), "%s/cfg: not a directory, but weft writes %s/cfg/v.cfg in it", dir, dir);
	ck_assert_str_eq(e.msg, want);
	ck_assert_str_eq(listing(dir), "cfg cpu.prv");
	tu_rmtree(dir);
	free(d);
	free(f);
	free(dir);
}
END_TEST

START_TEST(sweep_dead_runs)
{
	char *dir = tu_mkdtemp();
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	/* the child is dead: its PID names a run that is over */
	const char *fmt[] = {".thread.prv.weft-tmp-%ld", ".cpu.prv.gz.weft-tmp-%ld", ".a.txt.weft-old-%ld"};
	for (int i = 0; i < 3; i++) {
		char n[64];
		snprintf(n, sizeof(n), fmt[i], (long) child);
		char *p = tu_join(dir, n);
		tu_write_str(p, "left\n");
		free(p);
	}
	/* a killed --mpi run's part folder, and a live one's */
	char ranks[64], live[64];
	snprintf(ranks, sizeof(ranks), RANKS_DIR "%ld", (long) child);
	snprintf(live, sizeof(live), RANKS_DIR "1");
	for (int i = 0; i < 2; i++) {
		char *d = tu_join(dir, i ? live : ranks);
		ck_assert_int_eq(mkdir(d, 0777), 0);
		char *f = tu_join(d, "1.ops");
		tu_write_str(f, "ops\n");
		free(f);
		free(d);
	}
	char own[64];
	snprintf(own, sizeof(own), ".thread.prv.weft-tmp-%ld", (long) getpid());
	const char *keep[] = {own, ".x.weft-tmp-1" /* init: alive */, "thread.prv.weft-tmp-99999999",
			      ".y.weft-tmp-12ab", ".z.weft-tmp-"};
	for (int i = 0; i < 5; i++) {
		char *p = tu_join(dir, keep[i]);
		tu_write_str(p, "");
		free(p);
	}
	ck_assert_int_eq(outset_sweep(dir), 4);
	char want[256];
	snprintf(want, sizeof(want),
		 "%s .weft-ranks-1 .x.weft-tmp-1 .y.weft-tmp-12ab .z.weft-tmp- thread.prv.weft-tmp-99999999", own);
	ck_assert_str_eq(listing(dir), want);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *outset_suite(void)
{
	Suite *s = suite_create("outset");
	TCase *tc = tcase_create("outset");
	tcase_add_test(tc, commit_all);
	tcase_add_test(tc, rollback);
	tcase_add_test(tc, check_targets);
	tcase_add_test(tc, sweep_dead_runs);
	suite_add_tcase(s, tc);
	return s;
}
