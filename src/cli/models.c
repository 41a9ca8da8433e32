/* models: list the models weft knows and their event tables — the same
 * tables dump, the emulator and the docs use. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "model.h"

static const char models_help[] =
	"Usage: weft models [MODEL]\n"
	"\n"
	"List the models weft knows (character, name, version) and, for each model\n"
	"with an event table, its events: MCV, payload signature, description, and\n"
	"whether the emulator models it. MODEL (a character or a name) shows one.\n";

int cmd_models(int argc, char **argv)
{
	if (argc > 1 && (argv[1][0] == '-')) {
		if (argv[1][1] == 'h' || argv[1][1] == '-') {
			fputs(models_help, stdout);
			return 0;
		}
		return cli_usage_error("models", "unknown option '%s'", argv[1]);
	}
	if (argc > 2)
		return cli_usage_error("models", "expected at most one MODEL");
	const struct weft_model_def *const *all;
	int n = model_all(&all);
	int shown = 0;
	for (int i = 0; i < n; i++) {
		const struct weft_model_def *m = all[i];
		if (argc == 2 && !(argv[1][0] == m->id && argv[1][1] == '\0') &&
		    !(argv[1][0] && strcmp(argv[1], m->name) == 0))
			continue;
		shown++;
		printf("%c %-9s %s%s\n", m->id, m->name, m->version[0] ? m->version : "-",
		       m->nevents ? "" : "  (recognised; events counted, not decoded)");
		for (int k = 0; k < m->nevents; k++) {
			const struct weft_evdecl *d = &m->events[k];
			printf("  %s%s  %-32s %s%s\n", d->mcv, d->jumbo ? "+" : " ",
			       d->sig[0] ? d->sig : "-", d->desc, d->handler ? "" : "  [not emulated]");
		}
	}
	if (!shown)
		return cli_usage_error("models", "no model '%s'", argv[1]);
	return 0;
}
