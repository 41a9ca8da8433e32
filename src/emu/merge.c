/* SPDX-License-Identifier: GPL-3.0-or-later */
/* merge: ovniemu's heap over all streams, instants grouped by loom (see merge.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "emu/merge.h"
#include "trace/system.h"

/* ---- a loom's heap: merge.h has its steps ------------------------------------------ */

/* Whether putting a stream earlier than all in the heap back, then taking
 * the top, leaves the heap as it is. The stream goes in at leaf n and rises
 * to the root; the path's entries move one down; the take moves the leaf's
 * new entry y (the old parent of leaf n) to the root and down again. y
 * comes back to its slot, and each path entry to its own, when at each
 * node on the way the path's entry is strictly earlier than y and, where
 * the path goes right, strictly earlier than its left sibling whenever that
 * one is earlier than y (else the sibling is taken). */
int merge_same(const struct merge_loom *l)
{
	const struct merge_ent *h = l->heap;
	if (l->n == 0)
		return 1;
	size_t q = ((size_t) l->n - 1) >> 1;
	uint64_t y = h[q].time;
	while (q > 0) {
		size_t par = (q - 1) >> 1;
		uint64_t tp = h[par].time;
		if (!(tp < y))
			return 0;
		if (!(q & 1)) {
			uint64_t ts = h[q - 1].time;
			if (ts < y && !(tp < ts))
				return 0;
		}
		q = par;
	}
	return 1;
}

void merge_path(struct merge_loom *l)
{
	l->depth = 0;
	for (int n = l->n; n > 1; n >>= 1)
		l->depth++;
	l->pathk = 0;
	if (l->n <= 2)
		return;
	l->q0 = ((size_t) l->n - 1) >> 1;
	l->pq0 = (l->q0 - 1) >> 1;
	l->pathk = 1;
	for (size_t q = l->q0; q > 0; q = (q - 1) >> 1)
		if (!(q & 1))
			l->pathk = 2;
}

/* ---- the streams' looms ------------------------------------------------------------ */

static int by_index(const void *a, const void *b)
{
	const struct weft_stream *x = *(struct weft_stream *const *) a, *y = *(struct weft_stream *const *) b;
	return (x->index > y->index) - (x->index < y->index);
}

static int loom_gindex(const struct weft_stream *s)
{
	return s->thread && s->thread->proc && s->thread->proc->loom ? s->thread->proc->loom->gindex : -1;
}

/* Each stream's loom rank (in first stream order; a stream without a loom
 * has one of its own), by its place in the array given. */
static void rank_looms(struct weft_stream **by, int n)
{
	int maxg = -1, nl = 0;
	for (int i = 0; i < n; i++)
		if (loom_gindex(by[i]) > maxg)
			maxg = loom_gindex(by[i]);
	int *of = weft_xmalloc(((size_t) maxg + 2) * sizeof(*of));
	for (int g = 0; g <= maxg; g++)
		of[g] = -1;
	for (int i = 0; i < n; i++) {
		int g = loom_gindex(by[i]);
		int *r = &by[i]->merge_rank;
		if (g < 0)
			*r = nl++;
		else {
			if (of[g] < 0)
				of[g] = nl++;
			*r = of[g];
		}
	}
	free(of);
}

int merge_init_part(struct weft_merge *m, struct weft_stream *streams, int n, int lo, int hi, struct weft_err *e)
{
	memset(m, 0, sizeof(*m));
	m->base = streams;
	m->nstreams = n;
	m->lo = lo;
	m->hi = hi;
	m->by_loom = 1;
	for (int i = 0; i < n; i++)
		streams[i].merge_foreign = i < lo || i >= hi;
	struct weft_stream **by = weft_xcalloc((size_t) (n ? n : 1), sizeof(*by));
	int nby = 0;
	for (int i = 0; i < n; i++) {
		struct weft_stream *s = &streams[i];
		if (!s->active)
			continue;
		int r = stream_next(s, e);
		if (r < 0) {
			free(by);
			return -1;
		}
		if (r > 0)
			by[nby++] = s;
	}
	qsort(by, (size_t) nby, sizeof(*by), by_index);
	m->stack = weft_xcalloc((size_t) n + 1, sizeof(*m->stack));
	for (int i = 0; i < n; i++)
		streams[i].merge_rank = 0;
	rank_looms(by, nby);
	size_t slots = 2 * (size_t) nby + 2; /* sentinels up to slot 2n + 1 */
	m->g.heap = weft_xcalloc(slots, sizeof(*m->g.heap));
	for (size_t i = 0; i < slots; i++)
		m->g.heap[i].time = UINT64_MAX;
	/* the streams in, in index order (ovniemu loads them in path order),
	 * and the first taken */
	for (int i = 0; i < nby; i++)
		merge_put(&m->g, by[i]);
	free(by);
	m->pend = m->g.n ? merge_take(&m->g) : NULL;
	return 0;
}

