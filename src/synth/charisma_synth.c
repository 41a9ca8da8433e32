/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_synth: `weft synth --format charisma` writes a large, valid
 * CHARISMA trace (deterministic for a seed) laid out by a machine profile
 * (built-in or a file, shared with the importer) in either byte order.
 *
 * The machine runs A applications of clients that share one file opened by
 * the application (APP_OPEN) and each keep private files they open and close
 * in turn (CLIENT_OPEN/CLOSE). An application advances in steps; a step is
 * an application-wide synchronous read or write (one RW record listing every
 * client), per-client synchronous reads and writes, asynchronous requests
 * (client or application-wide) with their ASYNCH_END, or a file operation
 * (EXTEND, TRUNCATE, LINK/UNLINK of a scratch file, FCNTL). Half of the
 * clients arrive in APP_LOAD's list, the rest by CLIENT_JOIN, and leave by
 * APP_CLIENT_LEAVE before APP_EXIT. Applications are scheduled by time, so
 * records come in nearly sorted order: a step's records are written together
 * and may precede an earlier step of another application, and one pair of
 * neighbouring records in 64 is swapped, which the importer's stable sort
 * undoes. Profiles without the RW application fields (the iPSC variant) get
 * one RW record per client instead of application-wide ones. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "import/charisma_profile.h"
#include "synth/charisma_synth.h"
#include "util/macros.h"


/* ---- deterministic randomness ---------------------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return rnd(s) % n;
}

/* ---- record encoding -------------------------------------------------------------- */

struct enc {
	const struct profile *p;
	int be;
	uint8_t *rec;   /* the record being built (zeroed: padding is zero) */
	size_t cap;
	FILE *f;
	uint64_t bytes, records;
	uint8_t *held;  /* a record held back to swap with the next one */
	size_t nheld, capheld;
	int64_t held_client;
};

static void put(struct enc *w, size_t off, int type, uint64_t v)
{
	int n = w->p->t[type].size;
	uint8_t *b = w->rec + off;
	for (int i = 0; i < n; i++)
		b[w->be ? n - 1 - i : i] = (uint8_t) (v >> (8 * i));
}

static void put_double(struct enc *w, size_t off, double d)
{
	uint64_t v;
	memcpy(&v, &d, 8);
	for (int i = 0; i < 8; i++)
		w->rec[off + (size_t) (w->be ? 7 - i : i)] = (uint8_t) (v >> (8 * i));
}

static int fld_index(const struct layout *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->f[i].name, name) == 0)
			return i;
	return -1;
}

static void put_name(struct enc *w, const struct layout *l, const char *field, uint64_t v)
{
	int i = fld_index(l, field);
	if (i >= 0)
		put(w, (size_t) l->off[i], l->f[i].type, v);
}

static void put_text(struct enc *w, const struct layout *l, const char *field, const char *text, int max)
{
	int i = fld_index(l, field);
	if (i < 0)
		return;
	size_t n = strlen(text);
	if (n > (size_t) max)
		n = (size_t) max;
	memcpy(w->rec + l->off[i], text, n);
}

/* Start a record of type rt with n array elements: returns its layout. */
static const struct layout *begin(struct enc *w, int rt, uint64_t n, size_t *size)
{
	const struct layout *l = rt == R_HEADER ? &w->p->lay[R_HEADER] : chp_lay_of(w->p, rt);
	*size = chp_rec_size(w->p, l, n);
	if (*size > w->cap) {
		w->cap = *size * 2;
		w->rec = weft_xrealloc(w->rec, w->cap);
	}
	memset(w->rec, 0, *size);
	put(w, 0, T_USHORT, (uint64_t) rt);
	return l;
}

static void key(struct enc *w, const struct layout *l, int k, uint64_t v)
{
	if (l->at[k] >= 0)
		put(w, (size_t) l->at[k], l->tp[k], v);
}

/* Write the record; `client` >= 0 lets it be swapped with the next record
 * of another client (one pair in 64). */
