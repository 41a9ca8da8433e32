/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stream: raw and ordered cursors over one stream.obs (see stream.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/obs.h"
#include "trace/stream.h"

/* Longest span weft sorts in memory: a region this long is an error. */
#define SPAN_MAX_BYTES (256u << 20)

static int is_ou(const struct weft_ev *ev, uint8_t v)
{
	return ev->model == 'O' && ev->cat == 'U' && ev->val == v;
}

int stream_open(struct weft_stream *s, enum stream_mode mode, struct weft_err *e)
{
	if (map_open(&s->map, s->obs_path, e))
		return -1;
	if (obs_check_header(s->map.data, s->map.size, &s->swap, s->obs_path, e)) {
		map_close(&s->map);
		return -1;
	}
	s->file_size = s->map.size;
	s->was_cut = s->salvage && obs_find_cut(s->map.data, s->map.size, s->swap, &s->cut);
	if (s->was_cut)
		s->map.size = s->cut.off;
	s->active = 1;
	s->mode = mode;
	/* a fresh cursor (stream_open also rewinds a closed stream) */
	s->in_region = 0;
	s->reg_max = s->reg_bad = 0;
	s->last_clock = s->nevents = s->fast_until = s->last_time = 0;
	s->scan_open = s->scan_failed = 0;
	s->span_len = s->span_pos = s->span_end = 0;
	if (!s->window)
		s->window = STREAM_DEFAULT_WINDOW;
	s->pos = s->scan = OBS_HEADER_SIZE;
	/* fast_until 0: raw mode never reads unchecked; last_clock 0: no clock
	 * is below it, so no check needs to know whether there was an event */
	s->ev.stream = s;
	return 0;
}

void stream_close(struct weft_stream *s)
{
	if (s->was_cut)
		s->map.size = s->file_size; /* the whole map goes */
	s->was_cut = 0;
	map_close(&s->map);
	free(s->regs);
	free(s->span);
	s->regs = NULL;
	s->span = NULL;
	s->span_cap = 0;
	s->reg_head = s->reg_tail = s->reg_cap = 0;
}

static void mcv_str(const struct weft_ev *ev, char out[4])
{
	out[0] = (char) ev->model;
	out[1] = (char) ev->cat;
	out[2] = (char) ev->val;
	out[3] = '\0';
}

/* A stream with drift: the time gets the drift term (out of line). Such
 * streams never take the plain fast path (set_fast_until), so a trace
 * without drift pays nothing for it. */
static __attribute__((noinline)) void drifted(struct weft_stream *s, struct weft_ev *ev)
{
	if (s->nseg > 1) {
		const struct clock_seg *g = clock_seg_at(s->seg, s->nseg, ev->clock);
		ev->time += (uint64_t) (g->map.offset - s->seg[0].map.offset);
		if (g->map.drift)
			ev->time += (uint64_t) clock_drift_term((int64_t) (ev->clock - g->map.tref), g->map.drift);
		if (ev->time < s->last_time)
			ev->time = s->last_time;
		s->last_time = ev->time;
		return;
	}
	ev->time += (uint64_t) clock_drift_term((int64_t) (ev->clock - s->tref), s->drift);
}

static inline void fix_drift(struct weft_stream *s, struct weft_ev *ev)
{
	if (__builtin_expect(s->drift != 0 || s->nseg > 1, 0))
		drifted(s, ev);
}

/* After the message of an event cut by the end of the file: what --salvage
 * does about it, or why it did not. Out of line: the error path. */
static __attribute__((noinline)) int cut_hint(const struct weft_stream *s, int r, int rc, struct weft_err *e)
{
	if (r != OBS_TRUNC)
		return rc;
	size_t n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, "%s",
		 s->salvage ? " (not salvaged: the bytes there are not the start of an event, "
			      "their MCV is not printable)"
			    : " (the stream of a killed application? --salvage reads every "
			      "stream up to its last whole event)");
	return rc;
}

