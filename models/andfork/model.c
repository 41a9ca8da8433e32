/* SPDX-License-Identifier: GPL-3.0-or-later */
/* and-fork/join model (A): per agent a stack of frames. A frame is a goal
 * the agent runs (the root goal, a task of an and-node, or the continuation
 * after a JOIN); FORK turns the top frame into "waiting for the join of
 * node N" and JOIN turns it back. The state of an agent is its top frame:
 * Running goal, Waiting for join, or Idle when the stack is empty.
 * Open nodes are found by Nodeid in O(1) (visandor/open.h); their slots and
 * per-task arrays are reused, so no event allocates once the trace has
 * reached its most nodes open at once. Rows get only the values that
 * changed (vao_set). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "andfork/andfork.h"
#include "visandor/common.h"
#include "visandor/open.h"

#define AF_MAX_COMM_TASKS 4096 /* communication lines for the first tasks of a fork */

struct af_node {
	uint64_t raw;      /* Nodeid in the log */
	int id;            /* dense id, from 1 */
	int32_t ntasks;
	int forker;        /* stream index of the agent that forked it */
	int depth;         /* depth of its tasks */
	int32_t nfin;      /* FINISH_GOALs seen */
	int ncomm;         /* tasks with communication lines */
	/* per task, kept with the slot for the next node: FORK -> START_GOAL
	 * line + 1 (0 none), FINISH_GOAL -> JOIN line + 1, the finisher; one
	 * block of comm_cap tasks */
	uint64_t *send;
	uint64_t *fin;
	int *finisher;
	int comm_cap;
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

/* What an agent's thread row shows now (vao_set). */
struct af_shown {
	int64_t node, task, depth;
};

struct af {
	int nnodes;            /* and-nodes created (dense ids 1..nnodes) */
	uint64_t *label_raw;   /* Nodeid of the first AF_PCF_NODES, by dense id - 1 */
	char *node_labels; /* their value labels (vao_label_nodes) */
	int cap;
	struct vao_open open;  /* struct af_node by raw; a node leaves at its JOIN */
	struct af_agent *ag;   /* by stream index */
	struct af_shown *shown; /* by stream index */
	int64_t *cpu_shown;    /* by cpu.prv row: the node shown */
	int rows_done;
	int s_node, s_task, s_depth; /* slots */
	struct vao_common vc;   /* activity, WAM, other codes (shared with the other model) */
	int *cpu_row;          /* per agent: its CPU's row in cpu.prv, -1 none */
	int sc_node, sc_agent;  /* cpu.prv slots */
	uint8_t *other_set;    /* punctual value written at other_time */
	uint64_t *other_time;
};

static struct af *st(struct emu *e)
{
	return e->models.state[mcv_index('A')];
}

static struct emu_thread *cur(struct emu *e, const struct weft_ev *ev)
{
	return &e->sys.th[ev->stream->index];
}

/* A consistency check: a warning, or an error with --strict. */
#define check(e, err, ...) vao_check(e, err, &st(e)->vc, "and-fork", __VA_ARGS__)

/* The agent's state, node, task and depth on its rows (inline: every
 * event ends here). */
static inline __attribute__((always_inline)) void show(struct emu *e, struct emu_thread *t, int i)
{
	struct af *a = st(e);
	struct af_agent *g = &a->ag[i];
	const struct af_frame *f = g->n ? &g->f[g->n - 1] : NULL;
	uint32_t s = !f ? AF_ST_IDLE : f->wait ? AF_ST_WAITING : AF_ST_RUNNING;
	int64_t node = !f ? 0 : f->wait ? f->wait : f->goal;
	int cr = a->cpu_row[i];
	emu_model_state(e, t, 'A', s);
	if (!e->out.writing)
		return;
	if (cr >= 0)
		vao_put(&e->out.prv[EMU_CPU_FILE], cr, a->sc_node, &a->cpu_shown[cr], node);
	struct af_shown *w = &a->shown[i];
	struct prv_file *pf = &e->out.prv[EMU_THREAD_FILE];
	vao_put(pf, t->row, a->s_node, &w->node, node);
	vao_put(pf, t->row, a->s_task, &w->task, f && !f->wait ? f->task + 1 : 0);
	vao_put(pf, t->row, a->s_depth, &w->depth, f ? f->depth : 0);
}

/* Every agent has a row from the first event on: its CPU, and Idle. */
static void rows(struct emu *e)
{
	struct af *a = st(e);
	if (a->rows_done || !vao_agent_cpus(e, 'A', a->cpu_row, a->sc_agent))
		return;
	a->rows_done = 1;
	for (int i = 0; i < e->sys.nth; i++)
		if (e->sys.th[i].sys->req[mcv_index('A')])
			show(e, &e->sys.th[i], i);
}

/* Reset the punctual "other code" values written at an earlier instant. */
static inline void enter(struct emu *e, struct af *a, const struct emu_thread *t, int i)
{
	if (__builtin_expect(!a->rows_done, 0))
		rows(e);
	if (a->other_set[i] && a->other_time[i] < e->run.now) {
		emu_out(e, EMU_THREAD_FILE, t->row, a->vc.s_other, 0);
		a->other_set[i] = 0;
	}
}

/* What every handler starts with: the model's state, the agent (stream
 * index and thread), enter(). */
static inline __attribute__((always_inline)) struct emu_thread *begin(struct emu *e, const struct weft_ev *ev,
								   struct af **a, int *me)
{
	*a = st(e);
	*me = ev->stream->index;
	struct emu_thread *t = &e->sys.th[*me];
	enter(e, *a, t, *me);
	return t;
}

static void grow(struct af_agent *g)
{
	g->cap = g->cap ? 2 * g->cap : 8;
	g->f = weft_xrealloc(g->f, (size_t) g->cap * sizeof(*g->f));
}

/* A new top frame, zeroed. */
static inline struct af_frame *push(struct af_agent *g)
{
	if (__builtin_expect(g->n == g->cap, 0))
		grow(g);
	struct af_frame *f = &g->f[g->n++];
	*f = (struct af_frame){0, 0, 0, 0};
	return f;
}

static struct af_node *find_open(struct af *a, uint64_t raw)
{
	return vao_open_find(&a->open, raw);
}

/* A new open node in a slot (maybe reused: its per-task block is kept). */
static struct af_node *add_open(struct af *a, uint64_t raw)
{
	struct af_node *nd = vao_open_add(&a->open, raw);
	nd->raw = raw;
	nd->nfin = 0;
	nd->ncomm = 0;
	return nd;
}

/* Room for the communication lines of n tasks; fin[] cleared. */
static void comm_room(struct af_node *nd, int n)
{
	if (n > nd->comm_cap) {
		free(nd->send);
		nd->send = weft_xmalloc((size_t) n * (2 * sizeof(uint64_t) + sizeof(int)));
		nd->fin = nd->send + n;
		nd->finisher = (int *) (nd->fin + n);
		nd->comm_cap = n;
	}
	nd->ncomm = n;
	memset(nd->fin, 0, (size_t) n * sizeof(*nd->fin));
}

int af_time(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	struct af *a = st(e);
	if (ev->val == '[' && e->models.state_owner != 'A') {
		e->models.state_owner = 'A'; /* START_TIME is the flag's model: it owns the states */
		a->rows_done = 0;
	}
	int me = ev->stream->index;
	struct emu_thread *t = &e->sys.th[me];
	enter(e, a, t, me);
	struct af_agent *g = &a->ag[me];
	if (ev->val == '[' && g->n == 0) {
		struct af_frame *f = push(g);
		f->task = -1;
		f->depth = 1;
		show(e, t, me);
	}
	return 0;
}

int af_fork(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct af *a;
	int me;
	struct emu_thread *t = begin(e, ev, &a, &me);
	uint64_t raw = vao_node(ev);
	int32_t n = vao_n(ev);
	if (find_open(a, raw))
		return emu_model_error(e, err, "FORK of and-node %llx, which is still open: expected a "
				       "Nodeid not in use (open nodes are joined first)", (unsigned long long) raw);
	int rc = 0;
	if (n <= 0 && (rc = check(e, err, "FORK of and-node %llx with %d tasks: expected at least 1",
				  (unsigned long long) raw, n)) != 0)
		return rc;
	struct af_agent *g = &a->ag[me];
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
	struct af_node *nd = add_open(a, raw);
	nd->id = a->nnodes;
	nd->ntasks = n;
	nd->forker = me;
	nd->depth = f->depth + 1;
	f->wait = nd->id;
	if (e->out.writing && n > 0) {
		comm_room(nd, n < AF_MAX_COMM_TASKS ? n : AF_MAX_COMM_TASKS);
		for (int k = 0; k < nd->ncomm; k++)
			nd->send[k] = emu_comm_send(e, t, 0, nd->id) + 1;
	}
	show(e, t, me);
	return 0;
}

static void drop(struct emu *e, uint64_t *id)
{
	if (*id) {
		emu_comm_drop(e, *id - 1);
		*id = 0;
	}
}

/* The open node of a START_GOAL or FINISH_GOAL, its task checked: NULL
 * with *rc set (0: go on with the next event) when the event stops here. */
static inline struct af_node *goal_node(struct emu *e, struct af *a, uint64_t raw, int32_t task,
					const char *what, struct weft_err *err, int *rc)
{
	struct af_node *nd = find_open(a, raw);
	*rc = 0;
	if (__builtin_expect(!nd, 0)) {
		*rc = check(e, err, "%s of task %d of and-node %llx: no open FORK has that Nodeid "
			    "(unknown or already joined)", what, task, (unsigned long long) raw);
		return NULL;
	}
	if (__builtin_expect(task < 0 || task >= nd->ntasks, 0) &&
	    (*rc = check(e, err, "%s of task %d of and-node %llx: expected a task from 0 to %d (the "
			 "FORK has %d tasks)", what, task, (unsigned long long) raw, nd->ntasks - 1,
			 nd->ntasks)) != 0)
		return NULL;
	return nd;
}

int af_start(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct af *a;
	int me;
	struct emu_thread *t = begin(e, ev, &a, &me);
	int32_t task = vao_n(ev);
	int rc;
	struct af_node *nd = goal_node(e, a, vao_node(ev), task, "START_GOAL", err, &rc);
	if (!nd)
		return rc;
	struct af_frame *f = push(&a->ag[me]);
	f->goal = nd->id;
	f->task = task;
	f->depth = nd->depth;
	if (task >= 0 && task < nd->ncomm) {
		if (nd->forker != me && nd->send[task])
			emu_comm_recv(e, nd->send[task] - 1, t, e->run.now, e->run.now);
		else
			drop(e, &nd->send[task]);
		nd->send[task] = 0;
	}
	show(e, t, me);
	return 0;
}

int af_finish_goal(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct af *a;
	int me;
	struct emu_thread *t = begin(e, ev, &a, &me);
	struct af_agent *g = &a->ag[me];
	uint64_t raw = vao_node(ev);
	int32_t task = vao_n(ev);
	int rc;
	struct af_node *nd = goal_node(e, a, raw, task, "FINISH_GOAL", err, &rc);
	if (!nd)
		return rc;
	int k = g->n - 1;
	while (k >= 0 && !(g->f[k].goal == nd->id && g->f[k].task == task && !g->f[k].wait))
		k--;
	if (k < 0)
		return check(e, err, "FINISH_GOAL of task %d of and-node %llx: this agent did not START "
			     "it (no running START_GOAL with that Nodeid and task)", task,
			     (unsigned long long) raw);
	if (k < g->n - 1)
		memmove(&g->f[k], &g->f[k + 1], (size_t) (g->n - k - 1) * sizeof(*g->f));
	g->n--;
	nd->nfin++;
	if (task >= 0 && task < nd->ncomm && e->out.writing) {
		/* a line to the JOIN whoever finishes, the forker too: the JOIN
		 * may come on another agent (written there, dropped if it is
		 * this one) */
		drop(e, &nd->fin[task]);
		nd->fin[task] = emu_comm_send(e, t, 0, nd->id) + 1;
		nd->finisher[task] = me;
	}
	show(e, t, me);
	return 0;
}

int af_join(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct af *a;
	int me;
	struct emu_thread *t = begin(e, ev, &a, &me);
	struct af_agent *g = &a->ag[me];
	uint64_t raw = vao_node(ev);
	struct af_node *nd = find_open(a, raw);
	int rc;
	if (!nd)
		return check(e, err, "JOIN of and-node %llx: no open FORK has that Nodeid (unknown or "
			     "already joined)", (unsigned long long) raw);
	if (nd->nfin < nd->ntasks &&
	    (rc = check(e, err, "JOIN of and-node %llx after %d of its %d tasks finished: expected "
			"all tasks finished", (unsigned long long) raw, nd->nfin, nd->ntasks)) != 0)
		return rc;
	vao_open_del(&a->open, raw); /* nd stays readable until the next FORK */
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
		show(e, &e->sys.th[nd->forker], nd->forker);
	}
	for (int j = 0; j < nd->ncomm; j++) {
		drop(e, &nd->send[j]);
		if (nd->fin[j]) {
			if (nd->finisher[j] != me)
				emu_comm_recv(e, nd->fin[j] - 1, t, e->run.now, e->run.now);
			else
				emu_comm_drop(e, nd->fin[j] - 1);
			nd->fin[j] = 0;
		}
	}
	show(e, t, me);
	return 0;
}

