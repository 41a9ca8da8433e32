/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_par: the plain lines of a new-format log read on two threads.
 * The region [start, end) of the log (every line in it ends with a '\n',
 * 8 bytes readable past any byte of it: see picl_plain_lines) is cut into
 * chunks of about PICL_CHUNK bytes at line starts. A helper thread and the
 * caller read chunks ahead of the caller's position (at most PICL_RING
 * ahead) with picl_plain_lines, each chunk stopping at its first line that
 * is not plain; the caller takes the chunks in order (picl_par_take) and
 * reads the lines a chunk left, serially, itself. A chunk is read with the
 * -6 aliases known when it was claimed: the caller checks they are still
 * the same when it takes the chunk (aliases only grow), else it reads the
 * chunk itself. Private to the PICL importer. */
#ifndef WEFT_PICL_PAR_H
#define WEFT_PICL_PAR_H

#include "import/picl/picl_int.h"

#define PICL_CHUNK (32u << 10)
#define PICL_RING 8

struct picl_par;

/* NULL when the region is too small to be worth a thread, or no thread
 * could be started: read serially then. Tests: WEFT_PICL_THREADS=1 in the
 * environment reads serially, WEFT_PICL_CHUNK=N cuts chunks of N bytes. */
struct picl_par *picl_par_start(const char *start, const char *end, unsigned alias);
/* Chunk k's bounds: [*s, *e), line starts (*e == end for the last). */
size_t picl_par_nchunks(const struct picl_par *q);
void picl_par_bounds(const struct picl_par *q, size_t k, const char **s, const char **e);
/* Chunk k (the one after the last taken), read: its records (lines
 * numbered 1.. from its start; `alias` the bits it was read with) and where
 * it stopped (*stop == its end when every line was plain). Valid until
 * picl_par_done(k). */
const struct picl_plain *picl_par_take(struct picl_par *q, size_t k, const char **stop);
void picl_par_done(struct picl_par *q, size_t k);
/* The aliases known now (after a -6 record). */
void picl_par_alias(struct picl_par *q, unsigned alias);
/* Stops the thread (also before every chunk was taken) and frees. */
void picl_par_end(struct picl_par *q);

#endif
