/* charisma: CHARISMA file-system traces (iPSC/860, CM-5) as a source of the
 * file I/O model (doc/formats/legacy.md §7, weft decisions §7.4).
 *
 * The format has no record lengths, so every size comes from a machine
 * profile (scalar sizes, signedness, alignment, string lengths, array sizing,
 * the iPSC RW variant, sentinels, machine-dependent records), given with
 * --charisma-profile NAME|FILE or probed on the header record; profiles and
 * record layouts live in charisma_profile.c.
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
#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <uthash.h>

#include "import/import.h"
#include "import/charisma_async.h"
#include "import/charisma_fields.h"
#include "import/charisma_profile.h"
#include "util/mapfile.h"
#include "util/mkdirp.h"
#include "import/recpipe.h"
#include "import/recsort.h"
#include "trace/writer.h"

#define SORT_WINDOW (1u << 18) /* records held back for sorting */
#define PROBE_RECORDS 100
#define PREFETCH_AHEAD 8 /* records */

/* ---- reading -------------------------------------------------------------------------- */

struct rdr {
	const char *path;
	const uint8_t *d;
	size_t len;
	int be;
	int swap; /* the file's byte order is not this machine's */
	const struct profile *p;
	double unit;
	uint64_t mul; /* ns per tick when the unit is a power of ten, else 0 */
	struct flay fl[R_NBUILTIN]; /* the profile's built-in records, read fast */
	size_t margin; /* a record read fast starts this many bytes before the end or more */
};

static inline uint64_t raw(const struct rdr *r, size_t off, int size)
{
	const uint8_t *b = r->d + off;
	switch (size) {
	case 1:
		return b[0];
	case 2: {
		uint16_t v;
		memcpy(&v, b, 2);
		return r->swap ? __builtin_bswap16(v) : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, b, 4);
		return r->swap ? __builtin_bswap32(v) : v;
	}
	default: {
		uint64_t v;
		memcpy(&v, b, 8);
		return r->swap ? __builtin_bswap64(v) : v;
	}
	}
}

static inline int64_t rd(const struct rdr *r, size_t off, int type)
{
	const struct scalar *s = &r->p->t[type];
	uint64_t v = raw(r, off, s->size);
	if (s->sgn && s->size < 8 && (v >> (s->size * 8 - 1)) & 1)
		v |= ~0ull << (s->size * 8);
	return (int64_t) v;
}

static double rd_double(const struct rdr *r, size_t off)
{
	uint64_t v = raw(r, off, 8);
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static int is_sentinel(const struct rdr *r, int64_t v, int type, int all, int64_t val)
{
	if (!all)
		return v == val;
	int sz = r->p->t[type].size;
	uint64_t mask = sz == 8 ? ~0ull : (1ull << (sz * 8)) - 1;
	return ((uint64_t) v & mask) == mask;
}

/* Size of the record at `off` (its type `rt` is known), or -1 with the error. */
static int64_t record_size(const struct rdr *r, size_t off, int rt, struct weft_err *e)
{
	const struct profile *p = r->p;
	char nb[96], fb[96];
	const struct layout *l = chp_lay_of(p, rt);
	if (!l) {
		if (rt == R_HEADER)
			return weft_fail(e, WEFT_EINPUT,
					 "%s: byte offset %zu: record HEADER (0), field record_type: a second "
					 "header record (only the first record may be a header)",
					 r->path, off);
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset %zu: record type %d, field record_type: unknown record "
				 "type (CHARISMA defines 0..15; declare machine-dependent records in the "
				 "profile as record.%d = NAME: TYPE FIELD, ...)",
				 r->path, off, rt, rt);
	}
	size_t left = r->len - off;
	uint64_t n = 1;
	int c = l->at[K_NC];
	if (l->var >= 0 && c >= 0) {
		if ((size_t) c + (size_t) p->t[T_USHORT].size > left) {
			chp_field_at(p, l, left, fb, sizeof(fb));
			return weft_fail(e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field %s: the record runs past the end "
					 "of the file (it needs at least %d bytes, %zu are left)",
					 r->path, off, chp_rname(rt, p, nb, sizeof(nb)), fb, l->size1, left);
		}
		n = (uint64_t) rd(r, off + (size_t) c, l->tp[K_NC]);
	}
	size_t sz = chp_rec_size(p, l, n);
	if (sz <= left)
		return (int64_t) sz;
	if (n > 1 && chp_rec_size(p, l, 1) <= left)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field num_clients: %llu %s run past the "
				 "end of the file (the record needs %zu bytes, %zu are left)",
				 r->path, off, chp_rname(rt, p, nb, sizeof(nb)), (unsigned long long) n,
				 l->f[l->var].name, sz, left);
	chp_field_at(p, l, left, fb, sizeof(fb));
	return weft_fail(e, WEFT_EINPUT,
			 "%s: byte offset %zu: record %s, field %s: the record runs past the end of the "
			 "file (it needs %zu bytes, %zu are left)",
			 r->path, off, chp_rname(rt, p, nb, sizeof(nb)), fb, sz, left);
}

