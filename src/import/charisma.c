/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma: CHARISMA file-system traces (iPSC/860, CM-5) as a source of the
 * file I/O model (doc/formats/legacy.md §7, weft decisions §7.4). This file
 * turns records into events and drives the conversion; the decoder (byte
 * orders, profiles, header, record sizes) is charisma_read, the output
 * (one ovni stream per client) charisma_streams.
 *
 * Records are sorted stably by their first time with bounded memory
 * (recsort: a window, or runs spilled to a temporary file when the file is
 * out of order by more than the window), then turned into events of model F on one
 * stream per client; the later times of a record (RW end, ASYNCH_END end)
 * wait in a small per-client heap so each stream's clock never decreases.
 *
 * Speed: the built-in records are read with one load per field
 * (charisma_fields.h) by code made once per byte order; the header, the
 * probe, the last records of the file and every error take the general
 * reader. Hot events go through the writer's fixed-size path; async
 * requests in flight are in charisma_async. The input's pages below the
 * lowest record still to handle are given back as the scan moves on. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "import/charisma_async.h"
#include "import/charisma_read.h"
#include "import/charisma_streams.h"
#include "util/mapfile.h"
#include "util/mkdirp.h"
#include "util/rmtree.h"
#include "import/recpipe.h"
#include "import/recsort.h"
#include "trace/writer.h"

#define SORT_WINDOW (1u << 18) /* records held back for sorting */
#define PREFETCH_AHEAD 8 /* records */

struct conv {
	struct rdr r;
	struct chs out;          /* out.e: errors of the records' handling */
	struct atab async;
	struct weft_err *scan_e; /* errors of the scan (out.e without a pipe) */
	/* records from tail_start on end less than 8 bytes before the end of
	 * the file: they are read from a copy followed by zeros (set by the
	 * scan, read where the records are handled) */
	_Atomic size_t tail_start;
	uint8_t *tail;
	struct recpipe *pipe;    /* records handled on a second thread, or NULL */
	/* the input's pages below the records still to handle are given back
	 * every release_step bytes scanned (about a window of records) */
	struct mapfile *in;
	size_t release_at, release_step;
	const struct recsort *rs;
};

struct pl {
	uint8_t b[16];
	size_t n;
};

static void put32(struct pl *p, int64_t v)
{
	int32_t x = (int32_t) v;
	memcpy(p->b + p->n, &x, 4);
	p->n += 4;
}

static void put64(struct pl *p, int64_t v)
{
	memcpy(p->b + p->n, &v, 8);
	p->n += 8;
}

/* ---- records to events ------------------------------------------------------------------------ */

/* One handler a kind of record: the record of type rt at byte offset
 * `off`, read at `rec` with its fast layout fl, its first times t1 and t2,
 * from a file of byte order `be`. Each returns 0, or -1 with cv->out.e
 * filled. */
#define REC_ARGS struct conv *cv, const uint8_t *rec, const struct flay *fl, size_t off, int rt, uint64_t t1, \
		 uint64_t t2, int be
#define F(key) chf_get(rec, fl->k[key], be)
#define RN chp_rname(rt, cv->r.p, rn, sizeof(rn)) /* for messages only */

/* APP_LOAD: the application's clients join it. */
static int on_load(REC_ARGS)
{
	(void) t2;
	struct app *a = chs_get_app(&cv->out, F(K_APP), 1);
	int64_t n = F(K_NC);
	for (int64_t i = 0; i < n; i++) {
		char field[48];
		snprintf(field, sizeof(field), "clients[%lld]", (long long) i);
		if (chs_bind(&cv->out, off, rt, a, field, chf_get(rec + fl->arr + i * fl->esize, fl->el_client, be), t1))
			return -1;
	}
	return 0;
}

