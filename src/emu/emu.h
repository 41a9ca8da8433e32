/* SPDX-License-Identifier: GPL-3.0-or-later */
/* emu: one emulation run — the context every stage shares.
 * It owns the opened trace (sources), the clock correction, the merge, the
 * per-thread and per-CPU emulation state, the models (dispatched by model
 * character through a table) and the change stream handed to the sinks
 * src/cli chose (sink.h: Paraver, OTF2; none for query and stats).
 * Models read events and update state held here; they never open files.
 * All mutable state of a run lives in struct emu: there is no other. */
#ifndef WEFT_EMU_H
#define WEFT_EMU_H

#include <stdatomic.h>
#include <stdint.h>

#include "clock/clocksetup.h"
#include "util/err.h"
#include "evtable.h"
#include "require.h"
#include "emu/merge.h"
#include "emu/pairs.h"
#include "emu/sink.h"
#include "prv/prv_writer.h"
#include "trace/trace.h"
#include "util/macros.h"

enum { EMU_THREAD_FILE = 0, EMU_CPU_FILE = 1, EMU_NFILES = 2 };

/* Thread states of the ovni model (Paraver state values). */
enum th_state { TH_UNKNOWN = 0, TH_RUNNING, TH_PAUSED, TH_DEAD, TH_COOLING, TH_WARMING };

/* Row states of the emulator itself, next to ovni's 0-5 (doc/paraver-output.md):
 * a row is "Not started" from the start of the trace until its thread starts
 * (ovni's OHx/OHC) or its model first gives it a state, and "Ended" once its
 * thread ended (OHe) when another model than ovni shows its states (ovni's
 * own rows show Dead). */
enum { EMU_STATE_NOT_STARTED = 6, EMU_STATE_ENDED = 7 };
/* The name of state 0, the gap where no model shows a state (the .pcf's
 * STATES, weft stats); ovni's type 4 keeps ovniemu's "Unknown" for 0. */
#define EMU_STATE_NONE_LABEL "No state"

/* Model states a thread remembers for queries (state.<model>), by
 * e->models.slot: the models in use with a slot below this one. */
#define EMU_MODEL_STATES 8

struct emu_cpu;
struct emu_thread;
struct paraver_out;
struct outset;
struct prv_back;
struct prv_pipe;

/* A breakdown view as its trace's writer (the Paraver sink,
 * src/emu/paraver_bd.c) knows it. */
struct emu_bd_view {
	const char *name; /* "MODEL-breakdown" */
	char model;
	int nrow; /* its rows: the physical CPUs */
	const char *label; /* its event type's */
};

/* The breakdown views of model files (models/engine/breakdown.h) as the
 * emulator and its Paraver sink reach them, without naming them. */
struct emu_bd_ops {
	void (*flush)(struct emu *e); /* the end of an event with notes (bd.pending) */
	void (*free)(struct emu *e);
	/* the views set up, each one's description */
	int (*nviews)(const struct emu *e);
	const struct emu_bd_view *(*view)(const struct emu *e, int i);
	/* view i's file is open: its records go to the run's stream as set
	 * `set` from now on; closed: no more */
	void (*open)(struct emu *e, int i, int set);
	void (*close)(struct emu *e, int i);
	/* its .pcf value lines (the labels of the channels it lists) */
	void (*value_lines)(struct emu *e, int i, struct strbuf *b);
};

/* What a model counts for an accounting sink (weft stats): an operation
 * begins, ends or happens at once on a thread, with its bytes (-1: none).
 * Operations are numbered by each model (msg: PICL event types; fileio: the
 * PICL file I/O event types too). A context operation (PICL user events)
 * also gets the time, counts and bytes of every operation inside it. */
enum emu_op_kind { EMU_OP_BEGIN, EMU_OP_END, EMU_OP_MARK };

struct emu_op {
	char model;
	enum emu_op_kind kind;
	int32_t op;
	int64_t bytes;
	int context;
};

