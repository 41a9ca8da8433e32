/* or-branch model (R): per agent the branch it runs (START_BRANCH or
 * RESUME_BRANCH until SUCC/FAIL/SUSPEND of that branch, or its next
 * START/RESUME; the root branch from START_TIME) and the Andorra-I branches
 * it works on as a slave (START_BUSY..STOP_BUSY, a stack). The state is
 * Slave while that stack is not empty, else Running branch while a branch
 * runs, else Idle. An or-node is open from MAKE_PUBLIC until each of its
 * branches ended (SUCC, FAIL or CUTTING; each ending counts once while the
 * branch's record lives). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "orbranch.h"
#include "visandor/common.h"

#define OB_MAX_COMM 4096
#define OB_MAX_WARN 20

struct ob_key {
	int node;       /* dense id */
	int32_t branch;
};

struct orb_branch {
	struct ob_key k;
	int ended;
	int suspended;
	uint64_t susp_send; /* SUSPEND -> RESUME line + 1 */
	int susp_agent;
	int nbusy;          /* START_BUSY minus STOP_BUSY */
	UT_hash_handle hh;
};

struct ob_node {
	uint64_t raw;
	int id;
	int32_t nbranches;
	int maker;      /* stream index */
	int open;
	int nended;
	uint64_t *send; /* MAKE_PUBLIC -> START_BRANCH lines + 1 */
	int ncomm;
	UT_hash_handle hh;
};

struct ob_agent {
	int running;    /* a branch runs */
	int node;       /* its node (0: the root branch) */
	int32_t branch;
	struct ob_key *slave;
	int nslave, cap;
	int64_t nopen;  /* public nodes it made that are open */
};

#define OB_PCF_NODES 100000 /* the .pcf labels the first nodes by their Nodeid */

struct ob {
	int nnodes;             /* or-nodes created (dense ids 1..nnodes) */
	uint64_t *label_raw;    /* Nodeid of the first OB_PCF_NODES, by dense id - 1 */
	int cap;
	struct ob_node *open;   /* by raw; a node is freed when it closes */
	struct orb_branch *br;   /* by key */
	struct ob_agent *ag;
	int rows_done;
	uint64_t nwarn;
	int s_node, s_branch, s_outcome, s_open;
	struct vao_common vc;   /* activity, WAM, other codes (shared with the other model) */
	int *cpu_row;           /* per agent: its CPU's row in cpu.prv, -1 none */
	int sc_node, sc_agent;  /* cpu.prv slots */
	uint64_t *punct_time;   /* per agent: instant of the last punctual values */
	uint8_t *punct_set;
};

static struct ob *st(struct emu *e)
{
	return e->mstate['R' - 0x21];
}

static struct emu_thread *cur(struct emu *e, const struct weft_ev *ev)
{
	return &e->th[ev->stream->index];
}

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
	struct ob *o = st(e);
	o->nwarn++;
	if (e->o.quiet)
		return 0;
	if (o->nwarn <= OB_MAX_WARN)
		weft_warn("or-branch: agent %lld at %llu ns: %s", (long long) cur(e, e->ev)->sys->tid - 1,
			  (unsigned long long) e->now, what);
	else if (o->nwarn == OB_MAX_WARN + 1)
		weft_warn("or-branch: more check warnings follow; only the count is reported");
	return 0;
}

static void show(struct emu *e, struct emu_thread *t)
{
	struct ob *o = st(e);
	struct ob_agent *g = &o->ag[t->stream->index];
	uint32_t s = g->nslave ? OB_ST_SLAVE : g->running ? OB_ST_RUNNING : OB_ST_IDLE;
	int cr = o->cpu_row[t->stream->index];
	emu_model_state(e, t, 'R', s);
	int64_t node = 0, br = 0;
	if (g->nslave) {
		node = g->slave[g->nslave - 1].node;
		br = g->slave[g->nslave - 1].branch + 1;
	} else if (g->running) {
		node = g->node;
		br = g->branch + 1;
	}
	emu_out(e, EMU_THREAD_FILE, t->row, o->s_node, node);
	emu_out(e, EMU_THREAD_FILE, t->row, o->s_branch, br);
	emu_out(e, EMU_THREAD_FILE, t->row, o->s_open, g->nopen);
	if (cr >= 0)
		emu_out(e, EMU_CPU_FILE, cr, o->sc_node, node);
}

static void rows(struct emu *e)
{
	struct ob *o = st(e);
	if (o->rows_done || !vao_agent_cpus(e, 'R', o->cpu_row, o->sc_agent))
		return;
	o->rows_done = 1;
	for (int i = 0; i < e->nth; i++)
		if (e->th[i].sys->req['R' - 0x21])
			show(e, &e->th[i]);
}

