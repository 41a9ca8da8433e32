/* emu: open a trace for emulation, correct clocks, merge, dispatch to the
 * models, report what was skipped, finish the sinks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emu.h"
#include "offsets.h"
#include "paraver_out.h"
#include "progress.h"

#define CLOCK_GATE_NS 3600000000000ll /* one hour */

int emu_slot(struct emu *e, int file, int32_t type, const char *label)
{
	int s = e->nslots[file]++;
	e->slot_type[file][s] = type;
	e->slot_label[file][s] = label;
	return s;
}

int emu_model_error(struct emu *e, struct weft_err *err, const char *fmt, ...)
{
	char what[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	const struct weft_ev *ev = e->ev;
	if (ev && e->tr.source)
		/* an imported log: the converted stream is temporary, name the log */
		weft_fail(err, WEFT_EINPUT,
			  "%s: event %c%c%c (time %llu ns, thread %lld, converted stream %s): %s",
			  e->tr.source, ev->model, ev->cat, ev->val, (unsigned long long) e->now,
			  (long long) e->th[ev->stream->index].sys->tid, ev->stream->rel, what);
	else if (ev)
		weft_fail(err, WEFT_EINPUT,
			  "%s: event %c%c%c at byte offset %llu (clock %llu, time %llu ns), thread %lld: %s",
			  ev->stream->obs_path, ev->model, ev->cat, ev->val,
			  (unsigned long long) ev->offset, (unsigned long long) ev->clock,
			  (unsigned long long) e->now, (long long) e->th[ev->stream->index].sys->tid, what);
	else
		weft_fail(err, WEFT_EINPUT, "%s: %s", e->tr.source ? e->tr.source : e->tr.dir, what);
	if (!e->o.keep_going)
		return -1;
	e->nerrors++;
	if (e->nerrors <= 20)
		weft_warn("%s", err->msg);
	else if (e->nerrors == 21)
		weft_warn("more model errors follow; only the count is reported");
	return 1;
}

struct emu_thread *emu_find_thread(struct emu *e, const struct emu_thread *from, int64_t tid)
{
	struct weft_thread *t;
	HASH_FIND(hh, from->sys->proc->thread_by_tid, &tid, sizeof(int64_t), t);
	if (!t) {
		const struct weft_loom *l = from->sys->proc->loom;
		for (int i = 0; i < l->nprocs && !t; i++)
			HASH_FIND(hh, l->procs[i]->thread_by_tid, &tid, sizeof(int64_t), t);
	}
	return t ? &e->th[t->stream] : NULL;
}

/* Offsets per loom from the ovnisync table; the trace's own
 * clock-offsets.txt is used when no -c is given, as ovniemu does. */
static int apply_offsets(struct emu *e, struct weft_err *err, int *have)
{
	char *def = weft_xasprintf("%s/clock-offsets.txt", e->tr.dir);
	const char *path = e->o.clock_file;
	struct stat st;
	if (!path && stat(def, &st) == 0)
		path = def;
	*have = 0;
	int rc = 0;
	if (path) {
		struct clkoff t;
		rc = clkoff_load(&t, path, err);
		if (rc == 0) {
			*have = 1;
			int64_t *loom_off = weft_xcalloc((size_t) e->tr.sys.nlooms + 1, sizeof(int64_t));
			int64_t min = 0;
			for (int i = 0; i < e->tr.sys.nlooms; i++) {
				struct clkoff_entry *en = clkoff_find(&t, e->tr.sys.looms[i]->hostname);
				int64_t off = en ? en->offset : 0;
				if (en)
					en->used = 1;
				else if (!e->o.quiet)
					weft_warn("%s: no offset for loom %s (host %s): using 0", path,
						  e->tr.sys.looms[i]->name, e->tr.sys.looms[i]->hostname);
				loom_off[i] = off;
				if (off < min)
					min = off;
			}
			for (int k = 0; k < t.n; k++)
				if (!t.ent[k].used && !e->o.quiet)
					weft_warn("%s:%d: host %s matches no loom of the trace", path, t.ent[k].line,
						  t.ent[k].host);
			/* shift so every corrected clock stays non-negative */
			for (int s = 0; s < e->tr.nstreams; s++) {
				struct weft_stream *st2 = &e->tr.streams[s];
				int li = st2->thread->proc->loom->gindex;
				st2->offset = loom_off[li] - min;
			}
			free(loom_off);
			clkoff_free(&t);
		}
	}
	free(def);
	return rc;
}

/* Without offsets, looms whose first events are hours apart cannot be one
 * run on one clock: refuse instead of drawing nonsense. */
static int clock_gate(struct emu *e, struct weft_err *err)
{
	uint64_t first = UINT64_MAX, last = 0;
	const char *a = NULL, *b = NULL;
	for (int l = 0; l < e->tr.sys.nlooms; l++) {
		uint64_t m = UINT64_MAX;
		for (int s = 0; s < e->tr.nstreams; s++) {
			struct weft_stream *st = &e->tr.streams[s];
			if (st->thread->proc->loom->gindex == l && st->nevents && st->ev.time < m)
				m = st->ev.time;
		}
		if (m == UINT64_MAX)
			continue;
		if (m < first)
			first = m, a = e->tr.sys.looms[l]->name;
		if (m > last)
			last = m, b = e->tr.sys.looms[l]->name;
	}
	if (a && last - first > (uint64_t) CLOCK_GATE_NS)
		return weft_fail(err, WEFT_EINPUT,
				 "%s: the first events of loom %s and loom %s are %.1f hours apart: their "
				 "clocks need offsets (run ovnisync during the job, or pass -c FILE with "
				 "an offset table)",
				 e->tr.dir, a, b, (double) (last - first) / 3.6e12);
	return 0;
}

int emu_open(struct emu *e, const char *trace, const struct emu_opts *o, struct weft_err *err)
{
	memset(e, 0, sizeof(*e));
	e->o = *o;
	if (evtable_init(&e->tab, err))
		return -1;
	struct trace_opts to = {.mode = STREAM_ORDERED, .window = o->window, .import = &e->o.imp};
	e->state_owner = 'O';
	memset(e->model_slot, -1, sizeof(e->model_slot));
	if (trace_open(&e->tr, trace, &to, err))
		return -1;
	struct weft_system *sys = &e->tr.sys;
	e->nth = e->tr.nstreams;
	e->th = weft_xcalloc((size_t) e->nth, sizeof(*e->th));
	for (int i = 0; i < e->nth; i++) {
		e->th[i].stream = &e->tr.streams[i];
		e->th[i].sys = e->tr.streams[i].thread;
	}
	e->ncpu = sys->ncpus;
	e->cpu = weft_xcalloc((size_t) e->ncpu, sizeof(*e->cpu));
	for (int i = 0; i < e->ncpu; i++) {
		e->cpu[i].sys = sys->cpus[i];
		e->cpu[i].row = i;
	}
	for (int t = 0; t < 100; t++) {
		e->mark_slot[t] = -1;
		if (sys->marks[t].defined) {
			e->mark_slot[t] = e->nmarks;
			e->mark_type[e->nmarks++] = t;
		}
	}
	paraver_rows(e);
	int have = 0;
	if (apply_offsets(e, err, &have))
		return -1;
	/* ovni is always on; another emulated model is on when a stream requires it */
	const struct weft_model_def *const *all;
	int nall = model_all(&all);
	for (int i = 0; i < nall; i++) {
		const struct weft_model_def *d = all[i];
		if (!d->hooks)
			continue;
		int on = d->id == 'O';
		for (int t = 0; t < e->nth && !on; t++)
			on = e->th[t].sys->req[d->id - 0x21];
		if (!on)
			continue;
		e->enabled[d->id - 0x21] = 1;
		e->model_slot[d->id - 0x21] = (int8_t) e->nmodels;
		e->model[e->nmodels++] = d;
	}
	/* ovni's setup first: its Paraver slots are the first of each file
	 * (models/ovni/ovni.h numbers them from 0) */
	for (int pass = 0; pass < 2; pass++)
		for (int m = 0; m < e->nmodels; m++) {
			const struct weft_model_def *d = e->model[m];
			if ((d->id == 'O') != (pass == 0) || !d->hooks->setup)
				continue;
			if (d->hooks->setup(e, err))
				return -1;
		}
	if (merge_init(&e->merge, e->tr.streams, e->tr.nstreams, err))
		return -1;
	if (!have && clock_gate(e, err))
		return -1;
	if (o->outdir && paraver_open(e, err))
		return -1;
	return 0;
}

static void report_skipped(struct emu *e)
{
	for (int m = 0; m < 94; m++) {
		if (!e->skipped[m])
			continue;
		const struct weft_model_def *d = model_by_id((char) (m + 0x21));
		weft_warn("skipped %llu events of model %c (%s): weft does not emulate it yet",
			  (unsigned long long) e->skipped[m], m + 0x21, d ? d->name : "unknown");
	}
}

int emu_track(struct emu *e, int cpu_slot)
{
	if (e->ntrack == EMU_MAX_TRACK)
		return -1;
	e->track_slot[e->ntrack] = cpu_slot;
	return e->ntrack++;
}

/* ovni events of a thread the kernel took off its CPU (ovni-trace-format.md
 * §8.1): the thread cannot be running code that emits them. */
static int off_cpu_event(struct emu *e, const struct weft_ev *ev, struct weft_err *err)
{
	const struct emu_thread *t = &e->th[ev->stream->index];
	return emu_model_error(e, err, "thread %lld is out of its CPU (KCO without KCI): expected no "
			       "ovni event until KCI", (long long) t->sys->tid);
}

int emu_run(struct emu *e, struct weft_err *err)
{
	struct weft_ev *ev;
	int r = 0, pause = 0;
	struct progress pg;
	progress_start(&pg, e->o.progress && !e->o.quiet, e->tr.streams, e->tr.nstreams);
	while (!pause && (r = merge_next(&e->merge, &ev, err)) > 0) {
		if (e->nevents == 0)
			e->t0 = ev->time;
		e->now = ev->time - e->t0;
		e->ev = ev;
		e->nevents++;
		/* an observer (query) sees each event with the states before it */
		if (e->on_event && e->on_event(e->on_event_arg, ev))
			pause = 1;
		if (e->writing) {
			prv_time(&e->prv[EMU_THREAD_FILE], e->now);
			prv_time(&e->prv[EMU_CPU_FILE], e->now);
		}
		const struct evinfo *in = evtable_find(&e->tab, ev->model, ev->cat, ev->val);
		int rc;
		if (in && in->handler && !e->enabled[ev->model - 0x21]) {
			rc = emu_model_error(e, err, "model %c (%s) is not named in any stream's ovni.require",
					     ev->model, in->model->name);
		} else if (in && in->handler) {
			if (__builtin_expect(e->guard_off_cpu, 0) && ev->model == 'O' &&
			    e->th[ev->stream->index].off_cpu)
				rc = off_cpu_event(e, ev, err);
			else if (!ev_payload_ok(in, ev))
				rc = emu_model_error(e, err, "payload of %u bytes: expected %u as declared (%s)",
						     ev->payload_len, in->size, in->decl->sig);
			else
				rc = in->handler(e, ev, in, err);
		} else if (ev->model == 'O') {
			rc = emu_model_error(e, err, "unknown ovni event %c%c%c", ev->model, ev->cat, ev->val);
		} else if (e->o.strict) {
			const struct weft_model_def *d = model_by_id((char) ev->model);
			rc = emu_model_error(e, err, "model %c (%s) is not emulated by weft (--strict)",
					     ev->model, d ? d->name : "unknown");
		} else {
			e->skipped[ev->model - 0x21]++;
			rc = 0;
		}
		if (rc < 0) {
			r = -1;
			break;
		}
		if ((e->nevents & 0xfffff) == 0)
			progress_update(&pg, e->nevents);
	}
	progress_end(&pg);
	e->ev = NULL;
	if (r < 0)
		return -1;
	if (pause)
		return 0; /* paused by the observer: emu_run again goes on */
	if (!e->o.quiet)
		report_skipped(e);
	for (int m = 0; m < e->nmodels; m++)
		if (e->model[m]->hooks->finish && e->model[m]->hooks->finish(e, err))
			return -1;
	if (e->nerrors && !e->o.quiet)
		weft_warn("%llu model errors were skipped (--keep-going)", (unsigned long long) e->nerrors);
	return 0;
}

int emu_close(struct emu *e, struct weft_err *err)
{
	if (!e->writing)
		return 0;
	return paraver_close(e, err);
}

void emu_free(struct emu *e)
{
	if (e->writing)
		paraver_abort(e);
	for (int m = 0; m < e->nmodels; m++)
		if (e->model[m]->hooks->release)
			e->model[m]->hooks->release(e);
	for (int i = 0; i < e->ncpu; i++)
		free(e->cpu[i].th);
	free(e->cpu);
	free(e->th);
	free(e->by_row);
	merge_free(&e->merge);
	trace_close(&e->tr);
	evtable_free(&e->tab);
	memset(e, 0, sizeof(*e));
}
