/* progress: terminal-only progress line, at most a few updates a second. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "trace/progress.h"
#include "trace/stream.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, int wanted, struct weft_stream *s, int n)
{
	p->on = wanted && isatty(STDERR_FILENO);
	p->t0 = p->last = now_s();
	p->streams = s;
	p->nstreams = n;
	p->total_bytes = 0;
	for (int i = 0; i < n; i++)
		p->total_bytes += s[i].map.size;
}

static void show(struct progress *p, double t, uint64_t events, uint64_t done);

void progress_update(struct progress *p, uint64_t events)
{
	if (!p->on)
		return;
	double t = now_s();
	if (t - p->last < 0.25)
		return;
	uint64_t done = 0;
	for (int i = 0; i < p->nstreams; i++)
		done += p->streams[i].pos;
	show(p, t, events, done);
}

void progress_update_bytes(struct progress *p, uint64_t events, uint64_t done)
{
	if (!p->on)
		return;
	double t = now_s();
	if (t - p->last >= 0.25)
		show(p, t, events, done);
}

static void show(struct progress *p, double t, uint64_t events, uint64_t done)
{
	p->last = t;
	double rate = (double) events / (t - p->t0);
	double frac = p->total_bytes ? (double) done / (double) p->total_bytes : 0;
	double eta = frac > 0 ? (t - p->t0) * (1 - frac) / frac : 0;
	fprintf(stderr, "\rweft: %llu events, %.1f M/s, %3.0f%%, ETA %.0f s   ",
		(unsigned long long) events, rate / 1e6, frac * 100, eta);
}

void progress_end(struct progress *p)
{
	if (p->on && p->last > p->t0)
		fputs("\r\033[K", stderr);
}
