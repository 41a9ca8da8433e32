/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "emu/engine.h"
#include "emu/paraver_out.h"
#include "emu/sink.h"
#include "emu/sink_out.h"
#include "util/strbuf.h"

/* What the layout points into, owned here. */
struct sink_out {
	struct sink_layout lay;
	struct sink_loom *looms;
	struct sink_proc *procs;
	struct sink_row *rows[SINK_NROWSETS];
	struct sink_channel *chans[SINK_NROWSETS];
	struct sink_label *state_labels;
	char **strs; /* every string made here */
	size_t nstrs, capstrs;
	struct sink_label **labels; /* per channel of both sets, its label array */
	int nlabels_arrays;
	int begun[8];
};

static const char *keep(struct sink_out *x, char *s)
{
	if (x->nstrs == x->capstrs) {
		x->capstrs = x->capstrs ? 2 * x->capstrs : 64;
		x->strs = weft_xrealloc(x->strs, x->capstrs * sizeof(*x->strs));
	}
	return x->strs[x->nstrs++] = s;
}

/* One EVENT_TYPE's VALUES of a .pcf text: the labels of `type`, or none. */
struct pcf_type {
	int32_t type;
	struct sink_label *v;
	int n, cap;
	int has_values;
};

/* The .pcf's EVENT_TYPE blocks ("0 TYPE LABEL" lines, then VALUES and
 * "VALUE LABEL" lines until a blank line): the labels of each type. */
static struct pcf_type *pcf_types(struct sink_out *x, const char *text, int *ntypes)
{
	struct pcf_type *t = NULL;
	int n = 0, cap = 0;
	int in_types = 0, in_values = 0, first = 0, last = 0;
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t) (nl - p) : strlen(p);
		char *line = weft_xasprintf("%.*s", (int) len, p);
		p = nl ? nl + 1 : NULL;
		if (!*line) {
			in_values = 0;
			in_types = 0;
		} else if (strcmp(line, "EVENT_TYPE") == 0) {
			in_types = 1;
			in_values = 0;
			first = last = n;
		} else if (strcmp(line, "VALUES") == 0) {
			in_types = 0;
			in_values = 1;
			for (int k = first; k < last; k++)
				t[k].has_values = 1;
		} else if (in_types) {
			int gran;
			long type;
			if (sscanf(line, "%d %ld", &gran, &type) == 2) {
				if (n == cap) {
					cap = cap ? 2 * cap : 32;
					t = weft_xrealloc(t, (size_t) cap * sizeof(*t));
				}
				t[n++] = (struct pcf_type){(int32_t) type, NULL, 0, 0, 0};
				last = n;
			}
		} else if (in_values) {
			char *end;
			long long v = strtoll(line, &end, 10);
			if (end != line && *end == ' ') {
				for (int k = first; k < last; k++) {
					if (t[k].n == t[k].cap) {
						t[k].cap = t[k].cap ? 2 * t[k].cap : 8;
						t[k].v = weft_xrealloc(t[k].v, (size_t) t[k].cap * sizeof(*t[k].v));
					}
					t[k].v[t[k].n++] = (struct sink_label){v, keep(x, weft_xstrdup(end + 1)), {0, 0, 0}, 0};
				}
			}
		}
		free(line);
	}
	*ntypes = n;
	return t;
}

static void free_types(struct pcf_type *t, int n, int keep_values)
{
	for (int k = 0; k < n && !keep_values; k++)
		free(t[k].v);
	free(t);
}

/* The channels of file f from its slots, kinds and labels from its .pcf
 * (a type with VALUES: a state channel, regions; else a metric). */