/* A figure a trace states about itself (PICL statistics records), to be
 * compared with what the sink measured: the time (ns), count or bytes of
 * operation `op` of `model` on the thread, within context operation `ctx`
 * of `ctx_model` (ctx_model 0: the whole thread). `unit_ns` is the
 * resolution of the stated time and `ts_unit_ns` of the trace's
 * timestamps; `why_not`, when set, says why weft cannot measure it, and
 * `why_not_if_none` why it cannot when the rows have no such operation. */
enum emu_claim_what { EMU_CLAIM_TIME, EMU_CLAIM_COUNT, EMU_CLAIM_BYTES };

/* Operations lo..hi of a model (a claim's set). */
struct emu_op_range {
	char model;
	int32_t lo, hi;
};

/* A claim may also be about a sum (PICL's statistics of event subsets and
 * of several processors): over the operations of `ops` instead of `op`
 * alone, within any context of `ctxs` instead of `ctx` alone, over the
 * threads `threads` (stream indexes) instead of the claiming one; `scope`
 * then names those threads ("processor -1"). The sink copies them. */
struct emu_claim {
	char model, ctx_model;
	int32_t op, ctx;
	int32_t record;            /* the format's record kind, e.g. -101 */
	enum emu_claim_what what;
	int64_t value;
	int64_t unit_ns, ts_unit_ns;
	const char *why_not;
	const char *why_not_if_none;
	const struct emu_op_range *ops, *ctxs; /* NULL: op, ctx */
	int nops, nctxs;
	const int *threads; /* NULL: the claiming thread */
	int nthreads;
	const char *scope;
};

struct emu_acct {
	void *arg;
	/* a model's state of thread t is now `state` (maybe unchanged) */
	void (*state)(void *arg, const struct emu_thread *t, char model, uint32_t state, uint64_t now);
	void (*op)(void *arg, const struct emu_thread *t, const struct emu_op *op, uint64_t now);
	void (*claim)(void *arg, const struct emu_thread *t, const struct emu_claim *c, uint64_t now);
};

struct mark_stack {
	int64_t *v;
	int n, cap;
};

struct emu_thread {
	struct weft_thread *sys;
	struct weft_stream *stream;
	int row;                /* row in thread.prv (Paraver order) */
	enum th_state state;
	struct emu_cpu *cpu;    /* assigned CPU, NULL when none */
	int flushing;
	uint64_t flush_start;
	int64_t *mark;          /* value per declared mark type (slot order) */
	struct mark_stack *stack; /* per declared mark type (used when stacked) */
	uint64_t nbursts;
	struct ovni_bursts *bursts; /* the ovni model's, NULL until a burst */
	/* what its ovni columns show now (thread_row writes changes only) */
	uint32_t shown_cpu;
	enum th_state shown_state;
	int marks_act;          /* tid and mark columns show its own (1) or zeros */
	uint32_t model_state[EMU_MODEL_STATES]; /* each emulated model's state, by e->models.slot */
	uint8_t off_cpu;        /* the kernel took it off its CPU (KCO without KCI) */
	char owner;             /* the model whose states its row shows; 0: e->models.state_owner */
};

struct emu_cpu {
	struct weft_cpu *sys;
	int row;                /* row in cpu.prv = global CPU index */
	struct emu_thread **th; /* threads assigned to it */
	int nth, cap;
	int nrunning;
	struct emu_thread *running; /* the unique Running thread, or NULL */
	struct emu_thread *marks_of; /* whose pid, tid, flush, marks it shows */
	int shown_nrun;
	int shown; /* its row was written once (ovniemu's first cpu update) */
};

/* What a slot's channel is, for the sinks' layout (sink.h): its name in
 * its model ("subsystem"; NULL: one made of its title), its kind, its
 * value labels (copied; the strings must last the run) and whether more
 * are named while the run goes. A slot not declared: a value, named by
 * its title, with no labels. */
