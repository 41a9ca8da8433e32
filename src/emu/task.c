/* SPDX-License-Identifier: GPL-3.0-or-later */
/* task: task bodies, types and per-thread body stacks (task.h). */
#include "emu/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- runs of ended body ids (parallel tasks) --------------------------- */

/* Index of the run holding id, or -1. */
static long runs_find(const struct task_runs *rs, uint32_t id)
{
	size_t lo = 0, hi = rs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct task_run *r = &rs->r[mid];
		if (id < r->lo)
			hi = mid;
		else if (id > r->hi)
			lo = mid + 1;
		else
			return (long) mid;
	}
	return -1;
}

static int runs_mergeable(const struct task_run *r, struct task_type *type, uint32_t flags)
{
	return r->flags == flags && r->type == type;
}

static void runs_insert_at(struct task_runs *rs, size_t i, struct task_run run)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 8;
		rs->r = weft_xrealloc(rs->r, rs->cap * sizeof(*rs->r));
	}
	memmove(&rs->r[i + 1], &rs->r[i], (rs->n - i) * sizeof(*rs->r));
	rs->r[i] = run;
	rs->n++;
}

static void runs_delete_at(struct task_runs *rs, size_t i)
{
	memmove(&rs->r[i], &rs->r[i + 1], (rs->n - i - 1) * sizeof(*rs->r));
	rs->n--;
}

/* Add id (not yet in any run). Ids mostly end in creation order, so the
 * new id usually extends the last run. */
static void runs_add(struct task_runs *rs, uint32_t id, struct task_type *type, uint32_t flags)
{
	size_t lo = 0, hi = rs->n; /* first run starting above id */
	if (rs->n && rs->r[rs->n - 1].lo < id) {
		lo = rs->n;
	} else {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (rs->r[mid].lo > id)
				hi = mid;
			else
				lo = mid + 1;
		}
	}
	size_t i = lo;
	struct task_run *left = i > 0 ? &rs->r[i - 1] : NULL;
	struct task_run *right = i < rs->n ? &rs->r[i] : NULL;
	int join_left = left && (uint64_t) left->hi + 1 == id && runs_mergeable(left, type, flags);
	int join_right = right && (uint64_t) id + 1 == right->lo && runs_mergeable(right, type, flags);
	if (join_left && join_right) {
		left->hi = right->hi;
		runs_delete_at(rs, i);
	} else if (join_left) {
		left->hi = id;
	} else if (join_right) {
		right->lo = id;
	} else {
		runs_insert_at(rs, i, (struct task_run){id, id, type, flags});
	}
}

/* Take id out of run i. */
static void runs_remove(struct task_runs *rs, size_t i, uint32_t id)
{
	struct task_run *r = &rs->r[i];
	if (r->lo == r->hi) {
		runs_delete_at(rs, i);
	} else if (id == r->lo) {
		r->lo++;
	} else if (id == r->hi) {
		r->hi--;
	} else {
		struct task_run upper = *r;
		upper.lo = id + 1;
		r->hi = id - 1;
		runs_insert_at(rs, i + 1, upper);
	}
}

