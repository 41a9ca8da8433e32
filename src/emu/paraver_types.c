/* SPDX-License-Identifier: GPL-3.0-or-later */
/* paraver_types: each slot's Paraver event type (paraver_out.h): its
 * model's Paraver table's, or numbered here when the table has none; and
 * the check that no two models claim one type. */
#include <string.h>

#include "emu/paraver_out.h"

/* Slot k of `file`: its model's Paraver table's type; PARAVER_NO_TYPE
 * when the table has no row for it. */
int32_t paraver_table_type(const struct emu *e, int file, int k)
{
	const struct emu_slots *sl = &e->out.slots;
	const struct weft_model_def *d = emu_registry_id(e, sl->model[file][k]);
	const struct emu_slot_decl *x = &sl->decl[file][k];
	for (int i = 0; d && x->key && i < d->nparaver; i++)
		if (d->paraver[i].set == file && strcmp(d->paraver[i].chan, x->key) == 0)
			return d->paraver[i].type + x->member;
	return PARAVER_NO_TYPE;
}

/* The keys whose table gives no type, numbered: in slot order (thread.prv's
 * slots, then cpu.prv's), each a run of types (one a group member) from
 * PARAVER_AUTO_TYPE up, or past the run's highest type when that is
 * higher. The same on both files, the same bytes for the same run. */
#define PARAVER_AUTO_TYPE 5000
struct auto_key {
	char model;
	const char *key;
	int width;
	int64_t first;
};

static struct auto_key *auto_keys(const struct emu *e, int *n)
{
	const struct emu_slots *sl = &e->out.slots;
	struct auto_key *a = NULL;
	int na = 0, cap = 0;
	int64_t next = PARAVER_AUTO_TYPE;
	for (int f = 0; f < EMU_NFILES; f++)
		for (int k = 0; k < sl->n[f]; k++) {
			const struct emu_slot_decl *x = &sl->decl[f][k];
			int32_t t = paraver_table_type(e, f, k);
			if (t != PARAVER_NO_TYPE) {
				next = t >= next ? (int64_t) t + 1 : next;
				continue;
			}
			if (!x->key)
				continue;
			int i = 0;
			while (i < na && !(a[i].model == sl->model[f][k] && strcmp(a[i].key, x->key) == 0))
				i++;
			if (i == na) {
				if (na == cap) {
					cap = cap ? 2 * cap : 8;
					a = weft_xrealloc(a, (size_t) cap * sizeof(*a));
				}
				a[na++] = (struct auto_key){sl->model[f][k], x->key, 0, 0};
			}
			a[i].width = x->member + 1 > a[i].width ? x->member + 1 : a[i].width;
		}
	for (int i = 0; i < na; i++) {
		a[i].first = next;
		next += a[i].width;
	}
	*n = na;
	return a;
}

int32_t *paraver_slot_types(const struct emu *e, int file, struct weft_err *err)
{
	const struct emu_slots *sl = &e->out.slots;
	int na = 0;
	struct auto_key *a = auto_keys(e, &na);
	int32_t *t = weft_xcalloc((size_t) sl->n[file] + 1, sizeof(*t));
	for (int k = 0; k < sl->n[file]; k++) {
		const struct emu_slot_decl *x = &sl->decl[file][k];
		t[k] = paraver_table_type(e, file, k);
		for (int i = 0; t[k] == PARAVER_NO_TYPE && x->key && i < na; i++)
			if (a[i].model == sl->model[file][k] && strcmp(a[i].key, x->key) == 0 &&
			    a[i].first + x->member <= INT32_MAX)
				t[k] = (int32_t) (a[i].first + x->member);
		if (t[k] == PARAVER_NO_TYPE) {
			const struct weft_model_def *d = emu_registry_id(e, sl->model[file][k]);
			free(t);
			free(a);
			weft_fail(err, WEFT_EINTERNAL, "model %s: channel %s has no Paraver type for %s rows",
				  d ? d->name : "?", x->key ? x->key : sl->label[file][k],
				  file == EMU_THREAD_FILE ? "thread" : "CPU");
			return NULL;
		}
	}
	free(a);
	return t;
}

/* A Paraver type of one file registered by two models: the second's
 * values would be read as the first's, under two labels. */
int paraver_slot_clash(const struct emu *e, int32_t *const type[EMU_NFILES], struct weft_err *err)
{
	static const char *const fname[EMU_NFILES] = {"thread.prv", "cpu.prv"};
	const struct emu_slots *sl = &e->out.slots;
	for (int f = 0; f < EMU_NFILES; f++)
		for (int a = 0; a < sl->n[f]; a++)
			for (int b = a + 1; b < sl->n[f]; b++) {
				char ma = sl->model[f][a], mb = sl->model[f][b];
				if (type[f][a] != type[f][b] || ma == mb)
					continue;
				const struct weft_model_def *da = emu_registry_id(e, ma), *db = emu_registry_id(e, mb);
				return weft_fail(
					err, WEFT_EINPUT,
					"%s: Paraver type %d of %s is claimed by two models: %s (\"%s\") and %s "
					"(\"%s\")",
					e->run.trace ? e->run.trace : e->tr.dir, (int) type[f][a], fname[f],
					da ? da->name : "?", sl->label[f][a] ? sl->label[f][a] : "",
					db ? db->name : "?", sl->label[f][b] ? sl->label[f][b] : "");
			}
	return 0;
}
