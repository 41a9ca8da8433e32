/* SPDX-License-Identifier: GPL-3.0-or-later */
/* commands: the command table and the nearest command to a typo. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"

const struct cli_command cli_commands[] = {
	{"emu", cmd_emu, "emulate an ovni trace into Paraver traces", &emu_cmdline},
	{"sync", cmd_sync, "estimate clock offsets and drifts from the trace's messages", &sync_cmdline},
	{"dump", cmd_dump, "print every event of a trace in time order", &dump_cmdline},
	{"top", cmd_top, "count events per MCV and per model", &top_cmdline},
	{"query", cmd_query, "check event patterns against every event, in one pass", &query_cmdline},
	{"serve", cmd_serve, "replay a trace for analysers on a socket (the tracer driver)", &serve_cmdline},
	{"attach", cmd_attach, "the interactive toplevel over a weft serve socket", &attach_cmdline},
	{"synth", cmd_synth, "write a synthetic ovni trace", &synth_cmdline},
	{"import", cmd_import, "convert a legacy log into an ovni trace directory", &import_cmdline},
	{"models", cmd_models, "list the models and event tables weft knows", &models_cmdline},
	{"check", cmd_check, "validate a Paraver trace (.prv/.prv.gz with .pcf, .row)", &check_cmdline},
	{"stats", cmd_stats, "time, count and bytes per thread, state and operation", &stats_cmdline},
	{"plot", cmd_plot, "draw a Paraver trace as an SVG picture", &plot_cmdline},
	{"diff", cmd_diff, "compare two Paraver traces for what they mean", &diff_cmdline},
	{"completion", cmd_completion, "print the bash or zsh completion script", &completion_cmdline},
	{NULL, NULL, NULL, NULL},
};

const struct cli_command *cli_command_find(const char *name)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Optimal string alignment distance (Levenshtein plus swaps of two
 * neighbours), for names of at most 31 bytes; longer ones are 99 away. */
static int distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 31 || nb > 31)
		return 99;
	int d[32][32];
	for (size_t i = 0; i <= na; i++)
		d[i][0] = (int) i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = (int) j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[na][nb];
}

void cli_command_near(const char *name, char *buf, size_t n)
{
	int best = 3;
	size_t len = strlen(name);
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		int k = distance(name, c->name);
		if (k < best && (size_t) k < len)
			best = k;
	}
	buf[0] = '\0';
	if (best > 2)
		return;
	size_t used = 0;
	for (const struct cli_command *c = cli_commands; c->name; c++)
		if (distance(name, c->name) == best && used < n) {
			int k = snprintf(buf + used, n - used, "%s'%s'", used ? " or " : "", c->name);
			if (k > 0)
				used += (size_t) k;
		}
}
