/* SPDX-License-Identifier: GPL-3.0-or-later */
/* registry: the models one command knows (see registry.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "registry.h"
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

struct model_registry {
	const struct weft_model_def *by_id[MCV_NCHARS];
	struct mf_model *file[MCV_NCHARS]; /* owned: the file models */
	const struct weft_model_def *list[MCV_NCHARS];
	int n;
};

static void relist(struct model_registry *r)
{
	r->n = 0;
	for (int i = 0; i < MCV_NCHARS; i++)
		if (r->by_id[i])
			r->list[r->n++] = r->by_id[i];
}

static void put_file(struct model_registry *r, struct mf_model *m)
{
	int i = mcv_index(m->def.id);
	mf_free(r->file[i]);
	r->file[i] = m;
	r->by_id[i] = &m->def;
}

struct model_registry *model_registry_new(void)
{
	struct model_registry *r = weft_xcalloc(1, sizeof(*r));
	for (size_t i = 0; i < ARRAY_SIZE(c_models); i++)
		r->by_id[mcv_index(c_models[i]->id)] = c_models[i];
	for (int i = 0; i < weft_model_ntexts; i++) {
		struct weft_err err = {0};
		struct mf_model *m = mf_compile(weft_model_texts[i].path, weft_model_texts[i].text, &err);
		if (!m) {
			/* a built-in file that does not compile is a bug of this build */
			fprintf(stderr, "weft: internal error: built-in model: %s\n", err.msg);
			exit(WEFT_EINTERNAL);
		}
		put_file(r, m);
	}
	relist(r);
	return r;
}

int model_registry_load(struct model_registry *r, const char *path, struct weft_err *err)
{
	struct mf_model *m = mf_load(path, err);
	if (!m)
		return -1;
	const struct weft_model_def *old = r->by_id[mcv_index(m->def.id)];
	if (old && !r->file[mcv_index(m->def.id)] && old->nevents) {
		weft_fail(err, WEFT_EINPUT, "%s: model %c (%s) is written in C in weft: a model file cannot "
			  "replace it", path, m->def.id, old->name);
		mf_free(m);
		return -1;
	}
	for (int i = 0; i < r->n; i++)
		if (r->list[i]->id != m->def.id && strcmp(r->list[i]->name, m->def.name) == 0) {
			weft_fail(err, WEFT_EINPUT,
				  "%s: model name '%s' is model %c's: expected another name "
				  "for model %c",
				  path, m->def.name, r->list[i]->id, m->def.id);
			mf_free(m);
			return -1;
		}
	put_file(r, m);
	relist(r);
	return 0;
}

struct model_set model_registry_set(const struct model_registry *r)
{
	return (struct model_set){.all = r->list, .n = r->n};
}

void model_registry_free(struct model_registry *r)
{
	if (!r)
		return;
	for (int i = 0; i < MCV_NCHARS; i++)
		mf_free(r->file[i]);
	free(r);
}
