/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni model (O): the thread state machine, CPU bookkeeping, affinity,
 * marks and flushes (doc/models/ovni.md), and the rows it shows
 * (doc/paraver-output.md). Transition rules are a table, not a cascade. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "emu/warns.h"
#include "ovni/ovni.h"

#define MARK_STACK_MAX 512
#define LARGE_FLUSH_NS 10000000ull

static const char *const state_name[] = {"Unknown", "Running", "Paused", "Dead", "Cooling", "Warming"};

static int is_active(enum th_state s)
{
	return s == TH_RUNNING || s == TH_COOLING || s == TH_WARMING;
}

/* The model's first slot in thread.prv and cpu.prv: models set up before
 * it (in model-character order, e.g. fileio) registered theirs first. */
struct ovni_slots {
	int t, c;
	char **cpu_label; /* the affinity's value labels: each CPU's name */
	int ncpu_label;
	/* ovniemu's records (doc/paraver-output.md): first values written, 0
	 * too, and marks as its PRV_SKIPDUPNULL; 0 in a run of weft's own
	 * models (a legacy log), whose rows get changes only */
	int ovniemu;
	/* the last value queued on each CPU's flush column, PRV_NEVER before
	 * the first: the back's own last value (only this file writes the
	 * column), so a set repeating it is not queued (sink.h: -j workers
	 * drop repeats too). It repeats at 3 of 4 context switches on the
	 * synth. (The marks' repeated zeros are not predictable enough:
	 * the test cost more mispredictions than the ops it saved.) */
	int64_t *cflush;
};

static inline struct ovni_slots *slots_of(const struct emu *e)
{
	return e->models.state[mcv_index('O')];
}

static inline int ovniemu_records(const struct emu *e)
{
	return ((const struct ovni_slots *) e->models.state[mcv_index('O')])->ovniemu;
}

static inline int ts(const struct emu *e, int k)
{
	return ((const struct ovni_slots *) e->models.state[mcv_index('O')])->t + k;
}

static inline int cs(const struct emu *e, int k)
{
	return ((const struct ovni_slots *) e->models.state[mcv_index('O')])->c + k;
}

/* ---- rows ------------------------------------------------------------- */

/* A mark column's value: with ovniemu's records every value is written, a
 * repeated 0 not (PRV_SKIPDUPNULL); else only changes. */
static inline void put_mark(int ovniemu, struct prv_file *f, int row, int slot, int64_t v)
{
	if (v && ovniemu)
		prv_punct(f, row, slot, v);
	else
		prv_set(f, row, slot, v);
}

/* The rows show what the model holds; each column is written only when
 * what it shows changed (the shown_* fields remember it). Flushes and
 * marks of shown threads are written by their handlers directly. */
static void thread_row(struct emu *e, struct emu_thread *t)
{
	int r = t->row;
	/* the file and slot base in locals: an op's byte stores could alias
	 * them, and they would be read again for every op */
	int w = e->out.writing, base = ts(e, 0);
	struct prv_file *f = &e->out.prv[EMU_THREAD_FILE];
	uint32_t cpu = t->cpu ? (uint32_t) t->cpu->row + 1 : 0;
	if (cpu != t->shown_cpu) {
		t->shown_cpu = cpu;
		if (w) {
			prv_cpu(f, r, cpu);
			prv_set(f, r, base + OT_AFFINITY, cpu);
		}
	}
	if (t->state == t->shown_state)
		return;
	t->shown_state = t->state;
	emu_model_state(e, t, 'O', (uint32_t) t->state);
	if (e->eng.state)
		engine_thread_state(e, t); /* channels shown while it runs */
	if (w)
		prv_set(f, r, base + OT_STATE, t->state);
	int act = is_active(t->state);
	int act_changed = act != t->marks_act;
	t->marks_act = act;
	if (!w)
		return;
	/* the tid changes with activity (first written when the thread is
	 * first active: ovniemu's channel starts as none); as ovniemu's
	 * tracks, every state change shows the marks again, a repeated value
	 * written (their PRV_SKIPDUPNULL), a repeated 0 not */
	if (act_changed)
		prv_set(f, r, base + OT_TID, act ? t->sys->tid : 0);
	/* ovniemu_records in a local: read again after every op otherwise */
	int oe = ovniemu_records(e);
	if (!act_changed && !oe)
		return;
	for (int k = 0, n = e->marks.n; k < n; k++)
		put_mark(oe, f, r, base + OT_MARK0 + k, act ? t->mark[k] : 0);
}

