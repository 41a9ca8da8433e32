/* SPDX-License-Identifier: GPL-3.0-or-later */
/* or-branch model (R): per agent a stack of the branches it runs and the
 * Andorra-I branches it works on as a slave (START_BUSY..STOP_BUSY, a
 * stack). A START_BRANCH or RESUME_BRANCH of a node the agent made public
 * within the branch on top of its stack nests on it (the seed's node 5,
 * made public inside branch 1 of node 4); any other replaces the top (the
 * root branch of START_TIME, which has no end of its own, is always
 * replaced). SUCC, FAIL, SUSPEND and CUTTING end their branch wherever it
 * is in the stack; the one below runs again. The state is Slave while the
 * slave stack is not empty, else Running branch while a branch runs, else
 * Idle. An or-node is open from MAKE_PUBLIC until each of its
 * branches ended (SUCC, FAIL or CUTTING; a branch counts once however many
 * of them it gets: its record says it ended until the node closes).
 * Open nodes (by Nodeid) and the records of their branches (by node and
 * branch) are found in O(1) (visandor/open.h) in reused slots: a node's
 * branch records are chained from it and go when it closes, so no event
 * allocates once the trace has reached its most records alive at once.
 * Rows get only the values that changed (vao_set). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orbranch/orbranch.h"
#include "visandor/common.h"
#include "visandor/open.h"

#define OB_MAX_COMM 4096

struct ob_key {
	int node;       /* dense id */
	int32_t branch;
};

/* What a branch's record says; all zero for a branch not seen yet. */
struct orb_bstate {
	int ended;
	int suspended;
	uint64_t susp_send; /* SUSPEND -> RESUME line + 1 */
	int susp_agent;
	int nbusy;          /* START_BUSY minus STOP_BUSY */
};

struct orb_branch {
	struct ob_key k;
	struct orb_bstate s;
	uint64_t next;      /* key of the node's next branch record, 0 none */
};

struct ob_node {
	uint64_t raw;
	int id;
	int32_t nbranches;
	int maker;      /* stream index */
	struct ob_key father; /* the maker's branch at MAKE_PUBLIC (node 0: none, or the root) */
	int nended;
	int ncomm;
	uint64_t br_head; /* key of its first branch record, 0 none */
	/* MAKE_PUBLIC -> START_BRANCH lines + 1, kept with the slot for the
	 * next node (send_cap of them) */
	uint64_t *send;
	int send_cap;
};

struct ob_agent {
	struct ob_key *run; /* the branches it runs, innermost last (node 0: the root branch) */
	int nrun, caprun;
	struct ob_key *slave;
	int nslave, cap;
	int64_t nopen;  /* public nodes it made that are open */
};

/* What an agent's thread row shows now (vao_set). */
struct ob_shown {
	int64_t node, branch, open, outcome, other;
};

#define OB_PCF_NODES 100000 /* the .pcf labels the first nodes by their Nodeid */

struct ob {
	int nnodes;             /* or-nodes created (dense ids 1..nnodes) */
	uint64_t *label_raw;    /* Nodeid of the first OB_PCF_NODES, by dense id - 1 */
	char *node_labels; /* their value labels (vao_label_nodes) */
	int cap;
	struct vao_open open;   /* struct ob_node by raw; a node leaves when it closes */
	struct vao_open br;     /* struct orb_branch by branch_key() */
	struct ob_agent *ag;
	struct ob_shown *shown; /* by stream index */
	int64_t *cpu_shown;     /* by cpu.prv row: the node shown */
	int rows_done;
	int s_node, s_branch, s_outcome, s_open;
	struct vao_common vc;   /* activity, WAM, other codes (shared with the other model) */
	int *cpu_row;           /* per agent: its CPU's row in cpu.prv, -1 none */
	int sc_node, sc_agent;  /* cpu.prv slots */
	uint64_t *punct_time;   /* per agent: instant of the last punctual values */
	uint8_t *punct_set;
};

static struct ob *st(struct emu *e)
{
	return e->models.state[mcv_index('R')];
}

static struct emu_thread *cur(struct emu *e, const struct weft_ev *ev)
{
	return &e->sys.th[ev->stream->index];
}

