/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sinks: the layout of a run for its sinks, and the change stream handed
 * to them (sinks.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/engine_int.h"
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
static const char *slug_name(struct emu_sinks *s, const char *model, const char *title, int32_t type)
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
		snprintf(buf + n, sizeof(buf) - (size_t) n, "t%d", (int) type);
	return own(s, weft_xasprintf("%s", buf));
}

/* The file model channel a slot shows, or NULL. */
static const struct eng_chan *slot_chan(const struct emu *e, int set, int slot)
{
	for (int k = 0; e->eng && k < e->eng->nch; k++) {
		const struct eng_chan *c = &e->eng->ch[k];
		if ((set == SINK_THREADS ? c->tslot : c->cslot) == slot)
			return c;
	}
	return NULL;
}

/* The run's model of character id (its models, not the registry). */
static const struct weft_model_def *run_model(const struct emu *e, char id)
{
	for (int m = 0; m < e->nmodels; m++)
		if (e->model[m]->id == id)
			return e->model[m];
	return NULL;
}

static void channels(struct emu *e, struct emu_sinks *s, int set)
{
	int n = e->slots.n[set];
	struct sink_channel *ch = s->ch[set] = weft_xcalloc((size_t) n + 1, sizeof(*ch));
	for (int k = 0; k < n; k++) {
		const struct weft_model_def *d = run_model(e, e->slots.model[set][k]);
		const char *mname = d ? d->name : "emu";
		ch[k].model = e->slots.model[set][k];
		ch[k].model_name = mname;
		ch[k].title = e->slots.label[set][k];
		ch[k].fresh = e->slots.fresh[set][k];
		ch[k].kind = SINK_VALUE;
		const struct eng_chan *c = slot_chan(e, set, k);
		if (!c) {
			ch[k].name = slug_name(s, mname, ch[k].title, e->slots.type[set][k]);
			continue;
		}
		if (c->gn > 1 || c->own)
			ch[k].name = slug_name(s, mname, ch[k].title, e->slots.type[set][k]);
		else
			ch[k].name = own(s, weft_xasprintf("%s.%s", mname, c->c->name));
		if (c->c->stack || c->c->nlabels)
			ch[k].kind = SINK_STATE;
		ch[k].dynamic_labels = c->c->dynamic;
		if (c->c->nlabels) {
			struct sink_label *l = weft_xcalloc((size_t) c->c->nlabels, sizeof(*l));
			for (int i = 0; i < c->c->nlabels; i++) {
				l[i].value = c->c->labels[i].value;
				l[i].label = c->c->labels[i].label;
			}
			own(s, (char *) l);
			ch[k].labels = l;
			ch[k].nlabels = c->c->nlabels;
		}
	}
	s->l.set[set].nchannels = n;
	s->l.set[set].channels = ch;
}

