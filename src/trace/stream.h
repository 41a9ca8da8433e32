/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stream: a cursor over one mapped stream.obs.
 * Two modes:
 *  - STREAM_RAW yields events in file order (top, counting). Clocks must not
 *    decrease, except for events inside OU[ .. OU] unordered regions (the
 *    event after a region not below any in it).
 * Regions are what ovnisort sorts: from an OU[ to the first OU] after it
 * (an OU[ inside is an event of the region, an OU] outside any is an event
 * like others); the OU] keeps its place after the sorted events, and a
 * region never closed is not sorted (its clocks must not decrease).
 *  - STREAM_ORDERED yields events in clock order: a scanner runs up to
 *    `window` bytes ahead of the reader, finds unordered regions, and the
 *    span from the first event a region must precede through the region's end
 *    is sorted in memory as ovnisort sorts it: for each region in turn,
 *    stably by clock from just after the last event earlier than the
 *    region's earliest (the result, when its clocks never decrease, is the
 *    stream stably sorted by clock; else the clock goes backwards where
 *    ovniemu finds it going backwards). Inputs are never
 *    rewritten. A region reaching back further than the window is reported as
 *    a clock going backwards, naming the window.
 * Memory per stream is bounded by the window, never by the stream length. */
#ifndef WEFT_STREAM_H
#define WEFT_STREAM_H

#include <stdint.h>
#include <string.h>

#include "clock/clock.h"
#include "trace/event.h"
#include "util/mapfile.h"
#include "trace/obs.h"
#include "trace/salvage.h"
#include "util/macros.h"

enum stream_mode { STREAM_RAW, STREAM_ORDERED };

/* Default look-back: how far an unordered region may reach back (bytes). */
#define STREAM_DEFAULT_WINDOW (1u << 20)

struct stream_region {
	uint64_t start, end; /* byte offsets of OU[ and of its OU] (not sorted) */
	uint64_t own_min; /* smallest clock of its events (not the OU['s) */
	uint64_t min_clock; /* own_min; once queued, also of every later queued region */
};

struct stream_span_ent {
	uint64_t clock, off;
};

struct weft_stream {
	int index;              /* position in the trace's stream list */
	int active;             /* opened for reading */
	char *rel;              /* directory relative to the trace */
	char *obs_path, *json_path;
	struct weft_thread *thread;
	const char *label;      /* "loom/pid/tid " for output, padded to 64 bytes */
	uint32_t label_len;     /* without the padding */
	int input;              /* which input of the trace it comes from */
	/* clock correction (clock.h): time = clock + offset, plus
	 * drift x (clock - tref) when drift is not 0 */
	int64_t offset;
	int64_t drift;          /* parts per 10^12 */
	uint64_t tref;
	/* a piecewise clock (nseg > 1, clock.h): segment k's line instead,
	 * offset by seg[k].offset - seg[0].offset; the times are kept from
	 * going backwards at a segment's start (last_time) */
	const struct clock_seg *seg;
	int nseg;
	uint64_t last_time;

	struct mapfile map;
	int swap;
	/* --salvage: a stream cut mid-event is read up to its last whole
	 * event (map.size is then cut.off until stream_close; file_size the
	 * file's) */
	int salvage;
	int was_cut;
	struct obs_cut cut;
	uint64_t file_size;
	enum stream_mode mode;
	uint64_t window;
	/* merge (emu/merge.h): 1 when the run only steps this stream (a -j
	 * worker's foreign stream, read with stream_skip) */
	int merge_foreign;
	int merge_rank; /* its loom's rank in the merge's order of equal times */

	struct weft_ev ev;      /* the current event after stream_next() == 1 */
	uint64_t pos;           /* next offset the reader decodes */
	uint64_t fast_until;    /* plain events can be read up to here unchecked */
	uint64_t last_clock;    /* of the last event (0 before the first) */
	int in_region;          /* raw mode: inside OU[ .. OU] */
	uint64_t reg_max; /* raw mode, in a region: its largest clock so far */
	uint64_t reg_bad; /* raw mode, in a region: offset of its first event earlier
	                         * than one before it (0: none), an error if it never closes */
	uint64_t nevents;       /* events read in raw mode (weft top) */

	/* ordered mode: scanner state */
	uint64_t scan;
	int scan_open;
	struct stream_region scan_reg;
	int scan_failed;
	uint64_t scan_fail_off;
	struct weft_err scan_err;
	struct stream_region *regs;
	int reg_head, reg_tail, reg_cap;

	/* ordered mode: the sorted span being emitted */
	struct stream_span_ent *span;
	uint64_t span_len, span_pos, span_cap, span_end;
};

/* Map the stream and check its header. With s->salvage set, a stream cut
 * mid-event ends at its last whole event (s->was_cut, s->cut say what is
 * dropped); else reading the cut event is an error that suggests
 * --salvage. */
