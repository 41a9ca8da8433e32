/* SPDX-License-Identifier: GPL-3.0-or-later */
/* emu: open a trace for emulation, correct clocks, merge, dispatch to the
 * models, report what was skipped, finish the sinks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu.h"
#include "emu/warns.h"
#include "emu/match.h"
#include "emu/paraver_out.h"
#include "emu/sinks.h"
#include "emu/task.h"
#include "trace/progress.h"
#include "util/mapfile.h"

int emu_slot(struct emu *e, int file, const char *label)
{
	if (e->out.slots.n[file] == e->out.slots.cap[file]) {
		e->out.slots.cap[file] = e->out.slots.cap[file] ? 2 * e->out.slots.cap[file] : 64;
		e->out.slots.label[file] = weft_xrealloc(e->out.slots.label[file],
						     (size_t) e->out.slots.cap[file] * sizeof(*e->out.slots.label[file]));
		e->out.slots.decl[file] = weft_xrealloc(
			e->out.slots.decl[file], (size_t) e->out.slots.cap[file] * sizeof(*e->out.slots.decl[file]));
	}
	int s = e->out.slots.n[file]++;
	e->out.slots.label[file][s] = label;
	e->out.slots.fresh[file] = weft_xrealloc(e->out.slots.fresh[file], (size_t) e->out.slots.cap[file]);
	e->out.slots.fresh[file][s] = 0;
	e->out.slots.model[file] = weft_xrealloc(e->out.slots.model[file], (size_t) e->out.slots.cap[file]);
	e->out.slots.model[file][s] = e->models.setting_up;
	e->out.slots.decl[file][s] = (struct emu_slot_decl){.kind = SINK_VALUE};
	return s;
}

void emu_slot_label(struct emu *e, int file, int slot, int64_t value, const char *label)
{
	if (slot < 0 || slot >= e->out.slots.n[file])
		return;
	struct emu_slot_decl *x = &e->out.slots.decl[file][slot];
	if (x->nmore == x->capmore) {
		x->capmore = x->capmore ? 2 * x->capmore : 16;
		x->more = weft_xrealloc(x->more, (size_t) x->capmore * sizeof(*x->more));
	}
	x->more[x->nmore++] = (struct sink_label){.value = value, .label = label};
}

void emu_slot_used(struct emu *e, int file, int slot)
{
	if (slot >= 0 && slot < e->out.slots.n[file])
		e->out.slots.decl[file][slot].used = 1;
}

void emu_slot_declare(struct emu *e, int file, int slot, const struct emu_slot_decl *d)
{
	if (slot < 0 || slot >= e->out.slots.n[file])
		return;
	struct emu_slot_decl *x = &e->out.slots.decl[file][slot];
	free((void *) x->labels);
	free(x->more);
	*x = *d;
	x->more = NULL;
	x->nmore = x->capmore = 0;
	if (d->nlabels) {
		struct sink_label *l = weft_xmalloc((size_t) d->nlabels * sizeof(*l));
		memcpy(l, d->labels, (size_t) d->nlabels * sizeof(*l));
		x->labels = l;
	} else
		x->labels = NULL;
}

const struct weft_model_def *emu_registry_id(const struct emu *e, char id)
{
	if (id < MCV_FIRST || id > MCV_LAST)
		return NULL;
	int k = e->models.slot[mcv_index(id)];
	if (k >= 0 && k < e->models.n)
		return e->models.def[k]; /* one in use: no search */
	return model_set_id(&e->o.models, id);
}

const struct weft_model_def *emu_registry_name(const struct emu *e, const char *name)
{
	return model_set_name(&e->o.models, name);
}

void emu_slot_fresh(struct emu *e, int file, int slot)
{
	if (slot >= 0 && slot < e->out.slots.n[file])
		e->out.slots.fresh[file][slot] = 1;
}

void emu_fresh_apply(const struct emu *e, int file, struct prv_file *f)
{
	for (int s = 0; s < e->out.slots.n[file]; s++)
		if (e->out.slots.fresh[file][s])
			prv_slot_fresh(f, s);
}

