/* SPDX-License-Identifier: GPL-3.0-or-later */
/* require: a stream's ovni.require entries against the models a caller
 * hands in (a command's registry, models/registry.h). The trace layer knows no
 * model: trace_open calls model_require through trace_opts.require for
 * each entry, with a struct model_set as its argument. */
#ifndef WEFT_MODELS_REQUIRE_H
#define WEFT_MODELS_REQUIRE_H

#include "model.h"
#include "util/err.h"
#include "util/macros.h"

struct model_set {
	const struct weft_model_def *const *all;
	int n;
};

/* The model of a set by character, or by name; NULL if it has none. */
const struct weft_model_def *model_set_id(const struct model_set *s, char id);
const struct weft_model_def *model_set_name(const struct model_set *s, const char *name);

/* The model character `model` names in `set` (0: a model weft does not
 * know, ignored as ovniemu ignores it), or -1 with e set when the version
 * `version` (NULL: none) wants is not the one weft has (model_version_ok);
 * path names the stream.json. */
WEFT_MUST_CHECK int model_require(const void *set, const char *path, const char *model, const char *version,
				  struct weft_err *e);

#endif