int merge_init(struct weft_merge *m, struct weft_stream *streams, int n, struct weft_err *e)
{
	return merge_init_part(m, streams, n, 0, n, e);
}

static int own(const struct weft_stream *s)
{
	return !s->merge_foreign;
}

/* Does an own stream of a loom ranked before `rank` wait in the heap with
 * an event at time t (the heap's top is at t or later)? The entries at t
 * are a subtree at the root. */
static int tie_before(struct weft_merge *m, uint64_t t, int rank)
{
	const struct merge_ent *h = m->g.heap;
	unsigned n = (unsigned) m->g.n;
	if (n == 0 || h[0].time != t)
		return 0;
	int sp = 0;
	m->stack[sp++] = 0;
	while (sp) {
		unsigned i = (unsigned) m->stack[--sp];
		if (h[i].s->merge_rank < rank && own(h[i].s))
			return 1;
		for (unsigned c = 2 * i + 1; c <= 2 * i + 2 && c < n; c++)
			if (h[c].time == t)
				m->stack[sp++] = (int) c;
	}
	return 0;
}

/* Stream x was returned: step it, put it back and take the top as ovniemu
 * does; the top is the next pending stream. 0 or -1. */
static int advance(struct weft_merge *m, struct weft_stream *x, struct weft_err *e)
{
	int r = stream_next(x, e);
	if (r < 0) {
		m->pend = NULL;
		return -1;
	}
	uint64_t tx;
	m->pend = r > 0 ? merge_put_take(&m->g, x, &tx) : m->g.n ? merge_take(&m->g) : NULL;
	return 0;
}

/* Foreign stream x was taken: its times only, while ovniemu would take it
 * again (no heap step), then back into the heap and the top out as the next
 * pending stream. 0 or -1. */
static int skip(struct weft_merge *m, struct weft_stream *x, struct weft_err *e)
{
	struct merge_loom *g = &m->g;
	int r;
	while ((r = stream_skip(x, e)) > 0 && merge_again(g, x->ev.time))
		;
	if (r < 0) {
		m->pend = NULL;
		return -1;
	}
	uint64_t tx;
	m->pend = r > 0 ? merge_put_take(g, x, &tx) : g->n ? merge_take(g) : NULL;
	return 0;
}

/* The read-ahead events' order: by loom rank, stable (a loom's events keep
 * ovniemu's order); indexes move, not the copies. */
static void sort_buf(struct weft_merge *m)
{
	const struct merge_buf *b = m->buf;
	uint32_t *o = m->ord;
	for (int i = 0; i < m->nbuf; i++) {
		uint32_t x = (uint32_t) i;
		int j = i;
		while (j > 0 && b[o[j - 1]].rank > b[x].rank) {
			o[j] = o[j - 1];
			j--;
		}
		o[j] = x;
	}
}

/* Read ahead every event of time t from pending stream x on: the own ones
 * into the buffer. An error on the way is kept for when the buffer has been
 * returned. */
static void read_instant(struct weft_merge *m, struct weft_stream *x, uint64_t t)
{
	m->nbuf = m->ibuf = 0;
	while (x && x->ev.time == t) {
		if (own(x)) {
			if (m->nbuf == m->capbuf) {
				m->capbuf = m->capbuf ? 2 * m->capbuf : 16;
				m->buf = weft_xrealloc(m->buf, (size_t) m->capbuf * sizeof(*m->buf));
				m->ord = weft_xrealloc(m->ord, (size_t) m->capbuf * sizeof(*m->ord));
			}
			struct merge_buf *b = &m->buf[m->nbuf++];
			b->ev = x->ev;
			b->rank = x->merge_rank;
			if (!x->ev.jumbo && x->ev.payload_len && x->ev.payload_len <= sizeof(b->pl))
				memcpy(b->pl, x->ev.payload, x->ev.payload_len);
		}
		if ((own(x) ? advance(m, x, &m->err) : skip(m, x, &m->err)) < 0) {
			m->err_pending = 1;
			break;
		}
		x = m->pend;
	}
	sort_buf(m);
}