/* A consistency check: a warning, or an error with --strict. */
#define check(e, err, ...) vao_check(e, err, &st(e)->vc, "or-branch", __VA_ARGS__)

/* The agent's state, node, branch and open nodes on its rows (inline:
 * most events end here). */
static inline __attribute__((always_inline)) void show(struct emu *e, struct emu_thread *t)
{
	struct ob *o = st(e);
	int i = t->stream->index;
	struct ob_agent *g = &o->ag[i];
	uint32_t s = g->nslave ? OB_ST_SLAVE : g->nrun ? OB_ST_RUNNING : OB_ST_IDLE;
	int cr = o->cpu_row[i];
	emu_model_state(e, t, 'R', s);
	int64_t node = 0, br = 0;
	if (g->nslave) {
		node = g->slave[g->nslave - 1].node;
		br = g->slave[g->nslave - 1].branch + 1;
	} else if (g->nrun) {
		node = g->run[g->nrun - 1].node;
		br = g->run[g->nrun - 1].branch + 1;
	}
	if (!e->out.writing)
		return;
	struct ob_shown *w = &o->shown[i];
	struct prv_file *pf = &e->out.prv[EMU_THREAD_FILE];
	vao_put(pf, t->row, o->s_node, &w->node, node);
	vao_put(pf, t->row, o->s_branch, &w->branch, br);
	vao_put(pf, t->row, o->s_open, &w->open, g->nopen);
	if (cr >= 0)
		vao_put(&e->out.prv[EMU_CPU_FILE], cr, o->sc_node, &o->cpu_shown[cr], node);
}

static void rows(struct emu *e)
{
	struct ob *o = st(e);
	if (o->rows_done || !vao_agent_cpus(e, 'R', o->cpu_row, o->sc_agent))
		return;
	o->rows_done = 1;
	for (int i = 0; i < e->sys.nth; i++)
		if (e->sys.th[i].sys->req[mcv_index('R')])
			show(e, &e->sys.th[i]);
}

/* Reset the punctual values (outcome, other code) written at an earlier
 * instant. */
static inline __attribute__((always_inline)) void enter(struct emu *e, struct ob *o, const struct emu_thread *t)
{
	if (__builtin_expect(!o->rows_done, 0))
		rows(e);
	int i = t->stream->index;
	if (o->punct_set[i] && o->punct_time[i] < e->run.now) {
		struct ob_shown *w = &o->shown[i];
		vao_set(e, EMU_THREAD_FILE, t->row, o->s_outcome, &w->outcome, 0);
		vao_set(e, EMU_THREAD_FILE, t->row, o->vc.s_other, &w->other, 0);
		o->punct_set[i] = 0;
	}
}

/* A punctual value (outcome or other code), reset by the agent's next event
 * at a later instant. */
static inline void punct(struct emu *e, struct emu_thread *t, int slot, int64_t *shown, int64_t v)
{
	struct ob *o = st(e);
	vao_set(e, EMU_THREAD_FILE, t->row, slot, shown, v);
	o->punct_set[t->stream->index] = 1;
	o->punct_time[t->stream->index] = e->run.now;
}

static struct ob_node *find_open(struct ob *o, uint64_t raw)
{
	return vao_open_find(&o->open, raw);
}

/* Branch records by (node, branch): dense node ids start at 1, so no key
 * is 0. */
static uint64_t branch_key(int node, int32_t b)
{
	return (uint64_t) (uint32_t) node << 32 | (uint32_t) b;
}

static const struct orb_bstate no_bstate; /* the state of a branch without a record */

/* The record of branch b of open node nd, made (zeroed) when it has none. */
static struct orb_branch *branch(struct ob *o, struct ob_node *nd, int32_t b)
{
	uint64_t key = branch_key(nd->id, b);
	struct orb_branch *r = vao_open_find(&o->br, key);
	if (!r) {
		r = vao_open_add(&o->br, key);
		memset(r, 0, sizeof(*r));
		r->k.node = nd->id;
		r->k.branch = b;
		r->next = nd->br_head;
		nd->br_head = key;
	}
	return r;
}

