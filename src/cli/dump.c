/* dump: every event of a trace in merged time order, one line each:
 *   CLOCK MCV LOOM/PID/TID SENTENCE
 * Clocks are raw (no offsets) unless -c gives a clock file; the sentence comes from the model's event
 * table, unknown MCVs print their payload bytes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/clockopts.h"
#include "model.h"
#include "evtable.h"
#include "emu/merge.h"
#include "util/outbuf.h"
#include "clock/clocksetup.h"
#include "query/query.h"
#include "trace/trace.h"

static const char dump_help[] =
	"Usage: weft dump [-x] [-c CLOCKFILE] [--stream DIR] [--filter EXPR] [--model FILE]...\n"
	"                 [--format NAME] TRACE\n"
	"\n"
	"Print every event of the ovni trace directory TRACE, merged in time order\n"
	"(raw clocks, ties broken by stream path order, then by position), one per line:\n"
	"  CLOCK MCV LOOM/PID/TID DESCRIPTION\n"
	"With -c, events are merged by their corrected time, which CLOCK then shows.\n"
	"Events of models weft has no table for print their payload in hex.\n"
	"Unordered regions (OU[ .. OU]) are sorted in memory.\n"
	"\n"
	"Options:\n"
	"  -x, --hex           also print each event's payload bytes in hex\n"
	"  -c, --clock FILE    correct the clocks with FILE (weft sync's clock file or\n"
	"                      an ovnisync offset or drift table)\n"
	"      --stream DIR    only the streams under DIR (relative to TRACE,\n"
	"                      e.g. loom.node0/proc.1/thread.1)\n"
	"      --filter EXPR   only the events for which EXPR holds (the condition\n"
	"                      of a weft query pattern, e.g. 'mcv = \"OHx\" and tid > 5';\n"
	"                      time counts from the first event, without clock offsets)\n"
	"      --model FILE    read a model file first (as weft emu --model): its\n"
	"                      events print their sentences\n"
	IMPORTOPTS_HELP
	"  -h, --help          show this help\n";

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

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{"hex", no_argument, 0, 'x'},
		{"clock", required_argument, 0, 'c'},
		{"stream", required_argument, 0, 's'},
		{"filter", required_argument, 0, 'F'},
		{"model", required_argument, 0, 'm'},
		{"help", no_argument, 0, 'h'},
		IMPORTOPTS_LONG,
		{0, 0, 0, 0},
	};
	struct import_opts imp = {0};
	int hex = 0;
	const char *only = NULL, *filter = NULL, *clock_file = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":xc:h", opts, NULL)) != -1) {
		switch (c) {
		case 'x':
			hex = 1;
			break;
		case 'c':
			clock_file = optarg;
			break;
		case 's':
			only = optarg;
			break;
		case 'F':
			filter = optarg;
			break;
		case 'm': {
			struct weft_err merr = {0};
			if (models_load(optarg, &merr))
				return cli_report(&merr);
			break;
		}
		case 'h':
			fputs(dump_help, stdout);
			return 0;
		default:
			if (importopts_parse(&imp, c, optarg))
				break;
			return cli_bad_option("dump", c, optopt, argv, optind);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("dump", "expected one TRACE directory, found %d arguments",
				       argc - optind);

	struct weft_err e = {0};
	struct evtable tab;
	if (evtable_init(&tab, &e))
		return cli_report(&e);
	struct query *q = NULL;
	if (filter) {
		q = weft_xcalloc(1, sizeof(*q));
		if (query_init(q, &e) || query_add_filter(q, filter, "--filter", &e) ||
		    (q->needs_emu && weft_fail(&e, WEFT_EUSAGE, "--filter: state.<model> and cpu need "
					       "the models to run: use weft query"))) {
			query_free(q);
			free(q);
			evtable_free(&tab);
			return cli_report(&e);
		}
	}
	struct weft_trace t;
	struct trace_opts to = {.mode = STREAM_ORDERED, .only = only, .import = &imp};
	if (trace_open(&t, argv[optind], &to, &e)) {
		if (q)
			query_free(q);
		free(q);
		evtable_free(&tab);
		return cli_report(&e);
	}
	struct outbuf o;
	ob_init(&o, STDOUT_FILENO, 1 << 20);
	struct weft_merge m;
	struct clock_opts co = {.file = clock_file};
	int rc = clock_file ? clock_setup(&t, &co, &e) : 0;
	if (rc == 0)
		rc = merge_init(&m, t.streams, t.nstreams, &e);
	else
		memset(&m, 0, sizeof(m));
	if (rc == 0 && q && (rc = query_bind(q, &t, NULL, &e)) == 0)
		query_start(q, query_merge_t0(&m));
	struct weft_ev *ev;
	while (rc == 0) {
		int r = merge_next(&m, &ev, &e);
		if (r <= 0) {
			rc = r;
			break;
		}
		if (q && !query_match(q, ev))
			continue;
		const struct weft_stream *s = ev->stream;
		ob_room(&o, 64 + 64 + 8);
		ob_u64(&o, ev->time); /* the raw clock unless -c gave offsets */
		char *p = o.buf + o.len;
		p[0] = ' ';
		p[1] = (char) ev->model;
		p[2] = (char) ev->cat;
		p[3] = (char) ev->val;
		p[4] = ' ';
		o.len += 5;
		if (s->label_len <= 64) {
			memcpy(o.buf + o.len, s->label, 64);
			o.len += s->label_len;
		} else {
			ob_str(&o, s->label);
		}
		ob_room(&o, 1);
		ob_char(&o, ' ');
		const struct evinfo *in = evtable_find(&tab, ev->model, ev->cat, ev->val);
		if (in && ev_payload_ok(in, ev)) {
			ev_sentence(&o, in, ev);
			if (hex) {
				ob_str(&o, "  ");
				put_hex(&o, ev);
			}
		} else {
			if (in)
				ob_str(&o, "(payload does not match the declaration) ");
			put_hex(&o, ev);
		}
		ob_room(&o, 1);
		ob_char(&o, '\n');
	}
	struct weft_err we = {0};
	if (ob_flush(&o, &we, "standard output") && rc == 0) {
		e = we;
		rc = -1;
	}
	ob_free(&o);
	merge_free(&m);
	trace_close(&t);
	evtable_free(&tab);
	if (q)
		query_free(q);
	free(q);
	return rc ? cli_report(&e) : 0;
}
