/* SPDX-License-Identifier: GPL-3.0-or-later */
/* otf2_sink: the OTF2 sink (otf2_sink.h tells what it writes). This file
 * holds the sink's state and the change records' translation; the
 * archive's definitions are written by otf2_defs.c at the end. */
#include "otf2/otf2_int.h"

#include <stdlib.h>
#include <string.h>

#ifdef WEFT_OTF2

/* ---- strings, regions, metrics: refs made on first use ------------------- */

uint32_t o2_string(struct o2 *o, const char *text)
{
	struct o2_str *x;
	HASH_FIND_STR(o->strs, text, x);
	if (x)
		return x->ref;
	x = weft_xcalloc(1, sizeof(*x));
	x->text = weft_xstrdup(text);
	x->ref = o->nstrs++;
	HASH_ADD_KEYPTR(hh, o->strs, x->text, strlen(x->text), x);
	return x->ref;
}

static uint32_t o2_region(struct o2 *o, int set, int chan, int64_t value)
{
	struct o2_region key = {0}, *r;
	key.k.set = set;
	key.k.chan = chan;
	key.k.value = value;
	HASH_FIND(hh, o->regions, &key.k, sizeof(key.k), r);
	if (r)
		return r->ref;
	r = weft_xcalloc(1, sizeof(*r));
	r->k = key.k;
	r->ref = o->nregions++;
	HASH_ADD(hh, o->regions, k, sizeof(r->k), r);
	return r->ref;
}

static uint32_t o2_metric(struct o2 *o, int set, int chan)
{
	uint32_t *m = &o->set[set].metric[chan];
	if (!*m) {
		if (o->nmetrics == o->capmetrics) {
			o->capmetrics = o->capmetrics ? 2 * o->capmetrics : 16;
			o->metric_of = weft_xrealloc(o->metric_of, o->capmetrics * sizeof(*o->metric_of));
		}
		o->metric_of[o->nmetrics].set = set;
		o->metric_of[o->nmetrics].chan = chan;
		*m = ++o->nmetrics;
	}
	return *m - 1;
}

/* ---- locations ------------------------------------------------------------ */

static uint32_t o2_loc_new(struct o2 *o, int set, int row, int chan)
{
	if (o->nlocs == o->caplocs) {
		o->caplocs = o->caplocs ? 2 * o->caplocs : 64;
		o->locs = weft_xrealloc(o->locs, o->caplocs * sizeof(*o->locs));
	}
	struct o2_loc *l = &o->locs[o->nlocs];
	memset(l, 0, sizeof(*l));
	l->set = set;
	l->row = row;
	l->chan = chan;
	l->w = OTF2_Archive_GetEvtWriter(o->archive, o->nlocs);
	if (!l->w && !o->failed)
		o2_fail(o, "cannot make the event writer of location %u", o->nlocs);
	return o->nlocs++;
}

/* The location of state channel `chan` of a row, made on its first record. */
static uint32_t o2_chan_loc(struct o2 *o, int set, int row, int chan)
{
	struct o2_set *s = &o->set[set];
	uint32_t *p = &s->chan_loc[(size_t) row * s->nchan + chan];
	if (!*p)
		*p = o2_loc_new(o, set, row, chan) + 1;
	return *p - 1;
}

/* ---- writing events, or queueing them behind an unanswered send ----------- */

static void o2_put(struct o2 *o, uint32_t loc, const struct o2_ev *ev);

static void o2_write(struct o2 *o, struct o2_loc *l, const struct o2_ev *ev)
{
	OTF2_ErrorCode rc = OTF2_SUCCESS;
	OTF2_Type type = OTF2_TYPE_INT64;
	OTF2_MetricValue v;
	if (!l->w)
		return;
	switch (ev->kind) {
	case O2_ENTER:
		rc = OTF2_EvtWriter_Enter(l->w, NULL, ev->time, (OTF2_RegionRef) ev->a);
		break;
	case O2_LEAVE:
		rc = OTF2_EvtWriter_Leave(l->w, NULL, ev->time, (OTF2_RegionRef) ev->a);
		break;
	case O2_METRIC:
		v.signed_int = ev->b;
		rc = OTF2_EvtWriter_Metric(l->w, NULL, ev->time, (OTF2_MetricRef) ev->a, 1, &type, &v);
		break;
	case O2_SEND:
		if (ev->peer != O2_DROPPED)
			rc = OTF2_EvtWriter_MpiSend(l->w, NULL, ev->time, ev->peer, 0, ev->tag, (uint64_t) ev->b);
		break;
	case O2_RECV:
		rc = OTF2_EvtWriter_MpiRecv(l->w, NULL, ev->time, ev->peer, 0, ev->tag, (uint64_t) ev->b);
		break;
	}
	if (rc != OTF2_SUCCESS && !o->failed)
		o2_fail(o, "writing an event of location %u: %s", (unsigned) (l - o->locs),
			OTF2_Error_GetDescription(rc));
}

