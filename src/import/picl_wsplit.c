/* picl_wsplit: the writing thread of odd processors (see picl_wsplit.h).
 * One batch at a time: posted under the mutex, written outside it. */
#include <pthread.h>
#include <stdlib.h>

#include "picl_wsplit.h"

struct picl_wsplit {
	struct picl *p;
	const char *outdir;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct orec *r; /* the batch posted */
	size_t n;
	uint64_t at0;
	int busy, stop, failed;
	struct weft_err err;
	struct picl_laters later;
	struct orec *spare;   /* the array the caller does not fill */
	size_t spare_cap;
};

static void *wmain(void *arg)
{
	struct picl_wsplit *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->busy && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->busy)
			break;
		pthread_mutex_unlock(&w->mu);
		int rc = w->failed ? 0
				   : picl_write_part(w->p, w->r, w->n, w->at0, 1, &w->later, &w->err, w->outdir);
		pthread_mutex_lock(&w->mu);
		if (rc)
			w->failed = 1;
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct picl_wsplit *picl_wsplit_start(struct picl *p, const char *outdir)
{
	if (picl_one_thread())
		return NULL;
	struct picl_wsplit *w = weft_xcalloc(1, sizeof(*w));
	w->p = p;
	w->outdir = outdir;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->th, NULL, wmain, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

int picl_wsplit_wait(struct picl_wsplit *w, struct weft_err *err)
{
	pthread_mutex_lock(&w->mu);
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	int failed = w->failed;
	pthread_mutex_unlock(&w->mu);
	if (failed && err)
		*err = w->err;
	return failed ? -1 : 0;
}

void picl_wsplit_post(struct picl_wsplit *w, const struct orec *r, size_t n, uint64_t at0)
{
	pthread_mutex_lock(&w->mu);
	w->r = r;
	w->n = n;
	w->at0 = at0;
	w->busy = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void picl_wsplit_swap(struct picl_wsplit *w, struct orec **r, size_t *cap)
{
	struct orec *t = w->spare;
	size_t c = w->spare_cap;
	w->spare = *r;
	w->spare_cap = *cap;
	*r = t;
	*cap = c;
}

struct picl_laters *picl_wsplit_later(struct picl_wsplit *w)
{
	return &w->later;
}

int picl_wsplit_end(struct picl_wsplit *w, struct weft_err *err)
{
	int rc = picl_wsplit_wait(w, err);
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w->spare);
	free(w);
	return rc;
}
