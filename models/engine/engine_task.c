/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_task: the task primitives of model files (`call task.execute
 * $taskid $bodyid`, ...), the engine side of taskprim.h. Per model and run,
 * one struct taskprim: its channels are the model's channels named
 * task_body, task_id, task_type, task_appid and task_rank (those it
 * declares), its processes and threads the system's. At the end the type
 * labels go to the task_type channel's .pcf values in ovniemu's order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "emu/taskprim.h"
#include "util/macros.h"

/* Every task.* primitive of a model shares one state, in e->models.state: set up
 * once, released once. */
static void release(struct emu *e, const struct mf_model *m)
{
	struct taskprim *tp = e->models.state[mcv_index(m->def.id)];
	if (!tp)
		return;
	taskprim_free(tp);
	free(tp);
	e->models.state[mcv_index(m->def.id)] = NULL;
}

static int setup(struct emu *e, const struct mf_model *m, struct weft_err *err)
{
	(void) err;
	void **slot = &e->models.state[mcv_index(m->def.id)];
	if (*slot)
		return 0; /* every task.* row shares it */
	struct taskprim_bind b;
	for (int k = 0; k < TP_NCHANS; k++) {
		b.chan[k] = engine_chan(m, taskprim_chan_name[k]);
		b.stack[k] = b.chan[k] >= 0 ? m->chans[b.chan[k]].stack : 0;
	}
	struct taskprim *tp = weft_xmalloc(sizeof(*tp));
	taskprim_init(tp, &b, e->tr.sys.nprocs, e->sys.nth);
	*slot = tp;
	return 0;
}

static int run(enum taskprim_op op, struct emu *e, struct emu_thread *t, const struct engine_call *c,
	       struct weft_err *err)
{
	struct taskprim *tp = e->models.state[mcv_index(c->model->def.id)];
	const struct weft_proc *p = t->sys->proc;
	char label[TASK_LABEL_MAX + 1];
	const char *str = op == TP_OP_TYPE ? engine_call_str(c, 1, label, sizeof(label)) : NULL;
	struct taskprim_write w[TP_MAXWRITES];
	int n = 0;
	/* the message only: a 4 KiB clear per task event cost more than the
	 * rest of the call */
	struct weft_err sub;
	sub.code = 0;
	sub.msg[0] = '\0';
	if (taskprim_call(tp, op, p->gindex, (int) (t - e->sys.th), c->args, str, p->has_app_id ? p->app_id : 0,
			  p->has_rank ? p->rank : -1, w, &n, &sub)) {
		if (sub.code == WEFT_EINTERNAL) {
			*err = sub;
			return -1;
		}
		return emu_model_error(e, err, "%s", sub.msg);
	}
	static const int wop[] = {[TP_SET] = MF_SET, [TP_PUSH] = MF_PUSH, [TP_POP] = MF_POP};
	for (int i = 0; i < n; i++) {
		int rc = engine_apply(e, t, c->model, w[i].chan, wop[w[i].op], w[i].v, err);
		if (rc)
			return rc;
	}
	return 0;
}

#define RUN(fn, op)                                                                                           \
	static int fn(struct emu *e, struct emu_thread *t, const struct engine_call *c, struct weft_err *err) \
	{                                                                                                     \
		return run(op, e, t, c, err);                                                                 \
	}
RUN(run_type, TP_OP_TYPE)
RUN(run_create, TP_OP_CREATE)
RUN(run_execute, TP_OP_EXECUTE)
RUN(run_pause, TP_OP_PAUSE)
RUN(run_resume, TP_OP_RESUME)
RUN(run_end, TP_OP_END)
RUN(run_label_push, TP_OP_LABEL_PUSH)
RUN(run_label_pop, TP_OP_LABEL_POP)

struct label_ctx {
	struct emu *e;
	char model;
};

static void add_label(void *arg, int64_t v, const char *label)
{
	struct label_ctx *x = arg;
	engine_label_add(x->e, x->model, taskprim_chan_name[TP_TYPE], v, label);
}

static int finish(struct emu *e, const struct mf_model *m, struct weft_err *err)
{
	struct taskprim *tp = e->models.state[mcv_index(m->def.id)];
	if (!tp)
		return 0;
	struct label_ctx x = {e, m->def.id};
	struct weft_err sub = {0};
	if (taskprim_labels(tp, add_label, &x, &sub))
		return weft_fail(err, WEFT_EINPUT, "model %s: %s", m->def.name, sub.msg);
	return 0;
}

const struct engine_prim engine_task_prims[] = {
	{.name = "task.type",
	 .minargs = 2,
	 .maxargs = 2,
	 .setup = setup,
	 .run = run_type,
	 .finish = finish,
	 .release = release},
	{.name = "task.create",
	 .minargs = 3,
	 .maxargs = 3,
	 .setup = setup,
	 .run = run_create,
	 .finish = finish,
	 .release = release},
	{.name = "task.execute",
	 .minargs = 2,
	 .maxargs = 2,
	 .setup = setup,
	 .run = run_execute,
	 .finish = finish,
	 .release = release},
	{.name = "task.pause",
	 .minargs = 2,
	 .maxargs = 2,
	 .setup = setup,
	 .run = run_pause,
	 .finish = finish,
	 .release = release},
	{.name = "task.resume",
	 .minargs = 2,
	 .maxargs = 2,
	 .setup = setup,
	 .run = run_resume,
	 .finish = finish,
	 .release = release},
	{.name = "task.end",
	 .minargs = 2,
	 .maxargs = 2,
	 .setup = setup,
	 .run = run_end,
	 .finish = finish,
	 .release = release},
	{.name = "task.label_push",
	 .minargs = 1,
	 .maxargs = 1,
	 .setup = setup,
	 .run = run_label_push,
	 .finish = finish,
	 .release = release},
	{.name = "task.label_pop",
	 .minargs = 1,
	 .maxargs = 1,
	 .setup = setup,
	 .run = run_label_pop,
	 .finish = finish,
	 .release = release},
};
const int engine_task_nprims = (int) (ARRAY_SIZE(engine_task_prims));

void engine_task_adopt(struct emu *dst, struct emu *src, const int *procs, int nprocs)
{
	for (int m = 0; m < dst->models.n; m++) {
		int k = mcv_index(dst->models.def[m]->id);
		struct taskprim *a = dst->models.state[k], *b = src->models.state[k];
		if (!engine_file(dst->models.def[m]) || !a || !b)
			continue;
		for (int i = 0; i < nprocs; i++) {
			struct task_proc t = a->procs[procs[i]];
			a->procs[procs[i]] = b->procs[procs[i]];
			b->procs[procs[i]] = t;
		}
	}
}