/* APP_EXIT (all its clients) and CLIENT_LEAVE (one) leave an application. */
static int on_leave(REC_ARGS)
{
	(void) t2;
	struct app *a = chs_need_app(&cv->out, off, rt, F(K_APP));
	if (!a)
		return -1;
	int64_t only = rt == R_LEAVE ? F(K_CLIENT) : 0;
	for (int i = 0; i < a->nmem; i++) {
		if (rt == R_LEAVE && a->mem[i]->id != only)
			continue;
		chs_ev(&cv->out, a->mem[i], t1, "FP-", NULL, 0);
		a->mem[i--] = a->mem[--a->nmem];
	}
	return 0;
}

/* Opens and closes, of an application (on each of its clients) or of one client. */
static int on_open_close(REC_ARGS)
{
	(void) t2;
	struct pl pl = {{0}, 0};
	int open = rt == R_APPOPEN || rt == R_CLOPEN;
	int appw = rt == R_APPOPEN || rt == R_APPCLOSE;
	put32(&pl, F(K_FD));
	if (open) {
		put32(&pl, F(K_FILE));
		put32(&pl, F(K_FLAGS));
	} else {
		put64(&pl, F(K_SIZE));
	}
	const char *mcv = open ? (appw ? "FOa" : "FO.") : (appw ? "FCa" : "FC.");
	if (!appw) {
		struct client *c = chs_need_client(&cv->out, off, rt, -1, F(K_CLIENT));
		if (!c)
			return -1;
		chs_ev(&cv->out, c, t1, mcv, pl.b, pl.n);
		return 0;
	}
	struct app *a = chs_need_app(&cv->out, off, rt, F(K_APP));
	if (!a)
		return -1;
	for (int i = 0; i < a->nmem; i++)
		chs_ev(&cv->out, a->mem[i], t1, mcv, pl.b, pl.n);
	return 0;
}

/* An end time (the start is checked by the scan) whose nanoseconds wrap
 * around: the end would be written before its start, and weft's reader
 * refuses the stream. */
__attribute__((cold, noinline)) static int end_overflow(struct weft_err *e, const struct rdr *r, size_t off,
							 const char *rn, const char *field, uint64_t t2)
{
	return weft_fail(e, WEFT_EINPUT, "%s: byte offset %zu: record %s, field %s: %llu ticks overflow "
			 "64-bit nanoseconds", r->path, off, rn, field, (unsigned long long) t2);
}

/* An asynchronous RW: its request put in flight (one in flight a key). */
static inline __attribute__((always_inline)) struct async_req *issue(REC_ARGS, int op, int64_t n)
{
	(void) t1, (void) t2;
	char rn[64];
	int64_t aid = F(K_AID);
	int clientreq = (op & 4) || !chf_has(fl->k[K_APP]);
	struct akey k = {clientreq ? 0 : 1, clientreq ? chf_get(rec + fl->arr, fl->rq_client, be) : F(K_APP), aid};
	struct async_req *old = at_find(&cv->async, k);
	if (old) {
		weft_fail(cv->out.e, WEFT_EINPUT,
			  "%s: byte offset %zu: record %s, field async_id: asynchronous "
			  "request %lld of %s %lld is already in flight (issued by the RW "
			  "record at byte offset %zu): expected an ASYNCH_END first",
			  cv->r.path, off, RN, (long long) aid, old->k.kind ? "application" : "client",
			  (long long) old->k.who, old->off);
		return NULL;
	}
	struct async_req *q = at_add(&cv->async, k, n > 0 ? (size_t) n : 0);
	q->off = off;
	return q;
}

/* RW: a request on each client of its list; a synchronous one ends at
 * endtime, an asynchronous one at its ASYNCH_END. */
