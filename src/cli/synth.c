/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth: write a synthetic trace. The trace is built in a temporary
 * directory beside DIR and renamed to DIR when complete, so an interrupted
 * run never leaves a trace that looks whole. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/synth_formats.h"
#include "synth/ovni_synth.h"
#include "util/atomicfile.h"
#include "util/macros.h"

/* What the command line asked for. */
struct synth_cmd {
	struct synth_opts so;
	const char *out, *format;
	int first; /* argv[first..]: none expected */
};

/* --procs, --threads, --cpus: 1 to 4096; --looms: 1 to 16384 (a
 * cluster's nodes; the pids, (loom + 1) x 100000 and up, stay below 2^31) */
static int opt_dim(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	uint64_t v, max = strcmp(row->name, "looms") == 0 ? 16384 : 4096;
	if (cli_parse_count(arg, max, &v) || v == 0)
		return cli_usage_error(cmd, "--%s: expected a number from 1 to %llu, found '%s'", row->name,
				       (unsigned long long) max, arg);
	*(int *) dst = (int) v;
	return 0;
}

/* --loom-names node00 (node00, node01, ...) or node1 (node1, node2, ...) */
static int opt_loom_names(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	(void) row;
	if (strcmp(arg, "node00") != 0 && strcmp(arg, "node1") != 0)
		return cli_usage_error(cmd, "--loom-names: expected node00 or node1, found '%s'", arg);
	*(int *) dst = strcmp(arg, "node1") == 0;
	return 0;
}

static int opt_models(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	static const struct { const char *name; unsigned bit; } known[] = {
		{"mpi", SYNTH_M_MPI}, {"tampi", SYNTH_M_TAMPI}, {"kernel", SYNTH_M_KERNEL},
		{"nosv", SYNTH_M_NOSV}, {"nodes", SYNTH_M_NODES}, {"ovni", 0},
	};
	unsigned *models = dst;
	(void) row;
	for (const char *m = arg; *m;) {
		size_t len = strcspn(m, ","), i;
		for (i = 0; i < ARRAY_SIZE(known); i++)
			if (strlen(known[i].name) == len && strncmp(m, known[i].name, len) == 0)
				break;
		if (i == ARRAY_SIZE(known))
			return cli_usage_error(cmd, "--models: unknown model '%.*s' (known: ovni, kernel, mpi, nodes, "
					       "nosv, tampi)", (int) len, m);
		*models |= known[i].bit;
		m += len + (m[len] == ',');
	}
	return 0;
}

