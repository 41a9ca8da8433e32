/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gzpar: parallel gzip of a finished file (see gzpar.h).
 *
 * Each thread takes the next chunk number, reads that chunk, compresses it
 * (libdeflate: one call for the whole chunk, about 2.3x zlib's speed at
 * level 1 on Paraver text, doc/dev/performance.md) and waits for its turn:
 * chunk k is written once chunk k-1 is, by the thread that compressed it,
 * outside the lock (only the thread whose turn it is writes). */
#include <errno.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/gzpar.h"

struct gzpar {
	int in_fd, out_fd, level;
	uint64_t size, nchunks;
	const char *what;
	pthread_mutex_t mu;
	pthread_cond_t turn;
	uint64_t next; /* the next chunk to take */
	uint64_t nwrite; /* the chunk whose turn it is to be written */
	int failed; /* set once: every thread stops */
	struct weft_err err;
};

struct gzworker {
	pthread_t th;
	int started;
};

/* The first failure is kept; the waiting threads are woken to stop. */
static void fail_once(struct gzpar *g, const struct weft_err *e)
{
	pthread_mutex_lock(&g->mu);
	if (!g->failed) {
		g->failed = 1;
		g->err = *e;
	}
	pthread_cond_broadcast(&g->turn);
	pthread_mutex_unlock(&g->mu);
}

static int read_chunk(struct gzpar *g, char *buf, size_t len, uint64_t off, struct weft_err *e)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(g->in_fd, buf + got, len - got, (off_t) (off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return weft_fail(e, WEFT_EINTERNAL, "cannot read the temporary trace: %s", strerror(errno));
		if (n == 0)
			return weft_fail(e, WEFT_EINTERNAL,
					 "cannot read the temporary trace: it shrank while "
					 "being compressed");
		got += (size_t) n;
	}
	return 0;
}

static int write_all(struct gzpar *g, const char *buf, size_t len, struct weft_err *e)
{
	while (len > 0) {
		ssize_t n = write(g->out_fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return weft_out_fail(e, n < 0 ? errno : ENOSPC, "%s: write failed", g->what);
		buf += n;
		len -= (size_t) n;
	}
	return 0;
}

static void *gz_work(void *arg)
{
	struct gzpar *g = arg;
	struct weft_err e = {0};
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(g->level);
	size_t cap = c ? libdeflate_gzip_compress_bound(c, GZPAR_CHUNK) : 0;
	char *in = malloc(GZPAR_CHUNK), *out = c ? malloc(cap) : NULL;
	if (!c || !in || !out) {
		weft_fail(&e, WEFT_EINTERNAL, "%s: no memory to compress it", g->what);
		fail_once(g, &e);
	}
	for (;;) {
		pthread_mutex_lock(&g->mu);
		int stop = g->failed || g->next == g->nchunks;
		uint64_t k = stop ? 0 : g->next++;
		pthread_mutex_unlock(&g->mu);
		if (stop)
			break;
		uint64_t off = k * GZPAR_CHUNK;
		size_t len = g->size - off < GZPAR_CHUNK ? (size_t) (g->size - off) : GZPAR_CHUNK;
		size_t n = 0;
		int rc = read_chunk(g, in, len, off, &e);
		if (rc == 0) {
			n = libdeflate_gzip_compress(c, in, len, out, cap);
			if (n == 0)
				rc = weft_fail(&e, WEFT_EINTERNAL, "%s: compression failed", g->what);
		}
		if (rc) {
			fail_once(g, &e);
			break;
		}
		pthread_mutex_lock(&g->mu);
		while (g->nwrite != k && !g->failed)
			pthread_cond_wait(&g->turn, &g->mu);
		stop = g->failed;
		pthread_mutex_unlock(&g->mu);
		if (stop)
			break;
		if (write_all(g, out, n, &e)) {
			fail_once(g, &e);
			break;
		}
		pthread_mutex_lock(&g->mu);
		g->nwrite++;
		pthread_cond_broadcast(&g->turn);
		pthread_mutex_unlock(&g->mu);
	}
	libdeflate_free_compressor(c);
	free(in);
	free(out);
	return NULL;
}

int gzpar_file(int in_fd, int out_fd, int level, int nthreads, const char *what, struct weft_err *e)
{
	struct stat st;
	if (fstat(in_fd, &st) != 0)
		return weft_fail(e, WEFT_EINTERNAL, "cannot read the temporary trace: %s", strerror(errno));
	struct gzpar g = {
		.in_fd = in_fd,
		.out_fd = out_fd,
		.level = level < 1  ? 1
			: level > 9 ? 9
				    : level,
		.size = (uint64_t) st.st_size,
		.what = what,
	};
	/* an empty input is one empty member: still a gzip file */
	g.nchunks = g.size ? (g.size + GZPAR_CHUNK - 1) / GZPAR_CHUNK : 1;
	if (nthreads > GZPAR_MAX_THREADS)
		nthreads = GZPAR_MAX_THREADS;
	if ((uint64_t) nthreads > g.nchunks)
		nthreads = (int) g.nchunks;
	if (nthreads < 1)
		nthreads = 1;
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.turn, NULL);
	struct gzworker w[GZPAR_MAX_THREADS];
	for (int i = 1; i < nthreads; i++) {
		w[i].started = pthread_create(&w[i].th, NULL, gz_work, &g) == 0;
	}
	gz_work(&g);
	for (int i = 1; i < nthreads; i++)
		if (w[i].started)
			pthread_join(w[i].th, NULL);
	pthread_cond_destroy(&g.turn);
	pthread_mutex_destroy(&g.mu);
	if (g.failed) {
		*e = g.err;
		return -1;
	}
	return 0;
}