WEFT_MUST_CHECK int stream_open(struct weft_stream *s, enum stream_mode mode, struct weft_err *e);
/* The n bytes that follow the current event (s->ev) in the stream as
 * ovnisort leaves it: in a sorted span, the span's next events in their
 * sorted order, then the stream from the span's end; zeros past the
 * stream's end (as in a mapping's last page). Returns how many came from
 * the stream. For reading a damaged payload as ovniemu reads it. */
size_t stream_follow(struct weft_stream *s, uint8_t *buf, size_t n);

WEFT_MUST_CHECK int stream_next_slow(struct weft_stream *s, struct weft_err *e);
WEFT_MUST_CHECK int stream_backwards(struct weft_stream *s, struct weft_err *e);

/* Decode an event the scanner has already checked (its size fits and its
 * MCV is printable): no check is repeated. */
static inline uint64_t stream_decode_scanned(struct weft_stream *s, uint64_t off, struct weft_ev *ev)
{
	const uint8_t *p = s->map.data + off;
	uint64_t sz;
	if (__builtin_expect(p[0] & OBS_FLAG_JUMBO, 0)) {
		uint32_t len = obs_u32(p + OBS_EV_HEADER, s->swap);
		ev->payload = p + OBS_EV_HEADER + 4;
		ev->payload_len = len;
		ev->jumbo = 1;
		sz = OBS_EV_HEADER + 4 + (uint64_t) len;
		ev->model = p[1];
		ev->cat = p[2];
		ev->val = p[3];
	} else {
		uint32_t w;
		memcpy(&w, p, 4);
		uint32_t code = p[0] & 0x0fu;
		uint32_t len = code + (code != 0);
		ev->payload = p + OBS_EV_HEADER;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* model, cat, val, jumbo (0) and payload_len in one store */
		uint64_t head = (uint64_t) (w >> 8) | (uint64_t) len << 32;
		memcpy(ev, &head, 8);
#else
		ev->model = p[1];
		ev->cat = p[2];
		ev->val = p[3];
		ev->jumbo = 0;
		ev->payload_len = len;
		(void) w;
#endif
		sz = OBS_EV_HEADER + len;
	}
	ev->clock = obs_u64(p + 4, s->swap);
	ev->offset = off;
	ev->time = ev->clock + (uint64_t) s->offset;
	return sz;
}

/* Advance: 1 = s->ev holds the next event, 0 = end of stream, -1 = error.
 * Inline for the common case: plain events the scanner has passed (ordered
 * mode, no unordered region near). */
static inline int stream_next(struct weft_stream *s, struct weft_err *e)
{
	if (__builtin_expect(s->pos >= s->fast_until, 0))
		return stream_next_slow(s, e);
	struct weft_ev *ev = &s->ev;
	s->pos += stream_decode_scanned(s, s->pos, ev);
	/* streams are read interleaved: fetch ahead of the hardware (a
	 * prefetch never faults, even past the end of the map) */
	__builtin_prefetch(s->map.data + s->pos + 512);
	/* pages are given back on the slow path: fast_until stops there */
	if (__builtin_expect(ev->clock < s->last_clock, 0))
		return stream_backwards(s, e);
	s->last_clock = ev->clock;
	return 1;
}
/* stream_next for a stream whose events are not used, only their order
 * (the merge's foreign streams): the same sequence of times, with ev.time,
 * ev.clock and ev.offset set and the rest of ev left as it was, except where
 * the slow path decodes the whole event. */
static inline int stream_skip(struct weft_stream *s, struct weft_err *e)
{
	uint64_t pos = s->pos;
	if (__builtin_expect(pos >= s->fast_until, 0))
		return stream_next_slow(s, e);
	const uint8_t *p = s->map.data + pos;
	uint32_t code = p[0] & 0x0fu;
	uint64_t sz = OBS_EV_HEADER + code + (code != 0);
	if (__builtin_expect(p[0] & OBS_FLAG_JUMBO, 0))
		sz = OBS_EV_HEADER + 4 + (uint64_t) obs_u32(p + OBS_EV_HEADER, s->swap);
	uint64_t clock = obs_u64(p + 4, s->swap);
	s->pos = pos + sz;
	__builtin_prefetch(s->map.data + pos + sz + 512);
	if (__builtin_expect(clock < s->last_clock, 0)) {
		stream_decode_scanned(s, pos, &s->ev);
		return stream_backwards(s, e);
	}
	s->last_clock = clock;
	s->ev.clock = clock;
	s->ev.offset = pos;
	s->ev.time = clock + (uint64_t) s->offset;
	return 1;
}
void stream_close(struct weft_stream *s);
/* The raw clock of the stream's first event, read without moving the cursor
 * (call before the first stream_next); a stream not opened (left out by
 * --stream) is read from its file, since clock references (a drift table's
 * t_ref) depend on the whole trace. 0 when the stream has no event. */
int stream_first_clock(const struct weft_stream *s, uint64_t *clock);

#endif
