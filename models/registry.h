/* SPDX-License-Identifier: GPL-3.0-or-later */
/* registry: the models one command knows, in model-character order: the
 * models written in C (ovni and the legacy models), the model files built
 * into the binary (models/NAME/NAME.model, compiled when the registry is
 * made), and files given on the command line (model_registry_load, `weft
 * emu --model FILE`), which add a model or replace the one with the same
 * character. Models listed with no events are recognised by name only
 * (their events are counted and dumped raw).
 * src/cli makes one for a command, loads its --model files once the
 * options are read, and hands every layer below the set it lists
 * (model_registry_set: struct model_set, require.h), which stays valid
 * until the registry is freed; there is no process-wide table. */
#ifndef WEFT_MODELS_REGISTRY_H
#define WEFT_MODELS_REGISTRY_H

#include "require.h"
#include "util/macros.h"

struct model_registry;

/* weft's own models; a built-in file that does not compile is a bug of
 * the build (an internal error, exit 3). */
struct model_registry *model_registry_new(void);
/* Add the model of a file, or replace the file model of its character
 * (not a model written in C, nor another's name). 0, or -1 (err). */
WEFT_MUST_CHECK int model_registry_load(struct model_registry *r, const char *path, struct weft_err *err);
struct model_set model_registry_set(const struct model_registry *r);
void model_registry_free(struct model_registry *r);

#endif
