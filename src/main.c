/* weft: entry point; dispatches to a command by name from a table. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} commands[] = {
	{"emu", cmd_emu, "emulate an ovni trace into Paraver traces"},
	{"sync", cmd_sync, "estimate clock offsets and drifts from the trace's messages"},
	{"dump", cmd_dump, "print every event of a trace in time order"},
	{"top", cmd_top, "count events per MCV and per model"},
	{"query", cmd_query, "check event patterns against every event, in one pass"},
	{"serve", cmd_serve, "replay a trace for analysers on a socket (the tracer driver)"},
	{"attach", cmd_attach, "the interactive toplevel over a weft serve socket"},
	{"synth", cmd_synth, "write a synthetic ovni trace"},
	{"import", cmd_import, "convert a legacy log into an ovni trace directory"},
	{"models", cmd_models, "list the models and event tables weft knows"},
	{"check", cmd_check, "validate a Paraver trace (.prv/.prv.gz with .pcf, .row)"},
	{"stats", cmd_stats, "time, count and bytes per thread, state and operation"},
	{"plot", cmd_plot, "draw a Paraver trace as an SVG picture"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: weft COMMAND [OPTIONS] ARGS...\n\n"
		   "weft turns parallel-program traces (ovni runtime traces) into answers.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n'weft COMMAND --help' describes a command. Exit status: 0 ok, 1 bad input,\n"
		   "2 usage error, 3 internal error.\n");
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
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("weft " WEFT_VERSION "\n");
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "weft: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
