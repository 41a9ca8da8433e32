/* SPDX-License-Identifier: GPL-3.0-or-later */
/* task: the task-body state machine every tasking model shares (nOS-V,
 * Nanos6, OpenMP), with ovniemu's rules and error causes (doc/dev/tasks.md).
 * Pure data: no Paraver, no emu. A process owns a task_proc (its tasks by id
 * and its task types by id); a thread owns a task_stack (the bodies it has
 * entered, innermost on top). Every operation returns 0, or -1 with the
 * cause in the weft_err (code WEFT_EINPUT) worded as ovniemu words it, and
 * then leaves the state as it was. Memory is bounded by the live tasks: a
 * non-parallel task whose body ends is freed and only its id, flags and
 * type are kept, for the last TASK_ENDED_MAX ended tasks of the process; a
 * parallel task stays, its ended bodies kept as runs of body ids. No
 * allocation per event except when a task or a parallel body is created, and
 * those reuse freed ones. */
#ifndef WEFT_TASK_H
#define WEFT_TASK_H

#include <stddef.h>
#include <stdint.h>
#include <uthash.h>

#include "util/err.h"
#include "util/macros.h"

/* What a task may do; a model picks them when it creates the task. */
enum task_flag {
	TASK_PARALLEL = 1 << 0,      /* several bodies, each named by a body id > 0 */
	TASK_RESURRECT = 1 << 1,     /* an ended body may execute again */
	TASK_PAUSE = 1 << 2,         /* a running body may pause */
	TASK_RELAX_NESTING = 1 << 3, /* a body may start over this one while it runs */
};

enum task_body_state { TASK_CREATED = 1, TASK_RUNNING, TASK_PAUSED, TASK_DEAD };

/* Ended tasks a process remembers (about 32 bytes each): nothing in a trace
 * says a nOS-V task is destroyed (it may run again), so the oldest are
 * dropped past this many, and an event naming one of those is "cannot find
 * task" with a note saying so. */
#define TASK_ENDED_MAX ((size_t) 1 << 18)

/* Longest type label, NUL included (ovniemu's Paraver label limit). */
#define TASK_LABEL_MAX 512

struct task_type {
	uint32_t id;  /* per process */
	uint32_t gid; /* Paraver value: a hash of the label, the same in every process */
	char *label;
	uint32_t index;         /* 0, 1, ... in creation order */
	struct task_type *next; /* the process's types in creation order */
	UT_hash_handle hh;
};

struct task;
struct task_stack;

struct task_body {
	uint32_t id; /* 1 for a non-parallel task */
	uint8_t state;
	struct task *task;
	struct task_stack *stack; /* where it runs or is paused; NULL otherwise */
	struct task_body *below;  /* next body down that stack */
	struct task_body *next;   /* the task's other live bodies (parallel), or the free list */
};

/* Sorted disjoint runs [lo, hi] of ended body ids of a parallel task (type
 * and flags unused). */
struct task_run {
	uint32_t lo, hi;
	struct task_type *type;
	uint32_t flags;
};

struct task_runs {
	struct task_run *r;
	size_t n, cap;
};

struct task {
	uint32_t id;
	uint32_t flags;
	struct task_type *type;
	struct task_body body;      /* the body of a non-parallel task */
	struct task_body *bodies;   /* the live bodies of a parallel task */
	struct task_runs dead;      /* a parallel task's ended body ids */
	struct task *free_next;
	UT_hash_handle hh;
};

/* Ended non-parallel tasks by id (open addressing), and their ids in end
 * order (a ring: the oldest is dropped first). info: bit 31 used, bits 24-27
 * the flags, bits 0-23 the type index + 1 (0 when it cannot resurrect). */
struct task_ended_slot {
	uint32_t id, info, seq;
};

struct task_ended {
	struct task_ended_slot *slot;
	size_t mask;     /* slots - 1 (a power of two), 0 before the first */
	int bits;
	size_t n;        /* used slots */
	struct {
		uint32_t id, seq;
	} *ring;
	size_t head, count, cap;
	uint32_t seq;
};