static inline __attribute__((always_inline)) int on_rw(REC_ARGS)
{
	const struct rdr *r = &cv->r;
	char rn[64];
	int op = (int) F(K_OP);
	int async = op & 1, wr = op & 2;
	int64_t n = chf_has(fl->k[K_NC]) ? F(K_NC) : 1;
	int64_t aid = F(K_AID), fd = F(K_FD);
	if (!async && t2 < t1)
		return weft_fail(cv->out.e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field endtime: %llu ticks is before "
				 "starttime %llu: expected a request to end after it starts",
				 r->path, off, RN, (unsigned long long) t2, (unsigned long long) t1);
	if (!async && t2 > r->tmax) /* (an asynchronous request's is unused) */
		return end_overflow(cv->out.e, r, off, RN, "endtime", t2);
	struct async_req *q = NULL;
	if (async && !(q = issue(cv, rec, fl, off, rt, t1, t2, be, op, n)))
		return -1;
	uint64_t ns1 = to_ns(r, t1), ns2 = async ? 0 : to_ns(r, t2);
	uint32_t hreq = async ? (wr ? ow_head("FWa", 16) : ow_head("FRa", 16))
			      : (wr ? ow_head("FW[", 16) : ow_head("FR[", 16));
	uint32_t hdesc = async ? (wr ? ow_jumbo_head("FWA") : ow_jumbo_head("FRA"))
			       : (wr ? ow_jumbo_head("FWd") : ow_jumbo_head("FRd"));
	uint32_t hend = wr ? ow_head("FW]", 0) : ow_head("FR]", 0);
	const uint8_t *el = rec + fl->arr;
	for (int64_t i = 0; i < n; i++, el += fl->esize) {
		int64_t cid = chf_get(el, fl->rq_client, be);
		struct client *c = cid >= 0 && cid < cv->out.ndense ? cv->out.dense[cid] : NULL;
		if (!c && !(c = chs_need_client(&cv->out, off, rt, i, cid)))
			return -1;
		int64_t s[3] = {chf_get(el, fl->rq_iosize, be), chf_get(el, fl->rq_offset, be), 0};
		if (!c->has_desc || c->desc_fd != fd || c->desc_aid != aid) {
			/* the model keeps the last descriptor: the request names
			 * it when it changes (a jumbo event: 24 bytes) */
			int32_t d[2] = {(int32_t) fd, (int32_t) aid};
			memcpy(&s[2], d, 8);
			put_jumbo(c, ns1, hdesc, s, 24);
			c->has_desc = 1, c->desc_fd = fd, c->desc_aid = aid;
		} else {
			put(c, ns1, hreq, s, 16);
		}
		if (async)
			q->cl[q->ncl++] = c;
		else
			later(&cv->out, c, ns2, hend, 0);
	}
	return 0;
}

/* ASYNCH_END: the asynchronous request ends on each client it was issued on. */
static inline __attribute__((always_inline)) int on_aend(REC_ARGS)
{
	const struct rdr *r = &cv->r;
	const struct profile *p = r->p;
	char rn[64];
	int64_t cid = F(K_CLIENT), aid = F(K_AID), appl = F(K_APP);
	struct akey k = {0, cid, aid};
	int noc = is_sentinel(r, cid, T_CLIENTID, p->no_client_all, p->no_client);
	if (noc)
		k = (struct akey){1, appl, aid};
	struct async_req *q = at_find(&cv->async, k);
	if (!q)
		return weft_fail(cv->out.e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field async_id: no asynchronous "
				 "request %lld of %s %lld is in flight (expected an earlier asynchronous RW)",
				 r->path, off, RN, (long long) aid, noc ? "application" : "client",
				 (long long) (noc ? appl : cid));
	if (t2 > r->tmax)
		return end_overflow(cv->out.e, r, off, RN, "end_time", t2);
	uint64_t ns1 = to_ns(r, t1), end = to_ns(r, t2 > t1 ? t2 : t1);
	int32_t a32 = (int32_t) aid;
	for (size_t i = 0; i < q->ncl; i++) {
		struct client *c = q->cl[i];
		put(c, ns1, ow_head("FA[", 4), &a32, 4);
		later(&cv->out, c, end, ow_head("FA]", 4), a32);
	}
	at_del(&cv->async, q);
	return 0;
}

