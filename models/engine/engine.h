/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine: runs the models written as files (models/modelfile.h).
 * Per run, the channels of every enabled file model are laid out in one
 * array; their per-thread values and stacks are the engine's own (indexed by
 * thread and channel), not struct emu_thread's. Each event row of a file
 * model has engine_event as handler and its compiled action list as data:
 * per event, a few table lookups and the Paraver writes, no string work and
 * no allocation. Thread rows of channels shown only while their thread runs
 * follow the ovni state (engine_thread_state); CPU rows show the channels
 * of the thread running there (engine_cpu_run), both called by the ovni
 * model. What a table cannot say is a primitive, found by name
 * (engine_prim_find) when a file is compiled. */
#ifndef WEFT_ENGINE_H
#define WEFT_ENGINE_H

#include "emu/emu.h"
#include "mfform.h"
#include "util/strbuf.h"
#include "util/macros.h"

/* One `call` of a primitive: the calling model, the argument values (an
 * integer field's value, a constant, or for a str field of the payload its
 * field index: read it with ev and in), the event. */
struct engine_call {
	const struct mf_model *model;
	const int64_t *args;
	int nargs;
	const struct weft_ev *ev;
	const struct evinfo *in;
};

/* A shared C primitive a model file calls by name (`call NAME ARGS`).
 * setup runs once per run for each model that uses it (may be NULL, may run
 * again for the same model when several rows share it: make it idempotent);
 * run gets the event's thread and the argument values; finish runs at the
 * end of the trace (may be NULL). All return 0, -1 (err filled) or, from
 * run, emu_model_error's 1. */
struct engine_prim {
	const char *name;
	int minargs, maxargs;
	int (*setup)(struct emu *e, const struct mf_model *m, struct weft_err *err);
	int (*run)(struct emu *e, struct emu_thread *t, const struct engine_call *c, struct weft_err *err);
	int (*finish)(struct emu *e, const struct mf_model *m, struct weft_err *err);
	void (*release)(struct emu *e, const struct mf_model *m);
};

/* The task primitives (task.type, task.create, task.execute, ...), in
 * engine_task.c. */
extern const struct engine_prim engine_task_prims[];
extern const int engine_task_nprims;

/* The str argument `arg` of a call (NUL-terminated within the payload, or
 * cut at its end): a copy in buf. */
const char *engine_call_str(const struct engine_call *c, int arg, char *buf, size_t n);

const struct engine_prim *engine_prim_find(const char *name);

/* The hooks every file model lists: one table serves them all, each hook
 * given its model. */
extern const struct weft_model_hooks engine_hooks;

/* The model file of a model, NULL for a model written in C. */
static inline const struct mf_model *engine_file(const struct weft_model_def *d)
{
	return d->hooks == &engine_hooks ? (const struct mf_model *) d : NULL;
}

/* Index of a model's channel by name, or -1 (for a primitive's setup). */
int engine_chan(const struct mf_model *m, const char *name);

/* Apply one channel operation (MF_PUSH, MF_POP, MF_SET, MF_UNSET, MF_PUNCT)
 * with value v to channel `chan` of model m for thread t, with every check
 * and Paraver write an action of the file would make. */
WEFT_MUST_CHECK int engine_apply(struct emu *e, struct emu_thread *t, const struct mf_model *m, int chan, int op,
				 int64_t v, struct weft_err *err);

WEFT_MUST_CHECK int engine_event(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
				 struct weft_err *err);

WEFT_MUST_CHECK int engine_setup(struct emu *e, const struct mf_model *m, struct weft_err *err);
/* End of trace: with -l, non-empty stacks are errors. */
WEFT_MUST_CHECK int engine_finish(struct emu *e, const struct mf_model *m, struct weft_err *err);
/* weft emu -j: the task primitives' state of processes `procs` (task
 * types and their labels, live tasks) moves from a worker's run to dst,
 * whose end of run then names the types as one run would. */
void engine_task_adopt(struct emu *dst, struct emu *src, const int *procs, int nprocs);
/* weft emu --mpi: the channels' dynamic labels as "CHANNEL VALUE LABEL"
 * lines, and added from such text (a value's first label stays): a rank's
 * labels reach the run that writes the .pcf. `what` names the text. */
struct strbuf;
void engine_labels_save(const struct emu *e, struct strbuf *b);
WEFT_MUST_CHECK int engine_labels_load(struct emu *e, const char *text, size_t n, const char *what,
				       struct weft_err *err);
/* The members of channel c's group (`each`, engine_each.c): n labels (n may
 * be 0), or -1 with err filled when the threads' metadata disagree. */
WEFT_MUST_CHECK int engine_each_names(struct emu *e, const struct mf_model *m, const struct mf_chan *c, char ***names,
				      int *n, struct weft_err *err);
/* The .pcf value lines ("N LABEL") of channel `chan` of model m: its
 * declared labels, then those added while the run went. */
void engine_value_lines(struct emu *e, const struct mf_model *m, int chan, struct strbuf *b);
void engine_free(struct emu *e);

/* Thread t's ovni state changed (called only when e->eng.state is set). */
void engine_thread_state(struct emu *e, struct emu_thread *t);
/* CPU c's running thread is now `run` (NULL: none or several). */
void engine_cpu_run(struct emu *e, struct emu_cpu *c, const struct emu_thread *run);

/* A label for value v of channel `chan` (by name) of model `model`, added
 * while the run goes (channels with `labels dynamic`); the .pcf lists it.
 * Returns -1 if the model or channel is unknown or not dynamic. */
int engine_label_add(struct emu *e, char model, const char *chan, int64_t v, const char *label);

#endif