static void emit(struct enc *w, size_t size, int64_t client, uint64_t *seed)
{
	w->bytes += size;
	w->records++;
	if (w->nheld) {
		int swap = client >= 0 && client != w->held_client;
		if (!swap)
			fwrite(w->held, 1, w->nheld, w->f);
		fwrite(w->rec, 1, size, w->f); /* the later record first */
		if (swap)
			fwrite(w->held, 1, w->nheld, w->f);
		w->nheld = 0;
		return;
	}
	if (client >= 0 && below(seed, 64) == 0) {
		if (size > w->capheld) {
			w->capheld = size * 2;
			w->held = weft_xrealloc(w->held, w->capheld);
		}
		memcpy(w->held, w->rec, size);
		w->nheld = size;
		w->held_client = client;
		return;
	}
	fwrite(w->rec, 1, size, w->f);
}

static void flush_held(struct enc *w)
{
	if (w->nheld)
		fwrite(w->held, 1, w->nheld, w->f);
	w->nheld = 0;
}

/* ---- the machine ----------------------------------------------------------------- */

struct sclient {
	int64_t id;
	int fd;        /* private descriptor open, 0 if none */
	int file;      /* its file id */
	int cycle;     /* which private file next */
	int64_t fsize; /* private file size */
	uint64_t pos;  /* offset of the next private request */
};

struct sapp {
	int64_t id;
	struct sclient *c;
	int n;
	uint64_t t;      /* application time (ticks) */
	int phase;       /* 0 load, 1 open, 2 steps, 3 close, 4 exited */
	int shared_fd, shared_file;
	uint64_t shared_pos;
	int aid;
	int idx;
};

struct synth {
	struct enc w;
	uint64_t seed;
	uint64_t target;
	int files;
	int scratch; /* next scratch file id */
};

static void rec_simple(struct synth *s, int rt, uint64_t t, int64_t app, int64_t client)
{
	size_t sz;
	const struct layout *l = begin(&s->w, rt, 1, &sz);
	key(&s->w, l, K_T1, t);
	key(&s->w, l, K_APP, (uint64_t) app);
	key(&s->w, l, K_CLIENT, (uint64_t) client);
	emit(&s->w, sz, -1, &s->seed);
}

static void app_load(struct synth *s, struct sapp *a)
{
	int nload = a->n / 2; /* the others join */
	size_t sz;
	const struct layout *l = begin(&s->w, R_LOAD, (uint64_t) nload, &sz);
	char name[32];
	snprintf(name, sizeof(name), "app%lld", (long long) a->id);
	key(&s->w, l, K_T1, a->t);
	put_text(&s->w, l, "name", name, s->w.p->name_len);
	put_text(&s->w, l, "path", "/usr/local/apps/solver", s->w.p->path_len);
	put_name(&s->w, l, "user_id", 500 + (uint64_t) a->idx);
	put_name(&s->w, l, "initial_load_size", 1u << 20);
	key(&s->w, l, K_APP, (uint64_t) a->id);
	key(&s->w, l, K_NC, (uint64_t) nload);
	for (int i = 0; i < nload; i++)
		put(&s->w, (size_t) l->at[K_ARR] + (size_t) i * (size_t) l->esize, T_CLIENTID, (uint64_t) a->c[i].id);
	emit(&s->w, sz, -1, &s->seed);
	for (int i = nload; i < a->n; i++)
		rec_simple(s, R_JOIN, a->t + 1 + (uint64_t) i, a->id, a->c[i].id);
	a->t += 2 + (uint64_t) a->n;
}

static void open_rec(struct synth *s, int rt, uint64_t t, int64_t who, int file, int fd, int64_t size, int flags,
		     int64_t client)
{
	size_t sz;
	const struct layout *l = begin(&s->w, rt, 1, &sz);
	char name[32];
	snprintf(name, sizeof(name), "f%d", file);
	key(&s->w, l, K_T1, t);
	key(&s->w, l, rt == R_APPOPEN ? K_APP : K_CLIENT, (uint64_t) who);
	put_text(&s->w, l, "name", name, s->w.p->name_len);
	put_text(&s->w, l, "path", "/cfs/scratch/run", s->w.p->path_len);
	key(&s->w, l, K_FILE, (uint64_t) file);
	key(&s->w, l, K_FD, (uint64_t) fd);
	key(&s->w, l, K_SIZE, (uint64_t) size);
	put_name(&s->w, l, "creation_date", 760000000);
	key(&s->w, l, K_FLAGS, (uint64_t) flags);
	emit(&s->w, sz, client, &s->seed);
}

