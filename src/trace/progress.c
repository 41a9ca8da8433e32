/* SPDX-License-Identifier: GPL-3.0-or-later */
/* progress: a terminal's progress line, or a batch job's heartbeat. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/progress.h"
#include "trace/stream.h"

#define TTY_EVERY 0.25
#define LOG_EVERY 5.0

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* WEFT_PROGRESS: the seconds between heartbeat lines; < 0: none. */
static double log_every(void)
{
	const char *s = getenv("WEFT_PROGRESS");
	if (!s || !*s)
		return LOG_EVERY;
	if (strcmp(s, "off") == 0)
		return -1;
	char *end;
	double v = strtod(s, &end);
	return *end || v < 0 ? LOG_EVERY : v;
}

void progress_start(struct progress *p, int wanted, struct weft_stream *s, int n)
{
	p->tty = isatty(STDERR_FILENO);
	p->every = p->tty ? TTY_EVERY : log_every();
	p->on = wanted && p->every >= 0;
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
	if (t - p->last < p->every)
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
	if (t - p->last >= p->every)
		show(p, t, events, done);
}

void progress_format(char *buf, size_t n, uint64_t events, double elapsed, double frac)
{
	int k = snprintf(buf, n, "weft: %llu events, %.1f M/s, %.0f%%, ETA ", (unsigned long long) events,
			 elapsed > 0 ? (double) events / elapsed / 1e6 : 0.0, frac * 100);
	if (k < 0 || (size_t) k >= n)
		return;
	if (frac > 0 && elapsed > 0)
		snprintf(buf + k, n - (size_t) k, "%.0f s", elapsed * (1 - frac) / frac);
	else
		snprintf(buf + k, n - (size_t) k, "?");
}

static void show(struct progress *p, double t, uint64_t events, uint64_t done)
{
	char line[160];
	p->last = t;
	double frac = p->total_bytes ? (double) done / (double) p->total_bytes : 0;
	progress_format(line, sizeof(line), events, t - p->t0, frac > 1 ? 1 : frac);
	if (p->tty)
		fprintf(stderr, "\r%s   ", line);
	else
		fprintf(stderr, "%s\n", line);
}

void progress_end(struct progress *p)
{
	if (p->on && p->tty && p->last > p->t0)
		fputs("\r\033[K", stderr);
}