struct emu_slot_decl {
	/* the key of its model's Paraver table (struct weft_prv_type) and its
	 * member index in a channel group (0: none) */
	const char *key;
	int member;
	const char *name;
	enum sink_kind kind;
	const struct sink_label *labels;
	int nlabels;
	int dynamic;
	/* listed in the layout only once emu_slot_used says it was written
	 * (PICL's kept records: a block only for the kinds seen) */
	int sparse, used;
	/* the labels named while the run goes (emu_slot_label), in order */
	struct sink_label *more;
	int nmore, capmore;
};

/* The channels the models registered, by file and slot, growing with
 * emu_slot. */
struct emu_slots {
	int n[EMU_NFILES];
	int cap[EMU_NFILES];
	const char **label[EMU_NFILES];
	uint8_t *fresh[EMU_NFILES]; /* its first value is written, even 0 */
	char *model[EMU_NFILES]; /* the model that registered it */
	struct emu_slot_decl *decl[EMU_NFILES]; /* emu_slot_declare's (labels owned) */
};

/* weft emu -j (jobs.h): this emu's threads are streams [th_lo, th_hi)
 * (end-of-run checks look at those only); t0_fixed: t0 is the whole
 * trace's, set before the run; halt: stop once past this time (another
 * worker failed earlier), checked every 2^20 events; done: NULL, or
 * [events, stream bytes read] for the merger's progress; match_defer: a
 * worker, whose message ends go to the merger (match.h). */
struct emu_part {
	int th_lo, th_hi;
	int t0_fixed;
	const _Atomic uint64_t *halt;
	_Atomic uint64_t *done;
	int match_defer;
};

struct emu_opts {
	/* the models a run may use: the registry (models/require.h), built
	 * and handed in by src/cli (cli_registry) after its --model files are
	 * loaded; the emulator never reads a process-wide table. n 0: emu_open
	 * refuses (an internal error) */
	struct model_set models;
	struct import_opts imp; /* for a legacy log given as TRACE */
	const char *clock_file; /* -c FILE, NULL: TRACE/clock-offsets.txt if present */
	int no_clock_files;     /* --sync=none: no clock table at all */
	const struct clock_table *clock_table; /* clocks in memory (estimated), instead of files */
	const char *const *inputs; /* several inputs (NULL: the one TRACE of emu_open) */
	int ninputs;
	int same_nodes;         /* equal loom numbers of several inputs share a node */
	const struct clock_align *align;
	int nalign;
	struct weft_trace *reuse; /* an opened trace to take over (rewound), e.g. for a second pass */
	int no_gate;            /* do not refuse looms hours apart without a clock table */
	int keep_going, lint, strict, quiet, progress;
	int keep_warns; /* quiet, yet a -j worker keeps its warnings for rank 0 (warns.h) */
	int writers; /* -j, --mpi: threads writing the files (jobs_writers), 0: by the cores */
	int bursts;             /* burst statistics (models/ovni/bursts.c) */
	int all_models;         /* -a: every model file's model on, required or not */
	int breakdown; /* -b: the models' breakdown views (models/engine/breakdown.h) */
	uint64_t window;
	int win;                /* --from/--to: write only [win_from, win_to] */
	uint64_t win_from, win_to;
	int streams_lo, streams_hi; /* emulate streams [lo, hi) only (jobs.h); hi 0: all */
	const char *const *converted; /* per input, its log's conversion to reuse (trace_opts) */
	size_t map_budget; /* the streams' resident pages (trace_opts; 0: default) */
	int sync_file; /* without -c: read the clock file weft sync wrote (clocksetup.h) */
	int slices; /* --mpi --slices: every rank writes a time slice (slices.h) */
	int salvage; /* --salvage: streams cut mid-event end at their last whole event */
	/* the run's outputs (sink.h; sinks.h), chosen by src/cli: Paraver
	 * (paraver_out.h), OTF2; n 0: no output (query, stats, the checks) */
	struct sink_list sinks;
};

