/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_query: the input is the text of event patterns, one per line.
 *
 * Each line is parsed as a pattern, as a bare expression (dump --filter) and
 * as an attribute list (interactive current). Errors must be usage errors
 * whose message names a column. What parses is bound to a small fake system
 * and run over a few hand-made events (every event of every model character
 * class, payloads of the right and wrong sizes) with every action, the
 * summary included, into an output that is never written out; the prefilter
 * must agree with a full evaluation on every event, and the batch path
 * (query_feed, with its slots and time phases) must count, group and sum
 * what match + act do. Then the first pattern is removed by its label and
 * the events run again.
 *
 * The models' event tables are compiled once, on the first input, and
 * shared by every query (query_init_tab): their compilation cost more than
 * a whole input's parse, bind and run.
 *
 * Nothing is printed and no file is written; a broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "query/query.h"
#include "trace/trace.h"

#include "fuzz_check.h"
#include "util/macros.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct weft_loom loom;
static struct weft_loom *loomp = &loom;
static struct weft_proc proc;
static struct weft_thread thr;
static struct weft_stream strm;
static struct weft_trace tr;
static char loom_name[] = "node00";
static char rel[] = "loom.node00/proc.1/thread.1";

static void fake_system(void)
{
	memset(&tr, 0, sizeof(tr));
	loom.name = loom_name;
	loom.gindex = 0;
	proc.pid = 1;
	proc.loom = &loom;
	proc.has_rank = 1;
	thr.tid = 1;
	thr.proc = &proc;
	strm.index = 0;
	strm.thread = &thr;
	strm.rel = rel;
	tr.sys.looms = &loomp;
	tr.sys.nlooms = 1;
	tr.streams = &strm;
	tr.nstreams = 1;
}

static void run_events(struct query *q, int feed)
{
	static const char *const mcvs[] = {"OHx", "OM[", "OM=", "OAr", "OHp", "KCO", "MS[", "zz~", "!!!"};
	uint8_t pl[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
	struct weft_ev ev;
	for (size_t i = 0; i < ARRAY_SIZE(mcvs); i++) {
		for (uint32_t len = 0; len <= 16; len += 4) {
			memset(&ev, 0, sizeof(ev));
			ev.model = (uint8_t) mcvs[i][0];
			ev.cat = (uint8_t) mcvs[i][1];
			ev.val = (uint8_t) mcvs[i][2];
			ev.clock = ev.time = 100 + i;
			ev.payload = len ? pl : NULL;
			ev.payload_len = len;
			ev.stream = &strm;
			if (feed) {
				query_feed(q, &ev);
				continue;
			}
			uint64_t act = q->active;
			uint64_t m = query_match(q, &ev);
			/* the prefilter never changes an answer */
			for (int k = 0; k < q->npat; k++)
				if ((act >> k) & 1)
					check(((m >> k) & 1) == (uint64_t) !!query_eval(q, k, &ev, q->chrono - 1));
				else
					check(((m >> k) & 1) == 0);
			if (m)
				query_act(q, &ev, m);
		}
	}
	query_summary(q, q->chrono);
}

/* Counts, groups and sums of pattern k, in one number. */
static uint64_t digest(const struct query *q, int k)
{
	const struct qpattern *p = q->pat[k];
	uint64_t h = p->matches * 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < p->ncby; i++)
		for (const struct qgroup *g = p->cby[i].groups; g; g = g->hh.next) {
			uint64_t x = 1469598103934665603ull;
			for (size_t j = 0; j < g->klen; j++)
				x = (x ^ (uint8_t) g->key[j]) * 1099511628211ull;
			h += (x ^ (uint64_t) i) * (g->n + 1); /* any order */
		}
	for (int i = 0; i < p->nsum; i++)
		h = h * 31 + p->sum[i].sum;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	check(text != NULL);
	if (size)
		memcpy(text, data, size);
	text[size] = '\0';
	fake_system();
	static struct evtable tab; /* compiled once, never freed (still reachable) */
	static int have_tab;
	struct query q;
	struct weft_err e = {0};
	if (!have_tab) {
		/* weft's own models, made once (still reachable) */
		struct model_set set = model_registry_set(model_registry_new());
		const struct weft_model_def *const *all = set.all;
		int nall = set.n;
		check(evtable_init(&tab, all, nall, &e) == 0);
		have_tab = 1;
	}
	check(query_init_tab(&q, &tab, &e) == 0);
	struct outbuf o;
	ob_init(&o, -1, 1 << 12); /* writes fail quietly: nothing leaves */
	q.out = &o;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (query_add(&q, line, "pattern", &e) != 0)
			check_err_code(&e, WEFT_EUSAGE);
		memset(&e, 0, sizeof(e));
		if (query_add_filter(&q, line, "filter", &e) == 0)
			check(query_remove(&q, "filter") == 0);
		else
			check_err_code(&e, WEFT_EUSAGE);
		struct qattr *attrs;
		int n = query_parse_attrs(&q, line, "current", &attrs, &e);
		if (n >= 0)
			query_free_attrs(attrs, n);
		else
			check_err_code(&e, WEFT_EUSAGE);
	}
	check(query_bind(&q, &tr, NULL, &e) == 0);
	query_start(&q, 100);
	run_events(&q, 0);
	/* the batch path (query_feed) counts, groups and sums what match + act do */
	uint64_t nm[QUERY_MAX_PATTERNS];
	for (int k = 0; k < q.npat; k++)
		nm[k] = digest(&q, k);
	query_start(&q, 100);
	run_events(&q, 1);
	for (int k = 0; k < q.npat; k++)
		check(digest(&q, k) == nm[k]);
	q.json = 1;
	query_start(&q, 100);
	run_events(&q, 0);
	if (q.npat > 0) {
		/* the prefilter rebuilt without the first pattern still agrees */
		char *label = strdup(q.pat[0]->label);
		check(label != NULL);
		int n = q.npat;
		check(query_remove(&q, label) == 0);
		check(q.npat == n - 1);
		check(query_remove(&q, label) != 0);
		free(label);
		query_start(&q, 100);
		run_events(&q, 0);
	}
	ob_free(&o);
	query_free(&q);
	free(text);
	return 0;
}
