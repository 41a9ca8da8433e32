/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clockopts: shared clock and input options (see clockopts.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/clockopts.h"
#include "util/macros.h"

int clockopts_sync(const char *cmd, const struct opt *o, void *dst, const char *arg)
{
	static const struct { const char *name; enum sync_mode mode; } modes[] = {
		{"file", SYNC_FILE}, {"none", SYNC_NONE}, {"messages", SYNC_MESSAGES},
	};
	struct clockopts *c = dst;
	(void) o;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (strcmp(arg, modes[i].name) == 0) {
			c->mode = modes[i].mode;
			return 0;
		}
	return cli_usage_error(cmd, "--sync: expected none, file or messages, found '%s'", arg);
}

int clockopts_min_latency(const char *cmd, const struct opt *o, void *dst, const char *arg)
{
	struct clockopts *c = dst;
	(void) o;
	if (clock_parse_duration(arg, &c->min_latency) || c->min_latency < 0)
		return cli_usage_error(cmd, "--min-latency: expected a duration >= 0 such as 500 (ns), "
				       "1us or 0.5us, found '%s'", arg);
	return 0;
}

int clockopts_align(const char *cmd, const struct opt *o, void *dst, const char *arg)
{
	struct clockopts *c = dst;
	char why[1200];
	(void) o;
	c->align = weft_xrealloc(c->align, (size_t) (c->nalign + 1) * sizeof(*c->align));
	if (clock_parse_align(arg, &c->align[c->nalign], why, sizeof(why)))
		return cli_usage_error(cmd, "%s", why);
	c->nalign++;
	return 0;
}

void clockopts_apply(const struct clockopts *c, struct emu_opts *o)
{
	o->no_clock_files = c->mode == SYNC_NONE;
	o->align = c->align;
	o->nalign = c->nalign;
	o->same_nodes = c->same_nodes;
	o->imp = c->imp;
}

void clockopts_free(struct clockopts *c)
{
	free(c->align);
	memset(c, 0, sizeof(*c));
}