int emu_model_error(struct emu *e, struct weft_err *err, const char *fmt, ...)
{
	char what[2048];
	WEFT_VFORMAT(what, fmt);
	const struct weft_ev *ev = e->run.ev;
	const char *log = ev ? e->tr.inputs[ev->stream->input].source : NULL;
	if (log) {
		/* an imported log: the converted stream is temporary; name the log
		 * and the record that wrote the event (converting the log again
		 * to find it: only for the errors shown) */
		struct import_locate l = {ev->stream->rel, ev->offset, 0, 0, 0, 0};
		char at[48] = "";
		if ((!e->o.keep_going || e->count.nerrors < 20) && import_locate(log, &e->o.imp, &l) && l.has_pos)
			snprintf(at, sizeof(at), l.text ? ":%llu" : ": byte offset %llu", (unsigned long long) l.pos);
		weft_fail(err, WEFT_EINPUT, "%s%s: event %c%c%c (time %llu ns, thread %lld, converted stream %s): %s",
			  log, at, ev->model, ev->cat, ev->val, (unsigned long long) e->run.now,
			  (long long) e->sys.th[ev->stream->index].sys->tid, ev->stream->rel, what);
	} else if (ev)
		weft_fail(err, WEFT_EINPUT,
			  "%s: event %c%c%c at byte offset %llu (clock %llu, time %llu ns), thread %lld: %s",
			  ev->stream->obs_path, ev->model, ev->cat, ev->val,
			  (unsigned long long) ev->offset, (unsigned long long) ev->clock,
			  (unsigned long long) e->run.now, (long long) e->sys.th[ev->stream->index].sys->tid, what);
	else
		weft_fail(err, WEFT_EINPUT, "%s: %s", e->tr.source ? e->tr.source : e->tr.dir, what);
	if (e->o.salvage && e->side.finishing) {
		/* a killed application's trace: its threads, tasks and marks
		 * never end; what the models find open is said, not fatal */
		emu_warn(e, "%s (--salvage: the end of a killed run, not an error)", err->msg);
		err->code = 0;
		err->msg[0] = '\0';
		return 1;
	}
	if (!e->o.keep_going)
		return -1;
	e->count.nerrors++;
	if (warns_keep_error(e, err->msg))
		return 1;
	if (e->count.nerrors <= 20)
		weft_warn("%s", err->msg);
	else if (e->count.nerrors == 21)
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
	return t ? &e->sys.th[t->stream] : NULL;
}

/* Several inputs: a thread whose input does not use the state owner's
 * model shows its own model's states. */
static void thread_owners(struct emu *e)
{
	if (e->tr.ninputs < 2)
		return;
	for (int i = 0; i < e->sys.nth; i++) {
		struct emu_thread *t = &e->sys.th[i];
		if (t->sys->req[mcv_index(e->models.state_owner)])
			continue;
		for (int m = 0; m < e->models.n && !t->owner; m++) {
			const struct weft_model_def *d = e->models.def[m];
			if (d->id != 'O' && t->sys->req[mcv_index(d->id)] && d->hooks->nstates)
				t->owner = d->id;
		}
		if (!t->owner)
			t->owner = 'O';
	}
}

/* The handler, for this run, of events of a model no stream requires. */
static int not_required(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	return emu_model_error(e, err, "model %c (%s) is not named in any stream's ovni.require: expected "
			       "the stream to require it (ovni_thread_require(\"%s\", \"%s\"))", ev->model,
			       in->model->name, in->model->name, in->model->version);
}

int emu_off_cpu_error(struct emu *e, const struct emu_thread *t, const char *model, struct weft_err *err)
{
	return emu_model_error(e, err,
			       "thread %lld is out of its CPU (KCO without KCI): expected no "
			       "%s event until KCI",
			       (long long) t->sys->tid, model);
}

/* ovni events of a thread the kernel took off its CPU (doc/models/kernel.md,
 * Rules): the thread cannot be running code that emits them. */
static int off_cpu_event(struct emu *e, const struct weft_ev *ev, struct weft_err *err)
{
	return emu_off_cpu_error(e, &e->sys.th[ev->stream->index], "ovni", err);
}

/* The handler of ovni rows when a model marks threads off their CPU. */
static int guarded(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	if (e->sys.th[ev->stream->index].off_cpu)
		return off_cpu_event(e, ev, err);
	return in->inner(e, ev, in, err);
}

/* The handler of rows weft does not emulate (other models' events). */
static int not_emulated(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	if (e->o.strict) {
		const struct weft_model_def *d = emu_registry_id(e, (char) ev->model);
		return emu_model_error(e, err, "%s %c (%s) is not emulated by weft (--strict)",
				       d && d->hooks ? "this event of model" : "model", ev->model, d ? d->name : "unknown");
	}
	e->count.skipped[mcv_index(ev->model)]++;
	return 0;
}