/* EXTEND, TRUNCATE, LINK, UNLINK, FCNTL: one event on the client. */
static int on_file_op(REC_ARGS)
{
	(void) t2;
	struct pl pl = {{0}, 0};
	struct client *c = chs_need_client(&cv->out, off, rt, -1, F(K_CLIENT));
	if (!c)
		return -1;
	const char *mcv = rt == R_EXTEND ? "FE." : rt == R_TRUNC ? "FT." : rt == R_LINK ? "FL." : rt == R_UNLINK ? "FU." : "FF.";
	if (rt == R_FCNTL) {
		put32(&pl, F(K_FD));
		put32(&pl, F(K_REQUEST));
		put32(&pl, F(K_ARG));
	} else if (rt == R_LINK || rt == R_UNLINK) {
		put32(&pl, F(K_FILE));
		put32(&pl, F(K_LINKS));
	} else {
		put32(&pl, F(K_FILE));
		put64(&pl, F(K_SIZE2));
	}
	chs_ev(&cv->out, c, t1, mcv, pl.b, pl.n);
	return 0;
}

#undef RN
#undef F

/* Turn one record into events: the record at byte offset `off`, read at
 * `rec` (followed by at least 8 readable bytes) from a file of byte order
 * `be` (a constant: one copy of this function per byte order). */
static inline __attribute__((always_inline)) int handle_rec(struct conv *cv, const uint8_t *rec, size_t off, int be)
{
	const struct rdr *r = &cv->r;
	int rt = (int) chf_get(rec, r->fl[1].rt, be);
	if (rt <= 0 || rt >= R_NBUILTIN)
		return 0; /* a machine-dependent record: sized and skipped (never queued) */
	const struct flay *fl = &r->fl[rt];
	uint64_t t1 = chf_has(fl->k[K_T1]) ? (uint64_t) chf_get(rec, fl->k[K_T1], be) : 0;
	uint64_t t2 = chf_has(fl->k[K_T2]) ? (uint64_t) chf_get(rec, fl->k[K_T2], be) : t1;
	switch (rt) {
	case R_RW:
		return on_rw(cv, rec, fl, off, rt, t1, t2, be);
	case R_AEND:
		return on_aend(cv, rec, fl, off, rt, t1, t2, be);
	case R_LOAD:
		return on_load(cv, rec, fl, off, rt, t1, t2, be);
	case R_JOIN:
		return chs_bind(&cv->out, off, rt, chs_get_app(&cv->out, chf_get(rec, fl->k[K_APP], be), 1),
				"client_id", chf_get(rec, fl->k[K_CLIENT], be), t1);
	case R_EXIT:
	case R_LEAVE:
		return on_leave(cv, rec, fl, off, rt, t1, t2, be);
	case R_APPOPEN:
	case R_CLOPEN:
	case R_APPCLOSE:
	case R_CLCLOSE:
		return on_open_close(cv, rec, fl, off, rt, t1, t2, be);
	case R_EXTEND:
	case R_TRUNC:
	case R_LINK:
	case R_UNLINK:
	case R_FCNTL:
		return on_file_op(cv, rec, fl, off, rt, t1, t2, be);
	}
	return 0;
}

static inline __attribute__((always_inline)) int handle(struct conv *cv, const uint8_t *rec, size_t off, int be)
{
	cv->out.cur = off;
	int rc = handle_rec(cv, rec, off, be);
	if (__builtin_expect(cv->out.loc != NULL, 0))
		import_locate_after(cv->out.loc, cv->out.loc_c ? &cv->out.loc_c->w : NULL, 1, off);
	return rc;
}

/* The record at `off` where its fields can be read 8 bytes at a time. */
static inline const uint8_t *rec_at(struct conv *cv, size_t off)
{
	/* a tail record was scanned before it was queued, so tail_start is
	 * set for it; earlier records see it set or not, above them either way */
	size_t ts = atomic_load_explicit(&cv->tail_start, memory_order_relaxed);
	if (__builtin_expect(off < ts, 1))
		return cv->r.d + off;
	if (!cv->tail) { /* 8 bytes of zeros before and after */
		size_t n = cv->r.len - ts;
		cv->tail = weft_xcalloc(n + 16, 1);
		memcpy(cv->tail + 8, cv->r.d + ts, n);
	}
	return cv->tail + 8 + (off - ts);
}

