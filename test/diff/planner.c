/* SPDX-License-Identifier: GPL-3.0-or-later */
/* planner.c: from a seed, a random trace that is valid by construction.
 * Looms, processes (apps, ranks), threads and CPUs are drawn first; then
 * every thread walks a small state machine per model: each model keeps
 * one stack of open frames (enter/exit pairs, task bodies, worksharings),
 * a pop always closes the top, a task body starts only when no body of the
 * model runs on the thread, pauses only the topmost body, and everything
 * open is closed before the thread ends. Blocking frames (thread pause,
 * kernel switch-out) admit no other event until closed. Unordered regions
 * (OU[ .. OU]) hold a run of the thread's events whose clocks are
 * shuffled, so that sorting them gives back the planned order. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

enum { M_NOSV, M_NANOS6, M_OPENMP, M_MPI, M_TAMPI, M_NODES, NMODELS };
enum { RT_NONE, RT_NOSV, RT_NANOS6, RT_OPENMP, NRT };
enum { MAXMARK = 3, MAXDEPTH = 10, MAXTASK = 4096 };

struct pair {
	const char *in, *out;
};

struct model {
	const char *name, *version;
	const struct pair *pairs;
	const char *const *points; /* NULL-terminated */
	const char *const *sets;
	int nest; /* pairs may nest inside pairs of the same model */
};

static const struct pair nosv_pairs[] = {{"VSh", "VSf"}, {"VS[", "VS]"}, {"VSN", "VSn"}, {"VU[", "VU]"}, {"VMa", "VMA"},
					 {"VMf", "VMF"}, {"VAr", "VAR"}, {"VAd", "VAD"}, {"VAs", "VAS"}, {"VAp", "VAP"},
					 {"VAy", "VAY"}, {"VAw", "VAW"}, {"VAc", "VAC"}, {"VAa", "VAA"}, {"VAe", "VAE"},
					 {"VAl", "VAL"}, {"VAt", "VAT"}, {"VAu", "VAU"}, {"VAb", "VAB"}, {"VAo", "VAO"},
					 {"VAg", "VAG"}, {"VAk", "VAK"}, {"VAj", "VAJ"}, {"VAm", "VAM"}, {"VAi", "VAI"},
					 {"VAn", "VAN"}, {"VHw", "VHW"}, {"VHd", "VHD"}, {NULL, NULL}};
static const char *const nosv_points[] = {"VS@", "VSr", "VSs", NULL};
static const char *const nosv_sets[] = {"VPp", "VPr", "VPa", NULL};

static const struct pair nanos6_pairs[] = {
	{"6W[", "6W]"}, {"6Wt", "6WT"}, {"6Ww", "6WW"}, {"6Wm", "6WM"}, {"6Ws", "6WS"}, {"6Wr", "6WR"}, {"6Wg", "6WG"},
	{"6C[", "6C]"}, {"6U[", "6U]"}, {"6F[", "6F]"}, {"6O[", "6O]"}, {"6Ma", "6MA"}, {"6Mf", "6MF"}, {"6Dr", "6DR"},
	{"6Du", "6DU"}, {"6S[", "6S]"}, {"6Sa", "6SA"}, {"6Sp", "6SP"}, {"6Bb", "6BB"}, {"6Bu", "6BU"}, {"6Bw", "6BW"},
	{"6Bf", "6BF"}, {"6He", "6HE"}, {"6Hw", "6HW"}, {"6Hl", "6HL"}, {"6Hm", "6HM"}, {NULL, NULL}};
static const char *const nanos6_points[] = {"6W*", "6S@", "6Sr", "6Ss", NULL};
static const char *const nanos6_sets[] = {"6Pp", "6Pr", "6Pa", NULL};

static const struct pair openmp_pairs[] = {
	{"PBb", "PBB"}, {"PBj", "PBJ"}, {"PBf", "PBF"}, {"PBt", "PBT"}, {"PBs", "PBS"}, {"PIa", "PIA"}, {"PIr", "PIR"},
	{"PI[", "PI]"}, {"PWd", "PWD"}, {"PWy", "PWY"}, {"PWc", "PWC"}, {"PWs", "PWS"}, {"PWe", "PWE"}, {"PWi", "PWI"},
	{"PTa", "PTA"}, {"PTc", "PTC"}, {"PTd", "PTD"}, {"PTr", "PTR"}, {"PT[", "PT]"}, {"PTi", "PTI"}, {"PTs", "PTS"},
	{"PTg", "PTG"}, {"PTt", "PTT"}, {"PTw", "PTW"}, {"PTy", "PTY"}, {"PA[", "PA]"}, {"PMi", "PMI"}, {"PMu", "PMU"},
	{"PH[", "PH]"}, {"PCf", "PCF"}, {"PCi", "PCI"}, {NULL, NULL}};