struct emu {
	struct emu_opts o;
	struct weft_trace tr;
	struct evtable tab;
	struct weft_merge merge;
	/* the system's rows: threads by stream index, CPUs by global index */
	struct {
		struct emu_thread *th;
		struct emu_cpu *cpu;
		int nth, ncpu;
		struct emu_thread **by_row; /* thread.prv row -> thread */
	} sys;
	/* declared mark types, in type order: slot k is type type[k] */
	struct {
		int n;
		int type[100];
		int slot[100]; /* type -> slot, -1 if undeclared */
	} marks;
	/* where the run is */
	struct {
		uint64_t t0;        /* corrected time of the first event */
		uint64_t now;       /* dclock of the current event */
		struct weft_ev *ev; /* the event being handled */
		const char *trace;  /* emu_open's TRACE */
	} run;
	struct {
		uint64_t nevents;
		uint64_t nerrors; /* model errors turned into warnings */
		struct pair_stats pairs; /* matched messages (pairs.h) */
		uint64_t skipped[MCV_NCHARS]; /* events of models weft does not emulate, by mcv_index */
	} count; /* what the run counted, for its reports */
	/* the emulated models in use, in model-character order (def[0..n));
	 * the tables by model character are at mcv_index(model) */
	struct {
		const struct weft_model_def *def[MCV_NCHARS];
		int n;
		int8_t slot[MCV_NCHARS]; /* model character -> index in def[], -1 if off */
		uint8_t enabled[MCV_NCHARS];
		void *state[MCV_NCHARS]; /* each emulated model's own state */
		/* the model whose states thread.prv shows ('O' by default; a
		 * legacy model claims it in its setup) */
		char state_owner;
		/* thread.row names: a legacy model may name its rows (NULL, or a
		 * return of 0 for a row: "TH app.tid loom/pid") */
		int (*thread_name)(const struct emu *e, const struct emu_thread *t, char *buf, int n);
		int guard_off_cpu; /* a model marks threads off their CPU: ovni events check it */
		char setting_up; /* the model whose setup runs, else 0 */
	} models;
	/* observer called before each event is handled; nonzero pauses emu_run
	 * after that event (emu_run again resumes); acct: the accounting sink
	 * (weft stats), NULL: none */
	struct {
		int (*on_event)(void *arg, const struct weft_ev *ev);
		void *arg;
		const struct emu_acct *acct;
	} obs;
	/* the model files' channels (models/engine/engine.h), s NULL when no
	 * file model is on; state: some thread row shows a channel only in
	 * some thread states; free: releases s (set with it) */
	struct {
		struct engine *s;
		int state;
		void (*free)(struct emu *e);
	} eng;
	/* the breakdown views (models/engine/breakdown.h), s NULL without -b;
	 * pending: a CPU row they read changed in this event; ops: how the
	 * emulator and its Paraver sink reach them (set with s) */
	struct {
		struct bd_state *s;
		int pending;
		const struct emu_bd_ops *ops;
	} bd;

	struct emu_part part; /* a -j worker's share of the run */
	struct {
		/* messages matched by key (match.h), NULL until a model gives an
		 * end; a -j worker's go to the merger (part.match_defer) */
		struct emu_match *match;
		/* the models' warnings (warns.h): NULL, or a worker's kept ones,
		 * or the workers' for the merging run to print; finishing: the id
		 * of the model whose end runs (emu_run_end), else 0 */
		struct emu_warns *warns;
		char finishing;
	} side; /* what the models hand the emulator beside the stream */

	/* the change stream (sink.h): writing, the models' changes are
	 * records, queued by the fronts prv[] (thread rows, CPU rows) into
	 * pipe, whose thread hands them to the sinks; a -j worker's fronts
	 * queue into its ring instead (jobs.h) */
	struct {
		int writing;
		struct prv_file prv[EMU_NFILES];
		struct emu_slots slots; /* the Paraver slots the models registered (emu_slot) */
		struct prv_pipe *pipe;
		struct emu_sinks *sinks; /* o.sinks' layout and state (sinks.h), NULL: none begun */
		struct paraver_out *par; /* the Paraver sink of o.sinks (paraver_out.h), NULL: none */
	} out;
};

