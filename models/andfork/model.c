/* and-fork/join model (A): per agent a stack of frames. A frame is a goal
 * the agent runs (the root goal, a task of an and-node, or the continuation
 * after a JOIN); FORK turns the top frame into "waiting for the join of
 * node N" and JOIN turns it back. The state of an agent is its top frame:
 * Running goal, Waiting for join, or Idle when the stack is empty. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "andfork.h"
#include "visandor/common.h"

#define AF_MAX_COMM_TASKS 4096 /* communication lines for the first tasks of a fork */
#define AF_MAX_WARN 20

struct af_node {
	uint64_t raw;      /* Nodeid in the log */
	int id;            /* dense id, from 1 */
	int32_t ntasks;
	int forker;        /* stream index of the agent that forked it */
	int depth;         /* depth of its tasks */
	int open;
	int32_t nfin;      /* FINISH_GOALs seen */
	uint64_t *send;    /* per task: FORK -> START_GOAL line, 0 none (one block with fin, finisher) */
	uint64_t *fin;     /* per task: FINISH_GOAL -> JOIN line, 0 none */
	int *finisher;
	int ncomm;
	UT_hash_handle hh; /* in af->open, by raw */
};

struct af_frame {
	int goal;     /* dense id of the node whose task runs, 0 for the root goal */
	int32_t task; /* -1 for the root goal */
	int depth;
	int wait;     /* dense id of the node it waits for, 0 when running */
};

struct af_agent {
	struct af_frame *f;
	int n, cap;
};

#define AF_PCF_NODES 100000 /* the .pcf labels the first nodes by their Nodeid */

struct af {
	int nnodes;            /* and-nodes created (dense ids 1..nnodes) */
	uint64_t *label_raw;   /* Nodeid of the first AF_PCF_NODES, by dense id - 1 */
	int cap;
	struct af_node *open;  /* hash by raw; a node is freed at its JOIN */
	struct af_agent *ag;   /* by stream index */
	int rows_done;
	uint64_t nwarn;
	int s_node, s_task, s_depth; /* slots */
	struct vao_common vc;   /* activity, WAM, other codes (shared with the other model) */
	int *cpu_row;          /* per agent: its CPU's row in cpu.prv, -1 none */
	int sc_node, sc_agent;  /* cpu.prv slots */
	uint8_t *other_set;    /* punctual value written at other_time */
	uint64_t *other_time;
};

static struct af *st(struct emu *e)
{
	return e->mstate['A' - 0x21];
}

static struct emu_thread *cur(struct emu *e, const struct weft_ev *ev)
{
	return &e->th[ev->stream->index];
}

static int agent_no(const struct emu_thread *t)
{
	return (int) t->sys->tid - 1;
}

/* A consistency check: a warning, or an error with --strict. */
__attribute__((format(printf, 3, 4))) static int check(struct emu *e, struct weft_err *err,
							const char *fmt, ...)
{
	char what[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (e->o.strict)
		return emu_model_error(e, err, "%s (--strict)", what);
	struct af *a = st(e);
	a->nwarn++;
	if (e->o.quiet)
		return 0;
	if (a->nwarn <= AF_MAX_WARN)
		weft_warn("and-fork: agent %d at %llu ns: %s", agent_no(cur(e, e->ev)),
			  (unsigned long long) e->now, what);
	else if (a->nwarn == AF_MAX_WARN + 1)
		weft_warn("and-fork: more check warnings follow; only the count is reported");
	return 0;
}

static void show(struct emu *e, struct emu_thread *t)
{
	struct af *a = st(e);
	struct af_agent *g = &a->ag[t->stream->index];
	const struct af_frame *f = g->n ? &g->f[g->n - 1] : NULL;
	uint32_t s = !f ? AF_ST_IDLE : f->wait ? AF_ST_WAITING : AF_ST_RUNNING;
	int cr = a->cpu_row[t->stream->index];
	emu_model_state(e, t, 'A', s);
	if (cr >= 0)
		emu_out(e, EMU_CPU_FILE, cr, a->sc_node, !f ? 0 : f->wait ? f->wait : f->goal);
	emu_out(e, EMU_THREAD_FILE, t->row, a->s_node, !f ? 0 : f->wait ? f->wait : f->goal);
	emu_out(e, EMU_THREAD_FILE, t->row, a->s_task, f && !f->wait ? f->task + 1 : 0);
	emu_out(e, EMU_THREAD_FILE, t->row, a->s_depth, f ? f->depth : 0);
}

/* Every agent has a row from the first event on: its CPU, and Idle. */
static void rows(struct emu *e)
{
	struct af *a = st(e);
	if (a->rows_done || !vao_agent_cpus(e, 'A', a->cpu_row, a->sc_agent))
		return;
	a->rows_done = 1;
	for (int i = 0; i < e->nth; i++)
		if (e->th[i].sys->req['A' - 0x21])
			show(e, &e->th[i]);
}

/* Reset the punctual "other code" values written at an earlier instant. */
static void enter(struct emu *e)
{
	struct af *a = st(e);
	rows(e);
	struct emu_thread *t = cur(e, e->ev);
	int i = t->stream->index;
	if (a->other_set[i] && a->other_time[i] < e->now) {
		emu_out(e, EMU_THREAD_FILE, t->row, a->vc.s_other, 0);
		a->other_set[i] = 0;
	}
}

static struct af_frame *push(struct af_agent *g)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 8;
		g->f = weft_xrealloc(g->f, (size_t) g->cap * sizeof(*g->f));
	}
	struct af_frame *f = &g->f[g->n++];
	memset(f, 0, sizeof(*f));
	return f;
}