static const struct pair mpi_pairs[] = {
	{"MUi", "MUI"}, {"MUt", "MUT"}, {"MUf", "MUF"}, {"MW[", "MW]"}, {"MWa", "MWA"}, {"MWy", "MWY"}, {"MWs", "MWS"},
	{"MT[", "MT]"}, {"MTa", "MTA"}, {"MTy", "MTY"}, {"MTs", "MTS"}, {"MR[", "MR]"}, {"MS[", "MS]"}, {"MSb", "MSB"},
	{"MSr", "MSR"}, {"MSs", "MSS"}, {"MRs", "MRS"}, {"MRo", "MRO"}, {"Mr[", "Mr]"}, {"Ms[", "Ms]"}, {"Msb", "MsB"},
	{"Msr", "MsR"}, {"Mss", "MsS"}, {"Mrs", "MrS"}, {"Mro", "MrO"}, {"MAg", "MAG"}, {"MAr", "MAR"}, {"MAa", "MAA"},
	{"MCb", "MCB"}, {"MDb", "MDB"}, {"MDg", "MDG"}, {"ME[", "ME]"}, {"MEs", "MES"}, {"MEb", "MEB"}, {"MDs", "MDS"},
	{"MCs", "MCS"}, {"MCe", "MCE"}, {"Mag", "MaG"}, {"Mar", "MaR"}, {"Maa", "MaA"}, {"Mcb", "McB"}, {"Mdb", "MdB"},
	{"Mdg", "MdG"}, {"Me[", "Me]"}, {"Mes", "MeS"}, {"Meb", "MeB"}, {"Mds", "MdS"}, {"Mcs", "McS"}, {"Mce", "McE"},
	{NULL, NULL}};

static const struct pair tampi_pairs[] = {
	{"TCi", "TCI"}, {"TGc", "TGC"}, {"TLi", "TLI"}, {"TLp", "TLP"}, {"TQa", "TQA"}, {"TQt", "TQT"}, {"TRc", "TRC"},
	{"TRt", "TRT"}, {"TRa", "TRA"}, {"TRs", "TRS"}, {"TTc", "TTC"}, {"TTw", "TTW"}, {NULL, NULL}};

static const struct pair nodes_pairs[] = {{"DR[", "DR]"}, {"DU[", "DU]"}, {"DW[", "DW]"},
					  {"DI[", "DI]"}, {"DT[", "DT]"}, {"DC[", "DC]"},
					  {"DS[", "DS]"}, {"DP[", "DP]"}, {NULL, NULL}};

static const char *const none[] = {NULL};

static const struct model models[NMODELS] = {
	[M_NOSV] = {"nosv", "2.7.0", nosv_pairs, nosv_points, nosv_sets, 1},
	[M_NANOS6] = {"nanos6", "1.1.0", nanos6_pairs, nanos6_points, nanos6_sets, 1},
	[M_OPENMP] = {"openmp", "1.2.1", openmp_pairs, none, none, 1},
	[M_MPI] = {"mpi", "1.0.0", mpi_pairs, none, none, 0},
	[M_TAMPI] = {"tampi", "1.0.0", tampi_pairs, none, none, 1},
	[M_NODES] = {"nodes", "1.0.0", nodes_pairs, none, none, 1},
};

/* The runtime's model and its task events. */
static const int rt_model[NRT] = {[RT_NONE] = -1, [RT_NOSV] = M_NOSV, [RT_NANOS6] = M_NANOS6, [RT_OPENMP] = M_OPENMP};

enum { F_PAIR, F_BODY, F_WS };

struct frame {
	int kind;
	const char *out;
	int task; /* F_BODY: index in the thread's tasks */
	uint32_t arg; /* F_WS: type; F_BODY: body id */
	int running;
	int group; /* its events' group (plan.h) */
};

struct stack {
	struct frame f[MAXDEPTH];
	int n;
};

struct task {
	uint32_t id, type;
	int parallel, started, ended;
	uint32_t next_body;
	int group;
};

struct proc_cfg {
	int rt, mpi, tampi, nodes, kernel, hwc;
	int nmark;
	int32_t mark_type[MAXMARK];
	int mark_stack[MAXMARK];
};