static void close_rec(struct synth *s, int rt, uint64_t t, int64_t who, int fd, int64_t size, int64_t client)
{
	size_t sz;
	const struct layout *l = begin(&s->w, rt, 1, &sz);
	key(&s->w, l, K_T1, t);
	key(&s->w, l, rt == R_APPCLOSE ? K_APP : K_CLIENT, (uint64_t) who);
	key(&s->w, l, K_FD, (uint64_t) fd);
	key(&s->w, l, K_SIZE, (uint64_t) size);
	emit(&s->w, sz, client, &s->seed);
}

/* One RW record: n requests (offset, size, client) from r[]. */
struct rq {
	uint64_t off, size;
	int64_t client;
};

static void rw_rec(struct synth *s, uint64_t t1, uint64_t t2, int fd, int op, int aid, int64_t app,
		   const struct rq *r, int n)
{
	size_t sz;
	const struct layout *l = begin(&s->w, R_RW, (uint64_t) n, &sz);
	key(&s->w, l, K_T1, t1);
	key(&s->w, l, K_T2, t2);
	key(&s->w, l, K_FD, (uint64_t) fd);
	key(&s->w, l, K_OP, (uint64_t) op);
	key(&s->w, l, K_AID, (uint64_t) aid);
	key(&s->w, l, K_APP, (uint64_t) app);
	key(&s->w, l, K_NC, (uint64_t) n);
	for (int i = 0; i < n; i++) {
		size_t e = (size_t) l->at[K_ARR] + (size_t) i * (size_t) l->esize;
		put(&s->w, e + (size_t) l->rq[K_OFFSET], T_BIGINT, r[i].off);
		put(&s->w, e + (size_t) l->rq[K_IOSIZE], T_BIGINT, r[i].size);
		put(&s->w, e + (size_t) l->rq[K_CLIENT], T_CLIENTID, (uint64_t) r[i].client);
		put(&s->w, e + (size_t) s->w.p->req.off[1], T_ULONG, (uint64_t) i << 16); /* memory_offset */
	}
	emit(&s->w, sz, n == 1 ? r[0].client : -1, &s->seed);
}

static void aend_rec(struct synth *s, uint64_t call, uint64_t end, int aid, int64_t client, int64_t app)
{
	size_t sz;
	const struct layout *l = begin(&s->w, R_AEND, 1, &sz);
	key(&s->w, l, K_T1, call);
	key(&s->w, l, K_T2, end);
	key(&s->w, l, K_AID, (uint64_t) aid);
	key(&s->w, l, K_CLIENT, (uint64_t) client);
	key(&s->w, l, K_APP, (uint64_t) app);
	emit(&s->w, sz, client >= 0 ? client : -1, &s->seed);
}

static void size_rec(struct synth *s, int rt, uint64_t t, int64_t client, int file, int64_t from, int64_t to)
{
	size_t sz;
	const struct layout *l = begin(&s->w, rt, 1, &sz);
	key(&s->w, l, K_T1, t);
	key(&s->w, l, K_CLIENT, (uint64_t) client);
	key(&s->w, l, K_FILE, (uint64_t) file);
	key(&s->w, l, K_SIZE, (uint64_t) from);
	key(&s->w, l, K_SIZE2, (uint64_t) to);
	emit(&s->w, sz, client, &s->seed);
}

static void link_rec(struct synth *s, int rt, uint64_t t, int64_t client, int file, int links)
{
	size_t sz;
	const struct layout *l = begin(&s->w, rt, 1, &sz);
	key(&s->w, l, K_T1, t);
	key(&s->w, l, K_CLIENT, (uint64_t) client);
	key(&s->w, l, K_FILE, (uint64_t) file);
	key(&s->w, l, K_LINKS, (uint64_t) links);
	emit(&s->w, sz, client, &s->seed);
}

