/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diff: `weft diff A.prv B.prv` — two Paraver traces compared for what
 * they mean (src/diff/diff.h): weft's against ovniemu's, or two runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "diff/diff.h"

#define MAX_RANGES 64

/* What the command line asked for. */
struct diff_cmd {
	struct diff_opts o;
	struct diff_range ranges[MAX_RANGES];
	int first;
};

/* --types 1-4,6,100-199 */
static int opt_types(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct diff_cmd *k = dst;
	(void) row;
	const char *p = arg;
	k->o.ntypes = 0;
	while (*p) {
		char *e;
		long long lo = strtoll(p, &e, 10), hi = lo;
		if (e == p || lo < 0 || lo > 4294967295LL)
			return cli_usage_error(cmd, "--types: expected types and ranges such as 1-4,6, found '%s'",
					       arg);
		if (*e == '-') {
			p = e + 1;
			hi = strtoll(p, &e, 10);
			if (e == p || hi < lo || hi > 4294967295LL)
				return cli_usage_error(cmd, "--types: expected a range LO-HI with LO <= HI in '%s'",
						       arg);
		}
		if (k->o.ntypes == MAX_RANGES)
			return cli_usage_error(cmd, "--types: more than %d ranges", MAX_RANGES);
		k->ranges[k->o.ntypes++] = (struct diff_range){lo, hi};
		if (*e != ',' && *e != '\0')
			return cli_usage_error(cmd, "--types: expected ',' or the end after a type in '%s'", arg);
		p = *e ? e + 1 : e;
	}
	k->o.types = k->ranges;
	return 0;
}

static int opt_rows(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	(void) row;
	if (strcmp(arg, "name") && strcmp(arg, "ovni"))
		return cli_usage_error(cmd, "--rows: expected name or ovni, found '%s'", arg);
	*(enum diff_rows *) dst = arg[0] == 'o' ? DIFF_ROWS_OVNI : DIFF_ROWS_NAME;
	return 0;
}

static int opt_state_type(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	uint64_t v;
	(void) row;
	if (cli_parse_count(arg, INT64_MAX, &v))
		return cli_usage_error(cmd, "--state-type: expected an event type, found '%s'", arg);
	*(int64_t *) dst = (int64_t) v;
	return 0;
}

#define K struct diff_cmd
static const struct opt diff_opts_table[] = {
	OPT_WHOLE("types", 0, "LIST", opt_types, "event types to compare, e.g. 1-4,6,100-199 (default: all)"),
	OPT_CALL("rows", 0, "name|ovni", K, o.rows, opt_rows,
		 "match rows by their whole name (default) or by its first\n"
		 "two words (ovni: ovniemu's 'TH 1.5' is 'TH 1.5 node00/3')"),
	OPT_FLAG("states", 0, K, o.states, "compare the state records too, as one step function a row"),
	OPT_CALL("state-type", 0, "T", K, o.state_type, opt_state_type,
		 "with --states: a trace without state records takes its\n"
		 "states from its events of type T (ovniemu's thread states\n"
		 "are type 4)"),
	OPT_FLAG("records", 0, K, o.records,
		 "compare every record (time and value, zeros and repeats\n"
		 "too), not the step functions"),
	OPT_FLAG("order", 0, K, o.order, "the rows must be in the same order too"),
	OPT_CALL("max", 0, "N", K, o.max, opt_count0, "print at most N differences (default 20; all are counted)"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd diff_cmdline = {
	.name = "diff",
	.synopsis = "[--rows name|ovni] [--types LIST] [--states [--state-type T]] [--records] [--order]\n"
		    "[--max N] A.prv B.prv\n",
	.about = "Compare two Paraver traces (.prv or .prv.gz, each with its .row) for what they\n"
		 "mean: rows matched by name; for every (row, event type) the values as a step\n"
		 "function of time (at one time the last record wins, 0 before the first, a\n"
		 "repeated value changes nothing). Each differing (row, type) is reported at its\n"
		 "first difference, in time order:\n"
		 "  row KEY type T: first difference at time X: A has V1, B has V2\n"
		 "then 'N differences in M (row, type) pairs'. Communications and comments are\n"
		 "not compared. A name repeated in one trace (ovniemu's 'TH 2.50' for a pid in\n"
		 "two looms) is matched in row order: its n-th row with the other trace's n-th\n"
		 "row of that name (KEY 'TH 2.50 #2' for the second).\n"
		 "Checking weft against ovniemu on one trace:\n"
		 "  cp -R trace t1 && ovniemu t1 && weft emu -o w t1\n"
		 "  weft diff --rows ovni --states --state-type 4 t1/thread.prv w/thread.prv\n"
		 "Both traces are read once, side by side: any length, in memory for the\n"
		 "(row, type) pairs only; they must be sorted by time (weft and ovniemu's are).\n",
	.opts = diff_opts_table,
	.more = "Exit status: 0 no differences, 1 differences, 2 usage or input error (as\n"
		"diff(1) and cmp(1)), 3 internal error.\n",
};

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd k = {.o = {.state_type = -1, .max = 20}};
	int rc = opts_parse(&diff_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (argc - k.first != 2)
		return cli_usage_error("diff", "expected two traces, A.prv and B.prv, found %d", argc - k.first);
	if (k.o.state_type >= 0 && !k.o.states)
		return cli_usage_error("diff", "--state-type needs --states");
	struct weft_err err = {0};
	struct diff_result res;
	if (diff_traces(argv[k.first], argv[k.first + 1], &k.o, stdout, &res, &err)) {
		WEFT_IGNORED(cli_report(&err));
		return err.code == WEFT_EINTERNAL ? WEFT_EINTERNAL : 2;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "weft: error: cannot write to standard output\n");
		return WEFT_EINTERNAL;
	}
	return res.ndiff ? 1 : 0;
}