struct thr {
	struct rng *r;
	const struct proc_cfg *pc;
	int index; /* in its process: task and type ids */
	uint64_t t, quantum;
	struct plan_ev *ev;
	size_t n, cap;
	struct stack st[NMODELS];
	struct stack mark[MAXMARK];
	const char *block_out[2]; /* the events that close a blocking frame */
	int blocked;
	int unordered; /* steps left in the open OU[ region, -1: none */
	size_t ou_start; /* first event of the region */
	int ncpu, cpu[8], curcpu;
	struct task *task;
	int ntask;
	uint32_t ntypes, types[64], ws_types[8];
	int nws;
	/* groups: the events of one frame, task, pause or region share one,
	 * so that the minimiser drops them together; 0: a new one each */
	int g, gnext, block_group, ou_group;
	/* loose endings: marks and a flush left open (ovniemu accepts them),
	 * pairs left open (its -l refuses them: both must) */
	int leave_marks, leave_flush, leave_pairs;
	uint32_t set[NMODELS]; /* the value of each model's set channel */
};

static struct plan_ev *ev_new(struct thr *th, const char *mcv)
{
	if (th->n == th->cap) {
		th->cap = th->cap ? 2 * th->cap : 256;
		th->ev = realloc(th->ev, th->cap * sizeof(*th->ev));
		if (th->ev == NULL) {
			fprintf(stderr, "gen: out of memory\n");
			exit(3);
		}
	}
	struct plan_ev *e = &th->ev[th->n++];
	th->t += th->quantum * (1 + rng_below(th->r, 40));
	e->kind = 'E';
	e->clock = th->t;
	memcpy(e->mcv, mcv, 3);
	e->mcv[3] = '\0';
	e->plen = 0;
	e->group = th->g ? th->g : ++th->gnext;
	return e;
}

static void put(struct plan_ev *e, const void *v, int size)
{
	memcpy(e->pl + e->plen, v, (size_t) size);
	e->plen += size;
}

static void ev0(struct thr *th, const char *mcv)
{
	ev_new(th, mcv);
}

static void ev_u32(struct thr *th, const char *mcv, uint32_t a)
{
	put(ev_new(th, mcv), &a, 4);
}

static void ev_2u32(struct thr *th, const char *mcv, uint32_t a, uint32_t b)
{
	struct plan_ev *e = ev_new(th, mcv);
	put(e, &a, 4);
	put(e, &b, 4);
}

static void ev_type(struct thr *th, const char *mcv, uint32_t id)
{
	struct plan_ev *e = ev_new(th, mcv);
	char label[32];
	int n = snprintf(label, sizeof(label), "type%u", id);
	e->kind = 'J';
	put(e, &id, 4);
	put(e, label, n + 1);
}

static void ev_mark(struct thr *th, const char *mcv, int64_t value, int32_t type)
{
	struct plan_ev *e = ev_new(th, mcv);
	put(e, &value, 8);
	put(e, &type, 4);
}

static int npairs(const struct pair *p)
{
	int n = 0;
	while (p[n].in)
		n++;
	return n;
}

static int nnames(const char *const *p)
{
	int n = 0;
	while (p[n])
		n++;
	return n;
}

/* Open a group for the events that follow (a frame, a task...). */
static void group_open(struct thr *th)
{
	th->g = ++th->gnext;
}

/* The frame takes the open group, which closes. */
static void push(struct thr *th, struct stack *s, struct frame f)
{
	f.group = th->g;
	s->f[s->n++] = f;
	th->g = 0;
}

/* The topmost body frame of a stack, or -1. */
static int top_body(const struct stack *s)
{
	for (int i = s->n - 1; i >= 0; i--)
		if (s->f[i].kind == F_BODY)
			return i;
	return -1;
}

/* The top frame, thread-type frames (nanos6's 6H*, their own channel)
 * skipped, is a body: a body pushed on it repeats the subsystem value,
 * which ovniemu refuses. */
static int top_is_body(const struct stack *s)
{
	for (int i = s->n - 1; i >= 0; i--) {
		if (s->f[i].kind == F_PAIR && s->f[i].out && !strncmp(s->f[i].out, "6H", 2))
			continue;
		return s->f[i].kind == F_BODY;
	}
	return 0;
}

/* The pair (by its exit) is open on the stack: pushing it again repeats a
 * channel's value, which ovniemu refuses. */
static int open_pair(const struct stack *s, const char *out)
{
	for (int i = 0; i < s->n; i++)
		if (s->f[i].kind == F_PAIR && s->f[i].out && !strcmp(s->f[i].out, out))
			return 1;
	return 0;
}