static void close_node(struct emu *e, struct ob_node *nd)
{
	struct ob *o = st(e);
	for (uint64_t key = nd->br_head; key;) {
		const struct orb_branch *r = vao_open_find(&o->br, key);
		uint64_t next = r->next;
		vao_open_del(&o->br, key);
		key = next;
	}
	vao_open_del(&o->open, nd->raw); /* nd stays readable until the next MAKE_PUBLIC */
	for (int j = 0; j < nd->ncomm; j++)
		if (nd->send[j])
			emu_comm_drop(e, nd->send[j] - 1);
	o->ag[nd->maker].nopen--;
	show(e, &e->sys.th[nd->maker]);
}

static void run_push(struct ob_agent *g, struct ob_key k)
{
	if (g->nrun == g->caprun) {
		g->caprun = g->caprun ? 2 * g->caprun : 4;
		g->run = weft_xrealloc(g->run, (size_t) g->caprun * sizeof(*g->run));
	}
	g->run[g->nrun++] = k;
}

/* Where branch b of node `node` is in g's stack, innermost first; -1 if
 * it is not there. */
static int run_find(const struct ob_agent *g, int node, int32_t b)
{
	int k = g->nrun - 1;
	while (k >= 0 && !(g->run[k].node == node && g->run[k].branch == b))
		k--;
	return k;
}

static void run_remove(struct ob_agent *g, int k)
{
	memmove(&g->run[k], &g->run[k + 1], (size_t) (g->nrun - k - 1) * sizeof(*g->run));
	g->nrun--;
}

/* Agent me starts (or resumes) branch b of nd: on top of the branch nd was
 * made public in when that is the agent's (the frames above it ended
 * without an event), else in place of the top. */
static void run_start(struct ob *o, struct ob_node *nd, int me, int32_t b)
{
	struct ob_agent *g = &o->ag[me];
	int k = nd->father.node && nd->maker == me ? run_find(g, nd->father.node, nd->father.branch) : -1;
	if (k >= 0)
		g->nrun = k + 1;
	else if (g->nrun)
		g->nrun--;
	run_push(g, (struct ob_key){nd->id, b});
}

int orb_time(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	struct ob *o = st(e);
	if (ev->val == '[' && e->models.state_owner != 'R') {
		e->models.state_owner = 'R'; /* START_TIME is the flag's model: it owns the states */
		o->rows_done = 0;
	}
	struct emu_thread *t = cur(e, ev);
	enter(e, o, t);
	struct ob_agent *g = &o->ag[t->stream->index];
	if (ev->val == '[' && !g->nrun) {
		run_push(g, (struct ob_key){0, -1});
		show(e, t);
	}
	return 0;
}

int orb_public(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct ob *o = st(e);
	struct emu_thread *t = cur(e, ev);
	enter(e, o, t);
	uint64_t raw = vao_node(ev);
	int32_t n = vao_n(ev);
	if (find_open(o, raw))
		return emu_model_error(e, err, "MAKE_PUBLIC of or-node %llx, which is still open: expected a "
				       "Nodeid not in use (a node closes when each of its branches ended)",
				       (unsigned long long) raw);
	int rc;
	if (n <= 0 && (rc = check(e, err, "MAKE_PUBLIC of or-node %llx with %d branches: expected at "
				  "least 1", (unsigned long long) raw, n)) != 0)
		return rc;
	if (o->nnodes < OB_PCF_NODES) {
		if (o->nnodes == o->cap) {
			o->cap = o->cap ? 2 * o->cap : 64;
			o->label_raw = weft_xrealloc(o->label_raw, (size_t) o->cap * sizeof(*o->label_raw));
		}
		o->label_raw[o->nnodes] = raw;
	}
	o->nnodes++;
	struct ob_node *nd = vao_open_add(&o->open, raw);
	nd->raw = raw;
	nd->id = o->nnodes;
	nd->nbranches = n;
	nd->maker = t->stream->index;
	/* its father: the branch the maker runs now (the root is no father: it
	 * ends at the agent's first branch) */
	const struct ob_agent *mk = &o->ag[nd->maker];
	nd->father = mk->nrun && mk->run[mk->nrun - 1].node ? mk->run[mk->nrun - 1] : (struct ob_key){0, 0};
	nd->nended = 0;
	nd->ncomm = 0;
	nd->br_head = 0;
	o->ag[nd->maker].nopen++;
	if (e->out.writing && n > 0) {
		nd->ncomm = n < OB_MAX_COMM ? n : OB_MAX_COMM;
		if (nd->ncomm > nd->send_cap) {
			free(nd->send);
			nd->send = weft_xmalloc((size_t) nd->ncomm * sizeof(uint64_t));
			nd->send_cap = nd->ncomm;
		}
		for (int k = 0; k < nd->ncomm; k++)
			nd->send[k] = emu_comm_send(e, t, 0, nd->id) + 1;
	}
	show(e, t);
	return 0;
}

