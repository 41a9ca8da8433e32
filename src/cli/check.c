/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check: validate Paraver traces (.prv or .prv.gz, with .pcf and .row).
 * Valid: one summary line per trace on stdout, exit 0. Invalid: each problem
 * as "weft: error: FILE:LINE: ..." on stderr, exit 1. The checks themselves
 * live in src/check/check_*.c (check_int.h lists the parts). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "util/mapfile.h"
#include "check/prvcheck.h"
#include "check/viewcheck.h"

/* What the command line asked for. */
struct check_cmd {
	int quiet;
	const char *views;
	unsigned long long max;
	int first; /* argv[first..]: the traces */
};

static int opt_max(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	char *end;
	(void) row;
	if (arg[0] < '0' || arg[0] > '9')
		return cli_usage_error(cmd, "--max-errors: expected a number, found '%s'", arg);
	*(unsigned long long *) dst = strtoull(arg, &end, 10);
	if (*end)
		return cli_usage_error(cmd, "--max-errors: expected a number, found '%s'", arg);
	return 0;
}

#define K struct check_cmd
static const struct opt check_opts[] = {
	OPT_FLAG("quiet", 'q', K, quiet, "print nothing for a valid trace"),
	OPT_CALL("max-errors", 'n', "N", K, max, opt_max, "errors shown per trace (default 20; 0 = all)"),
	OPT_STRING("views", 0, "DIR", K, views, "check the views of an output directory"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd check_cmdline = {
	.name = "check",
	.synopsis = "[-q] [--max-errors N] TRACE.prv|TRACE.prv.gz|DIR...\n"
		    "[-q] --views DIR\n",
	.about = "Check Paraver traces the way paraver-kernel (paramedir, wxParaver) reads\n"
		 "them, plus what the reader silently gets wrong:\n"
		 "  - the header: #Paraver (DATE):FTIME_ns:RESOURCES:NAPPL:APPLS[,NCOMM], object\n"
		 "    counts, task nodes, the NCOMM communicator lines;\n"
		 "  - every record: kinds 1 (state), 2 (event), 3 (communication), 4 (global\n"
		 "    operation, accepted with a warning), '#' comments and empty lines; integer\n"
		 "    fields only; the thread exists and the CPU is 0 or one of its task's node;\n"
		 "  - per thread: records in time order, states not overlapping, begin <= end;\n"
		 "    every time <= FTIME; lsend <= psend and lrecv <= precv; at least one record;\n"
		 "  - TRACE.pcf: its sections parse, and every event type and every state in\n"
		 "    the body has a label (a value its type's VALUES list leaves out: a warning);\n"
		 "  - TRACE.row: LEVEL blocks well formed, sizes equal to the header's counts.\n"
		 "Valid: prints 'TRACE: ok: N records (...)' and exits 0 (warnings may be\n"
		 "printed on stderr). Invalid: prints each error as\n"
		 "'weft: error: FILE:LINE: ...' on stderr and exits 1.\n"
		 "\n"
		 "A directory (a `weft emu` output directory) stands for every .prv and .prv.gz\n"
		 "in it, and, when it has a cfg/ folder, its views as --views checks them.\n"
		 "\n"
		 "With --views DIR (a `weft emu` output directory), check instead each view\n"
		 "DIR/cfg/MODEL/FILE-NAME.cfg against DIR/FILE.pcf and DIR/FILE.prv (FILE:\n"
		 "thread or cpu): its thread function exists, it declares a colour mode and a\n"
		 "maximum, every event type of its filter is labelled and written, the values\n"
		 "written are within its range, a state view is in code colour and every state\n"
		 "written has a label.\n",
	.opts = check_opts,
};

struct printer {
	unsigned long long shown_err, shown_warn;
};

static void print_problem(void *ctx, const struct prvchk_problem *p)
{
	struct printer *pr = ctx;
	struct weft_err e;
	if (map_inputs_check(&e)) /* made up by the zeros past a shrunk file's end */
		return;
	if (p->level == PRVCHK_ERROR)
		pr->shown_err++;
	else
		pr->shown_warn++;
	const char *lv = p->level == PRVCHK_ERROR ? "error" : "warning";
	if (p->line)
		fprintf(stderr, "weft: %s: %s:%llu: %s\n", lv, p->file, (unsigned long long) p->line, p->msg);
	else
		fprintf(stderr, "weft: %s: %s: %s\n", lv, p->file, p->msg);
}

static int check_one(const char *path, int quiet, unsigned long long max)
{
	struct printer pr = {0, 0};
	struct prvchk_opts o = {print_problem, &pr, max};
	struct prvchk_stats st;
	memset(&st, 0, sizeof(st));
	int rc = prvchk_file(path, &o, &st);
	struct weft_err e;
	if (map_inputs_check(&e))
		return cli_report(&e);
	if (st.errors > pr.shown_err)
		fprintf(stderr, "weft: error: %s: %llu more error(s) not shown (%llu in all)\n", path,
			(unsigned long long) (st.errors - pr.shown_err), (unsigned long long) st.errors);
	if (st.warnings > pr.shown_warn)
		fprintf(stderr, "weft: warning: %s: %llu more warning(s) not shown\n", path,
			(unsigned long long) (st.warnings - pr.shown_warn));
	if (rc) {
		fprintf(stderr, "weft: %s: invalid: %llu error(s), %llu warning(s)\n", path,
			(unsigned long long) st.errors, (unsigned long long) st.warnings);
		return WEFT_EINPUT;
	}
	if (!quiet) {
		printf("%s: ok: %llu records (%llu states, %llu events, %llu communications", path,
		       (unsigned long long) st.records, (unsigned long long) st.states,
		       (unsigned long long) st.events, (unsigned long long) st.comms);
		if (st.globalops)
			printf(", %llu global operations", (unsigned long long) st.globalops);
		printf("), %u threads, %llu %s\n", st.nthreads, (unsigned long long) st.ftime, st.unit);
	}
	return 0;
}

/* --views DIR: the views of an emu output directory. */
static int check_views(const char *views, int quiet)
{
	struct weft_err err = {0};
	long n = viewcheck_dir(views, quiet, &err);
	if (n < 0) {
		fprintf(stderr, "weft: error: %s\n", err.msg);
		return WEFT_EINPUT;
	}
	if (n > 0) {
		fprintf(stderr, "weft: %s: %ld view problem(s)\n", views, n);
		return WEFT_EINPUT;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* DIR: its traces (in name order) and, with a cfg/ folder, its views. */
static int check_dir(const char *dir, int quiet, unsigned long long max)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "weft: error: %s: cannot open directory\n", dir);
		return WEFT_EINPUT;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t k = strlen(de->d_name);
		if ((k > 4 && strcmp(de->d_name + k - 4, ".prv") == 0) ||
		    (k > 7 && strcmp(de->d_name + k - 7, ".prv.gz") == 0)) {
			names = weft_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = weft_xasprintf("%s/%s", dir, de->d_name);
		}
	}
	closedir(d);
	if (n == 0) {
		fprintf(stderr,
			"weft: error: %s: no Paraver trace in it (*.prv, *.prv.gz: weft emu writes thread.prv "
			"and cpu.prv)\n",
			dir);
		return WEFT_EINPUT;
	}
	qsort(names, n, sizeof(*names), cmp_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (check_one(names[i], quiet, max))
			rc = WEFT_EINPUT;
		free(names[i]);
	}
	free(names);
	char *cfg = weft_xasprintf("%s/cfg", dir);
	struct stat st;
	if (stat(cfg, &st) == 0 && S_ISDIR(st.st_mode) && check_views(dir, quiet))
		rc = WEFT_EINPUT;
	free(cfg);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct check_cmd k = {.max = 20};
	int rc = opts_parse(&check_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (k.views && argc > k.first)
		return cli_usage_error("check", "--views DIR takes no TRACE argument");
	if (k.views)
		return check_views(k.views, k.quiet);
	if (argc - k.first < 1)
		return cli_usage_error("check", "expected a TRACE.prv or TRACE.prv.gz file");
	rc = 0;
	for (int i = k.first; i < argc; i++) {
		struct stat st;
		int isdir = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode);
		if (isdir ? check_dir(argv[i], k.quiet, k.max) : check_one(argv[i], k.quiet, k.max))
			rc = WEFT_EINPUT;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "weft: error: cannot write to standard output\n");
		return WEFT_EINTERNAL;
	}
	return rc;
}
