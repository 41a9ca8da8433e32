/* sync: estimate every loom's clock offset and drift from the trace's
 * matched messages and write weft's clock file (doc/clock.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/clockopts.h"
#include "emu/sync.h"

static const char sync_help[] =
	"Usage: weft sync [OPTIONS] TRACE...\n"
	"\n"
	"Estimate the clock offset and drift of every loom (node) from the messages\n"
	"the models match (PICL sends and receives): a message cannot arrive before it\n"
	"was sent, so each one bounds the receiver's clock against the sender's, and\n"
	"messages both ways bound it from both sides. weft keeps, per pair of looms,\n"
	"the convex hull of those bounds and fits one line per loom (offset and drift)\n"
	"that stays as far from every bound as possible (doc/clock.md). It prints each\n"
	"loom's correction at the start and the end of the trace with its bound, the\n"
	"receive-before-send pairs before and after, and writes the clock file, which\n"
	"-c FILE of every command reads. Looms linked by no message keep the clock they\n"
	"were given, and are listed.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE    clock file to write (default: TRACE/clock.json for a\n"
	"                       trace directory, FILE.clock.json for a log)\n"
	"  -c, --clock FILE     clocks to start from: weft clock file or ovnisync table\n"
	"                       (default: TRACE/clock-offsets.txt when present)\n"
	"      --sync=none      start from raw clocks, ignoring TRACE/clock-offsets.txt\n"
	"      --min-latency D  shortest possible message latency (default 0; units ns,\n"
	"                       us, ms, s)\n"
	"      --no-verify      skip the second pass that counts receive-before-send\n"
	"                       pairs with the estimated clocks\n"
	"      --align INPUT=OFFSET  shift one input (several inputs, see weft emu)\n"
	"      --same-nodes     equal loom numbers of several inputs share a node\n"
	"  -q, --quiet          print nothing but errors\n"
	"      --format NAME    read TRACE as this log format instead of detecting it\n"
	"      --time-unit U    time unit of a VisAndOr log (ns, us, ms, s)\n"
	"      --charisma-profile NAME|FILE  machine profile of a CHARISMA log\n"
	"  -h, --help           show this help\n"
	"\n"
	"Exit status: 0 ok, 1 bad input, 2 usage, 3 internal error.\n";

static const char *status_name(enum est_status s)
{
	static const char *const names[] = {"unlinked", "reference", "estimated", "one-sided", "inconsistent"};
	return names[s];
}

static void bound_str(double b, char *buf, size_t n)
{
	if (b < 0)
		snprintf(buf, n, "unbounded");
	else
		snprintf(buf, n, "+-%.3f", b / 1e3);
}

static void report(const struct sync_result *r, const char *out, int verified, uint64_t after, double secs)
{
	printf("weft sync: %llu messages between looms (%llu loom pairs, %llu hull vertices kept), "
	       "span %.6f s, %d linked component%s\n",
	       (unsigned long long) r->nmsg, (unsigned long long) r->nlinks, (unsigned long long) r->nvertices,
	       (double) (r->t1 - r->t0) / 1e9, r->ncomponents, r->ncomponents == 1 ? "" : "s");
	printf("%-20s %-12s %16s %16s %13s %14s %14s %10s\n", "loom", "status", "start (us)", "end (us)",
	       "drift (ppm)", "bound start", "bound end", "messages");
	for (int g = 0; g < r->nlooms; g++) {
		const struct sync_loom *l = &r->loom[g];
		char b0[32], b1[32], ppm[32];
		bound_str(l->bound0, b0, sizeof(b0));
		bound_str(l->bound1, b1, sizeof(b1));
		clock_ppm_str(r->table.ent[g].map.drift, ppm, sizeof(ppm));
		printf("%-20s %-12s %16.3f %16.3f %13s %14s %14s %10llu\n", l->name, status_name(l->status),
		       (double) l->corr0 / 1e3, (double) l->corr1 / 1e3, ppm, b0, b1, (unsigned long long) l->nmsg);
	}
	int unlinked = 0;
	for (int g = 0; g < r->nlooms; g++)
		unlinked += r->loom[g].status == EST_UNLINKED;
	if (unlinked) {
		printf("looms linked by no message (their given clocks are kept):");
		for (int g = 0; g < r->nlooms; g++)
			if (r->loom[g].status == EST_UNLINKED)
				printf(" %s", r->loom[g].name);
		printf("\n");
	}
	for (int g = 0; g < r->nlooms; g++)
		if (r->loom[g].status == EST_ONE_SIDED)
			printf("%s: its messages bound it from one side only: the smallest correction that "
			       "removes every violation is used\n", r->loom[g].name);
		else if (r->loom[g].status == EST_INCONSISTENT)
			printf("%s: no offset and drift remove every violation (clock not linear, or "
			       "messages matched wrongly?): the line with the smallest violation is used\n",
			       r->loom[g].name);
	if (verified)
		printf("receive-before-send pairs: %llu before, %llu after\n",
		       (unsigned long long) r->nviol_before, (unsigned long long) after);
	else
		printf("receive-before-send pairs: %llu before (not verified after: --no-verify)\n",
		       (unsigned long long) r->nviol_before);
	printf("clock file: %s (%.2f s)\n", out, secs);
}

int cmd_sync(int argc, char **argv)
{
	enum { O_NO_VERIFY = 256 };
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'}, {"clock", required_argument, 0, 'c'},
		{"quiet", no_argument, 0, 'q'},        {"no-verify", no_argument, 0, O_NO_VERIFY},
		CLOCKOPTS_LONG,
		{"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
	};
	struct emu_opts o = {.progress = 1};
	struct clockopts co = {0};
	const char *out = NULL;
	int quiet = 0, verify = 1, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:c:qh", opts, NULL)) != -1) {
		int r = clockopts_parse("sync", &co, c, optarg);
		if (r == 2) {
			clockopts_free(&co);
			return 2;
		}
		if (r == 1)
			continue;
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			o.clock_file = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case O_NO_VERIFY:
			verify = 0;
			break;
		case 'h':
			fputs(sync_help, stdout);
			clockopts_free(&co);
			return 0;
		default:
			clockopts_free(&co);
			return cli_bad_option("sync", c, optopt, argv, optind);
		}
	}
	if (co.mode == SYNC_MESSAGES) {
		clockopts_free(&co);
		return cli_usage_error("sync", "--sync=messages is what weft sync does; give none or file");
	}
	if (argc - optind < 1) {
		clockopts_free(&co);
		return cli_usage_error("sync", "expected TRACE, found no argument");
	}
	clockopts_apply(&co, &o);
	o.inputs = (const char *const *) argv + optind;
	o.ninputs = argc - optind;
	o.progress = !quiet;
	const char *trace = argv[optind];
	char *outdef = NULL;
	if (!out) {
		struct stat st;
		if (stat(trace, &st) == 0 && S_ISDIR(st.st_mode))
			out = outdef = weft_xasprintf("%s/clock.json", trace);
		else
			out = outdef = weft_xasprintf("%s.clock.json", trace);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct weft_err err = {0};
	struct sync_result r;
	int rc = sync_estimate(trace, &o, co.min_latency, &r, &err);
	int have_r = rc == 0;
	uint64_t after = 0;
	if (rc == 0 && verify) {
		/* the second pass: the same inputs with the estimated clocks */
		struct emu_opts vo = o;
		vo.outdir = NULL;
		vo.quiet = 1;
		vo.no_gate = 1;
		vo.clock_table = &r.table;
		vo.reuse = &r.tr;
		r.have_tr = 0;
		struct emu e;
		rc = emu_open(&e, trace, &vo, &err);
		if (rc == 0)
			rc = emu_run(&e, &err);
		after = e.pairs.nviol;
		emu_free(&e);
	}
	if (rc == 0)
		rc = clockfile_write(&r.table, out, "weft sync " WEFT_VERSION, r.linked, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc == 0 && !quiet)
		report(&r, out, verify,
		       after, (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (have_r)
		sync_result_free(&r);
	free(outdef);
	clockopts_free(&co);
	return rc ? cli_report(&err) : 0;
}