/* Write the queue's head while it holds no send still waiting. */
static void o2_drain(struct o2 *o, struct o2_loc *l)
{
	while (l->qhead < l->qn) {
		struct o2_ev *ev = &l->q[l->qhead];
		if (ev->kind == O2_SEND && ev->peer == O2_WAITING)
			break;
		o2_write(o, l, ev);
		l->qhead++;
	}
	if (l->qhead == l->qn) {
		l->qbase += l->qhead;
		l->qhead = l->qn = 0;
	} else if (l->qhead > 4096 && l->qhead > l->qn / 2) {
		memmove(l->q, l->q + l->qhead, (l->qn - l->qhead) * sizeof(*l->q));
		l->qbase += l->qhead;
		l->qn -= l->qhead;
		l->qhead = 0;
	}
}

/* Queue ev at location loc; its sequence number (for a send to be answered). */
static uint64_t o2_queue(struct o2 *o, uint32_t loc, const struct o2_ev *ev)
{
	struct o2_loc *l = &o->locs[loc];
	(void) o;
	if (l->qn == l->qcap) {
		l->qcap = l->qcap ? 2 * l->qcap : 64;
		l->q = weft_xrealloc(l->q, l->qcap * sizeof(*l->q));
	}
	l->q[l->qn] = *ev;
	return l->qbase + l->qn++;
}

static void o2_put(struct o2 *o, uint32_t loc, const struct o2_ev *ev)
{
	struct o2_loc *l = &o->locs[loc];
	if (l->qn == l->qhead)
		o2_write(o, l, ev);
	else
		o2_queue(o, loc, ev);
}

/* ---- communications --------------------------------------------------------- */

static struct o2_comm *o2_comm_at(struct o2 *o, uint64_t id)
{
	if (id < o->comm_lo || id >= o->comm_lo + o->ncomm)
		return NULL;
	return &o->comm[id - o->comm_lo];
}

static void o2_send(struct o2 *o, uint32_t row, int64_t tag, int64_t size)
{
	uint64_t id = o->next_comm++;
	if (o->ncomm == o->capcomm) {
		o->capcomm = o->capcomm ? 2 * o->capcomm : 256;
		o->comm = weft_xrealloc(o->comm, o->capcomm * sizeof(*o->comm));
	}
	struct o2_ev ev = {.kind = O2_SEND, .time = o->now, .b = size, .tag = (uint32_t) tag, .peer = O2_WAITING};
	struct o2_comm *c = &o->comm[o->ncomm++];
	(void) id;
	c->loc = row;
	c->seq = o2_queue(o, row, &ev);
	c->open = 1;
	c->tag = (uint32_t) tag;
	c->size = size;
}

/* Comm `id` is answered: received by thread row `rcv` (O2_DROPPED: never). */
static void o2_answer(struct o2 *o, uint64_t id, uint32_t rcv)
{
	struct o2_comm *c = o2_comm_at(o, id);
	if (!c || !c->open)
		return;
	struct o2_loc *l = &o->locs[c->loc];
	l->q[c->seq - l->qbase].peer = rcv;
	c->open = 0;
	o2_drain(o, l);
	size_t k = 0;
	while (k < o->ncomm && !o->comm[k].open)
		k++;
	if (k > 1024 && k > o->ncomm / 2) {
		memmove(o->comm, o->comm + k, (o->ncomm - k) * sizeof(*o->comm));
		o->ncomm -= k;
		o->comm_lo += k;
	}
}

static void o2_recv(struct o2 *o, uint32_t row, uint64_t id)
{
	struct o2_comm *c = o2_comm_at(o, id);
	if (!c || !c->open || row >= (uint32_t) o->set[SINK_THREADS].nrows)
		return;
	struct o2_ev ev = {.kind = O2_RECV, .time = o->now, .b = c->size, .tag = c->tag, .peer = c->loc};
	o2_answer(o, id, row);
	o2_put(o, row, &ev);
}

