/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_streams: the output of the CHARISMA importer
 * (charisma_streams.h): clients, applications, their ovni streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <uthash.h>

#include "import/charisma_streams.h"
#include "import/import.h"

static inline int pend_less(const struct pend *a, const struct pend *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void chs_pend_push(struct client *c, struct pend x)
{
	if (c->npq == c->cappq) {
		c->cappq = c->cappq ? 2 * c->cappq : 8;
		c->pq = weft_xrealloc(c->pq, (size_t) c->cappq * sizeof(*c->pq));
	}
	int i = c->npq++;
	while (i > 0 && pend_less(&x, &c->pq[(i - 1) / 2])) {
		c->pq[i] = c->pq[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	c->pq[i] = x;
}

static struct pend pend_pop(struct client *c)
{
	struct pend top = c->pq[0], x = c->pq[--c->npq];
	int i = 0;
	for (;;) {
		int k = 2 * i + 1;
		if (k >= c->npq)
			break;
		if (k + 1 < c->npq && pend_less(&c->pq[k + 1], &c->pq[k]))
			k++;
		if (!pend_less(&c->pq[k], &x))
			break;
		c->pq[i] = c->pq[k];
		i = k;
	}
	if (c->npq)
		c->pq[i] = x;
	return top;
}

void chs_flush(struct client *c, uint64_t upto)
{
	while (c->npq && c->pq[0].t <= upto) {
		struct pend x = pend_pop(c);
		write_pend(c, &x);
	}
}

void chs_ev(struct chs *s, struct client *c, uint64_t t, const char *mcv, const void *pl, size_t len)
{
	uint64_t ns = to_ns(s->r, t);
	chs_flush(c, ns);
	ow_event(&c->w, mcv, ns, pl, len);
}

static int64_t loom_of(const struct profile *p, int64_t client)
{
	if (p->nodes < 0)
		return 0;
	if (p->nodes > 0)
		return client >= 0 ? client / p->nodes : -1 - (-1 - client) / p->nodes;
	return client;
}

#define DENSE_IDS (1 << 20) /* client ids 0..DENSE_IDS-1 are found by index */

static struct client *get_client(struct chs *s, int64_t id)
{
	if (id >= 0 && id < s->ndense)
		return s->dense[id];
	if (id >= 0 && id < DENSE_IDS)
		return NULL;
	struct client *c;
	HASH_FIND(hh, s->clients, &id, sizeof(id), c);
	return c;
}

static void index_client(struct chs *s, struct client *c)
{
	if (c->id < 0 || c->id >= DENSE_IDS)
		return;
	if (c->id >= s->ndense) {
		int64_t n = s->ndense ? s->ndense : 64;
		while (n <= c->id)
			n *= 2;
		s->dense = weft_xrealloc(s->dense, (size_t) n * sizeof(*s->dense));
		memset(s->dense + s->ndense, 0, (size_t) (n - s->ndense) * sizeof(*s->dense));
		s->ndense = n;
	}
	s->dense[c->id] = c;
}

/* The ovni number (pid, tid) of a CHARISMA id: ids from 0 up count from 1
 * (ovni's 0 means none), negative ids keep their value. chs_bind lets in only
 * ids whose number weft's reader accepts (INT32_MIN..INT64_MAX, not 0). */
static int64_t ovni_num(int64_t id)
{
	return id >= 0 ? id + 1 : id;
}

static int numbered(int64_t id)
{
	return id >= INT32_MIN && id < INT64_MAX;
}

static int open_stream(struct chs *s, struct client *c)
{
	c->loom = loom_of(s->r->p, c->id);
	c->dir = weft_xasprintf("%s/loom.node%lld/proc.%lld/thread.%lld", s->outdir, (long long) c->loom,
				(long long) ovni_num(c->app->id), (long long) ovni_num(c->id));
	if (ow_open(&c->w, c->dir, s->bufsize, s->e))
		return -1;
	c->opened = 1;
	if (import_locate_is(s->loc, s->outdir, c->dir)) {
		s->loc_c = c;
		c->loc = s->loc;
		c->cur = &s->cur;
	}
	return 0;
}

/* An application or client id that names one: not the profile's sentinel
 * for "none", and one a stream can be numbered by. */
static int check_id(struct chs *s, size_t off, int rt, const char *field, int64_t id, int client)
{
	const struct profile *p = s->r->p;
	char rn[64];
	const char *what = client ? "client" : "application";
	if (client ? is_sentinel(s->r, id, T_CLIENTID, p->no_client_all, p->no_client)
		   : is_sentinel(s->r, id, T_APPID, p->no_app_all, p->no_app))
		return weft_fail(s->e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field %s: %s %lld is the profile's value for "
				 "no %s (%s): expected the id of one",
				 s->r->path, off, chp_rname(rt, p, rn, sizeof(rn)), field, what, (long long) id, what,
				 client ? "no_client" : "no_app");
	if (!numbered(id))
		return weft_fail(s->e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field %s: %s %lld is out of the range weft "
				 "numbers streams with: expected %lld..%lld",
				 s->r->path, off, chp_rname(rt, p, rn, sizeof(rn)), field, what, (long long) id,
				 (long long) INT32_MIN, (long long) INT64_MAX - 1);
	return 0;
}

int chs_bind(struct chs *s, size_t off, int rt, struct app *a, const char *field, int64_t id, uint64_t t)
{
	if (check_id(s, off, rt, "appl_id", a->id, 0) || check_id(s, off, rt, field, id, 1))
		return -1;
	struct client *c = get_client(s, id);
	char rn[64];
	if (c && c->app != a && chp_rname(rt, s->r->p, rn, sizeof(rn)))
		return weft_fail(s->e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field client_id: client %lld already "
				 "belongs to application %lld: expected application ids to stay with a client",
				 s->r->path, off, rn, (long long) id, (long long) c->app->id);
	if (!c) {
		c = weft_xcalloc(1, sizeof(*c));
		c->id = id;
		c->app = a;
		HASH_ADD(hh, s->clients, id, sizeof(c->id), c);
		index_client(s, c);
		if (open_stream(s, c))
			return -1;
	}
	for (int i = 0; i < a->nmem; i++)
		if (a->mem[i] == c)
			return 0;
	if (a->nmem == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->mem = weft_xrealloc(a->mem, (size_t) a->cap * sizeof(*a->mem));
	}
	a->mem[a->nmem++] = c;
	chs_ev(s, c, t, "FP+", NULL, 0);
	return 0;
}

struct app *chs_get_app(struct chs *s, int64_t id, int create)
{
	struct app *a;
	HASH_FIND(hh, s->apps, &id, sizeof(id), a);
	if (!a && create) {
		a = weft_xcalloc(1, sizeof(*a));
		a->id = id;
		a->index = ++s->napps;
		HASH_ADD(hh, s->apps, id, sizeof(a->id), a);
	}
	return a;
}

struct client *chs_need_client(struct chs *s, size_t off, int rt, int64_t req, int64_t id)
{
	struct client *c = get_client(s, id);
	if (!c) {
		char rn[64], fn[64];
		if (req < 0)
			snprintf(fn, sizeof(fn), "client_id");
		else
			snprintf(fn, sizeof(fn), "requests[%lld].client_id", (long long) req);
		weft_fail(s->e, WEFT_EINPUT,
			  "%s: byte offset %zu: record %s, field %s: client %lld is in no application "
			  "(expected an earlier APP_LOAD or CLIENT_JOIN naming it)",
			  s->r->path, off, chp_rname(rt, s->r->p, rn, sizeof(rn)), fn, (long long) id);
	}
	return c;
}

struct app *chs_need_app(struct chs *s, size_t off, int rt, int64_t id)
{
	struct app *a = chs_get_app(s, id, 0);
	char rn[64];
	if (!a)
		weft_fail(s->e, WEFT_EINPUT,
			  "%s: byte offset %zu: record %s, field appl_id: application %lld was never "
			  "loaded (expected an earlier APP_LOAD or CLIENT_JOIN)",
			  s->r->path, off, chp_rname(rt, s->r->p, rn, sizeof(rn)), (long long) id);
	return a;
}

int chs_finish(struct chs *s, const struct header *h)
{
	int rc = 0;
	struct client *c, *tmp;
	/* loom names padded to the widest node number: ovni orders looms by
	 * name (strcmp), so node10 would come before node2 */
	int width = 1;
	HASH_ITER(hh, s->clients, c, tmp) {
		int w = snprintf(NULL, 0, "%lld", (long long) (c->loom < 0 ? -c->loom : c->loom));
		if (c->opened && w > width)
			width = w;
	}
	HASH_ITER(hh, s->clients, c, tmp) {
		if (!c->opened)
			continue;
		s->cur = UINT64_MAX; /* no record: pending ends have their own */
		chs_flush(c, UINT64_MAX);
		if (ow_close(&c->w, s->e))
			rc = -1;
		c->opened = 0;
		if (rc)
			continue;
		char *json = weft_xasprintf(
			"{\n  \"version\": 3,\n  \"ovni\": {\n"
			"    \"lib\": {\"version\": \"1.14.0\", \"commit\": \"weft-import-charisma\"},\n"
			"    \"part\": \"thread\",\n    \"tid\": %lld,\n    \"pid\": %lld,\n"
			"    \"loom\": \"node%0*lld\",\n    \"app_id\": %d,\n"
			"    \"require\": {\"fileio\": \"1.0.0\"},\n"
			"    \"loom_cpus\": [{\"index\": 0, \"phyid\": 0}],\n    \"finished\": 1\n  }\n}\n",
			(long long) ovni_num(c->id), (long long) ovni_num(c->app->id), width, (long long) c->loom,
			c->app->index);
		rc = ow_write_json(c->dir, json, s->e);
		free(json);
		/* the Paraver header date is the oldest stream's: the trace's start_date */
		char *obs = weft_xasprintf("%s/stream.obs", c->dir);
		struct timeval tv[2] = {{(time_t) h->start_date, 0}, {(time_t) h->start_date, 0}};
		if (h->start_date > 0)
			utimes(obs, tv);
		free(obs);
	}
	/* the loom folders, opened as loom.nodeN, named as their looms */
	HASH_ITER(hh, s->clients, c, tmp)
	{
		char from[40], to[40];
		snprintf(from, sizeof(from), "node%lld", (long long) c->loom);
		snprintf(to, sizeof(to), "node%0*lld", width, (long long) c->loom);
		if (rc == 0 && c->dir && import_name_loom(s->outdir, from, to, s->e))
			rc = -1;
	}
	return rc;
}

void chs_free(struct chs *s)
{
	struct client *c, *ct;
	HASH_ITER(hh, s->clients, c, ct) {
		HASH_DEL(s->clients, c);
		if (c->opened) {
			struct weft_err ig;
			WEFT_IGNORED(ow_close(&c->w, &ig)); /* a failed import's streams: removed */
		}
		free(c->pq);
		free(c->dir);
		free(c);
	}
	s->loc_c = NULL;
	free(s->dense);
	s->dense = NULL;
	s->ndense = 0;
	struct app *a, *at;
	HASH_ITER(hh, s->apps, a, at) {
		HASH_DEL(s->apps, a);
		free(a->mem);
		free(a);
	}
	s->napps = 0;
	s->seq = 0;
}
