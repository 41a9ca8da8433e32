/* SPDX-License-Identifier: GPL-3.0-or-later */
/* warns: the models' warnings in one run's order (warns.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/warns.h"
#include "util/strbuf.h"

struct warn {
	uint64_t t; /* event time; UINT64_MAX: at the end */
	uint64_t a; /* the event's stream, or the finishing model's id */
	uint64_t w; /* the worker's first stream */
	uint64_t seq; /* the worker's count */
	int error; /* a model error -k went past (emu_model_error) */
	char *text;
};

struct emu_warns {
	struct warn *v;
	size_t n, cap;
	int keep; /* a worker: keep its own */
	int first;
	uint64_t seq;
	uint64_t nerr; /* model errors kept (a worker) or printed (the merger) */
	size_t printed; /* of the events' ones (sorted first) */
};

static struct emu_warns *ws(struct emu *e)
{
	if (!e->side.warns)
		e->side.warns = weft_xcalloc(1, sizeof(*e->side.warns));
	return e->side.warns;
}

static void add(struct emu_warns *w, struct warn x)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->v = weft_xrealloc(w->v, w->cap * sizeof(*w->v));
	}
	w->v[w->n++] = x;
}

/* Keep `text` (taken) with its place in one run's order. */
static void keep(struct emu *e, struct emu_warns *w, char *text, int error)
{
	for (char *p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	int end = e->side.finishing != 0;
	add(w,
	    (struct warn){end ? UINT64_MAX : e->run.now,
			  end		      ? (uint64_t) (unsigned char) e->side.finishing
				  : e->run.ev ? (uint64_t) e->run.ev->stream->index
					      : 0,
			  (uint64_t) w->first, w->seq++, error, text});
}

void emu_warn(struct emu *e, const char *fmt, ...)
{
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = weft_xmalloc((size_t) (n > 0 ? n : 0) + 1);
	vsnprintf(text, (size_t) (n > 0 ? n : 0) + 1, fmt, aq);
	va_end(aq);
	struct emu_warns *w = e->side.warns;
	if (w && w->keep) {
		keep(e, w, text, 0);
		return;
	}
	if (!e->o.quiet)
		weft_warn("%s", text);
	free(text);
}

int warns_keep_error(struct emu *e, const char *msg)
{
	struct emu_warns *w = e->side.warns;
	if (!w || !w->keep)
		return 0;
	/* one run shows the first 20 and says where the 21st came: those are
	 * among each worker's first 21 */
	if (w->nerr++ < 21)
		keep(e, w, weft_xstrdup(msg), 1);
	return 1;
}

void warns_keep(struct emu *e, int first)
{
	struct emu_warns *w = ws(e);
	w->keep = 1;
	w->first = first;
}

void warns_save(const struct emu *e, struct strbuf *b)
{
	const struct emu_warns *w = e->side.warns;
	for (size_t i = 0; w && i < w->n; i++)
		sb_printf(b, "! %llu %llu %llu %llu %c %s\n", (unsigned long long) w->v[i].t,
			  (unsigned long long) w->v[i].a, (unsigned long long) w->v[i].w,
			  (unsigned long long) w->v[i].seq, w->v[i].error ? 'E' : 'W', w->v[i].text);
}

int warns_load(struct emu *e, const char *line)
{
	unsigned long long t, a, k, seq;
	char kind = 0;
	int used = 0;
	if (sscanf(line, "%llu %llu %llu %llu %c %n", &t, &a, &k, &seq, &kind, &used) != 5 || !used ||
	    (kind != 'E' && kind != 'W'))
		return -1;
	add(ws(e), (struct warn){t, a, k, seq, kind == 'E', weft_xstrdup(line + used)});
	return 0;
}

static int cmp(const void *x, const void *y)
{
	const struct warn *p = x, *q = y;
	if (p->t != q->t)
		return p->t < q->t ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->w != q->w)
		return p->w < q->w ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* One kept line as one run prints it: a warning unless quiet; a model
 * error always, the first 20, then a line where the 21st came. */
static void show(struct emu *e, struct emu_warns *w, const struct warn *x)
{
	if (!x->error) {
		if (!e->o.quiet)
			weft_warn("%s", x->text);
		return;
	}
	if (++w->nerr <= 20)
		weft_warn("%s", x->text);
	else if (w->nerr == 21)
		weft_warn("more model errors follow; only the count is reported");
}

void warns_print_events(struct emu *e)
{
	struct emu_warns *w = e->side.warns;
	if (!w || w->keep)
		return;
	qsort(w->v, w->n, sizeof(*w->v), cmp);
	for (; w->printed < w->n && w->v[w->printed].t != UINT64_MAX; w->printed++)
		show(e, w, &w->v[w->printed]);
}

void warns_print_end(struct emu *e, char id)
{
	struct emu_warns *w = e->side.warns;
	if (!w || w->keep)
		return;
	/* sorted by warns_print_events: a model's end ones follow each other */
	for (size_t i = w->printed; i < w->n; i++)
		if (w->v[i].t == UINT64_MAX && w->v[i].a == (uint64_t) (unsigned char) id)
			show(e, w, &w->v[i]);
}

void warns_free(struct emu *e)
{
	struct emu_warns *w = e->side.warns;
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].text);
	free(w->v);
	free(w);
	e->side.warns = NULL;
}