/* ---- the change records ------------------------------------------------------ */

static void o2_state(struct o2 *o, int set, uint32_t row, int64_t value)
{
	uint32_t *cur = &o->set[set].state[row];
	if ((uint32_t) value == *cur)
		return;
	uint32_t loc = o->set[set].first_loc + row;
	if (*cur) {
		struct o2_ev ev = {.kind = O2_LEAVE, .time = o->now, .a = o2_region(o, set, -1, *cur)};
		o2_put(o, loc, &ev);
	}
	if (value) {
		struct o2_ev ev = {.kind = O2_ENTER, .time = o->now, .a = o2_region(o, set, -1, value)};
		o2_put(o, loc, &ev);
	}
	*cur = (uint32_t) value;
}

/* A value of channel chan on row: `always` 1 for a PUT record. */
static void o2_value(struct o2 *o, int set, uint32_t row, uint16_t chan, int64_t value, int always)
{
	struct o2_set *s = &o->set[set];
	if (chan >= s->nchan || row >= (uint32_t) s->nrows)
		return;
	const struct sink_channel *ch = &s->rs->channels[chan];
	size_t k = (size_t) row * s->nchan + chan;
	int seen = s->seen[k];
	int64_t last = seen ? s->last[k] : 0;
	if (!always && (seen || !ch->fresh) && value == last)
		return;
	s->seen[k] = 1;
	s->last[k] = value;
	if (ch->kind != SINK_STATE) {
		struct o2_ev ev = {.kind = O2_METRIC, .time = o->now, .a = o2_metric(o, set, chan), .b = value};
		o2_put(o, s->first_loc + row, &ev);
		return;
	}
	if (!last && !value)
		return;
	uint32_t loc = o2_chan_loc(o, set, (int) row, chan);
	if (last) {
		struct o2_ev ev = {.kind = O2_LEAVE, .time = o->now, .a = o2_region(o, set, chan, last)};
		o2_write(o, &o->locs[loc], &ev);
	}
	if (value) {
		struct o2_ev ev = {.kind = O2_ENTER, .time = o->now, .a = o2_region(o, set, chan, value)};
		o2_write(o, &o->locs[loc], &ev);
	}
}

static void o2_change(struct o2 *o, const struct sink_change *c)
{
	int set = c->set;
	if (set >= SINK_NROWSETS && c->kind != SINK_CH_TIME)
		return; /* a set of Paraver's own (the -b breakdown traces) */
	switch (c->kind) {
	case SINK_CH_TIME:
		o->now = (uint64_t) c->value;
		break;
	case SINK_CH_STATE:
		if (c->row < (uint32_t) o->set[set].nrows)
			o2_state(o, set, c->row, c->value);
		break;
	case SINK_CH_SET:
	case SINK_CH_PUT:
		o2_value(o, set, c->row, c->chan, c->value, c->kind == SINK_CH_PUT);
		break;
	case SINK_CH_ARG:
		if (o->narg < 4)
			o->arg[o->narg++] = c->value;
		return; /* operands stay for the next record */
	case SINK_CH_SEND:
		if (c->row < (uint32_t) o->set[SINK_THREADS].nrows)
			o2_send(o, c->row, c->value, 0);
		break;
	case SINK_CH_SEND_ARGS:
		if (c->row < (uint32_t) o->set[SINK_THREADS].nrows)
			o2_send(o, c->row, c->value, o->narg > 1 ? o->arg[1] : 0);
		break;
	case SINK_CH_RECV:
	case SINK_CH_RECV_ARGS:
		o2_recv(o, c->row, (uint64_t) c->value);
		break;
	case SINK_CH_DROP:
		o2_answer(o, (uint64_t) c->value, O2_DROPPED);
		break;
	default: /* CPU, PSEND and kinds this sink does not know */
		break;
	}
	o->narg = 0;
}

static void o2_changes(struct sink *sk, const struct sink_change *c, size_t n)
{
	struct o2 *o = sk->self;
	if (o->failed || !o->archive)
		return;
	for (size_t i = 0; i < n; i++)
		o2_change(o, &c[i]);
}

/* ---- begin, end ---------------------------------------------------------------- */