/* A cut branch ends on the agent that runs it: this one, else any. */
static void cut_branch(struct emu *e, struct ob *o, int me, int node, int32_t b)
{
	for (int i = -1; i < e->sys.nth; i++) {
		int a = i < 0 ? me : i;
		int k = (i < 0 || a != me) ? run_find(&o->ag[a], node, b) : -1;
		if (k < 0)
			continue;
		run_remove(&o->ag[a], k);
		if (a != me)
			show(e, &e->sys.th[a]);
		return;
	}
}

static const char *const bname[] = {"START_BRANCH", "SUCC_BRANCH",    "FAIL_BRANCH", "SUSPEND_BRANCH",
				    "RESUME_BRANCH", "CUTTING_BRANCH", "LEAF-CUT"};

int orb_branch(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct ob *o = st(e);
	struct emu_thread *t = cur(e, ev);
	enter(e, o, t);
	int me = t->stream->index;
	struct ob_agent *g = &o->ag[me];
	uint64_t raw = vao_node(ev);
	int32_t b = vao_n(ev);
	int kind = ev->val == '[' ? 0 : ev->val == 's' ? 1 : ev->val == 'f' ? 2 : ev->val == 'p' ? 3
		   : ev->val == 'r' ? 4 : ev->val == 'c' ? 5 : 6;
	struct ob_node *nd = find_open(o, raw);
	int rc;
	if (!nd)
		return check(e, err, "%s of branch %d of or-node %llx: no open MAKE_PUBLIC has that Nodeid "
			     "(unknown or closed)", bname[kind], b, (unsigned long long) raw);
	if ((b < 0 || b >= nd->nbranches) &&
	    (rc = check(e, err, "%s of branch %d of or-node %llx: expected a branch from 0 to %d (the "
			"MAKE_PUBLIC has %d branches)", bname[kind], b, (unsigned long long) raw,
			nd->nbranches - 1, nd->nbranches)) != 0)
		return rc;
	/* records are made only to hold a state other than zero (a START
	 * needs none; an end makes one, kept until the node closes) */
	struct orb_branch *br = vao_open_find(&o->br, branch_key(nd->id, b));
	const struct orb_bstate *bs = br ? &br->s : &no_bstate;
	int at = run_find(g, nd->id, b); /* where it runs on this agent, -1 nowhere */
	switch (kind) {
	case 0: /* START_BRANCH */
	case 4: /* RESUME_BRANCH */
		if (kind == 4) {
			if (!bs->suspended)
				return check(e, err, "RESUME_BRANCH of branch %d of or-node %llx: it is not "
					     "suspended (no SUSPEND_BRANCH before)", b, (unsigned long long) raw);
			br->s.suspended = 0;
			if (br->s.susp_send) {
				if (br->s.susp_agent != me)
					emu_comm_recv(e, br->s.susp_send - 1, t, e->run.now, e->run.now);
				else
					emu_comm_drop(e, br->s.susp_send - 1);
				br->s.susp_send = 0;
			}
		} else if (b >= 0 && b < nd->ncomm && nd->send[b]) {
			if (nd->maker != me)
				emu_comm_recv(e, nd->send[b] - 1, t, e->run.now, e->run.now);
			else
				emu_comm_drop(e, nd->send[b] - 1);
			nd->send[b] = 0;
		}
		run_start(o, nd, me, b);
		break;
	case 1:
	case 2:
	case 3:
		/* a branch cut before (ended, run nowhere) may still get its end */
		if (at < 0 && !(bs->ended && kind != 3) &&
		    (rc = check(e, err,
				"%s of branch %d of or-node %llx: this agent is not "
				"running it (no START_BRANCH or RESUME_BRANCH of it here)",
				bname[kind], b, (unsigned long long) raw)) != 0)
			return rc;
		if (at >= 0)
			run_remove(g, at);
		punct(e, t, o->s_outcome, &o->shown[me].outcome, kind);
		if (kind == 3) {
			if (!br)
				br = branch(o, nd, b);
			br->s.suspended = 1;
			br->s.susp_agent = me;
			if (e->out.writing)
				br->s.susp_send = emu_comm_send(e, t, 0, nd->id) + 1;
		}
		break;
	case 5: /* CUTTING_BRANCH: the branch stops wherever it runs */
		punct(e, t, o->s_outcome, &o->shown[me].outcome, 4);
		cut_branch(e, o, me, nd->id, b);
		break;
	default:
		punct(e, t, o->s_outcome, &o->shown[me].outcome, 5);
		break;
	}
	if ((kind == 1 || kind == 2 || kind == 5) && !bs->ended) {
		if (bs->nbusy &&
		    (rc = check(e, err, "%s of branch %d of or-node %llx with %d slave(s) still busy: "
				"expected as many STOP_BUSY as START_BUSY", bname[kind], b,
				(unsigned long long) raw, bs->nbusy)) != 0)
			return rc;
		/* ended: the record keeps it until the node closes, so that a
		 * second ending of the branch (a CUT, then its FAIL) does not
		 * count again and close the node before its other branches */
		if (!br)
			br = branch(o, nd, b);
		br->s.ended = 1;
		if (++nd->nended >= nd->nbranches)
			close_node(e, nd);
	}
	show(e, t);
	return 0;
}

