/* SPDX-License-Identifier: GPL-3.0-or-later */
/* diff: two traces read side by side in time order, slice by slice (all
 * the records of one time), their step functions compared after each
 * slice (see diff.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "diff/diff.h"
#include "diff/rows.h"
#include "prv/prvread.h"

#define STATE_TYPE INT64_MIN /* the pair of a row's states */

struct pkey {
	uint32_t row; /* key id */
	int64_t type;
};

/* --records: a record of the side ahead, not matched yet in its slice */
struct prec {
	uint64_t t;
	int64_t v;
};

struct pair {
	struct pkey k;
	int64_t v[2]; /* the values in force */
	int touched; /* in this slice's list */
	int reported;
	/* --records */
	uint64_t n[2]; /* records so far */
	struct prec *pend; /* of side `lead`, this slice's */
	int npend, cap, lead;
	uint64_t mis; /* 1 + the index of the first record that differs; 0 none */
	int mis_have[2];
	struct prec mis_rec[2];
	struct pair *next_mis;
	UT_hash_handle hh;
};

/* A state's end to come: at t, side s's row (key id) goes back to 0. */
struct end {
	uint64_t t;
	int side;
	uint32_t row;
};

struct side {
	struct prvread r;
	struct prvrec rec;
	int have; /* rec is the next record */
	uint64_t t; /* its time, scaled */
	uint64_t last;
	uint64_t scale;
	uint32_t *rows; /* row -> key id */
	uint64_t *state_end; /* row -> the end of its state in force (scaled) */
	int from_type; /* no state records: the states are events of o->state_type */
	const char *name;
};

struct diff {
	const struct diff_opts *o;
	uint8_t *in; /* key id -> 1 in A, 2 in B, 3 both */
	uint64_t state_until; /* states are compared on [0, the traces' end) */
	FILE *out;
	struct side s[2];
	struct rowkeys keys;
	struct pair *pairs;
	struct pair **touched;
	size_t ntouched, captouched;
	struct end *heap;
	size_t nheap, capheap;
	struct pair *mis_first, **mis_last;
	uint64_t ndiff;
	struct weft_err *err;
};

static int type_selected(const struct diff_opts *o, int64_t t)
{
	if (!o->types)
		return 1;
	for (int i = 0; i < o->ntypes; i++)
		if (t >= o->types[i].lo && t <= o->types[i].hi)
			return 1;
	return 0;
}

static struct pair *pair_of(struct diff *d, uint32_t row, int64_t type)
{
	struct pkey k;
	memset(&k, 0, sizeof(k));
	k.row = row;
	k.type = type;
	struct pair *p;
	HASH_FIND(hh, d->pairs, &k, sizeof(k), p);
	if (!p) {
		p = weft_xcalloc(1, sizeof(*p));
		p->k = k;
		HASH_ADD(hh, d->pairs, k, sizeof(k), p);
	}
	if (!p->touched) {
		p->touched = 1;
		if (d->ntouched == d->captouched) {
			d->captouched = d->captouched ? 2 * d->captouched : 256;
			d->touched = weft_xrealloc(d->touched, d->captouched * sizeof(*d->touched));
		}
		d->touched[d->ntouched++] = p;
	}
	return p;
}

/* ---- the state ends to come: a min-heap by time ------------------------------ */