static OTF2_FlushType o2_pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cb, bool final)
{
	(void) ud, (void) ft, (void) loc, (void) cb, (void) final;
	return OTF2_FLUSH;
}

/* ---- OTF2's chunks ---------------------------------------------------------------
 * Left to itself OTF2 pools up to 128 MiB of chunks a writer and flushes
 * only then: a run's whole archive stays in memory to the end (205 MiB on
 * a 5 M-event trace, performance.md). Here an event writer holds at most
 * O2_LOC_CHUNKS chunks: the next request gets NULL, OTF2 flushes that
 * writer to its file (o2_pre_flush) and hands its chunks back, and later
 * requests reuse them as they are (a chunk is OTF2's to fill, never read
 * before it is written). Other writers (definitions) get what they ask. */
#define O2_EVT_CHUNK (256 * 1024)
#define O2_LOC_CHUNKS 4

struct o2_chunks {
	void **c;
	int n, cap;
	uint64_t size;
};

static void *o2_chunk_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd, uint64_t size)
{
	struct o2 *o = ud;
	(void) loc;
	struct o2_chunks *b = *pbd;
	if (!b)
		b = *pbd = weft_xcalloc(1, sizeof(*b));
	if (ft == OTF2_FILETYPE_EVENTS && b->n >= O2_LOC_CHUNKS)
		return NULL; /* this writer flushes first */
	void *c = size == O2_EVT_CHUNK && o->nspare ? o->spare[--o->nspare] : malloc(size);
	if (!c)
		return NULL;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : O2_LOC_CHUNKS;
		b->c = weft_xrealloc(b->c, (size_t) b->cap * sizeof(*b->c));
	}
	b->c[b->n++] = c;
	b->size = size;
	return c;
}

static void o2_chunk_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd, bool final)
{
	struct o2 *o = ud;
	(void) ft, (void) loc;
	struct o2_chunks *b = *pbd;
	if (!b)
		return;
	for (int i = 0; i < b->n; i++) {
		if (b->size != O2_EVT_CHUNK) {
			free(b->c[i]);
			continue;
		}
		if (o->nspare == o->capspare) {
			o->capspare = o->capspare ? 2 * o->capspare : 64;
			o->spare = weft_xrealloc(o->spare, o->capspare * sizeof(*o->spare));
		}
		o->spare[o->nspare++] = b->c[i];
	}
	b->n = 0;
	if (final) {
		free(b->c);
		free(b);
		*pbd = NULL;
	}
}

static int o2_begin(struct sink *sk, const struct sink_layout *lay, struct weft_err *err)
{
	struct o2 *o = sk->self;
	/* no post-flush: a flush writes no record (a writer's queued sends
	 * are written later with earlier times) */
	static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = o2_pre_flush, .otf2_post_flush = NULL};
	static const OTF2_MemoryCallbacks mem = {.otf2_allocate = o2_chunk_alloc, .otf2_free_all = o2_chunk_free_all};
	o->lay = lay;
	const char *p = outset_add(&o->out, O2_ARCHIVE ".otf2");
	char *stage = weft_xstrdup(p);
	*strrchr(stage, '/') = '\0';
	o->archive = OTF2_Archive_Open(stage, O2_ARCHIVE, OTF2_FILEMODE_WRITE, O2_EVT_CHUNK, 4 * 1024 * 1024,
				       OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	free(stage);
	if (!o->archive)
		return weft_fail(err, WEFT_EINPUT, "%s: cannot create the OTF2 archive", o->out.dir);
	OTF2_Archive_SetFlushCallbacks(o->archive, &flush, o);
	OTF2_Archive_SetMemoryCallbacks(o->archive, &mem, o);
	OTF2_Archive_SetSerialCollectiveCallbacks(o->archive);
	OTF2_Archive_SetCreator(o->archive, "weft " WEFT_VERSION);
	OTF2_Archive_OpenEvtFiles(o->archive);
	for (int s = 0; s < SINK_NROWSETS; s++) {
		struct o2_set *x = &o->set[s];
		x->rs = &lay->set[s];
		x->nrows = x->rs->nrows;
		x->nchan = x->rs->nchannels;
		size_t n = (size_t) x->nrows * (x->nchan ? x->nchan : 1);
		x->last = weft_xcalloc(n, sizeof(*x->last));
		x->seen = weft_xcalloc(n, 1);
		x->chan_loc = weft_xcalloc(n, sizeof(*x->chan_loc));
		x->state = weft_xcalloc(x->nrows ? x->nrows : 1, sizeof(*x->state));
		x->metric = weft_xcalloc(x->nchan ? x->nchan : 1, sizeof(*x->metric));
	}
	/* the rows' own locations first: thread row r is location r (and rank r
	 * of the communicator), CPU row c location nthreads + c */
	for (int s = 0; s < SINK_NROWSETS; s++) {
		o->set[s].first_loc = o->nlocs;
		for (int r = 0; r < o->set[s].nrows; r++)
			o2_loc_new(o, s, r, -1);
	}
	if (o->failed)
		return weft_fail(err, WEFT_EINPUT, "%s: %s", o->out.dir, o->why);
	return 0;
}