static int running_body(const struct stack *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->f[i].kind == F_BODY && s->f[i].running)
			return 1;
	return 0;
}

/* ---- tasks ----------------------------------------------------------------- */

static const char *const type_ev[NRT] = {[RT_NOSV] = "VYc", [RT_NANOS6] = "6Yc", [RT_OPENMP] = "POc"};

static uint32_t new_type(struct thr *th)
{
	uint32_t id = (uint32_t) (th->index + 1) * 1000 + th->ntypes;
	ev_type(th, type_ev[th->pc->rt], id);
	if (th->ntypes < 64)
		th->types[th->ntypes++] = id;
	return id;
}

static void task_create(struct thr *th)
{
	if (th->ntask == MAXTASK)
		return;
	uint32_t type = th->ntypes == 0 || rng_pct(th->r, 15) ? new_type(th) : th->types[rng_below(th->r, th->ntypes)];
	struct task *k = &th->task[th->ntask];
	memset(k, 0, sizeof(*k));
	k->id = (uint32_t) (th->index + 1) * 100000 + (uint32_t) th->ntask + 1;
	k->type = type;
	group_open(th);
	k->group = th->g;
	switch (th->pc->rt) {
	case RT_NOSV:
		k->parallel = rng_pct(th->r, 25);
		ev_2u32(th, k->parallel ? "VTC" : "VTc", k->id, type);
		break;
	case RT_NANOS6:
		if (open_pair(&th->st[M_NANOS6], "6C]")) {
			ev_2u32(th, "6Tc", k->id, type);
			break;
		}
		ev0(th, "6C[");
		ev_2u32(th, "6Tc", k->id, type);
		ev0(th, "6C]");
		break;
	case RT_OPENMP:
		ev_2u32(th, "PPc", k->id, type);
		break;
	}
	th->g = 0;
	th->ntask++;
}

/* Run a task not yet run (a parallel one: its next body). */
static void task_execute(struct thr *th, struct stack *s)
{
	int rt = th->pc->rt;
	if (s->n == MAXDEPTH || (rt != RT_OPENMP && (running_body(s) || top_is_body(s))))
		return;
	int cand[16], nc = 0;
	for (int i = th->ntask - 1; i >= 0 && nc < 16; i--) {
		struct task *k = &th->task[i];
		if (!k->started || (k->parallel && !k->ended && k->next_body < 1000 && top_body(s) < 0))
			cand[nc++] = i;
	}
	if (nc == 0)
		return;
	int i = cand[rng_below(th->r, (uint32_t) nc)];
	struct task *k = &th->task[i];
	/* a parallel task's bodies run one after another on this thread */
	for (int j = 0; j < s->n; j++)
		if (s->f[j].kind == F_BODY && s->f[j].task == i)
			return;
	uint32_t body = k->parallel ? ++k->next_body : 0;
	k->started = 1;
	th->g = k->group;
	switch (rt) {
	case RT_NOSV:
		ev_2u32(th, "VTx", k->id, body);
		break;
	case RT_NANOS6:
		ev0(th, "6t[");
		ev_u32(th, "6Tx", k->id);
		break;
	case RT_OPENMP:
		ev_u32(th, "PPx", k->id);
		break;
	}
	push(th, s, (struct frame){F_BODY, NULL, i, body, 1, 0});
}

static void task_pause(struct thr *th, struct stack *s)
{
	int b = top_body(s);
	if (b < 0 || !s->f[b].running || th->task[s->f[b].task].parallel || th->pc->rt == RT_OPENMP)
		return;
	s->f[b].running = 0;
	th->g = s->f[b].group;
	if (th->pc->rt == RT_NOSV)
		ev_2u32(th, "VTp", th->task[s->f[b].task].id, 0);
	else
		ev_u32(th, "6Tp", th->task[s->f[b].task].id);
	th->g = 0;
}

static void task_resume(struct thr *th, struct stack *s)
{
	int b = top_body(s);
	if (b < 0 || s->f[b].running)
		return;
	s->f[b].running = 1;
	th->g = s->f[b].group;
	if (th->pc->rt == RT_NOSV)
		ev_2u32(th, "VTr", th->task[s->f[b].task].id, 0);
	else
		ev_u32(th, "6Tr", th->task[s->f[b].task].id);
	th->g = 0;
}

