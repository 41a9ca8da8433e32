/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dump: every event of a trace in merged time order, one line each:
 *   CLOCK MCV LOOM/PID/TID SENTENCE
 * Clocks are raw (no offsets) unless -c gives a clock file; the sentence comes from the model's event
 * table, unknown MCVs print their payload bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "require.h"
#include "cli/opts.h"
#include "model.h"
#include "evtable.h"
#include "emu/merge.h"
#include "util/outbuf.h"
#include "clock/clocksetup.h"
#include "query/query.h"
#include "trace/trace.h"

/* What the command line asked for. */
struct dump_cmd {
	struct import_opts imp;
	int hex, salvage;
	const char *only, *filter, *clock_file;
	int first; /* argv[first]: TRACE */
	struct cli_models models;
};

/* --model FILE: kept, loaded after the options */
static int opt_model(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct dump_cmd *k = dst;
	(void) cmd, (void) row;
	cli_models_add(&k->models, arg);
	return 0;
}

#define K struct dump_cmd
static const struct opt dump_opts[] = {
	OPT_FLAG("hex", 'x', K, hex, "also print each event's payload bytes in hex"),
	OPT_STRING("clock", 'c', "FILE", K, clock_file,
		   "correct the clocks with FILE (weft sync's clock file or\n"
		   "an ovnisync offset or drift table)"),
	OPT_STRING("stream", 0, "DIR", K, only,
		   "only the streams under DIR (relative to TRACE,\n"
		   "e.g. loom.node0/proc.1/thread.1)"),
	OPT_STRING("filter", 0, "EXPR", K, filter,
		   "only the events for which EXPR holds (the condition\n"
		   "of a weft query pattern, e.g. 'mcv = \"OHx\" and tid > 5';\n"
		   "time counts from the first event, without clock offsets)"),
	OPT_FLAG("salvage", 0, K, salvage,
		 "read a stream cut mid-event up to its last whole event\n"
		 "and say on stderr what is dropped (as weft emu --salvage)"),
	OPT_CALL("model", 0, "FILE", K, imp, opt_model,
		 "read a model file first (as weft emu --model): its\n"
		 "events print their sentences"),
	OPT_IMPORT_ROWS(K, imp),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd dump_cmdline = {
	.name = "dump",
	.synopsis = "[OPTIONS] TRACE",
	.about = "Print every event of the ovni trace directory TRACE, merged in time order\n"
		 "(raw clocks, ties broken by stream path order, then by position), one per line:\n"
		 "  CLOCK MCV LOOM/PID/TID DESCRIPTION\n"
		 "With -c, events are merged by their corrected time, which CLOCK then shows.\n"
		 "Events of models weft has no table for print their payload in hex.\n"
		 "Unordered regions (OU[ .. OU]) are sorted in memory.\n",
	.opts = dump_opts,
};

/* Payload bytes printed at most per event (jumbo events can be huge). */
#define HEX_MAX 256

static void put_hex(struct outbuf *o, const struct weft_ev *ev)
{
	uint32_t n = ev->payload_len < HEX_MAX ? ev->payload_len : HEX_MAX;
	if (ev->payload_len == 0) {
		ob_str(o, "(no payload)");
		return;
	}
	ob_room(o, 40);
	ob_mem(o, ev->jumbo ? "jumbo payload (" : "payload (", ev->jumbo ? 15 : 9);
	ob_u64(o, ev->payload_len);
	ob_mem(o, " bytes): ", 9);
	ob_hexbytes(o, ev->payload, n);
	if (n < ev->payload_len)
		ob_str(o, " ...");
}

/* One event's line: CLOCK MCV LOOM/PID/TID SENTENCE. */
static void put_event(struct outbuf *o, const struct evtable *tab, const struct weft_ev *ev, int hex)
{
	const struct weft_stream *s = ev->stream;
	ob_room(o, 64 + 64 + 8);
	ob_u64(o, ev->time); /* the raw clock unless -c gave offsets */
	char *p = o->buf + o->len;
	p[0] = ' ';
	p[1] = (char) ev->model;
	p[2] = (char) ev->cat;
	p[3] = (char) ev->val;
	p[4] = ' ';
	o->len += 5;
	if (s->label_len <= 64) {
		memcpy(o->buf + o->len, s->label, 64);
		o->len += s->label_len;
	} else {
		ob_str(o, s->label);
	}
	ob_room(o, 1);
	ob_char(o, ' ');
	const struct evinfo *in = evtable_find(tab, ev->model, ev->cat, ev->val);
	if (in && ev_payload_ok(in, ev)) {
		ev_sentence(o, in, ev);
		if (hex) {
			ob_str(o, "  ");
			put_hex(o, ev);
		}
	} else {
		if (in)
			ob_str(o, "(payload does not match the declaration) ");
		put_hex(o, ev);
	}
	ob_room(o, 1);
	ob_char(o, '\n');
}

/* --filter EXPR as a query into *qp (freed by the caller, also on error). */
static int dump_filter(const char *filter, const struct evtable *tab, struct query **qp, struct weft_err *e)
{
	struct query *q = *qp = weft_xcalloc(1, sizeof(*q));
	if (query_init_tab(q, tab, e) || query_add_filter(q, filter, "--filter", e))
		return -1;
	if (q->needs_emu)
		return weft_fail(e, WEFT_EUSAGE, "--filter: state.<model> and cpu need the models to run: "
				 "use weft query");
	return 0;
}

/* Every event of the open trace t, merged, filtered by q, to stdout. */
static int dump_events(const struct dump_cmd *k, struct weft_trace *t, const struct evtable *tab,
		       struct query *q, struct weft_err *e)
{
	struct outbuf o;
	ob_init(&o, STDOUT_FILENO, 1 << 20);
	struct weft_merge m;
	struct clock_opts co = {.file = k->clock_file, .sync_file = 1, .say = 1};
	int rc = k->clock_file || clock_sync_exists(t) ? clock_setup(t, &co, e) : 0;
	if (rc == 0)
		rc = merge_init(&m, t->streams, t->nstreams, e);
	else
		memset(&m, 0, sizeof(m));
	if (rc == 0 && q && (rc = query_bind(q, t, NULL, e)) == 0)
		query_start(q, query_merge_t0(&m));
	struct weft_ev *ev;
	while (rc == 0) {
		int r = merge_next(&m, &ev, e);
		if (r <= 0) {
			rc = r;
			break;
		}
		if (!q || query_match(q, ev))
			put_event(&o, tab, ev, k->hex);
	}
	struct weft_err we = {0};
	if (ob_flush(&o, &we, "standard output") && rc == 0) {
		*e = we;
		rc = -1;
	}
	ob_free(&o);
	merge_free(&m);
	return rc;
}

int cmd_dump(int argc, char **argv)
{
	struct dump_cmd k = {0};
	int rc = opts_parse(&dump_cmdline, &k, argc, argv, &k.first);
	if (rc < 0 && argc - k.first != 1)
		rc = cli_usage_error("dump", "expected one TRACE directory, found %d arguments", argc - k.first);
	if (rc >= 0) {
		cli_models_free(&k.models); /* the --model files kept, never loaded */
		return rc;
	}
	struct weft_err e = {0};
	struct evtable tab;
	if (cli_models_make(&k.models, &e) || evtable_init(&tab, k.models.set.all, k.models.set.n, &e)) {
		cli_models_free(&k.models);
		return cli_report(&e);
	}
	struct query *q = NULL;
	struct weft_trace t;
	struct trace_opts to = {.mode = STREAM_ORDERED, .only = k.only, .import = &k.imp, .salvage = k.salvage};
	cli_trace_models(&to, &k.models);
	rc = k.filter ? dump_filter(k.filter, &tab, &q, &e) : 0;
	if (rc == 0 && (rc = trace_open(&t, argv[k.first], &to, &e)) == 0) {
		if (k.salvage)
			cli_salvage_report("dump", &t);
		rc = dump_events(&k, &t, &tab, q, &e);
		trace_close(&t);
	}
	if (q)
		query_free(q);
	free(q);
	evtable_free(&tab);
	rc = rc ? cli_report(&e) : 0;
	cli_models_free(&k.models);
	return rc;
}