WEFT_MUST_CHECK int emu_open(struct emu *e, const char *trace, const struct emu_opts *o, struct weft_err *err);
/* Run every event through the models; returns 0 or -1. */
WEFT_MUST_CHECK int emu_run(struct emu *e, struct weft_err *err);
/* emu_run's halves: the events (0: all done, 1: paused by the observer
 * or halted, -1: error), then the skipped-event reports and the models'
 * end-of-run checks (-1: model index *failed failed, err filled). */
WEFT_MUST_CHECK int emu_run_events(struct emu *e, struct weft_err *err);
WEFT_MUST_CHECK int emu_run_end(struct emu *e, int *failed, struct weft_err *err);
/* Finish the sinks (rename outputs into place). */
WEFT_MUST_CHECK int emu_close(struct emu *e, struct weft_err *err);
/* Release everything; removes unfinished outputs. */
void emu_free(struct emu *e);

/* Register a channel of one file, titled `label`; returns its slot. Its
 * Paraver type is its model's Paraver table's (weft_model_def.paraver),
 * found by the Paraver sink from the slot's declared key and member
 * (emu_slot_declare, paraver_slot_types). Slots have
 * no fixed limit here; the stream refuses more than EMU_MAX_SLOTS (a
 * record's chan is 16 bits) with an internal error when it opens. */
#define EMU_MAX_SLOTS 65535
int emu_slot(struct emu *e, int file, const char *label);
/* Say what slot `slot` of `file` is (struct emu_slot_decl). Before the
 * files open. */
void emu_slot_declare(struct emu *e, int file, int slot, const struct emu_slot_decl *d);
/* A value label named while the run goes (a `labels dynamic` channel),
 * after those declared: label must last the run. Any time before the
 * sinks end; a slot < 0 is ignored. */
void emu_slot_label(struct emu *e, int file, int slot, int64_t value, const char *label);
/* A sparse slot (emu_slot_decl.sparse) was written: the layout lists it.
 * Any time before the sinks end. */
void emu_slot_used(struct emu *e, int file, int slot);
/* Slot `slot` of `file` writes its first value on each row even when it
 * is 0, as ovniemu writes every channel's first value (its models' slots:
 * doc/paraver-output.md). Before the files open. */
void emu_slot_fresh(struct emu *e, int file, int slot);
/* Apply the fresh slots of `file` to f, a front or a part just opened. */
void emu_fresh_apply(const struct emu *e, int file, struct prv_file *f);

static inline void emu_out(struct emu *e, int file, int row, int slot, int64_t v)
{
	if (e->out.writing)
		prv_set(&e->out.prv[file], row, slot, v);
}

/* A punctual event value: written even when equal to the previous one. */
static inline void emu_punct(struct emu *e, int file, int row, int slot, int64_t v)
{
	if (e->out.writing)
		prv_punct(&e->out.prv[file], row, slot, v);
}

/* Set the Paraver state of a thread row (a value of the owning model's
 * state table; 0 = no state). */
static inline void emu_thread_state(struct emu *e, const struct emu_thread *t, uint32_t state)
{
	if (e->out.writing)
		prv_state(&e->out.prv[EMU_THREAD_FILE], t->row, state);
}

/* A model's state of a thread changed: remembered for queries
 * (state.<model>), and shown in thread.prv when the model owns the states. */