/* Decode at `off`; fills ev and returns its size, or -1 with e filled. */
static inline int64_t decode_at(struct weft_stream *s, uint64_t off, struct weft_ev *ev, struct weft_err *e)
{
	size_t sz;
	const uint8_t *p = s->map.data + off;
	size_t n = s->map.size - off;
	int r = obs_decode(p, n, s->swap, ev, &sz);
	if (__builtin_expect(r != OBS_EVENT, 0))
		return cut_hint(s, r, obs_explain(p, n, s->swap, r, s->obs_path, off, e), e);
	ev->offset = off;
	ev->stream = s;
	ev->time = ev->clock + (uint64_t) s->offset; /* the drift term: fix_drift */
	return (int64_t) sz;
}

static int backwards(struct weft_stream *s, const struct weft_ev *ev, const char *hint,
		     struct weft_err *e)
{
	char mcv[4];
	mcv_str(ev, mcv);
	return weft_fail(e, WEFT_EINPUT,
			 "%s: clock goes backwards at byte offset %llu (event %s): expected a clock "
			 ">= %llu (the previous event's), found %llu%s",
			 s->obs_path, (unsigned long long) ev->offset, mcv,
			 (unsigned long long) s->last_clock, (unsigned long long) ev->clock, hint);
}

/* ---- raw mode ---------------------------------------------------------- */

static int next_raw(struct weft_stream *s, struct weft_err *e)
{
	if (s->pos >= s->map.size) {
		if (s->in_region && s->reg_bad)
			return weft_fail(e, WEFT_EINPUT,
					 "%s: clock goes backwards at byte offset %llu, in an unordered region "
					 "(OU[) that never closes: expected OU] after it (ovnisort sorts only "
					 "closed regions)",
					 s->obs_path, (unsigned long long) s->reg_bad);
		map_release_now(&s->map, s->map.size);
		return 0;
	}
	/* the event handed out last is done with; the one decoded now lives
	 * (its payload in the map) until the next call: give back before it */
	map_release(&s->map, s->pos);
	struct weft_ev *ev = &s->ev;
	int64_t sz = decode_at(s, s->pos, ev, e);
	if (sz < 0)
		return -1;
	fix_drift(s, ev);
	s->pos += (uint64_t) sz;
	s->nevents++;
	/* regions as ovnisort finds them (stream.h): an OU[ inside one and an
	 * OU] outside any are events like others */
	int opens = is_ou(ev, '[') && !s->in_region;
	if (opens) {
		s->in_region = 1;
		s->reg_max = s->last_clock;
		s->reg_bad = 0;
	} else if (is_ou(ev, ']') && s->in_region) {
		s->in_region = 0;
		if (s->reg_max > s->last_clock)
			s->last_clock = s->reg_max; /* the OU] stays after the sorted events */
	}
	if (s->in_region) {
		if (ev->clock < s->reg_max && !s->reg_bad)
			s->reg_bad = ev->offset;
		if (ev->clock > s->reg_max)
			s->reg_max = ev->clock;
	}
	if (!(s->in_region && !opens)) {
		if (ev->clock < s->last_clock)
			return backwards(s, ev, "", e);
		s->last_clock = ev->clock;
	}
	return 1;
}

/* ---- ordered mode: the scanner ------------------------------------------ */

static void push_region(struct weft_stream *s, const struct stream_region *r)
{
	if (s->reg_head > 0 && s->reg_head == s->reg_tail)
		s->reg_head = s->reg_tail = 0;
	if (s->reg_tail == s->reg_cap) {
		if (s->reg_head > 0) {
			memmove(s->regs, s->regs + s->reg_head,
				(size_t) (s->reg_tail - s->reg_head) * sizeof(*s->regs));
			s->reg_tail -= s->reg_head;
			s->reg_head = 0;
		}
		if (s->reg_tail == s->reg_cap) {
			s->reg_cap = s->reg_cap ? 2 * s->reg_cap : 16;
			s->regs = weft_xrealloc(s->regs, (size_t) s->reg_cap * sizeof(*s->regs));
		}
	}
	s->regs[s->reg_tail++] = *r;
	/* A queued region's min_clock also covers every later queued region: an
	 * event must wait for all of them, not only the next one, and the span
	 * must reach through the last region that goes back before it. */
	for (int k = s->reg_tail - 2; k >= s->reg_head && s->regs[k].min_clock > r->min_clock; k--)
		s->regs[k].min_clock = r->min_clock;
}

