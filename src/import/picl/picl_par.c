/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_par: plain lines read ahead on a helper thread (see picl_par.h).
 * One mutex guards the claims and the ring; a chunk is read outside it.
 * Both threads claim the next chunk not claimed yet, so the caller reads
 * chunks too while it would otherwise wait: the reading is shared by
 * whoever is free (the caller also writes the streams). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_par.h"

enum { SLOT_FREE, SLOT_BUSY, SLOT_DONE };

struct slot {
	struct picl_plain c;
	const char *stop;
	size_t k;
	int state;
};

struct picl_par {
	const char *start, *end;
	size_t csize, nchunks;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next;     /* the next chunk to claim */
	size_t cons;     /* the next chunk the caller takes; chunks below are done with */
	unsigned alias;
	int stop;
	struct slot slot[PICL_RING];
};

size_t picl_par_nchunks(const struct picl_par *q)
{
	return q->nchunks;
}

/* Chunk k starts after the first '\n' at or after byte k * csize - 1. */
static const char *bound(const struct picl_par *q, size_t k)
{
	if (k == 0)
		return q->start;
	if (k >= q->nchunks)
		return q->end;
	const char *x = q->start + k * q->csize - 1;
	const char *nl = memchr(x, '\n', (size_t) (q->end - x));
	return nl ? nl + 1 : q->end;
}

void picl_par_bounds(const struct picl_par *q, size_t k, const char **s, const char **e)
{
	*s = bound(q, k);
	*e = bound(q, k + 1);
}

/* Claims and reads the next chunk; called with the lock held, returns
 * with it held. 0 if none may be claimed now. */
static int read_next(struct picl_par *q)
{
	if (q->stop || q->next >= q->nchunks || q->next >= q->cons + PICL_RING)
		return 0;
	size_t k = q->next++;
	struct slot *sl = &q->slot[k % PICL_RING];
	sl->k = k;
	sl->state = SLOT_BUSY;
	sl->c.n = 0;
	sl->c.line = 0;
	sl->c.alias = q->alias;
	sl->c.dec = 0;
	sl->c.file_at = SIZE_MAX;
	pthread_mutex_unlock(&q->mu);
	const char *s, *e;
	picl_par_bounds(q, k, &s, &e);
	sl->stop = picl_plain_lines(&sl->c, s, e, SIZE_MAX);
	pthread_mutex_lock(&q->mu);
	sl->state = SLOT_DONE;
	pthread_cond_broadcast(&q->cv);
	return 1;
}

static void *helper(void *arg)
{
	struct picl_par *q = arg;
	pthread_mutex_lock(&q->mu);
	while (!q->stop && q->next < q->nchunks)
		if (!read_next(q))
			pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct picl_par *picl_par_start(const char *start, const char *end, unsigned alias)
{
	size_t csize = PICL_CHUNK;
	const char *env = getenv("WEFT_PICL_CHUNK"); /* tests: tiny chunks on small logs */
	if (env && atol(env) > 0)
		csize = (size_t) atol(env);
	env = getenv("WEFT_PICL_THREADS"); /* tests: 1 reads on one thread */
	if (env && strcmp(env, "1") == 0)
		return NULL;
	size_t len = (size_t) (end - start), nchunks = (len + csize - 1) / csize;
	if (nchunks < 4)
		return NULL;
	struct picl_par *q = weft_xcalloc(1, sizeof(*q));
	q->start = start;
	q->end = end;
	q->csize = csize;
	q->nchunks = nchunks;
	q->alias = alias;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	if (pthread_create(&q->th, NULL, helper, q)) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
		free(q);
		return NULL;
	}
	return q;
}

const struct picl_plain *picl_par_take(struct picl_par *q, size_t k, const char **stop)
{
	struct slot *sl = &q->slot[k % PICL_RING];
	pthread_mutex_lock(&q->mu);
	while (!(sl->state == SLOT_DONE && sl->k == k))
		if (!read_next(q))
			pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	*stop = sl->stop;
	return &sl->c;
}

void picl_par_done(struct picl_par *q, size_t k)
{
	pthread_mutex_lock(&q->mu);
	q->slot[k % PICL_RING].state = SLOT_FREE;
	q->cons = k + 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void picl_par_alias(struct picl_par *q, unsigned alias)
{
	pthread_mutex_lock(&q->mu);
	q->alias = alias;
	pthread_mutex_unlock(&q->mu);
}

void picl_par_end(struct picl_par *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	for (int i = 0; i < PICL_RING; i++)
		free(q->slot[i].c.r);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q);
}