static void fcntl_rec(struct synth *s, uint64_t t, int64_t client, int fd, int req, int arg)
{
	size_t sz;
	const struct layout *l = begin(&s->w, R_FCNTL, 1, &sz);
	key(&s->w, l, K_T1, t);
	key(&s->w, l, K_CLIENT, (uint64_t) client);
	key(&s->w, l, K_FD, (uint64_t) fd);
	key(&s->w, l, K_REQUEST, (uint64_t) req);
	key(&s->w, l, K_ARG, (uint64_t) arg);
	emit(&s->w, sz, client, &s->seed);
}

static void header(struct synth *s, int nclients)
{
	size_t sz;
	const struct layout *l = begin(&s->w, R_HEADER, 1, &sz);
	int be = s->w.be;
	key(&s->w, l, K_START, 760000000);                      /* 1994-01-31 */
	key(&s->w, l, K_GMT, (uint64_t) (int64_t) (be ? -21600 : -28800)); /* CST (NCSA), PST (NASA Ames) */
	key(&s->w, l, K_T1, 1000);
	put_name(&s->w, l, "SystemId", be ? 0x8d8e1005u : 0x81d70a02u);
	key(&s->w, l, K_SYSTYPE, be ? 3 : 1);                   /* CM-5, iPSC */
	put_name(&s->w, l, "md_version", 1);
	put_text(&s->w, l, "release_data", be ? "CMOST 7.2 S4" : "NX/2 R4.1", 80);
	key(&s->w, l, K_NPROC, (uint64_t) (nclients < 65536 ? nclients : 65536));
	key(&s->w, l, K_MEMPP, be ? 32 : 16);
	key(&s->w, l, K_NDISK, 10);
	key(&s->w, l, K_NIO, 10);
	key(&s->w, l, K_MEMPD, 8);
	put_double(&s->w, (size_t) l->at[K_UNIT], 1e-6);
	emit(&s->w, sz, -1, &s->seed);
	for (int i = 0; i < s->w.p->nx; i++) { /* one of each machine-dependent record */
		begin(&s->w, s->w.p->x[i].code, 1, &sz);
		emit(&s->w, sz, -1, &s->seed);
	}
}

static const uint64_t req_sizes[] = {512, 1024, 2048, 4096, 4096, 8192, 16384, 65536};

static uint64_t req_size(struct synth *s)
{
	return req_sizes[below(&s->seed, ARRAY_SIZE(req_sizes))];
}

static void open_private(struct synth *s, struct sclient *c, uint64_t t)
{
	c->file = 1000 + (int) c->id * s->files + c->cycle;
	c->cycle = (c->cycle + 1) % s->files;
	c->fd = 3 + (c->cycle & 1); /* descriptors are reused after a close */
	c->fsize = (int64_t) below(&s->seed, 1u << 20);
	c->pos = 0;
	static const int flags[] = {0x01, 0x02, 0x0c, 0x1c, 0x24};
	open_rec(s, R_CLOPEN, t, c->id, c->file, c->fd, c->fsize, flags[below(&s->seed, 5)], c->id);
}

/* Per-client synchronous requests on the private files; returns the step's end. */
static uint64_t step_private(struct synth *s, struct sapp *a, uint64_t t, int async)
{
	uint64_t end = t;
	for (int i = 0; i < a->n; i++) {
		struct sclient *c = &a->c[i];
		int wr = below(&s->seed, 10) < 3;
		struct rq r = {c->pos, req_size(s), c->id};
		uint64_t t1 = t + (uint64_t) (i & 3), dur = 20 + below(&s->seed, 2000);
		c->pos += r.size;
		if (!async) {
			rw_rec(s, t1, t1 + dur, c->fd, 4 | (wr ? 2 : 0), 0, a->id, &r, 1);
		} else {
			int aid = ++a->aid;
			rw_rec(s, t1, 0, c->fd, 5 | (wr ? 2 : 0), aid, a->id, &r, 1);
			uint64_t call = t1 + 5 + below(&s->seed, 200);
			aend_rec(s, call, call + dur / 2, aid, c->id, a->id);
			dur += 5 + 200;
		}
		if (t1 + dur > end)
			end = t1 + dur;
	}
	return end;
}

