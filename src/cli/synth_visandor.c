/* synth_visandor: `weft synth --format visandor`: its options and the
 * generator's call (src/synth/visandor_synth.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/synth_formats.h"
#include "synth/visandor_synth.h"

static const char help[] =
	"Usage: weft synth --format visandor -o FILE [--kind and|or] [--agents N] [-n EVENTS]\n"
	"\n"
	"Write a synthetic VisAndOr log of about EVENTS events (default 100000) over N\n"
	"agents (default 4, at least 2): an and-parallel log in Ciao's layout, or an\n"
	"or-parallel one. Times are in microseconds, one event per microsecond or so.\n";

int synth_cmd_visandor(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"kind", required_argument, NULL, 'k'},
		{"agents", required_argument, NULL, 'a'}, {"events", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *kind = "and";
	long agents = 4;
	unsigned long long events = 100000;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:n:h", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'o': out = optarg; break;
		case 'k': kind = optarg; break;
		case 'a':
			agents = strtol(optarg, &end, 10);
			if (*end || agents < 2 || agents > 100000)
				return cli_usage_error("synth", "--agents: expected 2 to 100000, found '%s'", optarg);
			break;
		case 'n':
			events = strtoull(optarg, &end, 10);
			if (*end || events == 0)
				return cli_usage_error("synth", "--events: expected a positive count, found '%s'", optarg);
			break;
		case 'h': fputs(help, stdout); return 0;
		default: return cli_usage_error("synth", "unknown option (see 'weft synth --format visandor --help')");
		}
	}
	if (!out)
		return cli_usage_error("synth", "--format visandor: missing -o FILE");
	if (strcmp(kind, "and") != 0 && strcmp(kind, "or") != 0)
		return cli_usage_error("synth", "--kind: expected and or or, found '%s'", kind);
	struct weft_err e = {0};
	if (visandor_synth_write(out, kind[0] == 'o', (int) agents, events, &e))
		return cli_report(&e);
	return 0;
}