/* The records are read a window after the scan: ask for a later one now. */
static inline void prefetch_ahead(const struct conv *cv)
{
	uint64_t a = rs_ahead(cv->rs, PREFETCH_AHEAD);
	if (a < cv->r.len)
		__builtin_prefetch(cv->r.d + a);
}

static int emit_le(void *ctx, uint64_t t, uint64_t off)
{
	(void) t;
	struct conv *cv = ctx;
	prefetch_ahead(cv);
	return handle(cv, rec_at(cv, (size_t) off), (size_t) off, 0);
}

static int emit_be(void *ctx, uint64_t t, uint64_t off)
{
	(void) t;
	struct conv *cv = ctx;
	prefetch_ahead(cv);
	return handle(cv, rec_at(cv, (size_t) off), (size_t) off, 1);
}

/* With a pipe: the sorter queues, the pipe's thread handles. */
static int emit_put(void *ctx, uint64_t t, uint64_t off)
{
	(void) t;
	return rp_put(((struct conv *) ctx)->pipe, off);
}

static int piped_le(void *ctx, uint64_t off, uint64_t ahead)
{
	struct conv *cv = ctx;
	if (ahead < cv->r.len)
		__builtin_prefetch(cv->r.d + ahead);
	return handle(cv, rec_at(cv, (size_t) off), (size_t) off, 0);
}

static int piped_be(void *ctx, uint64_t off, uint64_t ahead)
{
	struct conv *cv = ctx;
	if (ahead < cv->r.len)
		__builtin_prefetch(cv->r.d + ahead);
	return handle(cv, rec_at(cv, (size_t) off), (size_t) off, 1);
}

/* ---- the driver ------------------------------------------------------------------------------------ */

static void conv_free(struct conv *cv)
{
	chs_free(&cv->out);
	free(cv->tail);
	cv->tail = NULL;
	at_free(&cv->async);
}

/* Check the size and times of the record at *poff (any record, every
 * error), hand it to the sorter and move *poff past it. */
static int scan_one(struct conv *cv, struct recsort *rs, size_t *poff)
{
	const struct profile *p = cv->r.p;
	const char *path = cv->r.path;
	size_t len = cv->r.len, off = *poff;
	struct weft_err *e = cv->scan_e;
	char rn[64];
	if (len - off < (size_t) p->t[T_USHORT].size)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset %zu: field record_type: the record runs past the end "
				 "of the file (%zu bytes are left)",
				 path, off, len - off);
	int rt = (int) rd(&cv->r, off, T_USHORT);
	int64_t sz = chr_record_size(&cv->r, off, rt, e);
	if (sz < 0)
		return -1;
	if (off + (size_t) sz + 8 > len && cv->tail_start > off)
		atomic_store_explicit(&cv->tail_start, off, memory_order_relaxed);
	if (rt < R_NBUILTIN) {
		const struct layout *l = &p->lay[rt];
		uint64_t t1, t2;
		chr_record_times(&cv->r, l, off, &t1, &t2);
		if (p->t[T_TS].sgn && ((int64_t) t1 < 0 || (int64_t) t2 < 0))
			return weft_fail(e, WEFT_EINPUT, "%s: byte offset %zu: record %s, field %s: a negative time",
					 path, off, chp_rname(rt, p, rn, sizeof(rn)), l->f[1].name);
		if (t1 > cv->r.tmax)
			return weft_fail(e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field %s: %llu ticks overflow 64-bit nanoseconds",
					 path, off, chp_rname(rt, p, rn, sizeof(rn)), l->f[1].name,
					 (unsigned long long) t1);
		int rc = rs_add(rs, t1, off, e);
		if (rc)
			return rc;
	}
	*poff = off + (size_t) sz;
	return 0;
}

/* Check every record's size and times and hand it to the sorter: records
 * of the built-in types that are whole, far enough from the end of the file
 * and without an error are read fast here; scan_one takes the others. */
