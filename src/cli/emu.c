/* emu: ovni trace -> Paraver thread and cpu traces. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "emu.h"

static const char emu_help[] =
	"Usage: weft emu [OPTIONS] TRACE\n"
	"\n"
	"Emulate TRACE (an ovni trace directory, or a legacy log that weft imports)\n"
	"and write Paraver traces:\n"
	"thread.{prv,pcf,row} (one row per thread) and cpu.{prv,pcf,row} (one row per\n"
	"CPU, plus one virtual CPU per loom), and the view files in cfg/.\n"
	"The ovni model (thread states, CPU affinity, marks, flushes) is emulated with\n"
	"ovniemu's Paraver types and values; thread states are also written as Paraver\n"
	"states. Events of other models are counted and reported, not emulated.\n"
	"Clocks: TRACE/clock-offsets.txt (ovnisync's table) is applied when present.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR   write into DIR (default: TRACE itself, like ovniemu; for a\n"
	"                     log file, FILE.paraver)\n"
	"  -c, --clock FILE   ovnisync offset table to use (then it must exist)\n"
	"  -k, --keep-going   report model errors as warnings, skip the event, go on\n"
	"  -l, --lint         also check at the end: mark stacks empty, no open flush\n"
	"      --strict       events of models weft does not emulate are errors\n"
	"  -z, --gzip         write thread.prv.gz and cpu.prv.gz\n"
	"  -q, --quiet        no warnings, no progress, no summary\n"
	"      --lookback N   bytes an unordered region may reach back (default 1 MiB)\n"
	"      --format NAME  read TRACE as this log format instead of detecting it\n"
	"      --time-unit U  time unit of a VisAndOr log (ns, us, ms, s)\n"
	"      --charisma-profile NAME|FILE  machine profile of a CHARISMA log\n"
	"  -h, --help         show this help\n"
	"\n"
	"Exit status: 0 ok, 1 bad input or model error, 2 usage, 3 internal error.\n"
	"A failed run leaves no .prv behind.\n";

int cmd_emu(int argc, char **argv)
{
	enum { O_STRICT = 256, O_LOOKBACK, O_FORMAT, O_TIME_UNIT, O_PROFILE };
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'}, {"clock", required_argument, 0, 'c'},
		{"keep-going", no_argument, 0, 'k'},   {"lint", no_argument, 0, 'l'},
		{"strict", no_argument, 0, O_STRICT},  {"gzip", no_argument, 0, 'z'},
		{"quiet", no_argument, 0, 'q'},        {"lookback", required_argument, 0, O_LOOKBACK},
		{"format", required_argument, 0, O_FORMAT},
		{"time-unit", required_argument, 0, O_TIME_UNIT},
		{"charisma-profile", required_argument, 0, O_PROFILE},
		{"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
	};
	struct emu_opts o = {.progress = 1};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:c:klzqh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.outdir = optarg;
			break;
		case 'c':
			o.clock_file = optarg;
			break;
		case 'k':
			o.keep_going = 1;
			break;
		case 'l':
			o.lint = 1;
			break;
		case O_STRICT:
			o.strict = 1;
			break;
		case 'z':
			o.gzip = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case O_LOOKBACK: {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*end || v < 64 || optarg[0] == '-')
				return cli_usage_error("emu", "--lookback: expected a byte count >= 64, found '%s'",
						       optarg);
			o.window = v;
			break;
		}
		case O_FORMAT:
			o.imp.format = optarg;
			break;
		case O_TIME_UNIT:
			o.imp.time_unit = optarg;
			break;
		case O_PROFILE:
			o.imp.profile = optarg;
			break;
		case 'h':
			fputs(emu_help, stdout);
			return 0;
		default:
			return cli_bad_option("emu", c, optopt, argv, optind);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("emu", "expected one TRACE directory, found %d arguments", argc - optind);
	const char *trace = argv[optind];
	char *outdef = NULL;
	struct stat st;
	if (!o.outdir && stat(trace, &st) == 0 && S_ISREG(st.st_mode))
		o.outdir = outdef = weft_xasprintf("%s.paraver", trace); /* a legacy log */
	if (!o.outdir)
		o.outdir = trace;

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct weft_err err = {0};
	struct emu e;
	int rc = emu_open(&e, trace, &o, &err);
	if (rc == 0)
		rc = emu_run(&e, &err);
	if (rc == 0)
		rc = emu_close(&e, &err);
	uint64_t n = e.nevents;
	int nth = e.nth, ncpu = e.ncpu;
	emu_free(&e);
	if (rc) {
		free(outdef);
		return cli_report(&err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!o.quiet)
		fprintf(stderr, "weft: %llu events in %.2f s (%.1f M events/s): %s/thread.prv%s (%d rows), "
				"%s/cpu.prv%s (%d rows)\n",
			(unsigned long long) n, s, s > 0 ? (double) n / s / 1e6 : 0.0, o.outdir,
			o.gzip ? ".gz" : "", nth, o.outdir, o.gzip ? ".gz" : "", ncpu);
	free(outdef);
	return 0;
}
