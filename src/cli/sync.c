/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sync: estimate every loom's clock offset and drift from the trace's
 * matched messages and write weft's clock file (doc/clock.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/clockopts.h"
#include "cli/opts.h"
#include "util/atomicfile.h"
#include "emu/sync.h"
#include "util/mapfile.h"

/* What the command line asked for. */
struct sync_cmd {
	struct emu_opts o;
	struct cli_models models;
	struct clockopts co;
	const char *out;
	int quiet, verify, repair, bounds;
	int first; /* argv[first..]: the inputs */
};

#define K struct sync_cmd
static const struct opt sync_opts[] = {
	OPT_STRING("output", 'o', "FILE", K, out,
		   "clock file to write (default: TRACE/clock.json for a\n"
		   "trace directory, FILE.clock.json for a log)"),
	OPT_STRING("clock", 'c', "FILE", K, o.clock_file,
		   "clocks to start from: weft clock file or ovnisync table\n"
		   "(default: TRACE/clock-offsets.txt when present)"),
	OPT_CALL("sync", 0, "none", K, co, clockopts_sync, "start from raw clocks, ignoring TRACE/clock-offsets.txt"),
	OPT_CALL("min-latency", 0, "D", K, co, clockopts_min_latency,
		 "shortest possible message latency (default 0; units ns,\n"
		 "us, ms, s)"),
	OPT_SETV("no-verify", 0, K, verify, 0,
		 "skip the passes after the estimate: no count of the\n"
		 "receive-before-send pairs left, no repair"),
	OPT_SETV("no-repair", 0, K, repair, 0,
		 "keep the estimated lines: no controlled-logical-clock\n"
		 "moves for the receives still before their sends"),
	OPT_FLAG("bounds", 0, K, bounds,
		 "also bound each loom's clock: how far it can be shifted,\n"
		 "its reference fixed, before a message is received before\n"
		 "it was sent (from the last pass's messages; report and\n"
		 "clock file)"),
	OPT_CALL("align", 0, "INPUT=OFFSET", K, co, clockopts_align, "shift one input (several inputs, see weft emu)"),
	OPT_FLAG("same-nodes", 0, K, co.same_nodes, "equal loom numbers of several inputs share a node"),
	OPT_FLAG("quiet", 'q', K, quiet, "print nothing but errors"),
	OPT_IMPORT_ROWS(K, co.imp),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd sync_cmdline = {
	.name = "sync",
	.synopsis = "[OPTIONS] TRACE...",
	.about = "Estimate every loom's (node's) clock from the messages the models match\n"
		 "(PICL sends and receives): a message cannot arrive before it was sent, so each\n"
		 "one bounds the receiver's clock against the sender's. weft keeps, per pair of\n"
		 "looms, the tightest bound of each time bin (memory fixed per pair), finds\n"
		 "where a clock changes rate or steps, and fits one line per segment halfway\n"
		 "between the bounds (doc/clock.md). Receives still before their sends are then\n"
		 "moved forward by a controlled logical clock (local intervals change by at most\n"
		 "0.9 %; --no-repair keeps the lines). It prints each loom's correction at the\n"
		 "start and the end, its segments and scatter, the receive-before-send pairs\n"
		 "before and after, the receives moved, and writes the clock file, which every\n"
		 "command then reads from its usual place (or -c FILE). Looms linked by no\n"
		 "message keep the clock they were given, and are listed.\n",
	.opts = sync_opts,
	.more = "Exit status: 0 ok, 1 bad input, 2 usage, 3 internal error.\n",
};

static const char *status_name(enum est_status s)
{
	static const char *const names[] = {"unlinked", "reference", "estimated", "one-sided", "inconsistent"};
	return names[s];
}

/* One side of a loom's bound in us: "-1.234", "+5.678", "-inf", "+inf". */
static void bound_side(double v, char *out, size_t n)
{
	if (isinf(v))
		snprintf(out, n, "%cinf", v < 0 ? '-' : '+');
	else
		snprintf(out, n, "%c%.3f", v < 0 ? '-' : '+', fabs(v) / 1e3);
}

static void report(const struct sync_result *r, const struct sync_cmd *k, double secs)
{
	printf("weft sync: %llu messages between looms (%llu loom pairs, %llu bin points kept), "
	       "span %.6f s, %d linked component%s, %d break%s found (%d located by a second pass), "
	       "fits of at most %d iterations\n",
	       (unsigned long long) r->nmsg, (unsigned long long) r->nlinks, (unsigned long long) r->nvertices,
	       (double) (r->t1 - r->t0) / 1e9, r->ncomponents, r->ncomponents == 1 ? "" : "s", r->nbreaks,
	       r->nbreaks == 1 ? "" : "s", r->nlocated, r->cg_iters);
	printf("%-20s %-12s %16s %16s %13s %9s %11s %10s%s\n", "loom", "status", "start (us)", "end (us)",
	       "drift (ppm)", "segments", "scatter", "messages", r->have_bounds ? "    bound (us)" : "");
	for (int g = 0; g < r->nlooms; g++) {
		const struct sync_loom *l = &r->loom[g];
		char ppm[32], sc[32];
		clock_ppm_str(r->table.ent[g].map.drift, ppm, sizeof(ppm));
		snprintf(sc, sizeof(sc), "%.3f", l->scatter / 1e3);
		int own = l->status == EST_REFERENCE || l->status == EST_UNLINKED;
		char bd[80] = "", lo[32], hi[32];
		if (r->have_bounds) {
			bound_side(l->lo, lo, sizeof(lo));
			bound_side(l->hi, hi, sizeof(hi));
			snprintf(bd, sizeof(bd), " %13s%s%s", own ? "-" : lo, own ? "" : "/", own ? "" : hi);
		}
		printf("%-20s %-12s %16.3f %16.3f %13s %9d %11s %10llu%s\n", l->name, status_name(l->status),
		       (double) l->corr0 / 1e3, (double) l->corr1 / 1e3, ppm, l->nseg, own ? "-" : sc,
		       (unsigned long long) l->nmsg, bd);
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
	if (!k->verify) {
		printf("receive-before-send pairs: %llu before (not verified after: --no-verify)\n",
		       (unsigned long long) r->nviol_before);
	} else {
		printf("receive-before-send pairs: %llu before, %llu after\n", (unsigned long long) r->nviol_before,
		       (unsigned long long) r->nviol_after);
		if (!k->repair)
			printf("repair: off (--no-repair)\n");
		else
			printf("repair: %llu late receives moved forward in %d pass%s, largest move %.3f us\n",
			       (unsigned long long) r->moved, r->rounds, r->rounds == 1 ? "" : "es", r->largest / 1e3);
	}
	printf("clock file: %s (%.2f s)\n", k->out, secs);
}

/* Read the command line; -1: run, else the exit status. */
static int sync_parse(struct sync_cmd *k, int argc, char **argv)
{
	int rc = opts_parse(&sync_cmdline, k, argc, argv, &k->first);
	if (rc >= 0)
		return rc;
	if (k->co.mode == SYNC_MESSAGES)
		return cli_usage_error("sync", "--sync=messages is what weft sync does; give none or file");
	if (argc - k->first < 1)
		return cli_usage_error("sync", "expected TRACE, found no argument");
	if (k->bounds && !k->verify)
		return cli_usage_error("sync", "--bounds needs the pass after the estimate, which --no-verify skips");
	clockopts_apply(&k->co, &k->o);
	struct weft_err err = {0};
	if (cli_models_make(&k->models, &err))
		return cli_report(&err);
	cli_registry(&k->o, &k->models);
	k->o.inputs = (const char *const *) argv + k->first;
	k->o.ninputs = argc - k->first;
	k->o.progress = !k->quiet;
	return -1;
}

int cmd_sync(int argc, char **argv)
{
	struct sync_cmd k = {.o = {.progress = 1}, .verify = 1, .repair = 1};
	char *outdef = NULL;
	struct sync_result r;
	int have_r = 0;
	int rc = sync_parse(&k, argc, argv);
	if (rc >= 0)
		goto out;
	const char *trace = argv[k.first];
	if (!k.out) {
		struct stat st;
		if (stat(trace, &st) == 0 && S_ISDIR(st.st_mode))
			k.out = outdef = weft_xasprintf("%s/clock.json", trace);
		else
			k.out = outdef = weft_xasprintf("%s.clock.json", trace);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct weft_err err = {0};
	rc = atomic_check(k.out, 0, &err); /* an unusable name: before the work */
	if (rc == 0)
		rc = sync_estimate(trace, &k.o, k.co.min_latency, &r, &err);
	have_r = rc == 0;
	if (rc == 0 && r.nmsg == 0)
		rc = weft_fail(&err, WEFT_EINPUT,
			       "%s: no message between two looms was matched (%llu pairs in all): weft sync "
			       "estimates clocks from the sends and receives the msg model pairs (PICL logs; "
			       "ovni's MPI model pairs none), so it writes nothing; for an ovni trace, run "
			       "ovnisync during the job: every command reads its clock-offsets.txt",
			       trace, (unsigned long long) r.npairs);
	if (rc == 0 && k.verify)
		rc = sync_repair(&r, &k.o, k.co.min_latency, k.repair, SYNC_ROUNDS, k.bounds, &err);
	if (rc == 0)
		rc = map_inputs_check(&err);
	if (rc == 0)
		rc = clockfile_write(&r.table, k.out, "weft sync " WEFT_VERSION, r.linked, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc == 0 && !k.quiet)
		report(&r, &k, (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9);
	rc = rc ? cli_report(&err) : 0;
out:
	if (have_r)
		sync_result_free(&r);
	free(outdef);
	clockopts_free(&k.co);
	cli_models_free(&k.models);
	return rc;
}
