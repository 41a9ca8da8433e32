/* SPDX-License-Identifier: GPL-3.0-or-later */
/* top: events per MCV (most frequent first, like ovnitop), totals per model,
 * and the event span. Streams are read one after another in file order: no
 * merge is needed to count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "require.h"
#include "cli/opts.h"
#include "clock/clocksetup.h"
#include "model.h"
#include "util/outbuf.h"
#include "trace/trace.h"

/* What the command line asked for. */
struct top_cmd {
	struct import_opts imp;
	const char *clock_file;
	int salvage;
	int first; /* argv[first]: TRACE */
};

#define K struct top_cmd
static const struct opt top_opts[] = {
	OPT_STRING("clock", 'c', "FILE", K, clock_file,
		   "correct the clocks with FILE (weft sync's clock file or an\n"
		   "ovnisync offset or drift table)"),
	OPT_FLAG("salvage", 0, K, salvage,
		 "count a stream cut mid-event up to its last whole event\n"
		 "and say on stderr what is dropped (as weft emu --salvage)"),
	OPT_IMPORT_ROWS(K, imp),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd top_cmdline = {
	.name = "top",
	.synopsis = "[-c CLOCKFILE] [--salvage] [--format NAME] TRACE",
	.about = "Count the events of the ovni trace directory TRACE. Prints one line per MCV,\n"
		 "most frequent first (ties in MCV byte order), in ovnitop's layout; then the\n"
		 "events per model, the number of streams and the span of raw clocks (of\n"
		 "corrected clocks with -c).\n"
		 "Every stream is validated on the way (header, event sizes, clock order\n"
		 "outside unordered regions).\n",
	.opts = top_opts,
};

/* one counter per possible MCV: NCH^3 of them */
#define NCH MCV_NCHARS
#define MCV_INDEX(m, c, v) (((size_t) mcv_index(m) * NCH + (size_t) mcv_index(c)) * NCH + (size_t) mcv_index(v))

struct mcv_count {
	uint64_t n;
	uint32_t idx;
};

static int by_count(const void *a, const void *b)
{
	const struct mcv_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* What the streams hold: a counter per MCV, the events, the clock span. */
struct top_counts {
	uint64_t *counts; /* NCH^3 */
	uint64_t first, last, total;
	int nstreams;
};

/* Every stream of t, one after another. 0 or -1 (e filled). */
static int top_count(struct weft_trace *t, struct top_counts *c, struct weft_err *e)
{
	c->nstreams = t->nstreams;
	for (int i = 0; i < t->nstreams; i++) {
		struct weft_stream *s = &t->streams[i];
		int r;
		while ((r = stream_next(s, e)) > 0) {
			const struct weft_ev *ev = &s->ev;
			c->counts[MCV_INDEX(ev->model, ev->cat, ev->val)]++;
			if (ev->time < c->first)
				c->first = ev->time;
			if (ev->time > c->last)
				c->last = ev->time;
		}
		c->total += s->nevents;
		stream_close(s);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The report, in ovnitop's layout, to stdout. 0 or -1 (e filled). */
static int top_print(const struct top_counts *c, const struct model_set *models, struct weft_err *e)
{
	size_t nz = 0, cap = 256;
	struct mcv_count *list = weft_xmalloc(cap * sizeof(*list));
	uint64_t per_model[NCH] = {0};
	for (size_t i = 0; i < (size_t) NCH * NCH * NCH; i++) {
		if (!c->counts[i])
			continue;
		if (nz == cap) {
			cap *= 2;
			list = weft_xrealloc(list, cap * sizeof(*list));
		}
		list[nz].n = c->counts[i];
		list[nz].idx = (uint32_t) i;
		nz++;
		per_model[i / (NCH * NCH)] += c->counts[i];
	}
	qsort(list, nz, sizeof(*list), by_count);
	struct outbuf o;
	ob_init(&o, STDOUT_FILENO, 1 << 16);
	char line[128];
	for (size_t i = 0; i < nz; i++) {
		uint32_t x = list[i].idx;
		snprintf(line, sizeof(line), "%c%c%c %10llu\n", mcv_char((int) (x / (NCH * NCH))),
			 mcv_char((int) (x / NCH % NCH)), mcv_char((int) (x % NCH)),
			 (unsigned long long) list[i].n);
		ob_str(&o, line);
	}
	ob_str(&o, "\nper model:\n");
	for (int m = 0; m < NCH; m++) {
		if (!per_model[m])
			continue;
		const struct weft_model_def *d = model_set_id(models, mcv_char(m));
		snprintf(line, sizeof(line), "%c %-10s %10llu\n", mcv_char(m),
			 d ? d->name : "(unknown)", (unsigned long long) per_model[m]);
		ob_str(&o, line);
	}
	snprintf(line, sizeof(line), "\nevents %llu in %d streams\n", (unsigned long long) c->total,
		 c->nstreams);
	ob_str(&o, line);
	if (c->total) {
		snprintf(line, sizeof(line), "span %llu .. %llu (%llu ns)\n",
			 (unsigned long long) c->first, (unsigned long long) c->last,
			 (unsigned long long) (c->last - c->first));
		ob_str(&o, line);
	}
	int rc = ob_flush(&o, e, "standard output");
	ob_free(&o);
	free(list);
	return rc;
}

int cmd_top(int argc, char **argv)
{
	struct top_cmd k = {0};
	int rc = opts_parse(&top_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (argc - k.first != 1)
		return cli_usage_error("top", "expected one TRACE directory, found %d arguments", argc - k.first);
	struct weft_err e = {0};
	struct weft_trace t;
	struct trace_opts to = {.mode = STREAM_RAW, .import = &k.imp, .salvage = k.salvage};
	struct cli_models cm = {0};
	if (cli_models_make(&cm, &e) || (cli_trace_models(&to, &cm), trace_open(&t, argv[k.first], &to, &e))) {
		cli_models_free(&cm);
		return cli_report(&e);
	}
	if (k.salvage)
		cli_salvage_report("top", &t);
	struct clock_opts co = {.file = k.clock_file, .sync_file = 1, .say = 1};
	struct top_counts c = {.first = UINT64_MAX};
	rc = k.clock_file || clock_sync_exists(&t) ? clock_setup(&t, &co, &e) : 0;
	if (rc == 0) {
		c.counts = weft_xcalloc((size_t) NCH * NCH * NCH, sizeof(uint64_t));
		rc = top_count(&t, &c, &e);
	}
	if (rc == 0)
		rc = top_print(&c, &cm.set, &e);
	free(c.counts);
	trace_close(&t);
	cli_models_free(&cm);
	return rc ? cli_report(&e) : 0;
}