/* The general step: the stream last returned was stepped (`r`: 1 it has an
 * event, 0 it ended) and not put back, or it is already back (m->step
 * NULL); then the buffer, else the pending stream's event. */
static int follow_next(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e);

/* The next read-ahead event (m->ibuf < m->nbuf), its payload pointing at
 * its own copy (the buffer may have moved while it grew). */
static inline int buf_next(struct weft_merge *m, struct weft_ev **ev)
{
	struct merge_buf *b = &m->buf[m->ord[m->ibuf++]];
	if (!b->ev.jumbo && b->ev.payload_len)
		b->ev.payload = b->pl;
	m->cur = b->ev.stream;
	*ev = &b->ev;
	return 1;
}

static __attribute__((noinline)) int next_general(struct weft_merge *m, int r, struct weft_ev **ev, struct weft_err *e)
{
	if (m->share)
		return follow_next(m, ev, e);
	struct merge_loom *g = &m->g;
	if (m->step) {
		struct weft_stream *s = m->step;
		m->step = NULL;
		uint64_t tx;
		m->pend = r > 0 ? merge_put_take(g, s, &tx) : g->n ? merge_take(g) : NULL;
	}
	if (m->ibuf < m->nbuf)
		return buf_next(m, ev);
	m->nbuf = m->ibuf = 0;
	if (m->err_pending) {
		m->err_pending = 0;
		*e = m->err;
		return -1;
	}
	struct weft_stream *x = m->pend;
	/* foreign streams: only stepped */
	for (; x && x->merge_foreign; x = m->pend)
		if (skip(m, x, e) < 0)
			return -1;
	if (!x)
		return 0;
	uint64_t t = x->ev.time;
	if (!m->by_loom || g->heap[0].time != t || !tie_before(m, t, x->merge_rank)) {
		m->pend = NULL;
		m->step = m->cur = x;
		*ev = &x->ev;
		return 1;
	}
	/* a loom ranked before x's has events at t still to come */
	read_instant(m, x, t);
	if (m->nbuf == 0) {
		m->err_pending = 0;
		*e = m->err;
		return -1;
	}
	return buf_next(m, ev);
}

/* An instant read ahead is returned from here, with no frame of the
 * general step's (a third of CHARISMA's events come this way). */
int merge_next_slow(struct weft_merge *m, int r, struct weft_ev **ev, struct weft_err *e)
{
	if (m->ibuf < m->nbuf && !m->step && !m->share)
		return buf_next(m, ev);
	return next_general(m, r, ev, e);
}

/* ---- -j: the heap's steps taken once (merge.h) ---------------------------- */

#define SHARE_CHUNK (1u << 16) /* entries of a chunk */
#define MERGE_SHARE_AHEAD 8 /* chunks the thread may be ahead of the furthest follower */
enum { SEQ_ERR = 0xfffffffeu, SEQ_END = 0xffffffffu };

struct share_ent {
	uint32_t k;
	int rank;
};

struct merge_share {
	struct weft_merge *m; /* the heap and cursors the thread steps */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t more, room; /* followers wait for more, the thread for room */
	uint32_t **chunk; /* by number; NULL once freed */
	uint64_t cap, made, freed; /* slots of chunk[]; chunks written; below this freed */
	uint32_t *spare;
	int nf;
	uint64_t *pos; /* each follower's next chunk */
	int *gone;
	struct weft_err err; /* the error a step met (the sequence's SEQ_ERR) */
	/* the thread's own: the chunk it writes, an instant read ahead */
	uint32_t *w;
	uint32_t nw;
	struct share_ent *inst;
	size_t ninst, capinst;
};

/* Before the thread writes chunk `made`: the chunks no follower needs
 * freed, and room. -1: every follower has left. */