int orb_busy(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct ob *o = st(e);
	struct emu_thread *t = cur(e, ev);
	enter(e, o, t);
	struct ob_agent *g = &o->ag[t->stream->index];
	uint64_t raw = vao_node(ev);
	int32_t b = vao_n(ev);
	int start = ev->val == '[';
	struct ob_node *nd = find_open(o, raw);
	if (!nd)
		return check(e, err, "%s on branch %d of or-node %llx: no open MAKE_PUBLIC has that Nodeid "
			     "(unknown or closed)", start ? "START_BUSY" : "STOP_BUSY", b,
			     (unsigned long long) raw);
	if (start) {
		struct orb_branch *br = branch(o, nd, b);
		if (g->nslave == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 4;
			g->slave = weft_xrealloc(g->slave, (size_t) g->cap * sizeof(*g->slave));
		}
		g->slave[g->nslave++] = br->k;
		br->s.nbusy++;
	} else {
		int k = g->nslave - 1;
		while (k >= 0 && !(g->slave[k].node == nd->id && g->slave[k].branch == b))
			k--;
		if (k < 0)
			return check(e, err, "STOP_BUSY on branch %d of or-node %llx: this agent has no "
				     "START_BUSY on it", b, (unsigned long long) raw);
		memmove(&g->slave[k], &g->slave[k + 1], (size_t) (g->nslave - k - 1) * sizeof(*g->slave));
		g->nslave--;
		branch(o, nd, b)->s.nbusy--; /* its START_BUSY made the record */
	}
	show(e, t);
	return 0;
}

int orb_active(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e, st(e), cur(e, ev));
	vao_activity(e, &st(e)->vc, ev, in);
	return 0;
}

int orb_wam(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e, st(e), cur(e, ev));
	vao_wam(e, &st(e)->vc, ev, in);
	return 0;
}

int orb_other(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct ob *o = st(e);
	struct emu_thread *t = cur(e, ev);
	enter(e, o, t);
	int64_t code = ev_field(in, 0, ev);
	punct(e, t, o->vc.s_other, &o->shown[t->stream->index].other, code);
	vao_note_code(&o->vc, (int32_t) code);
	return 0;
}

/* ---- setup, end, labels ------------------------------------------------------ */