#define K struct synth_cmd
static const struct opt synth_opts_table[] = {
	OPT_STRING("format", 0, "NAME", K, format, "ovni (default) or a legacy log format (see below)"),
	OPT_STRING("output", 'o', "DIR", K, out, "where to write the trace (required)"),
	OPT_CALL("looms", 0, "L", K, so.looms, opt_dim, "number of looms (nodes), default 2"),
	OPT_CALL("loom-names", 0, "STYLE", K, so.plain_names, opt_loom_names,
		 "node00 (default: node00, node01, ...) or node1\n"
		 "(node1 to nodeL, as clusters name them: node10 sorts\n"
		 "before node2 as a path, after it by rank)"),
	OPT_CALL("procs", 0, "P", K, so.procs, opt_dim, "processes per loom, default 2"),
	OPT_CALL("threads", 0, "T", K, so.threads, opt_dim, "threads per process, default 2"),
	OPT_CALL("cpus", 0, "C", K, so.cpus, opt_dim, "CPUs per loom, default 4"),
	OPT_CALL("events", 'n', "N", K, so.events, opt_count1,
		 "about how many events in all, default 1000000\n"
		 "(suffixes k, M, G accepted: 20M)"),
	OPT_CALL("seed", 0, "S", K, so.seed, opt_count0, "random seed, default 1"),
	OPT_CALL("models", 0, "LIST", K, so.models, opt_models,
		 "models besides ovni, comma-separated, default none:\n"
		 "mpi (MPI_Send, MPI_Barrier calls inside slices),\n"
		 "tampi (API and polling subsystems, nested),\n"
		 "kernel (context switches out and back in),\n"
		 "nosv (a task type per thread; tasks created inside\n"
		 "nosv_create(), submitted, taken from the scheduler,\n"
		 "run, sometimes allocating memory or paused for a\n"
		 "nested task, ended; nosv.can_breakdown set),\n"
		 "nodes (NODES subsystems, nested: task creation and\n"
		 "submission, taskwaits, spawns, if(0) tasks)"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

/* The other generators, after the options. */
static void list_formats(FILE *f)
{
	fprintf(f, "\nFormats (weft synth --format NAME --help shows their options):\n");
	for (int k = 0; synth_formats[k]; k++)
		fprintf(f, "  --format %-10s %s\n", synth_formats[k]->name, synth_formats[k]->what);
}

const struct optcmd synth_cmdline = {
	.name = "synth",
	.synopsis = "-o DIR [OPTIONS]\n"
		    "--format NAME -o FILE [OPTIONS]\n",
	.about = "Write a valid ovni-model trace (format v3) into DIR, which must not exist or\n"
		 "be empty. Each of L looms has C CPUs and P processes of T threads; threads\n"
		 "take turns on a home CPU and emit execute/pause/resume/cool/warm/end, CPU\n"
		 "affinity changes, single and stacked marks, bursts and flushes, obeying every\n"
		 "ovni-model rule. The same options always give the same bytes.\n",
	.opts = synth_opts_table,
	.list = list_formats,
};

/* `--format NAME` picks another generator, which parses the rest itself. */
static int other_format(int argc, char **argv, int *handled)
{
	*handled = 0;
	for (int i = 1; i < argc; i++) {
		const char *name = NULL;
		int skip = 0;
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			name = argv[i + 1], skip = 2;
		else if (strncmp(argv[i], "--format=", 9) == 0)
			name = argv[i] + 9, skip = 1;
		if (!name)
			continue;
		*handled = 1;
		if (strcmp(name, "ovni") == 0) {
			memmove(&argv[i], &argv[i + skip], (size_t) (argc - i - skip + 1) * sizeof(char *));
			*handled = 0;
			return argc - skip;
		}
		for (int k = 0; synth_formats[k]; k++)
			if (strcmp(synth_formats[k]->name, name) == 0) {
				memmove(&argv[i], &argv[i + skip], (size_t) (argc - i - skip + 1) * sizeof(char *));
				return synth_formats[k]->run(argc - skip, argv);
			}
		return cli_usage_error("synth", "--format: unknown format '%s'", name);
	}
	return argc;
}

/* Remove a failed run's temporary directory. */
int cmd_synth(int argc, char **argv)
{
	int handled;
	int r = other_format(argc, argv, &handled);
	if (handled)
		return r;
	argc = r;
	struct synth_cmd k = {.so = {.looms = 2, .procs = 2, .threads = 2, .cpus = 4, .events = 1000000,
				     .seed = 1}};
	r = opts_parse(&synth_cmdline, &k, argc, argv, &k.first);
	if (r >= 0)
		return r;
	if (!k.out)
		return cli_usage_error("synth", "missing -o DIR");
	if (k.first != argc)
		return cli_usage_error("synth", "unexpected argument '%s'", argv[k.first]);
	if ((uint64_t) k.so.procs * (uint64_t) k.so.threads > 65535)
		return cli_usage_error("synth", "--procs x --threads must be at most 65535");

	struct weft_err e = {0};
	uint64_t n = 0;
	char *tmp;
	r = atomic_dir_open(k.out, &tmp, &e);
	if (r == 0)
		r = atomic_dir_commit(tmp, k.out, synth_ovni(tmp, &k.so, &n, &e), &e);
	if (r)
		return cli_report(&e);
	printf("wrote %" PRIu64 " events in %d streams to %s\n", n, k.so.looms * k.so.procs * k.so.threads,
	       k.out);
	return 0;
}