static int share_room(struct merge_share *sh)
{
	pthread_mutex_lock(&sh->mu);
	int rc = 0;
	for (;;) {
		uint64_t lo = sh->made, hi = 0;
		int active = 0;
		for (int k = 0; k < sh->nf; k++) {
			if (sh->gone[k])
				continue;
			active = 1;
			lo = sh->pos[k] < lo ? sh->pos[k] : lo;
			hi = sh->pos[k] > hi ? sh->pos[k] : hi;
		}
		for (; sh->freed < lo && sh->freed < sh->made; sh->freed++) {
			if (!sh->spare)
				sh->spare = sh->chunk[sh->freed];
			else
				free(sh->chunk[sh->freed]);
			sh->chunk[sh->freed] = NULL;
		}
		if (!active) {
			rc = -1;
			break;
		}
		if (sh->made < hi + MERGE_SHARE_AHEAD)
			break;
		pthread_cond_wait(&sh->room, &sh->mu);
	}
	if (rc == 0) {
		sh->w = sh->spare ? sh->spare : weft_xmalloc(SHARE_CHUNK * sizeof(*sh->w));
		sh->spare = NULL;
		sh->nw = 0;
	}
	pthread_mutex_unlock(&sh->mu);
	return rc;
}

static void share_publish(struct merge_share *sh)
{
	pthread_mutex_lock(&sh->mu);
	if (sh->made == sh->cap) {
		sh->cap = sh->cap ? 2 * sh->cap : 64;
		sh->chunk = weft_xrealloc(sh->chunk, sh->cap * sizeof(*sh->chunk));
	}
	sh->chunk[sh->made++] = sh->w;
	sh->w = NULL;
	pthread_cond_broadcast(&sh->more);
	pthread_mutex_unlock(&sh->mu);
}

/* One entry of the sequence; -1: every follower has left. */
static inline int share_emit(struct merge_share *sh, uint32_t v)
{
	if (__builtin_expect(sh->nw == SHARE_CHUNK, 0)) {
		share_publish(sh);
		if (share_room(sh) < 0)
			return -1;
	}
	sh->w[sh->nw++] = v;
	return 0;
}

/* The thread: merge_next's order over the times only. */
static void *share_main(void *arg)
{
	struct merge_share *sh = arg;
	struct weft_merge *m = sh->m;
	struct merge_loom *g = &m->g;
	if (share_room(sh) < 0)
		return NULL;
	struct weft_stream *x = m->pend;
	m->pend = NULL;
	int bad = 0;
	uint64_t tx;
	while (x && !bad) {
		uint64_t t = x->ev.time;
		int r;
		if (g->heap[0].time != t) { /* alone at t: its run */
			do {
				if (share_emit(sh, (uint32_t) (x - m->base)) < 0)
					return NULL;
				r = stream_skip(x, &sh->err);
			} while (r > 0 && merge_again(g, x->ev.time));
			bad = r < 0;
			if (!bad)
				x = r > 0 ? merge_put_take(g, x, &tx) : g->n ? merge_take(g) : NULL;
			continue;
		}
		/* an instant of several streams: read on, then grouped by loom
		 * (stable), up to an error */
		sh->ninst = 0;
		while (x && x->ev.time == t) {
			if (sh->ninst == sh->capinst) {
				sh->capinst = sh->capinst ? 2 * sh->capinst : 64;
				sh->inst = weft_xrealloc(sh->inst, sh->capinst * sizeof(*sh->inst));
			}
			sh->inst[sh->ninst++] = (struct share_ent){(uint32_t) (x - m->base), x->merge_rank};
			r = stream_skip(x, &sh->err);
			if (r < 0) {
				bad = 1;
				break;
			}
			x = r > 0 ? merge_put_take(g, x, &tx) : g->n ? merge_take(g) : NULL;
		}
		for (size_t i = 1; i < sh->ninst; i++) {
			struct share_ent y = sh->inst[i];
			size_t j = i;
			for (; j > 0 && sh->inst[j - 1].rank > y.rank; j--)
				sh->inst[j] = sh->inst[j - 1];
			sh->inst[j] = y;
		}
		for (size_t i = 0; i < sh->ninst; i++)
			if (share_emit(sh, sh->inst[i].k) < 0)
				return NULL;
	}
	if (share_emit(sh, bad ? SEQ_ERR : SEQ_END) == 0)
		share_publish(sh);
	return NULL;
}

