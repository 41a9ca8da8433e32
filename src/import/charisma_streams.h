/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_streams: the output of the CHARISMA importer, knowing nothing of
 * the file's layout. It promises: one ovni stream per client
 * (loom.nodeN/proc.APP/thread.CLIENT, opened when a client first joins an
 * application), the applications and their current clients, events written
 * in each stream's time order (the later end of a request waits in a small
 * per-client heap until the client's clock gets there), and at the end each
 * stream's metadata.json and the file time that gives the Paraver header
 * its date. Errors name the record and field the caller handles. */
#ifndef WEFT_CHARISMA_STREAMS_H
#define WEFT_CHARISMA_STREAMS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <uthash.h>

#include "import/charisma_read.h"
#include "import/import.h"
#include "trace/writer.h"

/* An event waiting for its time (the end of a request): its first 4 bytes
 * (ow_head) and its argument, when it has one (FA]). */
struct pend {
	uint64_t t, seq;
	uint32_t head;
	int32_t arg;
	uint64_t src; /* byte offset of the record it comes from */
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
	/* the stream import_opts.locate asks about: loc set (NULL on the
	 * others), cur the offset of the record being handled */
	struct import_locate *loc;
	const uint64_t *cur;
	UT_hash_handle hh;
};

struct chs {
	const struct rdr *r;
	const char *outdir;
	size_t bufsize;
	struct app *apps;
	int napps;
	struct client *clients;
	struct client **dense; /* by id, for small ids */
	int64_t ndense;
	uint64_t seq;
	struct weft_err *e; /* errors of the records' handling */
	struct import_locate *loc; /* import_opts.locate, NULL but to find a record */
	struct client *loc_c; /* its client, once its stream is open */
	uint64_t cur; /* byte offset of the record being handled */
};

void chs_pend_push(struct client *c, struct pend x);
/* Write the pending events of c due at `upto` or before. */
void chs_flush(struct client *c, uint64_t upto);

static inline void write_pend(struct client *c, const struct pend *x)
{
	uint8_t flags;
	memcpy(&flags, &x->head, 1);
	if (__builtin_expect(c->loc != NULL, 0)) /* what went before is the current record's */
		import_locate_after(c->loc, &c->w, *c->cur != UINT64_MAX, *c->cur);
	if (flags) /* a payload: FA]'s async id */
		ow_event_fixed(&c->w, x->head, x->t, &x->arg, 4);
	else
		ow_event_fixed(&c->w, x->head, x->t, NULL, 0);
	if (__builtin_expect(c->loc != NULL, 0))
		import_locate_after(c->loc, &c->w, 1, x->src);
}

/* Write the pending events of c due at `ns` (before an event at ns). */
static inline __attribute__((always_inline)) void due(struct client *c, uint64_t ns)
{
	if (c->npq && c->pq[0].t <= ns) {
		if (c->npq == 1) { /* the usual case: the end of the last request */
			c->npq = 0;
			write_pend(c, &c->pq[0]);
		} else {
			chs_flush(c, ns);
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

/* An event on client c at `ns`, written when the client's clock gets there. */
static inline void later(struct chs *s, struct client *c, uint64_t ns, uint32_t head, int32_t arg)
{
	struct pend x = {ns, s->seq++, head, arg, s->cur};
	if (c->npq == 0 && c->cappq) {
		c->pq[0] = x;
		c->npq = 1;
	} else {
		chs_pend_push(c, x);
	}
}

/* An event on client c at tick time t, any payload (the rarer records). */
void chs_ev(struct chs *s, struct client *c, uint64_t t, const char *mcv, const void *pl, size_t len);
/* The application `id`, made (numbered in order of appearance) when `create`. */
struct app *chs_get_app(struct chs *s, int64_t id, int create);
/* Bind client `id` (named by `field` of the record of type rt at `off`) to
 * application a at tick t (APP_LOAD's list, CLIENT_JOIN): its stream opened
 * the first time. Returns 0, or -1 with s->e filled. */
int chs_bind(struct chs *s, size_t off, int rt, struct app *a, const char *field, int64_t id, uint64_t t);
/* The client of field client_id (req < 0) or requests[req].client_id, or
 * NULL with s->e filled. */
struct client *chs_need_client(struct chs *s, size_t off, int rt, int64_t req, int64_t id);
/* The application of field appl_id, or NULL with s->e filled. */
struct app *chs_need_app(struct chs *s, size_t off, int rt, int64_t id);
/* Write every stream's pending events, close it and write its metadata;
 * h's start_date dates the streams. Returns 0, or -1 with s->e filled. */
int chs_finish(struct chs *s, const struct header *h);
/* Free the clients (closing their streams) and applications: s is as new
 * but for r, outdir, bufsize and e. */
void chs_free(struct chs *s);

#endif