static void cpu_row(struct emu *e, struct emu_cpu *c)
{
	int n = 0;
	struct emu_thread *run = NULL;
	for (int i = 0; i < c->nth; i++)
		if (c->th[i]->state == TH_RUNNING) {
			n++;
			run = c->th[i];
		}
	c->nrunning = n;
	c->running = n == 1 ? run : NULL;
	run = c->running;
	int r = c->row;
	int w = e->out.writing, base = cs(e, 0); /* locals: see thread_row */
	struct prv_file *f = &e->out.prv[EMU_CPU_FILE];
	/* columns in ovniemu's order: pid, tid, nrun, flush, marks */
	/* as ovniemu's channels, which start as none: the running thread's
	 * columns are first written when a thread first runs there, the
	 * count at the CPU's first update, 0 included */
	int first = !c->shown;
	c->shown = 1;
	int new_run = run != c->marks_of;
	if (new_run && w) {
		prv_set(f, r, base + OC_PID, run ? run->sys->proc->pid : 0);
		prv_set(f, r, base + OC_TID, run ? run->sys->tid : 0);
	}
	if (n != c->shown_nrun || (first && ovniemu_records(e))) {
		c->shown_nrun = n;
		if (w)
			prv_set(f, r, base + OC_NRUN, n);
	}
	if (!new_run)
		return;
	c->marks_of = run;
	if (!w)
		return;
	struct ovni_slots *sl = slots_of(e);
	int oe = sl->ovniemu; /* locals: see thread_row */
	int64_t *lflush = &sl->cflush[r];
	int64_t fl = run ? run->flushing : 0;
	if (fl != *lflush) {
		*lflush = fl;
		prv_set(f, r, base + OC_FLUSH, fl);
	}
	for (int k = 0, nm = e->marks.n; k < nm; k++)
		put_mark(oe, f, r, base + OC_MARK0 + k, run ? run->mark[k] : 0);
	/* the model files' channels CPU rows show (the kernel's context switch) */
	if (e->eng.s)
		engine_cpu_run(e, c, run);
}

/* A physical CPU runs at most one thread (doc/models/ovni.md, Checks). */
static int check_cpu(struct emu *e, struct emu_cpu *c, struct weft_err *err)
{
	if (c->sys->is_virtual || c->nrunning <= 1)
		return 0;
	return emu_model_error(e, err, "physical cpu %lld (phyid %lld) of loom %s has %d threads running at once",
			       (long long) c->sys->index, (long long) c->sys->phyid, c->sys->loom->name,
			       c->nrunning);
}

static void cpu_add(struct emu_cpu *c, struct emu_thread *t)
{
	if (c->nth == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 4;
		c->th = weft_xrealloc(c->th, (size_t) c->cap * sizeof(*c->th));
	}
	c->th[c->nth++] = t;
	t->cpu = c;
}

static void cpu_remove(struct emu_cpu *c, struct emu_thread *t)
{
	for (int i = 0; i < c->nth; i++)
		if (c->th[i] == t) {
			memmove(&c->th[i], &c->th[i + 1], (size_t) (c->nth - i - 1) * sizeof(*c->th));
			c->nth--;
			break;
		}
	t->cpu = NULL;
}

static struct emu_thread *cur(struct emu *e, const struct weft_ev *ev)
{
	return &e->sys.th[ev->stream->index];
}

