/* SPDX-License-Identifier: GPL-3.0-or-later */
/* emu: ovni trace -> Paraver thread and cpu traces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/clockopts.h"
#include "cli/opts.h"
#include "emu/emu.h"
#include "par/jobs.h"
#include "emu/paraver_out.h"
#include "par/ranks.h"
#include "cli/fromevent.h"
#include "model.h"
#include "emu/sync.h"
#include "otf2/otf2_sink.h"
#include "prv/prv_writer.h"
#include "util/gzpar.h"

/* What the command line asked for. */
struct emu_cmd {
	struct emu_opts o;
	struct clockopts co;
	const char *from_event; /* --from-event EXPR */
	int have_from, have_to;
	int jobs, jobs_given;   /* -j N */
	int mpi;                /* --mpi */
	int debug; /* -d: ovniemu's, accepted */
	int first;              /* argv[first..]: the inputs */
	const char *outdir; /* -o DIR */
	int gzip; /* -z[N]: the level, 0 without -z */
	const char *otf2dir; /* --otf2 DIR */
	struct sink *par, *otf2; /* the sinks of -o and --otf2, during the run */
	struct sink *sinkv[2]; /* o.sinks' array */
	struct cli_models models; /* --model FILE..., loaded once the options are read */
};

/* --model FILE: kept, loaded after the options (--help does not load it,
 * wherever it stands) */
static int opt_model(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct emu_cmd *k = dst;
	(void) cmd, (void) row;
	cli_models_add(&k->models, arg);
	return 0;
}

/* --from T or --to T */
static int opt_window(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct emu_cmd *k = dst;
	int64_t t;
	int from = strcmp(row->name, "from") == 0;
	if (clock_parse_duration(arg, &t) || t < 0)
		return cli_usage_error(cmd, "--%s: expected a time >= 0 (ns, or with a unit ns, us, ms, s), "
				       "found '%s'", row->name, arg);
	if (from)
		k->o.win_from = (uint64_t) t, k->have_from = 1;
	else
		k->o.win_to = (uint64_t) t, k->have_to = 1;
	k->o.win = 1;
	return 0;
}

static int opt_jobs(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct emu_cmd *k = dst;
	char *end;
	(void) row;
	long v = strtol(arg, &end, 10);
	if (*end || end == arg || v < 1 || v > 1024)
		return cli_usage_error(cmd, "-j: expected a number of workers from 1 to 1024, found '%s'", arg);
	k->jobs = (int) v;
	k->jobs_given = 1;
	return 0;
}

/* -z, -zN, --gzip, --gzip=N: the level (1 when not given) */
static int opt_gzip(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	int *level = dst;
	(void) row;
	if (!arg) {
		*level = GZPAR_LEVEL_DEFAULT;
		return 0;
	}
	if (arg[0] < '1' || arg[0] > '9' || arg[1])
		return cli_usage_error(cmd,
				       "-z/--gzip: expected a level from 1 (the fastest) to 9 (the smallest) "
				       "attached (-z6, --gzip=6), found '%s'",
				       arg);
	*level = arg[0] - '0';
	return 0;
}

static int opt_writers(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct emu_cmd *k = dst;
	(void) row;
	if (strcmp(arg, "1") != 0 && strcmp(arg, "2") != 0)
		return cli_usage_error(cmd, "--writers: expected 1 or 2, found '%s'", arg);
	k->o.writers = arg[0] - '0';
	return 0;
}

static int opt_lookback(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	char *end;
	(void) row;
	unsigned long long v = strtoull(arg, &end, 10);
	if (*end || v < 64 || arg[0] == '-')
		return cli_usage_error(cmd, "--lookback: expected a byte count >= 64, found '%s'", arg);
	*(uint64_t *) dst = v;
	return 0;
}