static int o2_end(struct sink *sk, int ok, uint64_t ftime, struct weft_err *err)
{
	struct o2 *o = sk->self;
	if (!ok || !o->archive || o->failed) {
		if (o->archive)
			OTF2_Archive_Close(o->archive);
		o->archive = NULL;
		outset_abort(&o->out);
		if (ok && o->failed)
			return weft_fail(err, WEFT_EINPUT, "%s: %s", o->out.dir, o->why);
		return 0;
	}
	o->now = ftime;
	/* sends never answered are not written; what waited behind them is */
	for (size_t k = 0; k < o->ncomm; k++)
		if (o->comm[k].open)
			o2_answer(o, o->comm_lo + k, O2_DROPPED);
	for (uint32_t l = 0; l < o->nlocs; l++)
		o2_drain(o, &o->locs[l]);
	o->ftime = ftime;
	if (o2_defs(o) < 0 || o->failed) {
		OTF2_Archive_Close(o->archive);
		o->archive = NULL;
		outset_abort(&o->out);
		return weft_fail(err, WEFT_EINPUT, "%s: %s", o->out.dir, o->why);
	}
	o->archive = NULL;
	if (o2_files(o, err) < 0) {
		outset_abort(&o->out);
		return -1;
	}
	return outset_commit(&o->out, err);
}

static void o2_free(struct sink *sk)
{
	struct o2 *o = sk->self;
	struct o2_str *x, *xt;
	struct o2_region *r, *rt;
	if (o->archive)
		OTF2_Archive_Close(o->archive);
	outset_abort(&o->out);
	HASH_ITER(hh, o->strs, x, xt)
	{
		HASH_DEL(o->strs, x);
		free(x->text);
		free(x);
	}
	HASH_ITER(hh, o->regions, r, rt)
	{
		HASH_DEL(o->regions, r);
		free(r);
	}
	for (uint32_t l = 0; l < o->nlocs; l++)
		free(o->locs[l].q);
	free(o->locs);
	for (int s = 0; s < SINK_NROWSETS; s++) {
		free(o->set[s].last);
		free(o->set[s].seen);
		free(o->set[s].chan_loc);
		free(o->set[s].state);
		free(o->set[s].metric);
	}
	free(o->comm);
	free(o->metric_of);
	for (size_t i = 0; i < o->nspare; i++)
		free(o->spare[i]);
	free(o->spare);
	free(o);
	free(sk);
}

void o2_fail(struct o2 *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	o->failed = 1;
}

int otf2_sink_available(void)
{
	return 1;
}

struct sink *otf2_sink_new(const char *dir, struct weft_err *err)
{
	struct o2 *o = weft_xcalloc(1, sizeof(*o));
	if (outset_open(&o->out, dir, err) < 0) {
		free(o);
		return NULL;
	}
	struct sink *sk = weft_xcalloc(1, sizeof(*sk));
	sk->name = "otf2";
	sk->self = o;
	sk->begin = o2_begin;
	sk->changes = o2_changes;
	sk->end = o2_end;
	sk->free = o2_free;
	return sk;
}

#else /* !WEFT_OTF2 */

int otf2_sink_available(void)
{
	return 0;
}

struct sink *otf2_sink_new(const char *dir, struct weft_err *err)
{
	weft_fail(err, WEFT_EINPUT,
		  "--otf2 %s: this weft was built without OTF2 (install libopen-trace-format2-dev, "
		  "e.g. with 'make deps', and build again)",
		  dir);
	return NULL;
}

#endif
