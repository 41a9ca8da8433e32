/* SPDX-License-Identifier: GPL-3.0-or-later */
/* attr: the attributes of the pattern grammar resolved by name, once, as a
 * pattern is parsed: the built-ins (mcv, time, pid, ...), state.<model>
 * (a registered model with thread states) and payload fields, found in
 * every event table row that declares a field of that name (its type: int,
 * text or mixed). An unknown name gets a message listing what is known. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "query/qint.h"
#include "util/macros.h"

static const struct {
	const char *name;
	enum qattr_kind kind;
	enum qtype type;
} builtins[] = {
	{"mcv", QA_MCV, QT_TEXT},       {"model", QA_MODEL, QT_TEXT},
	{"cat", QA_CAT, QT_TEXT},       {"val", QA_VAL, QT_TEXT},
	{"model_name", QA_MODEL_NAME, QT_TEXT},
	{"time", QA_TIME, QT_INT},      {"clock", QA_CLOCK, QT_INT},
	{"chrono", QA_CHRONO, QT_INT},  {"loom", QA_LOOM, QT_TEXT},
	{"pid", QA_PID, QT_INT},        {"tid", QA_TID, QT_INT},
	{"rank", QA_RANK, QT_INT},      {"app", QA_APP, QT_INT},
	{"cpu", QA_CPU, QT_INT},        {"stream", QA_STREAM, QT_TEXT},
	{"desc", QA_DESC, QT_TEXT},
};

static int by_mcv(const void *a, const void *b)
{
	const struct qfloc *x = a, *y = b;
	return x->mcv < y->mcv ? -1 : x->mcv > y->mcv;
}

/* Every MCV whose table row has a field of this name. The rows are the
 * registered models' declarations (the table was compiled from them), not
 * the 94*94 slots of each model: an attribute name costs its rows only. */
static int find_field(struct query *q, const char *name, struct qattr *a)
{
	int cap = 0;
	const struct weft_model_def *const *all = q->tab->models.all;
	int nall = q->tab->models.n;
	for (int i = 0; i < nall; i++) {
		for (int k = 0; k < all[i]->nevents; k++) {
			const char *mcv = all[i]->events[k].mcv;
			const struct evinfo *in = evtable_find(q->tab, (uint8_t) mcv[0], (uint8_t) mcv[1],
							       (uint8_t) mcv[2]);
			if (!in)
				continue;
			int f = evinfo_field(in, name);
			if (f < 0)
				continue;
			if (a->nloc == cap) {
				cap = cap ? 2 * cap : 8;
				a->loc = weft_xrealloc(a->loc, (size_t) cap * sizeof(*a->loc));
			}
			struct qfloc *l = &a->loc[a->nloc++];
			l->mcv = QMCV_INDEX(mcv[0], mcv[1], mcv[2]);
			l->idx = (uint8_t) f;
			l->is_str = in->f[f].type == EVF_STR;
		}
	}
	if (!a->nloc)
		return 0;
	qsort(a->loc, (size_t) a->nloc, sizeof(*a->loc), by_mcv);
	int ns = 0;
	for (int i = 0; i < a->nloc; i++)
		ns += a->loc[i].is_str;
	a->type = ns == 0 ? QT_INT : ns == a->nloc ? QT_TEXT : QT_MIXED;
	a->kind = QA_FIELD;
	return 1;
}

void qmodel_names(const struct query *q, char *buf, size_t sz)
{
	const struct weft_model_def *const *all = q->tab->models.all;
	int n = q->tab->models.n;
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && len + 1 < sz; i++) {
		int w = snprintf(buf + len, sz - len, "%s%s", i ? ", " : "", all[i]->name);
		if (w < 0)
			break;
		len += (size_t) w;
	}
}

int qresolve_attr(struct query *q, const char *name, size_t n, struct qattr *a, char *msg,
		  size_t msgsz)
{
	memset(a, 0, sizeof(*a));
	if (n >= sizeof(a->name)) {
		snprintf(msg, msgsz, "unknown attribute \"%.*s...\" (too long)", 40, name);
		return -1;
	}
	memcpy(a->name, name, n);
	a->name[n] = '\0';
	if (n > 6 && strncmp(name, "state.", 6) == 0) {
		const char *m = a->name + 6;
		const struct weft_model_def *d = model_set_name(&q->tab->models, m);
		if (!d) {
			char names[512];
			qmodel_names(q, names, sizeof(names));
			snprintf(msg, msgsz, "unknown model \"%s\" in %s (models: %s)", m, a->name, names);
			return -1;
		}
		if (!d->hooks || !d->hooks->nstates) {
			snprintf(msg, msgsz, "the %s model has no thread states (%s)", m, a->name);
			return -1;
		}
		if (d->id != 'O') {
			/* a number from the model's state table; names resolve when parsed */
			a->kind = QA_MSTATE;
			a->type = QT_INT;
			a->model = d->id;
			return 0;
		}
		a->kind = QA_STATE;
		a->type = QT_STATE;
		a->model = d->id;
		return 0;
	}
	if (n > 6 && strncmp(name, "field.", 6) == 0) {
		if (find_field(q, a->name + 6, a))
			return 0;
		snprintf(msg, msgsz, "no event table has a payload field \"%s\" (see weft models)",
			 a->name + 6);
		return -1;
	}
	for (size_t k = 0; k < ARRAY_SIZE(builtins); k++)
		if (strcmp(builtins[k].name, a->name) == 0) {
			a->kind = builtins[k].kind;
			a->type = builtins[k].type;
			return 0;
		}
	if (find_field(q, a->name, a))
		return 0;
	snprintf(msg, msgsz,
		 "unknown attribute \"%s\" (expected mcv, model, cat, val, model_name, time, clock, "
		 "chrono, loom, pid, tid, rank, app, cpu, stream, desc, state.<model> or a payload "
		 "field of an event table: see weft models)",
		 a->name);
	return -1;
}

void qattr_free(struct qattr *a)
{
	free(a->loc);
	a->loc = NULL;
	a->nloc = 0;
}

void qattr_copy(struct qattr *dst, const struct qattr *src)
{
	*dst = *src;
	if (src->nloc) {
		dst->loc = weft_xmalloc((size_t) src->nloc * sizeof(*src->loc));
		memcpy(dst->loc, src->loc, (size_t) src->nloc * sizeof(*src->loc));
	}
}

