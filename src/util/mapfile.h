/* mapfile: read-only memory maps of input files.
 * Inputs are opened O_RDONLY and mapped PROT_READ; nothing here can write
 * them. map_release() drops already-consumed pages from the resident set so
 * reading a trace sequentially keeps memory flat whatever its length. */
#ifndef WEFT_MAPFILE_H
#define WEFT_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct mapfile {
	const uint8_t *data; /* never NULL: an empty file maps to "" */
	size_t size;
	size_t released;     /* bytes below this offset were given back */
	int keep;            /* not a file mapping (tests): never give pages back */
	size_t step;         /* bytes read between two give-backs (0: MAP_RELEASE_STEP) */
};

/* Open an input for reading without ever blocking: a FIFO, a device or a
 * directory is refused at once, naming what it is ("a FIFO (named pipe),
 * not a regular file"). Returns a descriptor of a regular file (blocking
 * reads, close-on-exec) or -1 with *e filled (exit 1). */
int input_open(const char *path, struct weft_err *e);

int map_open(struct mapfile *m, const char *path, struct weft_err *e);
void map_close(struct mapfile *m);
/* Give back whole pages below `upto` (call as the reader moves on; cheap
 * until a release step of bytes has been read). */
void map_release_now(struct mapfile *m, size_t upto);
/* Give back the whole pages inside [from, to) read ahead of the reader
 * (they come back from the page cache if read again); `released` stays. */
void map_drop(struct mapfile *m, size_t from, size_t to);

#define MAP_RELEASE_STEP (2u << 20)
/* With many files read at once, the steps together stay near this (a
 * trace of 10,000 streams keeps 16 KiB of each, not 2 MiB). */
#define MAP_RELEASE_BUDGET (64u << 20)
#define MAP_RELEASE_MIN (16u << 10)

/* The release step for one of n files read side by side. */
static inline size_t map_release_step(size_t n)
{
	size_t s = n ? MAP_RELEASE_BUDGET / n : MAP_RELEASE_STEP;
	return s > MAP_RELEASE_STEP ? MAP_RELEASE_STEP : s < MAP_RELEASE_MIN ? MAP_RELEASE_MIN : s;
}

static inline void map_release(struct mapfile *m, size_t upto)
{
	if (upto >= m->released + (m->step ? m->step : MAP_RELEASE_STEP))
		map_release_now(m, upto);
}

#endif