/* The change stream (sink.h), when the run has sinks: the fronts the
 * models write into (thread rows file 0, CPU rows file 1) and the pipe
 * whose thread hands their records on. Before the sinks begin. */
static int out_open(struct emu *e, struct weft_err *err)
{
	if (!e->o.sinks.n)
		return 0;
	for (int f = 0; f < EMU_NFILES; f++)
		if (e->out.slots.n[f] > EMU_MAX_SLOTS)
			return weft_fail(err, WEFT_EINTERNAL,
					 "%s: %d Paraver event types in one file: at most %d "
					 "are supported",
					 f == EMU_THREAD_FILE ? "thread.prv" : "cpu.prv", e->out.slots.n[f], EMU_MAX_SLOTS);
	e->out.pipe = prv_pipe_start();
	if (!e->out.pipe) /* the split by loom needs one: no memory is no run */
		return weft_fail(err, WEFT_EINPUT, "%s: cannot start the output writer: %s%s",
				 e->run.trace ? e->run.trace : e->tr.dir, strerror(ENOMEM), weft_sys_hint(ENOMEM));
	prv_front_open(&e->out.prv[EMU_THREAD_FILE], e->out.pipe, EMU_THREAD_FILE, e->sys.nth, e->out.slots.n[EMU_THREAD_FILE]);
	prv_front_open(&e->out.prv[EMU_CPU_FILE], e->out.pipe, EMU_CPU_FILE, e->sys.ncpu, e->out.slots.n[EMU_CPU_FILE]);
	e->out.writing = 1;
	return 0;
}

/* The stream's first records, once the sinks began: time 0, each CPU
 * row's CPU, the rows that open with a state. */
static void out_start(struct emu *e)
{
	if (!e->out.writing)
		return;
	struct prv_file *t = &e->out.prv[EMU_THREAD_FILE];
	if (t->pw->sent_time != t->now)
		prv_pipe_time(t, t->now);
	for (int i = 0; i < e->sys.ncpu; i++)
		prv_cpu(&e->out.prv[EMU_CPU_FILE], i, (uint32_t) i + 1);
	/* replaced by the row's first state; at the first instant, unseen.
	 * Rows of ovni threads keep ovniemu's picture: no state (0, "No
	 * state") before the thread starts, as its type 4 shows. */
	for (int r = 0; r < e->sys.nth; r++)
		if (emu_owner(e, e->sys.by_row[r]) != 'O')
			prv_state(t, r, EMU_STATE_NOT_STARTED);
}

/* The stream's last records queued and handed on; the pipe's thread
 * ended. */
static void out_close(struct emu *e)
{
	if (!e->out.pipe)
		return;
	prv_flush_now(&e->out.prv[EMU_THREAD_FILE]);
	prv_flush_now(&e->out.prv[EMU_CPU_FILE]);
	prv_pipe_untime(e->out.prv[EMU_THREAD_FILE].pw);
	prv_pipe_finish(e->out.pipe);
	e->out.pipe = NULL;
}

static void out_free(struct emu *e)
{
	if (e->out.pipe) { /* the pipe's thread stops before any sink lets go */
		prv_pipe_finish(e->out.pipe);
		e->out.pipe = NULL;
	}
	if (e->out.writing)
		for (int f = 0; f < EMU_NFILES; f++)
			prv_front_free(&e->out.prv[f]);
	e->out.writing = 0;
}

