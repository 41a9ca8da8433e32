/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sinks: the layout of a run for its sinks, and the change stream handed
 * to them (sinks.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/sinks.h"

struct emu_sinks {
	struct sink_layout l;
	struct sink_row *rows[SINK_NROWSETS];
	struct sink_channel *ch[SINK_NROWSETS];
	struct sink_loom *looms;
	struct sink_proc *procs;
	struct sink_label *states;
	char **strs; /* owned names */
	int nstrs, capstrs;
	int nbegun; /* the sinks begun (or whose begin failed): ended once */
	int ended;
	struct win *win; /* --from/--to, NULL: none */
};

static const char *own(struct emu_sinks *s, char *str)
{
	if (s->nstrs == s->capstrs) {
		s->capstrs = s->capstrs ? 2 * s->capstrs : 64;
		s->strs = weft_xrealloc(s->strs, (size_t) s->capstrs * sizeof(*s->strs));
	}
	return s->strs[s->nstrs++] = str;
}

/* "<model>.<words of the title>" for a slot of a model written in C. */
static const char *slug_name(struct emu_sinks *s, const char *model, const char *title, int slot)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf), "%s.", model);
	int gap = 0;
	for (const char *c = title ? title : ""; *c && n < (int) sizeof(buf) - 1; c++) {
		if (isalnum((unsigned char) *c)) {
			if (gap && buf[n - 1] != '.')
				buf[n++] = '_';
			buf[n++] = (char) tolower((unsigned char) *c);
			gap = 0;
		} else
			gap = 1;
	}
	buf[n] = '\0';
	if (buf[n - 1] == '.')
		snprintf(buf + n, sizeof(buf) - (size_t) n, "slot%d", slot);
	return own(s, weft_xasprintf("%s", buf));
}

/* The run's model of character id (its models, not the registry). */
static const struct weft_model_def *run_model(const struct emu *e, char id)
{
	for (int m = 0; m < e->models.n; m++)
		if (e->models.def[m]->id == id)
			return e->models.def[m];
	return NULL;
}

static void channels(struct emu *e, struct emu_sinks *s, int set)
{
	int n = e->out.slots.n[set];
	struct sink_channel *ch = s->ch[set] = weft_xcalloc((size_t) n + 1, sizeof(*ch));
	for (int k = 0; k < n; k++) {
		const struct weft_model_def *d = run_model(e, e->out.slots.model[set][k]);
		const char *mname = d ? d->name : "emu";
		ch[k].model = e->out.slots.model[set][k];
		ch[k].model_name = mname;
		ch[k].title = e->out.slots.label[set][k];
		ch[k].fresh = e->out.slots.fresh[set][k];
		const struct emu_slot_decl *x = &e->out.slots.decl[set][k];
		ch[k].kind = x->kind;
		ch[k].name =
			x->name ? own(s, weft_xasprintf("%s.%s", mname, x->name)) : slug_name(s, mname, ch[k].title, k);
		ch[k].dynamic_labels = x->dynamic;
		ch[k].labels = x->labels;
		ch[k].nlabels = x->nlabels;
	}
	s->l.set[set].nchannels = n;
	s->l.set[set].channels = ch;
}

/* Every model's row states, then the emulator's own. */
static void states(struct emu *e, struct emu_sinks *s)
{
	int n = 3;
	for (int m = 0; m < e->models.n; m++)
		n += e->models.def[m]->hooks->nstates;
	struct sink_label *l = s->states = weft_xcalloc((size_t) n, sizeof(*l));
	int k = 0;
	l[k++] = (struct sink_label){0, EMU_STATE_NONE_LABEL, {0, 0, 0}, 0};
	for (int m = 0; m < e->models.n; m++)
		for (int i = 0; i < e->models.def[m]->hooks->nstates; i++) {
			const struct weft_state_label *w = &e->models.def[m]->hooks->states[i];
			l[k++] = (struct sink_label){w->value, w->label, {w->rgb[0], w->rgb[1], w->rgb[2]}, 1};
		}
	l[k++] = (struct sink_label){EMU_STATE_NOT_STARTED, "Not started", {230, 230, 230}, 1};
	l[k++] = (struct sink_label){EMU_STATE_ENDED, "Ended", {90, 90, 90}, 1};
	for (int set = 0; set < SINK_NROWSETS; set++) {
		s->l.set[set].state_labels = l;
		s->l.set[set].nstate_labels = k;
	}
}