/* An application-wide request on the shared file: one RW listing every
 * client (or one per client in the iPSC variant). */
static uint64_t step_shared(struct synth *s, struct sapp *a, uint64_t t, int async, struct rq *r)
{
	int wr = below(&s->seed, 10) < 4;
	uint64_t size = req_size(s), dur = 50 + below(&s->seed, 5000);
	for (int i = 0; i < a->n; i++)
		r[i] = (struct rq){a->shared_pos + (uint64_t) i * size, size, a->c[i].id};
	a->shared_pos += (uint64_t) a->n * size;
	if (!s->w.p->rw_app_fields) {
		for (int i = 0; i < a->n; i++)
			rw_rec(s, t, t + dur, a->shared_fd, 4 | (wr ? 2 : 0), 0, a->id, &r[i], 1);
		return t + dur;
	}
	if (!async) {
		rw_rec(s, t, t + dur, a->shared_fd, wr ? 2 : 0, 0, a->id, r, a->n);
		return t + dur;
	}
	int aid = ++a->aid;
	rw_rec(s, t, 0, a->shared_fd, 1 | (wr ? 2 : 0), aid, a->id, r, a->n);
	uint64_t call = t + 10 + below(&s->seed, 100);
	aend_rec(s, call, call + dur, aid, -1, a->id); /* NO_CLIENT: the application's request */
	return call + dur;
}

static uint64_t step_ops(struct synth *s, struct sapp *a, uint64_t t, int kind)
{
	struct sclient *c = &a->c[below(&s->seed, (uint64_t) a->n)];
	switch (kind) {
	case 0: /* every client moves to its next private file */
		for (int i = 0; i < a->n; i++) {
			struct sclient *k = &a->c[i];
			close_rec(s, R_CLCLOSE, t + 2 * (uint64_t) i, k->id, k->fd, k->fsize + (int64_t) k->pos, k->id);
			open_private(s, k, t + 2 * (uint64_t) i + 1);
		}
		return t + 2 * (uint64_t) a->n + 10;
	case 1:
		size_rec(s, R_EXTEND, t, c->id, c->file, c->fsize, c->fsize + 65536);
		c->fsize += 65536;
		return t + 5;
	case 2:
		size_rec(s, R_TRUNC, t, c->id, c->file, c->fsize, c->fsize / 2);
		c->fsize /= 2;
		return t + 5;
	case 3: { /* a scratch file gets a second name, loses it, and is removed */
		int f = s->scratch++;
		link_rec(s, R_LINK, t, c->id, f, 2);
		link_rec(s, R_UNLINK, t + 3, c->id, f, 1);
		link_rec(s, R_UNLINK, t + 6, c->id, f, 0);
		return t + 10;
	}
	default:
		fcntl_rec(s, t, c->id, c->fd, (int) below(&s->seed, 8), (int) below(&s->seed, 4));
		return t + 5;
	}
}

static void app_step(struct synth *s, struct sapp *a, struct rq *r)
{
	uint64_t t = a->t, k = below(&s->seed, 100), end;
	if (k < 45)
		end = step_private(s, a, t, 0);
	else if (k < 70)
		end = step_shared(s, a, t, 0, r);
	else if (k < 82)
		end = step_private(s, a, t, 1);
	else if (k < 88)
		end = step_shared(s, a, t, 1, r);
	else
		end = step_ops(s, a, t, k < 91 ? 0 : k < 94 ? 1 : k < 96 ? 2 : k < 98 ? 3 : 4);
	a->t = end + 1 + below(&s->seed, 300);
}

static void app_open(struct synth *s, struct sapp *a)
{
	a->shared_fd = 5;
	a->shared_file = 100 + (int) a->idx;
	open_rec(s, R_APPOPEN, a->t, a->id, a->shared_file, a->shared_fd, 0, 0x0a, -1);
	for (int i = 0; i < a->n; i++)
		open_private(s, &a->c[i], a->t + 1 + (uint64_t) i);
	a->t += 2 + (uint64_t) a->n;
}

