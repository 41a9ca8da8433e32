/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gzpar: a finished file compressed into gzip by several threads at once.
 *
 * The contract:
 * - The input is in_fd from offset 0 to its size when the call starts
 *   (fstat); it is read with pread only (its offset does not move) and
 *   must not change during the call.
 * - The output is written to out_fd at its current offset, with write():
 *   the input cut in chunks of GZPAR_CHUNK bytes (the last one shorter; an
 *   empty input is one empty member), each compressed on its own into one
 *   gzip member (RFC 1952, with its own CRC-32 and size), the members in
 *   the input's order. Members written one after the other are one gzip
 *   file: gzip -d, zcat and zlib's gzread (weft's readers, Paraver's
 *   gzopen/gzgetc) decompress them as one stream (RFC 1952, 2.2).
 * - The bytes written depend on the input and the level only, never on
 *   the number of threads or on which thread took which chunk.
 * - level: 1 (the fastest) to 9 (the smallest), as gzip's -1 .. -9.
 * - nthreads: how many chunks are compressed at once (the calling thread
 *   is one of them); fewer when the input has fewer chunks, at most
 *   GZPAR_MAX_THREADS; a thread that cannot be started leaves its work to
 *   the others.
 * - Memory: a chunk and its compressed bound per thread (about 8 MiB).
 * - Returns 0, or -1 with e filled: a failed read names the input as
 *   "the temporary trace", a failed write names `what` (the file the user
 *   asked for) with the system's reason. After a failure out_fd holds
 *   some members: the caller removes it.
 */
#ifndef WEFT_GZPAR_H
#define WEFT_GZPAR_H

#include "util/err.h"
#include "util/macros.h"

#define GZPAR_CHUNK (4u << 20)
#define GZPAR_MAX_THREADS 16
/* weft emu -z without a level */
#define GZPAR_LEVEL_DEFAULT 1

WEFT_MUST_CHECK int gzpar_file(int in_fd, int out_fd, int level, int nthreads, const char *what, struct weft_err *e);

#endif
