/* clockopts: the clock and input options weft emu and weft sync share:
 * --sync=none|file|messages, --min-latency, --align INPUT=OFFSET (repeated),
 * --same-nodes, and how to read a legacy log (--format, --time-unit,
 * --charisma-profile). */
#ifndef WEFT_CLOCKOPTS_H
#define WEFT_CLOCKOPTS_H

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

/* Handle one option (getopt's code and argument) the table below names;
 * returns 1 if it was one of them, 0 if not, or an exit code 2 after a
 * usage message. */
int clockopts_parse(const char *cmd, struct clockopts *c, int code, const char *arg);
/* Copy into emu options. */
void clockopts_apply(const struct clockopts *c, struct emu_opts *o);
void clockopts_free(struct clockopts *c);

enum {
	CLOCKOPT_SYNC = 400, CLOCKOPT_MIN_LATENCY, CLOCKOPT_ALIGN, CLOCKOPT_SAME_NODES,
	CLOCKOPT_FORMAT, CLOCKOPT_TIME_UNIT, CLOCKOPT_PROFILE
};

#define CLOCKOPTS_LONG                                                                                  \
	{"sync", required_argument, 0, CLOCKOPT_SYNC},                                                   \
	{"min-latency", required_argument, 0, CLOCKOPT_MIN_LATENCY},                                     \
	{"align", required_argument, 0, CLOCKOPT_ALIGN},                                                 \
	{"same-nodes", no_argument, 0, CLOCKOPT_SAME_NODES},                                              \
	{"format", required_argument, 0, CLOCKOPT_FORMAT},                                               \
	{"time-unit", required_argument, 0, CLOCKOPT_TIME_UNIT},                                         \
	{"charisma-profile", required_argument, 0, CLOCKOPT_PROFILE}

/* The three options that say how to read a legacy log given as TRACE, for
 * the commands without clock options (dump, top, query): the same names,
 * codes and help lines as emu's. */
#define IMPORTOPTS_LONG                                                                                 \
	{"format", required_argument, 0, CLOCKOPT_FORMAT},                                               \
	{"time-unit", required_argument, 0, CLOCKOPT_TIME_UNIT},                                         \
	{"charisma-profile", required_argument, 0, CLOCKOPT_PROFILE}
#define IMPORTOPTS_HELP                                                                                 \
	"      --format NAME   read TRACE as this log format instead of detecting it\n"                  \
	"      --time-unit U   time unit of a VisAndOr log (ns, us, ms, s)\n"                            \
	"      --charisma-profile NAME|FILE  machine profile of a CHARISMA log\n"
/* 1 if `code` was one of them (stored in *o), else 0. */
int importopts_parse(struct import_opts *o, int code, const char *arg);

#endif