int emu_open(struct emu *e, const char *trace, const struct emu_opts *o, struct weft_err *err)
{
	memset(e, 0, sizeof(*e));
	e->o = *o;
	e->o.imp.quiet = o->quiet;
	e->run.trace = trace;
	if (evtable_init(&e->tab, o->models.all, o->models.n, err))
		return -1;
	struct trace_opts to = {.mode = STREAM_ORDERED,
				.window = o->window,
				.import = &e->o.imp,
				.same_nodes = o->same_nodes,
				.converted = o->converted,
				.map_budget = o->map_budget,
				.require = model_require,
				.require_arg = &e->o.models};
	to.salvage = o->salvage;
	to.quiet = o->streams_hi != 0; /* a -j worker: the main run's open warned */
	e->models.state_owner = 'O';
	memset(e->models.slot, -1, sizeof(e->models.slot));
	if (o->reuse) {
		e->tr = *o->reuse;
		memset(o->reuse, 0, sizeof(*o->reuse));
		if (trace_rewind(&e->tr, err))
			return -1;
	} else if (o->ninputs ? trace_open_inputs(&e->tr, o->inputs, o->ninputs, &to, err)
			      : trace_open(&e->tr, trace, &to, err)) {
		return -1;
	}
	struct weft_system *sys = &e->tr.sys;
	e->sys.nth = e->tr.nstreams;
	e->part.th_lo = 0;
	e->part.th_hi = e->sys.nth;
	e->sys.th = weft_xcalloc((size_t) e->sys.nth, sizeof(*e->sys.th));
	for (int i = 0; i < e->sys.nth; i++) {
		e->sys.th[i].stream = &e->tr.streams[i];
		e->sys.th[i].sys = e->tr.streams[i].thread;
	}
	e->sys.ncpu = sys->ncpus;
	e->sys.cpu = weft_xcalloc((size_t) e->sys.ncpu, sizeof(*e->sys.cpu));
	for (int i = 0; i < e->sys.ncpu; i++) {
		e->sys.cpu[i].sys = sys->cpus[i];
		e->sys.cpu[i].row = i;
	}
	for (int t = 0; t < 100; t++) {
		e->marks.slot[t] = -1;
		if (sys->marks[t].defined) {
			e->marks.slot[t] = e->marks.n;
			e->marks.type[e->marks.n++] = t;
		}
	}
	paraver_rows(e);
	struct clock_opts co = {.file = o->clock_file,
				.no_files = o->no_clock_files,
				.table = o->clock_table,
				.align = o->align,
				.nalign = o->nalign,
				.quiet = o->quiet,
				.gate = !o->no_gate,
				.sync_file = o->sync_file,
				.say = !o->quiet};
	if (clock_setup(&e->tr, &co, err))
		return -1;
	/* ovni is always on; another emulated model is on when a stream requires it */
	const struct weft_model_def *const *all = o->models.all;
	int nall = o->models.n;
	if (nall == 0)
		return weft_fail(err, WEFT_EINTERNAL, "%s: no model registry handed to the emulator", trace);
	for (int i = 0; i < nall; i++) {
		const struct weft_model_def *d = all[i];
		if (!d->hooks)
			continue;
		int on = d->id == 'O' || (o->all_models && d->hooks->on_with_all);
		for (int t = 0; t < e->sys.nth && !on; t++)
			on = e->sys.th[t].sys->req[mcv_index(d->id)];
		if (!on)
			continue;
		e->models.enabled[mcv_index(d->id)] = 1;
		e->models.slot[mcv_index(d->id)] = (int8_t) e->models.n;
		e->models.def[e->models.n++] = d;
	}
	/* ovni's setup first: its Paraver slots are the first of each file
	 * (models/ovni/ovni.h numbers them from 0) */
	for (int pass = 0; pass < 2; pass++)
		for (int m = 0; m < e->models.n; m++) {
			const struct weft_model_def *d = e->models.def[m];
			if ((d->id == 'O') != (pass == 0))
				continue;
			e->models.setting_up = d->id;
			if (d->hooks->setup && d->hooks->setup(e, d, err))
				return -1;
		}
	e->models.setting_up = 0;
	/* this run's handlers: none is NULL, and what the event loop would
	 * test per event is in them (see dispatch_slow for the order) */
	for (int m = 0; m < MCV_NCHARS; m++)
		if (!e->models.enabled[m])
			evtable_wrap(&e->tab, mcv_char(m), not_required);
	if (e->models.guard_off_cpu)
		evtable_wrap(&e->tab, 'O', guarded);
	evtable_default(&e->tab, not_emulated);
	thread_owners(e);
	if (o->streams_hi) {
		e->part.th_lo = o->streams_lo;
		e->part.th_hi = o->streams_hi;
	}
	if (merge_init_part(&e->merge, e->tr.streams, e->sys.nth, e->part.th_lo, e->part.th_hi, err))
		return -1;
	/* a breakdown view (-b: one run, no -j) sorts the CPUs of every loom
	 * after each event: it needs ovniemu's own order of equal clocks
	 * across looms, not the instant grouped by loom */
	if (e->bd.s)
		e->merge.by_loom = 0;
	if (out_open(e, err) || emu_sinks_begin(e, err))
		return -1;
	out_start(e);
	return 0;
}

