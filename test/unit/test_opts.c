/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/cli/opts: command lines read through one table (values,
 * GNU order or options first, the usage errors' texts and exit codes) and
 * the --help text printed from the same rows. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

struct tcmd {
	int flag, on;
	const char *str;
	int num;
	char added[64];
	int first;
};

static int opt_num(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || end == arg)
		return cli_usage_error(cmd, "--%s: expected a number, found '%s'", row->name, arg);
	*(int *) dst = (int) v;
	return 0;
}

/* repeatable: appends "arg," (a handler given the whole struct) */
static int opt_add(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct tcmd *t = dst;
	(void) cmd, (void) row;
	strncat(t->added, arg, sizeof(t->added) - strlen(t->added) - 2);
	strcat(t->added, ",");
	return 0;
}

#define K struct tcmd
static const struct opt rows[] = {
	OPT_FLAG("flag", 'f', K, flag, "a flag"),
	OPT_SETV("no-on", 0, K, on, 0, "turn on off"),
	OPT_STRING("str", 's', "TEXT", K, str, "a string,\nover two lines"),
	OPT_CALL("num", 'n', "N", K, num, opt_num, "a number"),
	OPT_WHOLE("add", 0, "X", opt_add, "repeatable"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

static const struct optcmd gnu = {.name = "t", .synopsis = "[OPTIONS] ARG...", .opts = rows};
static const struct optcmd first = {.name = "t", .synopsis = "[OPTIONS] ARG...", .opts = rows, .in_order = 1};

static const struct {
	const char *args; /* split at spaces */
	int in_order;
	int rc;           /* -1: run */
	const char *got;  /* "flag on str num added | positional..." or stderr's first line */
} cases[] = {
	{"a -f b", 0, -1, "1 1 - 0  | a b"},
	{"-s x a", 0, -1, "0 1 x 0  | a"},
	{"--str=x --no-on", 0, -1, "0 0 x 0  |"},
	{"--fl a", 0, -1, "1 1 - 0  | a"}, /* a unique prefix */
	{"-n 12 --add p --add q", 0, -1, "0 1 - 12 p,q, |"},
	{"a -f", 1, -1, "0 1 - 0  | a -f"}, /* options first: -f is an argument */
	{"-f -- -s", 0, -1, "1 1 - 0  | -s"},
	{"-s", 0, 2, "weft t: option '-s' needs an argument"},
	{"a --str", 0, 2, "weft t: option '--str' needs an argument"},
	{"--bogus", 0, 2, "weft t: unknown option '--bogus'"},
	{"-Q", 0, 2, "weft t: unknown option '-Q'"},
	{"--flag=1", 0, 2, "weft t: option '--flag' takes no argument"},
	{"--num x", 0, 2, "weft t: --num: expected a number, found 'x'"},
	{"--no", 0, -1, "0 0 - 0  |"},
	{"--n 1", 0, 2, "weft t: unknown option '--n'"}, /* ambiguous: no-on, num */
	{"a --help", 0, 0, "Usage: weft t [OPTIONS] ARG..."},
	{"--version a", 0, 0, "weft " WEFT_VERSION}, /* every command's --version */
	{"--vers", 0, 0, "weft " WEFT_VERSION},
};

/* Run one case with stdout and stderr into files; the answer in got. */
static int run_case(int i, char *got, size_t n)
{
	char buf[128], *argv[16];
	int argc = 0;
	argv[argc++] = "t";
	snprintf(buf, sizeof(buf), "%s", cases[i].args);
	for (char *p = strtok(buf, " "); p; p = strtok(NULL, " "))
		argv[argc++] = p;
	argv[argc] = NULL;
	char *dir = tu_mkdtemp(), *out = tu_join(dir, "out"), *err = tu_join(dir, "err");
	fflush(stdout);
	fflush(stderr);
	ck_assert_ptr_nonnull(freopen(out, "w", stdout));
	ck_assert_ptr_nonnull(freopen(err, "w", stderr));
	struct tcmd t = {.on = 1};
	int rc = opts_parse(cases[i].in_order ? &first : &gnu, &t, argc, argv, &t.first);
	fflush(stdout);
	fflush(stderr);
	if (rc < 0) {
		int k = snprintf(got, n, "%d %d %s %d %s |", t.flag, t.on, t.str ? t.str : "-", t.num, t.added);
		for (int a = t.first; a < argc; a++)
			k += snprintf(got + k, n - (size_t) k, " %s", argv[a]);
	} else {
		size_t len;
		char *text = tu_read(rc == 0 ? out : err, &len);
		snprintf(got, n, "%.*s", (int) strcspn(text, "\n"), text);
		free(text);
	}
	tu_rmtree(dir);
	free(out), free(err), free(dir);
	return rc;
}

START_TEST(parse_cases)
{
	char got[256];
	int rc = run_case(_i, got, sizeof(got));
	ck_assert_msg(rc == cases[_i].rc, "'%s': rc %d, expected %d", cases[_i].args, rc, cases[_i].rc);
	ck_assert_msg(strcmp(got, cases[_i].got) == 0, "'%s': got [%s], expected [%s]", cases[_i].args, got,
		      cases[_i].got);
}
END_TEST

START_TEST(help_layout)
{
	static const char want[] = "Usage: weft t [OPTIONS] ARG...\n"
				   "       weft t --other\n"
				   "\n"
				   "About t.\n"
				   "\n"
				   "Options:\n"
				   "  -f, --flag      a flag\n"
				   "      --no-on     turn on off\n"
				   "  -s, --str TEXT  a string,\n"
				   "                  over two lines\n"
				   "  -n, --num N     a number\n"
				   "      --add X     repeatable\n"
				   "  -h, --help      show this help\n"
				   "      --version   show weft's version and licence\n"
				   "\n"
				   "More.\n";
	static const struct optcmd c = {.name = "t", .synopsis = "[OPTIONS] ARG...\n--other", .about = "About t.\n",
					.opts = rows, .more = "More.\n"};
	char *dir = tu_mkdtemp(), *path = tu_join(dir, "help");
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	opts_help(&c, f);
	fclose(f);
	size_t len;
	char *text = tu_read(path, &len);
	ck_assert_str_eq(text, want);
	free(text);
	tu_rmtree(dir);
	free(path), free(dir);
}
END_TEST

Suite *opts_suite(void)
{
	Suite *s = suite_create("opts");
	TCase *tc = tcase_create("opts");
	tcase_add_loop_test(tc, parse_cases, 0, (int) (ARRAY_SIZE(cases)));
	tcase_add_test(tc, help_layout);
	suite_add_tcase(s, tc);
	return s;
}