static void rows(struct emu *e, struct emu_sinks *s)
{
	const struct weft_system *sys = &e->tr.sys;
	s->looms = weft_xcalloc((size_t) sys->nlooms + 1, sizeof(*s->looms));
	s->procs = weft_xcalloc((size_t) sys->nprocs + 1, sizeof(*s->procs));
	for (int i = 0; i < sys->nlooms; i++) {
		s->looms[i].name = sys->looms[i]->name;
		s->looms[i].hostname = sys->looms[i]->hostname;
		s->looms[i].first_cpu = -1;
	}
	struct sink_row *t = s->rows[SINK_THREADS] = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*t));
	for (int r = 0; r < e->sys.nth; r++) {
		const struct weft_thread *w = e->sys.by_row[r]->sys;
		const struct weft_proc *p = w->proc;
		struct sink_proc *sp = &s->procs[p->gindex];
		if (!sp->nrows++) {
			sp->first_row = r;
			sp->loom = p->loom->gindex;
			sp->pid = p->pid;
			sp->appid = p->has_app_id ? (int) p->app_id : 0;
			sp->rank = p->has_rank ? (int) p->rank : -1;
			sp->nranks = p->has_rank ? (int) p->nranks : 0;
		}
		t[r] = (struct sink_row){p->loom->gindex, p->gindex, w->tid, -1, w->stream, NULL};
		t[r].name =
			own(s, weft_xasprintf("%s.%lld.%lld", p->loom->name, (long long) p->pid, (long long) w->tid));
	}
	struct sink_row *c = s->rows[SINK_CPUS] = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*c));
	for (int r = 0; r < e->sys.ncpu; r++) {
		const struct weft_cpu *w = e->sys.cpu[r].sys;
		struct sink_loom *sl = &s->looms[w->loom->gindex];
		if (sl->first_cpu < 0)
			sl->first_cpu = r;
		sl->ncpus++;
		c[r] = (struct sink_row){w->loom->gindex, -1, -1, w->is_virtual ? -1 : w->phyid, -1, NULL};
		c[r].name = w->is_virtual ? own(s, weft_xasprintf("%s.vCPU", w->loom->name))
					  : own(s, weft_xasprintf("%s.%lld", w->loom->name, (long long) w->phyid));
	}
	s->l.set[SINK_THREADS] = (struct sink_rowset){"thread", e->sys.nth, t, 0, NULL, NULL, 0};
	s->l.set[SINK_CPUS] = (struct sink_rowset){"cpu", e->sys.ncpu, c, 0, NULL, NULL, 0};
	s->l.nlooms = sys->nlooms;
	s->l.looms = s->looms;
	s->l.nprocs = sys->nprocs;
	s->l.procs = s->procs;
}

/* ---- --from/--to: the window in front of the sinks -------------------------
 * The records of [from, to] only, as Paraver's cutter writes a window of
 * a whole trace: times minus
 * `from`; the states open at `from` opened at 0, those open at `to`
 * closed there (a STATE 0); values that changed in the window only (a SET
 * that repeats the run's last value, before the window too, is none; the
 * others go as PUTs, a change for sure whatever the sink saw); the
 * communications sent in the window, renumbered from 0, the explicit times
 * of their operands shifted; nothing after `to` (a send received later is
 * dropped by the sink's end). CPU records always pass (they say where a
 * row runs, not when). */
enum { WIN_BEFORE, WIN_INSIDE, WIN_AFTER };
#define WIN_OUT 4096

struct win {
	uint64_t from, to;
	int phase;
	int nrows[SINK_NROWSETS], nch[SINK_NROWSETS];
	int64_t *last[SINK_NROWSETS]; /* by row * nch + chan */
	uint32_t *state[SINK_NROWSETS];
	uint64_t *map; /* by the stream's comm id: the window's id + 1, 0: not sent in it */
	uint64_t nmap, capmap;
	uint64_t next_out;
	int64_t arg[4];
	int narg;
	struct sink_change out[WIN_OUT];
	size_t nout;
	const struct sink_list *sinks;
};