/* Every model's row states, then the emulator's own. */
static void states(struct emu *e, struct emu_sinks *s)
{
	int n = 3;
	for (int m = 0; m < e->nmodels; m++)
		n += e->model[m]->hooks->nstates;
	struct sink_label *l = s->states = weft_xcalloc((size_t) n, sizeof(*l));
	int k = 0;
	l[k++] = (struct sink_label){0, EMU_STATE_NONE_LABEL, {0, 0, 0}, 0};
	for (int m = 0; m < e->nmodels; m++)
		for (int i = 0; i < e->model[m]->hooks->nstates; i++) {
			const struct weft_state_label *w = &e->model[m]->hooks->states[i];
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
	struct sink_row *t = s->rows[SINK_THREADS] = weft_xcalloc((size_t) e->nth + 1, sizeof(*t));
	for (int r = 0; r < e->nth; r++) {
		const struct weft_thread *w = e->by_row[r]->sys;
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
	struct sink_row *c = s->rows[SINK_CPUS] = weft_xcalloc((size_t) e->ncpu + 1, sizeof(*c));
	for (int r = 0; r < e->ncpu; r++) {
		const struct weft_cpu *w = e->cpu[r].sys;
		struct sink_loom *sl = &s->looms[w->loom->gindex];
		if (sl->first_cpu < 0)
			sl->first_cpu = r;
		sl->ncpus++;
		c[r] = (struct sink_row){w->loom->gindex, -1, -1, w->is_virtual ? -1 : w->phyid, -1, NULL};
		c[r].name = w->is_virtual ? own(s, weft_xasprintf("%s.vCPU", w->loom->name))
					  : own(s, weft_xasprintf("%s.%lld", w->loom->name, (long long) w->phyid));
	}
	s->l.set[SINK_THREADS] = (struct sink_rowset){"thread", e->nth, t, 0, NULL, NULL, 0};
	s->l.set[SINK_CPUS] = (struct sink_rowset){"cpu", e->ncpu, c, 0, NULL, NULL, 0};
	s->l.nlooms = sys->nlooms;
	s->l.looms = s->looms;
	s->l.nprocs = sys->nprocs;
	s->l.procs = s->procs;
}

/* The pipe's tap: each run of ops to every sink that takes them. */
static void tap(void *arg, const struct prv_op *ops, size_t n)
{
	const struct sink_list *l = arg;
	for (int i = 0; i < l->n; i++)
		if (l->s[i]->changes)
			l->s[i]->changes(l->s[i], (const struct sink_change *) ops, n);
}

int emu_sinks_begin(struct emu *e, struct weft_err *err)
{
	if (!e->o.sinks.n)
		return 0;
	if (!e->writing || !e->pipe)
		return weft_fail(err, WEFT_EINTERNAL, "%s: the sinks begin before the stream opened",
				 e->trace_arg ? e->trace_arg : e->tr.dir);
	if (e->o.slices)
		for (int i = 0; i < e->o.sinks.n; i++)
			if (!e->o.sinks.s[i]->slices)
				return weft_fail(err, WEFT_EUSAGE, "--slices: no %s output in time slices",
						 e->o.sinks.s[i]->name);
	struct emu_sinks *s = e->sinks = weft_xcalloc(1, sizeof(*s));
	rows(e, s);
	for (int set = 0; set < SINK_NROWSETS; set++)
		channels(e, s, set);
	states(e, s);
	s->l.t0 = e->t0;
	s->l.trace = e->trace_arg ? e->trace_arg : e->tr.dir;
	s->l.clock_ns = 1;
	int tapped = 0;
	for (int i = 0; i < e->o.sinks.n; i++) {
		struct sink *k = e->o.sinks.s[i];
		s->nbegun = i + 1; /* ended, even when its begin fails */
		if ((k->attach && k->attach(k, e, err)) || k->begin(k, &s->l, err))
			return -1;
		tapped |= k->changes != NULL;
	}
	if (tapped)
		prv_pipe_tap(e->pipe, tap, (void *) &e->o.sinks);
	return 0;
}

int emu_sinks_end(struct emu *e, int ok, uint64_t ftime, struct weft_err *err)
{
	struct emu_sinks *s = e->sinks;
	if (!s || s->ended)
		return 0;
	s->ended = 1;
	int rc = 0;
	for (int i = 0; i < s->nbegun; i++) {
		struct sink *k = e->o.sinks.s[i];
		struct weft_err mine = {0};
		if (k->end(k, ok && rc == 0, ftime, rc ? &mine : err) && rc == 0)
			rc = -1;
	}
	return rc;
}

void emu_sinks_free(struct emu *e)
{
	struct emu_sinks *s = e->sinks;
	if (!s)
		return;
	struct weft_err ignored = {0};
	emu_sinks_end(e, 0, e->now, &ignored);
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
	free(s);
	e->sinks = NULL;
}

const struct sink_layout *emu_sinks_layout(const struct emu *e)
{
	return e->sinks ? &e->sinks->l : NULL;
}
