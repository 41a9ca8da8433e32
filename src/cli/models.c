/* SPDX-License-Identifier: GPL-3.0-or-later */
/* models: list the models weft knows and their event tables — the same
 * tables dump, the emulator and the docs use — and check model files. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "engine/engine.h"
#include "model.h"

/* The command's struct: where the arguments start, -e, and the models
 * the command line's files gave (by character). */
struct models_cmd {
	int first;
	int events;
	struct cli_models models;
};

static int opt_model(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct models_cmd *mc = dst;
	(void) cmd, (void) row;
	cli_models_add(&mc->models, arg); /* loaded after the options */
	return 0;
}

/* Is m the model of a file --model gave? */
static int given(const struct cli_models *cm, const struct weft_model_def *m)
{
	for (int i = 0; m->file && i < cm->nfiles; i++)
		if (strcmp(m->file, cm->files[i]) == 0)
			return 1;
	return 0;
}

#define K struct models_cmd
static const struct opt models_opts[] = {
	OPT_WHOLE("model", 0, "FILE", opt_model,
		  "read a model file first, as 'weft emu --model' does (it\n"
		  "adds a model or replaces the one with its character):\n"
		  "its errors are shown with their line and column"),
	OPT_FLAG("events", 'e', K, events, "list every model's events too"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd models_cmdline = {
	.name = "models",
	.synopsis = "[--model FILE]... [-e] [MODEL]",
	.about = "List the models weft knows, one line each: character, name, version, number\n"
		 "of events, and where it comes from (built in, written in C or as a model\n"
		 "file, or the file --model gave). MODEL (a character or a name) shows one with\n"
		 "its event table: MCV, payload signature, description, and whether the\n"
		 "emulator models it; -e shows every model's table.\n",
	.opts = models_opts,
};

int cmd_models(int argc, char **argv)
{
	struct models_cmd mc = {0};
	int rc = opts_parse(&models_cmdline, &mc, argc, argv, &mc.first);
	if (rc < 0 && argc - mc.first > 1)
		rc = cli_usage_error("models", "expected at most one MODEL");
	if (rc >= 0) {
		cli_models_free(&mc.models); /* the --model files kept, never loaded */
		return rc;
	}
	const char *want = mc.first < argc ? argv[mc.first] : NULL;
	struct weft_err err = {0};
	if (cli_models_make(&mc.models, &err)) {
		rc = cli_report(&err);
		cli_models_free(&mc.models);
		return rc;
	}
	const struct weft_model_def *const *all = mc.models.set.all;
	int n = mc.models.set.n;
	int shown = 0;
	for (int i = 0; i < n; i++) {
		const struct weft_model_def *m = all[i];
		if (want && !(want[0] == m->id && want[1] == '\0') && !(want[0] && strcmp(want, m->name) == 0))
			continue;
		shown++;
		printf("%c %-9s %-6s ", m->id, m->name, m->version[0] ? m->version : "-");
		if (!m->nevents)
			printf("        -  recognised: its events are counted, not decoded\n");
		else if (given(&mc.models, m))
			printf("%3d events  file %s\n", m->nevents, m->file);
		else
			printf("%3d events  built in%s\n", m->nevents, m->file ? " (model file)" : "");
		if (!want && !mc.events)
			continue;
		for (int k = 0; k < m->nevents; k++) {
			const struct weft_evdecl *d = &m->events[k];
			printf("  %s%s  %-32s %s%s\n", d->mcv, d->jumbo ? "+" : " ",
			       d->sig[0] ? d->sig : "-", d->desc, d->handler ? "" : "  [not emulated]");
		}
	}
	rc = shown ? 0 : cli_usage_error("models", "no model '%s'", want);
	cli_models_free(&mc.models);
	return rc;
}