static struct af_node *find_open(struct af *a, uint64_t raw)
{
	struct af_node *n;
	HASH_FIND(hh, a->open, &raw, sizeof(raw), n);
	return n;
}

int af_time(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	struct af *a = st(e);
	if (ev->val == '[' && e->state_owner != 'A') {
		e->state_owner = 'A'; /* START_TIME is the flag's model: it owns the states */
		a->rows_done = 0;
	}
	enter(e);
	struct emu_thread *t = cur(e, ev);
	struct af_agent *g = &a->ag[t->stream->index];
	if (ev->val == '[' && g->n == 0) {
		struct af_frame *f = push(g);
		f->task = -1;
		f->depth = 1;
		show(e, t);
	}
	return 0;
}

int af_fork(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	enter(e);
	struct af *a = st(e);
	struct emu_thread *t = cur(e, ev);
	uint64_t raw = (uint64_t) ev_field(in, 0, ev);
	int32_t n = (int32_t) ev_field(in, 1, ev);
	if (find_open(a, raw))
		return emu_model_error(e, err, "FORK of and-node %llx, which is still open: expected a "
				       "Nodeid not in use (open nodes are joined first)", (unsigned long long) raw);
	int rc = 0;
	if (n <= 0 && (rc = check(e, err, "FORK of and-node %llx with %d tasks: expected at least 1",
				  (unsigned long long) raw, n)) != 0)
		return rc;
	struct af_agent *g = &a->ag[t->stream->index];
	struct af_frame *f = g->n ? &g->f[g->n - 1] : NULL;
	if (!f || f->wait) {
		f = push(g);
		f->task = -1;
		f->depth = 1;
	}
	if (a->nnodes < AF_PCF_NODES) {
		if (a->nnodes == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 64;
			a->label_raw = weft_xrealloc(a->label_raw, (size_t) a->cap * sizeof(*a->label_raw));
		}
		a->label_raw[a->nnodes] = raw;
	}
	a->nnodes++;
	struct af_node *nd = weft_xcalloc(1, sizeof(*nd));
	nd->raw = raw;
	nd->id = a->nnodes;
	nd->ntasks = n;
	nd->forker = t->stream->index;
	nd->depth = f->depth + 1;
	nd->open = 1;
	HASH_ADD(hh, a->open, raw, sizeof(nd->raw), nd);
	f->wait = nd->id;
	if (e->writing && n > 0) {
		nd->ncomm = n < AF_MAX_COMM_TASKS ? n : AF_MAX_COMM_TASKS;
		nd->send = weft_xcalloc((size_t) nd->ncomm, 2 * sizeof(uint64_t) + sizeof(int));
		nd->fin = nd->send + nd->ncomm;
		nd->finisher = (int *) (nd->fin + nd->ncomm);
		for (int k = 0; k < nd->ncomm; k++)
			nd->send[k] = emu_comm_send(e, t, 0, nd->id) + 1;
	}
	show(e, t);
	return 0;
}

static void drop(struct emu *e, uint64_t *id)
{
	if (*id) {
		emu_comm_drop(e, *id - 1);
		*id = 0;
	}
}

