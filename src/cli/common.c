/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common: error and usage reporting shared by the commands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "emu/emu.h"
#include "model.h"
#include "registry.h"
#include "require.h"
#include "trace/trace.h"
#include "util/mapfile.h"

void cli_version(FILE *f)
{
	fputs("weft " WEFT_VERSION "\n"
	      "License GPL-3.0-or-later: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
	      "This is free software: you are free to change and redistribute it.\n"
	      "There is NO WARRANTY, to the extent permitted by law.\n",
	      f);
}

int cli_report(const struct weft_err *e)
{
	/* an input that shrank under its map reads as zeros past its new end:
	 * whatever error they made up, the cause is the change */
	struct weft_err ch;
	if (map_inputs_check(&ch))
		e = &ch;
	fprintf(stderr, "weft: error: %s\n", e->msg);
	return e->code ? e->code : WEFT_EINTERNAL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "weft %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'weft %s --help'.\n", cmd);
	return WEFT_EUSAGE;
}

int cli_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || s[0] == '-')
		return -1;
	uint64_t mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (*end != '\0' || v > max / mul)
		return -1;
	*out = v * mul;
	return 0;
}

void cli_models_add(struct cli_models *m, const char *file)
{
	m->files = weft_xrealloc(m->files, (size_t) (m->nfiles + 1) * sizeof(*m->files));
	m->files[m->nfiles++] = file;
}

int cli_models_make(struct cli_models *m, struct weft_err *err)
{
	m->reg = model_registry_new();
	for (int i = 0; i < m->nfiles; i++)
		if (model_registry_load(m->reg, m->files[i], err))
			return -1;
	m->set = model_registry_set(m->reg);
	return 0;
}

void cli_models_free(struct cli_models *m)
{
	model_registry_free(m->reg);
	free(m->files);
	memset(m, 0, sizeof(*m));
}

void cli_registry(struct emu_opts *o, const struct cli_models *m)
{
	o->models = m->set;
}

void cli_trace_models(struct trace_opts *to, const struct cli_models *m)
{
	to->require = model_require;
	to->require_arg = &m->set;
}

void cli_salvage_report(const char *cmd, const struct weft_trace *t)
{
	int ncut = 0, nopen = 0;
	for (int i = 0; i < t->nstreams; i++) {
		const struct weft_stream *s = &t->streams[i];
		nopen += s->active;
		if (!s->was_cut)
			continue;
		const struct obs_cut *c = &s->cut;
		char what[128];
		if (!c->mcv[0])
			snprintf(what, sizeof(what), "an event cut inside its 12-byte header");
		else if (!c->need)
			snprintf(what, sizeof(what), "jumbo event %s cut inside its 16-byte header", c->mcv);
		else
			snprintf(what, sizeof(what), "event %s, %llu of its %llu bytes there", c->mcv,
				 (unsigned long long) c->dropped, (unsigned long long) c->need);
		fprintf(stderr,
			"weft %s: --salvage: %s: cut mid-event: read up to byte offset %llu, the last whole "
			"event's end; dropped %llu byte%s (%s)\n",
			cmd, s->obs_path, (unsigned long long) c->off, (unsigned long long) c->dropped,
			c->dropped == 1 ? "" : "s", what);
		ncut++;
	}
	fprintf(stderr, "weft %s: --salvage: %d of %d stream%s cut mid-event%s\n", cmd, ncut, nopen,
		nopen == 1 ? "" : "s", ncut ? ", each read up to its last whole event" : "");
}