static void enter(struct emu *e)
{
	struct ob *o = st(e);
	rows(e);
	struct emu_thread *t = cur(e, e->ev);
	int i = t->stream->index;
	if (o->punct_set[i] && o->punct_time[i] < e->now) {
		emu_out(e, EMU_THREAD_FILE, t->row, o->s_outcome, 0);
		emu_out(e, EMU_THREAD_FILE, t->row, o->vc.s_other, 0);
		o->punct_set[i] = 0;
	}
}

static void punct(struct emu *e, struct emu_thread *t, int slot, int64_t v)
{
	struct ob *o = st(e);
	emu_out(e, EMU_THREAD_FILE, t->row, slot, v);
	o->punct_set[t->stream->index] = 1;
	o->punct_time[t->stream->index] = e->now;
}

static struct ob_node *find_open(struct ob *o, uint64_t raw)
{
	struct ob_node *n;
	HASH_FIND(hh, o->open, &raw, sizeof(raw), n);
	return n;
}

static struct orb_branch *branch(struct ob *o, int node, int32_t b, int create)
{
	struct ob_key k;
	memset(&k, 0, sizeof(k));
	k.node = node;
	k.branch = b;
	struct orb_branch *r;
	HASH_FIND(hh, o->br, &k, sizeof(k), r);
	if (!r && create) {
		r = weft_xcalloc(1, sizeof(*r));
		r->k = k;
		HASH_ADD(hh, o->br, k, sizeof(k), r);
	}
	return r;
}

static void close_node(struct emu *e, struct ob_node *nd)
{
	struct ob *o = st(e);
	HASH_DEL(o->open, nd);
	nd->open = 0;
	for (int j = 0; j < nd->ncomm; j++)
		if (nd->send[j])
			emu_comm_drop(e, nd->send[j] - 1);
	free(nd->send);
	o->ag[nd->maker].nopen--;
	show(e, &e->th[nd->maker]);
	free(nd);
}

int orb_time(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	struct ob *o = st(e);
	if (ev->val == '[' && e->state_owner != 'R') {
		e->state_owner = 'R'; /* START_TIME is the flag's model: it owns the states */
		o->rows_done = 0;
	}
	enter(e);
	struct emu_thread *t = cur(e, ev);
	struct ob_agent *g = &o->ag[t->stream->index];
	if (ev->val == '[' && !g->running) {
		g->running = 1;
		g->node = 0;
		g->branch = -1;
		show(e, t);
	}
	return 0;
}

int orb_public(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	enter(e);
	struct ob *o = st(e);
	struct emu_thread *t = cur(e, ev);
	uint64_t raw = (uint64_t) ev_field(in, 0, ev);
	int32_t n = (int32_t) ev_field(in, 1, ev);
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
	struct ob_node *nd = weft_xcalloc(1, sizeof(*nd));
	nd->raw = raw;
	nd->id = o->nnodes;
	nd->nbranches = n;
	nd->maker = t->stream->index;
	nd->open = 1;
	HASH_ADD(hh, o->open, raw, sizeof(nd->raw), nd);
	o->ag[nd->maker].nopen++;
	if (e->writing && n > 0) {
		nd->ncomm = n < OB_MAX_COMM ? n : OB_MAX_COMM;
		nd->send = weft_xcalloc((size_t) nd->ncomm, sizeof(uint64_t));
		for (int k = 0; k < nd->ncomm; k++)
			nd->send[k] = emu_comm_send(e, t, 0, nd->id) + 1;
	}
	show(e, t);
	return 0;
}

static const char *const bname[] = {"START_BRANCH", "SUCC_BRANCH",    "FAIL_BRANCH", "SUSPEND_BRANCH",
				    "RESUME_BRANCH", "CUTTING_BRANCH", "LEAF-CUT"};