/* End the body on top of the stack (it must be one, running). */
static void task_end(struct thr *th, struct stack *s)
{
	struct frame *f = &s->f[s->n - 1];
	struct task *k = &th->task[f->task];
	th->g = f->group;
	switch (th->pc->rt) {
	case RT_NOSV:
		ev_2u32(th, "VTe", k->id, f->arg);
		break;
	case RT_NANOS6:
		ev_u32(th, "6Te", k->id);
		ev0(th, "6t]");
		break;
	case RT_OPENMP:
		ev_u32(th, "PPe", k->id);
		break;
	}
	th->g = 0;
	if (!k->parallel || rng_pct(th->r, 30))
		k->ended = 1;
	s->n--;
}

/* ---- one step of a model ----------------------------------------------------- */

static void pop_frame(struct thr *th, struct stack *s)
{
	struct frame *f = &s->f[s->n - 1];
	switch (f->kind) {
	case F_PAIR:
		th->g = f->group;
		ev0(th, f->out);
		th->g = 0;
		s->n--;
		break;
	case F_WS:
		th->g = f->group;
		ev_u32(th, "PQe", f->arg);
		th->g = 0;
		s->n--;
		break;
	case F_BODY:
		if (!f->running)
			task_resume(th, s);
		task_end(th, s);
		break;
	}
}

static void model_step(struct thr *th, int m)
{
	const struct model *md = &models[m];
	struct stack *s = &th->st[m];
	struct rng *r = th->r;
	uint32_t op = rng_below(r, 100);
	int is_rt = rt_model[th->pc->rt] == m;

	if (is_rt && op < 40) {
		switch (op % 5) {
		case 0:
			task_create(th);
			break;
		case 1:
			task_execute(th, s);
			break;
		case 2:
			task_pause(th, s);
			break;
		case 3:
			task_resume(th, s);
			break;
		case 4:
			if (s->n && s->f[s->n - 1].kind == F_BODY && s->f[s->n - 1].running)
				task_end(th, s);
			break;
		}
		return;
	}
	if (m == M_OPENMP && op < 50) {
		/* worksharings: labelled by a type */
		if (s->n && s->f[s->n - 1].kind == F_WS) {
			pop_frame(th, s);
		} else if (s->n < MAXDEPTH) {
			if (th->nws == 0 || (th->nws < 8 && rng_pct(r, 20))) {
				uint32_t id = (uint32_t) (th->index + 1) * 1000 + 500 + (uint32_t) th->nws;
				ev_type(th, "POc", id);
				th->ws_types[th->nws++] = id;
			}
			uint32_t ty = th->ws_types[rng_below(r, (uint32_t) th->nws)];
			for (int i = 0; i < s->n; i++)
				if (s->f[i].kind == F_WS && s->f[i].arg == ty)
					return;
			group_open(th);
			ev_u32(th, "PQx", ty);
			push(th, s, (struct frame){F_WS, NULL, 0, ty, 0, 0});
		}
		return;
	}
	int np = nnames(md->points), ns = nnames(md->sets);
	if (np && op < 50) {
		ev0(th, md->points[rng_below(r, (uint32_t) np)]);
		return;
	}
	if (ns && op < 60) {
		/* a set to another value: ovniemu refuses the value it holds
		 * (the first of the table, at the start) */
		uint32_t v = 1 + rng_below(r, (uint32_t) ns - 1);
		th->set[m] = (th->set[m] + v) % (uint32_t) ns;
		ev0(th, md->sets[th->set[m]]);
		return;
	}
	/* a pair: close the top one, or open another */
	if (s->n && s->f[s->n - 1].kind == F_PAIR && rng_pct(r, 45)) {
		pop_frame(th, s);
		return;
	}
	if (s->n == MAXDEPTH || (!md->nest && s->n > 0))
		return;
	const struct pair *p = &md->pairs[rng_below(r, (uint32_t) npairs(md->pairs))];
	if (open_pair(s, p->out))
		return;
	group_open(th);
	ev0(th, p->in);
	push(th, s, (struct frame){F_PAIR, p->out, 0, 0, 0, 0});
}

static void mark_step(struct thr *th, int k)
{
	const struct proc_cfg *pc = th->pc;
	struct stack *s = &th->mark[k];
	int64_t v = 1 + rng_below(th->r, 4);
	if (!pc->mark_stack[k]) {
		ev_mark(th, "OM=", v, pc->mark_type[k]);
	} else if (s->n && rng_pct(th->r, 50)) {
		th->g = s->f[s->n - 1].group;
		ev_mark(th, "OM]", s->f[s->n - 1].arg, pc->mark_type[k]);
		th->g = 0;
		s->n--;
	} else if (s->n < MAXDEPTH) {
		group_open(th);
		ev_mark(th, "OM[", v, pc->mark_type[k]);
		push(th, s, (struct frame){F_PAIR, NULL, 0, (uint32_t) v, 0, 0});
	}
}