static void scan_fail(struct weft_stream *s, uint64_t off)
{
	s->scan_failed = 1;
	s->scan_fail_off = off;
}

/* Size of a well-formed event at `off`, or 0. The scanner's fast path: it
 * reads only flags, the MCV and (inside a region) the clock. */
static inline uint64_t scan_size(const struct weft_stream *s, uint64_t off)
{
	const uint8_t *p = s->map.data + off;
	uint64_t n = s->map.size - off;
	if (n < OBS_EV_HEADER)
		return 0;
	uint64_t sz;
	if (p[0] & OBS_FLAG_JUMBO) {
		if (n < OBS_EV_HEADER + 4)
			return 0;
		sz = OBS_EV_HEADER + 4 + (uint64_t) obs_u32(p + OBS_EV_HEADER, s->swap);
	} else {
		unsigned c = p[0] & 0x0f;
		sz = OBS_EV_HEADER + (c ? c + 1 : 0);
	}
	if (sz > n || !obs_mcv_ok(p[1]) || !obs_mcv_ok(p[2]) || !obs_mcv_ok(p[3]))
		return 0;
	return sz;
}

/* Size of a plain event by its flags byte: 12 header bytes and a payload
 * of code + 1 bytes (code 0: none); 0 for a jumbo event. */
#define PS(c) (OBS_EV_HEADER + (c) + ((c) != 0))
#define PS16(j) PS(0) * !(j), PS(1) * !(j), PS(2) * !(j), PS(3) * !(j), PS(4) * !(j), PS(5) * !(j), \
		PS(6) * !(j), PS(7) * !(j), PS(8) * !(j), PS(9) * !(j), PS(10) * !(j), PS(11) * !(j), \
		PS(12) * !(j), PS(13) * !(j), PS(14) * !(j), PS(15) * !(j)
static const uint8_t plain_size[256] = {
	PS16(0), PS16(1), PS16(0), PS16(1), PS16(0), PS16(1), PS16(0), PS16(1),
	PS16(0), PS16(1), PS16(0), PS16(1), PS16(0), PS16(1), PS16(0), PS16(1),
};
#undef PS16
#undef PS

/* Where the scanner's common case stops, by the MCV's bytes: stop_mc by
 * model and category (model in the low byte): 1 when one is not printable
 * (0x21..0x7e) or they are O and U (a region's bounds); stop_v by value: 1
 * when it is not printable. Made once, by the first scan. */
static uint8_t stop_mc[1 << 16], stop_v[256];
static pthread_once_t stop_once = PTHREAD_ONCE_INIT;

static void stop_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		stop_v[v] = !obs_mcv_ok((uint8_t) v);
	for (unsigned i = 0; i < (1u << 16); i++) {
		uint8_t m = (uint8_t) i, c = (uint8_t) (i >> 8);
		stop_mc[i] = !obs_mcv_ok(m) || !obs_mcv_ok(c) || (m == 'O' && c == 'U');
	}
}

static void scan_tables(void)
{
	pthread_once(&stop_once, stop_init);
}

/* The scanner's common case: plain events outside any region, up to
 * `limit`. Stops before anything else (a jumbo event, an OU event, bad or
 * truncated bytes) and leaves it to the careful loop. Two table loads
 * test the MCV, the size table the flags. */
