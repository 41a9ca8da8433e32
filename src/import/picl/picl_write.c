/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_write: records in (time, line) order as one ovni stream per row
 * (picl_rows.c: a processor, or a process of a processor showing several;
 * loom picl.P with P zero-padded to the widest processor, a CPU per row,
 * pid = tid = P + 1, or process + 1; the host is loom picl.host) of the msg
 * model, with user events as ovni marks too. Streams are opened at their
 * row's first record and written batch by batch; their stream.json (which
 * names the user block labels of the whole log) when they are finished.
 * The records kept beside the timeline are written by picl_kept.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"
#include "util/strbuf.h"
#include "trace/writer.h"
#include "import/picl/picl_out.h"

static int cmp_orec(const void *a, const void *b)
{
	const struct orec *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- user block values ---------------------------------------------------- */

static size_t mark_hash(int64_t v, size_t cap)
{
	return (size_t) (((uint64_t) v * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static void used_add_slow(struct used_marks *u, int64_t v)
{
	if (2 * (u->n + 1) > u->cap) {
		size_t ncap = u->cap ? 2 * u->cap : 64;
		int64_t *ns = weft_xmalloc(ncap * sizeof(*ns));
		for (size_t i = 0; i < ncap; i++)
			ns[i] = INT64_MIN;
		for (size_t i = 0; i < u->n; i++) {
			size_t j = mark_hash(u->order[i], ncap);
			while (ns[j] != INT64_MIN)
				j = (j + 1) & (ncap - 1);
			ns[j] = u->order[i];
		}
		free(u->set);
		u->set = ns;
		u->cap = ncap;
		u->order = weft_xrealloc(u->order, ncap / 2 * sizeof(*u->order));
	}
	size_t j = mark_hash(v, u->cap);
	for (; u->set[j] != INT64_MIN; j = (j + 1) & (u->cap - 1))
		if (u->set[j] == v)
			return;
	u->set[j] = v;
	u->order[u->n++] = v;
	if (v >= 0 && v < 64)
		u->small |= (uint64_t) 1 << v;
}

static inline void used_add(struct used_marks *u, int64_t v)
{
	if (v >= 0 && v < 64 && (u->small >> v & 1))
		return;
	used_add_slow(u, v);
}

/* ---- events ----------------------------------------------------------------- */

static void grow(int32_t **v, int *cap)
{
	*cap = *cap ? 2 * *cap : 16;
	*v = weft_xrealloc(*v, (size_t) *cap * sizeof(**v));
}

static inline void push(int32_t **v, int *n, int *cap, int32_t x)
{
	if (__builtin_expect(*n == *cap, 0))
		grow(v, cap);
	(*v)[(*n)++] = x;
}

/* Remove the innermost open entry of `type`; 0 if there is none. */
static inline int pop_type(int32_t *v, int *n, int32_t type)
{
	int k = *n - 1;
	if (k >= 0 && v[k] == type) {
		*n = k;
		return 1;
	}
	while (k >= 0 && v[k] != type)
		k--;
	if (k < 0)
		return 0;
	memmove(&v[k], &v[k + 1], (size_t) (*n - k - 1) * sizeof(*v));
	(*n)--;
	return 1;
}

static inline void xev(struct pstream *s, const char *mcv, uint64_t clk, int32_t type, int32_t a, int32_t b, int32_t c)
{
	int32_t pl[4] = {type, a, b, c};
	ow_event_mcv(&s->w, mcv, clk, pl, sizeof(pl));
}

/* The MCV of a PICL call's entry or exit: message calls get rows whose
 * fields are named (models/msg/events.c): a send's entry XS[ (size, tag,
 * dst), a receive's entry XR[ (the requested tag, src, proc) and the exit
 * that completes it XR] (size, tag, src); any other call XE[ / XE] (a, b,
 * c). The payload is the same four i32 whatever the MCV. */
static const char *call_mcv(int entry, int32_t type)
{
	switch (type) {
	case -21: /* send0 */
	case -27: /* sendbegin0 (its exit gives the request id) */
		return entry ? "XS[" : "XE]";
	case -51: /* recv0 variants and wait0: requested, then received */
	case -52:
	case -56:
		return entry ? "XR[" : "XR]";
	case -57: /* recvbegin0 (its exit gives the request id) */
		return entry ? "XR[" : "XE]";
	case -58: /* completions of a request: the received message at exit */
	case -60:
	case -61:
		return entry ? "XE[" : "XR]";
	default:
		return entry ? "XE[" : "XE]";
	}
}

/* XP.: the partner process of the thread's next message (the destination
 * of a send entry, the source of a receive's exit), when the partner
 * processor is shown as a row per process. */
static void partner(struct pstream *s, uint64_t clk, int32_t process)
{
	ow_event_mcv(&s->w, "XP.", clk, &process, 4);
}

static int64_t mark_value(int32_t type)
{
	return type >= 0 ? (int64_t) type + 1 : type; /* old collective blocks: -1..-4 */
}

/* The user block value of `type` on s's row (picl_labels.c): type + 1,
 * unless -5 labels are scoped; noted on s for its stream.json. */
static int64_t block_value(struct picl *p, struct pstream *s, int32_t type)
{
	if (!p->scoped_labels || type < 0)
		return mark_value(type);
	int32_t process = s->process;
	if (process < 0 && p->rows.first && p->rows.first[s->proc] != INT32_MIN)
		process = p->rows.first[s->proc]; /* the one process of the row */
	const char *text;
	int64_t v = picl_label_value(p, type, s->proc, process, &text);
	for (int i = 0; i < s->nlab; i++)
		if (s->lab[i].type == type)
			return v;
	if (s->nlab == s->clab) {
		s->clab = s->clab ? 2 * s->clab : 4;
		s->lab = weft_xrealloc(s->lab, (size_t) s->clab * sizeof(*s->lab));
	}
	s->lab[s->nlab].type = type;
	s->lab[s->nlab++].text = text;
	return v;
}

static inline void mark_ev(struct picl *p, struct pstream *s, const char *mcv, uint64_t clk, int32_t type)
{
	uint8_t pl[12];
	int64_t v = block_value(p, s, type);
	int32_t ty = 0;
	memcpy(pl, &v, 8);
	memcpy(pl + 8, &ty, 4);
	ow_event_mcv(&s->w, mcv, clk, pl, sizeof(pl));
}

static void json_str(struct strbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_printf(b, "\\%c", *s);
		else if ((unsigned char) *s < 32)
			sb_printf(b, "\\u%04x", (unsigned char) *s);
		else
			sb_printf(b, "%c", *s);
	}
	sb_printf(b, "\"");
}

/* The stream of slot `slot`: processor proc, process `process` (-1: the
 * processor's one row), pid = tid = that id + 1. */
static struct pstream *open_stream(struct picl *p, int slot, int32_t proc, int32_t process, const char *outdir,
				   uint64_t clk)
{
	struct picl_out *o = p->out;
	struct weft_err *err = p->err;
	struct pstream *s = weft_xcalloc(1, sizeof(*s));
	s->proc = proc;
	s->process = process;
	long long id = (long long) (process >= 0 ? process : proc) + 1;
	if (proc == HOST)
		s->dir = weft_xasprintf("%s/loom.picl.host/proc.%lld/thread.%lld", outdir, id, id);
	else
		s->dir = weft_xasprintf("%s/loom.picl.%d/proc.%lld/thread.%lld", outdir, proc, id, id);
	if (ow_open(&s->w, s->dir, 1u << 16, err)) {
		free(s->dir);
		free(s);
		return NULL;
	}
	o->st[slot] = s;
	if (import_locate_is(p->loc, outdir, s->dir))
		o->loc = s;
	uint8_t pl[16] = {0};
	/* a row of a process runs on the CPU of its number among the
	 * processor's rows (ovni runs one thread on a CPU at a time) */
	const struct picl_split *sp = process >= 0 ? picl_split_of(p, proc) : NULL;
	int32_t cpu = sp ? slot - sp->base : 0, creator = -1;
	memcpy(pl, &cpu, 4);
	memcpy(pl + 4, &creator, 4);
	ow_event_mcv(&s->w, "OHx", clk, pl, 16);
	for (int k = 0; k < o->nglob; k++)
		picl_glob_ev(p, s, clk, &o->glob[k]);
	for (int k = 0; k < o->npstat; k++)
		picl_stat_ev(p, s, &o->pstat[k], clk);
	o->npstat = 0;
	return s;
}

/* The events of record r on stream s. */
static void write_one(struct picl *p, struct pstream *s, const struct orec *r, uint64_t clk)
{
	struct picl_out *o = p->out;
	s->last = clk;
	switch (r->kind) {
	case K_ENTRY:
		push(&s->sys, &s->nsys, &s->csys, r->type);
		if (picl_is_file(r->type)) {
			picl_file_event(p, &s->w, r, clk);
			break;
		}
		if ((r->type == -21 || r->type == -27) && r->d >= 0 && picl_split_of(p, r->c))
			partner(s, clk, r->d); /* its destination is a row of a process */
		xev(s, call_mcv(1, r->type), clk, r->type, r->a, r->b, r->c);
		break;
	case K_EXIT:
		if (!pop_type(s->sys, &s->nsys, r->type)) {
			picl_warn_later(p, r->line, "exit with no open entry of its event type: skipped");
			break;
		}
		if (picl_is_file(r->type)) {
			picl_file_event(p, &s->w, r, clk);
			break;
		}
		if (call_mcv(0, r->type)[1] == 'R' && r->d >= 0 && picl_split_of(p, r->c))
			partner(s, clk, r->d); /* its source is a row of a process */
		xev(s, call_mcv(0, r->type), clk, r->type, r->a, r->b, r->c);
		break;
	case K_MARK:
		if (picl_is_file(r->type)) {
			picl_file_event(p, &s->w, r, clk);
		} else if (r->sub == 'm') { /* a mark of a call: its message or request */
			int32_t pl[6] = {r->type, r->a, r->b, r->c, r->d, r->e};
			ow_jumbo_fixed(&s->w, ow_jumbo_head("XC."), clk, pl, sizeof(pl));
		} else {
			xev(s, "XE.", clk, r->type, r->a, r->b, r->c);
		}
		break;
	case K_USER: {
		int64_t v;
		const char *text;
		picl_user_data(p, r, &v, &text);
		picl_user_ev(o, s, clk, r->a, r->type, r->sub, v, text);
		break;
	}
	case K_TEXT:
		picl_text_ev(o, s, clk, r->type, p->txt + picl_off(r));
		break;
	case K_SUBSET:
		picl_subset_ev(p, s, clk, r->a);
		break;
	case K_UBEGIN:
		used_add(&o->used, block_value(p, s, r->type));
		push(&s->usr, &s->nusr, &s->cusr, r->type);
		mark_ev(p, s, "OM[", clk, r->type);
		if (r->type >= 0) /* a PICL user event: the msg model profiles it */
			xev(s, "XE[", clk, r->type, r->a, r->b, r->c);
		break;
	case K_UEND: {
		if (s->nusr && s->usr[s->nusr - 1] == r->type) { /* the innermost block */
			mark_ev(p, s, "OM]", clk, r->type);
			s->nusr--;
			if (r->type >= 0)
				xev(s, "XE]", clk, r->type, r->a, r->b, r->c);
			break;
		}
		int k = s->nusr - 1;
		while (k >= 0 && s->usr[k] != r->type)
			k--;
		if (k < 0) {
			picl_warn_later(p, r->line, "end of a user block that is not open: skipped");
			break;
		}
		/* close the inner blocks, this one, and reopen the inner ones */
		for (int j = s->nusr - 1; j >= k; j--)
			mark_ev(p, s, "OM]", clk, s->usr[j]);
		for (int j = k + 1; j < s->nusr; j++)
			mark_ev(p, s, "OM[", clk, s->usr[j]);
		pop_type(s->usr, &s->nusr, r->type);
		if (r->type >= 0)
			xev(s, "XE]", clk, r->type, r->a, r->b, r->c);
		break;
	}
	case K_STAT:
		picl_stat_ev(p, s, r, clk);
		break;
	}
}

/* A record of a processor shown as a row per process: on the row of its
 * process, or on each row its process field takes in (-1, a -202 subset);
 * a statistic of several rows is stated once for them (XG*). */
static int write_split(struct picl *p, const struct orec *r, uint64_t clk, const char *outdir)
{
	struct picl_out *o = p->out;
	const struct picl_split *sp = picl_split_of(p, r->proc);
	int one = r->process >= 0 ? picl_row_of(p, r->proc, r->process) : -1;
	if (one < 0 && r->kind == K_STAT) {
		struct orec g = *r;
		g.proc = PICL_ALL;
		g.d = r->proc;
		picl_glob_stat(p, &g, clk);
		return 0;
	}
	for (int k = 0; k < sp->n; k++) {
		int slot = sp->base + k;
		if (one >= 0 ? slot != one : !picl_in_scope(p, 1, r->process, sp->q[k]))
			continue;
		struct pstream *s = o->st[slot];
		if (!s && !(s = open_stream(p, slot, r->proc, sp->q[k], outdir, clk)))
			return -1;
		write_one(p, s, r, clk);
	}
	return 0;
}

/* Write the records p->r[0..n) (in order, after those written before). */
static int write_records(struct picl *p, const char *outdir)
{
	struct picl_out *o = p->out;
	if (!o) {
		o = p->out = weft_xcalloc(1, sizeof(*o));
		o->nst = p->rows.nslots > NPROC_IDS ? p->rows.nslots : NPROC_IDS;
		o->st = weft_xcalloc((size_t) o->nst, sizeof(*o->st));
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct orec *r = &p->r[i];
		if (__builtin_expect(r->proc == PICL_ALL, 0)) {
			/* definitions before every processor's first record (as
			 * PICL puts header records) do not move the origin: they
			 * come at each stream's start */
			uint64_t gclk = o->t0_set && r->t > o->t0 ? (uint64_t) (r->t - o->t0) + 1 : 1;
			if (r->kind == K_STAT)
				picl_glob_stat(p, r, gclk);
			else
				picl_glob_record(p, r, gclk);
			if (__builtin_expect(p->loc != NULL, 0))
				import_locate_after(p->loc, o->loc ? &o->loc->w : NULL, 1, r->line);
			continue;
		}
		if (__builtin_expect(!o->t0_set, 0)) {
			o->t0 = r->t;
			o->t0_set = 1;
		}
		uint64_t clk = (uint64_t) (r->t - o->t0) + 1;
		if (__builtin_expect(picl_split_of(p, r->proc) != NULL, 0)) {
			if (write_split(p, r, clk, outdir))
				return -1;
		} else {
			struct pstream *s = o->st[r->proc];
			if (__builtin_expect(!s, 0) && !(s = open_stream(p, r->proc, r->proc, -1, outdir, clk)))
				return -1;
			write_one(p, s, r, clk);
		}
		if (__builtin_expect(p->loc != NULL, 0))
			import_locate_after(p->loc, o->loc ? &o->loc->w : NULL, 1, r->line);
	}
	if (p->n)
		p->last = p->r[p->n - 1];
	p->nwritten += p->n;
	p->n = 0;
	p->ntxt = 0; /* no record points into the texts any more */
	return 0;
}

/* p->r[0..n) sorted, and after the last record written. */
static int in_order(const struct picl *p)
{
	if (p->n && p->nwritten && cmp_orec(&p->last, &p->r[0]) > 0)
		return 0;
	for (size_t i = 1; i < p->n; i++)
		if (cmp_orec(&p->r[i - 1], &p->r[i]) > 0)
			return 0;
	return 1;
}

/* in_order for records of the new format, read in line order: the records
 * of one line share time, line and seq, so the order is the times'. */
static int times_in_order(const struct picl *p)
{
	int64_t t = p->nwritten ? p->last.t : INT64_MIN;
	int ok = 1;
	for (size_t i = 0; i < p->n; i++) {
		ok &= p->r[i].t >= t;
		t = p->r[i].t;
	}
	return ok;
}

int picl_write_batch(struct picl *p, const char *outdir)
{
	/* unsorted, or a processor with several processes: hold the rest, and
	 * sort and plan the rows from all of it */
	if (!times_in_order(p) || picl_rows_note(p)) {
		p->streaming = 0;
		return p->nwritten ? PICL_RESTART : 0;
	}
	if (p->scoped_labels) { /* user block values from every label: hold it all */
		p->streaming = 0;
		return p->nwritten ? PICL_RESTART : 0;
	}
	if (p->has_stats || p->has_files) {
		p->streaming = 0; /* they need the whole log: hold from here */
		return 0;
	}
	return write_records(p, outdir);
}

/* The user block labels of every stream.json: the -5 labels, then defaults
 * for the values used without one. */
static void labels_json(struct picl *p, struct strbuf *b)
{
	const struct used_marks *u = &p->out->used;
	for (size_t i = 0; i < u->n; i++) {
		int64_t v = u->order[i];
		int found = 0;
		for (int k = 0; k < p->nlab && !found; k++)
			found = p->lab[k].value == v;
		if (found)
			continue;
		static const char *const coll[] = {"barrier", "broadcast (-2)", "broadcast (-3)", "global op"};
		char buf[64];
		if (v > 0)
			snprintf(buf, sizeof(buf), "user event %lld", (long long) v - 1);
		else
			snprintf(buf, sizeof(buf), "%s", v >= -4 ? coll[-v - 1] : "block");
		picl_add_label(p, v, buf, strlen(buf));
	}
	for (int k = 0; k < p->nlab; k++) {
		sb_printf(b, "%s\"%lld\": ", k ? ", " : "", (long long) p->lab[k].value);
		json_str(b, p->lab[k].text);
	}
}

/* What the msg model reads of a row beside ovni's keys ("picl": its
 * processor and process when it is a row of one process, its name (a -5
 * label of event type -1), the labels of its user events when they are
 * scoped), as a key of stream.json, or nothing. */
static void row_json(struct picl *p, const struct pstream *s, struct strbuf *b)
{
	const char *name = p->nlrec ? picl_row_label(p, s->proc, s->process) : NULL;
	if (s->process < 0 && !name && !s->nlab)
		return;
	sb_printf(b, ",\n  \"picl\": {");
	const char *sep = "";
	if (s->process >= 0) {
		sb_printf(b, "\"processor\": %d, \"process\": %d", s->proc, s->process);
		sep = ", ";
	}
	if (name) {
		sb_printf(b, "%s\"name\": ", sep);
		json_str(b, name);
		sep = ", ";
	}
	if (s->nlab) {
		sb_printf(b, "%s\"labels\": {", sep);
		for (int i = 0; i < s->nlab; i++) {
			sb_printf(b, "%s\"%d\": ", i ? ", " : "", s->lab[i].type);
			json_str(b, s->lab[i].text);
		}
		sb_printf(b, "}");
	}
	sb_printf(b, "}");
}

/* The loom folders, opened as loom.picl.P, named as their looms (picl.0P),
 * after the streams are closed (the writer flushes by path): `procs`, the
 * processors of the streams, -1 ending them (a processor may come again:
 * the rows of its processes share its loom). */
static int name_looms(struct picl *p, const char *outdir, const int32_t *procs, int width)
{
	for (; *procs >= 0; procs++) {
		char from[32], to[32];
		snprintf(from, sizeof(from), "picl.%d", *procs);
		snprintf(to, sizeof(to), "picl.%0*d", width, *procs);
		if (import_name_loom(outdir, from, to, p->err))
			return -1;
	}
	return 0;
}

/* End every stream (close what is open at its last record) with its
 * stream.json. */
static int finish_streams(struct picl *p)
{
	struct picl_out *o = p->out;
	struct weft_err *err = p->err;
	struct strbuf labels = {0};
	labels_json(p, &labels);
	int rc = 0;
	/* loom names padded to the widest processor number: ovni orders looms
	 * by name (strcmp), so picl.10 would come before picl.2 */
	int width = 1, nst = 0;
	for (int i = 0; i < o->nst; i++) {
		nst += o->st[i] != NULL;
		if (o->st[i] && o->st[i]->proc != HOST && snprintf(NULL, 0, "%d", o->st[i]->proc) > width)
			width = snprintf(NULL, 0, "%d", o->st[i]->proc);
	}
	if (nst == 0) { /* only records of every processor */
		sb_free(&labels);
		return weft_fail(err, WEFT_EINPUT, "%s: no event record of any processor: nothing to import",
				 p->path);
	}
	for (int pp = 0, kk = 0, i; rc == 0 && (i = picl_next_slot(p, &pp, &kk)) >= 0;) {
		struct pstream *s = o->st[i];
		if (!s)
			continue;
		int32_t pr = s->proc;
		if (s->nsys || s->nusr) {
			char what[128], who[48] = "";
			if (s->process >= 0)
				snprintf(who, sizeof(who), " process %d", s->process);
			snprintf(what, sizeof(what),
				 "processor %d%s: %d entries still open at its last record, closed there",
				 pr == HOST ? -1 : pr, who, s->nsys + s->nusr);
			picl_warn(p, 0, what, NULL);
		}
		while (s->nusr) {
			int32_t ty = s->usr[--s->nusr];
			mark_ev(p, s, "OM]", s->last, ty);
			if (ty >= 0)
				xev(s, "XE]", s->last, ty, -1, -1, -1);
		}
		while (s->nsys) {
			int32_t ty = s->sys[--s->nsys];
			if (picl_is_file(ty))
				picl_file_close(&s->w, ty, s->last);
			else
				xev(s, "XE]", s->last, ty, -1, -1, -1);
		}
		ow_event(&s->w, "OHe", s->last, NULL, 0);
		if (p->loc && s == o->loc) /* the ends weft added: no record */
			import_locate_after(p->loc, &s->w, 0, 0);
		long long id = (long long) (s->process >= 0 ? s->process : pr) + 1;
		char loom[32];
		struct strbuf row = {0};
		row_json(p, s, &row);
		if (pr == HOST)
			snprintf(loom, sizeof(loom), "picl.host");
		else
			snprintf(loom, sizeof(loom), "picl.%0*d", width, pr);
		struct strbuf cpus = {0};
		const struct picl_split *sp = s->process >= 0 ? picl_split_of(p, pr) : NULL;
		for (int c = 0; c < (sp ? sp->n : 1); c++)
			sb_printf(&cpus, "%s{\"index\": %d, \"phyid\": %d}", c ? ", " : "", c, c);
		struct strbuf j = {0};
		sb_printf(&j,
			  "{\n  \"version\": 3,\n  \"ovni\": {\n    \"lib\": {\"version\": \"1.14.0\", "
			  "\"commit\": \"weft-import-picl\"},\n    \"part\": \"thread\",\n    \"tid\": %lld,\n"
			  "    \"pid\": %lld,\n    \"loom\": \"%s\",\n    \"app_id\": 1,\n"
			  "    \"require\": {\"ovni\": \"1.1.0\", \"msg\": \"1.0.0\"%s},\n"
			  "    \"mark\": {\"0\": {\"title\": \"PICL user block\", \"chan_type\": \"stack\", "
			  "\"labels\": {%s}}},\n"
			  "    \"loom_cpus\": [%s],\n    \"finished\": 1\n  }%s\n}\n",
			  id, id, loom, p->has_files ? ", \"fileio\": \"1.0.0\"" : "", labels.s ? labels.s : "", cpus.s,
			  row.s ? row.s : "");
		sb_free(&cpus);
		sb_free(&row);
		rc = ow_write_json(s->dir, j.s, err);
		sb_free(&j);
	}
	sb_free(&labels);
	return rc;
}

static int close_streams(struct picl *p, struct weft_err *err);

int picl_write_rest(struct picl *p, const char *outdir)
{
	if (!in_order(p)) {
		if (p->nwritten)
			return PICL_RESTART;
		qsort(p->r, p->n, sizeof(*p->r), cmp_orec);
	}
	if (p->nwritten && (picl_rows_note(p) || p->scoped_labels))
		return PICL_RESTART; /* a second process, or a scoped label, after rows were written */
	if (!p->nwritten)
		picl_rows_plan(p);
	picl_files_pair(p);
	int rc = write_records(p, outdir);
	picl_warn_flush(p);
	if (rc == 0)
		rc = finish_streams(p);
	/* the processors and the loom names' width (as finish_streams) */
	struct picl_out *o = p->out;
	int n = o ? o->nst : 0, np = 0, width = 1;
	int32_t *procs = weft_xcalloc((size_t) n + 1, sizeof(*procs));
	for (int i = 0; i < n; i++)
		if (o->st[i] && o->st[i]->proc != HOST) {
			procs[np++] = o->st[i]->proc;
			if (snprintf(NULL, 0, "%d", o->st[i]->proc) > width)
				width = snprintf(NULL, 0, "%d", o->st[i]->proc);
		}
	procs[np] = -1;
	if (close_streams(p, p->err) && rc == 0)
		rc = -1;
	if (rc == 0)
		rc = name_looms(p, outdir, procs, width);
	free(procs);
	return rc;
}

void picl_write_free(struct picl *p)
{
	struct weft_err ignored;
	close_streams(p, &ignored);
}

/* Flush, close and release every stream; -1 if one could not be written. */
static int close_streams(struct picl *p, struct weft_err *err)
{
	struct picl_out *o = p->out;
	if (!o)
		return 0;
	int rc = 0;
	for (int i = 0; i < o->nst; i++) {
		struct pstream *s = o->st[i];
		if (!s)
			continue;
		if (ow_close(&s->w, err))
			rc = -1;
		free(s->dir);
		free(s->sys);
		free(s->usr);
		free(s->lab);
		free(s);
	}
	free(o->st);
	for (int k = 0; k < o->nglob; k++)
		free(o->glob[k].text);
	free(o->glob);
	free(o->pstat);
	free(o->jbuf);
	free(o->used.set);
	free(o->used.order);
	free(o);
	p->out = NULL;
	return rc;
}
