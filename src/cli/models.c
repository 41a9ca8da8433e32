/* models: list the models weft knows and their event tables — the same
 * tables dump, the emulator and the docs use — and check model files. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "emu/engine.h"
#include "model.h"

static const char models_help[] =
	"Usage: weft models [--model FILE]... [MODEL]\n"
	"\n"
	"List the models weft knows (character, name, version, and the model file of\n"
	"those written as files) and, for each model with an event table, its events:\n"
	"MCV, payload signature, description, and whether the emulator models it.\n"
	"MODEL (a character or a name) shows one.\n"
	"\n"
	"Options:\n"
	"      --model FILE   read a model file first, as 'weft emu --model' does (it\n"
	"                     adds a model or replaces the one with its character):\n"
	"                     its errors are shown with their line and column\n"
	"  -h, --help         show this help\n";

int cmd_models(int argc, char **argv)
{
	static const struct option opts[] = {
		{"model", required_argument, 0, 'm'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': {
			struct weft_err err = {0};
			if (models_load(optarg, &err))
				return cli_report(&err);
			break;
		}
		case 'h':
			fputs(models_help, stdout);
			return 0;
		default:
			return cli_bad_option("models", c, optopt, argv, optind);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error("models", "expected at most one MODEL");
	const char *want = optind < argc ? argv[optind] : NULL;
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