struct task_proc {
	struct task *tasks;          /* live tasks by id */
	struct task_type *types;     /* by id */
	struct task_type *first, *last; /* creation order */
	struct task_ended ended;     /* ended non-parallel tasks */
	size_t ended_max;            /* how many to remember (0: TASK_ENDED_MAX), set before use */
	uint64_t forgotten;          /* ended tasks dropped */
	uint32_t forgot_hi;          /* the highest id dropped */
	struct task_type **tvec;     /* types by index */
	size_t ntypes;
	struct task *free_tasks;
	struct task_body *free_bodies;
	size_t ntasks;               /* live tasks */
	/* 1 + the highest task id created (0: none): an id at or above it is
	 * neither live nor ended, so a new task's ids need no look-up (the
	 * ended table's probe missed the cache at every create) */
	uint64_t id_hi;
};

struct task_stack {
	struct task_body *top;
};

/* What a state change did, for the model to update its channels. tr is
 * ovniemu's transition letter: x executes with nothing running, X executes
 * over a running body (relaxed nesting), e ends with nothing left running,
 * E ends and the body below still runs, p pauses, r resumes. The ids are 0
 * when no body runs. Copied out, so valid after an ended task is freed. */
struct task_step {
	char tr;
	uint32_t task_id, body_id, type_gid; /* running after the step */
	uint32_t prev_task_id, prev_body_id, prev_type_gid; /* running before it */
};

/* The Paraver value of a task type label (nonzero, >= 1000, < 2^31). */
uint32_t task_type_gid(const char *label);

void task_proc_init(struct task_proc *p);
void task_proc_free(struct task_proc *p);

/* A new task type; an empty label becomes "(unlabeled task type ID)". */
WEFT_MUST_CHECK int task_type_create(struct task_proc *p, uint32_t type_id, const char *label, struct weft_err *e);
struct task_type *task_type_find(const struct task_proc *p, uint32_t type_id);

/* A new task of a known type, flags from enum task_flag. */
WEFT_MUST_CHECK int task_create(struct task_proc *p, uint32_t task_id, uint32_t type_id, uint32_t flags,
				struct weft_err *e);
struct task *task_find(const struct task_proc *p, uint32_t task_id);

/* Body transitions on the thread owning stack. body_id is the event's: 0 for
 * a non-parallel task (its one body), > 0 for a parallel one. step may be NULL. */
WEFT_MUST_CHECK int task_execute(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
				 struct task_step *step, struct weft_err *e);
WEFT_MUST_CHECK int task_pause(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
			       struct task_step *step, struct weft_err *e);
WEFT_MUST_CHECK int task_resume(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
				struct task_step *step, struct weft_err *e);
WEFT_MUST_CHECK int task_end(struct task_proc *p, struct task_stack *s, uint32_t task_id, uint32_t body_id,
			     struct task_step *step, struct weft_err *e);

/* The body on top of the thread's stack, whatever its state (NULL if none),
 * and the same only when it runs. */
struct task_body *task_top(const struct task_stack *s);
struct task_body *task_running(const struct task_stack *s);
/* Bodies on the stack (paused ones included). */
size_t task_stack_depth(const struct task_stack *s);

/* The Paraver labels of task types across processes: add every process's
 * types in process order, each in creation order; the values come out in
 * ovniemu's .pcf order. Two labels with one gid are an error. */
struct task_label {
	uint32_t gid;
	char *label;
	UT_hash_handle hh;
};

struct task_labels {
	struct task_label *by_gid; /* uthash keeps insertion order */
};

/* Returns 1 when the gid is new, 0 when already there with this label. */
WEFT_MUST_CHECK int task_labels_add(struct task_labels *l, const struct task_type *t, struct weft_err *e);
void task_labels_free(struct task_labels *l);

#endif
