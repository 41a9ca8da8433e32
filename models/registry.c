/* SPDX-License-Identifier: GPL-3.0-or-later */
/* registry: the models weft knows, in model-character order: the models
 * written in C (ovni and the legacy models), the model files built into the
 * binary (models/NAME/NAME.model, compiled on first use), and files given
 * at run time (models_load, `weft emu --model FILE`), which add a model or
 * replace the one with the same character. Models listed with no events
 * are recognised by name only (their events are counted and dumped raw).
 *
 * The registry is the one table outside struct emu: it is set up before
 * any run (the built-in files on first use, then the command line's files)
 * and only read while a trace is processed. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "modelfile.h"
#include "util/macros.h"

static const struct weft_model_def model_nanos6 = {
	.id = '6',
	.name = "nanos6",
	.version = "",
	.events = NULL,
	.nevents = 0,
	.hooks = NULL,
};
static const struct weft_model_def model_nosv = {
	.id = 'V',
	.name = "nosv",
	.version = "",
	.events = NULL,
	.nevents = 0,
	.hooks = NULL,
};
extern const struct weft_model_def model_andfork;
extern const struct weft_model_def model_fileio;
extern const struct weft_model_def model_orbranch;
extern const struct weft_model_def model_msg;

static const struct weft_model_def *const c_models[] = {
	&model_nanos6, &model_andfork, &model_fileio, &model_ovni,
	&model_orbranch, &model_nosv,   &model_msg,
};

static struct {
	int ready;
	const struct weft_model_def *by_id[MCV_NCHARS];
	struct mf_model *file[MCV_NCHARS];  /* owned: the file models */
	const struct weft_model_def *list[MCV_NCHARS];
	int n;
} reg;

static void relist(void)
{
	reg.n = 0;
	for (int i = 0; i < MCV_NCHARS; i++)
		if (reg.by_id[i])
			reg.list[reg.n++] = reg.by_id[i];
}

static void put_file(struct mf_model *m)
{
	int i = mcv_index(m->def.id);
	mf_free(reg.file[i]);
	reg.file[i] = m;
	reg.by_id[i] = &m->def;
}

static void setup(void)
{
	if (reg.ready)
		return;
	reg.ready = 1;
	for (size_t i = 0; i < ARRAY_SIZE(c_models); i++)
		reg.by_id[mcv_index(c_models[i]->id)] = c_models[i];
	for (int i = 0; i < weft_model_ntexts; i++) {
		struct weft_err err = {0};
		struct mf_model *m = mf_compile(weft_model_texts[i].path, weft_model_texts[i].text, &err);
		if (!m) {
			/* a built-in file that does not compile is a bug of this build */
			fprintf(stderr, "weft: internal error: built-in model: %s\n", err.msg);
			exit(WEFT_EINTERNAL);
		}
		put_file(m);
	}
	relist();
}

int models_load(const char *path, struct weft_err *err)
{
	setup();
	struct mf_model *m = mf_load(path, err);
	if (!m)
		return -1;
	const struct weft_model_def *old = reg.by_id[mcv_index(m->def.id)];
	if (old && !reg.file[mcv_index(m->def.id)] && old->nevents) {
		weft_fail(err, WEFT_EINPUT, "%s: model %c (%s) is written in C in weft: a model file cannot "
			  "replace it", path, m->def.id, old->name);
		mf_free(m);
		return -1;
	}
	for (int i = 0; i < reg.n; i++)
		if (reg.list[i]->id != m->def.id && strcmp(reg.list[i]->name, m->def.name) == 0) {
			weft_fail(err, WEFT_EINPUT, "%s: model name '%s' is model %c's: expected another name "
				  "for model %c", path, m->def.name, reg.list[i]->id, m->def.id);
			mf_free(m);
			return -1;
		}
	put_file(m);
	relist();
	return 0;
}

int model_all(const struct weft_model_def *const **out)
{
	setup();
	*out = reg.list;
	return reg.n;
}

const struct weft_model_def *model_by_id(char id)
{
	setup();
	if (id < MCV_FIRST || id > MCV_LAST)
		return NULL;
	return reg.by_id[mcv_index(id)];
}

const struct weft_model_def *model_by_name(const char *name)
{
	setup();
	for (int i = 0; i < reg.n; i++)
		if (strcmp(reg.list[i]->name, name) == 0)
			return reg.list[i];
	return NULL;
}
