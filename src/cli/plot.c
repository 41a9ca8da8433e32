/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plot: `weft plot` — an SVG picture of a Paraver trace (src/plot/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "util/atomicfile.h"
#include "plot/plot.h"
#include "util/macros.h"

static int number(const char *s, long lo, long hi, long *out)
{
	char *e;
	long v = strtol(s, &e, 10);
	if (e == s || *e || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* What the command line asked for. */
struct plot_cmd {
	struct plot_opts o;
	int quiet;
	int first; /* argv[first]: TRACE.prv */
};

/* The numeric options: each row's range and message. */
static const struct {
	const char *name;
	long lo, hi;
	const char *expected;
} plot_ranges[] = {
	{"width", 100, 20000, "100-20000 pixels"},
	{"max-rows", 1, 10000, "1-10000"},
};

/* --type: a number, or a label of the .pcf (resolved when it is read) */
static int opt_type(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct plot_opts *o = dst;
	long v;
	(void) cmd, (void) row;
	if (number(arg, 0, 2147483647L, &v) == 0)
		o->type = v, o->type_label = NULL;
	else if (arg[0] == '-' || arg[0] == '\0' || (arg[0] >= '0' && arg[0] <= '9'))
		return cli_usage_error(cmd, "--type: expected an event type >= 0 or a type's label, found '%s'", arg);
	else
		o->type_label = arg;
	return 0;
}

static int opt_number(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(plot_ranges); i++) {
		long v;
		if (strcmp(row->name, plot_ranges[i].name) != 0)
			continue;
		if (number(arg, plot_ranges[i].lo, plot_ranges[i].hi, &v))
			return cli_usage_error(cmd, "--%s: expected %s, found '%s'", row->name,
					       plot_ranges[i].expected, arg);
		*(int *) dst = (int) v;
		return 0;
	}
	return cli_usage_error(cmd, "--%s: no range", row->name);
}

#define K struct plot_cmd
static const struct opt plot_opts_table[] = {
	OPT_STRING("output", 'o', "FILE", K, o.out, "the SVG (default: TRACE with .svg for .prv or .prv.gz)"),
	OPT_CALL("type", 't', "T", K, o, opt_type,
		 "draw the values of event type T instead of the states: its\n"
		 "number, or its .pcf label or a part of it (--type tid);\n"
		 "default for a trace without states (cpu.prv): its main\n"
		 "type"),
	OPT_CALL("width", 'w', "PX", K, o.width, opt_number, "timeline width in pixels (default 1000, 100-20000)"),
	OPT_CALL("max-rows", 'r', "N", K, o.max_rows, opt_number, "rows drawn before grouping (default 400, 1-10000)"),
	OPT_FLAG("quiet", 'q', K, quiet, "print nothing on success"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd plot_cmdline = {
	.name = "plot",
	.synopsis = "[-o OUT.svg] [--type T] [--width PX] [--max-rows N] [-q] TRACE.prv[.gz]",
	.about = "Draw a Paraver trace (TRACE.prv or TRACE.prv.gz with TRACE.pcf and TRACE.row\n"
		 "beside it) as one SVG file, to look at a run without Paraver: one row per\n"
		 "thread or CPU, the states (or, with --type, the values of one event type) in\n"
		 "the colours wxParaver gives them, communication lines, a time axis, a legend\n"
		 "with the .pcf labels and each state's share of time, and a bar chart of the\n"
		 "time per state per row. A trace without state records (cpu.prv) is drawn by\n"
		 "its main event type (a runtime's subsystem, else the running thread).\n"
		 "Any length of trace in bounded memory: the timeline is cut into pixel\n"
		 "columns and each pixel shows the state with the most time in it; with more\n"
		 "rows than --max-rows, rows are drawn in groups.\n",
	.opts = plot_opts_table,
	.more = "Prints 'OUT: N rows, M records, K communications' and exits 0; 1 when the\n"
		"trace cannot be read, 2 on a usage error or a --type the trace does not have\n"
		"(the types it has are listed), 3 when the SVG cannot be written.\n",
};

int cmd_plot(int argc, char **argv)
{
	struct plot_cmd k = {.o = {.width = 1000, .max_rows = 400, .type = -1}};
	int rc = opts_parse(&plot_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (argc - k.first != 1)
		return cli_usage_error("plot", "expected one TRACE.prv");
	struct plot_opts o = k.o;
	int quiet = k.quiet;
	o.prv = argv[k.first];
	char *out = NULL;
	if (!o.out) {
		size_t n = strlen(o.prv);
		if (n > 7 && strcmp(o.prv + n - 7, ".prv.gz") == 0)
			n -= 7;
		else if (n > 4 && strcmp(o.prv + n - 4, ".prv") == 0)
			n -= 4;
		out = weft_xasprintf("%.*s.svg", (int) n, o.prv);
		o.out = out;
	}
	struct weft_err err = {0};
	struct plot_stats st;
	rc = 0;
	if (atomic_check(o.out, 0, &err)) { /* an unusable name: before the work */
		free(out);
		return cli_report(&err);
	}
	if (plot_svg(&o, &st, &err))
		rc = cli_report(&err);
	else if (st.intervals == 0 && st.type < 0)
		fprintf(stderr,
			"weft: warning: %s has no state records and no event records: the rows are "
			"empty\n",
			o.prv);
	else if (st.chosen && !quiet)
		fprintf(stderr,
			"weft: %s has no state records: drawn by event type %lld, its main type "
			"(--type T draws another)\n",
			o.prv, (long long) st.type);
	if (rc == 0 && !quiet)
		printf("%s: %u rows%s, %llu records, %llu communications (%llu lines drawn)\n", o.out, st.rows,
		       st.bins < st.rows ? " (grouped)" : "", (unsigned long long) st.records,
		       (unsigned long long) st.comms, (unsigned long long) st.lines);
	free(out);
	return rc;
}