static void to_sinks(const struct sink_list *l, const struct sink_change *c, size_t n)
{
	for (int i = 0; i < l->n; i++)
		if (l->s[i]->changes)
			l->s[i]->changes(l->s[i], c, n);
}

static void win_flush(struct win *w)
{
	if (w->nout)
		to_sinks(w->sinks, w->out, w->nout);
	w->nout = 0;
}

static void win_put(struct win *w, uint8_t kind, uint8_t set, uint16_t chan, uint32_t row, int64_t value)
{
	if (w->nout == WIN_OUT)
		win_flush(w);
	w->out[w->nout++] = (struct sink_change){kind, set, chan, row, value};
}

static uint64_t win_shift(const struct win *w, uint64_t t)
{
	if (t <= w->from)
		return 0;
	return (t < w->to ? t : w->to) - w->from;
}

/* The window opens (at 0) or closes (at to): the open states follow. */
static void win_edge(struct win *w, int open)
{
	win_put(w, SINK_CH_TIME, 0, 0, 0, open ? 0 : (int64_t) (w->to - w->from));
	for (int set = 0; set < SINK_NROWSETS; set++)
		for (int r = 0; r < w->nrows[set]; r++)
			if (w->state[set][r])
				win_put(w, SINK_CH_STATE, (uint8_t) set, 0, (uint32_t) r, open ? w->state[set][r] : 0);
	w->phase = open ? WIN_INSIDE : WIN_AFTER;
}

static void win_time(struct win *w, uint64_t t)
{
	if (w->phase == WIN_BEFORE && t >= w->from)
		win_edge(w, 1);
	if (w->phase == WIN_INSIDE && t > w->to)
		win_edge(w, 0);
	if (w->phase == WIN_INSIDE)
		win_put(w, SINK_CH_TIME, 0, 0, 0, (int64_t) win_shift(w, t));
}

/* A value record: dropped when it repeats (SET), remembered before. */
static void win_value(struct win *w, const struct sink_change *c)
{
	int64_t *last = NULL;
	if (c->set < SINK_NROWSETS && c->row < (uint32_t) w->nrows[c->set] && c->chan < w->nch[c->set])
		last = &w->last[c->set][(size_t) c->row * (size_t) w->nch[c->set] + c->chan];
	if (w->phase == WIN_INSIDE && !(last && c->kind == SINK_CH_SET && *last == c->value))
		win_put(w, last ? SINK_CH_PUT : c->kind, c->set, c->chan, c->row, c->value);
	if (last)
		*last = c->value;
}

/* The window's id of the stream's comm `id`, or ~0: not sent in it. */
static uint64_t win_comm(const struct win *w, int64_t id)
{
	return id >= 0 && (uint64_t) id < w->nmap && w->map[id] ? w->map[id] - 1 : ~0ull;
}

static void win_send(struct win *w, const struct sink_change *c)
{
	if (w->nmap == w->capmap) {
		w->capmap = w->capmap ? 2 * w->capmap : 1024;
		w->map = weft_xrealloc(w->map, w->capmap * sizeof(*w->map));
	}
	w->map[w->nmap++] = w->phase == WIN_INSIDE ? ++w->next_out : 0;
	if (w->phase != WIN_INSIDE)
		return;
	if (c->kind == SINK_CH_SEND_ARGS) {
		win_put(w, SINK_CH_ARG, 0, 0, 0, (int64_t) win_shift(w, (uint64_t) w->arg[0]));
		win_put(w, SINK_CH_ARG, 0, 0, 0, w->arg[1]);
	}
	win_put(w, c->kind, c->set, c->chan, c->row, c->value);
}

/* PSEND, RECV, RECV_ARGS, DROP of a comm sent in the window. */
static void win_answer(struct win *w, const struct sink_change *c)
{
	uint64_t id = win_comm(w, c->value);
	if (w->phase != WIN_INSIDE || id == ~0ull)
		return;
	if (c->kind == SINK_CH_PSEND || c->kind == SINK_CH_RECV_ARGS)
		win_put(w, SINK_CH_ARG, 0, 0, 0, (int64_t) win_shift(w, (uint64_t) w->arg[0]));
	if (c->kind == SINK_CH_RECV_ARGS)
		win_put(w, SINK_CH_ARG, 0, 0, 0, (int64_t) win_shift(w, (uint64_t) w->arg[1]));
	win_put(w, c->kind, c->set, c->chan, c->row, (int64_t) id);
}

