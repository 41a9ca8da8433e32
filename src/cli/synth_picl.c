/* synth_picl: `weft synth --format picl`: its options, read into the
 * generator's (src/synth/picl_synth.h), and its report. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "synth/picl_synth.h"
#include "cli/synth_formats.h"

static const char help[] =
	"Usage: weft synth --format picl -o FILE [--procs P] [--traffic ring|all|random]\n"
	"                  [-n RECORDS] [--duration T] [--seed S] [--offset NS|LIST]\n"
	"                  [--drift PPM|LIST] [--latency MIN-MAX] [--size MIN-MAX]\n"
	"                  [--compute MIN-MAX] [--digits D] [--no-stats] [--truth FILE.json]\n"
	"\n"
	"Write a synthetic new-format PICL log: P processors exchange blocking messages\n"
	"in rounds (each round a user event), simulated in true time so that every\n"
	"receive ends at least one latency after its send began; each processor records\n"
	"its own clock t_local = t_true + offset + drift * t_true. Records are sorted by\n"
	"local time. The same options always give the same bytes.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE    the log to write (required)\n"
	"      --procs P        processors, 2 to 32767 (default 16)\n"
	"      --traffic KIND   ring (p to p+1), all (round r: p to p+1+r mod P-1),\n"
	"                       random (a random partner each round); default ring\n"
	"  -n, --records N      stop after about N records (default 1000000 unless\n"
	"                       --duration is given; suffixes k, M, G)\n"
	"      --duration T     stop when every processor has passed true time T\n"
	"                       (unit s unless given: ns, us, ms, s)\n"
	"      --seed S         random seed (default 1)\n"
	"      --offset NS      clock offset of each processor but 0, uniform in\n"
	"                       [-NS, NS] (unit ns unless given), or a comma list of\n"
	"                       exact per-processor offsets (0,1500,-2us,...); default 0\n"
	"      --drift PPM      clock drift of each processor but 0, uniform in\n"
	"                       [-PPM, PPM] parts per million (at most 1000, 3 decimals),\n"
	"                       or a comma list of exact values; default 0\n"
	"      --latency A-B    message latency range, unit ns unless given\n"
	"                       (default 2us-10us)\n"
	"      --size A-B       message sizes in bytes (default 8-4096)\n"
	"      --compute A-B    computation between calls (default 20us-200us)\n"
	"      --digits D       decimals of the timestamps, 0 to 9 (default 6, as PICL)\n"
	"      --no-stats       no -101/-102/-103 statistics records at the end\n"
	"      --truth FILE     write the true clock offsets and drifts as JSON\n"
	"  -h, --help           show this help\n";

int synth_cmd_picl(int argc, char **argv)
{
	enum { O_PROCS = 256, O_TRAFFIC, O_DURATION, O_SEED, O_OFFSET, O_DRIFT, O_LATENCY, O_SIZE, O_COMPUTE,
	       O_DIGITS, O_NOSTATS, O_TRUTH };
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},     {"procs", required_argument, NULL, O_PROCS},
		{"traffic", required_argument, NULL, O_TRAFFIC}, {"records", required_argument, NULL, 'n'},
		{"duration", required_argument, NULL, O_DURATION}, {"seed", required_argument, NULL, O_SEED},
		{"offset", required_argument, NULL, O_OFFSET}, {"drift", required_argument, NULL, O_DRIFT},
		{"latency", required_argument, NULL, O_LATENCY}, {"size", required_argument, NULL, O_SIZE},
		{"compute", required_argument, NULL, O_COMPUTE}, {"digits", required_argument, NULL, O_DIGITS},
		{"no-stats", no_argument, NULL, O_NOSTATS},  {"truth", required_argument, NULL, O_TRUTH},
		{"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0},
	};
	struct picl_synth_opts o = {.procs = 16, .traffic = TR_RING, .seed = 1, .lat_lo = 2000, .lat_hi = 10000,
				    .size_lo = 8, .size_hi = 4096, .comp_lo = 20000, .comp_hi = 200000, .digits = 6,
				    .stats = 1};
	const char *out = NULL, *truth = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:n:h", opts, NULL)) != -1) {
		uint64_t v;
		switch (c) {
		case 'o': out = optarg; break;
		case O_TRUTH: truth = optarg; break;
		case O_PROCS:
			if (cli_parse_count(optarg, UINT64_MAX, &v) || v < 2 || v > 32767)
				return cli_usage_error("synth", "--procs: expected 2 to 32767, found '%s'", optarg);
			o.procs = (int) v;
			break;
		case O_TRAFFIC:
			if (strcmp(optarg, "ring") == 0)
				o.traffic = TR_RING;
			else if (strcmp(optarg, "all") == 0 || strcmp(optarg, "all-to-all") == 0)
				o.traffic = TR_ALL;
			else if (strcmp(optarg, "random") == 0)
				o.traffic = TR_RANDOM;
			else
				return cli_usage_error("synth", "--traffic: expected ring, all or random, found '%s'",
						       optarg);
			break;
		case 'n':
			if (cli_parse_count(optarg, UINT64_MAX, &o.records) || o.records == 0)
				return cli_usage_error("synth", "--records: expected a positive count, found '%s'",
						       optarg);
			break;
		case O_DURATION:
			if (picl_synth_time(optarg, 1000000000, &o.duration) || o.duration <= 0)
				return cli_usage_error("synth", "--duration: expected a positive time, found '%s'",
						       optarg);
			break;
		case O_SEED:
			if (cli_parse_count(optarg, UINT64_MAX, &o.seed))
				return cli_usage_error("synth", "--seed: expected a number, found '%s'", optarg);
			break;
		case O_OFFSET: o.off_arg = optarg; break;
		case O_DRIFT: o.drift_arg = optarg; break;
		case O_LATENCY:
			if (picl_synth_range(optarg, 1, &o.lat_lo, &o.lat_hi))
				return cli_usage_error("synth", "--latency: expected MIN-MAX (e.g. 2us-10us), found '%s'",
						       optarg);
			break;
		case O_SIZE:
			if (picl_synth_range(optarg, 1, &o.size_lo, &o.size_hi) || o.size_hi > INT32_MAX / 2)
				return cli_usage_error("synth", "--size: expected MIN-MAX bytes, found '%s'", optarg);
			break;
		case O_COMPUTE:
			if (picl_synth_range(optarg, 1, &o.comp_lo, &o.comp_hi))
				return cli_usage_error("synth", "--compute: expected MIN-MAX (e.g. 20us-200us), found '%s'",
						       optarg);
			break;
		case O_DIGITS:
			if (cli_parse_count(optarg, UINT64_MAX, &v) || v > 9)
				return cli_usage_error("synth", "--digits: expected 0 to 9, found '%s'", optarg);
			o.digits = (int) v;
			break;
		case O_NOSTATS: o.stats = 0; break;
		case 'h': fputs(help, stdout); return 0;
		default: return cli_bad_option("synth", c, optopt, argv, optind);
		}
	}
	if (!out)
		return cli_usage_error("synth", "--format picl: missing -o FILE");
	if (optind != argc)
		return cli_usage_error("synth", "unexpected argument '%s'", argv[optind]);
	struct weft_err e = {0};
	struct picl_synth_done done;
	if (picl_synth_write(&o, out, truth, &done, &e))
		return e.code == WEFT_EUSAGE ? cli_usage_error("synth", "%s", e.msg) : cli_report(&e);
	printf("wrote %llu records (%llu messages, %d processors) to %s\n", (unsigned long long) done.records,
	       (unsigned long long) done.messages, o.procs, out);
	return 0;
}
