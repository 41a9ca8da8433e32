/* SPDX-License-Identifier: GPL-3.0-or-later */
/* recpipe: offsets from a scanning thread to a handling thread (see recpipe.h).
 * RP_NBATCH batches used in turn: the producer fills one while the others
 * wait for the consumer or are being handled; a batch is reused once the
 * consumer gives it back, in the order they were handed over. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "import/recpipe.h"

struct recpipe {
	rp_handle_fn handle;
	void *ctx;
	uint64_t *buf;            /* RP_NBATCH batches of RP_BATCH offsets */
	uint32_t len[RP_NBATCH];  /* offsets in each batch handed over */
	/* the producer's own */
	unsigned prod;            /* the batch it fills */
	uint32_t fill;
	/* shared, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned cons;            /* the oldest batch handed over and not given back */
	unsigned nready;          /* handed over, not taken yet */
	unsigned nused;           /* handed over, not given back yet */
	int done;                 /* the producer has finished */
	int rc;                   /* the consumer's non-zero return */
	pthread_t th;
};

static void *consumer(void *arg)
{
	struct recpipe *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->nready == 0 && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->nready == 0)
			break;
		unsigned b = (p->cons + p->nused - p->nready) % RP_NBATCH;
		p->nready--;
		pthread_mutex_unlock(&p->mu);
		const uint64_t *o = p->buf + (size_t) b * RP_BATCH;
		uint32_t n = p->len[b];
		int rc = 0;
		for (uint32_t i = 0; i < n && rc == 0; i++)
			rc = p->handle(p->ctx, o[i], i + RP_AHEAD < n ? o[i + RP_AHEAD] : UINT64_MAX);
		pthread_mutex_lock(&p->mu);
		p->cons = (p->cons + 1) % RP_NBATCH;
		p->nused--;
		pthread_cond_broadcast(&p->cv);
		if (rc) {
			p->rc = rc;
			break;
		}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct recpipe *rp_start(rp_handle_fn handle, void *ctx, struct weft_err *e)
{
	struct recpipe *p = weft_xcalloc(1, sizeof(*p));
	p->handle = handle;
	p->ctx = ctx;
	p->buf = weft_xmalloc((size_t) RP_NBATCH * RP_BATCH * sizeof(*p->buf));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	int er = pthread_create(&p->th, NULL, consumer, p);
	if (er != 0) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		free(p->buf);
		free(p);
		weft_fail(e, WEFT_EINPUT, "cannot start a thread to handle records: %s%s", strerror(er),
			  weft_sys_hint(er));
		return NULL;
	}
	return p;
}

/* Hand the producer's batch over and wait for a free one; the consumer's
 * non-zero return once it stopped. */
static int hand_over(struct recpipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->len[p->prod] = p->fill;
	p->nready++;
	p->nused++;
	pthread_cond_broadcast(&p->cv);
	while (p->nused == RP_NBATCH && !p->rc)
		pthread_cond_wait(&p->cv, &p->mu);
	int rc = p->rc;
	pthread_mutex_unlock(&p->mu);
	p->prod = (p->prod + 1) % RP_NBATCH;
	p->fill = 0;
	return rc;
}

int rp_put(struct recpipe *p, uint64_t off)
{
	p->buf[(size_t) p->prod * RP_BATCH + p->fill++] = off;
	return p->fill == RP_BATCH ? hand_over(p) : 0;
}

uint64_t rp_low_off(const struct recpipe *p)
{
	struct recpipe *m = (struct recpipe *) p; /* the lock only */
	pthread_mutex_lock(&m->mu);
	unsigned cons = p->cons, nused = p->nused;
	pthread_mutex_unlock(&m->mu);
	uint64_t low = UINT64_MAX;
	/* batches in use are not written until given back: read them unlocked */
	for (unsigned k = 0; k <= nused; k++) {
		unsigned b = (cons + k) % RP_NBATCH;
		uint32_t n = k < nused ? p->len[b] : p->fill; /* k == nused: the producer's */
		const uint64_t *o = p->buf + (size_t) b * RP_BATCH;
		for (uint32_t i = 0; i < n; i++)
			low = o[i] < low ? o[i] : low;
	}
	return low;
}

int rp_finish(struct recpipe *p)
{
	int rc = p->fill ? hand_over(p) : 0;
	pthread_mutex_lock(&p->mu);
	p->done = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	rc = p->rc ? p->rc : rc;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->buf);
	free(p);
	return rc;
}