/* ---- the header and the profile probe ------------------------------------------------------ */

struct header {
	int64_t start_date, gmt;
	uint64_t ts;
	double unit;
	size_t size;
};

static const double pow10neg[] = {1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};

/* Read the header record at byte 8; `why` gets the first implausible field
 * when `check` (the probe's rules). Returns 0, or -1 with `why` filled. */
static int read_header(const struct rdr *r, struct header *h, int check, char *why, size_t n)
{
	const struct layout *l = &r->p->lay[R_HEADER];
	size_t off = 8;
	if (off + (size_t) l->size1 > r->len) {
		char fb[96];
		chp_field_at(r->p, l, r->len - off, fb, sizeof(fb));
		snprintf(why, n, "field %s: the record runs past the end of the file (it needs %d bytes, %zu are left)",
			 fb, l->size1, r->len - off);
		return -1;
	}
	int64_t rt = rd(r, off, T_USHORT);
	if (rt != 0) {
		snprintf(why, n, "field record_type: expected 0 (HEADER), found %lld", (long long) rt);
		return -1;
	}
	h->start_date = rd(r, off + (size_t) l->at[K_START], T_TIME);
	h->gmt = rd(r, off + (size_t) l->at[K_GMT], T_LONG);
	h->ts = (uint64_t) rd(r, off + (size_t) l->at[K_T1], T_TS);
	h->unit = rd_double(r, off + (size_t) l->at[K_UNIT]);
	h->size = (size_t) l->size1;
	if (!(isfinite(h->unit) && h->unit > 0)) {
		snprintf(why, n, "field timestamp_unit: expected a positive number of seconds per tick, found %g", h->unit);
		return -1;
	}
	if (!check)
		return 0;
	int64_t st = rd(r, off + (size_t) l->at[K_SYSTYPE], T_BYTE);
	if (st < 1 || st > 8) {
		snprintf(why, n, "field system_type: expected 1..8, found %lld", (long long) st);
		return -1;
	}
	const uint8_t *rel = r->d + off + l->at[K_RELEASE];
	int nul = 0;
	for (int i = 0; i < 80; i++) {
		if (rel[i] == 0)
			nul = 1;
		else if (nul || !isprint(rel[i])) {
			snprintf(why, n, "field release_data: expected printable text padded with NULs, found byte 0x%02x at %d", rel[i], i);
			return -1;
		}
	}
	static const int keys[] = {K_NPROC, K_MEMPP, K_NDISK, K_NIO};
	static const char *const kn[] = {"num_processors", "memory_per_proc", "num_disks", "num_IO_nodes"};
	for (int k = 0; k < 4; k++) {
		int64_t v = rd(r, off + (size_t) l->at[keys[k]], T_INT);
		if (v < 0 || v > 65536) {
			snprintf(why, n, "field %s: expected 0..65536, found %lld", kn[k], (long long) v);
			return -1;
		}
	}
	if (!(h->unit >= 1e-9 && h->unit <= 1)) {
		snprintf(why, n, "field timestamp_unit: expected 1e-9..1 s, found %g", h->unit);
		return -1;
	}
	if (h->start_date < 631152000 || h->start_date >= 946684800) {
		snprintf(why, n, "field start_date: expected 1990..1999, found %lld", (long long) h->start_date);
		return -1;
	}
	if (h->gmt % 900 || h->gmt < -50400 || h->gmt > 50400) {
		snprintf(why, n, "field gmt_offset: expected a multiple of 900 s within 14 h, found %lld", (long long) h->gmt);
		return -1;
	}
	return 0;
}

/* The first times of a record (its sort key and its end time). */
static void record_times(const struct rdr *r, const struct layout *l, size_t off, uint64_t *t1, uint64_t *t2)
{
	*t1 = l->at[K_T1] >= 0 ? (uint64_t) rd(r, off + (size_t) l->at[K_T1], T_TS) : 0;
	*t2 = l->at[K_T2] >= 0 ? (uint64_t) rd(r, off + (size_t) l->at[K_T2], T_TS) : *t1;
}