static struct emu_cpu *cpu_by_index(struct emu *e, struct emu_thread *t, int64_t index)
{
	struct weft_cpu *c = sys_cpu_by_index(t->sys->proc->loom, index);
	return c ? &e->sys.cpu[c->gindex] : NULL;
}

/* ---- thread life cycle -------------------------------------------------- */

int ovni_ohx(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct emu_thread *t = cur(e, ev);
	if (t->state != TH_UNKNOWN && t->state != TH_DEAD)
		return emu_model_error(e, err, "thread %lld is %s: expected it not started (Unknown) or Dead",
				       (long long) t->sys->tid, state_name[t->state]);
	int64_t index = ev_field(in, 0, ev);
	struct emu_cpu *c = cpu_by_index(e, t, index);
	if (!c)
		return emu_model_error(e, err, "cannot find cpu with index %lld in loom %s (it has %d cpus)",
				       (long long) index, t->sys->proc->loom->name, t->sys->proc->loom->ncpus);
	t->state = TH_RUNNING;
	cpu_add(c, t);
	cpu_row(e, c);
	thread_row(e, t);
	return check_cpu(e, c, err);
}

int ovni_ohc_create(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) e, (void) ev, (void) in, (void) err;
	return 0; /* informational: the new thread announces itself with OHx */
}

/* Allowed transitions by value character: from-set bitmask and target. */
static const struct {
	char val;
	unsigned from; /* bit per enum th_state */
	enum th_state to;
} transitions[] = {
	{'p', 1u << TH_RUNNING | 1u << TH_COOLING, TH_PAUSED},
	{'r', 1u << TH_PAUSED | 1u << TH_WARMING, TH_RUNNING},
	{'c', 1u << TH_RUNNING, TH_COOLING},
	{'w', 1u << TH_PAUSED, TH_WARMING},
	{'e', 1u << TH_RUNNING | 1u << TH_COOLING, TH_DEAD},
};

int ovni_state(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct emu_thread *t = cur(e, ev);
	size_t k = 0;
	while (transitions[k].val != (char) ev->val)
		k++;
	if (!(transitions[k].from & (1u << t->state))) {
		char from[64] = "";
		for (int s = 0; s <= TH_WARMING; s++)
			if (transitions[k].from & (1u << s)) {
				if (from[0])
					strcat(from, " or ");
				strcat(from, state_name[s]);
			}
		return emu_model_error(e, err, "thread %lld is %s: expected %s", (long long) t->sys->tid,
				       state_name[t->state], from);
	}
	t->state = transitions[k].to;
	struct emu_cpu *c = t->cpu;
	if (t->state == TH_DEAD && c)
		cpu_remove(c, t);
	if (c)
		cpu_row(e, c);
	thread_row(e, t);
	return c ? check_cpu(e, c, err) : 0;
}

/* ---- affinity ------------------------------------------------------------ */

static int move(struct emu *e, struct emu_thread *t, struct emu_cpu *to, struct weft_err *err)
{
	struct emu_cpu *from = t->cpu;
	cpu_remove(from, t);
	cpu_add(to, t);
	cpu_row(e, from);
	cpu_row(e, to);
	thread_row(e, t);
	return check_cpu(e, to, err);
}

int ovni_oas(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct emu_thread *t = cur(e, ev);
	if (!t->cpu)
		return emu_model_error(e, err, "thread %lld has no cpu (state %s): expected one before OAs",
				       (long long) t->sys->tid, state_name[t->state]);
	if (!is_active(t->state))
		return emu_model_error(e, err, "thread %lld is %s: expected it active (Running, Cooling or Warming)",
				       (long long) t->sys->tid, state_name[t->state]);
	int64_t index = ev_field(in, 0, ev);
	struct emu_cpu *c = cpu_by_index(e, t, index);
	if (!c)
		return emu_model_error(e, err, "cannot find cpu with index %lld in loom %s",
				       (long long) index, t->sys->proc->loom->name);
	if (c == t->cpu)
		return 0; /* moving to the cpu it is on is a no-op */
	return move(e, t, c, err);
}

