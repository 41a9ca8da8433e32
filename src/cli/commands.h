/* SPDX-License-Identifier: GPL-3.0-or-later */
/* commands: the table of weft's commands (name, entry, one line of what it
 * does, its option table), shared by the dispatcher (main.c), `weft help
 * CMD` and `weft completion`, and the nearest name to a mistyped one. */
#ifndef WEFT_COMMANDS_H
#define WEFT_COMMANDS_H

#include "cli/opts.h"

struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
	const struct optcmd *opts;
};

/* NULL-terminated (name NULL). */
extern const struct cli_command cli_commands[];

/* The command called name, or NULL. */
const struct cli_command *cli_command_find(const char *name);
/* For an unknown name: the commands at the least edit distance from it (a
 * letter added, dropped, changed, or two swapped), if that is at most 2
 * and less than its length, as "'emu'" or "'top' or 'stats'" in buf;
 * buf[0] is 0 when none is that near. */
void cli_command_near(const char *name, char *buf, size_t n);

extern const struct optcmd check_cmdline, dump_cmdline, emu_cmdline, import_cmdline, models_cmdline, plot_cmdline,
	query_cmdline, stats_cmdline, sync_cmdline, synth_cmdline, top_cmdline, completion_cmdline, diff_cmdline,
	serve_cmdline, attach_cmdline;

#endif