int orb_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct ob *o = weft_xcalloc(1, sizeof(*o));
	e->models.state[mcv_index('R')] = o;
	e->models.thread_name = vao_agent_name;
	o->ag = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*o->ag));
	o->shown = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*o->shown));
	o->cpu_shown = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*o->cpu_shown));
	vao_open_init(&o->open, sizeof(struct ob_node));
	vao_open_init(&o->br, sizeof(struct orb_branch));
	o->cpu_row = vao_cpu_rows(e);
	vao_slot(e, EMU_CPU_FILE, &o->sc_node, "node", "Or-branch: current or-node of the agent");
	vao_slot(e, EMU_CPU_FILE, &o->sc_agent, "agent", "Or-branch: agent number + 1");
	o->punct_time = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(uint64_t));
	o->punct_set = weft_xcalloc((size_t) e->sys.nth + 1, 1);
	vao_slot(e, EMU_THREAD_FILE, &o->s_node, "node", "Or-branch: current or-node");
	vao_slot(e, EMU_THREAD_FILE, &o->s_branch, "branch", "Or-branch: branch number + 1");
	static const struct sink_label outcome[] = {
		{.value = 1, .label = "Success"}, {.value = 2, .label = "Fail"},     {.value = 3, .label = "Suspend"},
		{.value = 4, .label = "Cut"},	  {.value = 5, .label = "Leaf-cut"},
	};
	o->s_outcome = emu_slot(e, EMU_THREAD_FILE, "Or-branch: branch outcome");
	emu_slot_declare(e, EMU_THREAD_FILE, o->s_outcome,
			 &(struct emu_slot_decl){.key = "outcome",
						 .kind = SINK_VALUE,
						 .labels = outcome,
						 .nlabels = (int) ARRAY_SIZE(outcome)});
	vao_slot(e, EMU_THREAD_FILE, &o->s_open, "open", "Or-branch: public nodes open");
	vao_declare_agent(e, &o->vc, "Or-branch");
	/* an or-parallel log owns the thread states, unless and-fork is on too:
	 * then the model that receives START_TIME (the flag's) takes them */
	int andf = 0;
	for (int i = 0; i < e->sys.nth && !andf; i++)
		andf = e->sys.th[i].sys->req[mcv_index('A')];
	if (!andf)
		e->models.state_owner = 'R';
	return 0;
}

int orb_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	struct ob *o = st(e);
	e->run.ev = NULL;
	/* the values the run named: the first nodes by their Nodeid, the
	 * other event codes */
	if (e->out.writing && o->nnodes <= OB_PCF_NODES) /* labels are for the outputs only */
		o->node_labels = vao_label_nodes(e, o->s_node, o->sc_node, o->label_raw, o->nnodes, "or-node");
	vao_label_codes(e, &o->vc);
	for (int i = 0; i < e->sys.nth; i++)
		if (o->ag[i].nslave) {
			o->vc.nwarn++;
			if (e->o.strict)
				return emu_model_error(e, err, "agent %lld ends the trace as a slave on %d "
						       "branch(es): expected a STOP_BUSY for each START_BUSY (--strict)",
						       (long long) e->sys.th[i].sys->tid - 1, o->ag[i].nslave);
			if (!e->o.quiet)
				weft_warn("or-branch: agent %lld ends the trace as a slave on %d branch(es): "
					  "expected a STOP_BUSY for each START_BUSY",
					  (long long) e->sys.th[i].sys->tid - 1, o->ag[i].nslave);
		}
	vao_check_count(e, &o->vc, "or-branch");
	return 0;
}

void orb_free(struct emu *e, const struct weft_model_def *self)
{
	(void) self;
	struct ob *o = st(e);
	if (!o)
		return;
	for (int32_t k = 0; k < o->open.nslot; k++)
		free(((struct ob_node *) vao_open_slot(&o->open, k))->send);
	vao_open_free(&o->open);
	vao_open_free(&o->br);
	free(o->node_labels);
	free(o->label_raw);
	for (int i = 0; i < e->sys.nth; i++) {
		free(o->ag[i].slave);
		free(o->ag[i].run);
	}
	free(o->ag);
	free(o->shown);
	free(o->cpu_shown);
	free(o->cpu_row);
	free(o->punct_time);
	free(o->punct_set);
	free(o);
	e->models.state[mcv_index('R')] = NULL;
}