int orb_branch(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	enter(e);
	struct ob *o = st(e);
	struct emu_thread *t = cur(e, ev);
	int me = t->stream->index;
	struct ob_agent *g = &o->ag[me];
	uint64_t raw = (uint64_t) ev_field(in, 0, ev);
	int32_t b = (int32_t) ev_field(in, 1, ev);
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
	struct orb_branch *br = branch(o, nd->id, b, 1);
	int on_me = g->running && g->node == nd->id && g->branch == b;
	switch (kind) {
	case 0: /* START_BRANCH */
	case 4: /* RESUME_BRANCH */
		if (kind == 4) {
			if (!br->suspended)
				return check(e, err, "RESUME_BRANCH of branch %d of or-node %llx: it is not "
					     "suspended (no SUSPEND_BRANCH before)", b, (unsigned long long) raw);
			br->suspended = 0;
			if (br->susp_send) {
				if (br->susp_agent != me)
					emu_comm_recv(e, br->susp_send - 1, t, e->now, e->now);
				else
					emu_comm_drop(e, br->susp_send - 1);
				br->susp_send = 0;
			}
		} else if (b >= 0 && b < nd->ncomm && nd->send[b]) {
			if (nd->maker != me)
				emu_comm_recv(e, nd->send[b] - 1, t, e->now, e->now);
			else
				emu_comm_drop(e, nd->send[b] - 1);
			nd->send[b] = 0;
		}
		g->running = 1;
		g->node = nd->id;
		g->branch = b;
		break;
	case 1:
	case 2:
	case 3:
		if (!on_me && (rc = check(e, err, "%s of branch %d of or-node %llx: this agent is not "
					  "running it (no START_BRANCH or RESUME_BRANCH of it here)", bname[kind],
					  b, (unsigned long long) raw)) != 0)
			return rc;
		if (on_me)
			g->running = 0;
		punct(e, t, o->s_outcome, kind);
		if (kind == 3) {
			br->suspended = 1;
			br->susp_agent = me;
			if (e->writing)
				br->susp_send = emu_comm_send(e, t, 0, nd->id) + 1;
		}
		break;
	case 5:
		punct(e, t, o->s_outcome, 4);
		break;
	default:
		punct(e, t, o->s_outcome, 5);
		break;
	}
	if ((kind == 1 || kind == 2 || kind == 5) && !br->ended) {
		if (br->nbusy &&
		    (rc = check(e, err, "%s of branch %d of or-node %llx with %d slave(s) still busy: "
				"expected as many STOP_BUSY as START_BUSY", bname[kind], b,
				(unsigned long long) raw, br->nbusy)) != 0)
			return rc;
		br->ended = 1;
		if (!br->suspended && !br->nbusy) {
			HASH_DEL(o->br, br); /* ended: forget it (a later event on it is a new record) */
			free(br);
		}
		if (++nd->nended >= nd->nbranches)
			close_node(e, nd);
	}
	show(e, t);
	return 0;
}

int orb_busy(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	enter(e);
	struct ob *o = st(e);
	struct emu_thread *t = cur(e, ev);
	struct ob_agent *g = &o->ag[t->stream->index];
	uint64_t raw = (uint64_t) ev_field(in, 0, ev);
	int32_t b = (int32_t) ev_field(in, 1, ev);
	int start = ev->val == '[';
	struct ob_node *nd = find_open(o, raw);
	if (!nd)
		return check(e, err, "%s on branch %d of or-node %llx: no open MAKE_PUBLIC has that Nodeid "
			     "(unknown or closed)", start ? "START_BUSY" : "STOP_BUSY", b,
			     (unsigned long long) raw);
	struct orb_branch *br = branch(o, nd->id, b, 1);
	if (start) {
		if (g->nslave == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 4;
			g->slave = weft_xrealloc(g->slave, (size_t) g->cap * sizeof(*g->slave));
		}
		g->slave[g->nslave++] = br->k;
		br->nbusy++;
	} else {
		int k = g->nslave - 1;
		while (k >= 0 && !(g->slave[k].node == nd->id && g->slave[k].branch == b))
			k--;
		if (k < 0)
			return check(e, err, "STOP_BUSY on branch %d of or-node %llx: this agent has no "
				     "START_BUSY on it", b, (unsigned long long) raw);
		memmove(&g->slave[k], &g->slave[k + 1], (size_t) (g->nslave - k - 1) * sizeof(*g->slave));
		g->nslave--;
		br->nbusy--;
	}
	show(e, t);
	return 0;
}

int orb_active(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e);
	vao_activity(e, &st(e)->vc, ev, in);
	return 0;
}

int orb_wam(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e);
	vao_wam(e, &st(e)->vc, ev, in);
	return 0;
}