static void channels(struct emu *e, struct sink_out *x, int f, int fill_labels)
{
	struct strbuf b = {0};
	paraver_pcf(e, f, &b);
	int nt = 0;
	struct pcf_type *t = pcf_types(x, b.s ? b.s : "", &nt);
	sb_free(&b);
	struct sink_channel *ch = x->chans[f];
	for (int s = 0; s < e->nslots[f]; s++) {
		struct pcf_type *pt = NULL;
		for (int k = 0; k < nt && !pt; k++)
			if (t[k].type == e->slot_type[f][s])
				pt = &t[k];
		if (!fill_labels) {
			const struct weft_model_def *d = model_by_id(e->slot_model[f][s]);
			const char *mname = d ? d->name : "weft";
			const char *label = e->slot_label[f][s] ? e->slot_label[f][s] : "";
			ch[s].name = keep(x, weft_xasprintf("%s.%d", mname, (int) e->slot_type[f][s]));
			ch[s].model = e->slot_model[f][s];
			ch[s].model_name = mname;
			ch[s].title = keep(x, weft_xstrdup(label));
			ch[s].kind = pt && pt->has_values ? SINK_STATE : SINK_VALUE;
			ch[s].fresh = e->slot_fresh[f][s];
			ch[s].dynamic_labels = 1;
			continue;
		}
		if (!pt)
			continue;
		struct sink_label *v = weft_xcalloc((size_t) pt->n + 1, sizeof(*v));
		memcpy(v, pt->v, (size_t) pt->n * sizeof(*v));
		x->labels = weft_xrealloc(x->labels, (size_t) (x->nlabels_arrays + 1) * sizeof(*x->labels));
		x->labels[x->nlabels_arrays++] = v;
		ch[s].labels = v;
		ch[s].nlabels = pt->n;
	}
	free_types(t, nt, 0);
}

static void rows(struct emu *e, struct sink_out *x)
{
	struct weft_system *s = &e->tr.sys;
	struct sink_layout *l = &x->lay;
	x->looms = weft_xcalloc((size_t) s->nlooms + 1, sizeof(*x->looms));
	x->procs = weft_xcalloc((size_t) s->nprocs + 1, sizeof(*x->procs));
	x->rows[SINK_THREADS] = weft_xcalloc((size_t) e->nth + 1, sizeof(struct sink_row));
	x->rows[SINK_CPUS] = weft_xcalloc((size_t) e->ncpu + 1, sizeof(struct sink_row));
	uint32_t(*ids)[3] = weft_xcalloc((size_t) e->nth + (size_t) e->ncpu + 1, sizeof(*ids));
	paraver_row_ids(e, EMU_THREAD_FILE, ids);
	int row = 0, k = 0;
	for (int i = 0; i < s->nlooms; i++) {
		const struct weft_loom *lo = s->looms[i];
		x->looms[i] = (struct sink_loom){lo->name, lo->hostname ? lo->hostname : lo->name, 0, 0};
		for (int p = 0; p < lo->nprocs; p++, k++) {
			const struct weft_proc *pr = lo->procs[p];
			x->procs[k] = (struct sink_proc){i,
							 pr->pid,
							 (int) pr->app_id,
							 pr->has_rank ? (int) pr->rank : -1,
							 pr->has_rank ? (int) pr->nranks : 0,
							 row,
							 pr->nthreads};
			for (int t = 0; t < pr->nthreads && row < e->nth; t++, row++) {
				const struct weft_thread *th = e->by_row[row]->sys;
				x->rows[SINK_THREADS][row] = (struct sink_row){
					i, k, th->tid, -1, th->stream,
					keep(x, weft_xasprintf("THREAD %u.%u.%u", ids[row][0], ids[row][1], ids[row][2]))};
			}
		}
	}
	for (int c = 0; c < e->ncpu; c++) {
		const struct weft_cpu *cpu = e->cpu[c].sys;
		int li = cpu->loom->gindex;
		if (li >= 0 && li < s->nlooms) {
			if (!x->looms[li].ncpus)
				x->looms[li].first_cpu = c;
			x->looms[li].ncpus++;
		}
		char *nm = cpu->is_virtual ? weft_xasprintf("vCPU %d.*", li)
					   : weft_xasprintf("CPU %d.%lld", li, (long long) cpu->phyid);
		x->rows[SINK_CPUS][c] =
			(struct sink_row){li, -1, -1, cpu->is_virtual ? -1 : cpu->phyid, -1, keep(x, nm)};
	}
	free(ids);
	l->nlooms = s->nlooms;
	l->nprocs = k;
	l->looms = x->looms;
	l->procs = x->procs;
}

