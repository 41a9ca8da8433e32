/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mapfile: read-only memory maps of input files.
 * Inputs are opened O_RDONLY and mapped PROT_READ; nothing here can write
 * them. map_release() drops already-consumed pages from the resident set so
 * reading a trace sequentially keeps memory flat whatever its length.
 *
 * A file that shrinks while mapped (copied over, cleaned, truncated by
 * another program) would kill the process with SIGBUS on its first page past
 * the new end. Instead, every mapping is registered for a SIGBUS handler
 * that puts zero pages where the file's pages were, marks the mapping and
 * lets the reader go on; map_inputs_check() then turns any such mark into
 * "FILE: changed while being read (now N bytes)", exit 1. The commands call
 * it before they commit an output and when they report an error (the zeros
 * may have made one up), so the hot path pays nothing. The registry is the
 * one process-wide state of weft: a signal handler has no other way in. */
#ifndef WEFT_MAPFILE_H
#define WEFT_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

struct mapfile {
	const uint8_t *data; /* never NULL: an empty file maps to "" */
	size_t size;
	size_t released;     /* bytes below this offset were given back */
	int keep;            /* not a file mapping (tests): never give pages back */
	size_t step;         /* bytes read between two give-backs (0: MAP_RELEASE_STEP) */
	struct map_slot *slot; /* its entry for the SIGBUS handler (NULL: none) */
};

/* Open an input for reading without ever blocking: a FIFO, a device or a
 * directory is refused at once, naming what it is ("a FIFO (named pipe),
 * not a regular file"). Returns a descriptor of a regular file (blocking
 * reads, close-on-exec) or -1 with *e filled (exit 1). */
WEFT_MUST_CHECK int input_open(const char *path, struct weft_err *e);

WEFT_MUST_CHECK int map_open(struct mapfile *m, const char *path, struct weft_err *e);
/* A whole text input read into a new NUL-terminated buffer (free it), for
 * the small files weft reads at once (patterns, model files, labels):
 * opened as input_open() does (never blocks: regular files only) and
 * refused, naming `what` it is, when over `max` bytes, so /dev/zero, a
 * FIFO or a huge file is an error at once, not a hang or a heap. NULL
 * with *e filled (exit 1). *len: the bytes read (NULs included). */
WEFT_MUST_CHECK char *input_slurp(const char *path, size_t max, const char *what, size_t *len, struct weft_err *e);
/* What input_slurp reads at most of a text file weft reads whole. */
#define INPUT_TEXT_MAX (64u << 20)
void map_close(struct mapfile *m);
/* Whether the file under m shrank while mapped (its tail now reads as
 * zeros); map_inputs_check() reports it. */
int map_changed(const struct mapfile *m);
/* 0 when no input mapped so far changed under weft; else -1 with *e filled
 * with the first one: "FILE: changed while being read (now N bytes)",
 * exit 1. Call before committing outputs, and before reporting an error. */
WEFT_MUST_CHECK int map_inputs_check(struct weft_err *e);
/* Give back the whole blocks (MAP_BLOCK) below `upto`, all of it when
 * `upto` is the end: the reader must not touch them again (call as it
 * moves on, with the first byte it still needs; cheap until a release
 * step of bytes has been read). */
void map_release_now(struct mapfile *m, size_t upto);
/* Give back the pages from `from` through the end of to's block, read
 * ahead of the reader (they come back from the page cache if read again);
 * `released` stays. */
void map_drop(struct mapfile *m, size_t from, size_t to);

/* A read fault on a file mapping maps more than its page: every page of its
 * aligned block that the page cache holds (the kernel's fault-around,
 * 64 KiB by default), and since Linux 6.18 the whole folio it falls in (a
 * file written in large pieces sits in folios of up to 2 MiB), the pages
 * before the faulting one included; both are blocks of the address. So a
 * file is mapped at an address aligned to MAP_BLOCK (MAP_REACH for a file
 * that large), where they are blocks of the file, pages are given back in
 * whole blocks, which a fault just above `released` does not map again,
 * and each give-back also covers the MAP_REACH bytes below `released`,
 * which a fault in a large folio may have mapped again: nothing stays
 * mapped below the reader for longer than one step. */
#define MAP_BLOCK (64u << 10)
#define MAP_REACH (2u << 20)
#define MAP_RELEASE_STEP (2u << 20)
/* With many files read at once, the steps together stay near this; a step
 * is whole blocks, at least one (a trace of 10,000 streams keeps 64 to
 * 128 KiB of each, not 2 MiB: its block and the one it reads into). */
#define MAP_RELEASE_BUDGET (64u << 20)
#define MAP_RELEASE_MIN MAP_BLOCK

/* The release step for one of n files read side by side, their resident
 * pages together near `budget` bytes (0: MAP_RELEASE_BUDGET). */
static inline size_t map_release_step_in(size_t budget, size_t n)
{
	size_t b = budget ? budget : MAP_RELEASE_BUDGET;
	size_t s = n ? b / n : MAP_RELEASE_STEP;
	s = s > MAP_RELEASE_STEP ? MAP_RELEASE_STEP : s < MAP_RELEASE_MIN ? MAP_RELEASE_MIN : s;
	return s & ~(size_t) (MAP_BLOCK - 1);
}

static inline size_t map_release_step(size_t n)
{
	return map_release_step_in(0, n);
}

static inline void map_release(struct mapfile *m, size_t upto)
{
	if (upto >= m->released + (m->step ? m->step : MAP_RELEASE_STEP))
		map_release_now(m, upto);
}

#endif