static void unordered_close(struct thr *th)
{
	/* shuffle the clocks of the region's events: sorting restores them */
	size_t a = th->ou_start, n = th->n - a;
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_below(th->r, (uint32_t) i);
		struct plan_ev x = th->ev[a + i - 1];
		th->ev[a + i - 1] = th->ev[a + j];
		th->ev[a + j] = x;
	}
	th->g = th->ou_group;
	ev0(th, "OU]");
	th->g = 0;
	th->unordered = -1;
}

static void ovni_step(struct thr *th)
{
	struct rng *r = th->r;
	switch (rng_below(r, 6)) {
	case 0: {
		int n = 1 + (int) rng_below(r, 3);
		group_open(th);
		for (int i = 0; i < n; i++)
			ev0(th, "OB.");
		th->g = 0;
		break;
	}
	case 1:
		group_open(th);
		ev0(th, "OF[");
		ev0(th, "OF]");
		th->g = 0;
		break;
	case 2:
		if (th->ncpu > 1) {
			int c;
			do
				c = th->cpu[rng_below(r, (uint32_t) th->ncpu)];
			while (c == th->curcpu);
			th->curcpu = c;
			int32_t c32 = c;
			put(ev_new(th, "OAs"), &c32, 4);
		}
		break;
	case 3:
	case 4:
		group_open(th);
		th->block_group = th->g;
		if (rng_pct(r, 50)) {
			ev0(th, "OHp");
			th->block_out[0] = "OHr";
			th->block_out[1] = NULL;
		} else {
			ev0(th, "OHc");
			ev0(th, "OHp");
			th->block_out[0] = "OHw";
			th->block_out[1] = "OHr";
		}
		th->blocked = 1;
		th->g = 0;
		break;
	case 5:
		if (th->unordered < 0) {
			group_open(th);
			th->ou_group = th->g;
			ev0(th, "OU[");
			th->g = 0;
			th->ou_start = th->n;
			th->unordered = 2 + (int) rng_below(r, 10);
		}
		break;
	}
}

static void unblock(struct thr *th)
{
	th->g = th->block_group;
	for (int i = 0; i < 2 && th->block_out[i]; i++)
		ev0(th, th->block_out[i]);
	th->g = 0;
	th->blocked = 0;
}

static void thread_step(struct thr *th)
{
	const struct proc_cfg *pc = th->pc;
	struct rng *r = th->r;
	if (th->blocked) {
		unblock(th);
		return;
	}
	if (th->unordered == 0)
		unordered_close(th);
	else if (th->unordered > 0)
		th->unordered--;
	uint32_t w = rng_below(r, 100);
	int rtm = rt_model[pc->rt];
	if (w < 55 && rtm >= 0)
		model_step(th, rtm);
	else if (w < 63 && pc->mpi)
		model_step(th, M_MPI);
	else if (w < 70 && pc->tampi)
		model_step(th, M_TAMPI);
	else if (w < 77 && pc->nodes)
		model_step(th, M_NODES);
	else if (w < 80 && pc->kernel && th->unordered < 0) {
		group_open(th);
		th->block_group = th->g;
		ev0(th, "KCO");
		th->g = 0;
		th->block_out[0] = "KCI";
		th->block_out[1] = NULL;
		th->blocked = 1;
	} else if (w < 88 && pc->nmark)
		mark_step(th, (int) rng_below(r, (uint32_t) pc->nmark));
	else if (w < 92 && pc->rt == RT_NOSV && pc->hwc) {
		struct plan_ev *e = ev_new(th, "VWC");
		e->kind = 'J';
		for (int i = 0; i < 2; i++) {
			int64_t v = rng_below(r, 1000);
			put(e, &v, 8);
		}
	} else if (th->unordered < 0 || rng_pct(r, 30))
		ovni_step(th);
}

static void thread_close(struct thr *th)
{
	if (th->blocked)
		unblock(th);
	if (th->unordered >= 0)
		unordered_close(th);
	for (int k = 0; k < th->pc->nmark && !th->leave_marks; k++)
		while (th->mark[k].n) {
			th->g = th->mark[k].f[th->mark[k].n - 1].group;
			ev_mark(th, "OM]", th->mark[k].f[th->mark[k].n - 1].arg, th->pc->mark_type[k]);
			th->g = 0;
			th->mark[k].n--;
		}
	for (int m = 0; m < NMODELS; m++) {
		int bodies = 0;
		for (int i = 0; i < th->st[m].n; i++)
			bodies |= th->st[m].f[i].kind != F_PAIR;
		while (th->st[m].n && (bodies || !th->leave_pairs))
			pop_frame(th, &th->st[m]);
	}
	if (th->leave_flush)
		ev0(th, "OF[");
	ev0(th, "OHe");
}