static void state_labels(struct emu *e, struct sink_out *x)
{
	int n = 0;
	for (int m = 0; m < e->nmodels; m++)
		n += e->model[m]->hooks->nstates;
	struct sink_label *v = weft_xcalloc((size_t) n + 3, sizeof(*v));
	n = 0;
	for (int m = 0; m < e->nmodels; m++)
		for (int s = 0; s < e->model[m]->hooks->nstates; s++) {
			const struct weft_state_label *l = &e->model[m]->hooks->states[s];
			v[n++] = (struct sink_label){
				l->value, l->value ? l->label : EMU_STATE_NONE_LABEL, {l->rgb[0], l->rgb[1], l->rgb[2]}, 1};
		}
	v[n++] = (struct sink_label){EMU_STATE_NOT_STARTED, "Not started", {230, 230, 230}, 1};
	v[n++] = (struct sink_label){EMU_STATE_ENDED, "Ended", {90, 90, 90}, 1};
	x->state_labels = v;
	for (int f = 0; f < SINK_NROWSETS; f++) {
		x->lay.set[f].state_labels = v;
		x->lay.set[f].nstate_labels = n;
	}
}

static void tap(void *arg, const struct prv_op *ops, size_t n)
{
	struct emu *e = arg;
	const struct sink_list *l = &e->o.sinks;
	for (int i = 0; i < l->n; i++)
		l->s[i]->changes(l->s[i], (const struct sink_change *) ops, n);
}

static void release(struct emu *e)
{
	struct sink_out *x = e->sink_out;
	if (!x)
		return;
	for (size_t i = 0; i < x->nstrs; i++)
		free(x->strs[i]);
	free(x->strs);
	for (int i = 0; i < x->nlabels_arrays; i++)
		free(x->labels[i]);
	free(x->labels);
	for (int f = 0; f < SINK_NROWSETS; f++) {
		free(x->rows[f]);
		free(x->chans[f]);
	}
	free(x->looms);
	free(x->procs);
	free(x->state_labels);
	free(x);
	e->sink_out = NULL;
}

int sink_out_open(struct emu *e, struct weft_err *err)
{
	const struct sink_list *sl = &e->o.sinks;
	if (sl->n == 0 || !e->pipe)
		return 0;
	struct sink_out *x = weft_xcalloc(1, sizeof(*x));
	e->sink_out = x;
	rows(e, x);
	static const char *const setname[SINK_NROWSETS] = {"thread", "cpu"};
	for (int f = 0; f < SINK_NROWSETS; f++) {
		x->chans[f] = weft_xcalloc((size_t) e->nslots[f] + 1, sizeof(struct sink_channel));
		channels(e, x, f, 0);
		x->lay.set[f] = (struct sink_rowset){setname[f],
						     f == SINK_THREADS ? e->nth : e->ncpu,
						     x->rows[f],
						     e->nslots[f],
						     x->chans[f],
						     NULL,
						     0};
	}
	state_labels(e, x);
	x->lay.t0 = 0;
	x->lay.trace = e->tr.source ? e->tr.source : e->tr.dir;
	x->lay.outdir = e->o.outdir;
	x->lay.date = "";
	x->lay.clock_ns = 1;
	for (int i = 0; i < sl->n && i < 8; i++) {
		if (sl->s[i]->begin(sl->s[i], &x->lay, err)) {
			sink_out_abort(e);
			return -1;
		}
		x->begun[i] = 1;
	}
	prv_pipe_tap(e->pipe, tap, e);
	return 0;
}

int sink_out_close(struct emu *e, struct weft_err *err)
{
	struct sink_out *x = e->sink_out;
	if (!x)
		return 0;
	for (int f = 0; f < SINK_NROWSETS; f++)
		channels(e, x, f, 1); /* the labels named during the run */
	int rc = 0;
	const struct sink_list *sl = &e->o.sinks;
	for (int i = 0; i < sl->n && i < 8; i++) {
		if (!x->begun[i])
			continue;
		x->begun[i] = 0;
		if (rc == 0)
			rc = sl->s[i]->end(sl->s[i], 1, e->now, err);
		else
			sl->s[i]->end(sl->s[i], 0, e->now, NULL);
	}
	release(e);
	return rc;
}

void sink_out_abort(struct emu *e)
{
	struct sink_out *x = e->sink_out;
	if (!x)
		return;
	const struct sink_list *sl = &e->o.sinks;
	for (int i = 0; i < sl->n && i < 8; i++)
		if (x->begun[i]) {
			x->begun[i] = 0;
			sl->s[i]->end(sl->s[i], 0, e->now, NULL);
		}
	release(e);
}