int ovni_oar(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct emu_thread *t = cur(e, ev);
	int64_t index = ev_field(in, 0, ev);
	int64_t tid = ev_field(in, 1, ev);
	struct emu_thread *r = emu_find_thread(e, t, tid);
	if (!r)
		return emu_model_error(e, err, "thread %lld not found in process %lld or loom %s",
				       (long long) tid, (long long) t->sys->proc->pid, t->sys->proc->loom->name);
	if (r->state == TH_DEAD || r->state == TH_UNKNOWN || !r->cpu)
		return emu_model_error(e, err, "thread %lld is %s: expected a started, live thread with a cpu",
				       (long long) tid, state_name[r->state]);
	struct emu_cpu *c = cpu_by_index(e, r, index);
	if (!c)
		return emu_model_error(e, err, "cannot find cpu with index %lld in loom %s",
				       (long long) index, r->sys->proc->loom->name);
	if (c == r->cpu)
		return emu_model_error(e, err, "thread %lld is already on cpu %lld: expected another cpu",
				       (long long) tid, (long long) index);
	return move(e, r, c, err);
}

int ovni_ocn(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) e, (void) ev, (void) in, (void) err;
	return 0; /* obsolete cpu count: the metadata has the cpus */
}

int ovni_nop(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) e, (void) ev, (void) in, (void) err;
	return 0; /* unordered-region markers: the reader already sorted them */
}

/* ---- flushes, bursts ------------------------------------------------------ */

int ovni_flush(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct emu_thread *t = cur(e, ev);
	int start = ev->val == '[';
	if (t->flushing == start)
		return emu_model_error(e, err, "thread %lld %s: expected %s", (long long) t->sys->tid,
				       start ? "is already flushing" : "is not flushing",
				       start ? "OF] before another OF[" : "OF[ before OF]");
	t->flushing = start;
	if (start) {
		t->flush_start = e->run.now;
	} else if (t->state == TH_RUNNING && e->run.now - t->flush_start > LARGE_FLUSH_NS) {
		emu_warn(e, "thread %lld spent %.1f ms flushing its buffer while running (at %llu ns)",
			 (long long) t->sys->tid, (double) (e->run.now - t->flush_start) / 1e6,
			 (unsigned long long) e->run.now);
	}
	/* only the flush columns change */
	emu_out(e, EMU_THREAD_FILE, t->row, ts(e, OT_FLUSH), t->flushing);
	if (t->cpu && t->cpu->running == t && e->out.writing) {
		slots_of(e)->cflush[t->cpu->row] = t->flushing;
		prv_set(&e->out.prv[EMU_CPU_FILE], t->cpu->row, cs(e, OC_FLUSH), t->flushing);
	}
	return 0;
}


/* ---- marks ---------------------------------------------------------------- */

/* The payload every OM event has (i64 value, i32 type; the emulator checked
 * its size), its mark's slot and thread. Nonzero when the event is not
 * usable: the handler returns m->rc (the error, or 0 with --keep-going). */
struct mark_ev {
	struct emu_thread *t;
	int64_t value, type;
	int slot, stacked;
	int rc;
};

static int mark_decode(struct emu *e, const struct weft_ev *ev, struct mark_ev *m, struct weft_err *err)
{
	int swap = ev->stream->swap;
	m->t = cur(e, ev);
	m->value = (int64_t) obs_u64(ev->payload, swap);
	m->type = (int32_t) obs_u32(ev->payload + 8, swap);
	m->slot = m->type >= 0 && m->type < 100 ? e->marks.slot[m->type] : -1;
	if (__builtin_expect(m->slot < 0, 0)) {
		m->rc = emu_model_error(e, err, "cannot find mark with type %lld: expected a type declared in "
					"ovni.mark of stream.json", (long long) m->type);
		return 1;
	}
	if (__builtin_expect(m->value == 0, 0)) {
		m->rc = emu_model_error(e, err, "mark value cannot be zero (type %lld)", (long long) m->type);
		return 1;
	}
	m->stacked = e->tr.sys.marks[m->type].stack;
	return 0;
}

