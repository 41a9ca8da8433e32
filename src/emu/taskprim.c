/* SPDX-License-Identifier: GPL-3.0-or-later */
/* taskprim: the task primitives of model files (taskprim.h). */
#include "emu/taskprim.h"

#include <stdlib.h>
#include <string.h>

const char *const taskprim_chan_name[TP_NCHANS] = {
	[TP_BODY] = "task_body", [TP_ID] = "task_id", [TP_TYPE] = "task_type",
	[TP_APPID] = "task_appid", [TP_RANK] = "task_rank",
};

const struct taskprim_opinfo taskprim_ops[TP_NOPS] = {
	[TP_OP_TYPE] = {"task.type", 2},       [TP_OP_CREATE] = {"task.create", 3},
	[TP_OP_EXECUTE] = {"task.execute", 2}, [TP_OP_PAUSE] = {"task.pause", 2},
	[TP_OP_RESUME] = {"task.resume", 2},   [TP_OP_END] = {"task.end", 2},
	[TP_OP_LABEL_PUSH] = {"task.label_push", 1}, [TP_OP_LABEL_POP] = {"task.label_pop", 1},
};

int taskprim_op_find(const char *name)
{
	for (int i = 0; i < TP_NOPS; i++)
		if (strcmp(taskprim_ops[i].name, name) == 0)
			return i;
	return -1;
}

void taskprim_init(struct taskprim *tp, const struct taskprim_bind *b, int nprocs, int nthreads)
{
	memset(tp, 0, sizeof(*tp));
	tp->bind = *b;
	tp->nprocs = nprocs;
	tp->nthreads = nthreads;
	tp->procs = weft_xcalloc((size_t) (nprocs > 0 ? nprocs : 1), sizeof(*tp->procs));
	tp->stacks = weft_xcalloc((size_t) (nthreads > 0 ? nthreads : 1), sizeof(*tp->stacks));
	for (int i = 0; i < nprocs; i++)
		task_proc_init(&tp->procs[i]);
}

void taskprim_free(struct taskprim *tp)
{
	for (int i = 0; i < tp->nprocs; i++)
		task_proc_free(&tp->procs[i]);
	free(tp->procs);
	free(tp->stacks);
	memset(tp, 0, sizeof(*tp));
}

static void put(const struct taskprim_bind *b, int ch, uint8_t op, int64_t v, struct taskprim_write *out, int *n)
{
	if (b->chan[ch] < 0)
		return;
	out[*n] = (struct taskprim_write){b->chan[ch], op, v};
	(*n)++;
}

/* Single channels: the values of what runs now (all 0 when nothing does). */
static void set_all(const struct taskprim_bind *b, const struct task_step *st, int64_t appid, int64_t rank,
		    struct taskprim_write *out, int *n)
{
	int runs = st->task_id != 0;
	const int64_t v[TP_NCHANS] = {
		[TP_BODY] = runs ? st->body_id : 0,  [TP_ID] = runs ? st->task_id : 0,
		[TP_TYPE] = runs ? st->type_gid : 0, [TP_APPID] = runs ? appid : 0,
		[TP_RANK] = runs ? rank + 1 : 0,
	};
	for (int ch = 0; ch < TP_NCHANS; ch++) {
		if (b->stack[ch] || (ch == TP_RANK && rank < 0))
			continue;
		put(b, ch, TP_SET, v[ch], out, n);
	}
}

