/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_hooks: the one hook table every model file's definition points
 * to (engine.h's engine_hooks); each hook finds its model file by `self`. */
#include "engine/engine.h"
#include "engine/engine_int.h"

static int hook_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	return engine_setup(e, engine_file(self), err);
}

static int hook_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	return engine_finish(e, engine_file(self), err);
}

/* A model file naming values in event order (a `label` action) runs on
 * one -j worker. */
static const char *hook_serial_why(const struct weft_model_def *self)
{
	const struct mf_model *f = engine_file(self);
	for (int i = 0; i < f->def.nevents; i++)
		for (int k = 0; k < f->evs[i].nact; k++)
			if (f->evs[i].act[k].op == MF_LABEL)
				return "names values in event order (label actions)";
	return NULL;
}

static const struct weft_model_par engine_par = {
	.serial_why = hook_serial_why,
	.sliceable = 1,
};

static int hook_breakdown(const struct weft_model_def *self)
{
	return engine_file(self)->bd != NULL;
}

const struct weft_model_hooks engine_hooks = {
	.setup = hook_setup,
	.finish = hook_finish,
	.breakdown = hook_breakdown,
	.par = &engine_par,
	.on_with_all = 1,
	.ovniemu = 1,
};
