/* synth_charisma: `weft synth --format charisma`: its options, read into
 * the generator's (src/synth/charisma_synth.h), and its report. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "synth/charisma_synth.h"
#include "cli/cli.h"
#include "cli/synth_formats.h"

static const char help[] =
	"Usage: weft synth --format charisma -o FILE [--profile NAME|FILE] [--byte-order le|be]\n"
	"                  [--size BYTES] [--apps A] [--clients C] [--files F] [--seed S]\n"
	"\n"
	"Write a synthetic CHARISMA file-system trace of about BYTES bytes (default 10M;\n"
	"suffixes k, M, G) laid out by the machine profile (default charisma-default;\n"
	"built-in: charisma-default, charisma-packed, charisma-align4; or a profile file)\n"
	"in little-endian (iPSC/860, default) or big-endian (CM-5) byte order. A\n"
	"applications (default 8) share C clients (default 64); each client cycles\n"
	"through F private files (default 4) besides its application's shared file.\n"
	"Every record type but machine-dependent ones appears (declared ones once,\n"
	"zeroed, after the header). Times are in microsecond ticks. The same options\n"
	"always give the same bytes.\n";

int synth_cmd_charisma(int argc, char **argv)
{
	enum { O_PROFILE = 256, O_ORDER, O_SIZE, O_APPS, O_CLIENTS, O_FILES, O_SEED };
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},      {"profile", required_argument, NULL, O_PROFILE},
		{"byte-order", required_argument, NULL, O_ORDER}, {"size", required_argument, NULL, O_SIZE},
		{"apps", required_argument, NULL, O_APPS},     {"clients", required_argument, NULL, O_CLIENTS},
		{"files", required_argument, NULL, O_FILES},   {"seed", required_argument, NULL, O_SEED},
		{"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *order = "le";
	struct charisma_synth_opts o = {.profile = "charisma-default", .size = 10000000, .apps = 8, .clients = 64,
					.files = 4, .seed = 1};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		uint64_t *v = NULL, lo = 1, hi = 0;
		const char *name = NULL;
		switch (c) {
		case 'o': out = optarg; continue;
		case O_PROFILE: o.profile = optarg; continue;
		case O_ORDER: order = optarg; continue;
		case 'h': fputs(help, stdout); return 0;
		case O_SIZE: v = &o.size, name = "--size", hi = UINT64_MAX; break;
		case O_APPS: v = &o.apps, name = "--apps", hi = 256; break;
		case O_CLIENTS: v = &o.clients, name = "--clients", hi = 65536; break;
		case O_FILES: v = &o.files, name = "--files", hi = 1000; break;
		case O_SEED: v = &o.seed, name = "--seed", lo = 0, hi = UINT64_MAX; break;
		default: return cli_bad_option("synth", c, optopt, argv, optind);
		}
		/* a byte count or number, with an optional k, M or G suffix */
		if (cli_parse_count(optarg, UINT64_MAX, v) || *v < lo || *v > hi)
			return cli_usage_error("synth", "%s: expected a number from %llu to %llu, found '%s'", name,
					       (unsigned long long) lo, (unsigned long long) hi, optarg);
	}
	if (!out)
		return cli_usage_error("synth", "--format charisma: missing -o FILE");
	if (optind != argc)
		return cli_usage_error("synth", "unexpected argument '%s'", argv[optind]);
	if (strcmp(order, "le") && strcmp(order, "be"))
		return cli_usage_error("synth", "--byte-order: expected le or be, found '%s'", order);
	if (o.clients < o.apps)
		return cli_usage_error("synth", "--clients (%llu) must be at least --apps (%llu)",
				       (unsigned long long) o.clients, (unsigned long long) o.apps);
	o.big_endian = order[0] == 'b';
	struct weft_err e = {0};
	struct charisma_synth_done done;
	if (charisma_synth_write(&o, out, &done, &e))
		return cli_report(&e);
	printf("wrote %llu records (%llu bytes) to %s\n", (unsigned long long) done.records,
	       (unsigned long long) done.bytes, out);
	return 0;
}