static inline __attribute__((always_inline)) int scan_as(struct conv *cv, struct recsort *rs, size_t off, int be)
{
	const struct rdr *r = &cv->r;
	const struct profile *p = r->p;
	size_t len = r->len;
	int tsgn = p->t[T_TS].sgn, exact = p->array_exact;
	uint64_t tmax = r->tmax;
	while (off < len) {
		if (__builtin_expect(off >= cv->release_at, 0)) {
			uint64_t low = rs_low_off(rs, off), queued = cv->pipe ? rp_low_off(cv->pipe) : UINT64_MAX;
			map_release(cv->in, (size_t) (queued < low ? queued : low));
			cv->release_at = off + cv->release_step;
		}
		if (off + r->margin <= len) {
			const uint8_t *rec = r->d + off;
			uint64_t rt = (uint64_t) chf_get(rec, r->fl[1].rt, be);
			if (rt - 1 < R_NBUILTIN - 1) {
				const struct flay *fl = &r->fl[rt];
				uint64_t n = fl->var ? (uint64_t) chf_get(rec, fl->k[K_NC], be) : 1;
				size_t sz = n <= 1 && !exact ? (size_t) fl->size1 : chp_rec_size(p, &p->lay[rt], n);
				uint64_t t1 = chf_has(fl->k[K_T1]) ? (uint64_t) chf_get(rec, fl->k[K_T1], be) : 0;
				uint64_t t2 = chf_has(fl->k[K_T2]) ? (uint64_t) chf_get(rec, fl->k[K_T2], be) : t1;
				if (sz <= len - off && !(tsgn && ((int64_t) t1 < 0 || (int64_t) t2 < 0)) && t1 <= tmax) {
					if (off + sz + 8 > len && cv->tail_start > off)
						atomic_store_explicit(&cv->tail_start, off, memory_order_relaxed);
					int rc = rs_add(rs, t1, off, cv->scan_e);
					if (rc)
						return rc;
					off += sz;
					continue;
				}
			}
		}
		int rc = scan_one(cv, rs, &off);
		if (rc)
			return rc;
	}
	return 0;
}

static int scan(struct conv *cv, struct recsort *rs, size_t off)
{
	return cv->r.be ? scan_as(cv, rs, off, 1) : scan_as(cv, rs, off, 0);
}

/* WEFT_IMPORT_THREADS=1 handles the records on the thread that scans them
 * (tests compare both ways); else on a second one. */
static int import_threads(void)
{
	const char *v = getenv("WEFT_IMPORT_THREADS");
	return v && strcmp(v, "1") == 0 ? 1 : 2;
}

/* One pass over the records: scan them into the sorter (`spill`: in runs
 * through a temporary file) and turn them into events in sorted order, on
 * a second thread when `threads` > 1. A record's handling fails before
 * anything the scan finds later, so the handling thread's error wins.
 * Returns 0, RS_OVERFLOW (window mode), or -1 with e filled. */
static int sort_pass(struct conv *cv, struct recsort *rs, size_t start, size_t window, int spill, int threads,
		     struct weft_err *e)
{
	struct weft_err handling;
	cv->out.e = cv->scan_e = e;
	cv->pipe = NULL;
	if (threads > 1) {
		if (!(cv->pipe = rp_start(cv->r.be ? piped_be : piped_le, cv, e)))
			return -1;
		cv->out.e = &handling;
	}
	rs_emit_fn emit = cv->pipe ? emit_put : cv->r.be ? emit_be : emit_le;
	int rc = 0;
	if (spill)
		rc = rs_spill(rs, window, emit, cv, e);
	else
		rs_window(rs, window, emit, cv);
	cv->rs = rs;
	if (rc == 0)
		rc = scan(cv, rs, start);
	if (rc == 0)
		rc = rs_finish(rs, e);
	if (cv->pipe) {
		int hrc = rp_finish(cv->pipe);
		cv->pipe = NULL;
		cv->out.e = e;
		if (hrc) {
			*e = handling;
			rc = -1;
		}
	}
	return rc;
}