static void win_change(struct win *w, const struct sink_change *c)
{
	switch (c->kind) {
	case SINK_CH_TIME:
		win_time(w, (uint64_t) c->value);
		break;
	case SINK_CH_CPU:
		win_put(w, c->kind, c->set, c->chan, c->row, c->value);
		break;
	case SINK_CH_STATE:
		if (c->set < SINK_NROWSETS && c->row < (uint32_t) w->nrows[c->set] && w->phase != WIN_AFTER)
			w->state[c->set][c->row] = (uint32_t) c->value;
		if (w->phase == WIN_INSIDE)
			win_put(w, c->kind, c->set, c->chan, c->row, c->value);
		break;
	case SINK_CH_SET:
	case SINK_CH_PUT:
		win_value(w, c);
		break;
	case SINK_CH_ARG:
		w->arg[w->narg++ & 3] = c->value;
		return; /* operands stay for the next record */
	case SINK_CH_SEND:
	case SINK_CH_SEND_ARGS:
		win_send(w, c);
		break;
	case SINK_CH_PSEND:
	case SINK_CH_RECV:
	case SINK_CH_RECV_ARGS:
	case SINK_CH_DROP:
		win_answer(w, c);
		break;
	default: /* a kind this filter does not know passes inside the window */
		if (w->phase == WIN_INSIDE)
			win_put(w, c->kind, c->set, c->chan, c->row, c->value);
		break;
	}
	w->narg = 0;
}

static struct win *win_new(const struct emu *e, const struct sink_layout *l)
{
	struct win *w = weft_xcalloc(1, sizeof(*w));
	w->from = e->o.win_from;
	w->to = e->o.win_to < w->from ? w->from : e->o.win_to;
	w->sinks = &e->o.sinks;
	for (int set = 0; set < SINK_NROWSETS; set++) {
		const struct sink_rowset *rs = &l->set[set];
		w->nrows[set] = rs->nrows;
		w->nch[set] = rs->nchannels;
		w->last[set] = weft_xcalloc((size_t) rs->nrows * (size_t) rs->nchannels + 1, sizeof(int64_t));
		for (int r = 0; r < rs->nrows; r++)
			for (int k = 0; k < rs->nchannels; k++)
				if (rs->channels[k].fresh)
					w->last[set][(size_t) r * (size_t) rs->nchannels + (size_t) k] = INT64_MIN;
		w->state[set] = weft_xcalloc((size_t) rs->nrows + 1, sizeof(uint32_t));
	}
	return w;
}

static void win_free(struct win *w)
{
	if (!w)
		return;
	for (int set = 0; set < SINK_NROWSETS; set++) {
		free(w->last[set]);
		free(w->state[set]);
	}
	free(w->map);
	free(w);
}

/* The pipe's tap: each run of records to every sink that takes them,
 * through the window when there is one. */
