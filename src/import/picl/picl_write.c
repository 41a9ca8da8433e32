/* picl_write: records in (time, line) order as one ovni stream per processor
 * (loom picl.P with P zero-padded to the widest processor, one CPU, pid = tid = P + 1; the host is loom picl.host) of
 * the msg model, with user events as ovni marks too. Streams are opened at
 * their processor's first record and written batch by batch; their
 * stream.json (which names the user block labels of the whole log) when
 * they are finished. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"
#include "util/strbuf.h"
#include "trace/writer.h"

struct pstream {
	struct ovni_writer w;
	char *dir;
	uint64_t last;
	int32_t *sys, *usr; /* open entries (types) */
	int nsys, csys, nusr, cusr;
};

/* The user block values used, in order of first use (their default labels
 * follow the -5 labels in that order): a set and a list. */
struct used_marks {
	uint64_t small;     /* values 0..63 in the set, as bits (the common ones) */
	int64_t *set;       /* open addressing; INT64_MIN = empty */
	size_t cap, n;
	int64_t *order;
};

/* A record of every processor (a global -7 or subset record) written
 * already: a stream opened later gets it at its start. */
struct glob {
	uint8_t kind, sub;
	int32_t type, a;
	int64_t value; /* K_USER with data: its first field (PICL_NO_VALUE: no number) */
	char *text; /* K_TEXT; K_USER: its data */
};

struct picl_out {
	struct pstream **st; /* by processor id */
	int64_t t0;          /* time of the first record of a processor (the earliest) */
	int t0_set;
	struct used_marks used;
	struct glob *glob;
	int nglob, cglob;
	uint8_t *jbuf;       /* a jumbo event's data being built */
	size_t cjbuf;
	struct pstream *loc; /* the stream p->loc asks about, once open */
	struct orec *pstat; /* statistics of several rows waiting for a stream */
	int npstat, cpstat;
};

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

static int64_t mark_value(int32_t type)
{
	return type >= 0 ? (int64_t) type + 1 : type; /* old collective blocks: -1..-4 */
}