int taskprim_writes(const struct taskprim_bind *b, const struct task_step *st, int64_t appid, int64_t rank,
		    struct taskprim_write *out, int *nout, struct weft_err *e)
{
	*nout = 0;
	/* What ovniemu checks before it shows a body (a task created with
	 * id 0 is accepted until then). */
	if ((st->tr == 'x' || st->tr == 'r') && st->task_id == 0)
		return weft_fail(e, WEFT_EINPUT, "task id cannot be 0");
	if ((st->tr == 'X' || st->tr == 'E') && st->task_id == 0)
		return weft_fail(e, WEFT_EINPUT, "next task id cannot be 0");
	if ((st->tr == 'x' || st->tr == 'r') && b->chan[TP_APPID] >= 0 && appid <= 0)
		return weft_fail(e, WEFT_EINPUT, "app id must be positive");
	set_all(b, st, appid, rank, out, nout);
	/* Stack channels: the task enters or leaves them (OpenMP). */
	if (st->tr == 'x' || st->tr == 'X') {
		if (b->stack[TP_ID])
			put(b, TP_ID, TP_PUSH, st->task_id, out, nout);
		if (b->stack[TP_TYPE])
			put(b, TP_TYPE, TP_PUSH, st->type_gid, out, nout);
	} else if (st->tr == 'e' || st->tr == 'E') {
		if (b->stack[TP_ID])
			put(b, TP_ID, TP_POP, st->prev_task_id, out, nout);
		if (b->stack[TP_TYPE])
			put(b, TP_TYPE, TP_POP, st->prev_type_gid, out, nout);
	}
	return 0;
}

int taskprim_call(struct taskprim *tp, enum taskprim_op op, int proc, int thread, const int64_t *args,
		  const char *str, int64_t appid, int64_t rank, struct taskprim_write *out, int *nout,
		  struct weft_err *e)
{
	*nout = 0;
	if (proc < 0 || proc >= tp->nprocs || thread < 0 || thread >= tp->nthreads)
		return weft_fail(e, WEFT_EINTERNAL, "task primitive: process %d or thread %d out of range", proc,
				 thread);
	struct task_proc *p = &tp->procs[proc];
	struct task_stack *s = &tp->stacks[thread];
	uint32_t a0 = (uint32_t) args[0];
	struct task_step st;
	int rc;
	switch (op) {
	case TP_OP_TYPE:
		return task_type_create(p, a0, str ? str : "", e);
	case TP_OP_CREATE:
		return task_create(p, a0, (uint32_t) args[1], (uint32_t) args[2], e);
	case TP_OP_EXECUTE: rc = task_execute(p, s, a0, (uint32_t) args[1], &st, e); break;
	case TP_OP_PAUSE: rc = task_pause(p, s, a0, (uint32_t) args[1], &st, e); break;
	case TP_OP_RESUME: rc = task_resume(p, s, a0, (uint32_t) args[1], &st, e); break;
	case TP_OP_END: rc = task_end(p, s, a0, (uint32_t) args[1], &st, e); break;
	case TP_OP_LABEL_PUSH:
	case TP_OP_LABEL_POP: {
		if (a0 == 0)
			return weft_fail(e, WEFT_EINPUT, "worksharing type id cannot be 0");
		const struct task_type *t = task_type_find(p, a0);
		if (!t)
			return weft_fail(e, WEFT_EINPUT, "cannot find ws with type %u", a0);
		put(&tp->bind, TP_TYPE, op == TP_OP_LABEL_PUSH ? TP_PUSH : TP_POP, t->gid, out, nout);
		return 0;
	}
	default: return weft_fail(e, WEFT_EINTERNAL, "task primitive: unknown op %d", (int) op);
	}
	if (rc != 0)
		return -1;
	return taskprim_writes(&tp->bind, &st, appid, rank, out, nout, e);
}

int taskprim_labels(const struct taskprim *tp, void (*fn)(void *arg, int64_t v, const char *label), void *arg,
		    struct weft_err *e)
{
	struct task_labels l = {0};
	int rc = 0;
	for (int i = 0; i < tp->nprocs && rc == 0; i++)
		for (const struct task_type *t = tp->procs[i].first; t; t = t->next) {
			int r = task_labels_add(&l, t, e);
			if (r < 0) {
				rc = -1;
				break;
			}
			if (r == 1)
				fn(arg, t->gid, t->label);
		}
	task_labels_free(&l);
	return rc;
}