/* Only this mark's columns change. */
static void mark_show(struct emu *e, const struct mark_ev *m)
{
	if (!e->out.writing)
		return;
	struct emu_thread *t = m->t;
	int64_t v = t->mark[m->slot];
	struct emu_cpu *c = t->cpu;
	int show_cpu = c && c->running == t;
	int crow = show_cpu ? c->row : 0, cslot = cs(e, OC_MARK0 + m->slot); /* before any op: see thread_row */
	int oe = ovniemu_records(e);
	/* an inactive thread's row shows none (ovniemu writes nothing, weft's
	 * own rule a 0 that is no change) */
	if (is_active(t->state) || !oe)
		put_mark(oe, &e->out.prv[EMU_THREAD_FILE], t->row, ts(e, OT_MARK0 + m->slot),
			 is_active(t->state) ? v : 0);
	if (show_cpu)
		put_mark(oe, &e->out.prv[EMU_CPU_FILE], crow, cslot, v);
}

static int mark_not_single(struct emu *e, const struct weft_ev *ev, const struct mark_ev *m,
			   struct weft_err *err)
{
	return emu_model_error(e, err, "%s on mark type %lld, which is single: expected OM=",
			       ev->val == '[' ? "OM[" : "OM]", (long long) m->type);
}

int ovni_mark_set(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct mark_ev m;
	if (mark_decode(e, ev, &m, err))
		return m.rc;
	if (m.stacked)
		return emu_model_error(e, err, "OM= on mark type %lld, which is a stack: expected OM[ or OM]",
				       (long long) m.type);
	m.t->mark[m.slot] = m.value;
	mark_show(e, &m);
	return 0;
}

/* The stack an OM[ or OM] works on; NULL when the handler must return
 * m->rc instead. */
static struct mark_stack *mark_stack_of(struct emu *e, const struct weft_ev *ev, struct mark_ev *m,
					struct weft_err *err)
{
	if (mark_decode(e, ev, m, err))
		return NULL;
	if (!m->stacked) {
		m->rc = mark_not_single(e, ev, m, err);
		return NULL;
	}
	return &m->t->stack[m->slot];
}

