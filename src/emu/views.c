/* SPDX-License-Identifier: GPL-3.0-or-later */
/* views: which compiled-in view files fit the run, and their range. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prv/cfgview.h"
#include "model.h"
#include "util/outset.h"
#include "emu/paraver_out.h"
#include "emu/views.h"
#include "trace/writer.h"
#include "util/macros.h"

/* Views written once per type of a range the run writes, as NAME-TYPE.cfg;
 * `own`: the range's first type also as NAME.cfg itself, the path and
 * type of ovni's view (its mark.cfg shows type 100). */
static const struct {
	const char *path;
	int32_t lo, hi;
	int own;
} per_type[] = {
	{"thread/ovni/mark.cfg", 100, 199, 1},
	{"cpu/ovni/mark.cfg", 100, 199, 1},
	{"thread/nosv/hwc.cfg", 200, 299, 0},
	{"cpu/nosv/hwc.cfg", 200, 299, 0},
};

static int per_type_index(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(per_type); i++)
		if (strcmp(per_type[i].path, path) == 0)
			return (int) i;
	return -1;
}

/* What a view reads: the back of its file (what was written) and the
 * types of the file's slots. */
struct target {
	const struct prv_back *back;
	int nslots;
	const int32_t *slot_type;
	int32_t own; /* a breakdown trace's one type */
};

/* The file `file` (cfgview_file) of model d in this run: 0 when it is not
 * written (a breakdown trace only exists with -b, and when its model's
 * `require` allowed it). */
static int target_of(const struct emu *e, const struct weft_model_def *d, int file, struct target *t)
{
	if (file != CFGVIEW_BREAKDOWN) {
		t->back = &e->out.par->f[file].back;
		t->nslots = e->out.slots.n[file];
		t->slot_type = e->out.par->type[file];
		return 1;
	}
	const struct paraver_out *po = e->out.par;
	for (int i = 0; i < po->nbd; i++)
		if (po->bd[i].open && e->bd.ops->view(e, i)->model == d->id) {
			t->back = &po->bd[i].prv.back;
			t->own = paraver_bd_type(e, d->id);
			t->slot_type = &t->own;
			t->nslots = 1;
			return 1;
		}
	return 0;
}

/* The range of values written to `type` in t; 0 when none was. */
static int type_range(const struct target *t, int32_t type, struct prv_range *out)
{
	for (int s = 0; s < t->nslots; s++)
		if (t->slot_type[s] == type) {
			const struct prv_range *r = &t->back->range[s];
			if (r->min > r->max)
				return 0;
			*out = *r;
			return 1;
		}
	return 0;
}

static int shows_states_of(const struct emu *e, char id)
{
	for (int i = 0; i < e->sys.nth; i++)
		if (emu_owner(e, &e->sys.th[i]) == id)
			return 1;
	return 0;
}

static int state_written(const struct prv_back *b, const struct weft_model_def *d)
{
	for (int s = 0; s < d->hooks->nstates; s++) {
		int v = d->hooks->states[s].value;
		if (v > 0 && v < 256 && (b->state_seen[v >> 6] >> (v & 63) & 1))
			return 1;
	}
	return 0;
}

/* A view into the run's output set: renamed into place with the traces. */
static int put(struct outset *s, const char *rel, const char *text, struct weft_err *err)
{
	char *n = weft_xasprintf("cfg/%s", rel);
	int rc = outset_write(s, n, text, strlen(text), err);
	free(n);
	return rc;
}

/* Not written: an earlier run's copy goes at the commit (outset.h). */
static void drop(struct emu *e, const char *rel)
{
	char *n = weft_xasprintf("cfg/%s", rel);
	outset_retire(&e->out.par->out, n);
	free(n);
}

/* Whether the view fits (see views.h); *max = the greatest value it shows. */
static int fits(struct emu *e, const char *rel, const struct cfgview *v, int64_t *max)
{
	char model[32];
	int file = cfgview_file(rel, model, sizeof(model));
	const struct weft_model_def *d = emu_registry_name(e, model);
	struct target t;
	if (file < 0 || !d || !d->hooks || !e->models.enabled[mcv_index(d->id)] || !target_of(e, d, file, &t))
		return 0;
	*max = 1;
	if (v->states || d->id == 'O')
		if (!shows_states_of(e, d->id))
			return 0;
	if (v->states) {
		if (!state_written(t.back, d))
			return 0;
		*max = t.back->state_max;
	}
	for (int i = 0; i < v->ntypes; i++) {
		struct prv_range r;
		if (!type_range(&t, v->types[i], &r))
			return 0;
		if (r.max > *max)
			*max = r.max;
	}
	return 1;
}

/* The view `text` (of per_type[k]) narrowed to type t, as `path`; or,
 * when t is not written, an earlier run's copy of it dropped. */
static int copy_one_type(struct emu *e, struct outset *s, int k, const char *path, int32_t t, const char *text,
			 const struct cfgview *v, struct weft_err *err)
{
	const char *rel = per_type[k].path;
	int file = cfgview_file(rel, NULL, 0);
	struct cfgview one = *v;
	one.ntypes = 1;
	one.types[0] = t;
	int64_t max;
	if (!fits(e, rel, &one, &max)) {
		drop(e, path);
		return 0;
	}
	const char *label = NULL;
	for (int k2 = 0; k2 < e->out.slots.n[file]; k2++)
		if (e->out.par->type[file][k2] == t)
			label = e->out.slots.label[file][k2];
	char *suffix = label ? weft_xasprintf(": %s", label) : weft_xasprintf(" (type %d)", (int) t);
	char *out = cfgview_rewrite(text, max, t, suffix);
	int rc = put(s, path, out, err);
	free(out);
	free(suffix);
	return rc;
}

static int copy_per_type(struct emu *e, struct outset *s, int k, const char *text, const struct cfgview *v,
			 struct weft_err *err)
{
	const char *rel = per_type[k].path;
	size_t stem = strlen(rel) - 4; /* without ".cfg" */
	if (per_type[k].own && copy_one_type(e, s, k, rel, per_type[k].lo, text, v, err))
		return -1;
	for (int32_t t = per_type[k].lo; t <= per_type[k].hi; t++) {
		char *path = weft_xasprintf("%.*s-%d.cfg", (int) stem, rel, (int) t);
		int rc = copy_one_type(e, s, k, path, t, text, v, err);
		free(path);
		if (rc)
			return -1;
	}
	return 0;
}

int views_copy(struct emu *e, struct outset *s, struct weft_err *err)
{
	for (int i = 0; i < weft_cfg_nfiles; i++) {
		const char *rel = weft_cfg_files[i].path, *text = weft_cfg_files[i].text;
		struct cfgview v;
		char msg[160];
		if (cfgview_parse(text, strlen(text), &v, msg, sizeof(msg)))
			return weft_fail(err, WEFT_EINTERNAL, "cfg/%s: %s", rel, msg);
		int k = per_type_index(rel);
		if (k >= 0) {
			if (copy_per_type(e, s, k, text, &v, err))
				return -1;
			continue;
		}
		int64_t max;
		if (!fits(e, rel, &v, &max)) {
			drop(e, rel);
			continue;
		}
		char *out = cfgview_rewrite(text, max, -1, NULL);
		int rc = put(s, rel, out, err);
		free(out);
		if (rc)
			return -1;
	}
	return 0;
}