static inline void mark_ev(struct pstream *s, const char *mcv, uint64_t clk, int32_t type)
{
	uint8_t pl[12];
	int64_t v = mark_value(type);
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

/* ---- kept records: texts and subsets -------------------------------------- */

static uint8_t *jbuf(struct picl_out *o, size_t n)
{
	if (n > o->cjbuf) {
		o->cjbuf = n + 256;
		o->jbuf = weft_xrealloc(o->jbuf, o->cjbuf);
	}
	return o->jbuf;
}

/* A jumbo event of `fixed` bytes of integers, then the text s (a str). */
static void jumbo_str(struct picl_out *o, struct pstream *s, const char *mcv, uint64_t clk, const void *fixed,
		      size_t nfixed, const char *text, size_t ntext)
{
	if (ntext > PICL_TEXT_MAX) /* the stream's buffer holds any event up to this */
		ntext = PICL_TEXT_MAX;
	uint8_t *b = jbuf(o, nfixed + ntext + 1);
	memcpy(b, fixed, nfixed);
	memcpy(b + nfixed, text, ntext);
	b[nfixed + ntext] = 0;
	ow_jumbo_fixed(&s->w, ow_jumbo_head(mcv), clk, b, (uint32_t) (nfixed + ntext + 1));
}

/* A -7 message (models/msg/events.c XM.). */
static void text_ev(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t type, const char *text)
{
	jumbo_str(o, s, "XM.", clk, &type, sizeof(type), text, strlen(text));
}

/* A subset definition (XBp, XBq, XBe): id, member count, members as text. */
static void subset_ev(struct picl *p, struct pstream *s, uint64_t clk, int32_t index)
{
	const struct picl_subset *sub = &p->subset[index];
	struct strbuf m = {0};
	for (int k = 0; k < sub->n; k++)
		sb_printf(&m, "%s%lld", k ? " " : "", (long long) sub->m[k]);
	int32_t fixed[2] = {(int32_t) sub->id, sub->n};
	static const char *const mcv[3] = {"XBp", "XBq", "XBe"};
	jumbo_str(p->out, s, mcv[sub->kind], clk, fixed, sizeof(fixed), m.s ? m.s : "", m.len);
	sb_free(&m);
}

/* A user record with data: record type, event type, then (XUd) the first
 * data field in 10^-9 units, or (XUt, when it is no number) nothing, and
 * the data as text. */
static void user_write(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t rt, int32_t ty, int64_t v,
		       const char *text)
{
	uint8_t fixed[16];
	memcpy(fixed, &rt, 4);
	memcpy(fixed + 4, &ty, 4);
	memcpy(fixed + 8, &v, 8);
	int num = v != PICL_NO_VALUE;
	jumbo_str(o, s, num ? "XUd" : "XUt", clk, fixed, num ? 16 : 8, text, strlen(text));
}

/* A user record: XU. without data, XUd or XUt with. */
static void user_ev(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t rt, int32_t ty, int sub, int64_t v,
		    const char *text)
{
	if (sub == 'd') {
		user_write(o, s, clk, rt, ty, v, text);
		return;
	}
	int32_t pl[2] = {rt, ty};
	ow_event_mcv(&s->w, "XU.", clk, pl, sizeof(pl));
}

/* A user record's value and text, as picl_new_line stored them. */
static void user_data(const struct picl *p, const struct orec *r, int64_t *v, const char **text)
{
	*v = PICL_NO_VALUE;
	*text = "";
	if (r->sub != 'd')
		return;
	const char *d = p->txt + picl_off(r);
	memcpy(v, d, 8);
	*text = d + 8;
}

static void glob_ev(struct picl *p, struct pstream *s, uint64_t clk, const struct glob *g)
{
	if (g->kind == K_TEXT)
		text_ev(p->out, s, clk, g->type, g->text);
	else if (g->kind == K_USER)
		user_ev(p->out, s, clk, g->a, g->type, g->sub, g->value, g->text);
	else
		subset_ev(p, s, clk, g->a);
}

/* A global record: on every stream open now, and remembered for those
 * opened later. */
static void glob_record(struct picl *p, const struct orec *r, uint64_t clk)
{
	struct picl_out *o = p->out;
	if (o->nglob == o->cglob) {
		o->cglob = o->cglob ? 2 * o->cglob : 8;
		o->glob = weft_xrealloc(o->glob, (size_t) o->cglob * sizeof(*o->glob));
	}
	struct glob *g = &o->glob[o->nglob++];
	g->kind = r->kind;
	g->sub = r->sub;
	g->type = r->type;
	g->a = r->a;
	g->text = r->kind == K_TEXT ? weft_xasprintf("%s", p->txt + picl_off(r)) : NULL;
	if (r->kind == K_USER) {
		const char *text;
		user_data(p, r, &g->value, &text);
		g->text = weft_xstrdup(text);
	}
	for (int pr = 0; pr < NPROC_IDS; pr++)
		if (o->st[pr]) {
			glob_ev(p, o->st[pr], clk, g);
			o->st[pr]->last = clk;
		}
}

/* A statistic (K_STAT): XSt, XSc, XSv on its row; XGt, XGc, XGv when it is
 * stated for several rows (its processor -1 or a subset: r->d, r->process),
 * written on one of them. */
static void stat_ev(struct picl *p, struct pstream *s, const struct orec *r, uint64_t clk)
{
	uint8_t pl[24];
	int32_t ty = r->type;
	int64_t v = (int64_t) ((uint64_t) (uint32_t) r->b | (uint64_t) (uint32_t) r->c << 32);
	int16_t ctx = (int16_t) r->a;
	memcpy(pl, &ty, 4);
	memcpy(pl + 4, &v, 8);
	memcpy(pl + 12, &ctx, 2);
	pl[14] = r->digits;
	pl[15] = (uint8_t) p->ts_digits;
	if (r->proc == PICL_ALL) {
		memcpy(pl + 16, &r->d, 4);
		memcpy(pl + 20, &r->process, 4);
		char mcv[4] = {'X', 'G', (char) r->sub, 0};
		ow_jumbo_fixed(&s->w, ow_jumbo_head(mcv), clk, pl, 24);
		return;
	}
	char mcv[4] = {'X', 'S', (char) r->sub, 0};
	ow_event(&s->w, mcv, clk, pl, r->sub == 't' ? 16 : 14);
}

/* A statistic of several rows: on the first stream open (by processor),
 * or, when none is yet, on the first one opened. */
static void glob_stat(struct picl *p, const struct orec *r, uint64_t clk)
{
	struct picl_out *o = p->out;
	for (int pr = 0; pr < NPROC_IDS; pr++)
		if (o->st[pr]) {
			stat_ev(p, o->st[pr], r, clk);
			o->st[pr]->last = clk;
			return;
		}
	if (o->npstat == o->cpstat) {
		o->cpstat = o->cpstat ? 2 * o->cpstat : 8;
		o->pstat = weft_xrealloc(o->pstat, (size_t) o->cpstat * sizeof(*o->pstat));
	}
	o->pstat[o->npstat++] = *r;
}

static struct pstream *open_stream(struct picl *p, int32_t proc, const char *outdir, uint64_t clk)
{
	struct picl_out *o = p->out;
	struct weft_err *err = p->err;
	struct pstream *s = weft_xcalloc(1, sizeof(*s));
	long long id = (long long) proc + 1;
	if (proc == HOST)
		s->dir = weft_xasprintf("%s/loom.picl.host/proc.%lld/thread.%lld", outdir, id, id);
	else
		s->dir = weft_xasprintf("%s/loom.picl.%d/proc.%lld/thread.%lld", outdir, proc, id, id);
	if (ow_open(&s->w, s->dir, 1u << 16, err)) {
		free(s->dir);
		free(s);
		return NULL;
	}
	o->st[proc] = s;
	if (import_locate_is(p->loc, outdir, s->dir))
		o->loc = s;
	uint8_t pl[16] = {0};
	int32_t cpu = 0, creator = -1;
	memcpy(pl, &cpu, 4);
	memcpy(pl + 4, &creator, 4);
	ow_event_mcv(&s->w, "OHx", clk, pl, 16);
	for (int k = 0; k < o->nglob; k++)
		glob_ev(p, s, clk, &o->glob[k]);
	for (int k = 0; k < o->npstat; k++)
		stat_ev(p, s, &o->pstat[k], clk);
	o->npstat = 0;
	return s;
}

/* Write the records p->r[0..n) (in order, after those written before). */
static int write_records(struct picl *p, const char *outdir)
{
	struct picl_out *o = p->out;
	if (!o) {
		o = p->out = weft_xcalloc(1, sizeof(*o));
		o->st = weft_xcalloc(NPROC_IDS, sizeof(*o->st));
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct orec *r = &p->r[i];
		if (__builtin_expect(r->proc == PICL_ALL, 0)) {
			/* definitions before every processor's first record (as
			 * PICL puts header records) do not move the origin: they
			 * come at each stream's start */
			uint64_t gclk = o->t0_set && r->t > o->t0 ? (uint64_t) (r->t - o->t0) + 1 : 1;
			if (r->kind == K_STAT)
				glob_stat(p, r, gclk);
			else
				glob_record(p, r, gclk);
			if (__builtin_expect(p->loc != NULL, 0))
				import_locate_after(p->loc, o->loc ? &o->loc->w : NULL, 1, r->line);
			continue;
		}
		if (__builtin_expect(!o->t0_set, 0)) {
			o->t0 = r->t;
			o->t0_set = 1;
		}
		uint64_t clk = (uint64_t) (r->t - o->t0) + 1;
		struct pstream *s = o->st[r->proc];
		if (__builtin_expect(!s, 0) && !(s = open_stream(p, r->proc, outdir, clk)))
			return -1;
		s->last = clk;
		switch (r->kind) {
		case K_ENTRY:
			push(&s->sys, &s->nsys, &s->csys, r->type);
			if (picl_is_file(r->type))
				picl_file_event(p, &s->w, r, clk);
			else
				xev(s, call_mcv(1, r->type), clk, r->type, r->a, r->b, r->c);
			break;
		case K_EXIT:
			if (!pop_type(s->sys, &s->nsys, r->type)) {
				picl_warn_later(p, r->line, "exit with no open entry of its event type: skipped");
				break;
			}
			if (picl_is_file(r->type))
				picl_file_event(p, &s->w, r, clk);
			else
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
			user_data(p, r, &v, &text);
			user_ev(o, s, clk, r->a, r->type, r->sub, v, text);
			break;
		}
		case K_TEXT:
			text_ev(o, s, clk, r->type, p->txt + picl_off(r));
			break;
		case K_SUBSET:
			subset_ev(p, s, clk, r->a);
			break;
		case K_UBEGIN:
			used_add(&o->used, mark_value(r->type));
			push(&s->usr, &s->nusr, &s->cusr, r->type);
			mark_ev(s, "OM[", clk, r->type);
			if (r->type >= 0) /* a PICL user event: the msg model profiles it */
				xev(s, "XE[", clk, r->type, r->a, r->b, r->c);
			break;
		case K_UEND: {
			if (s->nusr && s->usr[s->nusr - 1] == r->type) { /* the innermost block */
				mark_ev(s, "OM]", clk, r->type);
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
				mark_ev(s, "OM]", clk, s->usr[j]);
			for (int j = k + 1; j < s->nusr; j++)
				mark_ev(s, "OM[", clk, s->usr[j]);
			pop_type(s->usr, &s->nusr, r->type);
			if (r->type >= 0)
				xev(s, "XE]", clk, r->type, r->a, r->b, r->c);
			break;
		}
		case K_STAT:
			stat_ev(p, s, r, clk);
			break;
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
	if (!times_in_order(p)) {
		p->streaming = 0; /* hold the rest, sort it all */
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
	for (int pr = 0; pr < NPROC_IDS; pr++) {
		nst += o->st[pr] != NULL;
		if (o->st[pr] && pr != HOST)
			width = snprintf(NULL, 0, "%d", pr);
	}
	if (nst == 0) { /* only records of every processor */
		sb_free(&labels);
		return weft_fail(err, WEFT_EINPUT, "%s: no event record of any processor: nothing to import",
				 p->path);
	}
	for (int pr = 0; pr < NPROC_IDS && rc == 0; pr++) {
		struct pstream *s = o->st[pr];
		if (!s)
			continue;
		if (s->nsys || s->nusr) {
			char what[96];
			snprintf(what, sizeof(what), "processor %d: %d entries still open at its last record, closed there",
				 pr == HOST ? -1 : pr, s->nsys + s->nusr);
			picl_warn(p, 0, what, NULL);
		}
		while (s->nusr) {
			int32_t ty = s->usr[--s->nusr];
			mark_ev(s, "OM]", s->last, ty);
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
		long long id = (long long) pr + 1;
		char loom[32];
		if (pr == HOST)
			snprintf(loom, sizeof(loom), "picl.host");
		else
			snprintf(loom, sizeof(loom), "picl.%0*d", width, pr);
		struct strbuf j = {0};
		sb_printf(&j,
			  "{\n  \"version\": 3,\n  \"ovni\": {\n    \"lib\": {\"version\": \"1.14.0\", "
			  "\"commit\": \"weft-import-picl\"},\n    \"part\": \"thread\",\n    \"tid\": %lld,\n"
			  "    \"pid\": %lld,\n    \"loom\": \"%s\",\n    \"app_id\": 1,\n"
			  "    \"require\": {\"ovni\": \"1.1.0\", \"msg\": \"1.0.0\"%s},\n"
			  "    \"mark\": {\"0\": {\"title\": \"PICL user block\", \"chan_type\": \"stack\", "
			  "\"labels\": {%s}}},\n"
			  "    \"loom_cpus\": [{\"index\": 0, \"phyid\": 0}],\n    \"finished\": 1\n  }\n}\n",
			  id, id, loom, p->has_files ? ", \"fileio\": \"1.0.0\"" : "", labels.s ? labels.s : "");
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
	picl_files_pair(p);
	int rc = write_records(p, outdir);
	picl_warn_flush(p);
	if (rc == 0)
		rc = finish_streams(p);
	if (close_streams(p, p->err) && rc == 0)
		rc = -1;
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
	for (int pr = 0; pr < NPROC_IDS; pr++) {
		struct pstream *s = o->st[pr];
		if (!s)
			continue;
		if (ow_close(&s->w, err))
			rc = -1;
		free(s->dir);
		free(s->sys);
		free(s->usr);
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
