/* SPDX-License-Identifier: GPL-3.0-or-later */
/* weft: entry point; dispatches to a command by name from the command
 * table (src/cli/commands.c). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/mapfile.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: weft COMMAND [OPTIONS] ARGS...\n\n"
		   "weft turns parallel-program traces (ovni runtime traces) into answers.\n\n"
		   "Commands:\n");
	for (const struct cli_command *c = cli_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->what);
	fprintf(f,
		"\n'weft help COMMAND' (or 'weft COMMAND --help') describes a command; every\n"
		"command takes --version. Exit status: 0 ok, 1 bad input, 2 usage error,\n"
		"3 internal error.\n");
}

/* An unknown command: the nearest names, else the list; exit 2. */
static int unknown(const char *name)
{
	char near[256];
	cli_command_near(name, near, sizeof(near));
	if (near[0]) {
		fprintf(stderr, "weft: unknown command '%s'; did you mean %s?\n", name, near);
		return 2;
	}
	fprintf(stderr, "weft: unknown command '%s'; the commands are:", name);
	for (const struct cli_command *c = cli_commands; c->name; c++)
		fprintf(stderr, " %s", c->name);
	fprintf(stderr, "\nTry 'weft --help'.\n");
	return 2;
}

int main(int argc, char **argv)
{
	/* a file-size limit (ulimit -f) then fails a write with EFBIG, which
	 * weft reports and cleans up after, instead of killing the process */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		if (argc < 3 || argv[1][0] == '-') {
			usage(stdout);
			return 0;
		}
		/* weft help CMD: the command's own help */
		const struct cli_command *c = cli_command_find(argv[2]);
		if (!c)
			return unknown(argv[2]);
		opts_help(c->opts, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		cli_version(stdout);
		return 0;
	}
	const struct cli_command *c = cli_command_find(argv[1]);
	if (!c && argv[1][0] == '-') {
		fprintf(stderr, "weft: unknown option '%s' (options follow the command)\nTry 'weft --help'.\n",
			argv[1]);
		return 2;
	}
	if (!c)
		return unknown(argv[1]);
	int rc = c->run(argc - 1, argv + 1);
	/* what went to stdout came from an input that changed (commands that
	 * write files check before they commit) */
	struct weft_err e;
	if (rc == 0 && map_inputs_check(&e))
		rc = cli_report(&e);
	return rc;
}
