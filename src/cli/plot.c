/* plot: `weft plot` — an SVG picture of a Paraver trace (src/plot/). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "plot/plot.h"

static const char plot_help[] =
	"Usage: weft plot [-o OUT.svg] [--type T] [--width PX] [--max-rows N] [-q] TRACE.prv\n"
	"\n"
	"Draw a Paraver trace (TRACE.prv with TRACE.pcf and TRACE.row beside it) as\n"
	"one SVG file, to look at a run without Paraver: one row per thread or CPU,\n"
	"the states in the .pcf colours (or, with --type, the values of one event\n"
	"type), communication lines, a time axis, a legend with the .pcf labels and\n"
	"each state's share of time, and a bar chart of the time per state per row.\n"
	"Any length of trace in bounded memory: the timeline is cut into pixel\n"
	"columns and each pixel shows the state with the most time in it; with more\n"
	"rows than --max-rows, rows are drawn in groups.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the SVG (default: TRACE with .svg for .prv)\n"
	"  -t, --type T        draw the values of event type T instead of the states\n"
	"                      (for cpu.prv, which has no state records: e.g. --type 2)\n"
	"  -w, --width PX      timeline width in pixels (default 1000, 100-20000)\n"
	"  -r, --max-rows N    rows drawn before grouping (default 400, 1-10000)\n"
	"  -q, --quiet         print nothing on success\n"
	"  -h, --help          show this help\n"
	"Prints 'OUT: N rows, M records, K communications' and exits 0; 1 when the\n"
	"trace cannot be read, 3 when the SVG cannot be written.\n";

static int number(const char *s, long lo, long hi, long *out)
{
	char *e;
	long v = strtol(s, &e, 10);
	if (e == s || *e || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'}, {"type", required_argument, 0, 't'},
		{"width", required_argument, 0, 'w'},  {"max-rows", required_argument, 0, 'r'},
		{"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct plot_opts o = {NULL, NULL, 1000, 400, -1};
	int quiet = 0, c;
	long v;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:t:w:r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 't':
			if (number(optarg, 0, 2147483647L, &v))
				return cli_usage_error("plot", "--type: expected an event type >= 0, found '%s'", optarg);
			o.type = v;
			break;
		case 'w':
			if (number(optarg, 100, 20000, &v))
				return cli_usage_error("plot", "--width: expected 100-20000 pixels, found '%s'", optarg);
			o.width = (int) v;
			break;
		case 'r':
			if (number(optarg, 1, 10000, &v))
				return cli_usage_error("plot", "--max-rows: expected 1-10000, found '%s'", optarg);
			o.max_rows = (int) v;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(plot_help, stdout);
			return 0;
		default:
			return cli_bad_option("plot", c, optopt, argv, optind);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("plot", "expected one TRACE.prv");
	o.prv = argv[optind];
	char *out = NULL;
	if (!o.out) {
		size_t n = strlen(o.prv);
		if (n > 4 && strcmp(o.prv + n - 4, ".prv") == 0)
			n -= 4;
		out = weft_xasprintf("%.*s.svg", (int) n, o.prv);
		o.out = out;
	}
	struct weft_err err = {0};
	struct plot_stats st;
	int rc = 0;
	if (plot_svg(&o, &st, &err))
		rc = cli_report(&err);
	else if (st.intervals == 0 && o.type < 0)
		fprintf(stderr, "weft: warning: %s has no state records: the rows are empty; draw the values "
				"of an event type with --type T (e.g. --type 2 for a cpu.prv)\n", o.prv);
	if (rc == 0 && !quiet)
		printf("%s: %u rows%s, %llu records, %llu communications (%llu lines drawn)\n", o.out, st.rows,
		       st.bins < st.rows ? " (grouped)" : "", (unsigned long long) st.records,
		       (unsigned long long) st.comms, (unsigned long long) st.lines);
	free(out);
	return rc;
}