int af_goal(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	enter(e);
	struct af *a = st(e);
	struct emu_thread *t = cur(e, ev);
	struct af_agent *g = &a->ag[t->stream->index];
	uint64_t raw = (uint64_t) ev_field(in, 0, ev);
	int32_t task = (int32_t) ev_field(in, 1, ev);
	int start = ev->val == '[';
	const char *what = start ? "START_GOAL" : "FINISH_GOAL";
	struct af_node *nd = find_open(a, raw);
	int rc;
	if (!nd)
		return check(e, err, "%s of task %d of and-node %llx: no open FORK has that Nodeid "
			     "(unknown or already joined)", what, task, (unsigned long long) raw);
	if ((task < 0 || task >= nd->ntasks) &&
	    (rc = check(e, err, "%s of task %d of and-node %llx: expected a task from 0 to %d (the "
			"FORK has %d tasks)", what, task, (unsigned long long) raw, nd->ntasks - 1,
			nd->ntasks)) != 0)
		return rc;
	int inrange = task >= 0 && task < nd->ncomm;
	if (start) {
		struct af_frame *f = push(g);
		f->goal = nd->id;
		f->task = task;
		f->depth = nd->depth;
		if (inrange) {
			if (nd->forker != t->stream->index && nd->send[task])
				emu_comm_recv(e, nd->send[task] - 1, t, e->now, e->now);
			else
				drop(e, &nd->send[task]);
			nd->send[task] = 0;
		}
		show(e, t);
		return 0;
	}
	int k = g->n - 1;
	while (k >= 0 && !(g->f[k].goal == nd->id && g->f[k].task == task && !g->f[k].wait))
		k--;
	if (k < 0)
		return check(e, err, "FINISH_GOAL of task %d of and-node %llx: this agent did not START "
			     "it (no running START_GOAL with that Nodeid and task)", task,
			     (unsigned long long) raw);
	memmove(&g->f[k], &g->f[k + 1], (size_t) (g->n - k - 1) * sizeof(*g->f));
	g->n--;
	nd->nfin++;
	if (inrange && e->writing) {
		drop(e, &nd->fin[task]);
		if (nd->forker != t->stream->index) {
			nd->fin[task] = emu_comm_send(e, t, 0, nd->id) + 1;
			nd->finisher[task] = t->stream->index;
		}
	}
	show(e, t);
	return 0;
}

int af_join(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	enter(e);
	struct af *a = st(e);
	struct emu_thread *t = cur(e, ev);
	struct af_agent *g = &a->ag[t->stream->index];
	uint64_t raw = (uint64_t) ev_field(in, 0, ev);
	struct af_node *nd = find_open(a, raw);
	int rc;
	if (!nd)
		return check(e, err, "JOIN of and-node %llx: no open FORK has that Nodeid (unknown or "
			     "already joined)", (unsigned long long) raw);
	if (nd->nfin < nd->ntasks &&
	    (rc = check(e, err, "JOIN of and-node %llx after %d of its %d tasks finished: expected "
			"all tasks finished", (unsigned long long) raw, nd->nfin, nd->ntasks)) != 0)
		return rc;
	HASH_DEL(a->open, nd);
	nd->open = 0;
	int k = g->n - 1;
	while (k >= 0 && g->f[k].wait != nd->id)
		k--;
	if (k >= 0) {
		g->f[k].wait = 0;
	} else {
		/* joined by another agent: the forker stops waiting, this one continues */
		struct af_agent *o = &a->ag[nd->forker];
		struct af_frame saved = {0, -1, nd->depth - 1, 0};
		for (int j = o->n - 1; j >= 0; j--)
			if (o->f[j].wait == nd->id) {
				saved = o->f[j];
				memmove(&o->f[j], &o->f[j + 1], (size_t) (o->n - j - 1) * sizeof(*o->f));
				o->n--;
				break;
			}
		saved.wait = 0;
		*push(g) = saved;
		show(e, &e->th[nd->forker]);
	}
	for (int j = 0; j < nd->ncomm; j++) {
		drop(e, &nd->send[j]);
		if (nd->fin[j]) {
			if (nd->finisher[j] != t->stream->index)
				emu_comm_recv(e, nd->fin[j] - 1, t, e->now, e->now);
			else
				emu_comm_drop(e, nd->fin[j] - 1);
			nd->fin[j] = 0;
		}
	}
	free(nd->send);
	free(nd);
	show(e, t);
	return 0;
}

int af_busy(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e);
	vao_activity(e, &st(e)->vc, ev, in);
	return 0;
}

int af_wam(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e);
	vao_wam(e, &st(e)->vc, ev, in);
	return 0;
}

int af_other(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e);
	struct af *a = st(e);
	struct emu_thread *t = cur(e, ev);
	int i = t->stream->index;
	emu_out(e, EMU_THREAD_FILE, t->row, a->vc.s_other, ev_field(in, 0, ev));
	vao_note_code(&a->vc, (int32_t) ev_field(in, 0, ev));
	a->other_set[i] = 1;
	a->other_time[i] = e->now;
	return 0;
}

/* ---- setup, end, labels ------------------------------------------------------ */

/* thread.row: the row of an agent says which one it is (tid = agent + 1). */
static int agent_name(const struct emu *e, const struct emu_thread *t, char *buf, int n)
{
	(void) e;
	snprintf(buf, (size_t) n, "agent %lld", (long long) t->sys->tid - 1);
	return 1;
}