/* ---- the system ---------------------------------------------------------------- */

static void shuffle(struct rng *r, int *a, int n)
{
	for (int i = n; i > 1; i--) {
		int j = (int) rng_below(r, (uint32_t) i), x = a[i - 1];
		a[i - 1] = a[j];
		a[j] = x;
	}
}

static void emit_thread(struct plan *p, struct thr *th, int64_t offset)
{
	char buf[1400];
	for (size_t i = 0; i < th->n; i++) {
		struct plan_ev e = th->ev[i];
		e.clock = (uint64_t) ((int64_t) e.clock - offset);
		plan_ev_format(&e, buf, sizeof(buf));
		plan_add(p, "%s", buf);
	}
}

void plan_generate(struct plan *p, uint64_t seed)
{
	struct rng rs = {seed * 0x2545f4914f6cdd1dULL + 1}, *r = &rs;
	int nlooms = 1 + (int) rng_below(r, 3);
	int nprocs[3], nthr[3][3], total = 0;
	for (int l = 0; l < nlooms; l++) {
		nprocs[l] = 1 + (int) rng_below(r, 3);
		int left = 8;
		for (int q = 0; q < nprocs[l]; q++) {
			int most = left - (nprocs[l] - q - 1);
			nthr[l][q] = 1 + (int) rng_below(r, (uint32_t) (most < 3 ? most : 3));
			left -= nthr[l][q];
		}
		total += nprocs[l];
	}
	int ranked = rng_pct(r, 50), rank_of[9], k = 0;
	for (int i = 0; i < total; i++)
		rank_of[i] = i;
	shuffle(r, rank_of, total);
	int offsets = nlooms > 1 && rng_pct(r, 60);
	uint64_t quantum = rng_pct(r, 20) ? 100 : rng_pct(r, 50) ? 10 : 1;
	/* a loose trace: what a tidy runtime would not write (threads that end
	 * with marks, a flush or subsystems open; a thread that takes over the
	 * CPU of one that just ended, at the same ns or 1 ns later; looms up to
	 * an hour apart; offsets with decimals) */
	int loose = rng_pct(r, 30);
	uint64_t hours[3] = {0, 0, 0};
	int steps_max = 20 + (int) rng_below(r, 200);
	/* every thread says whether nOS-V's breakdown can be made */
	int can_breakdown = !rng_pct(r, 10);

	plan_add(p, "# weft diff plan, seed %llu", (unsigned long long) seed);
	char host[3][32];
	int64_t off[3] = {0, 0, 0};
	for (int l = 0; l < nlooms; l++) {
		snprintf(host[l], sizeof(host[l]), "node%d", (int) rng_below(r, 100) + 100 * l);
		if (offsets) {
			off[l] = (int64_t) rng_below(r, 1000000) - 500000;
			/* ovniemu takes the median's integer part */
			if (loose && rng_pct(r, 50))
				plan_add(p, "O %s %s%lld.500", host[l], off[l] < 0 ? "-" : "",
					 (long long) (off[l] < 0 ? -off[l] : off[l]));
			else
				plan_add(p, "O %s %lld", host[l], (long long) off[l]);
		} else if (loose && l > 0 && rng_pct(r, 40)) {
			/* ovniemu refuses streams that start over 1 h apart */
			hours[l] = 1000000000ULL * (60 + rng_below(r, 3500));
		}
	}
	for (int l = 0; l < nlooms; l++) {
		char loom[64];
		if (rng_pct(r, 50))
			snprintf(loom, sizeof(loom), "%s.%u", host[l], rng_below(r, 100));
		else
			snprintf(loom, sizeof(loom), "%s", host[l]);
		int nt = 0;
		for (int q = 0; q < nprocs[l]; q++)
			nt += nthr[l][q];
		int ncpu = nt + (int) rng_below(r, 3), order[16];
		if (ncpu > 16)
			ncpu = 16;
		for (int c = 0; c < ncpu; c++)
			order[c] = c;
		shuffle(r, order, ncpu);
		int phybase = (int) rng_below(r, 4), used = 0;
		int pids[3] = {0};
		for (int q = 0; q < nprocs[l]; q++) {
			int pid;
			int again;
			do {
				pid = 100 + 16 * (int) rng_below(r, 2000);
				again = 0;
				for (int j = 0; j < q; j++)
					again |= pids[j] == pid;
			} while (again);
			pids[q] = pid;
			struct proc_cfg pc = {0};
			pc.rt = (int) rng_below(r, NRT);
			pc.mpi = rng_pct(r, 40);
			pc.tampi = rng_pct(r, 25);
			pc.nodes = pc.rt == RT_NANOS6 && rng_pct(r, 50);
			pc.kernel = rng_pct(r, 25);
			pc.hwc = rng_pct(r, 30);
			pc.nmark = (int) rng_below(r, MAXMARK + 1);
			for (int m = 0; m < pc.nmark; m++) {
				pc.mark_type[m] = (int32_t) (1 + m * 30 + (int) rng_below(r, 30));
				/* a type is one kind in the whole trace (ovniemu merges them) */
				pc.mark_stack[m] = pc.mark_type[m] % 2;
			}
			int app = 1 + (int) rng_below(r, 2);
			plan_add(p, "P %d %s %d %d %d", app, loom, pid, ranked ? rank_of[k] : -1, ranked ? total : 0);
			k++;
			uint64_t prev_end = 0;
			int prev_cpu = -1;
			for (int t = 0; t < nthr[l][q]; t++) {
				struct thr th;
				memset(&th, 0, sizeof(th));
				th.r = r;
				th.pc = &pc;
				th.index = t;
				th.quantum = quantum;
				th.unordered = -1;
				th.t = hours[l] + 1000000 + quantum * rng_below(r, 200);
				th.task = calloc(MAXTASK, sizeof(*th.task));
				int takeover = loose && prev_cpu >= 0 && rng_pct(r, 40);
				if (takeover) {
					/* the CPU the previous thread ended on, from its end */
					th.ncpu = 1;
					th.cpu[0] = prev_cpu;
					th.t = prev_end;
				} else {
					/* its own CPUs: one, or two when spare ones are left */
					th.ncpu = 1 + (used + 1 < ncpu - (nt - 1) && rng_pct(r, 30));
					for (int c = 0; c < th.ncpu; c++)
						th.cpu[c] = order[used++];
				}
				nt--;
				th.curcpu = th.cpu[0];
				if (loose) {
					th.leave_marks = rng_pct(r, 30);
					th.leave_flush = rng_pct(r, 15);
					th.leave_pairs = rng_pct(r, 5);
				}
				int tid = pid + 1 + t;
				plan_add(p, "T %d", tid);
				if (t == 0)
					for (int c = 0; c < ncpu; c++)
						plan_add(p, "C %d %d", c, phybase + c);
				for (int m = 0; m < NMODELS; m++) {
					int on = rt_model[pc.rt] == m || (m == M_MPI && pc.mpi) ||
						(m == M_TAMPI && pc.tampi) || (m == M_NODES && pc.nodes);
					if (on)
						plan_add(p, "R %s %s", models[m].name, models[m].version);
				}
				if (pc.kernel)
					plan_add(p, "R kernel 1.0.0");
				plan_add(p, "A nosv.can_breakdown %d", can_breakdown);
				if (pc.rt == RT_NOSV) {
					if (pc.hwc) {
						plan_add(p, "S nosv.hwc.0.name PAPI_TOT_INS");
						plan_add(p, "S nosv.hwc.1.name PAPI_TOT_CYC");
					}
				}
				for (int m = 0; m < pc.nmark; m++) {
					plan_add(p, "Y %d %d mark%d", pc.mark_type[m], pc.mark_stack[m],
						 pc.mark_type[m]);
					if (rng_pct(r, 50))
						for (int v = 1; v <= 4; v++)
							plan_add(p, "N %d %d value%d", pc.mark_type[m], v, v);
				}
				{
					struct plan_ev *e = ev_new(&th, "OHx");
					int32_t cpu = th.curcpu, creator = -1;
					uint64_t tag = 0;
					put(e, &cpu, 4);
					put(e, &creator, 4);
					put(e, &tag, 8);
					/* at the same ns (which stream goes first is then
					 * the emulator's tie order) or 1 ns later */
					if (takeover)
						th.t = e->clock = prev_end + rng_below(r, 2);
				}
				int steps = 5 + (int) rng_below(r, (uint32_t) steps_max);
				for (int s = 0; s < steps; s++)
					thread_step(&th);
				thread_close(&th);
				prev_end = th.t;
				prev_cpu = th.curcpu;
				emit_thread(p, &th, off[l]);
				free(th.ev);
				free(th.task);
			}
		}
	}
}