static int probe_one(struct rdr *r, char *why, size_t n)
{
	struct header h;
	if (read_header(r, &h, 1, why, n))
		return -1;
	size_t off = 8 + h.size;
	struct weft_err e;
	for (int k = 0; k < PROBE_RECORDS && off < r->len; k++) {
		if (r->len - off < (size_t) r->p->t[T_USHORT].size) {
			snprintf(why, n, "byte offset %zu: a truncated record_type", off);
			return -1;
		}
		int rt = (int) rd(r, off, T_USHORT);
		int64_t sz = record_size(r, off, rt, &e);
		if (sz < 0) {
			snprintf(why, n, "%.400s", strstr(e.msg, "byte offset") ? strstr(e.msg, "byte offset") : e.msg);
			return -1;
		}
		const struct layout *l = chp_lay_of(r->p, rt);
		if (l->at[K_T1] >= 0 && r->p->t[T_TS].sgn) {
			uint64_t t1, t2;
			record_times(r, l, off, &t1, &t2);
			if ((int64_t) t1 < 0 || (int64_t) t2 < 0) {
				snprintf(why, n, "byte offset %zu: a negative time", off);
				return -1;
			}
		}
		off += (size_t) sz;
	}
	return 0;
}

static int choose_profile(struct rdr *r, const struct import_opts *o, struct profile *p, struct weft_err *e)
{
	if (o->profile) {
		if (chp_load(p, o->profile, e))
			return -1;
		r->p = p;
		return 0;
	}
	struct profile cand[CHP_NBUILTINS];
	char why[CHP_NBUILTINS][512];
	int ok[CHP_NBUILTINS], nok = 0, pick = -1;
	for (int b = 0; b < CHP_NBUILTINS; b++) {
		struct weft_err pe;
		if (chp_load(&cand[b], chp_builtin_names[b], &pe))
			return weft_fail(e, WEFT_EINTERNAL, "built-in profile: %s", pe.msg);
		r->p = &cand[b];
		ok[b] = probe_one(r, why[b], sizeof(why[b])) == 0;
		if (ok[b])
			nok++, pick = pick < 0 ? b : pick;
	}
	r->p = NULL;
	if (nok == 1) {
		*p = cand[pick];
		r->p = p;
		if (!o || !o->quiet)
			fprintf(stderr, "weft: %s: CHARISMA machine profile %s (probed on the header record)\n",
				r->path, p->name);
		return 0;
	}
	char list[2048] = "";
	for (int b = 0; b < CHP_NBUILTINS; b++)
		if (nok ? ok[b] : 1)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s%s%s",
				 list[0] ? (nok ? ", " : "; ") : "", chp_builtin_names[b], nok ? "" : ": ",
				 nok ? "" : why[b]);
	if (nok)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 8: record HEADER (0): the header and the records after it "
				 "are plausible with several machine profiles (%s): pass --charisma-profile NAME|FILE",
				 r->path, list);
	return weft_fail(e, WEFT_EINPUT,
			 "%s: byte offset 8: record HEADER (0): no built-in machine profile reads a "
			 "plausible header (%s): pass --charisma-profile NAME|FILE",
			 r->path, list);
}

/* ---- output: one stream per client ---------------------------------------------------------- */

/* An event waiting for its time (the end of a request): its first 4 bytes
 * (ow_head) and its argument, when it has one (FA]). */
struct pend {
	uint64_t t, seq;
	uint32_t head;
	int32_t arg;
};

struct app {
	int64_t id;
	int index;      /* Paraver application, 1.. in order of appearance */
	struct client **mem; /* clients currently in it */
	int nmem, cap;
	UT_hash_handle hh;
};

struct client {
	int64_t id;
	struct app *app;
	int opened;
	int has_desc;      /* the descriptor and async id its last request named */
	int64_t desc_fd, desc_aid;
	struct ovni_writer w;
	struct pend *pq;  /* min-heap by (t, seq) */
	int npq, cappq;
	char *dir;
	int64_t loom;
	UT_hash_handle hh;
};