int af_busy(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e, st(e), cur(e, ev), ev->stream->index);
	vao_activity(e, &st(e)->vc, ev, in);
	return 0;
}

int af_wam(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e, st(e), cur(e, ev), ev->stream->index);
	vao_wam(e, &st(e)->vc, ev, in);
	return 0;
}

int af_other(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct af *a;
	int me;
	struct emu_thread *t = begin(e, ev, &a, &me);
	emu_out(e, EMU_THREAD_FILE, t->row, a->vc.s_other, ev_field(in, 0, ev));
	vao_note_code(&a->vc, (int32_t) ev_field(in, 0, ev));
	a->other_set[me] = 1;
	a->other_time[me] = e->run.now;
	return 0;
}

/* ---- setup, end, labels ------------------------------------------------------ */

int af_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct af *a = weft_xcalloc(1, sizeof(*a));
	e->models.state[mcv_index('A')] = a;
	e->models.thread_name = vao_agent_name;
	a->ag = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*a->ag));
	a->shown = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*a->shown));
	a->cpu_shown = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*a->cpu_shown));
	vao_open_init(&a->open, sizeof(struct af_node));
	a->cpu_row = vao_cpu_rows(e);
	vao_slot(e, EMU_CPU_FILE, &a->sc_node, "node", "And-fork: current and-node of the agent");
	vao_slot(e, EMU_CPU_FILE, &a->sc_agent, "agent", "And-fork: agent number + 1");
	a->other_set = weft_xcalloc((size_t) e->sys.nth + 1, 1);
	a->other_time = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(uint64_t));
	vao_slot(e, EMU_THREAD_FILE, &a->s_node, "node", "And-fork: current and-node");
	vao_slot(e, EMU_THREAD_FILE, &a->s_task, "task", "And-fork: task number + 1");
	vao_slot(e, EMU_THREAD_FILE, &a->s_depth, "depth", "And-fork: nesting depth");
	vao_declare_agent(e, &a->vc, "And-fork");
	/* an and-parallel log owns the thread states; with or-branch events as
	 * well, the model that receives START_TIME (the flag's) takes them */
	e->models.state_owner = 'A';
	return 0;
}

int af_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct af *a = st(e);
	/* the values the run named: the first nodes by their Nodeid, the
	 * other event codes */
	if (e->out.writing && a->nnodes <= AF_PCF_NODES) /* labels are for the outputs only */
		a->node_labels = vao_label_nodes(e, a->s_node, a->sc_node, a->label_raw, a->nnodes, "node");
	vao_label_codes(e, &a->vc);
	vao_check_count(e, &a->vc, "and-fork");
	return 0;
}

void af_free(struct emu *e, const struct weft_model_def *self)
{
	(void) self;
	struct af *a = st(e);
	if (!a)
		return;
	for (int32_t k = 0; k < a->open.nslot; k++)
		free(((struct af_node *) vao_open_slot(&a->open, k))->send);
	vao_open_free(&a->open);
	free(a->label_raw);
	free(a->node_labels);
	for (int i = 0; i < e->sys.nth; i++)
		free(a->ag[i].f);
	free(a->ag);
	free(a->shown);
	free(a->cpu_shown);
	free(a->cpu_row);
	free(a->other_set);
	free(a->other_time);
	free(a);
	e->models.state[mcv_index('A')] = NULL;
}