int af_setup(struct emu *e, struct weft_err *err)
{
	(void) err;
	struct af *a = weft_xcalloc(1, sizeof(*a));
	e->mstate['A' - 0x21] = a;
	e->thread_name = agent_name;
	a->ag = weft_xcalloc((size_t) e->nth + 1, sizeof(*a->ag));
	a->cpu_row = weft_xmalloc(((size_t) e->nth + 1) * sizeof(int));
	for (int i = 0; i <= e->nth; i++)
		a->cpu_row[i] = -1;
	a->sc_node = emu_slot(e, EMU_CPU_FILE, AF_T_NODE, "And-fork: current and-node of the agent");
	a->sc_agent = emu_slot(e, EMU_CPU_FILE, AF_T_AGENT, "And-fork: agent number + 1");
	a->other_set = weft_xcalloc((size_t) e->nth + 1, 1);
	a->other_time = weft_xcalloc((size_t) e->nth + 1, sizeof(uint64_t));
	a->s_node = emu_slot(e, EMU_THREAD_FILE, AF_T_NODE, "And-fork: current and-node");
	a->s_task = emu_slot(e, EMU_THREAD_FILE, AF_T_TASK, "And-fork: task number + 1");
	a->s_depth = emu_slot(e, EMU_THREAD_FILE, AF_T_DEPTH, "And-fork: nesting depth");
	a->vc.s_active = emu_slot(e, EMU_THREAD_FILE, AF_T_ACTIVE, "And-fork: agent activity");
	a->vc.s_nact = emu_slot(e, EMU_THREAD_FILE, AF_T_NACT, "And-fork: AGENT_BUSY/IDLE field 4");
	a->vc.s_wam = emu_slot(e, EMU_THREAD_FILE, AF_T_WAM, "And-fork: WAM id");
	a->vc.s_other = emu_slot(e, EMU_THREAD_FILE, AF_T_OTHER, "And-fork: other event code");
	/* an and-parallel log owns the thread states; with or-branch events as
	 * well, the model that receives START_TIME (the flag's) takes them */
	e->state_owner = 'A';
	return 0;
}

int af_finish(struct emu *e, struct weft_err *err)
{
	(void) err;
	struct af *a = st(e);
	if (a->nwarn && !e->o.quiet)
		weft_warn("and-fork: %llu check warnings (errors with --strict)", (unsigned long long) a->nwarn);
	return 0;
}

void af_pcf(struct emu *e, int file, struct strbuf *b)
{
	struct af *a = st(e);
	sb_printf(b, "EVENT_TYPE\n0 %d And-fork: current and-node%s\n", AF_T_NODE,
		  file == EMU_CPU_FILE ? " of the agent" : "");
	if (a->nnodes && a->nnodes <= AF_PCF_NODES) {
		sb_printf(b, "VALUES\n");
		for (int i = 0; i < a->nnodes; i++)
			sb_printf(b, "%d node %llx #%d\n", i + 1, (unsigned long long) a->label_raw[i], i + 1);
	}
	sb_printf(b, "\n");
	if (file != EMU_THREAD_FILE) {
		sb_printf(b, "EVENT_TYPE\n0 %d And-fork: agent number + 1\n\n", AF_T_AGENT);
		return;
	}
	sb_printf(b, "EVENT_TYPE\n0 %d And-fork: task number + 1\n\n", AF_T_TASK);
	sb_printf(b, "EVENT_TYPE\n0 %d And-fork: nesting depth\n\n", AF_T_DEPTH);
	sb_printf(b, "EVENT_TYPE\n0 %d And-fork: agent activity\nVALUES\n1 Busy (AGENT_BUSY)\n"
		     "2 Looking for work (AGENT_IDLE)\n\n", AF_T_ACTIVE);
	sb_printf(b, "EVENT_TYPE\n0 %d And-fork: AGENT_BUSY/IDLE field 4\n\n", AF_T_NACT);
	sb_printf(b, "EVENT_TYPE\n0 %d And-fork: WAM id\n\n", AF_T_WAM);
	sb_printf(b, "EVENT_TYPE\n0 %d And-fork: other event code\n", AF_T_OTHER);
	vao_pcf_codes(&a->vc, b);
	sb_printf(b, "\n");
}

void af_free(struct emu *e)
{
	struct af *a = st(e);
	if (!a)
		return;
	struct af_node *nd, *tmp;
	HASH_ITER(hh, a->open, nd, tmp) {
		HASH_DEL(a->open, nd);
		free(nd->send);
		free(nd);
	}
	free(a->label_raw);
	for (int i = 0; i < e->nth; i++)
		free(a->ag[i].f);
	free(a->ag);
	free(a->cpu_row);
	free(a->other_set);
	free(a->other_time);
	free(a);
	e->mstate['A' - 0x21] = NULL;
}
