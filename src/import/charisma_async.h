/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_async: the asynchronous requests of a CHARISMA trace in flight,
 * from their RW record to their ASYNCH_END, keyed by (client or
 * application, its id, async id). An open-addressing table over a pool of
 * entries that are reused: after the first requests, issuing and ending one
 * allocates nothing (each entry keeps its array of clients). */
#ifndef WEFT_CHARISMA_ASYNC_H
#define WEFT_CHARISMA_ASYNC_H

#include <stddef.h>
#include <stdint.h>

struct client;

struct akey {
	int64_t kind; /* 0 client, 1 application */
	int64_t who, id;
};

struct async_req {
	struct akey k;
	struct client **cl; /* the clients it was issued on */
	size_t ncl, capcl;
	size_t off;         /* byte offset of its RW record */
	uint64_t seq;       /* order of issue */
};

struct atab {
	struct async_req *pool;
	uint32_t npool, cappool;
	uint32_t *freed;    /* pool entries to reuse */
	uint32_t nfreed;
	uint32_t *slot;     /* pool index + 1 by hash, 0: empty */
	uint32_t mask, used;
	uint64_t seq;
};

/* The request with key k, or NULL. */
struct async_req *at_find(const struct atab *t, struct akey k);
/* A new request with key k (not in the table) and room for `ncl` clients
 * (ncl stays 0). The pointer is valid until the next at_add. */
struct async_req *at_add(struct atab *t, struct akey k, size_t ncl);
/* Remove a request found by at_find. */
void at_del(struct atab *t, struct async_req *q);
/* The requests still in flight in order of issue (free() the array);
 * returns their count. */
size_t at_left(const struct atab *t, struct async_req ***out);
void at_free(struct atab *t);

#endif
