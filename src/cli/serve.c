/* SPDX-License-Identifier: GPL-3.0-or-later */
/* serve: the tracer driver on a Unix socket (doc/driver.md, weft-serve(1)).
 *
 * Opens TRACE as weft query does (clock offsets applied; the models run,
 * with no Paraver output, when an analyser there at the start needs them,
 * or with --models; never with --plain), listens, waits for the first
 * analysers, then replays every event once through the driver, which sees
 * each one before the models apply it. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "clock/clocksetup.h"
#include "driver/driver.h"
#include "emu/emu.h"
#include "emu/merge.h"
#include "trace/trace.h"

struct serve_cmd {
	const char *socket, *clock_file, *stall;
	int plain, models, keep_going;
	uint64_t wait, buffer;
	struct import_opts imp;
};

#define K struct serve_cmd
static const struct opt serve_opts[] = {
	OPT_STRING("socket", 's', "PATH", K, socket,
		   "the Unix socket to listen on (required); its folder\n"
		   "is made private (0700) if missing, else must be"),
	OPT_CALL("wait", 'w', "N", K, wait, opt_count0,
		 "replay once N analysers have said go (default 1)\n"
		 "and every one there has"),
	OPT_FLAG("plain", 0, K, plain,
		 "no models: the merged stream only, faster;\n"
		 "patterns on state.<model> or cpu are refused"),
	OPT_FLAG("models", 0, K, models,
		 "run the models even when no analyser there at the\n"
		 "start needs them (for analysers that come later)"),
	OPT_CALL("buffer", 'b', "BYTES", K, buffer, opt_count1,
		 "bytes queued per analyser before the replay\n"
		 "waits for it (default 1M; suffixes k, M, G)"),
	OPT_STRING("stall", 0, "SECONDS", K, stall,
		   "disconnect an analyser the replay waits on that\n"
		   "takes none of its messages for this long\n"
		   "(default 30; 0: never)"),
	OPT_STRING("clock", 'c', "FILE", K, clock_file, "clock offset table (default TRACE/clock-offsets.txt)"),
	OPT_FLAG("keep-going", 'k', K, keep_going, "model errors become warnings"),
	OPT_IMPORT_ROWS(K, imp),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd serve_cmdline = {
	.name = "serve",
	.synopsis =
		"--socket PATH [-w N] [--plain | --models] [-b BYTES] [--stall SECONDS] [-c CLOCKFILE] [-k] TRACE\n",
	.about = "Replay TRACE once, in merged and corrected time order, for analysers that\n"
		 "connect to a Unix socket (weft attach, contrib/python/weft_driver.py, or any\n"
		 "program speaking the JSON-lines protocol of doc/driver.md). Each analyser adds\n"
		 "its own labelled patterns, as weft query takes them, and gets one message per\n"
		 "event that matches any of them, with its labels and the attributes it asked\n"
		 "for. At a match of a do_synchro pattern the replay waits until that analyser\n"
		 "says go; meanwhile it may ask current(...) and change its patterns.\n"
		 "Asynchronous analysers never stop the replay: it waits while one's queue is\n"
		 "full. See weft-serve(1).\n",
	.opts = serve_opts,
};

static int on_event(void *arg, const struct weft_ev *ev)
{
	return driver_event(arg, ev);
}

/* The merged stream to the driver, no models. */
static int replay_merge(struct driver *d, struct weft_merge *m, struct weft_err *e)
{
	struct weft_ev *ev;
	int r;
	while ((r = merge_next(m, &ev, e)) > 0)
		if (driver_event(d, ev))
			break;
	return r < 0 ? -1 : 0;
}

