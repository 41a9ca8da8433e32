/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth_charisma: `weft synth --format charisma`: its options, read into
 * the generator's (src/synth/charisma_synth.h), and its report. */
#include <stdio.h>
#include <string.h>

#include "synth/charisma_synth.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/synth_formats.h"
#include "util/macros.h"

/* What the command line asked for. */
struct charisma_cmd {
	struct charisma_synth_opts o;
	const char *out, *order;
	int first; /* argv[first..]: none expected */
};

/* The counts and their ranges, by option name. */
static const struct {
	const char *name;
	uint64_t lo, hi;
} charisma_ranges[] = {
	{"size", 1, UINT64_MAX}, {"apps", 1, 256}, {"clients", 1, 65536}, {"files", 1, 1000}, {"seed", 0, UINT64_MAX},
};

/* A byte count or number, with an optional k, M or G suffix. */
static int opt_count(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	uint64_t *v = dst, lo = 1, hi = UINT64_MAX;
	for (size_t i = 0; i < ARRAY_SIZE(charisma_ranges); i++)
		if (strcmp(row->name, charisma_ranges[i].name) == 0)
			lo = charisma_ranges[i].lo, hi = charisma_ranges[i].hi;
	if (cli_parse_count(arg, UINT64_MAX, v) || *v < lo || *v > hi)
		return cli_usage_error(cmd, "--%s: expected a number from %llu to %llu, found '%s'", row->name,
				       (unsigned long long) lo, (unsigned long long) hi, arg);
	return 0;
}

#define K struct charisma_cmd
static const struct opt charisma_opts[] = {
	OPT_STRING("output", 'o', "FILE", K, out, "the trace to write (required)"),
	OPT_STRING("profile", 0, "NAME|FILE", K, o.profile, "machine profile (default charisma-default)"),
	OPT_STRING("byte-order", 0, "le|be", K, order, "little-endian (iPSC/860, default) or big-endian (CM-5)"),
	OPT_CALL("size", 0, "BYTES", K, o.size, opt_count, "about this many bytes (default 10M)"),
	OPT_CALL("apps", 0, "A", K, o.apps, opt_count, "applications, 1 to 256 (default 8)"),
	OPT_CALL("clients", 0, "C", K, o.clients, opt_count, "clients, A to 65536 (default 64)"),
	OPT_CALL("files", 0, "F", K, o.files, opt_count, "private files per client, 1 to 1000 (default 4)"),
	OPT_CALL("seed", 0, "S", K, o.seed, opt_count, "random seed (default 1)"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd charisma_cmdline = {
	.name = "synth",
	.synopsis = "--format charisma -o FILE [OPTIONS]",
	.about = "Write a synthetic CHARISMA file-system trace of about BYTES bytes (default 10M;\n"
		 "suffixes k, M, G) laid out by the machine profile (default charisma-default;\n"
		 "built-in: charisma-default, charisma-packed, charisma-align4; or a profile file)\n"
		 "in little-endian (iPSC/860, default) or big-endian (CM-5) byte order. A\n"
		 "applications (default 8) share C clients (default 64); each client cycles\n"
		 "through F private files (default 4) besides its application's shared file.\n"
		 "Every record type but machine-dependent ones appears (declared ones once,\n"
		 "zeroed, after the header). Times are in microsecond ticks. The same options\n"
		 "always give the same bytes.\n",
	.opts = charisma_opts,
};

int synth_cmd_charisma(int argc, char **argv)
{
	struct charisma_cmd k = {.o = {.profile = "charisma-default", .size = 10000000, .apps = 8, .clients = 64,
				       .files = 4, .seed = 1},
				 .order = "le"};
	int rc = opts_parse(&charisma_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (!k.out)
		return cli_usage_error("synth", "--format charisma: missing -o FILE");
	if (k.first != argc)
		return cli_usage_error("synth", "unexpected argument '%s'", argv[k.first]);
	if (strcmp(k.order, "le") && strcmp(k.order, "be"))
		return cli_usage_error("synth", "--byte-order: expected le or be, found '%s'", k.order);
	if (k.o.clients < k.o.apps)
		return cli_usage_error("synth", "--clients (%llu) must be at least --apps (%llu)",
				       (unsigned long long) k.o.clients, (unsigned long long) k.o.apps);
	k.o.big_endian = k.order[0] == 'b';
	struct weft_err e = {0};
	struct charisma_synth_done done;
	if (charisma_synth_write(&k.o, k.out, &done, &e))
		return cli_report(&e);
	printf("wrote %llu records (%llu bytes) to %s\n", (unsigned long long) done.records,
	       (unsigned long long) done.bytes, k.out);
	return 0;
}
