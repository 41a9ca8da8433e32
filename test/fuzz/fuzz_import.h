/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_import.h: what the importer targets (fuzz_picl, fuzz_visandor,
 * fuzz_charisma) share: one input converted in-process by one importer, then
 * read back by weft's own reader.
 *
 * The input lives in a buffer of exactly its size (a struct mapfile with
 * keep set, as the importers' unit tests do), so a read past its end is a
 * heap overflow. The format's detect() runs on it first (any answer is fine),
 * then convert() writes ovni streams into a fresh directory under
 * $TMPDIR (/dev/shm when it exists, to spare the disk). A failed conversion
 * must be an input error with a non-empty message. A conversion that
 * succeeds must read back: trace_open() on the directory and a full ordered
 * merge of every stream succeed, with non-decreasing times; weft refusing
 * what weft wrote aborts. The directory is removed after each input. */
#ifndef WEFT_FUZZ_IMPORT_H
#define WEFT_FUZZ_IMPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/import.h"
#include "util/mapfile.h"
#include "util/rmtree.h"
#include "emu/merge.h"
#include "trace/trace.h"

static void fuzz_check(int cond)
{
	if (!cond)
		abort();
}

static void fuzz_check_err(const struct weft_err *e)
{
	fuzz_check(e->code == WEFT_EINPUT);
	fuzz_check(memchr(e->msg, '\0', sizeof(e->msg)) != NULL);
	fuzz_check(e->msg[0] != '\0');
}

static void fuzz_read_back(const char *dir)
{
	struct weft_trace t;
	struct weft_err e = {0};
	struct trace_opts to = {.mode = STREAM_ORDERED};
	if (trace_open(&t, dir, &to, &e) != 0) {
		fprintf(stderr, "read-back: %s\n", e.msg);
		abort();
	}
	struct weft_merge m;
	if (merge_init(&m, t.streams, t.nstreams, &e) != 0) {
		fprintf(stderr, "read-back: %s\n", e.msg);
		abort();
	}
	struct weft_ev *ev;
	int r;
	uint64_t last = 0;
	while ((r = merge_next(&m, &ev, &e)) > 0) {
		fuzz_check(ev->time >= last);
		last = ev->time;
	}
	if (r < 0) {
		fprintf(stderr, "read-back: %s\n", e.msg);
		abort();
	}
	merge_free(&m);
	trace_close(&t);
}

static void fuzz_import(const char *fmtname, const uint8_t *data, size_t size,
			const struct import_opts *o)
{
	const struct weft_import_fmt *f = import_by_name(fmtname);
	fuzz_check(f != NULL);
	uint8_t *buf = malloc(size ? size : 1);
	fuzz_check(buf != NULL);
	if (size)
		memcpy(buf, data, size);
	(void) f->detect(buf, size);

	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/weft-fuzz-%s.XXXXXX", base ? base : "/tmp", fmtname);
	fuzz_check(mkdtemp(dir) != NULL);

	struct mapfile in = {.data = buf, .size = size, .keep = 1};
	struct weft_err e = {0};
	if (f->convert("fuzz.log", &in, o, dir, &e) == 0)
		fuzz_read_back(dir);
	else
		fuzz_check_err(&e);
	rmtree(dir);
	free(buf);
}

#endif