static void report_skipped(struct emu *e)
{
	for (int m = 0; m < MCV_NCHARS; m++) {
		if (!e->count.skipped[m])
			continue;
		const struct weft_model_def *d = emu_registry_id(e, mcv_char(m));
		weft_warn("skipped %llu events of model %c (%s): weft does not emulate %s yet",
			  (unsigned long long) e->count.skipped[m], mcv_char(m), d ? d->name : "unknown",
			  d && d->hooks ? "these events" : "it");
	}
}

static int payload_error(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	if (in->decl->jumbo && !ev->jumbo)
		return emu_model_error(e, err,
				       "a normal event of %u payload bytes: expected a jumbo event, as "
				       "declared (%s)",
				       ev->payload_len, in->decl->sig);
	if (in->has_str)
		return emu_model_error(
			e, err, "payload of %u bytes: expected %u or more%s as declared (%s)", ev->payload_len,
			in->size, in->has_str == 1 && !in->decl->jumbo ? ", with a NUL after them" : "", in->decl->sig);
	return emu_model_error(e, err, "payload of %u bytes: expected %s%u as declared (%s)", ev->payload_len,
			       in->only ? "exactly " : "at least ", in->only ? in->size : in->min, in->decl->sig);
}

/* A jumbo event whose row ends in a str (the task type events VYc, 6Yc,
 * POc: a 4-byte type id, then a label) with a payload cut short: under its
 * fixed fields, or with no NUL after them. ovniemu reads such an event
 * where it lies in the mapped stream, whatever its size says: the type id
 * and the label up to the next NUL, from the bytes of the events that
 * follow (and the zeros of the mapping's last page past the stream's end;
 * in an unordered region, the events that follow it once ovnisort sorted it).
 * weft reads them alike into buf and points *past at it (the same event
 * with the longer payload), saying so; returns 1, or 0 when the payload
 * holds what the row needs. A label with no NUL in TASK_LABEL_MAX bytes is
 * handed over as it is (too long: the model refuses it, as ovniemu). */
static int jumbo_past(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_ev *past,
		      uint8_t *buf, size_t cap)
{
	if (ev->payload_len > in->size && memchr(ev->payload + in->size, 0, ev->payload_len - in->size))
		return 0;
	/* the payload, then what follows it (ovniemu's reading of the bytes) */
	size_t n = ev->payload_len < cap ? ev->payload_len : cap;
	memcpy(buf, ev->payload, n);
	size_t avail = n;
	if (ev->stream->ev.offset == ev->offset) /* the stream's current event: what follows is known */
		avail += stream_follow(ev->stream, buf + n, cap - n);
	else
		memset(buf + n, 0, cap - n);
	const uint8_t *z = memchr(buf + in->size, 0, cap - in->size);
	size_t len = z ? (size_t) (z - buf) + 1 : cap;
	*past = *ev;
	past->payload = buf;
	past->payload_len = (uint32_t) len;
	emu_warn(e,
		 "%s: event %c%c%c at byte offset %llu: a jumbo payload of %u bytes, %s: read as ovniemu "
		 "reads it, %zu bytes up to the label's NUL (%zu past the payload: the events that follow%s)",
		 ev->stream->obs_path, ev->model, ev->cat, ev->val, (unsigned long long) ev->offset, ev->payload_len,
		 ev->payload_len < in->size ? "shorter than its 4-byte type id" : "a label without its NUL", len,
		 len - ev->payload_len, len > avail ? ", then zeros past the stream's end" : "");
	return 1;
}

/* An MCV no row declares, as ovniemu takes it: every OU? is ignored (about
 * reading order, e.g. the OUj ovnisort writes; the reader sorted them) and
 * every OB? is a burst (ovniemu reads neither value nor payload); any other
 * is an error: of a model the streams require (its table has no such
 * event), of one they do not, or of no model at all. */
