/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth_visandor: `weft synth --format visandor`: its options and the
 * generator's call (src/synth/visandor_synth.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/synth_formats.h"
#include "synth/visandor_synth.h"

/* What the command line asked for. */
struct visandor_cmd {
	const char *out, *kind;
	long agents;
	uint64_t events;
	int first; /* argv[first..]: not read (as before the table) */
};

static int opt_agents(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);
	(void) row;
	if (*end || v < 2 || v > 100000)
		return cli_usage_error(cmd, "--agents: expected 2 to 100000, found '%s'", arg);
	*(long *) dst = v;
	return 0;
}

#define K struct visandor_cmd
static const struct opt visandor_opts[] = {
	OPT_STRING("output", 'o', "FILE", K, out, "the log to write (required)"),
	OPT_STRING("kind", 0, "and|or", K, kind, "an and-parallel log (default) or an or-parallel one"),
	OPT_CALL("agents", 0, "N", K, agents, opt_agents, "agents, 2 to 100000 (default 4)"),
	OPT_CALL("events", 'n', "EVENTS", K, events, opt_count1, "about how many events (default 100000)"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd visandor_cmdline = {
	.name = "synth",
	.synopsis = "--format visandor -o FILE [--kind and|or] [--agents N] [-n EVENTS]",
	.about = "Write a synthetic VisAndOr log of about EVENTS events (default 100000) over N\n"
		 "agents (default 4, at least 2): an and-parallel log in Ciao's layout, or an\n"
		 "or-parallel one. Times are in microseconds, one event per microsecond or so.\n",
	.opts = visandor_opts,
};

int synth_cmd_visandor(int argc, char **argv)
{
	struct visandor_cmd k = {.kind = "and", .agents = 4, .events = 100000};
	int rc = opts_parse(&visandor_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (!k.out)
		return cli_usage_error("synth", "--format visandor: missing -o FILE");
	if (strcmp(k.kind, "and") != 0 && strcmp(k.kind, "or") != 0)
		return cli_usage_error("synth", "--kind: expected and or or, found '%s'", k.kind);
	struct weft_err e = {0};
	uint64_t n = 0;
	if (visandor_synth_write(k.out, k.kind[0] == 'o', (int) k.agents, k.events, &n, &e))
		return cli_report(&e);
	printf("wrote %llu events (%ld agents, %s-parallel) to %s\n", (unsigned long long) n, k.agents, k.kind, k.out);
	return 0;
}