static void heap_push(struct diff *d, struct end e)
{
	if (d->nheap == d->capheap) {
		d->capheap = d->capheap ? 2 * d->capheap : 64;
		d->heap = weft_xrealloc(d->heap, d->capheap * sizeof(*d->heap));
	}
	size_t i = d->nheap++;
	while (i > 0 && d->heap[(i - 1) / 2].t > e.t) {
		d->heap[i] = d->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	d->heap[i] = e;
}

static struct end heap_pop(struct diff *d)
{
	struct end top = d->heap[0], e = d->heap[--d->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= d->nheap)
			break;
		if (c + 1 < d->nheap && d->heap[c + 1].t < d->heap[c].t)
			c++;
		if (d->heap[c].t >= e.t)
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (d->nheap)
		d->heap[i] = e;
	return top;
}

/* ---- records (--records) --------------------------------------------------------- */

static void mis_set(struct diff *d, struct pair *p, uint64_t index)
{
	p->mis = index + 1;
	p->npend = 0;
	*d->mis_last = p;
	d->mis_last = &p->next_mis;
}

/* Side s's record (t, v) of pair p, number p->n[s] of its side. */
static void record(struct diff *d, struct pair *p, int s, uint64_t t, int64_t v)
{
	uint64_t i = p->n[s]++;
	if (p->mis) {
		if (i == p->mis - 1)
			p->mis_have[s] = 1, p->mis_rec[s] = (struct prec){t, v};
		return;
	}
	if (i < p->n[!s] && p->npend) {
		/* the other side's record i waits, first in the list (the
		 * list holds only the side ahead's, of this slice) */
		struct prec o = p->pend[0];
		if (o.t == t && o.v == v) {
			memmove(p->pend, p->pend + 1, (size_t) --p->npend * sizeof(*p->pend));
			return;
		}
		p->mis_have[!s] = 1, p->mis_rec[!s] = o;
		p->mis_have[s] = 1, p->mis_rec[s] = (struct prec){t, v};
		mis_set(d, p, i);
		return;
	}
	if (p->npend == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4;
		p->pend = weft_xrealloc(p->pend, (size_t) p->cap * sizeof(*p->pend));
	}
	p->lead = s;
	p->pend[p->npend++] = (struct prec){t, v};
}

/* ---- a slice: the records of one time -------------------------------------------- */

static void set(struct diff *d, int s, uint32_t row, int64_t type, uint64_t t, int64_t v)
{
	struct pair *p = pair_of(d, row, type);
	if (d->o->records && type != STATE_TYPE)
		record(d, p, s, t, v);
	else
		p->v[s] = v;
}

static int apply(struct diff *d, int s)
{
	struct side *sd = &d->s[s];
	const struct prvrec *r = &sd->rec;
	uint32_t row = sd->rows[r->row];
	if (r->kind == 1 && r->t1 < r->t0)
		return weft_fail(d->err, WEFT_EINPUT, "%s:%llu: a state that ends (%llu) before it begins (%llu)",
				 sd->name, (unsigned long long) sd->r.line, (unsigned long long) r->t1,
				 (unsigned long long) r->t0);
	if (r->kind == 1 && d->o->states && !sd->from_type && r->t1 > r->t0) {
		if (sd->t < sd->state_end[r->row])
			return weft_fail(d->err, WEFT_EINPUT,
					 "%s:%llu: a state from %llu while the row's state "
					 "before lasts to %llu: states of a row do not overlap",
					 sd->name, (unsigned long long) sd->r.line, (unsigned long long) r->t0,
					 (unsigned long long) (sd->state_end[r->row] / sd->scale));
		sd->state_end[r->row] = r->t1 * sd->scale;
		set(d, s, row, STATE_TYPE, sd->t, r->state);
		/* a state to the trace's end lasts, as a value of --state-type does */
		if (r->t1 < sd->r.ftime)
			heap_push(d, (struct end){r->t1 * sd->scale, s, row});
	} else if (r->kind == 2) {
		for (int i = 0; i < r->npairs; i++) {
			if (type_selected(d->o, r->type[i]))
				set(d, s, row, r->type[i], sd->t, r->value[i]);
			if (d->o->states && sd->from_type && r->type[i] == d->o->state_type)
				set(d, s, row, STATE_TYPE, sd->t, r->value[i]);
		}
	}
	return 0;
}

static void put_key(struct diff *d, const struct pair *p)
{
	fprintf(d->out, "row %s ", d->keys.names[p->k.row]);
	if (p->k.type == STATE_TYPE)
		fputs("state", d->out);
	else
		fprintf(d->out, "type %" PRId64, p->k.type);
}

static const char *only(const struct diff *d, const struct pair *p)
{
	return d->in[p->k.row] == 1 ? " (row only in A)" : d->in[p->k.row] == 2 ? " (row only in B)" : "";
}

/* The slice at t is complete: its pairs compared. */
static void end_slice(struct diff *d, uint64_t t)
{
	for (size_t i = 0; i < d->ntouched; i++) {
		struct pair *p = d->touched[i];
		p->touched = 0;
		if (d->o->records && p->k.type != STATE_TYPE) {
			if (!p->mis && p->npend) {
				/* the side behind has no record at this time: its next one differs */
				p->mis_have[p->lead] = 1, p->mis_rec[p->lead] = p->pend[0];
				mis_set(d, p, p->n[!p->lead]);
			}
			continue;
		}
		if (p->reported || p->v[0] == p->v[1] || (p->k.type == STATE_TYPE && t >= d->state_until))
			continue;
		p->reported = 1;
		if (++d->ndiff > d->o->max)
			continue;
		put_key(d, p);
		fprintf(d->out, ": first difference at time %" PRIu64 ": A has %" PRId64 ", B has %" PRId64 "%s\n", t,
			p->v[0], p->v[1], only(d, p));
	}
	d->ntouched = 0;
}

/* Side s's next record, checked to be in time order: 0, or -1. */
static int advance(struct diff *d, int s)
{
	struct side *sd = &d->s[s];
	/* the records compared: events, and states with --states */
	int states = d->o->states && !sd->from_type;
	int rc = prvread_next(&sd->r, &sd->rec, d->err);
	while (rc == 1 && sd->rec.kind != 2 && !(sd->rec.kind == 1 && states))
		rc = prvread_next(&sd->r, &sd->rec, d->err);
	if (rc < 0)
		return -1;
	sd->have = rc == 1;
	if (!sd->have)
		return 0;
	sd->t = sd->rec.t0 * sd->scale;
	if (sd->t < sd->last)
		return weft_fail(d->err, WEFT_EINPUT,
				 "%s:%llu: a record at %llu after one at %llu: weft diff reads "
				 "traces sorted by time, as weft emu and ovniemu write them",
				 sd->name, (unsigned long long) sd->r.line, (unsigned long long) sd->rec.t0,
				 (unsigned long long) (sd->last / sd->scale));
	sd->last = sd->t;
	return 0;
}

static int run(struct diff *d)
{
	for (int s = 0; s < 2; s++)
		if (advance(d, s))
			return -1;
	for (;;) {
		uint64_t t = UINT64_MAX;
		int any = 0;
		for (int s = 0; s < 2; s++)
			if (d->s[s].have && d->s[s].t <= t)
				t = d->s[s].t, any = 1;
		if (d->nheap && d->heap[0].t <= t)
			t = d->heap[0].t, any = 1;
		if (!any)
			return 0;
		/* the states ending now first, then the records of now */
		while (d->nheap && d->heap[0].t == t) {
			struct end e = heap_pop(d);
			set(d, e.side, e.row, STATE_TYPE, t, 0);
		}
		for (int s = 0; s < 2; s++)
			while (d->s[s].have && d->s[s].t == t)
				if (apply(d, s) || advance(d, s))
					return -1;
		end_slice(d, t);
	}
}

/* --records: the pairs whose records differ, in the order found. */
static void report_records(struct diff *d)
{
	for (struct pair *p = d->mis_first; p; p = p->next_mis) {
		if (++d->ndiff > d->o->max)
			continue;
		put_key(d, p);
		fprintf(d->out, ": record %" PRIu64 " differs: ", p->mis);
		for (int s = 0; s < 2; s++) {
			fprintf(d->out, "%s has ", s ? ", B" : "A");
			if (p->mis_have[s])
				fprintf(d->out, "%" PRId64 " at %" PRIu64, p->mis_rec[s].v, p->mis_rec[s].t);
			else
				fputs("none", d->out);
		}
		fprintf(d->out, " (A has %" PRIu64 " records, B has %" PRIu64 ")%s\n", p->n[0], p->n[1], only(d, p));
	}
}

/* --order: the first row whose name differs (or the row counts). */
static void compare_order(struct diff *d)
{
	uint32_t n[2] = {d->s[0].r.nrows, d->s[1].r.nrows};
	for (uint32_t i = 0; i <= n[0] && i <= n[1]; i++) {
		if (i == n[0] && i == n[1])
			return;
		if (i < n[0] && i < n[1] && d->s[0].rows[i] == d->s[1].rows[i])
			continue;
		if (++d->ndiff <= d->o->max)
			fprintf(d->out, "row %u: A has %s, B has %s\n", i + 1,
				i < n[0] ? d->keys.names[d->s[0].rows[i]] : "none",
				i < n[1] ? d->keys.names[d->s[1].rows[i]] : "none");
		return;
	}
}

/* --state-type: whether the trace has any state record (a first pass). */
static int has_states(const char *path, struct weft_err *err)
{
	struct prvread r;
	struct prvrec rec;
	int rc = prvread_open(&r, path, err), found = 0;
	while (rc == 0 && !found) {
		int got = prvread_next(&r, &rec, err);
		if (got <= 0) {
			rc = got;
			break;
		}
		found = rec.kind == 1;
	}
	prvread_close(&r);
	return rc < 0 ? -1 : found;
}

static int open_sides(struct diff *d, const char *a, const char *b)
{
	const char *path[2] = {a, b};
	for (int s = 0; s < 2; s++) {
		struct side *sd = &d->s[s];
		sd->name = path[s];
		size_t k = strlen(path[s]);
		if (!(k > 4 && strcmp(path[s] + k - 4, ".prv") == 0) &&
		    !(k > 7 && strcmp(path[s] + k - 7, ".prv.gz") == 0))
			return weft_fail(d->err, WEFT_EUSAGE,
					 "%s: the name must end in .prv or .prv.gz (its .row is "
					 "beside it with .row instead)",
					 path[s]);
		if (prvread_open(&sd->r, path[s], d->err))
			return -1;
		if (rowkeys_load(&d->keys, path[s], sd->r.nrows, d->o->rows, &sd->rows, d->err))
			return -1;
		sd->state_end = weft_xcalloc((size_t) sd->r.nrows + 1, sizeof(*sd->state_end));
		if (d->o->states && d->o->state_type >= 0) {
			int h = has_states(path[s], d->err);
			if (h < 0)
				return -1;
			sd->from_type = !h;
		}
	}
	d->in = weft_xcalloc((size_t) d->keys.n + 1, 1);
	for (int s = 0; s < 2; s++)
		for (uint32_t i = 0; i < d->s[s].r.nrows; i++)
			d->in[d->s[s].rows[i]] |= (uint8_t) (1 << s);
	int same = d->s[0].r.unit_ns == d->s[1].r.unit_ns;
	for (int s = 0; s < 2; s++)
		d->s[s].scale = same ? 1 : d->s[s].r.unit_ns;
	d->state_until = UINT64_MAX;
	for (int s = 0; s < 2; s++)
		if (d->s[s].r.ftime * d->s[s].scale < d->state_until)
			d->state_until = d->s[s].r.ftime * d->s[s].scale;
	if (!same)
		fprintf(stderr, "weft: diff: A and B use different time units; times are in ns\n");
	return 0;
}

static void diff_free(struct diff *d)
{
	for (int s = 0; s < 2; s++) {
		prvread_close(&d->s[s].r);
		free(d->s[s].rows);
		free(d->s[s].state_end);
	}
	struct pair *p, *t;
	HASH_ITER(hh, d->pairs, p, t)
	{
		HASH_DEL(d->pairs, p);
		free(p->pend);
		free(p);
	}
	free(d->touched);
	free(d->heap);
	free(d->in);
	rowkeys_free(&d->keys);
}

int diff_traces(const char *a, const char *b, const struct diff_opts *o, FILE *out, struct diff_result *res,
		struct weft_err *err)
{
	struct diff d;
	memset(&d, 0, sizeof(d));
	d.o = o;
	d.out = out;
	d.err = err;
	d.mis_last = &d.mis_first;
	int rc = open_sides(&d, a, b);
	if (rc == 0 && o->order)
		compare_order(&d);
	if (rc == 0)
		rc = run(&d);
	if (rc == 0) {
		report_records(&d);
		res->ndiff = d.ndiff;
		res->npairs = HASH_COUNT(d.pairs);
		fprintf(out, "%" PRIu64 " differences in %" PRIu64 " (row, type) pairs\n", res->ndiff, res->npairs);
	}
	diff_free(&d);
	return rc;
}