static void tap(void *arg, const struct prv_op *ops, size_t n)
{
	struct emu *e = arg;
	const struct sink_change *c = (const struct sink_change *) ops;
	struct win *w = e->out.sinks->win;
	if (!w) {
		to_sinks(&e->o.sinks, c, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		win_change(w, &c[i]);
	win_flush(w);
}

/* The tap of a run whose one sink cuts its batches itself. */
static size_t tap_cut(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, int stop, uint64_t *at)
{
	struct sink *k = arg;
	return k->changes_cut(k, (const struct sink_change *) ops, n, bound, stop, at);
}

int emu_sinks_begin(struct emu *e, struct weft_err *err)
{
	if (!e->o.sinks.n)
		return 0;
	if (!e->out.writing || !e->out.pipe)
		return weft_fail(err, WEFT_EINTERNAL, "%s: the sinks begin before the stream opened",
				 e->run.trace ? e->run.trace : e->tr.dir);
	if (e->o.slices)
		for (int i = 0; i < e->o.sinks.n; i++)
			if (!e->o.sinks.s[i]->slices)
				return weft_fail(err, WEFT_EUSAGE, "--slices: no %s output in time slices",
						 e->o.sinks.s[i]->name);
	struct emu_sinks *s = e->out.sinks = weft_xcalloc(1, sizeof(*s));
	rows(e, s);
	for (int set = 0; set < SINK_NROWSETS; set++)
		channels(e, s, set);
	states(e, s);
	s->l.t0 = e->run.t0;
	s->l.trace = e->run.trace ? e->run.trace : e->tr.dir;
	s->l.clock_ns = 1;
	s->l.run = e;
	for (int i = 0; i < e->o.sinks.n; i++) {
		struct sink *k = e->o.sinks.s[i];
		s->nbegun = i + 1; /* ended, even when its begin fails */
		if (k->begin(k, &s->l, err))
			return -1;
	}
	if (e->o.sinks.n == 0)
		return 0; /* (every sink takes changes: sink.h) */
	if (e->o.win)
		s->win = win_new(e, &s->l);
	if (!s->win && e->o.sinks.n == 1 && e->o.sinks.s[0]->changes_cut)
		prv_pipe_tap_cut(e->out.pipe, tap_cut, e->o.sinks.s[0]);
	else
		prv_pipe_tap(e->out.pipe, tap, e);
	return 0;
}

int emu_sinks_writers(struct emu *e, int on)
{
	struct emu_sinks *s = e->out.sinks;
	int any = 0;
	for (int i = 0; s && !s->ended && i < s->nbegun; i++) {
		struct sink *k = e->o.sinks.s[i];
		if (k->writers && k->writers(k, on) == 0)
			any = 1;
	}
	return any ? 0 : -1;
}

/* The layout's labels made complete for end (sink.h): each channel's
 * declared labels, then those the run named (emu_slot_label). */
static void labels_complete(struct emu *e, struct emu_sinks *s)
{
	for (int set = 0; set < SINK_NROWSETS; set++)
		for (int k = 0; k < s->l.set[set].nchannels && k < e->out.slots.n[set]; k++) {
			const struct emu_slot_decl *x = &e->out.slots.decl[set][k];
			if (!x->nmore)
				continue;
			struct sink_label *l = weft_xcalloc((size_t) (x->nlabels + x->nmore), sizeof(*l));
			if (x->nlabels)
				memcpy(l, x->labels, (size_t) x->nlabels * sizeof(*l));
			memcpy(l + x->nlabels, x->more, (size_t) x->nmore * sizeof(*l));
			own(s, (char *) l);
			s->ch[set][k].labels = l;
			s->ch[set][k].nlabels = x->nlabels + x->nmore;
		}
}

int emu_sinks_end(struct emu *e, int ok, uint64_t ftime, struct weft_err *err)
{
	struct emu_sinks *s = e->out.sinks;
	if (!s || s->ended)
		return 0;
	s->ended = 1;
	if (ok)
		labels_complete(e, s);
	int rc = 0;
	for (int i = 0; i < s->nbegun; i++) {
		struct sink *k = e->o.sinks.s[i];
		struct weft_err mine = {0};
		uint64_t t = s->win && k->changes ? win_shift(s->win, ftime) : ftime;
		if (k->end(k, ok && rc == 0, t, rc ? &mine : err) && rc == 0)
			rc = -1;
	}
	return rc;
}

void emu_sinks_free(struct emu *e)
{
	struct emu_sinks *s = e->out.sinks;
	if (!s)
		return;
	struct weft_err ignored = {0};
	WEFT_IGNORED(emu_sinks_end(e, 0, e->run.now, &ignored)); /* a failed run's: undone */
	for (int i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	for (int set = 0; set < SINK_NROWSETS; set++) {
		free(s->rows[set]);
		free(s->ch[set]);
	}
	free(s->looms);
	free(s->procs);
	free(s->states);
	win_free(s->win);
	free(s);
	e->out.sinks = NULL;
}

const struct sink_layout *emu_sinks_layout(const struct emu *e)
{
	return e->out.sinks ? &e->out.sinks->l : NULL;
}
