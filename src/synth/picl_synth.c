/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_synth: `weft synth --format picl` writes a large, valid new-format
 * PICL log (ORNL/TM-12125) of a message-passing program, deterministic for
 * given options. Promises:
 * - P processors run rounds; in each round every processor computes, sends
 *   one blocking message (-21) to a partner chosen by the traffic pattern
 *   (ring, all-to-all, random) and then receives every message addressed to
 *   it in that round, in arrival order (-51 when the message was already
 *   there, -52 when it had to wait). Each round is a user event (type
 *   round mod 3).
 * - Times are simulated in true time (ns): a receive ends at or after its
 *   send's entry plus a latency drawn from --latency, so every message is
 *   causally valid in true time. Each processor then records its own clock:
 *   t_local = t_true + offset + drift * t_true (processor 0 is the reference:
 *   offset 0, drift 0 unless given explicitly). --rate-change, --step and
 *   --segments add change points: from a change's true time on, the drift
 *   changes and the clock may jump forward (picl_synth.h).
 * - Records are written sorted by local timestamp (a bounded window: a record
 *   is written once no processor can produce an earlier one), with --digits
 *   decimals, and each processor ends with -101/-102/-103 statistics records
 *   measured on its own clock (as PICL writes them).
 * - --truth FILE writes the per-processor offsets and drifts as JSON, and
 *   with change points each processor's segments (from_ns: true time;
 *   t_local = t_true + offset_ns + drift_ppm 1e-6 t_true from there on).
 * Numbers are formatted by hand into a large buffer (no printf per record);
 * outputs go to a temporary name and are renamed when complete.
 * Over 700 lines since the clocks gained change points (--rate-change,
 * --step, --segments): they are read with the offsets and drifts they
 * change. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/outbuf.h"
#include "synth/picl_synth.h"
#include "util/macros.h"

/* Flush the log's buffer and rename the temporary file into place (or
 * remove it); frees tmp and the buffer. */
static int finish_tmp(struct outbuf *ob, int fd, char *tmp, const char *path, struct weft_err *e)
{
	int rc = ob_flush(ob, e, tmp);
	ob_free(ob);
	return atomic_commit(fd, tmp, path, rc, e);
}

/* ---- random numbers (splitmix64) ---------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t rnd_range(uint64_t *s, int64_t lo, int64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + (int64_t) (rnd(s) % (uint64_t) (hi - lo + 1));
}

/* ---- option parsing ------------------------------------------------------- */

/* "12", "2.5us", "-3ms" to ns with the default unit when none is given.
 * Fractions finer than a nanosecond are refused. */
int picl_synth_time(const char *s, int64_t def_unit, int64_t *out)
{
	static const struct { const char *u; int64_t ns; } units[] = {
		{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
	};
	int neg = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	int64_t ip = 0, fp = 0, fscale = 1;
	int digits = 0;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (ip > INT64_MAX / 100)
			return -1;
		ip = ip * 10 + (*s - '0');
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (fscale >= 1000000000)
				return -1;
			fp = fp * 10 + (*s - '0');
			fscale *= 10;
		}
	if (!digits)
		return -1;
	int64_t unit = def_unit;
	if (*s) {
		unit = 0;
		for (size_t k = 0; k < ARRAY_SIZE(units); k++)
			if (strcmp(s, units[k].u) == 0)
				unit = units[k].ns;
		if (!unit)
			return -1;
	}
	if (ip > INT64_MAX / unit / 2)
		return -1;
	if ((fp * unit) % fscale)
		return -1;
	int64_t v = ip * unit + fp * unit / fscale;
	*out = neg ? -v : v;
	return 0;
}

/* "2us-10us", "8-4096": a non-negative range, lo <= hi. */
int picl_synth_range(const char *s, int64_t def_unit, int64_t *lo, int64_t *hi)
{
	const char *dash = strchr(s + 1, '-');
	if (!dash)
		return picl_synth_time(s, def_unit, lo) || *lo < 0 ? -1 : (*hi = *lo, 0);
	char a[64];
	size_t n = (size_t) (dash - s);
	if (n >= sizeof(a))
		return -1;
	memcpy(a, s, n);
	a[n] = 0;
	if (picl_synth_time(a, def_unit, lo) || picl_synth_time(dash + 1, def_unit, hi))
		return -1;
	return *lo < 0 || *hi < *lo ? -1 : 0;
}

