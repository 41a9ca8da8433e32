/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clocksetup: clock tables and input alignment to per-stream corrections
 * (see clocksetup.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock/clocksetup.h"
#include "util/macros.h"

#define CLOCK_GATE_NS 3600000000000ll /* one hour */

/* The smallest first raw clock of the streams of loom l (or of every loom
 * when l < 0) among inputs using table `which`; 0 if none. */
static int first_clock(const struct weft_trace *t, int l, struct clock_table *const *tab_of,
		       const struct clock_table *which, uint64_t *out)
{
	int found = 0;
	for (int i = 0; i < t->nstreams; i++) {
		const struct weft_stream *s = &t->streams[i];
		uint64_t c;
		if (which && tab_of[s->input] != which)
			continue;
		if (l >= 0 && s->thread->proc->loom->gindex != l)
			continue;
		if (stream_first_clock(s, &c) && (!found || c < *out)) {
			*out = c;
			found = 1;
		}
	}
	return found;
}

/* t_ref of a drift-table entry: the reference host's first event. */
static uint64_t drift_start(const struct weft_trace *t, struct clock_table *const *tab_of,
			    const struct clock_table *tab)
{
	uint64_t best = 0, c;
	int found = 0;
	for (int k = 0; k < tab->n && !found; k++) {
		if (!tab->ent[k].reference)
			continue;
		for (int l = 0; l < t->sys.nlooms; l++) {
			if (strcmp(t->sys.looms[l]->hostname, tab->ent[k].name) != 0)
				continue;
			if (first_clock(t, l, tab_of, tab, &c) && (!found || c < best)) {
				best = c;
				found = 1;
			}
		}
	}
	if (!found)
		first_clock(t, -1, tab_of, tab, &best);
	return best;
}

static void warn_unmatched(const struct clock_table *tab, const int *used)
{
	for (int k = 0; k < tab->n; k++) {
		const struct clock_entry *en = &tab->ent[k];
		if (used[k])
			continue;
		if (tab->form == CLOCK_FORM_OFFSETS)
			weft_warn("%s:%d: host %s matches no loom of the trace", tab->path, en->line, en->name);
		else if (tab->form == CLOCK_FORM_DRIFT)
			weft_warn("%s: host %s (a column of the drift table) matches no loom of the trace",
				  tab->path, en->name);
		else
			weft_warn("%s: looms[%d]: loom %s matches no loom of the trace", tab->path, en->line,
				  en->name);
	}
}

/* Each loom's map from the table of its (first stream's) input. */
static void loom_maps(struct weft_trace *t, struct clock_table **tab_of, const struct clock_opts *o)
{
	struct weft_system *sys = &t->sys;
	int nt = 0;
	struct clock_table *tabs[64];
	int *used[64];
	for (int k = 0; k < t->ninputs; k++) {
		int seen = 0;
		for (int j = 0; j < nt; j++)
			seen |= tabs[j] == tab_of[k];
		if (tab_of[k] && !seen && nt < 64) {
			tabs[nt] = tab_of[k];
			used[nt++] = weft_xcalloc((size_t) tab_of[k]->n + 1, sizeof(int));
		}
	}
	for (int l = 0; l < sys->nlooms; l++) {
		struct weft_loom *lm = sys->looms[l];
		struct clock_map *m = &t->loom_clock[lm->gindex];
		memset(m, 0, sizeof(*m));
		free(t->loom_seg[lm->gindex]);
		t->loom_seg[lm->gindex] = NULL;
		t->loom_nseg[lm->gindex] = 0;
		struct clock_table *tab = NULL;
		for (int i = 0; i < t->nstreams && !tab; i++)
			if (t->streams[i].thread->proc->loom == lm)
				tab = tab_of[t->streams[i].input];
		if (!tab)
			continue;
		struct clock_entry *en = clockfile_find(tab, lm->name, lm->hostname);
		if (!en) {
			if (!o->quiet && !o->table)
				weft_warn("%s: no offset for loom %s (host %s): using 0", tab->path, lm->name,
					  lm->hostname);
			continue;
		}
		for (int j = 0; j < nt; j++)
			if (tabs[j] == tab)
				used[j][en - tab->ent] = 1;
		*m = en->map;
		if (en->nseg > 1) {
			size_t sz = (size_t) en->nseg * sizeof(*en->seg);
			t->loom_seg[lm->gindex] = weft_xmalloc(sz);
			memcpy(t->loom_seg[lm->gindex], en->seg, sz);
			t->loom_nseg[lm->gindex] = en->nseg;
		}
		if (en->tref_from_start)
			m->tref = drift_start(t, tab_of, tab) + (uint64_t) en->tref_rel;
	}
	for (int j = 0; j < nt; j++) {
		if (!o->quiet && !o->table)
			warn_unmatched(tabs[j], used[j]);
		free(used[j]);
	}
}

static int find_input(const struct weft_trace *t, const char *name)
{
	for (int k = 0; k < t->ninputs; k++)
		if (strcmp(t->inputs[k].path, name) == 0)
			return k;
	char *end;
	long v = strtol(name, &end, 10);
	if (*name && !*end && v >= 1 && v <= t->ninputs)
		return (int) v - 1;
	return -1;
}

/* A span of ns in words: years, days, hours or seconds. */
static void span_words(int64_t ns, char *out, size_t n)
{
	double s = (double) ns / 1e9;
	if (s >= 365.25 * 86400)
		snprintf(out, n, "%.1f years", s / (365.25 * 86400));
	else if (s >= 86400)
		snprintf(out, n, "%.1f days", s / 86400);
	else
		snprintf(out, n, "%.1f hours", s / 3600);
}

/* Inputs aligned by their absolute clocks whose starts are hours apart are
 * not one run (an ovni trace's clock, taken as absolute, and a CHARISMA
 * log's 1992 start date are decades apart): refused unless --align places
 * them, with the offset that starts the later one with the earlier. */
static int far_apart(const struct weft_trace *t, const int64_t *first, const int *has, struct weft_err *e)
{
	int lo = -1, hi = -1;
	for (int k = 0; k < t->ninputs; k++) {
		if (!has[k] || !t->inputs[k].absolute)
			continue;
		int64_t a = first[k] + t->input_shift[k];
		if (lo < 0 || a < first[lo] + t->input_shift[lo])
			lo = k;
		if (hi < 0 || a > first[hi] + t->input_shift[hi])
			hi = k;
	}
	if (lo < 0)
		return 0;
	int64_t gap = (first[hi] + t->input_shift[hi]) - (first[lo] + t->input_shift[lo]);
	if (gap <= CLOCK_GATE_NS)
		return 0;
	char words[64];
	span_words(gap, words, sizeof(words));
	return weft_fail(e, WEFT_EINPUT,
			 "%s starts %s after %s by their absolute clocks (an ovni trace's own clock, a "
			 "converted log's start date): they are not one run; to show them on one timeline "
			 "pass --align %s=-%lld.%09llds (starts it with %s) or another offset",
			 t->inputs[hi].path, words, t->inputs[lo].path, t->inputs[hi].path,
			 (long long) (gap / 1000000000), (long long) (gap % 1000000000), t->inputs[lo].path);
}

/* Alignment of the inputs, then the common bias. */
static int shifts(struct weft_trace *t, const struct clock_opts *o, struct weft_err *e)
{
	int n = t->ninputs;
	int64_t *first = weft_xcalloc((size_t) n, sizeof(int64_t));
	int *has = weft_xcalloc((size_t) n, sizeof(int));
	for (int i = 0; i < t->nstreams; i++) {
		const struct weft_stream *s = &t->streams[i];
		uint64_t c;
		if (!stream_first_clock(s, &c))
			continue;
		int64_t g = (int64_t) c + clock_correction(&t->loom_clock[s->thread->proc->loom->gindex], c);
		if (!has[s->input] || g < first[s->input])
			first[s->input] = g;
		has[s->input] = 1;
	}
	int have_abs = 0;
	int64_t origin = 0;
	for (int k = 0; k < n && n > 1; k++) {
		if (!has[k] || !t->inputs[k].absolute)
			continue;
		int64_t a = first[k] + t->inputs[k].epoch;
		if (!have_abs || a < origin)
			origin = a;
		have_abs = 1;
	}
	for (int k = 0; k < n; k++) {
		t->input_shift[k] = 0;
		if (n > 1 && has[k])
			t->input_shift[k] = t->inputs[k].absolute && have_abs ? t->inputs[k].epoch - origin : -first[k];
	}
	int rc = o->nalign ? 0 : far_apart(t, first, has, e);
	for (int a = 0; a < o->nalign && rc == 0; a++) {
		int k = find_input(t, o->align[a].input);
		if (k < 0)
			rc = weft_fail(e, WEFT_EUSAGE, "--align %s=...: no input is named '%s' (give a path as "
				       "on the command line, or its position from 1 to %d)",
				       o->align[a].input, o->align[a].input, n);
		else
			t->input_shift[k] += o->align[a].shift;
	}
	/* the common bias: no first event before time 0 */
	int64_t min = 0;
	for (int k = 0; k < n; k++)
		if (has[k] && first[k] + t->input_shift[k] < min)
			min = first[k] + t->input_shift[k];
	for (int k = 0; k < n; k++)
		t->input_shift[k] -= min;
	free(first);
	free(has);
	return rc;
}

/* A stream's raw clock c on the trace's time line. */
static uint64_t corrected(const struct weft_stream *s, uint64_t c)
{
	c += (uint64_t) s->offset;
	if (s->drift)
		c += (uint64_t) clock_drift_term((int64_t) (c - s->tref), s->drift);
	return c;
}

/* As ovniemu's clock gate: the first event of every stream (in the order
 * of the streams' paths, corrected by the table when there is one) within
 * an hour of the first stream's; a stream further is an error (the clocks
 * need offsets), whether or not a table was applied. */
static int gate(struct weft_trace *t, struct weft_err *e)
{
	const struct weft_stream *first = NULL;
	uint64_t t0 = 0;
	for (int i = 0; i < t->nstreams; i++) {
		const struct weft_stream *s = &t->streams[i];
		uint64_t c;
		if (stream_first_clock(s, &c) && (!first || strcmp(s->rel, first->rel) < 0))
			first = s, t0 = c;
	}
	if (!first)
		return 0;
	t0 = corrected(first, t0);
	const struct weft_stream *far = NULL;
	uint64_t delta = 0;
	for (int i = 0; i < t->nstreams; i++) {
		const struct weft_stream *s = &t->streams[i];
		uint64_t c;
		if (!stream_first_clock(s, &c))
			continue;
		c = corrected(s, c);
		uint64_t d = c > t0 ? c - t0 : t0 - c;
		if (d > (uint64_t) CLOCK_GATE_NS && (!far || strcmp(s->rel, far->rel) < 0))
			far = s, delta = d;
	}
	if (far)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: the first events of stream %s and of the first stream, %s (loom %s and "
				 "loom %s), are %.2f hours apart: their clocks need offsets (run ovnisync "
				 "during the job, or pass -c FILE with an offset table%s)",
				 t->dir, far->rel, first->rel, far->thread->proc->loom->name,
				 first->thread->proc->loom->name, (double) delta / 3.6e12,
				 t->ninputs > 1 ? "; inputs of different runs: --align INPUT=OFFSET" : "");
	return 0;
}

char *clock_sync_path(const char *input)
{
	struct stat st;
	if (stat(input, &st) == 0 && S_ISDIR(st.st_mode))
		return weft_xasprintf("%s/clock.json", input);
	return weft_xasprintf("%s.clock.json", input);
}

int clock_sync_exists(const struct weft_trace *t)
{
	if (t->ninputs < 1)
		return 0;
	char *p = clock_sync_path(t->inputs[0].path);
	struct stat st;
	int yes = stat(p, &st) == 0;
	free(p);
	return yes;
}

int clock_setup(struct weft_trace *t, const struct clock_opts *o, struct weft_err *e)
{
	struct clock_table **tab_of = weft_xcalloc((size_t) t->ninputs, sizeof(*tab_of));
	struct clock_table file = {0}, *own = weft_xcalloc((size_t) t->ninputs, sizeof(*own));
	int rc = 0;
	t->clock_source = NULL;
	char *synced = NULL;
	if (o->sync_file && !o->table && !o->file && !o->no_files && t->ninputs > 0) {
		struct stat st;
		synced = clock_sync_path(t->inputs[0].path);
		if (stat(synced, &st) != 0) {
			free(synced);
			synced = NULL;
		}
	}
	if (synced) {
		/* weft sync's estimate, as -c would read it */
		rc = clockfile_load(&file, synced, e);
		for (int k = 0; k < t->ninputs && rc == 0; k++)
			tab_of[k] = &file;
		if (rc == 0 && o->say)
			fprintf(stderr,
				"weft: clocks from %s (weft sync's estimate; -c FILE reads "
				"another)\n",
				synced);
	} else if (o->table) {
		for (int k = 0; k < t->ninputs; k++)
			tab_of[k] = (struct clock_table *) o->table;
	} else if (o->file && !o->no_files) {
		rc = clockfile_load(&file, o->file, e);
		for (int k = 0; k < t->ninputs && rc == 0; k++)
			tab_of[k] = &file;
		t->clock_source = o->file;
	} else if (!o->no_files) {
		/* each ovni directory's own ovnisync table, as ovniemu does */
		for (int k = 0; k < t->ninputs && rc == 0; k++) {
			if (t->inputs[k].source)
				continue;
			char *p = weft_xasprintf("%s/clock-offsets.txt", t->inputs[k].dir);
			struct stat st;
			if (stat(p, &st) == 0) {
				rc = clockfile_load(&own[k], p, e);
				if (rc == 0)
					tab_of[k] = &own[k];
			}
			free(p);
		}
	}
	if (rc == 0) {
		loom_maps(t, tab_of, o);
		rc = shifts(t, o, e);
	}
	for (int i = 0; i < t->nstreams && rc == 0; i++) {
		struct weft_stream *s = &t->streams[i];
		const struct clock_map *m = &t->loom_clock[s->thread->proc->loom->gindex];
		s->offset = m->offset + t->input_shift[s->input];
		s->drift = m->drift;
		s->tref = m->tref;
		s->seg = t->loom_seg[s->thread->proc->loom->gindex];
		s->nseg = t->loom_nseg[s->thread->proc->loom->gindex];
	}
	if (rc == 0 && o->gate)
		rc = gate(t, e);
	clockfile_free(&file);
	free(synced);
	for (int k = 0; k < t->ninputs; k++)
		clockfile_free(&own[k]);
	free(own);
	free(tab_of);
	return rc;
}

int clock_parse_duration(const char *s, int64_t *ns)
{
	static const struct { const char *unit; int64_t mul; } units[] = {
		{"", 1}, {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
	};
	const char *p = s;
	int neg = 0;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	int64_t ip = 0, fp = 0, fd = 1;
	int nd = 0;
	for (; *p >= '0' && *p <= '9'; p++, nd++) {
		if (ip > INT64_MAX / 100)
			return -1;
		ip = ip * 10 + (*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, nd++)
			if (fd < 1000000000) {
				fp = fp * 10 + (*p - '0');
				fd *= 10;
			}
	if (nd == 0)
		return -1;
	for (size_t u = 0; u < ARRAY_SIZE(units); u++) {
		if (strcmp(p, units[u].unit) != 0)
			continue;
		if (ip > INT64_MAX / units[u].mul / 2)
			return -1;
		int64_t v = ip * units[u].mul + fp * units[u].mul / fd;
		*ns = neg ? -v : v;
		return 0;
	}
	return -1;
}

int clock_parse_align(const char *arg, struct clock_align *a, char *why, int n)
{
	const char *eq = strrchr(arg, '=');
	if (!eq || eq == arg) {
		snprintf(why, (size_t) n, "--align: expected INPUT=OFFSET (e.g. run.trf=-1.5ms), found '%s'", arg);
		return -1;
	}
	if (clock_parse_duration(eq + 1, &a->shift)) {
		snprintf(why, (size_t) n, "--align %s: expected a signed duration such as 250, -3us, 1.5ms or "
			 "2s after '=', found '%s'", arg, eq + 1);
		return -1;
	}
	size_t len = (size_t) (eq - arg);
	if (len >= sizeof(a->input)) {
		snprintf(why, (size_t) n, "--align: the input name is longer than %zu bytes", sizeof(a->input) - 1);
		return -1;
	}
	memcpy(a->input, arg, len);
	a->input[len] = '\0';
	return 0;
}
