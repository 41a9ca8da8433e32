/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clockopts: the clock and input options weft emu and weft sync share:
 * --sync=none|file|messages, --min-latency, --align INPUT=OFFSET (repeated),
 * --same-nodes, and how to read a legacy log (--format, --time-unit,
 * --charisma-profile). Each command writes its own rows (opts.h) with
 * its own help lines; the values go into a struct clockopts through the
 * handlers below. */
#ifndef WEFT_CLOCKOPTS_H
#define WEFT_CLOCKOPTS_H

#include "cli/opts.h"
#include "emu/emu.h"

enum sync_mode { SYNC_FILE = 0, SYNC_NONE, SYNC_MESSAGES };

struct clockopts {
	enum sync_mode mode;
	int64_t min_latency;
	struct clock_align *align;
	int nalign;
	int same_nodes;
	struct import_opts imp;
};

/* Handlers (opt_fn) of rows whose member is the struct clockopts. */
int clockopts_sync(const char *cmd, const struct opt *o, void *dst, const char *arg);
int clockopts_min_latency(const char *cmd, const struct opt *o, void *dst, const char *arg);
int clockopts_align(const char *cmd, const struct opt *o, void *dst, const char *arg);

/* Copy into emu options. */
void clockopts_apply(const struct clockopts *c, struct emu_opts *o);
void clockopts_free(struct clockopts *c);

#endif