#define K struct emu_cmd
static const struct opt emu_opts_table[] = {
	OPT_STRING("output", 'o', "DIR", K, outdir,
		   "write into DIR (default: TRACE itself, like ovniemu;\n"
		   "for a log file, FILE.paraver; required with several\n"
		   "inputs)"),
	OPT_STRING("otf2", 0, "DIR", K, otf2dir,
		   "also write the emulation as an OTF2 archive into DIR\n"
		   "(DIR/traces.otf2), in the same pass (doc/otf2-output.md)"),
	OPT_STRING("clock", 'c', "FILE", K, o.clock_file,
		   "clock file to use (then it must exist): weft's (weft\n"
		   "sync) or ovnisync's offset or drift table"),
	OPT_CALL("sync", 0, "none|file|messages", K, co, clockopts_sync,
		 "file: the clock file (default); none: raw clocks, no\n"
		 "table; messages: estimate offsets and drifts from the\n"
		 "matched messages first (a second pass, see weft sync)"),
	OPT_CALL("min-latency", 0, "D", K, co, clockopts_min_latency,
		 "with --sync=messages: shortest message latency (0)"),
	OPT_CALL("align", 0, "INPUT=OFFSET", K, co, clockopts_align,
		 "shift an input (its path or position from 1) by a\n"
		 "signed duration (ns, us, ms, s), e.g. run.trf=-2.5ms"),
	OPT_FLAG("same-nodes", 0, K, co.same_nodes,
		 "equal processor/client/loom numbers of several inputs\n"
		 "share one Paraver node (e.g. PICL and CHARISMA logs of\n"
		 "one run)"),
	OPT_FLAG("keep-going", 'k', K, o.keep_going, "report model errors as warnings, skip the event, go on"),
	OPT_FLAG("lint", 'l', K, o.lint,
		 "also check at the end that model channel stacks are\n"
		 "empty (ovniemu's -l); mark stacks left and open flushes\n"
		 "are warnings (errors with --strict)"),
	OPT_WHOLE("model", 0, "FILE", opt_model,
		  "add the model written in FILE, or replace the model with\n"
		  "its character (repeatable; doc/dev/models.md)"),
	OPT_FLAG("all-models", 'a', K, o.all_models,
		 "emulate every model, also those no stream requires\n"
		 "(ovniemu's -a)"),
	OPT_FLAG("breakdown", 'b', K, o.breakdown,
		 "also write each model's CPU breakdown trace, as ovniemu's\n"
		 "-b: MODEL-breakdown.{prv,pcf,row} for nosv (when every\n"
		 "thread sets nosv.can_breakdown), nanos6 and openmp"),
	OPT_FLAG("strict", 0, K, o.strict,
		 "weft's own checks, which ovniemu does not make, are\n"
		 "errors: -l's mark stacks and flushes, events weft does\n"
		 "not emulate yet (a model file's todo rows)"),
	OPT_WHOLE("jobs", 'j', "N", opt_jobs,
		  "emulate on N worker threads, split by loom (default: one\n"
		  "per 32 MiB of streams plus 256 KiB per loom, at most the\n"
		  "cores available but two: 1 below 4 cores); the calling\n"
		  "thread merges their output\n"
		  "(and writes it: see --writers); the same bytes as -j 1\n"
		  "(some runs use one worker: see weft-emu(1))"),
	OPT_WHOLE("writers", 0, "N", opt_writers,
		  "with several workers (-j, --mpi): the threads that write\n"
		  "the files, 1 (the merging thread) or 2 (one a file);\n"
		  "default: 2 on 4 cores or more, else 1"),
	OPT_FLAG("mpi", 0, K, mpi,
		 "split the looms across MPI ranks: run as\n"
		 "mpirun -n R weft emu --mpi -o DIR TRACE... (DIR and TRACE\n"
		 "on a filesystem every rank sees); the same bytes as one\n"
		 "process; rank 0 writes the output"),
	OPT_FLAG("slices", 0, K, o.slices,
		 "with --mpi: every rank writes a time slice of the bodies\n"
		 "from every rank's output, rank 0 joins them (instead of\n"
		 "rank 0 writing all; doc/dev/scaling.md says when it pays)"),
	OPT_OPTIONAL("gzip", 'z', "N", K, gzip, opt_gzip,
		     "write the .prv files gzipped (thread.prv.gz, ...) at\n"
		     "level N, attached (-z6, --gzip=6): 1 the fastest (the\n"
		     "default) to 9 the smallest; one gzip member per 4 MiB,\n"
		     "compressed on every core (-j N: on N threads)"),
	OPT_WHOLE("from", 0, "T", opt_window,
		  "write only the window [T, --to] of Paraver time (ns, or\n"
		  "with a unit: 2.5ms), times from its start, the states\n"
		  "open at its start written from 0 (as Paraver's cutter)"),
	OPT_WHOLE("to", 0, "T", opt_window, "the window's end (default: the trace's end)"),
	OPT_STRING("from-event", 0, "EXPR", K, from_event,
		   "the window opens at the first event EXPR holds for\n"
		   "(weft query's expressions, e.g. 'mcv = \"OHx\"'; found\n"
		   "by a first pass), instead of --from"),
	OPT_FLAG("bursts", 0, K, o.bursts, "statistics of the OB. burst probes per thread, at the end"),
	OPT_FLAG("quiet", 'q', K, o.quiet, "no warnings, no progress, no summary"),
	OPT_FLAG("debug", 'd', K, debug,
		 "accepted for ovniemu's command lines (its debug output\n"
		 "has no counterpart: weft dump TRACE prints every event)"),
	OPT_FLAG("salvage", 0, K, o.salvage,
		 "read a stream cut mid-event (its application killed)\n"
		 "up to its last whole event, and say per stream what is\n"
		 "dropped (without it, such a stream is an error)"),
	OPT_CALL("lookback", 0, "N", K, o.window, opt_lookback,
		 "bytes an unordered region may reach back (default 1 MiB)"),
	OPT_IMPORT_ROWS(K, co.imp),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd emu_cmdline = {
	.name = "emu",
	.synopsis = "[OPTIONS] TRACE...",
	.about = "Emulate TRACE (an ovni trace directory, or a legacy log that weft imports)\n"
		 "and write Paraver traces:\n"
		 "thread.{prv,pcf,row} (one row per thread) and cpu.{prv,pcf,row} (one row per\n"
		 "CPU, plus one virtual CPU per loom), and in cfg/ the views that fit them.\n"
		 "The ovni model (thread states, CPU affinity, marks, flushes) and the models\n"
		 "listed by 'weft models' that a stream requires (ovni.require) are emulated with\n"
		 "ovniemu's Paraver types and values; thread states are also written as Paraver\n"
		 "states. Events of other models are counted and reported, not emulated.\n"
		 "Clocks: TRACE/clock-offsets.txt (ovnisync's table) is applied when present;\n"
		 "matched messages received before they were sent are reported as warnings.\n"
		 "\n"
		 "Several inputs (any mix of trace directories and logs) make one timeline: each\n"
		 "keeps its own application; inputs whose clocks are absolute (ovni, CHARISMA's\n"
		 "start date) are aligned by them, the others start with the earliest.\n",
	.opts = emu_opts_table,
	.more = "Exit status: 0 ok, 1 bad input or model error, 2 usage, 3 internal error.\n"
		"A failed run leaves no .prv behind.\n",
};

/* Read the command line; -1: run, else the exit status. */
static int emu_parse(struct emu_cmd *k, int argc, char **argv)
{
	int rc = opts_parse(&emu_cmdline, k, argc, argv, &k->first);
	if (rc >= 0)
		return rc;
	struct emu_opts *o = &k->o;
	int n = argc - k->first;
	if (n < 1)
		return cli_usage_error("emu", "expected a TRACE directory or log, found no argument");
	if (k->from_event && k->have_from)
		return cli_usage_error("emu", "--from and --from-event both say where the window opens: give one");
	if (o->win && !k->have_to)
		o->win_to = UINT64_MAX;
	if (o->win && o->win_to <= o->win_from)
		return cli_usage_error("emu", "--from/--to: expected --to after --from");
	if (o->slices && !k->mpi)
		return cli_usage_error("emu", "--slices: only with --mpi");
	if (k->otf2dir && !*k->otf2dir)
		return cli_usage_error("emu", "--otf2: an empty name names no directory");
	if (k->otf2dir && k->mpi)
		return cli_usage_error("emu", "--otf2 is not written under --mpi yet: use -j N");
	if (n > 1 && !k->outdir)
		return cli_usage_error("emu", "several inputs: give the output directory with -o DIR");
	if (k->co.mode == SYNC_NONE && o->clock_file)
		return cli_usage_error("emu", "--sync=none ignores every clock file: -c FILE contradicts it");
	if (k->debug && !o->quiet)
		fprintf(stderr,
			"weft: -d (ovniemu's debug output) has no counterpart here; 'weft dump TRACE' "
			"prints every event\n");
	struct weft_err merr = {0};
	if (cli_models_make(&k->models, &merr))
		return cli_report(&merr);
	clockopts_apply(&k->co, o);
	cli_registry(o, &k->models);
	o->inputs = (const char *const *) argv + k->first;
	o->ninputs = n;
	return -1;
}

/* What a run gives the report. */
struct emu_done {
	uint64_t nevents, nviol;
	int nth, ncpu;
};

/* The passes: clocks from the messages (--sync=messages), the window's
 * start (--from-event), then the emulation. 0 or -1 (err filled). */
static int emu_passes(struct emu_cmd *k, const char *trace, struct emu_done *d, struct weft_err *err)
{
	struct emu_opts *o = &k->o;
	struct emu e;
	struct sync_result sr;
	int have_sr = 0, rc = 0;
	if (k->co.mode == SYNC_MESSAGES) {
		/* the first pass: estimate the clocks from the matched messages */
		rc = sync_estimate(trace, o, k->co.min_latency, &sr, err);
		have_sr = rc == 0;
		if (rc == 0)
			rc = sync_repair(&sr, o, k->co.min_latency, 1, SYNC_ROUNDS, 0, err);
		if (rc == 0) {
			o->clock_table = &sr.table;
			o->reuse = &sr.tr;
			sr.have_tr = 0;
			if (!o->quiet)
				fprintf(stderr, "weft: clocks estimated from %llu messages (%d linked component%s); "
						"%llu received before they were sent with the given clocks\n",
					(unsigned long long) sr.nmsg, sr.ncomponents, sr.ncomponents == 1 ? "" : "s",
					(unsigned long long) sr.nviol_before);
		}
	}
	if (rc == 0 && k->from_event) {
		/* where the window opens: the first event the expression holds for */
		uint64_t at = 0;
		rc = from_event_time(trace, o, k->from_event, &at, err);
		if (rc == 0 && k->have_to && o->win_to <= at)
			rc = weft_fail(err, WEFT_EINPUT, "%s: --to %llu ns is not after the first event matching "
				       "--from-event (at %llu ns)", trace, (unsigned long long) o->win_to,
				       (unsigned long long) at);
		o->win = 1;
		o->win_from = at;
		if (!k->have_to)
			o->win_to = UINT64_MAX;
	}
	if (rc == 0) { /* Paraver first: its files are the pipe's (paraver_out.h) */
		int ns = 0;
		if (k->par)
			k->sinkv[ns++] = k->par;
		if (k->otf2)
			k->sinkv[ns++] = k->otf2;
		o->sinks = (struct sink_list){(struct sink *const *) k->sinkv, ns};
	}
	if (rc == 0)
		rc = emu_open(&e, trace, o, err);
	else
		memset(&e, 0, sizeof(e));
	if (rc == 0 && o->salvage && !o->quiet)
		cli_salvage_report("emu", &e.tr);
	if (rc == 0 && o->breakdown && k->par && !o->quiet && (!e.bd.ops || e.bd.ops->nviews(&e) == 0))
		fprintf(stderr,
			"weft: warning: -b: no model of %s has a breakdown view (nosv with "
			"nosv.can_breakdown in every thread, nanos6, openmp): no breakdown trace is written\n",
			trace);
	if (k->mpi) {
		/* every rank opened it, or none goes on */
		int who = ranks_meet(rc);
		if (who >= 0 && rc == 0)
			rc = weft_fail(err, WEFT_EINPUT, "rank %d could not open the trace (its error is above)", who);
		else if (who >= 0 && ranks_rank() != 0) {
			fprintf(stderr, "weft: rank %d: error: %s\n", ranks_rank(), err->msg);
			err->code = -err->code; /* said: the caller stays quiet */
		}
	}
	if (rc == 0)
		rc = k->mpi ? emu_run_ranks(&e, err) : emu_run_jobs(&e, k->jobs, k->jobs_given, err);
	if (rc == 0)
		rc = emu_close(&e, err);
	*d = (struct emu_done){e.count.nevents, e.count.pairs.nviol, e.sys.nth, e.sys.ncpu};
	emu_free(&e);
	if (have_sr)
		sync_result_free(&sr);
	return rc;
}

int cmd_emu(int argc, char **argv)
{
	struct emu_cmd k = {.o = {.progress = 1}, .jobs = 0}; /* 0: -j from the trace's size (jobs_auto) */
	char *outdef = NULL;
	int rc = emu_parse(&k, argc, argv);
	if (rc >= 0)
		goto out;
	struct emu_opts *o = &k.o;
	o->sync_file = 1; /* the clock file weft sync wrote, when no -c says otherwise */
	const char *trace = argv[k.first];
	struct stat st;
	if (!k.outdir && stat(trace, &st) == 0 && S_ISREG(st.st_mode))
		k.outdir = outdef = weft_xasprintf("%s.paraver", trace); /* a legacy log */
	if (!k.outdir)
		k.outdir = trace;
	if (!*k.outdir) {
		rc = cli_usage_error("emu", "-o: an empty name names no directory");
		goto out;
	}
	int rank = 0;
	if (k.mpi) {
		struct weft_err merr = {0};
		if (ranks_init(&argc, &argv, &merr)) {
			rc = cli_report(&merr);
			goto out;
		}
		rank = ranks_rank();
		if (rank) {
			/* rank 0 writes and reports; the others emulate their looms
			 * (and send rank 0 their warnings) */
			o->keep_warns = !o->quiet;
			o->quiet = 1;
			k.outdir = NULL;
		}
	}
	struct weft_err err = {0};
	if (k.otf2dir && k.outdir && strcmp(k.otf2dir, k.outdir) == 0) {
		rc = cli_usage_error("emu", "--otf2 %s: the Paraver output's directory (-o); give another", k.otf2dir);
		goto out;
	}
	if (k.outdir)
		k.par = paraver_sink_new(k.outdir, k.gzip ? PRV_GZIP(k.gzip, k.jobs_given ? k.jobs : jobs_cores()) : 0);
	if (k.otf2dir && !(k.otf2 = otf2_sink_new(k.otf2dir, &err))) {
		rc = cli_report(&err);
		goto out;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct emu_done d;
	if (emu_passes(&k, trace, &d, &err)) {
		/* rank 0 reports the run's error; another rank said its own */
		rc = rank ? (err.code < 0 ? -err.code : err.code ? err.code : 3) : cli_report(&err);
		goto out;
	}
	if (k.co.mode == SYNC_MESSAGES && !o->quiet)
		fprintf(stderr, "weft: %llu messages received before they were sent with the estimated clocks\n",
			(unsigned long long) d.nviol);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!o->quiet)
		fprintf(stderr,
			"weft: %llu events in %.2f s (%.1f M events/s): %s/thread.prv%s (%d rows), "
			"%s/cpu.prv%s (%d rows)\n",
			(unsigned long long) d.nevents, s, s > 0 ? (double) d.nevents / s / 1e6 : 0.0, k.outdir,
			k.gzip ? ".gz" : "", d.nth, k.outdir, k.gzip ? ".gz" : "", d.ncpu);
	rc = 0;
out:
	if (k.mpi && rc != 2)
		rc = ranks_end(rc);
	clockopts_free(&k.co);
	cli_models_free(&k.models);
	if (k.otf2 && k.otf2->free)
		k.otf2->free(k.otf2);
	if (k.par)
		k.par->free(k.par);
	free(outdef);
	return rc;
}
