/* top: events per MCV (most frequent first, like ovnitop), totals per model,
 * and the event span. Streams are read one after another in file order: no
 * merge is needed to count. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/clockopts.h"
#include "clock/clocksetup.h"
#include "model.h"
#include "util/outbuf.h"
#include "trace/trace.h"

static const char top_help[] =
	"Usage: weft top [-c CLOCKFILE] [--format NAME] TRACE\n"
	"\n"
	"Count the events of the ovni trace directory TRACE. Prints one line per MCV,\n"
	"most frequent first (ties in MCV byte order), in ovnitop's layout; then the\n"
	"events per model, the number of streams and the span of raw clocks (of\n"
	"corrected clocks with -c).\n"
	"Every stream is validated on the way (header, event sizes, clock order\n"
	"outside unordered regions).\n"
	"\n"
	"Options:\n"
	"  -c, --clock FILE  correct the clocks with FILE (weft sync's clock file or an\n"
	"                    ovnisync offset or drift table)\n"
	IMPORTOPTS_HELP
	"  -h, --help   show this help\n";

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

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{"clock", required_argument, 0, 'c'},
		{"help", no_argument, 0, 'h'},
		IMPORTOPTS_LONG,
		{0, 0, 0, 0},
	};
	int c;
	const char *clock_file = NULL;
	struct import_opts imp = {0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:h", opts, NULL)) != -1) {
		if (c == 'c') {
			clock_file = optarg;
			continue;
		}
		if (c == 'h') {
			fputs(top_help, stdout);
			return 0;
		}
		if (importopts_parse(&imp, c, optarg))
			continue;
		return cli_bad_option("top", c, optopt, argv, optind);
	}
	if (argc - optind != 1)
		return cli_usage_error("top", "expected one TRACE directory, found %d arguments",
				       argc - optind);
	struct weft_err e = {0};
	struct weft_trace t;
	struct trace_opts to = {.mode = STREAM_RAW, .import = &imp};
	if (trace_open(&t, argv[optind], &to, &e))
		return cli_report(&e);
	struct clock_opts co = {.file = clock_file};
	if (clock_file && clock_setup(&t, &co, &e)) {
		trace_close(&t);
		return cli_report(&e);
	}

	uint64_t *counts = weft_xcalloc((size_t) NCH * NCH * NCH, sizeof(uint64_t));
	uint64_t first = UINT64_MAX, last = 0, total = 0;
	int rc = 0;
	for (int i = 0; i < t.nstreams && rc == 0; i++) {
		struct weft_stream *s = &t.streams[i];
		int r;
		while ((r = stream_next(s, &e)) > 0) {
			const struct weft_ev *ev = &s->ev;
			counts[MCV_INDEX(ev->model, ev->cat, ev->val)]++;
			if (ev->time < first)
				first = ev->time;
			if (ev->time > last)
				last = ev->time;
		}
		if (r < 0)
			rc = -1;
		total += s->nevents;
		stream_close(s);
	}
	if (rc) {
		free(counts);
		trace_close(&t);
		return cli_report(&e);
	}

	size_t nz = 0, cap = 256;
	struct mcv_count *list = weft_xmalloc(cap * sizeof(*list));
	uint64_t per_model[NCH] = {0};
	for (size_t i = 0; i < (size_t) NCH * NCH * NCH; i++) {
		if (!counts[i])
			continue;
		if (nz == cap) {
			cap *= 2;
			list = weft_xrealloc(list, cap * sizeof(*list));
		}
		list[nz].n = counts[i];
		list[nz].idx = (uint32_t) i;
		nz++;
		per_model[i / (NCH * NCH)] += counts[i];
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
		const struct weft_model_def *d = model_by_id(mcv_char(m));
		snprintf(line, sizeof(line), "%c %-10s %10llu\n", mcv_char(m),
			 d ? d->name : "(unknown)", (unsigned long long) per_model[m]);
		ob_str(&o, line);
	}
	snprintf(line, sizeof(line), "\nevents %llu in %d streams\n", (unsigned long long) total,
		 t.nstreams);
	ob_str(&o, line);
	if (total) {
		snprintf(line, sizeof(line), "span %llu .. %llu (%llu ns)\n",
			 (unsigned long long) first, (unsigned long long) last,
			 (unsigned long long) (last - first));
		ob_str(&o, line);
	}
	rc = ob_flush(&o, &e, "standard output");
	ob_free(&o);
	free(list);
	free(counts);
	trace_close(&t);
	return rc ? cli_report(&e) : 0;
}