static void runs_free(struct task_runs *rs)
{
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

/* ---- ended tasks ------------------------------------------------------- */

#define USED 0x80000000u

static size_t home(const struct task_ended *t, uint32_t id)
{
	return (size_t) (((uint64_t) id * 0x9E3779B97F4A7C15ull) >> (64 - t->bits));
}

/* Slot of id, or NULL. */
static struct task_ended_slot *ended_find(const struct task_ended *t, uint32_t id)
{
	if (!t->mask)
		return NULL;
	for (size_t i = home(t, id);; i = (i + 1) & t->mask) {
		struct task_ended_slot *s = &t->slot[i];
		if (!(s->info & USED))
			return NULL;
		if (s->id == id)
			return s;
	}
}

static void ended_put(struct task_ended *t, struct task_ended_slot v)
{
	size_t i = home(t, v.id);
	while (t->slot[i].info & USED)
		i = (i + 1) & t->mask;
	t->slot[i] = v;
	t->n++;
}

static void ended_grow(struct task_ended *t)
{
	struct task_ended_slot *old = t->slot;
	size_t oldn = t->mask ? t->mask + 1 : 0;
	t->bits = t->bits ? t->bits + 1 : 6;
	t->mask = ((size_t) 1 << t->bits) - 1;
	t->slot = weft_xcalloc(t->mask + 1, sizeof(*t->slot));
	t->n = 0;
	for (size_t i = 0; i < oldn; i++)
		if (old[i].info & USED)
			ended_put(t, old[i]);
	free(old);
}

/* Take slot s out (linear probing: later entries of its cluster move back). */
static void ended_delete(struct task_ended *t, struct task_ended_slot *s)
{
	size_t i = (size_t) (s - t->slot);
	for (size_t j = (i + 1) & t->mask; t->slot[j].info & USED; j = (j + 1) & t->mask) {
		size_t k = home(t, t->slot[j].id);
		/* can the entry at j move to the hole at i? (i is between k and j, cyclically) */
		if (((j - k) & t->mask) >= ((j - i) & t->mask)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	t->slot[i].info = 0;
	t->n--;
}

/* Remember an ended task; past max, the oldest is dropped. */
static void ended_add(struct task_proc *p, uint32_t id, uint32_t info)
{
	struct task_ended *t = &p->ended;
	size_t max = p->ended_max ? p->ended_max : TASK_ENDED_MAX;
	if (!t->ring) {
		t->cap = max;
		t->ring = weft_xmalloc(t->cap * sizeof(*t->ring));
	}
	if (t->count == t->cap) {
		/* the oldest entry of the ring; stale when its task ran again since */
		struct task_ended_slot *s = ended_find(t, t->ring[t->head].id);
		if (s && s->seq == t->ring[t->head].seq) {
			if (s->id > p->forgot_hi)
				p->forgot_hi = s->id;
			p->forgotten++;
			ended_delete(t, s);
		}
		t->head = (t->head + 1) % t->cap;
		t->count--;
	}
	if (2 * (t->n + 1) > t->mask + 1)
		ended_grow(t);
	uint32_t seq = t->seq++;
	ended_put(t, (struct task_ended_slot){id, info | USED, seq});
	size_t tail = (t->head + t->count) % t->cap;
	t->ring[tail].id = id;
	t->ring[tail].seq = seq;
	t->count++;
}

static void ended_free(struct task_ended *t)
{
	free(t->slot);
	free(t->ring);
	memset(t, 0, sizeof(*t));
}

/* ---- types ------------------------------------------------------------- */

uint32_t task_type_gid(const char *label)
{
	/* ovniemu's value: uthash's Jenkins hash of the label, moved off the
	 * colours of small values, kept positive and out of Paraver's reserved
	 * values below 1000. */
	unsigned h;
	HASH_VALUE(label, strlen(label), h);
	uint32_t gid = ((uint32_t) h + 666u) & 0x7FFFFFFFu;
	if (gid < 1000)
		gid += 1000;
	return gid;
}

void task_proc_init(struct task_proc *p)
{
	memset(p, 0, sizeof(*p));
}

struct task_type *task_type_find(const struct task_proc *p, uint32_t type_id)
{
	struct task_type *t = NULL;
	HASH_FIND(hh, p->types, &type_id, sizeof(type_id), t);
	return t;
}

int task_type_create(struct task_proc *p, uint32_t type_id, const char *label, struct weft_err *e)
{
	if (task_type_find(p, type_id))
		return weft_fail(e, WEFT_EINPUT, "a task type with id %u already exists", type_id);
	if (type_id == 0)
		return weft_fail(e, WEFT_EINPUT, "invalid task type id %u", type_id);
	char *l = label[0] ? weft_xstrdup(label) : weft_xasprintf("(unlabeled task type %u)", type_id);
	if (strlen(l) >= TASK_LABEL_MAX) {
		free(l);
		return weft_fail(e, WEFT_EINPUT, "task type %u label too long", type_id);
	}
	struct task_type *t = weft_xcalloc(1, sizeof(*t));
	t->id = type_id;
	t->label = l;
	t->gid = task_type_gid(l);
	t->index = (uint32_t) p->ntypes;
	p->tvec = weft_xrealloc(p->tvec, (p->ntypes + 1) * sizeof(*p->tvec));
	p->tvec[p->ntypes++] = t;
	HASH_ADD(hh, p->types, id, sizeof(t->id), t);
	if (p->last)
		p->last->next = t;
	else
		p->first = t;
	p->last = t;
	return 0;
}

/* ---- tasks ------------------------------------------------------------- */

struct task *task_find(const struct task_proc *p, uint32_t task_id)
{
	struct task *t = NULL;
	HASH_FIND(hh, p->tasks, &task_id, sizeof(task_id), t);
	return t;
}

static struct task *task_new(struct task_proc *p, uint32_t task_id, struct task_type *type, uint32_t flags)
{
	struct task *t = p->free_tasks;
	if (t) {
		p->free_tasks = t->free_next;
		struct task_runs dead = t->dead; /* keep the array, emptied */
		memset(t, 0, sizeof(*t));
		t->dead = dead;
		t->dead.n = 0;
	} else {
		t = weft_xcalloc(1, sizeof(*t));
	}
	t->id = task_id;
	t->type = type;
	t->flags = flags;
	t->body.id = 1;
	t->body.task = t;
	HASH_ADD(hh, p->tasks, id, sizeof(t->id), t);
	p->ntasks++;
	if ((uint64_t) task_id >= p->id_hi)
		p->id_hi = (uint64_t) task_id + 1;
	return t;
}

int task_create(struct task_proc *p, uint32_t task_id, uint32_t type_id, uint32_t flags, struct weft_err *e)
{
	if ((uint64_t) task_id < p->id_hi && (task_find(p, task_id) || ended_find(&p->ended, task_id)))
		return weft_fail(e, WEFT_EINPUT, "task_id %u already exists", task_id);
	struct task_type *type = task_type_find(p, type_id);
	if (!type)
		return weft_fail(e, WEFT_EINPUT, "unknown type id %u", type_id);
	task_new(p, task_id, type, flags);
	return 0;
}

/* ---- the body an event names ------------------------------------------- */

static const char *const state_name[] = {
	[0] = "Created", /* a body about to be created */
	[TASK_CREATED] = "Created",
	[TASK_RUNNING] = "Running",
	[TASK_PAUSED] = "Paused",
	[TASK_DEAD] = "Dead",
};

/* A task and one of its bodies as an event names them: live, or ended and
 * known only by a run. state 0: the body does not exist yet. */
struct target {
	struct task *task;      /* NULL: an ended non-parallel task */
	struct task_body *body; /* NULL: not live */
	uint32_t task_id, body_id, flags;
	struct task_type *type;
	int state;
	long run; /* a parallel task: index of the run holding the ended body id, or -1 */
	struct task_ended_slot *ended; /* an ended non-parallel task */
};

/* "body(id=B,taskid=T)", for a message: formatted only when one is written
 * (every task event resolves its target; a name each cost ~1,100
 * instructions, 5% of the main thread on the nosv,mpi,tampi synth). */
#define TNAME(t) tname((t), (char[48]){0})
static const char *tname(const struct target *t, char *b)
{
	snprintf(b, 48, "body(id=%u,taskid=%u)", t->body_id, t->task_id);
	return b;
}

static int resolve(const struct task_proc *p, uint32_t task_id, uint32_t body_id, struct target *t,
		   struct weft_err *e)
{
	memset(t, 0, sizeof(*t));
	t->task_id = task_id;
	t->run = -1;
	t->task = task_find(p, task_id);
	if (t->task) {
		t->flags = t->task->flags;
		t->type = t->task->type;
	} else {
		t->ended = ended_find(&p->ended, task_id);
		if (!t->ended && p->forgotten && task_id <= p->forgot_hi)
			return weft_fail(e, WEFT_EINPUT,
					 "cannot find task with id %u (or it ended long ago: weft remembers the last %zu "
					 "ended tasks of a process)",
					 task_id, p->ended_max ? p->ended_max : TASK_ENDED_MAX);
		if (!t->ended)
			return weft_fail(e, WEFT_EINPUT, "cannot find task with id %u", task_id);
		t->flags = (t->ended->info >> 24) & 0xf;
		uint32_t ti = t->ended->info & 0xffffff;
		t->type = ti ? p->tvec[ti - 1] : NULL;
	}
	if (t->flags & TASK_PARALLEL) {
		if (body_id == 0)
			return weft_fail(e, WEFT_EINPUT, "the body_id must be > 0 for parallel task %u", task_id);
	} else {
		if (body_id != 0)
			return weft_fail(e, WEFT_EINPUT, "the body_id must be 0 for non-parallel task %u", task_id);
		body_id = 1; /* the one body */
	}
	t->body_id = body_id;
	if (!t->task) {
		t->state = TASK_DEAD;
	} else if (!(t->flags & TASK_PARALLEL)) {
		t->body = t->task->body.state ? &t->task->body : NULL;
		t->state = t->task->body.state;
	} else {
		for (struct task_body *b = t->task->bodies; b; b = b->next)
			if (b->id == body_id) {
				t->body = b;
				t->state = b->state;
				break;
			}
		if (!t->body) {
			t->run = runs_find(&t->task->dead, body_id);
			t->state = t->run >= 0 ? TASK_DEAD : 0;
		}
	}
	return 0;
}

static int need_body(const struct target *t, struct weft_err *e)
{
	if (t->state == 0)
		return weft_fail(e, WEFT_EINPUT, "cannot find body with id %u in task %u", t->body_id, t->task_id);
	return 0;
}

/* A body that runs or is paused must be on top of this thread's stack. */
static int need_top(const struct target *t, const struct task_stack *s, struct weft_err *e)
{
	if (t->body->stack != s)
		return weft_fail(e, WEFT_EINPUT, "%s has another stack", TNAME(t));
	if (s->top != t->body)
		return weft_fail(e, WEFT_EINPUT, "%s is not on top of the stack", TNAME(t));
	return 0;
}

static int need_state(const struct target *t, int want, struct weft_err *e)
{
	if (t->state != want)
		return weft_fail(e, WEFT_EINPUT, "%s state must be %s but is %s", TNAME(t), state_name[want],
				 state_name[t->state]);
	return 0;
}

static void step_fill(struct task_step *step, char tr, const struct task_body *prev, const struct task_body *next)
{
	if (!step)
		return;
	step->tr = tr;
	step->prev_task_id = prev ? prev->task->id : 0;
	step->prev_body_id = prev ? prev->id : 0;
	step->prev_type_gid = prev ? prev->task->type->gid : 0;
	step->task_id = next ? next->task->id : 0;
	step->body_id = next ? next->id : 0;
	step->type_gid = next ? next->task->type->gid : 0;
}

/* ---- transitions ------------------------------------------------------- */

int task_execute(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
		 struct task_step *step, struct weft_err *e)
{
	struct target t;
	if (resolve(p, task_id, body_id, &t, e) != 0)
		return -1;
	if (t.state == TASK_DEAD && !(t.flags & TASK_RESURRECT))
		return weft_fail(e, WEFT_EINPUT, "%s is not allowed to run again", TNAME(&t));
	if (t.state == TASK_PAUSED)
		return weft_fail(e, WEFT_EINPUT, "refusing to run %s in Paused state, needs to resume intead",
				 TNAME(&t));
	if (t.state == TASK_RUNNING)
		return need_state(&t, TASK_CREATED, e);
	struct task_body *top = task_running(s);
	char tr = 'x';
	if (top) {
		if (!(top->task->flags & TASK_RELAX_NESTING)) {
			char topname[48];
			snprintf(topname, sizeof(topname), "body(id=%u,taskid=%u)", top->id, top->task->id);
			return weft_fail(e, WEFT_EINPUT, "cannot nest %s over %s which is already running", TNAME(&t),
					 topname);
		}
		tr = 'X';
	}

	/* Checked: now change the state. */
	struct task_body *b = t.body;
	if (!t.task) { /* an ended task runs again */
		ended_delete(&p->ended, t.ended);
		t.task = task_new(p, task_id, t.type, t.flags);
	}
	if (!(t.flags & TASK_PARALLEL)) {
		b = &t.task->body;
	} else if (!b) {
		if (t.run >= 0)
			runs_remove(&t.task->dead, (size_t) t.run, t.body_id);
		b = p->free_bodies;
		if (b)
			p->free_bodies = b->next;
		else
			b = weft_xmalloc(sizeof(*b));
		memset(b, 0, sizeof(*b));
		b->id = t.body_id;
		b->task = t.task;
		b->next = t.task->bodies;
		t.task->bodies = b;
	}
	b->state = TASK_RUNNING;
	b->stack = s;
	b->below = s->top;
	s->top = b;
	step_fill(step, tr, top, b);
	return 0;
}

int task_pause(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
	       struct task_step *step, struct weft_err *e)
{
	struct target t;
	if (resolve(p, task_id, body_id, &t, e) != 0 || need_body(&t, e) != 0)
		return -1;
	if (!(t.flags & TASK_PAUSE))
		return weft_fail(e, WEFT_EINPUT, "%s is not allowed to pause", TNAME(&t));
	if (need_state(&t, TASK_RUNNING, e) != 0 || need_top(&t, s, e) != 0)
		return -1;
	t.body->state = TASK_PAUSED;
	step_fill(step, 'p', t.body, NULL);
	return 0;
}

int task_resume(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
		struct task_step *step, struct weft_err *e)
{
	struct target t;
	if (resolve(p, task_id, body_id, &t, e) != 0 || need_body(&t, e) != 0)
		return -1;
	if (need_state(&t, TASK_PAUSED, e) != 0 || need_top(&t, s, e) != 0)
		return -1;
	t.body->state = TASK_RUNNING;
	step_fill(step, 'r', NULL, t.body);
	return 0;
}

int task_end(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
	     struct task_step *step, struct weft_err *e)
{
	struct target t;
	if (resolve(p, task_id, body_id, &t, e) != 0 || need_body(&t, e) != 0)
		return -1;
	if (need_state(&t, TASK_RUNNING, e) != 0 || need_top(&t, s, e) != 0)
		return -1;
	struct task_body *b = t.body;
	s->top = b->below;
	b->below = NULL;
	b->stack = NULL;
	b->state = TASK_DEAD;
	struct task_body *next = task_running(s);
	step_fill(step, next ? 'E' : 'e', b, next);

	/* Forget what ended; keep only its id. */
	struct task *task = t.task;
	if (!(task->flags & TASK_PARALLEL)) {
		HASH_DELETE(hh, p->tasks, task);
		p->ntasks--;
		uint32_t ti = (task->flags & TASK_RESURRECT) ? task->type->index + 1 : 0;
		ended_add(p, task->id, ((task->flags & 0xfu) << 24) | ti);
		task->free_next = p->free_tasks;
		p->free_tasks = task;
	} else {
		struct task_body **pp = &task->bodies;
		while (*pp != b)
			pp = &(*pp)->next;
		*pp = b->next;
		runs_add(&task->dead, b->id, NULL, 0);
		b->next = p->free_bodies;
		p->free_bodies = b;
	}
	return 0;
}

/* ---- queries ----------------------------------------------------------- */

struct task_body *task_top(const struct task_stack *s)
{
	return s->top;
}

struct task_body *task_running(const struct task_stack *s)
{
	return s->top && s->top->state == TASK_RUNNING ? s->top : NULL;
}

size_t task_stack_depth(const struct task_stack *s)
{
	size_t n = 0;
	for (const struct task_body *b = s->top; b; b = b->below)
		n++;
	return n;
}

/* ---- cleanup ----------------------------------------------------------- */

static void free_task(struct task *t)
{
	struct task_body *b = t->bodies;
	while (b) {
		struct task_body *n = b->next;
		free(b);
		b = n;
	}
	runs_free(&t->dead);
	free(t);
}

void task_proc_free(struct task_proc *p)
{
	struct task *t, *tmp;
	HASH_ITER(hh, p->tasks, t, tmp)
	{
		HASH_DELETE(hh, p->tasks, t);
		free_task(t);
	}
	while (p->free_tasks) {
		t = p->free_tasks;
		p->free_tasks = t->free_next;
		free_task(t);
	}
	while (p->free_bodies) {
		struct task_body *b = p->free_bodies;
		p->free_bodies = b->next;
		free(b);
	}
	struct task_type *ty, *ttmp;
	HASH_ITER(hh, p->types, ty, ttmp)
	{
		HASH_DELETE(hh, p->types, ty);
		free(ty->label);
		free(ty);
	}
	ended_free(&p->ended);
	free(p->tvec);
	memset(p, 0, sizeof(*p));
}

/* ---- Paraver labels ---------------------------------------------------- */

int task_labels_add(struct task_labels *l, const struct task_type *t, struct weft_err *e)
{
	struct task_label *x = NULL;
	HASH_FIND(hh, l->by_gid, &t->gid, sizeof(t->gid), x);
	if (x) {
		if (strcmp(x->label, t->label) != 0)
			return weft_fail(e, WEFT_EINPUT, "collision occurred in task type labels: %s and %s",
					 x->label, t->label);
		return 0;
	}
	x = weft_xcalloc(1, sizeof(*x));
	x->gid = t->gid;
	x->label = weft_xstrdup(t->label);
	HASH_ADD(hh, l->by_gid, gid, sizeof(x->gid), x);
	return 1;
}

void task_labels_free(struct task_labels *l)
{
	struct task_label *x, *tmp;
	HASH_ITER(hh, l->by_gid, x, tmp)
	{
		HASH_DELETE(hh, l->by_gid, x);
		free(x->label);
		free(x);
	}
}