int orb_other(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	enter(e);
	punct(e, cur(e, ev), st(e)->vc.s_other, ev_field(in, 0, ev));
	vao_note_code(&st(e)->vc, (int32_t) ev_field(in, 0, ev));
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

int orb_setup(struct emu *e, struct weft_err *err)
{
	(void) err;
	struct ob *o = weft_xcalloc(1, sizeof(*o));
	e->mstate['R' - 0x21] = o;
	e->thread_name = agent_name;
	o->ag = weft_xcalloc((size_t) e->nth + 1, sizeof(*o->ag));
	o->cpu_row = weft_xmalloc(((size_t) e->nth + 1) * sizeof(int));
	for (int i = 0; i <= e->nth; i++)
		o->cpu_row[i] = -1;
	o->sc_node = emu_slot(e, EMU_CPU_FILE, OB_T_NODE, "Or-branch: current or-node of the agent");
	o->sc_agent = emu_slot(e, EMU_CPU_FILE, OB_T_AGENT, "Or-branch: agent number + 1");
	o->punct_time = weft_xcalloc((size_t) e->nth + 1, sizeof(uint64_t));
	o->punct_set = weft_xcalloc((size_t) e->nth + 1, 1);
	o->s_node = emu_slot(e, EMU_THREAD_FILE, OB_T_NODE, "Or-branch: current or-node");
	o->s_branch = emu_slot(e, EMU_THREAD_FILE, OB_T_BRANCH, "Or-branch: branch number + 1");
	o->s_outcome = emu_slot(e, EMU_THREAD_FILE, OB_T_OUTCOME, "Or-branch: branch outcome");
	o->s_open = emu_slot(e, EMU_THREAD_FILE, OB_T_OPEN, "Or-branch: public nodes open");
	o->vc.s_active = emu_slot(e, EMU_THREAD_FILE, OB_T_ACTIVE, "Or-branch: agent activity");
	o->vc.s_nact = emu_slot(e, EMU_THREAD_FILE, OB_T_NACT, "Or-branch: AGENT_BUSY/IDLE field 4");
	o->vc.s_wam = emu_slot(e, EMU_THREAD_FILE, OB_T_WAM, "Or-branch: WAM id");
	o->vc.s_other = emu_slot(e, EMU_THREAD_FILE, OB_T_OTHER, "Or-branch: other event code");
	/* an or-parallel log owns the thread states, unless and-fork is on too:
	 * then the model that receives START_TIME (the flag's) takes them */
	int andf = 0;
	for (int i = 0; i < e->nth && !andf; i++)
		andf = e->th[i].sys->req['A' - 0x21];
	if (!andf)
		e->state_owner = 'R';
	return 0;
}

int orb_finish(struct emu *e, struct weft_err *err)
{
	struct ob *o = st(e);
	e->ev = NULL;
	for (int i = 0; i < e->nth; i++)
		if (o->ag[i].nslave) {
			o->nwarn++;
			if (e->o.strict)
				return emu_model_error(e, err, "agent %lld ends the trace as a slave on %d "
						       "branch(es): expected a STOP_BUSY for each START_BUSY (--strict)",
						       (long long) e->th[i].sys->tid - 1, o->ag[i].nslave);
			if (!e->o.quiet)
				weft_warn("or-branch: agent %lld ends the trace as a slave on %d branch(es): "
					  "expected a STOP_BUSY for each START_BUSY",
					  (long long) e->th[i].sys->tid - 1, o->ag[i].nslave);
		}
	if (o->nwarn && !e->o.quiet)
		weft_warn("or-branch: %llu check warnings (errors with --strict)", (unsigned long long) o->nwarn);
	return 0;
}

void orb_pcf(struct emu *e, int file, struct strbuf *b)
{
	struct ob *o = st(e);
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: current or-node%s\n", OB_T_NODE,
		  file == EMU_CPU_FILE ? " of the agent" : "");
	if (o->nnodes && o->nnodes <= OB_PCF_NODES) {
		sb_printf(b, "VALUES\n");
		for (int i = 0; i < o->nnodes; i++)
			sb_printf(b, "%d or-node %llx #%d\n", i + 1, (unsigned long long) o->label_raw[i], i + 1);
	}
	sb_printf(b, "\n");
	if (file != EMU_THREAD_FILE) {
		sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: agent number + 1\n\n", OB_T_AGENT);
		return;
	}
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: branch number + 1\n\n", OB_T_BRANCH);
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: branch outcome\nVALUES\n1 Success\n2 Fail\n3 Suspend\n"
		     "4 Cut\n5 Leaf-cut\n\n", OB_T_OUTCOME);
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: public nodes open\n\n", OB_T_OPEN);
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: agent activity\nVALUES\n1 Busy (AGENT_BUSY)\n"
		     "2 Looking for work (AGENT_IDLE)\n\n", OB_T_ACTIVE);
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: AGENT_BUSY/IDLE field 4\n\n", OB_T_NACT);
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: WAM id\n\n", OB_T_WAM);
	sb_printf(b, "EVENT_TYPE\n0 %d Or-branch: other event code\n", OB_T_OTHER);
	vao_pcf_codes(&o->vc, b);
	sb_printf(b, "\n");
}

void orb_free(struct emu *e)
{
	struct ob *o = st(e);
	if (!o)
		return;
	struct ob_node *nd, *ntmp;
	HASH_ITER(hh, o->open, nd, ntmp) {
		HASH_DEL(o->open, nd);
		free(nd->send);
		free(nd);
	}
	struct orb_branch *b, *tmp;
	HASH_ITER(hh, o->br, b, tmp)
	{
		HASH_DEL(o->br, b);
		free(b);
	}
	free(o->label_raw);
	for (int i = 0; i < e->nth; i++)
		free(o->ag[i].slave);
	free(o->ag);
	free(o->cpu_row);
	free(o->punct_time);
	free(o->punct_set);
	free(o);
	e->mstate['R' - 0x21] = NULL;
}
