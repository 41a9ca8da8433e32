/* synth: write a synthetic trace. The trace is built in a temporary
 * directory beside DIR and renamed to DIR when complete, so an interrupted
 * run never leaves a trace that looks whole. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/synth_formats.h"
#include "synth/ovni_synth.h"

static const char synth_help[] =
	"Usage: weft synth -o DIR [--looms L] [--procs P] [--threads T] [--cpus C]\n"
	"                  [--events N] [--seed S] [--models LIST]\n"
	"\n"
	"Write a valid ovni-model trace (format v3) into DIR, which must not exist or\n"
	"be empty. Each of L looms has C CPUs and P processes of T threads; threads\n"
	"take turns on a home CPU and emit execute/pause/resume/cool/warm/end, CPU\n"
	"affinity changes, single and stacked marks, bursts and flushes, obeying every\n"
	"ovni-model rule. The same options always give the same bytes.\n"
	"\n"
	"Options:\n"
	"      --format NAME  ovni (default) or a legacy log format (see below)\n"
	"  -o, --output DIR   where to write the trace (required)\n"
	"      --looms L      number of looms (nodes), default 2\n"
	"      --procs P      processes per loom, default 2\n"
	"      --threads T    threads per process, default 2\n"
	"      --cpus C       CPUs per loom, default 4\n"
	"  -n, --events N     about how many events in all, default 1000000\n"
	"                     (suffixes k, M, G accepted: 20M)\n"
	"      --seed S       random seed, default 1\n"
	"      --models LIST  models besides ovni, comma-separated, default none:\n"
	"                     mpi (MPI_Send, MPI_Barrier calls inside slices),\n"
	"                     tampi (API and polling subsystems, nested),\n"
	"                     kernel (context switches out and back in),\n"
	"                     nosv (a task type per thread; tasks created inside\n"
	"                     nosv_create(), submitted, taken from the scheduler,\n"
	"                     run, sometimes allocating memory or paused for a\n"
	"                     nested task, ended; nosv.can_breakdown set),\n"
	"                     nodes (NODES subsystems, nested: task creation and\n"
	"                     submission, taskwaits, spawns, if(0) tasks)\n"
	"  -h, --help         show this help\n";

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

int cmd_synth(int argc, char **argv)
{
	int handled;
	int r = other_format(argc, argv, &handled);
	if (handled)
		return r;
	argc = r;
	enum { O_LOOMS = 256, O_PROCS, O_THREADS, O_CPUS, O_SEED, O_MODELS };
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},   {"looms", required_argument, 0, O_LOOMS},
		{"procs", required_argument, 0, O_PROCS}, {"threads", required_argument, 0, O_THREADS},
		{"cpus", required_argument, 0, O_CPUS},   {"events", required_argument, 0, 'n'},
		{"seed", required_argument, 0, O_SEED},   {"help", no_argument, 0, 'h'},
		{"models", required_argument, 0, O_MODELS},
		{0, 0, 0, 0},
	};
	struct synth_opts so = {.looms = 2, .procs = 2, .threads = 2, .cpus = 4,
				.events = 1000000, .seed = 1};
	const char *out = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:n:h", opts, NULL)) != -1) {
		uint64_t v;
		const char *name = NULL;
		int *field = NULL;
		switch (c) {
		case 'o':
			out = optarg;
			continue;
		case 'h':
			fputs(synth_help, stdout);
			for (int k = 0; synth_formats[k]; k++)
				printf("  --format %-10s %s\n", synth_formats[k]->name, synth_formats[k]->what);
			return 0;
		case 'n':
			if (cli_parse_count(optarg, UINT64_MAX, &so.events) || so.events == 0)
				return cli_usage_error("synth", "--events: expected a positive count, found '%s'",
						       optarg);
			continue;
		case O_SEED:
			if (cli_parse_count(optarg, UINT64_MAX, &so.seed))
				return cli_usage_error("synth", "--seed: expected a number, found '%s'", optarg);
			continue;
		case O_MODELS: {
			const char *m = optarg;
			while (*m) {
				size_t len = strcspn(m, ",");
				if (len == 3 && strncmp(m, "mpi", 3) == 0)
					so.models |= SYNTH_M_MPI;
				else if (len == 5 && strncmp(m, "tampi", 5) == 0)
					so.models |= SYNTH_M_TAMPI;
				else if (len == 6 && strncmp(m, "kernel", 6) == 0)
					so.models |= SYNTH_M_KERNEL;
				else if (len == 4 && strncmp(m, "nosv", 4) == 0)
					so.models |= SYNTH_M_NOSV;
				else if (len == 5 && strncmp(m, "nodes", 5) == 0)
					so.models |= SYNTH_M_NODES;
				else if (!(len == 4 && strncmp(m, "ovni", 4) == 0))
					return cli_usage_error("synth", "--models: unknown model '%.*s' (known: ovni, kernel, mpi, nodes, nosv, tampi)",
							       (int) len, m);
				m += len + (m[len] == ',');
			}
			continue;
		}
		case O_LOOMS:
			name = "--looms", field = &so.looms;
			break;
		case O_PROCS:
			name = "--procs", field = &so.procs;
			break;
		case O_THREADS:
			name = "--threads", field = &so.threads;
			break;
		case O_CPUS:
			name = "--cpus", field = &so.cpus;
			break;
		default:
			return cli_bad_option("synth", c, optopt, argv, optind);
		}
		if (cli_parse_count(optarg, 4096, &v) || v == 0)
			return cli_usage_error("synth", "%s: expected a number from 1 to 4096, found '%s'",
					       name, optarg);
		*field = (int) v;
	}
	if (!out)
		return cli_usage_error("synth", "missing -o DIR");
	if (optind != argc)
		return cli_usage_error("synth", "unexpected argument '%s'", argv[optind]);
	if ((uint64_t) so.procs * (uint64_t) so.threads > 65535)
		return cli_usage_error("synth", "--procs x --threads must be at most 65535");

	struct weft_err e = {0};
	struct stat st;
	if (stat(out, &st) == 0) {
		if (!S_ISDIR(st.st_mode) || rmdir(out) != 0) {
			weft_fail(&e, WEFT_EUSAGE, "%s: already exists and is not an empty directory", out);
			return cli_report(&e);
		}
	}
	char *tmp = weft_xasprintf("%s.tmp-XXXXXX", out);
	if (!mkdtemp(tmp)) {
		weft_fail(&e, WEFT_EINTERNAL, "%s: cannot create a temporary directory: %s", tmp,
			  strerror(errno));
		free(tmp);
		return cli_report(&e);
	}
	uint64_t n = 0;
	int rc = synth_ovni(tmp, &so, &n, &e);
	if (rc == 0 && rename(tmp, out) != 0)
		rc = weft_fail(&e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
	if (rc) {
		char *cmd = weft_xasprintf("rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			weft_warn("could not remove %s", tmp);
		free(cmd);
		free(tmp);
		return cli_report(&e);
	}
	free(tmp);
	printf("wrote %" PRIu64 " events in %d streams to %s\n", n,
	       so.looms * so.procs * so.threads, out);
	return 0;
}
