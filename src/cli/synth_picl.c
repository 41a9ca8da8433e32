/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth_picl: `weft synth --format picl`: its options, read into the
 * generator's (src/synth/picl_synth.h), and its report. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "synth/picl_synth.h"
#include "cli/synth_formats.h"

/* What the command line asked for. */
struct picl_cmd {
	struct picl_synth_opts o;
	const char *out, *truth;
	int first; /* argv[first..]: none expected */
};

/* A count of *row's range: procs 2..32767, segments 1..16, digits 0..9. */
static int opt_int(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	int procs = strcmp(row->name, "procs") == 0, segs = strcmp(row->name, "segments") == 0;
	uint64_t v, lo = procs ? 2 : segs ? 1 : 0, hi = procs ? 32767 : segs ? 16 : 9;
	if (cli_parse_count(arg, UINT64_MAX, &v) || v < lo || v > hi)
		return cli_usage_error(cmd, "--%s: expected %llu to %llu, found '%s'", row->name,
				       (unsigned long long) lo, (unsigned long long) hi, arg);
	*(int *) dst = (int) v;
	return 0;
}

static int opt_traffic(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	enum picl_traffic *t = dst;
	(void) row;
	if (strcmp(arg, "ring") == 0)
		*t = TR_RING;
	else if (strcmp(arg, "all") == 0 || strcmp(arg, "all-to-all") == 0)
		*t = TR_ALL;
	else if (strcmp(arg, "random") == 0)
		*t = TR_RANDOM;
	else
		return cli_usage_error(cmd, "--traffic: expected ring, all or random, found '%s'", arg);
	return 0;
}

static int opt_duration(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	(void) row;
	if (picl_synth_time(arg, 1000000000, dst) || *(int64_t *) dst <= 0)
		return cli_usage_error(cmd, "--duration: expected a positive time, found '%s'", arg);
	return 0;
}

/* --latency, --size, --compute: MIN-MAX (dst: the whole struct picl_cmd) */
static int opt_range(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct picl_synth_opts *o = &((struct picl_cmd *) dst)->o;
	if (strcmp(row->name, "size") == 0) {
		if (picl_synth_range(arg, 1, &o->size_lo, &o->size_hi) || o->size_hi > INT32_MAX / 2)
			return cli_usage_error(cmd, "--size: expected MIN-MAX bytes, found '%s'", arg);
		return 0;
	}
	int lat = strcmp(row->name, "latency") == 0;
	if (picl_synth_range(arg, 1, lat ? &o->lat_lo : &o->comp_lo, lat ? &o->lat_hi : &o->comp_hi))
		return cli_usage_error(cmd, "--%s: expected MIN-MAX (e.g. %s), found '%s'", row->name,
				       lat ? "2us-10us" : "20us-200us", arg);
	return 0;
}

#define K struct picl_cmd
static const struct opt picl_opts[] = {
	OPT_STRING("output", 'o', "FILE", K, out, "the log to write (required)"),
	OPT_CALL("procs", 0, "P", K, o.procs, opt_int, "processors, 2 to 32767 (default 16)"),
	OPT_CALL("traffic", 0, "ring|all|random", K, o.traffic, opt_traffic,
		 "ring (p to p+1), all (round r: p to p+1+r mod P-1),\n"
		 "random (a random partner each round); default ring"),
	OPT_CALL("records", 'n', "N", K, o.records, opt_count1,
		 "stop after about N records (default 1000000 unless\n"
		 "--duration is given; suffixes k, M, G)"),
	OPT_CALL("duration", 0, "T", K, o.duration, opt_duration,
		 "stop when every processor has passed true time T\n"
		 "(unit s unless given: ns, us, ms, s)"),
	OPT_CALL("seed", 0, "S", K, o.seed, opt_count0, "random seed (default 1)"),
	OPT_STRING("offset", 0, "NS", K, o.off_arg,
		   "clock offset of each processor but 0, uniform in\n"
		   "[-NS, NS] (unit ns unless given), or a comma list of\n"
		   "exact per-processor offsets (0,1500,-2us,...); default 0"),
	OPT_STRING("drift", 0, "PPM", K, o.drift_arg,
		   "clock drift of each processor but 0, uniform in\n"
		   "[-PPM, PPM] parts per million (at most 1000, 3 decimals),\n"
		   "or a comma list of exact values; default 0"),
	OPT_STRING("rate-change", 0, "P:T:PPM", K, o.rate_arg,
		   "processor P's drift changes by PPM at true time T\n"
		   "(unit s unless given); a comma list for several"),
	OPT_STRING("step", 0, "P:T:NS", K, o.step_arg,
		   "processor P's clock jumps forward by NS (unit ns\n"
		   "unless given) at true time T; a comma list for several"),
	OPT_CALL("segments", 0, "K", K, o.segments, opt_int,
		 "K segments per processor but 0 (with --duration): drifts\n"
		 "in [-PPM, PPM] of --drift, changes at random times"),
	OPT_WHOLE("latency", 0, "A-B", opt_range,
		  "message latency range, unit ns unless given\n"
		  "(default 2us-10us)"),
	OPT_WHOLE("size", 0, "A-B", opt_range, "message sizes in bytes (default 8-4096)"),
	OPT_WHOLE("compute", 0, "A-B", opt_range, "computation between calls (default 20us-200us)"),
	OPT_CALL("digits", 0, "D", K, o.digits, opt_int, "decimals of the timestamps, 0 to 9 (default 6, as PICL)"),
	OPT_SETV("no-stats", 0, K, o.stats, 0, "no -101/-102/-103 statistics records at the end"),
	OPT_STRING("truth", 0, "FILE", K, truth, "write the true clock offsets and drifts as JSON"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd picl_cmdline = {
	.name = "synth",
	.synopsis = "--format picl -o FILE [OPTIONS]",
	.about = "Write a synthetic new-format PICL log: P processors exchange blocking messages\n"
		 "in rounds (each round a user event), simulated in true time so that every\n"
		 "receive ends at least one latency after its send began; each processor records\n"
		 "its own clock t_local = t_true + offset + drift * t_true, or a piecewise one\n"
		 "(--rate-change, --step, --segments). Records are sorted by local time. The\n"
		 "same options always give the same bytes.\n",
	.opts = picl_opts,
};

int synth_cmd_picl(int argc, char **argv)
{
	struct picl_cmd k = {.o = {.procs = 16, .traffic = TR_RING, .seed = 1, .lat_lo = 2000, .lat_hi = 10000,
				   .size_lo = 8, .size_hi = 4096, .comp_lo = 20000, .comp_hi = 200000, .digits = 6,
				   .stats = 1}};
	int rc = opts_parse(&picl_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (!k.out)
		return cli_usage_error("synth", "--format picl: missing -o FILE");
	if (k.first != argc)
		return cli_usage_error("synth", "unexpected argument '%s'", argv[k.first]);
	struct weft_err e = {0};
	struct picl_synth_done done;
	if (picl_synth_write(&k.o, k.out, k.truth, &done, &e))
		return e.code == WEFT_EUSAGE ? cli_usage_error("synth", "%s", e.msg) : cli_report(&e);
	printf("wrote %llu records (%llu messages, %d processors) to %s\n", (unsigned long long) done.records,
	       (unsigned long long) done.messages, k.o.procs, k.out);
	return 0;
}