int ovni_mark_push(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct mark_ev m;
	struct mark_stack *s = mark_stack_of(e, ev, &m, err);
	if (!s)
		return m.rc;
	if (s->n == MARK_STACK_MAX)
		return emu_model_error(e, err, "mark type %lld stack is %d deep: expected pops", (long long) m.type,
				       MARK_STACK_MAX);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = weft_xrealloc(s->v, (size_t) s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = m.value;
	m.t->mark[m.slot] = m.value;
	mark_show(e, &m);
	return 0;
}

int ovni_mark_pop(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct mark_ev m;
	struct mark_stack *s = mark_stack_of(e, ev, &m, err);
	if (!s)
		return m.rc;
	if (s->n == 0)
		return emu_model_error(e, err, "pop of value %lld from mark type %lld: the stack is empty",
				       (long long) m.value, (long long) m.type);
	if (s->v[s->n - 1] != m.value)
		return emu_model_error(e, err, "pop of value %lld from mark type %lld: expected the top "
				       "of the stack, %lld", (long long) m.value, (long long) m.type,
				       (long long) s->v[s->n - 1]);
	s->n--;
	m.t->mark[m.slot] = s->n ? s->v[s->n - 1] : 0;
	mark_show(e, &m);
	return 0;
}

/* ---- setup, end, labels ----------------------------------------------------- */

int ovni_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct ovni_slots *sl = weft_xcalloc(1, sizeof(*sl));
	sl->t = e->out.slots.n[EMU_THREAD_FILE];
	sl->c = e->out.slots.n[EMU_CPU_FILE];
	e->models.state[mcv_index('O')] = sl;
	/* the affinity's labels: each CPU by its name */
	sl->cpu_label = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*sl->cpu_label));
	struct sink_label *cl = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*cl));
	for (int i = 0; i < e->sys.ncpu; i++) {
		const struct weft_cpu *c = e->sys.cpu[i].sys;
		sl->cpu_label[i] = c->is_virtual
			? weft_xasprintf("vCPU %d.* %s", c->loom->gindex, c->loom->name)
			: weft_xasprintf("CPU %d.%lld %s", c->loom->gindex, (long long) c->phyid, c->loom->name);
		cl[i] = (struct sink_label){.value = i + 1, .label = sl->cpu_label[i]};
	}
	sl->ncpu_label = e->sys.ncpu;
	static const struct sink_label states[] = {
		{.value = TH_UNKNOWN, .label = "Unknown"}, {.value = TH_RUNNING, .label = "Running"},
		{.value = TH_PAUSED, .label = "Paused"},   {.value = TH_DEAD, .label = "Dead"},
		{.value = TH_COOLING, .label = "Cooling"}, {.value = TH_WARMING, .label = "Warming"},
	};
	static const struct sink_label flushing[] = {{.value = 1, .label = "Flushing"}};
	/* its channels, by their keys in its Paraver table (events.c) */
	static const struct {
		int file;
		const char *key, *title;
		int labels; /* 0 none, 1 the CPUs, 2 the states, 3 flushing */
	} chans[] = {
		{EMU_THREAD_FILE, "cpu", "Thread: CPU affinity", 1},
		{EMU_THREAD_FILE, "state", "Thread: thread state", 2},
		{EMU_THREAD_FILE, "tid", "Thread: TID of the ACTIVE thread", 0},
		{EMU_THREAD_FILE, "flush", "Flushing ovni buffer", 3},
		{EMU_CPU_FILE, "pid", "CPU: PID of the RUNNING thread", 0},
		{EMU_CPU_FILE, "tid", "CPU: TID of the RUNNING thread", 0},
		{EMU_CPU_FILE, "nrun", "CPU: Number of RUNNING threads", 0},
		{EMU_CPU_FILE, "flush", "Flushing ovni buffer of the RUNNING thread", 3},
	};
	for (size_t k = 0; k < ARRAY_SIZE(chans); k++) {
		int s = emu_slot(e, chans[k].file, chans[k].title);
		struct emu_slot_decl d = {.key = chans[k].key, .kind = SINK_VALUE};
		if (chans[k].labels == 1) {
			d.labels = cl;
			d.nlabels = e->sys.ncpu;
		} else if (chans[k].labels == 2) {
			d.labels = states;
			d.nlabels = (int) ARRAY_SIZE(states);
		} else if (chans[k].labels == 3) {
			d.labels = flushing;
			d.nlabels = 1;
		}
		emu_slot_declare(e, chans[k].file, s, &d);
	}
	free(cl);
	/* the marks the streams declare: type 100 + the mark's, labelled as
	 * the trace labels them (the values a Paraver event can hold) */
	for (int k = 0; k < e->marks.n; k++) {
		const struct weft_mark_type *m = &e->tr.sys.marks[e->marks.type[k]];
		struct sink_label *ml = weft_xcalloc((size_t) m->nlabels + 1, sizeof(*ml));
		int n = 0;
		for (int j = 0; j < m->nlabels; j++)
			if (m->labels[j].value >= INT32_MIN && m->labels[j].value <= INT32_MAX)
				ml[n++] = (struct sink_label){.value = m->labels[j].value, .label = m->labels[j].label};
		struct emu_slot_decl d = {.key = "mark",
					  .member = e->marks.type[k],
					  .kind = SINK_VALUE,
					  .labels = ml,
					  .nlabels = n};
		emu_slot_declare(e, EMU_THREAD_FILE, emu_slot(e, EMU_THREAD_FILE, m->title), &d);
		emu_slot_declare(e, EMU_CPU_FILE, emu_slot(e, EMU_CPU_FILE, m->title), &d);
		free(ml);
	}
	/* ovniemu writes each of its channels' first value, even 0; a run of
	 * weft's own models keeps their rule (changes only) */
	sl->ovniemu = 1;
	for (int m = 0; m < e->models.n; m++)
		if (!e->models.def[m]->hooks->ovniemu)
			sl->ovniemu = 0;
	for (int f = 0; sl->ovniemu && f < EMU_NFILES; f++)
		for (int s = f == EMU_THREAD_FILE ? sl->t : sl->c; s < e->out.slots.n[f]; s++)
			emu_slot_fresh(e, f, s);
	sl->cflush = weft_xmalloc(((size_t) e->sys.ncpu + 1) * sizeof(*sl->cflush));
	for (int i = 0; i <= e->sys.ncpu; i++)
		sl->cflush[i] = PRV_NEVER;
	for (int i = 0; i < e->sys.nth; i++) {
		e->sys.th[i].mark = weft_xcalloc((size_t) e->marks.n + 1, sizeof(int64_t));
		e->sys.th[i].stack = weft_xcalloc((size_t) e->marks.n + 1, sizeof(struct mark_stack));
	}
	return 0;
}

