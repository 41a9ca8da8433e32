/* SPDX-License-Identifier: GPL-3.0-or-later */
/* progress: "events done, rate, share done, ETA" on stderr while a long
 * run reads its trace. On a terminal, one line rewritten a few times a
 * second and cleared at the end; otherwise (a batch job's log) a full line
 * every few seconds, a heartbeat: every WEFT_PROGRESS seconds (a decimal
 * number, default 5; "off" for none). The share and the ETA come from the
 * bytes of the streams read so far; until some are, the ETA is "?". */
#ifndef WEFT_PROGRESS_H
#define WEFT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct weft_stream;

struct progress {
	int on, tty;
	double t0, last, every; /* every: seconds between two lines */
	uint64_t total_bytes;
	struct weft_stream *streams;
	int nstreams;
};

void progress_start(struct progress *p, int wanted, struct weft_stream *s, int n);
void progress_update(struct progress *p, uint64_t events);
/* The same when the caller counts the bytes read (emu -j: the workers'). */
void progress_update_bytes(struct progress *p, uint64_t events, uint64_t done_bytes);
void progress_end(struct progress *p);
/* The line's text: "weft: 2097152 events, 1.3 M/s, 42%, ETA 3 s" after
 * `elapsed` seconds with `frac` of the bytes read ("ETA ?" while frac is
 * 0 or nothing has taken time yet). */
void progress_format(char *buf, size_t n, uint64_t events, double elapsed, double frac);

#endif
