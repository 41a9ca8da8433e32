/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prvread: a .prv body read record by record, for tools that look at a
 * trace weft (or anyone) wrote: `weft check --views`, `weft plot`. A name
 * ending in .gz is read through zlib (weft emu -z writes thread.prv.gz).
 * It trusts the trace (`weft check` validates); a line it cannot read is
 * an error naming the file, line and what was expected. Memory: the
 * header's objects only; a plain file is mapped and its pages given back
 * as it is read, a gzipped one read in 1 MiB pieces (more for a longer
 * line), and the pairs of one event line (as many as it has). A line may
 * end in CR LF. Rows are numbered 0.. in Paraver's order (appl, task,
 * thread). */
#ifndef WEFT_PRVREAD_H
#define WEFT_PRVREAD_H

#include <stdint.h>

#include "util/err.h"
#include "util/mapfile.h"
#include "util/macros.h"

struct prvrec {
	int kind;           /* 1 state, 2 event, 3 communication */
	uint32_t row;       /* sender's row for kind 3 */
	uint64_t t0, t1;    /* state: begin, end; event: time; comm: lsend, lrecv */
	int64_t state;      /* kind 1 */
	uint32_t row2;      /* kind 3: the receiver's row */
	int npairs;         /* kind 2: the (type, value) pairs of the line */
	int64_t *type, *value; /* the reader's, valid until its next call */
};

struct prvread {
	char *path;
	struct mapfile m;
	void *gz; /* gzFile of a .gz, else NULL (m is mapped) */
	char *buf; /* .gz: the uncompressed bytes [0, len) */
	size_t cap, len;
	int eof;
	int64_t *types, *values; /* the pairs of the last event line */
	size_t cap_pairs;
	size_t off;
	uint64_t line;
	uint64_t ftime;
	uint64_t unit_ns; /* the header's time unit in ns (1: ns, 1000: us...) */
	uint32_t nrows;
	uint32_t nappl;
	uint32_t *task_base; /* per appl: index of its first task in tbase */
	uint32_t *tbase;     /* per task (global): row of its first thread */
	uint32_t *tcount;    /* per task: its threads */
	uint32_t ntasks;
};

WEFT_MUST_CHECK int prvread_open(struct prvread *r, const char *path, struct weft_err *err);
/* Whether path names a gzipped trace (ends in .gz). */
int prvread_is_gz(const char *path);
/* The next record: 1, 0 at the end, -1 on a malformed line (err filled).
 * Comments, communicator lines and kind-4 records are skipped. */
WEFT_MUST_CHECK int prvread_next(struct prvread *r, struct prvrec *rec, struct weft_err *err);
void prvread_close(struct prvread *r);

#endif
