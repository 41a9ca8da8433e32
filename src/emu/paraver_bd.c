/* SPDX-License-Identifier: GPL-3.0-or-later */
/* paraver_bd: the Paraver files of the breakdown views (-b), as ovniemu's
 * -b writes them: MODEL-breakdown.prv with one row per physical CPU, its
 * .pcf (ovniemu's options and colours, the view's type and the labels of
 * the channels it lists) and its .row. The views' values come from the
 * models (models/engine/breakdown.h) through e->bd.ops; this file knows
 * nothing of how they are computed. */
#include <stdlib.h>
#include <string.h>

#include "emu/paraver_out.h"
#include "prv/pcfcolors.h"
#include "prv/prv_writer.h"
#include "util/strbuf.h"

static int nviews(const struct emu *e)
{
	return e->bd.ops ? e->bd.ops->nviews(e) : 0;
}

int32_t paraver_bd_type(const struct emu *e, char model)
{
	const struct weft_model_def *d = emu_registry_id(e, model);
	for (int i = 0; d && i < d->nparaver; i++)
		if (d->paraver[i].set == 2)
			return d->paraver[i].type;
	return -1;
}

void paraver_bd_outputs(struct emu *e, struct paraver_out *po, struct outset *s)
{
	static const char *const ext[] = {"prv", "pcf", "row"};
	for (int i = 0; i < nviews(e); i++)
		for (int k = 0; k < 3; k++) {
			char *n = weft_xasprintf("%s.%s%s", e->bd.ops->view(e, i)->name, ext[k],
						 k == 0 && po->gzip ? ".gz" : "");
			outset_add(s, n);
			free(n);
		}
}

int paraver_bd_open(struct emu *e, struct paraver_out *po, const char *date, struct weft_err *err)
{
	po->nbd = nviews(e);
	po->bd = weft_xcalloc((size_t) po->nbd + 1, sizeof(*po->bd));
	for (int i = 0; i < po->nbd; i++) {
		const struct emu_bd_view *v = e->bd.ops->view(e, i);
		struct paraver_bd *b = &po->bd[i];
		/* one node and one task whose threads are the rows, as ovniemu's */
		char *rest = weft_xasprintf("1(%d):1:1(%d:1)", v->nrow, v->nrow);
		uint32_t(*ids)[3] = weft_xcalloc((size_t) v->nrow + 1, sizeof(*ids));
		for (int r = 0; r < v->nrow; r++) {
			ids[r][0] = 1;
			ids[r][1] = 1;
			ids[r][2] = (uint32_t) r + 1;
		}
		char *n = weft_xasprintf("%s.prv", v->name);
		char *p = outset_shown(&po->out, n), *tmp = paraver_trace_tmp(e, n);
		int32_t type = paraver_bd_type(e, v->model);
		int rc = type < 0 ? weft_fail(err, WEFT_EINTERNAL, "%s: no Paraver type for the view", v->name)
				  : prv_open(&b->prv, po->files, p, tmp, date, rest, v->nrow,
					     (const uint32_t(*)[3]) ids, 1, &type, po->gzip, err);
		free(n);
		free(p);
		free(tmp);
		free(ids);
		free(rest);
		if (rc)
			return -1;
		b->open = 1;
		if (b->prv.pipe != po->files) /* the set is full: its records would have nowhere to go */
			return weft_fail(err, WEFT_EINTERNAL, "%s: more breakdown traces than the Paraver writer holds",
					 v->name);
		e->bd.ops->open(e, i, (int) b->prv.id);
	}
	return 0;
}

int paraver_bd_texts(struct emu *e, struct paraver_out *po, struct outset *s, struct weft_err *err)
{
	for (int i = 0; i < po->nbd; i++) {
		const struct emu_bd_view *v = e->bd.ops->view(e, i);
		struct strbuf b = {0};
		sb_printf(&b,
			  "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
			  "LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
			  "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
			  "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\n");
		pcfcolors_section(&b, 1, NULL, 0); /* ovniemu's colours for the values */
		sb_printf(&b, "\n\nEVENT_TYPE\n0 %d %s\nVALUES\n", (int) paraver_bd_type(e, v->model), v->label);
		e->bd.ops->value_lines(e, i, &b);
		sb_printf(&b, "\n");
		char *n = weft_xasprintf("%s.pcf", v->name);
		int rc = outset_write(s, n, b.s ? b.s : "", b.len, err);
		free(n);
		sb_free(&b);
		if (rc)
			return -1;
		sb_printf(&b,
			  "LEVEL NODE SIZE 1\nCPUs\n\nLEVEL APPL SIZE 1\n%s\n\nLEVEL TASK SIZE 1\nCPUs\n\n"
			  "LEVEL THREAD SIZE %d\n",
			  v->name, v->nrow);
		for (int r = 0; r < v->nrow; r++) /* the top row shows the greatest value */
			sb_printf(&b, "~CPU %4d\n", v->nrow - r);
		n = weft_xasprintf("%s.row", v->name);
		rc = outset_write(s, n, b.s ? b.s : "", b.len, err);
		free(n);
		sb_free(&b);
		if (rc)
			return -1;
	}
	return 0;
}

/* After the pipe finished: the files are the caller's thread's again. */
int paraver_bd_finish(struct emu *e, struct paraver_out *po, uint64_t ftime, struct weft_err *err)
{
	for (int i = 0; i < po->nbd; i++) {
		struct paraver_bd *b = &po->bd[i];
		if (!b->open)
			continue;
		b->open = 0;
		e->bd.ops->close(e, i);
		char *done = NULL;
		char *shown = weft_xasprintf("%s%s", b->prv.back.path, b->prv.back.gzip ? ".gz" : "");
		uint64_t nrec = 0;
		int rc = prv_finish_n(&b->prv, ftime, &done, &nrec, err);
		free(done); /* in the new generation, under its name */
		/* ovniemu writes such a view with the header alone; so does weft
		 * (the same bytes), but the user is told it will not open */
		if (rc == 0 && nrec == 0 && !e->o.quiet)
			weft_warn("%s: no CPU's value ever changed: its body is empty, as ovniemu "
				  "writes it, and Paraver refuses to load it (\"Empty body\")",
				  shown);
		free(shown);
		if (rc)
			return -1;
	}
	return 0;
}

void paraver_bd_abort(struct emu *e, struct paraver_out *po)
{
	for (int i = 0; i < po->nbd; i++) {
		struct paraver_bd *b = &po->bd[i];
		if (b->open) {
			prv_abort(&b->prv);
			if (e && e->bd.ops)
				e->bd.ops->close(e, i);
		}
		b->open = 0;
	}
}

void paraver_bd_free(struct paraver_out *po)
{
	free(po->bd);
	po->bd = NULL;
	po->nbd = 0;
}