static inline void emu_model_state(struct emu *e, struct emu_thread *t, char model, uint32_t state)
{
	int k = e->models.slot[mcv_index(model)];
	if (k >= 0 && k < EMU_MODEL_STATES)
		t->model_state[k] = state;
	char owner = t->owner ? t->owner : e->models.state_owner;
	if (owner == model)
		emu_thread_state(e, t, state);
	else if (model == 'O' && state == TH_DEAD)
		emu_thread_state(e, t, EMU_STATE_ENDED);
	else if (model == 'O' && e->out.writing && e->out.prv[EMU_THREAD_FILE].rows[t->row].pend_state == EMU_STATE_NOT_STARTED)
		emu_thread_state(e, t, 0); /* started: no state until its model gives one */
	if (e->obs.acct)
		e->obs.acct->state(e->obs.acct->arg, t, model, state, e->run.now);
}

/* A model counts an operation of thread t (for weft stats; free when no
 * sink listens). */
static inline void emu_acct_op(struct emu *e, const struct emu_thread *t, char model, enum emu_op_kind kind,
			       int32_t op, int64_t bytes, int context)
{
	if (e->obs.acct) {
		struct emu_op o = {model, kind, op, bytes, context};
		e->obs.acct->op(e->obs.acct->arg, t, &o, e->run.now);
	}
}

/* A model passes on a figure the trace states about thread t. */
static inline void emu_acct_claim(struct emu *e, const struct emu_thread *t, const struct emu_claim *c)
{
	if (e->obs.acct)
		e->obs.acct->claim(e->obs.acct->arg, t, c, e->run.now);
}

/* The model whose states a thread's row shows (several inputs: each
 * input's threads keep their own model's). */
static inline char emu_owner(const struct emu *e, const struct emu_thread *t)
{
	return t->owner ? t->owner : e->models.state_owner;
}

/* Paraver communication records in thread.prv (prv_comm_send). A send is
 * written at the current time (lsend = e->run.now) from thread `from`; the
 * returned id names it in the other calls. psend is lsend until
 * emu_comm_psend; emu_comm_recv gives the receiving thread and the logical
 * and physical receive times (either may be earlier than lsend); a send
 * never received is dropped (a '#' comment line), by emu_comm_drop or at the
 * end of the run. Without sinks (no stream) these do nothing. */
static inline uint64_t emu_comm_send(struct emu *e, const struct emu_thread *from, int64_t size,
				     int64_t tag)
{
	return e->out.writing ? prv_comm_send(&e->out.prv[EMU_THREAD_FILE], from->row, e->run.now, size, tag) : 0;
}

static inline void emu_comm_psend(struct emu *e, uint64_t id, uint64_t psend)
{
	if (e->out.writing)
		prv_comm_psend(&e->out.prv[EMU_THREAD_FILE], id, psend);
}

static inline void emu_comm_recv(struct emu *e, uint64_t id, const struct emu_thread *to, uint64_t lrecv,
				 uint64_t precv)
{
	if (e->out.writing)
		prv_comm_recv(&e->out.prv[EMU_THREAD_FILE], id, to->row, lrecv, precv);
}

static inline void emu_comm_drop(struct emu *e, uint64_t id)
{
	if (e->out.writing)
		prv_comm_drop(&e->out.prv[EMU_THREAD_FILE], id);
}

/* A model found an inconsistency in the current event. Returns -1 (fatal)
 * or, with --keep-going, prints a warning, counts it and returns 1 (the
 * caller skips the event). */
WEFT_MUST_CHECK int emu_model_error(struct emu *e, struct weft_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An event of `model` from thread t while the kernel has it off its CPU
 * (KCO without KCI): ovniemu refuses the events of ovni and nOS-V then
 * ("current thread out of CPU"); models with `guard STATE oncpu` too.
 * Returns as emu_model_error. */
WEFT_MUST_CHECK int emu_off_cpu_error(struct emu *e, const struct emu_thread *t, const char *model,
				      struct weft_err *err);

struct emu_thread *emu_find_thread(struct emu *e, const struct emu_thread *from, int64_t tid);

/* The registry's model of character id, or named `name`; NULL: none. */
const struct weft_model_def *emu_registry_id(const struct emu *e, char id);
const struct weft_model_def *emu_registry_name(const struct emu *e, const char *name);

#endif
