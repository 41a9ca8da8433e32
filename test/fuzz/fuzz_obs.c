/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_obs: the input is a whole stream.obs.
 *
 * 1. The plain decoder: obs_check_header(), then obs_decode() event after
 *    event until the end of the buffer or the first error, which goes to
 *    obs_explain(). Every decoded event must lie inside the input and its
 *    payload is read byte by byte, so a size computed wrongly shows up as a
 *    heap overflow (the input lives in a buffer of exactly its size).
 * 2. The stream cursors of stream.c over the same bytes: raw mode, ordered
 *    mode with the default look-back window and with a tiny one (so the
 *    window and unordered-region logic runs on small inputs). When raw mode
 *    accepts the whole stream, ordered mode with the default window must
 *    accept it too and yield exactly raw mode's events sorted by clock, ties
 *    in file order; so must the tiny window whenever it accepts the stream.
 *    Each yielded event is formatted like `weft dump` does (evtable).
 * 3. --salvage: obs_find_cut(); a cut it finds lies inside the input, its
 *    event needs more bytes than are there, and the cursors of part 2 run
 *    over the bytes before it (what stream_open() then maps).
 *
 * The cursors are set up over the input buffer directly instead of through
 * stream_open(), which would need a file: the fields filled here are exactly
 * the ones stream_open() fills after mapping. map_release() acts only after
 * a few MiB (it would madvise the heap), so inputs over 1 MiB skip part 2.
 *
 * Nothing is printed and no file is written; a broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evtable.h"
#include "trace/obs.h"
#include "trace/salvage.h"
#include "util/outbuf.h"
#include "trace/stream.h"

#include "fuzz_check.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_PATH "fuzz/stream.obs"
#define STREAM_PART_MAX (1u << 20)

static struct evtable tab;
static int tab_ready;

/* Keep the compiler from dropping the payload reads. */
static volatile uint8_t sink;

static void touch(const uint8_t *p, size_t n)
{
	uint8_t x = 0;
	for (size_t i = 0; i < n; i++)
		x ^= p[i];
	sink = x;
}

/* Part 1: the decoder alone. */
static void walk_decoder(const uint8_t *d, size_t n)
{
	struct weft_err e = {0};
	int swap = -1;
	if (obs_check_header(d, n, &swap, FUZZ_PATH, &e)) {
		check_err_code(&e, WEFT_EINPUT);
		return;
	}
	check(swap == 0 || swap == 1);
	size_t off = OBS_HEADER_SIZE;
	while (off < n) {
		struct weft_ev ev;
		size_t sz = 0;
		int r = obs_decode(d + off, n - off, swap, &ev, &sz);
		if (r != OBS_EVENT) {
			check(r == OBS_TRUNC || r == OBS_BADMCV);
			check(obs_explain(d + off, n - off, swap, r, FUZZ_PATH, off, &e) == -1);
			check_err_code(&e, WEFT_EINPUT);
			return;
		}
		check(sz >= OBS_EV_HEADER && sz <= n - off);
		check(ev.payload >= d + off + OBS_EV_HEADER);
		check(ev.payload + ev.payload_len == d + off + sz);
		check(obs_mcv_ok(ev.model) && obs_mcv_ok(ev.cat) && obs_mcv_ok(ev.val));
		if (!ev.jumbo)
			check(ev.payload_len == 0 || (ev.payload_len >= 2 && ev.payload_len <= 16));
		touch(ev.payload, ev.payload_len);
		off += sz;
	}
	check(off == n);
}

/* Format one event the way `weft dump` does, into a buffer that is never
 * written anywhere (fd -1: a drain fails quietly and empties it). */
static void format_event(struct outbuf *o, const struct weft_ev *ev)
{
	ob_room(o, 64 + 512);
	ob_u64(o, ev->clock);
	ob_char(o, ' ');
	const struct evinfo *in = evtable_find(&tab, ev->model, ev->cat, ev->val);
	if (in && ev_payload_ok(in, ev))
		ev_sentence(o, in, ev);
	uint32_t k = ev->payload_len < 256 ? ev->payload_len : 256;
	ob_hexbytes(o, ev->payload, k);
	ob_room(o, 1);
	ob_char(o, '\n');
	if (o->len > o->cap / 2)
		o->len = 0;
}

struct seen_ev {
	uint64_t clock, off;
};

struct seen {
	struct seen_ev *v;
	size_t n, cap;
};

static void seen_add(struct seen *s, const struct weft_ev *ev)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		check(s->v != NULL);
	}
	s->v[s->n].clock = ev->clock;
	s->v[s->n].off = ev->offset;
	s->n++;
}

/* Run one cursor to its end: 0 = whole stream yielded, -1 = stopped by an
 * input error (header included). */
