/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dint: what the driver's files share among themselves (not an API). */
#ifndef WEFT_DINT_H
#define WEFT_DINT_H

#include "driver/driver.h"
#include "util/macros.h"

/* Bytes queued for an analyser that are written at once, not at the next
 * poll: the replay keeps the socket busy without a write per message. */
#define DRV_FLUSH (64u << 10)

/* One analyser (a connection). */
struct drv_client {
	int fd; /* nonblocking */
	unsigned id; /* 1, 2, ... in the order they came */
	struct outbuf out; /* OB_GROW: bytes [sent, len) are not yet written */
	size_t sent;
	char *in; /* a request not yet ended by '\n' */
	size_t inlen, incap;
	int skipping; /* a request over DRV_MAX_REQUEST: dropped up to its '\n' */
	struct drv_shard *sh; /* where its patterns are */
	int npat;
	int stopped; /* the replay waits for its go */
	int step; /* to stop at the next event */
	int gone; /* disconnected or failed: freed between events */
	int ending; /* the end is queued: no more requests */
	uint64_t unread; /* bytes it had not taken at the last look */
	double since; /* when it last took bytes while the replay waited on it (0: not waited on) */
};

static inline size_t drv_pending(const struct drv_client *c)
{
	return c->out.len - c->sent;
}

/* ---- driver.c: analysers and shards ---- */

/* A new connection: an analyser with the hello queued. */
void drv_client_new(struct driver *d, int fd);
/* Free the analysers that are gone (their patterns removed, their stops
 * counted as go); between events only. */
void drv_reap(struct driver *d);
/* Make room for one more pattern of c in its shard (moving its patterns
 * to another shard when its own is full): 0, or -1 with e filled. */
WEFT_MUST_CHECK int drv_room(struct driver *d, struct drv_client *c, struct weft_err *e);
/* The analyser's patterns are fewer (a shard without analysers goes). */
void drv_shard_tidy(struct driver *d);

/* ---- io.c: the sockets ---- */

/* Poll every socket once, waiting up to timeout_ms (0: not at all):
 * accept, read and handle requests, write queues, notice signals. */
void drv_poll(struct driver *d, int timeout_ms);
/* Write what the socket takes of c's queue now. */
void drv_flush(struct driver *d, struct drv_client *c);
/* While the replay waits on c: disconnect it when it has taken nothing of
 * its bytes for o.stall seconds (now: monotonic seconds). */
void drv_check_stall(struct driver *d, struct drv_client *c, double now);
double drv_now(void);
/* Mark c gone (its socket failed or closed; `why` for the warning, or NULL). */
void drv_gone(struct driver *d, struct drv_client *c, const char *why);

/* ---- requests.c ---- */

/* One request line (without its '\n'), answered on c's queue. */
void drv_request(struct driver *d, struct drv_client *c, const char *line, size_t n);
/* A JSON reply line of c: {"error":MSG[,"request":NAME]}; returns 0. */
int drv_reply_error(struct drv_client *c, const char *request, const char *msg);
/* The JSON summary object of c's patterns: {"events":N,"patterns":[...]}. */
void drv_put_summary(struct driver *d, struct drv_client *c, struct outbuf *o);

#endif