static inline uint64_t scan_plain(const uint8_t *d, uint64_t size, uint64_t pos, uint64_t limit)
{
	if (limit > size)
		limit = size;
	/* every normal event is 12..28 bytes: while pos + 28 <= size, its
	 * header and payload are inside the map */
	uint64_t safe = size >= 28 ? size - 28 : 0;
	if (limit > safe)
		limit = safe;
	while (pos < limit) {
		const uint8_t *p = d + pos;
		unsigned sz = plain_size[p[0]];
		if (__builtin_expect(stop_mc[p[1] | (unsigned) p[2] << 8] | stop_v[p[3]], 0) ||
		    __builtin_expect(sz == 0, 0))
			break;
		pos += sz;
	}
	return pos;
}

/* Scan ahead until `limit` (and to the end of an open region). The loop
 * keeps its position in a local: it runs once per event of the trace. */
static void scan_until(struct weft_stream *s, uint64_t limit)
{
	const uint8_t *d = s->map.data;
	const uint64_t size = s->map.size;
	uint64_t pos = s->scan;
	scan_tables();
	if (!s->scan_failed && !s->scan_open)
		pos = scan_plain(d, size, pos, limit);
	while (!s->scan_failed && (pos < limit || s->scan_open)) {
		if (pos >= size) {
			s->scan_open = 0; /* a region never closed is not sorted (as ovnisort) */
			break;
		}
		uint64_t sz = scan_size(s, pos);
		if (__builtin_expect(sz == 0, 0)) {
			/* bad bytes: the message is built once, here (rare path) */
			struct weft_ev ev;
			decode_at(s, pos, &ev, &s->scan_err);
			/* events before the bad bytes are still yielded, in order */
			scan_fail(s, s->scan_open ? s->scan_reg.start : pos);
			break;
		}
		const uint8_t *p = d + pos;
		if (__builtin_expect(p[1] == 'O' && p[2] == 'U' && (p[3] == '[' || p[3] == ']'), 0) &&
		    s->scan_open == (p[3] == ']')) {
			/* as ovnisort: an OU[ inside a region and an OU] outside
			 * any are events like others (the else branch) */
			if (p[3] == '[') {
				s->scan_open = 1;
				s->scan_reg.start = pos;
				s->scan_reg.own_min = UINT64_MAX; /* of its events, not the OU['s (ovnisort) */
			} else {
				/* the OU] is not sorted: it keeps its place after them */
				s->scan_open = 0;
				s->scan_reg.end = pos;
				s->scan_reg.min_clock = s->scan_reg.own_min;
				push_region(s, &s->scan_reg);
			}
		} else if (s->scan_open) {
			uint64_t clk = obs_u64(p + 4, s->swap);
			if (clk < s->scan_reg.own_min)
				s->scan_reg.own_min = clk;
		}
		pos += sz;
		if (s->scan_open && pos - s->scan_reg.start > SPAN_MAX_BYTES) {
			weft_fail(&s->scan_err, WEFT_EINPUT,
				  "%s: unordered region opened at byte offset %llu is longer than %u "
				  "MiB: weft sorts regions in memory up to that size",
				  s->obs_path, (unsigned long long) s->scan_reg.start, SPAN_MAX_BYTES >> 20);
			scan_fail(s, s->scan_reg.start);
			break;
		}
	}
	/* many streams read side by side (a small release step): what was
	 * scanned ahead is not kept resident until the reader gets there */
	if (s->map.step && s->map.step < MAP_RELEASE_STEP && pos > s->scan + s->map.step)
		map_drop(&s->map, s->scan > s->pos + s->map.step ? s->scan : s->pos + s->map.step, pos);
	s->scan = pos;
}

/* ---- ordered mode: sorted spans ----------------------------------------- */