static void app_close(struct synth *s, struct sapp *a)
{
	uint64_t t = a->t;
	for (int i = 0; i < a->n; i++)
		close_rec(s, R_CLCLOSE, t + (uint64_t) i, a->c[i].id, a->c[i].fd, a->c[i].fsize + (int64_t) a->c[i].pos, a->c[i].id);
	t += (uint64_t) a->n;
	close_rec(s, R_APPCLOSE, t++, a->id, a->shared_fd, (int64_t) a->shared_pos, -1);
	for (int i = a->n / 2; i < a->n; i++)
		rec_simple(s, R_LEAVE, t++, a->id, a->c[i].id);
	rec_simple(s, R_EXIT, t, a->id, 0);
	a->t = t + 1;
}

static int generate(struct synth *s, int napps, int nclients)
{
	struct sapp *apps = weft_xcalloc((size_t) napps, sizeof(*apps));
	struct sclient *cl = weft_xcalloc((size_t) nclients, sizeof(*cl));
	struct rq *r = weft_xcalloc((size_t) nclients, sizeof(*r));
	for (int i = 0; i < nclients; i++)
		cl[i].id = i;
	int next = 0;
	for (int i = 0; i < napps; i++) {
		struct sapp *a = &apps[i];
		a->id = i + 1;
		a->idx = i;
		a->n = nclients / napps + (i < nclients % napps);
		a->c = &cl[next];
		next += a->n;
		a->t = 1000 + 50 * (uint64_t) i;
	}
	header(s, nclients);
	int live = napps;
	while (live) {
		struct sapp *a = NULL;
		for (int i = 0; i < napps; i++)
			if (apps[i].phase < 4 && (!a || apps[i].t < a->t))
				a = &apps[i];
		switch (a->phase) {
		case 0: app_load(s, a); a->phase = 1; break;
		case 1: app_open(s, a); a->phase = 2; break;
		case 2:
			if (s->w.bytes < s->target) {
				app_step(s, a, r);
				break;
			}
			app_close(s, a);
			a->phase = 4;
			live--;
			break;
		}
	}
	flush_held(&s->w);
	free(apps);
	free(cl);
	free(r);
	return 0;
}

int charisma_synth_write(const struct charisma_synth_opts *o, const char *out, struct charisma_synth_done *done,
			 struct weft_err *e)
{
	const char *prof = o->profile ? o->profile : "charisma-default";
	uint64_t size = o->size, apps = o->apps, clients = o->clients, files = o->files, seed = o->seed;
	struct profile p;
	if (chp_load(&p, prof, e)) {
		chp_free(&p);
		return -1;
	}
	char *tmp;
	int fd = atomic_open(out, &tmp, e);
	if (fd < 0) {
		chp_free(&p);
		return -1;
	}
	struct synth s = {0};
	s.w.p = &p;
	s.w.be = o->big_endian;
	s.w.f = fdopen(fd, "wb");
	s.seed = seed;
	s.target = size;
	s.files = (int) files;
	s.scratch = 900000;
	static char buf[1 << 20];
	setvbuf(s.w.f, buf, _IOFBF, sizeof(buf));
	uint8_t magic[8];
	for (int i = 0; i < 4; i++) {
		magic[s.w.be ? 3 - i : i] = (uint8_t) (0x01234567u >> (8 * i));
		magic[4 + (s.w.be ? 3 - i : i)] = (uint8_t) (1u >> (8 * i));
	}
	fwrite(magic, 1, 8, s.w.f);
	generate(&s, (int) apps, (int) clients);
	int rc = 0;
	if (fflush(s.w.f) != 0 || ferror(s.w.f))
		rc = weft_out_fail(e, errno, "%s: write failed", out);
	if (fclose(s.w.f) != 0 && rc == 0) /* closes fd */
		rc = weft_out_fail(e, errno, "%s: write failed", out);
	rc = atomic_commit(-1, tmp, out, rc, e);
	free(s.w.rec);
	free(s.w.held);
	chp_free(&p);
	done->records = s.w.records;
	done->bytes = s.w.bytes + 8;
	return rc;
}