struct conv {
	struct rdr r;
	const char *outdir;
	struct app *apps;
	int napps;
	struct client *clients;
	struct client **dense; /* by id, for small ids */
	int64_t ndense;
	struct atab async;
	uint64_t seq;
	size_t bufsize;
	struct weft_err *e;      /* errors of the records' handling */
	struct weft_err *scan_e; /* errors of the scan (the same without a pipe) */
	int failed;
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

static inline int pend_less(const struct pend *a, const struct pend *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void pend_push(struct client *c, struct pend x)
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

static inline uint64_t to_ns(const struct rdr *r, uint64_t ticks)
{
	if (__builtin_expect(r->mul != 0, 1))
		return ticks * r->mul;
	return (uint64_t) llroundl((long double) ticks * (long double) r->unit * 1e9L);
}

/* The most ticks to_ns turns into nanoseconds without wrapping around
 * (with a unit that is no power of ten: within INT64_MAX ns, llroundl's
 * range). */
static uint64_t ticks_max(const struct rdr *r)
{
	if (r->mul)
		return UINT64_MAX / r->mul;
	long double m = (long double) INT64_MAX / ((long double) r->unit * 1e9L);
	return m >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t) m;
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

static inline void write_pend(struct client *c, const struct pend *x)
{
	uint8_t flags;
	memcpy(&flags, &x->head, 1);
	if (flags) /* a payload: FA]'s async id */
		ow_event_fixed(&c->w, x->head, x->t, &x->arg, 4);
	else
		ow_event_fixed(&c->w, x->head, x->t, NULL, 0);
}

/* Write the pending events of c due at `upto` or before. */
static void flush_pend(struct client *c, uint64_t upto)
{
	while (c->npq && c->pq[0].t <= upto) {
		struct pend x = pend_pop(c);
		write_pend(c, &x);
	}
}

/* Write the pending events of c due at `ns` (before an event at ns). */
static inline __attribute__((always_inline)) void due(struct client *c, uint64_t ns)
{
	if (c->npq && c->pq[0].t <= ns) {
		if (c->npq == 1) { /* the usual case: the end of the last request */
			c->npq = 0;
			write_pend(c, &c->pq[0]);
		} else {
			flush_pend(c, ns);
		}
	}
}

/* An event on client c at `ns` nanoseconds (pending ends up to then go
 * first), with a payload of `len` bytes (a constant where it is called). */
static inline __attribute__((always_inline)) void put(struct client *c, uint64_t ns, uint32_t head,
						      const void *pl, size_t len)
{
	due(c, ns);
	ow_event_fixed(&c->w, head, ns, pl, len);
}

/* The same for a jumbo event of `len` data bytes. */
static inline __attribute__((always_inline)) void put_jumbo(struct client *c, uint64_t ns, uint32_t head,
							    const void *data, uint32_t len)
{
	due(c, ns);
	ow_jumbo_fixed(&c->w, head, ns, data, len);
}

/* An event on client c at tick time t, any payload (the rarer records). */
static void ev(struct conv *cv, struct client *c, uint64_t t, const char *mcv, const void *pl, size_t len)
{
	uint64_t ns = to_ns(&cv->r, t);
	flush_pend(c, ns);
	ow_event(&c->w, mcv, ns, pl, len);
}

/* An event on client c at `ns`, written when the client's clock gets there. */
static inline void later(struct conv *cv, struct client *c, uint64_t ns, uint32_t head, int32_t arg)
{
	struct pend x = {ns, cv->seq++, head, arg};
	if (c->npq == 0 && c->cappq) {
		c->pq[0] = x;
		c->npq = 1;
	} else {
		pend_push(c, x);
	}
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

static struct client *get_client(struct conv *cv, int64_t id)
{
	if (id >= 0 && id < cv->ndense)
		return cv->dense[id];
	if (id >= 0 && id < DENSE_IDS)
		return NULL;
	struct client *c;
	HASH_FIND(hh, cv->clients, &id, sizeof(id), c);
	return c;
}

static void index_client(struct conv *cv, struct client *c)
{
	if (c->id < 0 || c->id >= DENSE_IDS)
		return;
	if (c->id >= cv->ndense) {
		int64_t n = cv->ndense ? cv->ndense : 64;
		while (n <= c->id)
			n *= 2;
		cv->dense = weft_xrealloc(cv->dense, (size_t) n * sizeof(*cv->dense));
		memset(cv->dense + cv->ndense, 0, (size_t) (n - cv->ndense) * sizeof(*cv->dense));
		cv->ndense = n;
	}
	cv->dense[c->id] = c;
}

/* The ovni number (pid, tid) of a CHARISMA id: ids from 0 up count from 1
 * (ovni's 0 means none), negative ids keep their value. bind() lets in only
 * ids whose number weft's reader accepts (INT32_MIN..INT64_MAX, not 0). */
static int64_t ovni_num(int64_t id)
{
	return id >= 0 ? id + 1 : id;
}

static int numbered(int64_t id)
{
	return id >= INT32_MIN && id < INT64_MAX;
}

static int open_stream(struct conv *cv, struct client *c)
{
	c->loom = loom_of(cv->r.p, c->id);
	c->dir = weft_xasprintf("%s/loom.node%lld/proc.%lld/thread.%lld", cv->outdir, (long long) c->loom,
				(long long) ovni_num(c->app->id), (long long) ovni_num(c->id));
	if (ow_open(&c->w, c->dir, cv->bufsize, cv->e))
		return -1;
	c->opened = 1;
	return 0;
}

/* An application or client id that names one: not the profile's sentinel
 * for "none", and one a stream can be numbered by. */
static int check_id(struct conv *cv, size_t off, int rt, const char *field, int64_t id, int client)
{
	const struct profile *p = cv->r.p;
	char rn[64];
	const char *what = client ? "client" : "application";
	if (client ? is_sentinel(&cv->r, id, T_CLIENTID, p->no_client_all, p->no_client)
		   : is_sentinel(&cv->r, id, T_APPID, p->no_app_all, p->no_app))
		return weft_fail(cv->e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field %s: %s %lld is the profile's value for "
				 "no %s (%s): expected the id of one",
				 cv->r.path, off, chp_rname(rt, p, rn, sizeof(rn)), field, what, (long long) id, what,
				 client ? "no_client" : "no_app");
	if (!numbered(id))
		return weft_fail(cv->e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field %s: %s %lld is out of the range weft "
				 "numbers streams with: expected %lld..%lld",
				 cv->r.path, off, chp_rname(rt, p, rn, sizeof(rn)), field, what, (long long) id,
				 (long long) INT32_MIN, (long long) INT64_MAX - 1);
	return 0;
}

/* Bind a client to an application (APP_LOAD's list, CLIENT_JOIN). */
static int bind(struct conv *cv, size_t off, int rt, struct app *a, const char *field, int64_t id, uint64_t t)
{
	if (check_id(cv, off, rt, "appl_id", a->id, 0) || check_id(cv, off, rt, field, id, 1))
		return -1;
	struct client *c = get_client(cv, id);
	char rn[64];
	if (c && c->app != a && chp_rname(rt, cv->r.p, rn, sizeof(rn)))
		return weft_fail(cv->e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field client_id: client %lld already "
				 "belongs to application %lld: expected application ids to stay with a client",
				 cv->r.path, off, rn, (long long) id, (long long) c->app->id);
	if (!c) {
		c = weft_xcalloc(1, sizeof(*c));
		c->id = id;
		c->app = a;
		HASH_ADD(hh, cv->clients, id, sizeof(c->id), c);
		index_client(cv, c);
		if (open_stream(cv, c))
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
	ev(cv, c, t, "FP+", NULL, 0);
	return 0;
}

static struct app *get_app(struct conv *cv, int64_t id, int create)
{
	struct app *a;
	HASH_FIND(hh, cv->apps, &id, sizeof(id), a);
	if (!a && create) {
		a = weft_xcalloc(1, sizeof(*a));
		a->id = id;
		a->index = ++cv->napps;
		HASH_ADD(hh, cv->apps, id, sizeof(a->id), a);
	}
	return a;
}

/* The client of field client_id (req < 0) or requests[req].client_id. */
static struct client *need_client(struct conv *cv, size_t off, int rt, int64_t req, int64_t id)
{
	struct client *c = get_client(cv, id);
	if (!c) {
		char rn[64], fn[64];
		if (req < 0)
			snprintf(fn, sizeof(fn), "client_id");
		else
			snprintf(fn, sizeof(fn), "requests[%lld].client_id", (long long) req);
		weft_fail(cv->e, WEFT_EINPUT,
			  "%s: byte offset %zu: record %s, field %s: client %lld is in no application "
			  "(expected an earlier APP_LOAD or CLIENT_JOIN naming it)",
			  cv->r.path, off, chp_rname(rt, cv->r.p, rn, sizeof(rn)), fn, (long long) id);
	}
	return c;
}

static struct app *need_app(struct conv *cv, size_t off, int rt, int64_t id)
{
	struct app *a = get_app(cv, id, 0);
	char rn[64];
	if (!a)
		weft_fail(cv->e, WEFT_EINPUT,
			  "%s: byte offset %zu: record %s, field appl_id: application %lld was never "
			  "loaded (expected an earlier APP_LOAD or CLIENT_JOIN)",
			  cv->r.path, off, chp_rname(rt, cv->r.p, rn, sizeof(rn)), (long long) id);
	return a;
}

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

/* Turn one record into events: the record at byte offset `off`, read at
 * `rec` (followed by at least 8 readable bytes) from a file of byte order
 * `be` (a constant: one copy of this function per byte order). */
static inline __attribute__((always_inline)) int handle(struct conv *cv, const uint8_t *rec, size_t off, int be)
{
	const struct rdr *r = &cv->r;
	const struct profile *p = r->p;
	int rt = (int) chf_get(rec, r->fl[1].rt, be);
	if (rt <= 0 || rt >= R_NBUILTIN)
		return 0; /* a machine-dependent record: sized and skipped (never queued) */
	const struct flay *fl = &r->fl[rt];
	char rn[64];
#define RN chp_rname(rt, p, rn, sizeof(rn)) /* for messages only */
#define F(key) chf_get(rec, fl->k[key], be)
	uint64_t t1 = chf_has(fl->k[K_T1]) ? (uint64_t) F(K_T1) : 0;
	uint64_t t2 = chf_has(fl->k[K_T2]) ? (uint64_t) F(K_T2) : t1;
	struct client *c;
	struct app *a;
	struct pl pl = {{0}, 0};
	switch (rt) {
	case R_LOAD: {
		a = get_app(cv, F(K_APP), 1);
		int64_t n = F(K_NC);
		for (int64_t i = 0; i < n; i++) {
			char field[48];
			snprintf(field, sizeof(field), "clients[%lld]", (long long) i);
			if (bind(cv, off, rt, a, field, chf_get(rec + fl->arr + i * fl->esize, fl->el_client, be), t1))
				return -1;
		}
		return 0;
	}
	case R_JOIN:
		return bind(cv, off, rt, get_app(cv, F(K_APP), 1), "client_id", F(K_CLIENT), t1);
	case R_EXIT:
	case R_LEAVE: {
		if (!(a = need_app(cv, off, rt, F(K_APP))))
			return -1;
		int64_t only = rt == R_LEAVE ? F(K_CLIENT) : 0;
		for (int i = 0; i < a->nmem; i++) {
			if (rt == R_LEAVE && a->mem[i]->id != only)
				continue;
			ev(cv, a->mem[i], t1, "FP-", NULL, 0);
			a->mem[i--] = a->mem[--a->nmem];
		}
		return 0;
	}
	case R_APPOPEN:
	case R_CLOPEN:
	case R_APPCLOSE:
	case R_CLCLOSE: {
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
			if (!(c = need_client(cv, off, rt, -1, F(K_CLIENT))))
				return -1;
			ev(cv, c, t1, mcv, pl.b, pl.n);
			return 0;
		}
		if (!(a = need_app(cv, off, rt, F(K_APP))))
			return -1;
		for (int i = 0; i < a->nmem; i++)
			ev(cv, a->mem[i], t1, mcv, pl.b, pl.n);
		return 0;
	}
	case R_RW: {
		int op = (int) F(K_OP);
		int async = op & 1, wr = op & 2;
		int64_t n = chf_has(fl->k[K_NC]) ? F(K_NC) : 1;
		int64_t aid = F(K_AID), fd = F(K_FD);
		if (!async && t2 < t1)
			return weft_fail(cv->e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field endtime: %llu ticks is before "
					 "starttime %llu: expected a request to end after it starts",
					 r->path, off, RN, (unsigned long long) t2, (unsigned long long) t1);
		if (!async && t2 > ticks_max(r)) /* (an asynchronous request's is unused) */
			return end_overflow(cv->e, r, off, RN, "endtime", t2);
		struct async_req *q = NULL;
		if (async) {
			int clientreq = (op & 4) || !chf_has(fl->k[K_APP]);
			struct akey k = {clientreq ? 0 : 1,
					 clientreq ? chf_get(rec + fl->arr, fl->rq_client, be) : F(K_APP), aid};
			struct async_req *old = at_find(&cv->async, k);
			if (old)
				return weft_fail(cv->e, WEFT_EINPUT,
						 "%s: byte offset %zu: record %s, field async_id: asynchronous "
						 "request %lld of %s %lld is already in flight (issued by the RW "
						 "record at byte offset %zu): expected an ASYNCH_END first",
						 r->path, off, RN, (long long) aid, old->k.kind ? "application" : "client",
						 (long long) old->k.who, old->off);
			q = at_add(&cv->async, k, n > 0 ? (size_t) n : 0);
			q->off = off;
		}
		uint64_t ns1 = to_ns(r, t1), ns2 = async ? 0 : to_ns(r, t2);
		uint32_t hreq = async ? (wr ? ow_head("FWa", 16) : ow_head("FRa", 16))
				      : (wr ? ow_head("FW[", 16) : ow_head("FR[", 16));
		uint32_t hdesc = async ? (wr ? ow_jumbo_head("FWA") : ow_jumbo_head("FRA"))
				       : (wr ? ow_jumbo_head("FWd") : ow_jumbo_head("FRd"));
		uint32_t hend = wr ? ow_head("FW]", 0) : ow_head("FR]", 0);
		const uint8_t *el = rec + fl->arr;
		for (int64_t i = 0; i < n; i++, el += fl->esize) {
			int64_t cid = chf_get(el, fl->rq_client, be);
			c = cid >= 0 && cid < cv->ndense ? cv->dense[cid] : NULL;
			if (!c && !(c = need_client(cv, off, rt, i, cid)))
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
				later(cv, c, ns2, hend, 0);
		}
		return 0;
	}
	case R_AEND: {
		int64_t cid = F(K_CLIENT), aid = F(K_AID), appl = F(K_APP);
		struct akey k = {0, cid, aid};
		int noc = is_sentinel(r, cid, T_CLIENTID, p->no_client_all, p->no_client);
		if (noc)
			k = (struct akey){1, appl, aid};
		struct async_req *q = at_find(&cv->async, k);
		if (!q)
			return weft_fail(cv->e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field async_id: no asynchronous "
					 "request %lld of %s %lld is in flight (expected an earlier asynchronous RW)",
					 r->path, off, RN, (long long) aid, noc ? "application" : "client",
					 (long long) (noc ? appl : cid));
		if (t2 > ticks_max(r))
			return end_overflow(cv->e, r, off, RN, "end_time", t2);
		uint64_t ns1 = to_ns(r, t1), end = to_ns(r, t2 > t1 ? t2 : t1);
		int32_t a32 = (int32_t) aid;
		for (size_t i = 0; i < q->ncl; i++) {
			c = q->cl[i];
			put(c, ns1, ow_head("FA[", 4), &a32, 4);
			later(cv, c, end, ow_head("FA]", 4), a32);
		}
		at_del(&cv->async, q);
		return 0;
	}
	case R_EXTEND:
	case R_TRUNC:
	case R_LINK:
	case R_UNLINK:
	case R_FCNTL: {
		if (!(c = need_client(cv, off, rt, -1, F(K_CLIENT))))
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
		ev(cv, c, t1, mcv, pl.b, pl.n);
		return 0;
	}
	}
#undef F
#undef RN
	return 0;
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

static int finish_streams(struct conv *cv, const struct header *h)
{
	int rc = 0;
	struct client *c, *tmp;
	/* loom names padded to the widest node number: ovni orders looms by
	 * name (strcmp), so node10 would come before node2 */
	int width = 1;
	HASH_ITER(hh, cv->clients, c, tmp) {
		int w = snprintf(NULL, 0, "%lld", (long long) (c->loom < 0 ? -c->loom : c->loom));
		if (c->opened && w > width)
			width = w;
	}
	HASH_ITER(hh, cv->clients, c, tmp) {
		if (!c->opened)
			continue;
		flush_pend(c, UINT64_MAX);
		if (ow_close(&c->w, cv->e))
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
		rc = ow_write_json(c->dir, json, cv->e);
		free(json);
		/* the Paraver header date is the oldest stream's: the trace's start_date */
		char *obs = weft_xasprintf("%s/stream.obs", c->dir);
		struct timeval tv[2] = {{(time_t) h->start_date, 0}, {(time_t) h->start_date, 0}};
		if (h->start_date > 0)
			utimes(obs, tv);
		free(obs);
	}
	return rc;
}

static void conv_free(struct conv *cv)
{
	struct client *c, *ct;
	HASH_ITER(hh, cv->clients, c, ct) {
		HASH_DEL(cv->clients, c);
		if (c->opened) {
			struct weft_err ig;
			ow_close(&c->w, &ig);
		}
		free(c->pq);
		free(c->dir);
		free(c);
	}
	free(cv->dense);
	cv->dense = NULL;
	free(cv->tail);
	cv->tail = NULL;
	cv->ndense = 0;
	struct app *a, *at;
	HASH_ITER(hh, cv->apps, a, at) {
		HASH_DEL(cv->apps, a);
		free(a->mem);
		free(a);
	}
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
	int64_t sz = record_size(&cv->r, off, rt, e);
	if (sz < 0)
		return -1;
	if (off + (size_t) sz + 8 > len && cv->tail_start > off)
		atomic_store_explicit(&cv->tail_start, off, memory_order_relaxed);
	if (rt < R_NBUILTIN) {
		const struct layout *l = &p->lay[rt];
		uint64_t t1, t2;
		record_times(&cv->r, l, off, &t1, &t2);
		if (p->t[T_TS].sgn && ((int64_t) t1 < 0 || (int64_t) t2 < 0))
			return weft_fail(e, WEFT_EINPUT, "%s: byte offset %zu: record %s, field %s: a negative time",
					 path, off, chp_rname(rt, p, rn, sizeof(rn)), l->f[1].name);
		if (t1 > ticks_max(&cv->r))
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
	uint64_t tmax = ticks_max(r);
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
	cv->e = cv->scan_e = e;
	cv->pipe = NULL;
	if (threads > 1) {
		if (!(cv->pipe = rp_start(cv->r.be ? piped_be : piped_le, cv, e)))
			return -1;
		cv->e = &handling;
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
		cv->e = e;
		if (hrc) {
			*e = handling;
			rc = -1;
		}
	}
	return rc;
}

static int charisma_detect(const uint8_t *d, size_t len)
{
	if (len < 8)
		return 0;
	static const uint8_t le[4] = {0x67, 0x45, 0x23, 0x01}, be[4] = {0x01, 0x23, 0x45, 0x67};
	return memcmp(d, le, 4) == 0 || memcmp(d, be, 4) == 0;
}

/* start_date in ns minus the header's timestamp in ns (the absolute time
 * of tick 0), or -1 when that does not fit 64 bits. */
static int origin_ns(const struct rdr *r, const struct header *h, int64_t *out)
{
	int64_t sd, ts;
	if (__builtin_mul_overflow(h->start_date, 1000000000ll, &sd))
		return -1;
	if (r->mul) {
		if (__builtin_mul_overflow(h->ts, r->mul, &ts))
			return -1;
	} else {
		long double v = (long double) h->ts * (long double) r->unit * 1e9L;
		if (!(v < 9.2e18L))
			return -1;
		ts = (int64_t) llroundl(v);
	}
	return __builtin_sub_overflow(sd, ts, out) ? -1 : 0;
}

static int charisma_convert(const char *path, struct mapfile *in, const struct import_opts *o, const char *outdir,
			    struct weft_err *e)
{
	const uint8_t *data = in->data;
	size_t len = in->size;
	struct conv cv = {0};
	cv.r.path = path;
	cv.r.d = data;
	cv.r.len = len;
	cv.in = in;
	cv.outdir = outdir;
	cv.e = e;
	if (len < 4 || !charisma_detect(data, len < 8 ? 8 : len)) {
		char found[32] = "";
		for (size_t i = 0; i < 4 && i < len; i++)
			snprintf(found + strlen(found), sizeof(found) - strlen(found), "%s%02x", i ? " " : "", data[i]);
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 0: field MAGIC: expected 67 45 23 01 (little-endian) or "
				 "01 23 45 67 (big-endian), found %s%s: not a CHARISMA trace",
				 path, len ? found : "nothing", len && len < 4 ? " (the file ends)" : "");
	}
	cv.r.be = data[0] == 0x01;
	const uint16_t one = 1;
	cv.r.swap = cv.r.be != (*(const uint8_t *) &one == 0);
	if (len < 8)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 4: field FORMAT_VERSION: the file ends after %zu bytes", path, len);
	uint64_t ver = cv.r.be ? (uint64_t) data[4] << 24 | data[5] << 16 | data[6] << 8 | data[7]
			       : (uint64_t) data[7] << 24 | data[6] << 16 | data[5] << 8 | data[4];
	if (ver != 1)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 4: field FORMAT_VERSION: expected 1, found %llu", path,
				 (unsigned long long) ver);
	struct profile prof;
	memset(&prof, 0, sizeof(prof));
	if (choose_profile(&cv.r, o, &prof, e)) {
		chp_free(&prof);
		return -1;
	}
	struct header h;
	char why[512];
	if (read_header(&cv.r, &h, 0, why, sizeof(why))) {
		chp_free(&prof);
		return weft_fail(e, WEFT_EINPUT, "%s: byte offset 8: record HEADER (0), %s (profile %s)", path,
				 why, prof.name);
	}
	cv.r.unit = h.unit;
	for (int k = 0; k < 10; k++)
		if (h.unit == pow10neg[k]) {
			cv.r.mul = 1;
			for (int j = k; j < 9; j++)
				cv.r.mul *= 10;
		}
	cv.r.margin = (size_t) chp_fast_layouts(&prof, cv.r.be, cv.r.fl) + 8;
	cv.tail_start = SIZE_MAX;
	cv.bufsize = 64u << 10;
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
		cv.napps = 0;
		cv.seq = 0;
		remove_tree(outdir);
		if (mkdir_p(outdir, e)) {
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
		if (!cv.clients)
			rc = weft_fail(e, WEFT_EINPUT, "%s: no client in the trace (no APP_LOAD or CLIENT_JOIN record)", path);
	}
	if (rc == 0)
		rc = finish_streams(&cv, &h);
	/* the header's timestamp is start_date: the absolute origin of the clocks */
	int64_t origin;
	if (rc == 0 && h.start_date > 0 && origin_ns(&cv.r, &h, &origin))
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
	charisma_detect,
	charisma_convert,
};