static int run_cursor(const uint8_t *d, size_t n, enum stream_mode mode, uint64_t window,
		      struct seen *out, struct outbuf *o)
{
	struct weft_stream s;
	struct weft_err e = {0};
	memset(&s, 0, sizeof(s));
	s.obs_path = (char *) FUZZ_PATH;
	static const char label[72] = "fuzz/1/1"; /* padded like trace.c's labels */
	s.label = label;
	s.map.data = d;
	s.map.size = n;
	if (obs_check_header(d, n, &s.swap, FUZZ_PATH, &e)) {
		check_err_code(&e, WEFT_EINPUT);
		return -1;
	}
	/* what stream_open() does after map_open() */
	s.active = 1;
	s.mode = mode;
	s.window = window;
	s.pos = s.scan = OBS_HEADER_SIZE;
	s.ev.stream = &s;

	int r, have = 0;
	uint64_t last = 0;
	while ((r = stream_next(&s, &e)) > 0) {
		const struct weft_ev *ev = &s.ev;
		check(ev->offset >= OBS_HEADER_SIZE && ev->offset < n);
		check(ev->payload >= d && ev->payload + ev->payload_len <= d + n);
		check(ev->stream == &s);
		if (mode == STREAM_ORDERED) {
			check(!have || ev->clock >= last);
			last = ev->clock;
			have = 1;
		}
		touch(ev->payload, ev->payload_len);
		format_event(o, ev);
		seen_add(out, ev);
	}
	if (r < 0)
		check_err_code(&e, WEFT_EINPUT);
	else if (mode == STREAM_RAW)
		check(s.nevents == out->n); /* the count weft top reports */
	/* stream_close() without the munmap: the buffer is not a mapping */
	free(s.regs);
	free(s.span);
	return r < 0 ? -1 : 0;
}

static int by_clock_off(const void *a, const void *b)
{
	const struct seen_ev *x = a, *y = b;
	if (x->clock != y->clock)
		return x->clock < y->clock ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Ordered output must be the stream's events sorted by clock, ties in file
 * order (stream.h): exactly raw mode's events after a stable sort. */
static void check_same_order(struct seen *raw, const struct seen *ord)
{
	check(raw->n == ord->n);
	if (raw->n == 0)
		return;
	qsort(raw->v, raw->n, sizeof(*raw->v), by_clock_off);
	for (size_t i = 0; i < raw->n; i++)
		check(raw->v[i].clock == ord->v[i].clock && raw->v[i].off == ord->v[i].off);
}

static void walk_cursors(const uint8_t *d, size_t n)
{
	struct outbuf o;
	ob_init(&o, -1, 1 << 16);
	struct seen raw = {0}, ord = {0}, tiny = {0};
	int raw_ok = run_cursor(d, n, STREAM_RAW, 0, &raw, &o) == 0;
	int ord_ok = run_cursor(d, n, STREAM_ORDERED, STREAM_DEFAULT_WINDOW, &ord, &o) == 0;
	/* a tiny window may refuse the stream, but what it yields is in order */
	int tiny_ok = run_cursor(d, n, STREAM_ORDERED, 48, &tiny, &o) == 0;
	if (raw_ok) {
		/* the input is small: the default window sees every region */
		check(ord_ok);
		check_same_order(&raw, &ord);
		if (tiny_ok)
			check_same_order(&raw, &tiny);
	}
	free(raw.v);
	free(ord.v);
	free(tiny.v);
	ob_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!tab_ready) {
		struct weft_err e = {0};
		/* weft's own models, made once (still reachable) */
		struct model_set set = model_registry_set(model_registry_new());
		const struct weft_model_def *const *all = set.all;
		int nall = set.n;
		check(evtable_init(&tab, all, nall, &e) == 0);
		tab_ready = 1;
	}
	/* an exact-size copy, so any read past the input is caught */
	uint8_t *d = malloc(size ? size : 1);
	check(d != NULL);
	if (size)
		memcpy(d, data, size);
	walk_decoder(d, size);
	if (size <= STREAM_PART_MAX)
		walk_cursors(d, size);
	struct obs_cut c;
	int swap;
	struct weft_err e = {0};
	if (obs_check_header(d, size, &swap, FUZZ_PATH, &e) == 0 && obs_find_cut(d, size, swap, &c)) {
		check(c.off >= OBS_HEADER_SIZE && c.off < size && c.off + c.dropped == size);
		check(c.need == 0 || c.need > c.dropped);
		check(c.mcv[3] == '\0' && (c.mcv[0] == '\0' || strlen(c.mcv) == 3));
		if (size <= STREAM_PART_MAX)
			walk_cursors(d, (size_t) c.off);
	}
	free(d);
	return 0;
}