/* Parts per million with up to 3 decimals to parts per billion (the time
 * parser with microseconds as the unit does exactly that scaling). */
static int parse_ppm(const char *s, int64_t *ppb)
{
	char buf[64];
	if (strlen(s) + 3 > sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%sus", s);
	if (picl_synth_time(buf, 1, ppb))
		return -1;
	return *ppb > 1000000 || *ppb < -1000000 ? -1 : 0;
}

/* ---- the generator -------------------------------------------------------- */


/* One record waiting in the sort window. */
struct rec {
	int64_t lt;          /* local time, ns */
	uint64_t seq;
	int32_t proc;
	int16_t rtype;       /* -2, -3, -4 */
	int16_t nd;          /* data integers (0..3) */
	int32_t etype;
	int32_t d[3];
};

/* Per-processor statistics on the local clock (PICL's own profile). */
#define NCTX 4   /* -1 and user events 0..2 */
#define NTYPES 8
static const int32_t stat_types[NTYPES] = {-901, -21, -51, -52, -12, 0, 1, 2};

struct pstat {
	int64_t ns[NCTX][NTYPES];
	int64_t count[NCTX][NTYPES];
	int64_t bytes[NCTX][NTYPES];
	uint64_t trace_bytes;
};

#define MAX_CHANGES 16

struct change {
	int64_t at; /* true time, ns */
	int64_t dppb; /* drift change, parts per 10^9 */
	int64_t step; /* forward jump, ns */
};

struct proc {
	int64_t off, ppb;    /* clock */
	struct change chg[MAX_CHANGES];
	int nchg;
	int64_t cur;         /* true time of its next record, ns */
	int64_t begin_lt[NTYPES]; /* local time an open call of each type began */
	int ctx;             /* open user event (0..2), -1 none */
	struct pstat st;
};

struct msg {
	int32_t src, len, tag;
	int64_t sent;        /* true time of the send entry */
	int64_t arrive;      /* true time it is available at the receiver */
};

struct gen {
	struct picl_synth_opts o;
	struct proc *p;
	struct rec *heap;
	size_t nheap, cap;
	uint64_t seq, nrec, nmsg;
	uint64_t rng;
	struct outbuf ob;
	int64_t unit;        /* ns per timestamp digit */
	struct msg *inbox;   /* messages of this round, by receiver */
	int *ninbox, *inbox_start;
	int32_t *dst;
};

static int64_t local_time(const struct proc *p, int64_t t)
{
	int64_t l = t + p->off + (int64_t) ((__int128) t * p->ppb / 1000000000);
	for (int k = 0; k < p->nchg && p->chg[k].at < t; k++)
		l += p->chg[k].step + (int64_t) ((__int128) (t - p->chg[k].at) * p->chg[k].dppb / 1000000000);
	return l;
}

static int rec_less(const struct rec *a, const struct rec *b)
{
	return a->lt < b->lt || (a->lt == b->lt && a->seq < b->seq);
}

static void heap_push(struct gen *g, const struct rec *r)
{
	if (g->nheap == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4096;
		g->heap = weft_xrealloc(g->heap, g->cap * sizeof(*g->heap));
	}
	size_t i = g->nheap++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!rec_less(r, &g->heap[up]))
			break;
		g->heap[i] = g->heap[up];
		i = up;
	}
	g->heap[i] = *r;
}