/* Replay without the models: trace, clocks, merge, driver. */
static int run_plain(struct driver *d, const char *trace, const struct serve_cmd *k, const struct cli_models *cm,
		     struct weft_err *e)
{
	struct weft_trace tr;
	struct weft_merge m;
	struct trace_opts to = {.mode = STREAM_ORDERED, .import = &k->imp};
	cli_trace_models(&to, cm);
	if (trace_open(&tr, trace, &to, e))
		return -1;
	struct clock_opts co = {.file = k->clock_file, .quiet = 1};
	int rc = -1, merged = 0;
	if (clock_setup(&tr, &co, e) || merge_init(&m, tr.streams, tr.nstreams, e))
		goto out;
	merged = 1;
	if (driver_start(d, &tr, NULL, merge_peek_time(&m), e))
		goto out;
	rc = replay_merge(d, &m, e);
out:
	if (rc || d->interrupted)
		driver_end(d, rc ? e->msg : "interrupted");
	else
		driver_end(d, NULL);
	if (merged)
		merge_free(&m);
	trace_close(&tr);
	return rc;
}

/* Replay through the emulator: the driver sees each event before the
 * models apply it. When no analyser there at the start needs the models
 * (and --models is not given), the same merged stream goes to the driver
 * without them, as weft query runs the models only for patterns that need
 * them. */
static int run_emu(struct driver *d, const char *trace, const struct serve_cmd *k, const struct cli_models *cm,
		   struct weft_err *e)
{
	struct emu *emu = weft_xcalloc(1, sizeof(*emu));
	struct emu_opts o = {0};
	o.clock_file = k->clock_file;
	o.keep_going = k->keep_going;
	o.quiet = 1;
	o.imp = k->imp;
	cli_registry(&o, cm);
	int rc = -1;
	if (emu_open(emu, trace, &o, e))
		goto out;
	emu->obs.on_event = on_event;
	emu->obs.arg = d;
	if (driver_start(d, &emu->tr, emu, merge_peek_time(&emu->merge), e))
		goto out;
	if (!k->models && !driver_needs_models(d)) {
		driver_drop_models(d);
		rc = replay_merge(d, &emu->merge, e);
	} else {
		rc = emu_run(emu, e);
	}
out:
	if (rc || d->interrupted)
		driver_end(d, rc ? e->msg : "interrupted");
	else
		driver_end(d, NULL);
	emu_free(emu);
	free(emu);
	return rc;
}

int cmd_serve(int argc, char **argv)
{
	struct serve_cmd k = {.wait = 1, .buffer = 1u << 20};
	int first;
	int rc = opts_parse(&serve_cmdline, &k, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (!k.socket)
		return cli_usage_error("serve", "expected --socket PATH");
	if (first >= argc)
		return cli_usage_error("serve", "expected a TRACE");
	if (first + 1 < argc)
		return cli_usage_error("serve", "expected one TRACE, found also '%s'", argv[first + 1]);
	double stall = 30;
	if (k.stall) {
		char *end;
		stall = strtod(k.stall, &end);
		if (end == k.stall || *end || !(stall >= 0) || stall > 1e9)
			return cli_usage_error("serve", "--stall: expected seconds (0 or more), found '%s'", k.stall);
	}
	if (k.wait > 1000000)
		return cli_usage_error("serve", "--wait: at most 1000000 analysers, found %llu",
				       (unsigned long long) k.wait);
	struct drv_opts o = {.socket = k.socket,
			     .trace = argv[first],
			     .wait = (int) k.wait,
			     .buffer = (size_t) k.buffer,
			     .stall = stall};
	struct weft_err e = {0};
	struct cli_models cm = {0};
	if (cli_models_make(&cm, &e)) {
		cli_models_free(&cm);
		return cli_report(&e);
	}
	o.models = cm.set;
	struct driver *d = weft_xcalloc(1, sizeof(*d));
	if (driver_open(d, &o, &e)) {
		driver_close(d);
		free(d);
		cli_models_free(&cm);
		return cli_report(&e);
	}
	rc = k.plain ? run_plain(d, argv[first], &k, &cm, &e) : run_emu(d, argv[first], &k, &cm, &e);
	int sig = d->interrupted;
	driver_close(d);
	free(d);
	cli_models_free(&cm);
	if (rc)
		return cli_report(&e);
	if (sig) {
		weft_fail(&e, WEFT_EINPUT, "interrupted by signal %d", sig);
		return cli_report(&e);
	}
	return 0;
}
