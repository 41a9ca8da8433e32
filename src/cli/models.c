/* models: list the models weft knows and their event tables — the same
 * tables dump, the emulator and the docs use — and check model files. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "emu/engine.h"
#include "model.h"

static int opt_model(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct weft_err err = {0};
	(void) cmd, (void) row, (void) dst;
	return models_load(arg, &err) ? cli_report(&err) : 0;
}

/* The command's struct: only where the arguments start. */
struct models_cmd {
	int first;
};

static const struct opt models_opts[] = {
	OPT_CALL("model", 0, "FILE", struct models_cmd, first, opt_model,
		 "read a model file first, as 'weft emu --model' does (it\n"
		 "adds a model or replaces the one with its character):\n"
		 "its errors are shown with their line and column"),
	OPT_HELPROW,
	OPT_ENDROW,
};

static const struct optcmd models_cmdline = {
	.name = "models",
	.synopsis = "[--model FILE]... [MODEL]",
	.about = "List the models weft knows (character, name, version, and the model file of\n"
		 "those written as files) and, for each model with an event table, its events:\n"
		 "MCV, payload signature, description, and whether the emulator models it.\n"
		 "MODEL (a character or a name) shows one.\n",
	.opts = models_opts,
};

int cmd_models(int argc, char **argv)
{
	struct models_cmd mc = {0};
	int rc = opts_parse(&models_cmdline, &mc, argc, argv, &mc.first);
	if (rc >= 0)
		return rc;
	if (argc - mc.first > 1)
		return cli_usage_error("models", "expected at most one MODEL");
	const char *want = mc.first < argc ? argv[mc.first] : NULL;
	const struct weft_model_def *const *all;
	int n = model_all(&all);
	int shown = 0;
	for (int i = 0; i < n; i++) {
		const struct weft_model_def *m = all[i];
		if (want && !(want[0] == m->id && want[1] == '\0') && !(want[0] && strcmp(want, m->name) == 0))
			continue;
		shown++;
		const struct mf_model *f = engine_file(m);
		printf("%c %-9s %s%s%s%s\n", m->id, m->name, m->version[0] ? m->version : "-",
		       m->nevents ? "" : "  (recognised; events counted, not decoded)", f ? "  file " : "",
		       f ? f->path : "");
		for (int k = 0; k < m->nevents; k++) {
			const struct weft_evdecl *d = &m->events[k];
			printf("  %s%s  %-32s %s%s\n", d->mcv, d->jumbo ? "+" : " ",
			       d->sig[0] ? d->sig : "-", d->desc, d->handler ? "" : "  [not emulated]");
		}
	}
	if (!shown)
		return cli_usage_error("models", "no model '%s'", want);
	return 0;
}