static int charisma_convert(const char *path, struct mapfile *in, const struct import_opts *o, const char *outdir,
			    struct weft_err *e)
{
	struct conv cv = {0};
	cv.in = in;
	cv.out.r = &cv.r;
	cv.out.outdir = outdir;
	cv.out.e = e;
	cv.out.loc = o->locate;
	if (cv.out.loc)
		cv.out.loc->text = 0;
	if (chr_open(&cv.r, path, in->data, in->size, e))
		return -1;
	struct profile prof;
	memset(&prof, 0, sizeof(prof));
	if (chr_choose_profile(&cv.r, o, &prof, e)) {
		chp_free(&prof);
		return -1;
	}
	struct header h;
	char why[512];
	if (chr_read_header(&cv.r, &h, 0, why, sizeof(why))) {
		chp_free(&prof);
		return weft_fail(e, WEFT_EINPUT, "%s: byte offset 8: record HEADER (0), %s (profile %s)", path,
				 why, prof.name);
	}
	chr_set_unit(&cv.r, h.unit);
	cv.r.margin = (size_t) chp_fast_layouts(&prof, cv.r.be, cv.r.fl) + 8;
	cv.tail_start = SIZE_MAX;
	cv.out.bufsize = 64u << 10;
	size_t window = rs_window_size(SORT_WINDOW);
	cv.release_step = window < (1u << 18) ? (window < 32 ? 4096 : window * 128) : 32u << 20;
	cv.release_at = cv.release_step;
	struct recsort rs;
	int threads = import_threads();
	int rc = sort_pass(&cv, &rs, 8 + h.size, window, 0, threads, e);
	if (rc == RS_OVERFLOW) {
		/* out of order by more than the window: start again, sorting
		 * through a temporary file */
		fprintf(stderr, "weft: %s: records are out of time order by more than the sort window (%zu records): sorting "
			"them through a temporary file\n", path, window);
		rs_free(&rs);
		conv_free(&cv);
		rmtree(outdir);
		cv.out.loc_c = NULL;
		if (cv.out.loc)
			cv.out.loc->found = 0;
		if (mkdir_p(outdir, NULL, e)) {
			memset(&rs, 0, sizeof(rs));
			rc = -1;
		} else {
			rc = sort_pass(&cv, &rs, 8 + h.size, window, 1, threads, e);
		}
	}
	rs_free(&rs);
	if (rc == 0) {
		struct async_req **left;
		size_t nleft = at_left(&cv.async, &left);
		for (size_t i = 0; i < nleft && !(o && o->quiet); i++)
			weft_warn("%s: the asynchronous RW at byte offset %zu (async id %lld) has no ASYNCH_END",
				  path, left[i]->off, (long long) left[i]->k.id);
		free(left);
		if (!cv.out.clients)
			rc = weft_fail(e, WEFT_EINPUT, "%s: no client in the trace (no APP_LOAD or CLIENT_JOIN record)", path);
	}
	if (rc == 0)
		rc = chs_finish(&cv.out, &h);
	/* the header's timestamp is start_date: the absolute origin of the clocks */
	int64_t origin;
	if (rc == 0 && h.start_date > 0 && chr_origin_ns(&cv.r, &h, &origin))
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s: byte offset %d: record HEADER (0), fields start_date (%lld s) and timestamp "
			       "(%llu ticks of %g s): the clock origin they give is out of range: expected "
			       "start_date minus timestamp within 1678..2262 (ns in 64 bits)",
			       path, 8 + cv.r.p->lay[R_HEADER].at[K_START], (long long) h.start_date,
			       (unsigned long long) h.ts, h.unit);
	else if (rc == 0 && h.start_date > 0)
		rc = import_write_origin(outdir, "charisma", 1, origin, e);
	conv_free(&cv);
	chp_free(&prof);
	return rc;
}

const struct weft_import_fmt import_charisma = {
	"charisma",
	"CHARISMA file-system traces (iPSC/860, CM-5; binary, either byte order)",
	chr_detect,
	charisma_convert,
};