static struct rec heap_pop(struct gen *g)
{
	struct rec top = g->heap[0], last = g->heap[--g->nheap];
	size_t i = 0, n = g->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && rec_less(&g->heap[c + 1], &g->heap[c]))
			c++;
		if (!rec_less(&g->heap[c], &last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (n)
		g->heap[i] = last;
	return top;
}

static void put_i(struct outbuf *ob, int64_t v)
{
	ob_char(ob, ' ');
	ob_i64(ob, v);
}

static void stat_records(struct gen *g, int pi, int64_t lt);

static void write_rec(struct gen *g, const struct rec *r)
{
	if (r->rtype == -101) {
		stat_records(g, r->proc, r->lt);
		return;
	}
	struct outbuf *ob = &g->ob;
	ob_room(ob, 160);
	size_t start = ob->len;
	ob_i64(ob, r->rtype);
	put_i(ob, r->etype);
	ob_char(ob, ' ');
	ob_fixed(ob, div_round_even(r->lt, g->unit), g->o.digits);
	put_i(ob, r->proc);
	ob_mem(ob, " 0", 2);
	put_i(ob, r->nd);
	if (r->nd) {
		ob_mem(ob, " 2", 2);
		for (int k = 0; k < r->nd; k++)
			put_i(ob, r->d[k]);
	}
	ob_char(ob, '\n');
	g->p[r->proc].st.trace_bytes += ob->len - start;
	g->nrec++;
}

static int type_index(int32_t type)
{
	for (int k = 0; k < NTYPES; k++)
		if (stat_types[k] == type)
			return k;
	return -1;
}

/* Record a PICL record of processor `pi` at true time t, and account it in
 * the processor's own statistics (on its local clock). */
static void emit(struct gen *g, int pi, int64_t t, int rtype, int32_t etype, int nd, int32_t a, int32_t b,
		 int32_t c)
{
	struct proc *p = &g->p[pi];
	struct rec r = {local_time(p, t), g->seq++, pi, (int16_t) rtype, (int16_t) nd, etype, {a, b, c}};
	heap_push(g, &r);
	int k = type_index(etype);
	if (k < 0)
		return;
	int ctxs[2] = {0, p->ctx >= 0 && etype != p->ctx ? 1 + p->ctx : -1};
	for (int j = 0; j < 2; j++) {
		int cx = ctxs[j];
		if (cx < 0)
			continue;
		if (rtype == -3 || rtype == -2)
			p->st.count[cx][k]++;
		if (rtype == -4)
			p->st.ns[cx][k] += r.lt - p->begin_lt[k];
		if (etype == -21 && rtype == -3)
			p->st.bytes[cx][k] += a;
		if ((etype == -51 || etype == -52) && rtype == -4)
			p->st.bytes[cx][k] += a;
	}
	if (rtype == -3)
		p->begin_lt[k] = r.lt;
}

/* Write every record no processor can precede any more. */
static void drain(struct gen *g, int all)
{
	int64_t bound = INT64_MAX;
	if (!all)
		for (int i = 0; i < g->o.procs; i++) {
			int64_t l = local_time(&g->p[i], g->p[i].cur);
			if (l < bound)
				bound = l;
		}
	while (g->nheap && (all || g->heap[0].lt < bound)) {
		struct rec r = heap_pop(g);
		write_rec(g, &r);
	}
}

static int32_t partner(struct gen *g, int p, uint64_t round)
{
	int n = g->o.procs;
	switch (g->o.traffic) {
	case TR_RING:
		return (p + 1) % n;
	case TR_ALL:
		return (int32_t) ((p + 1 + (int64_t) (round % (uint64_t) (n - 1))) % n);
	default: {
		int32_t d = (int32_t) rnd_range(&g->rng, 0, n - 2);
		return d >= p ? d + 1 : d;
	}
	}
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct msg *x = a, *y = b;
	if (x->arrive != y->arrive)
		return x->arrive < y->arrive ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

static void round_once(struct gen *g, uint64_t round)
{
	int n = g->o.procs;
	int32_t user = (int32_t) (round % 3);
	/* sends: every processor computes, then sends one message */
	memset(g->ninbox, 0, (size_t) n * sizeof(int));
	struct msg *sent = g->inbox + n; /* scratch: the sends, by sender */
	for (int i = 0; i < n; i++) {
		struct proc *p = &g->p[i];
		emit(g, i, p->cur, -3, user, 2, 0, 0, 0);
		p->ctx = user;
		p->cur += rnd_range(&g->rng, g->o.comp_lo, g->o.comp_hi);
		int32_t d = partner(g, i, round);
		int32_t len = (int32_t) rnd_range(&g->rng, g->o.size_lo, g->o.size_hi);
		int32_t tag = 1 + (int32_t) (round % 8);
		emit(g, i, p->cur, -3, -21, 3, len, tag, d);
		struct msg m = {i, len, tag, p->cur, p->cur + rnd_range(&g->rng, g->o.lat_lo, g->o.lat_hi)};
		/* the send returns once the message is copied out: 1 us + 1 ns/byte */
		p->cur += 1000 + len;
		emit(g, i, p->cur, -4, -21, 0, 0, 0, 0);
		sent[i] = m;
		g->dst[i] = d;
		g->ninbox[d]++;
		g->nmsg++;
	}
	/* receives: each processor takes its messages in arrival order */
	int at = 0;
	for (int i = 0; i < n; i++) {
		g->inbox_start[i] = at;
		at += g->ninbox[i];
		g->ninbox[i] = 0;
	}
	for (int i = 0; i < n; i++) {
		int d = g->dst[i];
		g->inbox[g->inbox_start[d] + g->ninbox[d]++] = sent[i];
	}
	for (int i = 0; i < n; i++) {
		struct proc *p = &g->p[i];
		struct msg *box = &g->inbox[g->inbox_start[i]];
		qsort(box, (size_t) g->ninbox[i], sizeof(*box), cmp_arrival);
		for (int k = 0; k < g->ninbox[i]; k++) {
			const struct msg *m = &box[k];
			p->cur += rnd_range(&g->rng, g->o.comp_lo / 4, g->o.comp_hi / 4);
			int32_t ev = m->arrive <= p->cur ? -51 : -52;
			emit(g, i, p->cur, -3, ev, 1, m->tag, 0, 0);
			int64_t end = p->cur + 500;
			if (end < m->arrive)
				end = m->arrive;
			p->cur = end + 200 + m->len / 4; /* copy the message in */
			emit(g, i, p->cur, -4, ev, 3, m->len, m->tag, m->src);
		}
		p->cur += 100;
		emit(g, i, p->cur, -4, user, 2, 0, 0, 0);
		p->ctx = -1;
		p->cur += 100;
	}
}

/* -101/-102/-103 records of one processor, at its -901 exit time. */
static void stat_records(struct gen *g, int pi, int64_t lt)
{
	struct outbuf *ob = &g->ob;
	const struct pstat *s = &g->p[pi].st;
	static const struct { int16_t rt; const char *desc; } kinds[3] = {
		{-101, "\"%d%lf\""}, {-102, "\"%d%d\""}, {-103, "\"%d%d\""},
	};
	for (int cx = 0; cx < NCTX; cx++) {
		for (int k = 0; k < 3; k++) {
			int n = 0;
			for (int j = 0; j < NTYPES; j++) {
				int64_t v = k == 0 ? s->ns[cx][j] : k == 1 ? s->count[cx][j] : s->bytes[cx][j];
				if (stat_types[j] == -901 && k == 2 && cx == 0)
					v = (int64_t) s->trace_bytes;
				n += v > 0;
			}
			if (!n)
				continue;
			ob_room(ob, 128 + (size_t) NTYPES * 48);
			ob_i64(ob, kinds[k].rt);
			put_i(ob, cx - 1);
			ob_char(ob, ' ');
			ob_fixed(ob, div_round_even(lt, g->unit), g->o.digits);
			put_i(ob, pi);
			ob_mem(ob, " 0", 2);
			put_i(ob, n);
			ob_char(ob, ' ');
			ob_mem(ob, kinds[k].desc, strlen(kinds[k].desc));
			for (int j = 0; j < NTYPES; j++) {
				int64_t v = k == 0 ? s->ns[cx][j] : k == 1 ? s->count[cx][j] : s->bytes[cx][j];
				if (stat_types[j] == -901 && k == 2 && cx == 0)
					v = (int64_t) s->trace_bytes;
				if (v <= 0)
					continue;
				put_i(ob, stat_types[j]);
				ob_char(ob, ' ');
				if (k == 0)
					ob_fixed(ob, div_round_even(v, 1000), 6); /* %lf: 6 decimals */
				else
					ob_i64(ob, v);
			}
			ob_char(ob, '\n');
			g->nrec++;
		}
	}
}

static int chg_cmp(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int add_change(struct gen *g, int proc, struct change c, const char *opt, struct weft_err *e)
{
	struct proc *p = &g->p[proc];
	if (p->nchg == MAX_CHANGES)
		return weft_fail(e, WEFT_EUSAGE, "%s: more than %d changes for processor %d", opt, MAX_CHANGES, proc);
	p->chg[p->nchg++] = c;
	qsort(p->chg, (size_t) p->nchg, sizeof(*p->chg), chg_cmp);
	return 0;
}

/* --rate-change and --step lists: P:T:VALUE, comma-separated. */
static int parse_changes(struct gen *g, const char *arg, int step, struct weft_err *e)
{
	const char *opt = step ? "--step" : "--rate-change";
	char *copy = weft_xstrdup(arg), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
		char *c1 = strchr(tok, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *end;
		long proc = c1 ? strtol(tok, &end, 10) : -1;
		int64_t at, v;
		if (!c2 || end != c1 || proc < 0 || proc >= g->o.procs)
			rc = weft_fail(e, WEFT_EUSAGE, "%s: expected PROC:TIME:%s with PROC 0 to %d, found '%s'", opt,
				       step ? "NS" : "PPM", g->o.procs - 1, tok);
		if (rc)
			break;
		*c1 = *c2 = '\0';
		if (picl_synth_time(c1 + 1, 1000000000, &at) || at <= 0)
			rc = weft_fail(e, WEFT_EUSAGE,
				       "%s: expected a positive true time (unit s unless given) "
				       "after '%ld:', found '%s'",
				       opt, proc, c1 + 1);
		else if (step ? picl_synth_time(c2 + 1, 1, &v) || v < 0 : parse_ppm(c2 + 1, &v))
			rc = weft_fail(e, WEFT_EUSAGE, "%s: expected %s, found '%s'", opt,
				       step ? "a forward jump >= 0 (unit ns unless given)"
					    : "a drift change in ppm "
					      "(at most +-1000)",
				       c2 + 1);
		else
			rc = add_change(g, (int) proc, (struct change){at, step ? 0 : v, step ? v : 0}, opt, e);
	}
	free(copy);
	return rc;
}

/* --segments K: K - 1 changes per processor but 0 at random times, each
 * segment a drift in [-max_ppb, max_ppb]. */
static int set_changes(struct gen *g, int64_t max_ppb, struct weft_err *e)
{
	if (g->o.rate_arg && parse_changes(g, g->o.rate_arg, 0, e))
		return -1;
	if (g->o.step_arg && parse_changes(g, g->o.step_arg, 1, e))
		return -1;
	if (g->o.segments <= 1)
		return 0;
	if (!g->o.duration)
		return weft_fail(e, WEFT_EUSAGE, "--segments: needs --duration (the changes are placed within it)");
	if (g->o.segments > MAX_CHANGES)
		return weft_fail(e, WEFT_EUSAGE, "--segments: expected 1 to %d, found %d", MAX_CHANGES, g->o.segments);
	uint64_t crng = g->o.seed ^ 0x5e9e17;
	for (int i = 1; i < g->o.procs; i++) {
		int64_t prev = g->p[i].ppb;
		for (int k = 1; k < g->o.segments; k++) {
			int64_t at = rnd_range(&crng, g->o.duration / 10, g->o.duration - g->o.duration / 10);
			/* the drifts are drawn in time order below */
			if (add_change(g, i, (struct change){at, 0, 0}, "--segments", e))
				return -1;
		}
		for (int k = 0; k < g->p[i].nchg; k++) {
			int64_t ppb = rnd_range(&crng, -max_ppb, max_ppb);
			g->p[i].chg[k].dppb = ppb - prev;
			prev = ppb;
		}
	}
	return 0;
}

/* Clock of each processor: explicit comma lists or random magnitudes. */
static int set_clocks(struct gen *g, struct weft_err *e)
{
	int n = g->o.procs;
	int64_t max_off = 0, max_ppb = 0;
	int off_list = g->o.off_arg && strchr(g->o.off_arg, ',');
	int drift_list = g->o.drift_arg && strchr(g->o.drift_arg, ',');
	if (g->o.off_arg && !off_list && (picl_synth_time(g->o.off_arg, 1, &max_off) || max_off < 0))
		return weft_fail(e, WEFT_EUSAGE, "--offset: expected a non-negative time or a comma list, found '%s'",
				 g->o.off_arg);
	if (g->o.drift_arg && !drift_list && (parse_ppm(g->o.drift_arg, &max_ppb) || max_ppb < 0))
		return weft_fail(e, WEFT_EUSAGE, "--drift: expected 0 to 1000 ppm or a comma list, found '%s'",
				 g->o.drift_arg);
	uint64_t crng = g->o.seed ^ 0x5eedc10c;
	for (int i = 0; i < n; i++) {
		g->p[i].off = i ? rnd_range(&crng, -max_off, max_off) : 0;
		g->p[i].ppb = i ? rnd_range(&crng, -max_ppb, max_ppb) : 0;
	}
	const char *lists[2] = {off_list ? g->o.off_arg : NULL, drift_list ? g->o.drift_arg : NULL};
	for (int l = 0; l < 2; l++) {
		if (!lists[l])
			continue;
		for (int i = 0; i < n; i++)
			l == 0 ? (g->p[i].off = 0) : (g->p[i].ppb = 0);
		char *copy = weft_xstrdup(lists[l]), *save = NULL;
		int i = 0;
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++) {
			int64_t v;
			int bad = l == 0 ? picl_synth_time(tok, 1, &v) : parse_ppm(tok, &v);
			if (bad || i >= n) {
				int rc = weft_fail(e, WEFT_EUSAGE, "%s: %s '%s' (item %d of %d processors)",
						   l ? "--drift" : "--offset",
						   bad ? "cannot read" : "more values than processors at", tok, i + 1, n);
				free(copy);
				return rc;
			}
			if (l == 0)
				g->p[i].off = v;
			else
				g->p[i].ppb = v;
		}
		free(copy);
	}
	return set_changes(g, max_ppb, e);
}

static int write_truth(struct gen *g, const char *path, struct weft_err *e)
{
	char *tmp;
	int fd = atomic_open(path, &tmp, e);
	if (fd < 0)
		return -1;
	static const char *const names[] = {"ring", "all", "random"};
	struct outbuf ob;
	ob_init(&ob, fd, 1 << 16);
	char head[512];
	snprintf(head, sizeof(head),
		 "{\n  \"format\": \"picl\",\n  \"processors\": %d,\n  \"traffic\": \"%s\",\n  \"seed\": %llu,\n"
		 "  \"digits\": %d,\n  \"latency_ns\": [%lld, %lld],\n  \"messages\": %llu,\n"
		 "  \"clock\": \"t_local = t_true + offset_ns + drift_ppm * 1e-6 * t_true\",\n"
		 "  \"reference\": 0,\n  \"processor\": [\n",
		 g->o.procs, names[g->o.traffic], (unsigned long long) g->o.seed, g->o.digits,
		 (long long) g->o.lat_lo, (long long) g->o.lat_hi, (unsigned long long) g->nmsg);
	ob_str(&ob, head);
	for (int i = 0; i < g->o.procs; i++) {
		ob_room(&ob, 128);
		ob_str(&ob, "    {\"id\": ");
		ob_i64(&ob, i);
		ob_str(&ob, ", \"offset_ns\": ");
		ob_i64(&ob, g->p[i].off);
		ob_str(&ob, ", \"drift_ppm\": ");
		ob_fixed(&ob, g->p[i].ppb, 3);
		const struct proc *p = &g->p[i];
		if (p->nchg) {
			/* from each change on: local = t + off + ppb t, both accumulated */
			int64_t off = p->off, ppb = p->ppb;
			ob_str(&ob, ", \"segments\": [");
			for (int k = 0; k < p->nchg; k++) {
				const struct change *c = &p->chg[k];
				off += c->step - (int64_t) ((__int128) c->at * c->dppb / 1000000000);
				ppb += c->dppb;
				ob_room(&ob, 128);
				ob_str(&ob, k ? ", {\"from_ns\": " : "{\"from_ns\": ");
				ob_i64(&ob, c->at);
				ob_str(&ob, ", \"offset_ns\": ");
				ob_i64(&ob, off);
				ob_str(&ob, ", \"drift_ppm\": ");
				ob_fixed(&ob, ppb, 3);
				ob_str(&ob, "}");
			}
			ob_str(&ob, "]");
		}
		ob_str(&ob, i + 1 < g->o.procs ? "},\n" : "}\n");
	}
	ob_str(&ob, "  ]\n}\n");
	return finish_tmp(&ob, fd, tmp, path, e);
}

static int generate(struct gen *g, const char *out, struct weft_err *e)
{
	int n = g->o.procs;
	char *tmp;
	int fd = atomic_open(out, &tmp, e);
	if (fd < 0)
		return -1;
	ob_init(&g->ob, fd, 4u << 20);
	g->rng = g->o.seed;
	g->unit = 1;
	for (int k = g->o.digits; k < 9; k++)
		g->unit *= 10;
	g->inbox = weft_xcalloc((size_t) (2 * n), sizeof(*g->inbox));
	g->ninbox = weft_xcalloc((size_t) n, sizeof(int));
	g->inbox_start = weft_xcalloc((size_t) n, sizeof(int));
	g->dst = weft_xcalloc((size_t) n, sizeof(int32_t));
	for (int i = 0; i < n; i++) {
		g->p[i].cur = rnd_range(&g->rng, 0, 10000);
		g->p[i].ctx = -1;
		emit(g, i, g->p[i].cur, -3, -901, 0, 0, 0, 0);
	}
	/* about 7 records per processor and round */
	uint64_t per_round = 7 * (uint64_t) n;
	for (uint64_t r = 0;; r++) {
		if (g->o.records && g->nrec + g->nheap + per_round > g->o.records && r > 0)
			break;
		if (g->o.duration) {
			int64_t lo = INT64_MAX;
			for (int i = 0; i < n; i++)
				lo = g->p[i].cur < lo ? g->p[i].cur : lo;
			if (lo >= g->o.duration)
				break;
		}
		round_once(g, r);
		drain(g, 0);
	}
	for (int i = 0; i < n; i++) {
		struct proc *p = &g->p[i];
		emit(g, i, p->cur, -2, -12, 0, 0, 0, 0);
		emit(g, i, p->cur + 3000, -4, -901, 0, 0, 0, 0);
		if (g->o.stats) { /* right after the exit, at its time, as PICL does */
			struct rec r = {local_time(p, p->cur + 3000), g->seq++, i, -101, 0, 0, {0, 0, 0}};
			heap_push(g, &r);
		}
	}
	drain(g, 1);
	int rc = finish_tmp(&g->ob, fd, tmp, out, e);
	free(g->inbox);
	free(g->ninbox);
	free(g->inbox_start);
	free(g->dst);
	free(g->heap);
	return rc;
}

int picl_synth_write(const struct picl_synth_opts *o, const char *out, const char *truth,
		     struct picl_synth_done *done, struct weft_err *e)
{
	struct gen g;
	memset(&g, 0, sizeof(g));
	g.o = *o;
	if (!g.o.records && !g.o.duration)
		g.o.records = 1000000;
	g.p = weft_xcalloc((size_t) o->procs, sizeof(*g.p));
	int rc = set_clocks(&g, e);
	if (rc == 0)
		rc = generate(&g, out, e);
	if (rc == 0 && truth)
		rc = write_truth(&g, truth, e);
	free(g.p);
	done->records = g.nrec;
	done->messages = g.nmsg;
	return rc;
}
