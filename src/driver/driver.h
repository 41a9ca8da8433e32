/* SPDX-License-Identifier: GPL-3.0-or-later */
/* driver: weft serve's tracer driver — analysers on a Unix socket, each with
 * its own labelled patterns, over one replay (the protocol: doc/driver.md).
 *
 * A sink of the merged, clock-corrected (and, unless plain, emulated)
 * stream: the command hands every event to driver_event() in merged order,
 * before the models apply it, and the driver never reaches back; pausing
 * the replay is returning late. The patterns of all analysers live in
 * shards, each a struct query of at most 64 patterns holding the whole of
 * some analysers' patterns, so an event costs one prefilter look-up per
 * shard however many analysers there are, and each analyser gets one line
 * per matching event with its labels and the attributes it asked for.
 *
 * One thread. The sockets are polled between events every DRV_SERVICE
 * events, and whenever the replay waits: at an event where some analysers'
 * synchronous patterns matched (or that they stepped to), until every one of
 * them has said go; and while an analyser's queue holds more than its bound
 * (asynchronous analysers pace the replay, never stop it). An analyser the
 * replay waits on that takes none of its bytes for `stall` seconds is
 * disconnected, as is one whose socket fails; its patterns go, and its
 * stop counts as go. Requests are handled only between events, so what an
 * analyser adds applies from the next event. */
#ifndef WEFT_DRIVER_H
#define WEFT_DRIVER_H

#include <stdint.h>

#include "evtable.h"
#include "require.h"
#include "query/query.h"
#include "util/err.h"
#include "util/outbuf.h"
#include "util/usock.h"
#include "util/macros.h"

struct emu;
struct weft_trace;

#define DRV_PROTOCOL 1
#define DRV_SERVICE 16384 /* events between two polls of the sockets */
#define DRV_MAX_REQUEST (1u << 20) /* bytes in one request line */

struct drv_opts {
	const char *socket;
	const char *trace; /* TRACE as given, for the hello */
	int wait; /* analysers that must have said go before the first event */
	size_t buffer; /* bytes queued for an analyser before the replay waits */
	double stall; /* seconds; 0: never disconnect a slow analyser */
	struct model_set models; /* the command's registry (outlives the driver) */
};

/* The replay's position. */
enum drv_at { DRV_START, DRV_RUN, DRV_END };

struct drv_client;

struct drv_shard {
	struct query q;
	int nclients;
};

struct driver {
	struct drv_opts o;
	struct usock sock;
	int sigfd;
	struct evtable tab; /* compiled once, shared by the shards */
	const struct weft_trace *tr;
	struct emu *emu; /* NULL: plain (no models) */
	uint64_t t0;
	enum drv_at at;
	uint64_t chrono; /* events seen */
	const struct weft_ev *cur; /* the event the replay is stopped at */
	struct drv_shard **shard;
	int nshard;
	struct drv_client **cl;
	int ncl, clcap;
	unsigned next_id;
	int nready; /* analysers that said their first go (or step) */
	int nstopped; /* analysers whose go the replay waits for */
	int nstep; /* analysers to stop at the next event */
	int paced; /* some queue is over its bound */
	int reap; /* some analyser is gone: free it between events */
	int countdown; /* events to the next poll */
	int accept_paused; /* out of descriptors: not listening until an analyser leaves */
	int interrupted; /* the signal, once one came */
	struct outbuf scratch; /* request texts, error messages */
};

/* Listen on o->socket; 0 or -1 with e filled. */
WEFT_MUST_CHECK int driver_open(struct driver *d, const struct drv_opts *o, struct weft_err *e);
/* The replay's source is open: bind to it (emu NULL: plain) and wait until
 * o->wait analysers have said go and every analyser there has (one that
 * leaves before its go, such as a probe of the socket, is not counted).
 * 0, or -1 when interrupted (e filled). */
WEFT_MUST_CHECK int driver_start(struct driver *d, const struct weft_trace *tr, struct emu *emu, uint64_t t0,
				 struct weft_err *e);
/* After driver_start: does an analyser need the models? A pattern on
 * state.<model> or cpu (its condition or its current(...)), a synchronous
 * pattern or a stop (while stopped, current(...) may ask for anything), an
 * analyser stepping. */
int driver_needs_models(const struct driver *d);
/* The replay goes on without the models: state.<model> and cpu are absent
 * from now on, and patterns on them are refused (as with --plain). */
void driver_drop_models(struct driver *d);
/* The end: each analyser gets its kept lines, its summary and the end line
 * (with `why` when the replay failed, else NULL), and is disconnected once
 * it has taken them. */
void driver_end(struct driver *d, const char *why);
void driver_close(struct driver *d);

/* ---- per event ------------------------------------------------------------ */

void drv_matched(struct driver *d, int shard, const struct weft_ev *ev, uint64_t m);
int drv_after_event(struct driver *d, const struct weft_ev *ev);

/* Every event, in merged order, before the models see it. Nonzero: stop
 * the replay (a signal came). */
static inline int driver_event(struct driver *d, const struct weft_ev *ev)
{
	for (int i = 0; i < d->nshard; i++) {
		uint64_t m = query_match(&d->shard[i]->q, ev);
		if (__builtin_expect(m != 0, 0))
			drv_matched(d, i, ev, m);
	}
	d->chrono++;
	if (__builtin_expect((d->nstopped | d->nstep | d->paced | d->reap) != 0 || --d->countdown <= 0, 0))
		return drv_after_event(d, ev);
	return 0;
}

#endif