/* A check of -l at the end that ovniemu does not make: a model error with
 * --strict, else a warning (ovniemu accepts the trace). */
static int lint_end(struct emu *e, struct weft_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int lint_end(struct emu *e, struct weft_err *err, const char *fmt, ...)
{
	char what[1024];
	WEFT_VFORMAT(what, fmt);
	if (e->o.strict)
		return emu_model_error(e, err, "%s (-l --strict)", what);
	emu_warn(e, "%s (an error with --strict)", what);
	return 0;
}

int ovni_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	if (e->out.writing && !e->o.quiet)
		ovni_bursts_report(e);
	for (int i = e->part.th_lo; i < e->part.th_hi; i++) {
		struct emu_thread *t = &e->sys.th[i];
		e->run.ev = NULL;
		if (!t->sys->req[mcv_index('O')])
			continue; /* an imported stream that does not use the ovni model */
		if (t->state != TH_DEAD &&
		    emu_model_error(e, err, "thread %lld (loom %s, pid %lld) is %s at the end of the trace: "
				    "expected Dead (OHe)", (long long) t->sys->tid, t->sys->proc->loom->name,
				    (long long) t->sys->proc->pid, state_name[t->state]) < 0)
			return -1;
		if (!e->o.lint)
			continue;
		/* ovniemu's -l checks neither: weft's own lint, an error only
		 * under --strict */
		for (int k = 0; k < e->marks.n; k++)
			if (t->stack[k].n &&
			    lint_end(e, err, "thread %lld ends with %d value(s) on the stack of mark type %d",
				     (long long) t->sys->tid, t->stack[k].n, e->marks.type[k]) < 0)
				return -1;
		if (t->flushing &&
		    lint_end(e, err, "thread %lld ends while flushing (OF[ without OF])", (long long) t->sys->tid) < 0)
			return -1;
	}
	return 0;
}

void ovni_free(struct emu *e, const struct weft_model_def *self)
{
	(void) self;
	ovni_bursts_free(e);
	for (int i = 0; i < e->sys.nth; i++) {
		struct emu_thread *t = &e->sys.th[i];
		if (t->stack)
			for (int k = 0; k < e->marks.n; k++)
				free(t->stack[k].v);
		free(t->stack);
		free(t->mark);
	}
	struct ovni_slots *sl = e->models.state[mcv_index('O')];
	for (int i = 0; sl && i < sl->ncpu_label; i++)
		free(sl->cpu_label[i]);
	if (sl) {
		free(sl->cpu_label);
		free(sl->cflush);
	}
	free(sl);
	e->models.state[mcv_index('O')] = NULL;
}
