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

/* Being replaced by opts.h rows: the getopt codes of the old loops. */
#include <getopt.h>
int clockopts_parse(const char *cmd, struct clockopts *c, int code, const char *arg);
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
#define IMPORTOPTS_LONG                                                                                 \
	{"format", required_argument, 0, CLOCKOPT_FORMAT},                                               \
	{"time-unit", required_argument, 0, CLOCKOPT_TIME_UNIT},                                         \
	{"charisma-profile", required_argument, 0, CLOCKOPT_PROFILE}
#define IMPORTOPTS_HELP                                                                                 \
	"      --format NAME   read TRACE as this log format instead of detecting it\n"                  \
	"      --time-unit U   time unit of a VisAndOr log (ns, us, ms, s)\n"                            \
	"      --charisma-profile NAME|FILE  machine profile of a CHARISMA log\n"
int importopts_parse(struct import_opts *o, int code, const char *arg);

#endif