struct merge_share *merge_share_start(struct weft_merge *all, int nfollow)
{
	if (all->share || all->lo != 0 || all->hi != all->nstreams || all->nbuf || all->step)
		return NULL;
	struct merge_share *sh = weft_xcalloc(1, sizeof(*sh));
	sh->m = all;
	sh->nf = nfollow;
	sh->pos = weft_xcalloc((size_t) nfollow, sizeof(*sh->pos));
	sh->gone = weft_xcalloc((size_t) nfollow, sizeof(*sh->gone));
	pthread_mutex_init(&sh->mu, NULL);
	pthread_cond_init(&sh->more, NULL);
	pthread_cond_init(&sh->room, NULL);
	if (pthread_create(&sh->th, NULL, share_main, sh) != 0) {
		pthread_mutex_destroy(&sh->mu);
		pthread_cond_destroy(&sh->more);
		pthread_cond_destroy(&sh->room);
		free(sh->pos);
		free(sh->gone);
		free(sh);
		return NULL;
	}
	return sh;
}

void merge_follow(struct weft_merge *m, struct merge_share *sh, int k)
{
	m->share = sh;
	m->fk = k;
	m->chunk = 0;
	m->sp = m->se = NULL;
	m->step = m->pend = m->cur = NULL;
}

void merge_share_leave(struct merge_share *sh, int k)
{
	pthread_mutex_lock(&sh->mu);
	sh->gone[k] = 1;
	pthread_cond_broadcast(&sh->room);
	pthread_mutex_unlock(&sh->mu);
}

void merge_share_end(struct merge_share *sh)
{
	if (!sh)
		return;
	pthread_join(sh->th, NULL);
	for (uint64_t c = sh->freed; c < sh->made; c++)
		free(sh->chunk[c]);
	free(sh->chunk);
	free(sh->spare);
	free(sh->w);
	free(sh->inst);
	free(sh->pos);
	free(sh->gone);
	pthread_mutex_destroy(&sh->mu);
	pthread_cond_destroy(&sh->more);
	pthread_cond_destroy(&sh->room);
	free(sh);
}

/* The follower's next chunk. */
static void follow_chunk(struct weft_merge *m)
{
	struct merge_share *sh = m->share;
	pthread_mutex_lock(&sh->mu);
	if (m->sp) {
		sh->pos[m->fk] = ++m->chunk;
		pthread_cond_broadcast(&sh->room);
	}
	while (sh->made <= m->chunk)
		pthread_cond_wait(&sh->more, &sh->mu);
	m->sp = sh->chunk[m->chunk];
	m->se = m->sp + SHARE_CHUNK;
	pthread_mutex_unlock(&sh->mu);
}

/* A follower's next event: its stream returned last stepped, then the
 * sequence's next own entry. A step's error is in the sequence too, where
 * the thread met it (its own step of that stream): it is returned there. */
static int follow_next(struct weft_merge *m, struct weft_ev **ev, struct weft_err *e)
{
	struct weft_stream *s = m->pend;
	if (s) {
		m->pend = NULL;
		if (stream_next(s, &m->err) < 0)
			m->step = s; /* failed: its error comes with the sequence's */
	}
	for (;;) {
		if (m->sp == m->se)
			follow_chunk(m);
		uint32_t k = *m->sp;
		if (__builtin_expect(k >= SEQ_ERR, 0)) {
			if (k == SEQ_END)
				return 0;
			*e = m->share->err;
			return -1;
		}
		m->sp++;
		struct weft_stream *x = m->base + k;
		if (x->merge_foreign)
			continue;
		if (__builtin_expect(x == m->step, 0)) {
			*e = m->err;
			return -1;
		}
		m->pend = m->cur = x;
		*ev = &x->ev;
		return 1;
	}
}

uint64_t merge_peek_time(const struct weft_merge *m)
{
	if (m->ibuf < m->nbuf)
		return m->buf[m->ord[m->ibuf]].ev.time;
	if (m->pend)
		return m->pend->ev.time;
	return m->g.n ? m->g.heap[0].time : 0;
}

void merge_free(struct weft_merge *m)
{
	free(m->g.heap);
	free(m->ord);
	free(m->stack);
	free(m->buf);
	memset(m, 0, sizeof(*m));
}