static int unknown_event(struct emu *e, const struct weft_ev *ev, struct weft_err *err)
{
	const struct weft_model_def *d = emu_registry_id(e, (char) ev->model);
	if (ev->model == 'O') {
		if (e->models.guard_off_cpu && e->sys.th[ev->stream->index].off_cpu)
			return off_cpu_event(e, ev, err);
		if (ev->cat == 'U')
			return 0;
		const struct evinfo *burst = ev->cat == 'B' ? evtable_find(&e->tab, 'O', 'B', '.') : NULL;
		if (burst)
			return burst->decl->handler(e, ev, burst, err);
	}
	if (!d || !d->nevents)
		return emu_model_error(e, err,
				       "model %c is not a model weft or ovniemu knows (weft models lists "
				       "them): expected an event of a known model",
				       ev->model);
	if (!e->models.enabled[mcv_index(ev->model)])
		return emu_model_error(e, err,
				       "model %c (%s) is not named in any stream's ovni.require: expected "
				       "the stream to require it (ovni_thread_require(\"%s\", \"%s\"))",
				       ev->model, d->name, d->name, d->version);
	return emu_model_error(e, err,
			       "unknown %s event %c%c%c: model %c has no such event (weft models %c "
			       "lists them)",
			       d->name, ev->model, ev->cat, ev->val, ev->model, ev->model);
}

/* Everything but a declared event with the plain payload its row expects:
 * unknown events, payloads to check in full. The checks keep the order the
 * per-run handlers would have (not required, off its CPU, payload). */
static __attribute__((noinline)) int dispatch_slow(struct emu *e, const struct weft_ev *ev,
						   const struct evinfo *in, struct weft_err *err)
{
	weft_handler h = in ? in->decl->handler : NULL; /* the row's own */
	if (h) {
		if (!e->models.enabled[mcv_index(ev->model)])
			return not_required(e, ev, in, err);
		if (e->models.guard_off_cpu && ev->model == 'O' && e->sys.th[ev->stream->index].off_cpu)
			return off_cpu_event(e, ev, err);
		struct weft_ev past;
		uint8_t buf[TASK_LABEL_MAX + 8];
		if (in->decl->jumbo && in->has_str == 1 && ev->jumbo && ev->payload_len > 0 &&
		    in->size + 1 < sizeof(buf) && jumbo_past(e, ev, in, &past, buf, in->size + TASK_LABEL_MAX + 1))
			ev = &past;
		if (!ev_payload_ok(in, ev))
			return payload_error(e, ev, in, err);
		return h(e, ev, in, err);
	}
	if (in)
		return not_emulated(e, ev, in, err);
	return unknown_event(e, ev, err);
}

/* A -j worker's progress, for the merger to show (every 2^20 events). */
static __attribute__((noinline)) void share_progress(struct emu *e)
{
	uint64_t bytes = 0;
	for (int i = e->part.th_lo; i < e->part.th_hi; i++)
		bytes += e->tr.streams[i].pos;
	atomic_store_explicit(&e->part.done[0], e->count.nevents, memory_order_relaxed);
	atomic_store_explicit(&e->part.done[1], bytes, memory_order_relaxed);
}

/* The event loop; with constant `observe` and `write`, neither is tested
 * per event. Returns 1 when paused by the observer, 0 at the end,
 * -1 on error. */
static inline __attribute__((always_inline)) int run_loop(struct emu *e, struct progress *pg, const int observe,
							  const int write, struct weft_err *err)
{
	struct weft_ev *ev;
	int r;
	if (e->count.nevents == 0 && !e->part.t0_fixed)
		e->run.t0 = merge_peek_time(&e->merge); /* the first event's */
	while ((r = merge_next(&e->merge, &ev, err)) > 0) {
		e->run.now = ev->time - e->run.t0;
		e->run.ev = ev;
		e->count.nevents++;
		/* an observer (query) sees each event with the states before it */
		int pause = observe && e->obs.on_event(e->obs.arg, ev);
		if (write)
			prv_time2(&e->out.prv[EMU_THREAD_FILE], &e->out.prv[EMU_CPU_FILE], e->run.now);
		const struct evinfo *in = evtable_find(&e->tab, ev->model, ev->cat, ev->val);
		int rc;
		if (__builtin_expect(in && ev->payload_len == in->exact, 1))
			rc = in->handler(e, ev, in, err);
		else
			rc = dispatch_slow(e, ev, in, err);
		if (__builtin_expect(rc < 0, 0))
			return -1;
		if (write && __builtin_expect(e->bd.pending, 0))
			e->bd.ops->flush(e);
		if (__builtin_expect((e->count.nevents & 0xfffff) == 0, 0)) {
			progress_update(pg, e->count.nevents);
			if (e->part.done)
				share_progress(e);
			if (e->part.halt && ev->time > atomic_load_explicit(e->part.halt, memory_order_relaxed))
				return 1; /* a worker failed before: its error is the run's */
		}
		if (observe && pause)
			return 1;
	}
	return r;
}

