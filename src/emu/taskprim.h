/* SPDX-License-Identifier: GPL-3.0-or-later */
/* taskprim: what the `call task.*` primitives of model files do, on top of
 * task.h, with no engine in sight: the engine glue finds the model's
 * channels by name once (taskprim_bind), keeps one struct taskprim per model
 * per run, forwards each call with the event's process and thread, and
 * applies the channel writes it gets back. Those writes are ovniemu's: a
 * single channel is set to the running body's value, or to 0 when nothing
 * runs; a stack channel gets the task pushed when it starts and popped
 * (value checked by the engine) when it ends. Channels a model does not
 * declare are not written. Errors (-1, weft_err) are ovniemu's causes. */
#ifndef WEFT_TASKPRIM_H
#define WEFT_TASKPRIM_H

#include <stdint.h>

#include "util/err.h"
#include "emu/task.h"
#include "util/macros.h"

/* The channels the primitives write, by the names a model file gives them. */
enum taskprim_chan { TP_BODY, TP_ID, TP_TYPE, TP_APPID, TP_RANK, TP_NCHANS };
extern const char *const taskprim_chan_name[TP_NCHANS]; /* "task_body", ... */

/* The calls, by the names model files use (taskprim_ops[].name). */
enum taskprim_op {
	TP_OP_TYPE,    /* task.type TYPEID LABEL */
	TP_OP_CREATE,  /* task.create TASKID TYPEID FLAGS (enum task_flag) */
	TP_OP_EXECUTE, /* task.execute TASKID BODYID */
	TP_OP_PAUSE,   /* task.pause TASKID BODYID */
	TP_OP_RESUME,  /* task.resume TASKID BODYID */
	TP_OP_END,     /* task.end TASKID BODYID */
	TP_OP_LABEL_PUSH, /* task.label_push TYPEID: the type's value on task_type (OpenMP worksharing) */
	TP_OP_LABEL_POP,  /* task.label_pop TYPEID */
	TP_NOPS
};
struct taskprim_opinfo {
	const char *name;
	int nargs; /* arguments in a model file (task.type: an integer and a str) */
};
extern const struct taskprim_opinfo taskprim_ops[TP_NOPS];
/* The op of a call name, or -1. */
int taskprim_op_find(const char *name);

struct taskprim_bind {
	int chan[TP_NCHANS];  /* the model's channel index, -1: not declared */
	int stack[TP_NCHANS]; /* 1: a stack channel */
};

enum taskprim_wop { TP_SET, TP_PUSH, TP_POP };
struct taskprim_write {
	int chan;    /* the model's channel index */
	uint8_t op;  /* enum taskprim_wop */
	int64_t v;   /* 0: nothing (null) */
};
#define TP_MAXWRITES TP_NCHANS

struct taskprim {
	struct taskprim_bind bind;
	struct task_proc *procs;  /* by process index */
	struct task_stack *stacks; /* by thread index */
	int nprocs, nthreads;
};

void taskprim_init(struct taskprim *tp, const struct taskprim_bind *b, int nprocs, int nthreads);
void taskprim_free(struct taskprim *tp);

/* One call from thread `thread` of process `proc`. appid and rank are the
 * process's (rank < 0: it has none; the channel then is not written). The
 * writes to apply go to out, their number to *nout. */
WEFT_MUST_CHECK int taskprim_call(struct taskprim *tp, enum taskprim_op op, int proc, int thread, const int64_t *args,
				  const char *str, int64_t appid, int64_t rank, struct taskprim_write *out, int *nout,
				  struct weft_err *e);

/* The writes for a body transition (exposed for tests and other callers). */
WEFT_MUST_CHECK int taskprim_writes(const struct taskprim_bind *b, const struct task_step *st, int64_t appid,
				    int64_t rank, struct taskprim_write *out, int *nout, struct weft_err *e);

/* End of run: the task type labels of every process, in process order and
 * creation order, each value once (ovniemu's .pcf order); fn gets each new
 * (value, label). Two labels with one value are an error. */
WEFT_MUST_CHECK int taskprim_labels(const struct taskprim *tp, void (*fn)(void *arg, int64_t v, const char *label),
				    void *arg, struct weft_err *e);

#endif
