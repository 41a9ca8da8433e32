/* registry: the models weft knows, in model-character order. Models listed
 * with no events are recognised by name only (their events are counted and
 * dumped raw until a table is written for them). */
#include <stddef.h>
#include <string.h>

#include "model.h"

static const struct weft_model_def model_nanos6 = {'6', "nanos6", "", NULL, 0, NULL};
static const struct weft_model_def model_nodes = {'D', "nodes", "", NULL, 0, NULL};
static const struct weft_model_def model_openmp = {'P', "openmp", "", NULL, 0, NULL};
static const struct weft_model_def model_tampi = {'T', "tampi", "", NULL, 0, NULL};
static const struct weft_model_def model_nosv = {'V', "nosv", "", NULL, 0, NULL};
extern const struct weft_model_def model_andfork;
extern const struct weft_model_def model_fileio;
extern const struct weft_model_def model_orbranch;
extern const struct weft_model_def model_msg;

static const struct weft_model_def *const all_models[] = {
	&model_nanos6, &model_andfork, &model_nodes,  &model_fileio, &model_kernel,
	&model_mpi,    &model_ovni,    &model_openmp, &model_orbranch, &model_tampi,
	&model_nosv,   &model_msg,
};

int model_all(const struct weft_model_def *const **out)
{
	*out = all_models;
	return (int) (sizeof(all_models) / sizeof(all_models[0]));
}

const struct weft_model_def *model_by_id(char id)
{
	for (size_t i = 0; i < sizeof(all_models) / sizeof(all_models[0]); i++)
		if (all_models[i]->id == id)
			return all_models[i];
	return NULL;
}

const struct weft_model_def *model_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(all_models) / sizeof(all_models[0]); i++)
		if (strcmp(all_models[i]->name, name) == 0)
			return all_models[i];
	return NULL;
}