/* weft emu's loop, and everybody else's (query, stats: an observer or no
 * output); each its own function, so each inlines the merge and the writer */
static __attribute__((noinline)) int run_writing(struct emu *e, struct progress *pg, struct weft_err *err)
{
	return run_loop(e, pg, 0, 1, err);
}

static __attribute__((noinline)) int run_any(struct emu *e, struct progress *pg, struct weft_err *err)
{
	return run_loop(e, pg, e->obs.on_event != NULL, e->out.writing, err);
}

int emu_run_events(struct emu *e, struct weft_err *err)
{
	struct progress pg;
	progress_start(&pg, e->o.progress && !e->o.quiet, e->tr.streams, e->tr.nstreams);
	int r = e->obs.on_event || !e->out.writing ? run_any(e, &pg, err) : run_writing(e, &pg, err);
	progress_end(&pg);
	e->run.ev = NULL;
	return r;
}

int emu_run_end(struct emu *e, int *failed, struct weft_err *err)
{
	if (!e->o.quiet)
		report_skipped(e);
	if (!e->o.quiet)
		emu_pairs_report(e);
	for (int m = 0; m < e->models.n; m++) {
		const struct weft_model_def *d = e->models.def[m];
		e->side.finishing = d->id;
		if (d->hooks->finish && d->hooks->finish(e, d, err)) {
			*failed = m;
			e->side.finishing = 0;
			return -1;
		}
		warns_print_end(e, d->id); /* the workers' of this model's end (-j) */
	}
	e->side.finishing = 0;
	if (e->count.nerrors && !e->o.quiet)
		weft_warn("%llu model errors were skipped (--keep-going)", (unsigned long long) e->count.nerrors);
	return 0;
}

int emu_run(struct emu *e, struct weft_err *err)
{
	int r = emu_run_events(e, err);
	if (r < 0)
		return -1;
	if (r > 0)
		return 0; /* paused by the observer: emu_run again goes on */
	int failed;
	return emu_run_end(e, &failed, err);
}

int emu_close(struct emu *e, struct weft_err *err)
{
	if (!e->out.writing)
		return 0;
	out_close(e);
	int rc = 0;
	if (e->o.win && e->run.now < e->o.win_from)
		rc = weft_fail(err, WEFT_EINPUT, "%s: --from %llu ns is past the end of the trace (%llu ns)",
			       e->tr.source ? e->tr.source : e->tr.dir, (unsigned long long) e->o.win_from,
			       (unsigned long long) e->run.now);
	/* an input that shrank while read gave zeros: no run from it */
	if (rc == 0)
		rc = map_inputs_check(err);
	struct weft_err later = {0};
	if (emu_sinks_end(e, rc == 0, e->run.now, rc ? &later : err))
		rc = -1;
	out_free(e);
	return rc;
}

void emu_free(struct emu *e)
{
	out_free(e);
	emu_sinks_free(e);
	for (int m = 0; m < e->models.n; m++)
		if (e->models.def[m]->hooks->release)
			e->models.def[m]->hooks->release(e, e->models.def[m]);
	if (e->bd.ops)
		e->bd.ops->free(e);
	if (e->eng.free)
		e->eng.free(e);
	emu_match_free(e);
	warns_free(e);
	for (int f = 0; f < EMU_NFILES; f++) {
		free(e->out.slots.label[f]);
		free(e->out.slots.fresh[f]);
		free(e->out.slots.model[f]);
		for (int k = 0; k < e->out.slots.n[f]; k++) {
			free((void *) e->out.slots.decl[f][k].labels);
			free(e->out.slots.decl[f][k].more);
		}
		free(e->out.slots.decl[f]);
	}
	for (int i = 0; i < e->sys.ncpu; i++)
		free(e->sys.cpu[i].th);
	free(e->sys.cpu);
	free(e->sys.th);
	free(e->sys.by_row);
	merge_free(&e->merge);
	trace_close(&e->tr);
	evtable_free(&e->tab);
	memset(e, 0, sizeof(*e));
}