static int span_cmp(const void *a, const void *b)
{
	const struct stream_span_ent *x = a, *y = b;
	if (x->clock != y->clock)
		return x->clock < y->clock ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void span_add(struct weft_stream *s, uint64_t clock, uint64_t off)
{
	if (s->span_len == s->span_cap) {
		s->span_cap = s->span_cap ? 2 * s->span_cap : 1024;
		s->span = weft_xrealloc(s->span, s->span_cap * sizeof(*s->span));
	}
	s->span[s->span_len].clock = clock;
	s->span[s->span_len].off = off;
	s->span_len++;
}

/* Collect [from, to) into the span; returns the largest clock seen. */
static uint64_t span_fill(struct weft_stream *s, uint64_t from, uint64_t to, uint64_t maxc)
{
	struct weft_ev ev = {0};
	struct weft_err ignore;
	while (from < to) {
		int64_t sz = decode_at(s, from, &ev, &ignore);
		if (sz < 0)
			break; /* cannot happen: the scanner validated these bytes */
		span_add(s, ev.clock, from);
		if (ev.clock > maxc)
			maxc = ev.clock;
		from += (uint64_t) sz;
	}
	return maxc;
}

/* ovnisort's step for a region whose events' earliest clock is `min`, the
 * region last in the span: sort the span stably by clock from just after
 * its last entry earlier than min (by clock then position: ties are still
 * in file order, every step being a stable sort of a contiguous range). */
static void span_ovnisort(struct weft_stream *s, uint64_t min)
{
	size_t i = s->span_len;
	while (i > 0 && s->span[i - 1].clock >= min)
		i--;
	qsort(s->span + i, s->span_len - i, sizeof(*s->span), span_cmp);
}

/* Build the span starting at s->pos through the head region (its OU]
 * excluded: it keeps its place), with every later region that goes back
 * before the span's latest clock, each sorted in turn as ovnisort does; the
 * span is then read in that order, its clocks checked. */
static void span_build(struct weft_stream *s)
{
	s->span_len = s->span_pos = 0;
	const struct stream_region *r = &s->regs[s->reg_head++];
	uint64_t end = r->end;
	uint64_t maxc = span_fill(s, s->pos, end, 0);
	span_ovnisort(s, r->own_min);
	for (;;) {
		scan_until(s, end + s->window);
		if (s->reg_head < s->reg_tail && s->regs[s->reg_head].min_clock < maxc &&
		    s->regs[s->reg_head].end - s->pos <= SPAN_MAX_BYTES) {
			r = &s->regs[s->reg_head++];
			maxc = span_fill(s, end, r->end, maxc);
			span_ovnisort(s, r->own_min);
			end = r->end;
			continue;
		}
		/* no later region reaches into the span: ovnisort's steps for
		 * them leave it as it is; the events after the span are not
		 * sorted into it (one earlier is a clock going backwards) */
		break;
	}
	s->span_end = end;
}

static int emit_ordered(struct weft_stream *s, const char *hint, struct weft_err *e)
{
	struct weft_ev *ev = &s->ev;
	if (ev->clock < s->last_clock)
		return backwards(s, ev, hint, e);
	s->last_clock = ev->clock;
	return 1;
}

/* Where plain reading may go without looking at regions: no region is
 * queued, and a whole window stays scanned ahead (the look-back). It also
 * stops where pages read are next given back (map_release), so the fast
 * path need not. */
static void set_fast_until(struct weft_stream *s)
{
	map_release(&s->map, s->pos);
	uint64_t f = s->pos;
	/* a stream with drift never reads plain: its times need the drift term */
	if (s->reg_head == s->reg_tail && !s->scan_failed && !s->drift && s->nseg <= 1) {
		if (s->scan >= s->map.size && !s->scan_open)
			f = s->map.size; /* scanned to the end: no region can come */
		else if (s->scan > s->pos + s->window)
			f = s->scan - s->window;
	}
	uint64_t rel = s->map.released + (s->map.step ? s->map.step : MAP_RELEASE_STEP);
	s->fast_until = f < rel ? f : rel;
}

size_t stream_follow(struct weft_stream *s, uint8_t *buf, size_t n)
{
	size_t k = 0;
	uint64_t from = s->pos;
	if (s->span_pos < s->span_len) {
		/* in a sorted span: ovnisort wrote its events in this order in
		 * place, the stream's bytes resuming at the span's end */
		struct weft_ev ev;
		struct weft_err ignore;
		for (uint64_t i = s->span_pos; i < s->span_len && k < n; i++) {
			int64_t sz = decode_at(s, s->span[i].off, &ev, &ignore);
			if (sz < 0)
				break; /* cannot happen: the scanner validated these bytes */
			size_t m = (size_t) sz < n - k ? (size_t) sz : n - k;
			memcpy(buf + k, s->map.data + s->span[i].off, m);
			k += m;
		}
		from = s->span_end;
	}
	if (k < n && from < s->map.size) {
		size_t m = s->map.size - from < n - k ? (size_t) (s->map.size - from) : n - k;
		memcpy(buf + k, s->map.data + from, m);
		k += m;
	}
	memset(buf + k, 0, n - k);
	return k;
}

static int next_ordered(struct weft_stream *s, struct weft_err *e)
{
	struct weft_ev *ev = &s->ev;
	if (s->pos < s->fast_until)
		return stream_next(s, e); /* the inline fast path */
	if (s->span_pos < s->span_len) {
		decode_at(s, s->span[s->span_pos++].off, ev, e);
		fix_drift(s, ev);
		if (s->span_pos == s->span_len) {
			s->pos = s->span_end;
			s->span_len = s->span_pos = 0;
		}
		char hint[256];
		snprintf(hint, sizeof(hint),
			 " (after sorting the unordered regions as ovnisort does; a region may also "
			 "reach back further than weft's look-back window of %llu bytes)",
			 (unsigned long long) s->window);
		return emit_ordered(s, hint, e);
	}
	if (s->scan < s->pos + s->window)
		scan_until(s, s->pos + 2 * s->window);
	set_fast_until(s);
	if (s->pos < s->fast_until)
		return next_ordered(s, e);
	if (s->scan_failed && s->pos >= s->scan_fail_off) {
		*e = s->scan_err;
		return -1;
	}
	if (s->pos >= s->map.size) {
		map_release_now(&s->map, s->map.size); /* read to its end: none of it is needed again */
		return 0;
	}
	int64_t sz = decode_at(s, s->pos, ev, e);
	if (sz < 0)
		return -1;
	fix_drift(s, ev);
	if (s->reg_head < s->reg_tail) {
		const struct stream_region *r = &s->regs[s->reg_head];
		if (r->start == s->pos || r->min_clock < ev->clock) {
			span_build(s);
			return next_ordered(s, e);
		}
	}
	/* no give-back here: the event just decoded waits in the merge, its
	 * payload read when it is emitted; set_fast_until gives back up to it
	 * on the next call, when it is done with */
	s->pos += (uint64_t) sz;
	return emit_ordered(s, "", e);
}

int stream_first_clock(const struct weft_stream *s, uint64_t *clock)
{
	if (!s->active) {
		/* a stream not opened (dump --stream shows others): its clock
		 * still places the trace's reference, so read it from the file */
		struct mapfile m;
		struct weft_err e;
		int swap, ok = 0;
		if (map_open(&m, s->obs_path, &e))
			return 0;
		if (m.size >= OBS_HEADER_SIZE + OBS_EV_HEADER &&
		    obs_check_header(m.data, m.size, &swap, s->obs_path, &e) == 0) {
			*clock = obs_u64(m.data + OBS_HEADER_SIZE + 4, swap);
			ok = 1;
		}
		map_close(&m);
		return ok;
	}
	if (s->map.size < OBS_HEADER_SIZE + OBS_EV_HEADER)
		return 0;
	*clock = obs_u64(s->map.data + OBS_HEADER_SIZE + 4, s->swap);
	return 1;
}

int stream_backwards(struct weft_stream *s, struct weft_err *e)
{
	return backwards(s, &s->ev, "", e);
}

int stream_next_slow(struct weft_stream *s, struct weft_err *e)
{
	return s->mode == STREAM_RAW ? next_raw(s, e) : next_ordered(s, e);
}
