/* SPDX-License-Identifier: GPL-3.0-or-later */
/* import: legacy trace formats as sources.
 * An importer turns one legacy log into real ovni streams (format v3: a
 * stream.json and stream.obs per thread, events of its own models) written
 * with the ovni stream writer. `weft import` keeps them; every other command
 * converts a log given in place of a trace directory into a temporary
 * directory and reads that, so dump, top, emu and query work on every format
 * through one path. Formats are a table: detection by content, conversion. */
#ifndef WEFT_IMPORT_H
#define WEFT_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/mapfile.h"
#include "trace/writer.h"
#include "util/macros.h"

struct mapfile;

/* Which record of a log wrote the event at byte offset `off` of the
 * converted stream `rel` (loom.L/proc.P/thread.T): an error of the
 * emulator on that event then names the log's line or byte offset
 * (import_locate). An importer asked it (import_opts.locate) notes the
 * stream when it opens it (import_locate_is) and, after the events of each
 * record, calls import_locate_after with that stream's writer. */
struct import_locate {
	const char *rel; /* in */
	uint64_t off; /* in */
	int found; /* out: the record is known */
	int text; /* out: pos is a line (1), or a byte offset (0) */
	int has_pos; /* out: 0 when no record wrote it (an end the importer added) */
	uint64_t pos; /* out */
};

/* Options an importer may use; NULL/0 mean its default. */
struct import_opts {
	const char *format;    /* force a format by name instead of detecting */
	const char *time_unit; /* "ns", "us", "ms", "s" (VisAndOr) */
	const char *profile;   /* CHARISMA machine profile: name or file */
	int quiet;             /* no notes on stderr (emu -q) */
	struct import_locate *locate; /* NULL but for import_locate */
};

/* Is `dir` (a stream directory under `outdir`) the one l asks about? */
int import_locate_is(const struct import_locate *l, const char *outdir, const char *dir);
/* Convert the log at `path` again, with `o` (quiet), into a scratch
 * directory removed after, to fill l (l->rel, l->off set): 1 when the record
 * was found, 0 if not (or the conversion failed). */
int import_locate(const char *path, const struct import_opts *o, struct import_locate *l);

struct weft_import_fmt {
	const char *name;
	const char *what;      /* one line for --help */
	/* 1 if the bytes look like this format */
	int (*detect)(const uint8_t *data, size_t len);
	/* Write ovni streams for the log at `path`, mapped at `in` (in->data,
	 * in->size), into the existing empty directory `outdir`. An importer
	 * that has read a part for good may give its pages back with
	 * map_release(in, upto) (reading them again is only slower). Errors
	 * name the file and line or byte offset. */
	int (*convert)(const char *path, struct mapfile *in, const struct import_opts *o, const char *outdir,
		       struct weft_err *e);
};

/* After a record's events (at line or byte offset `pos`; has_pos 0: none)
 * went to the streams, w the writer of the stream asked about (NULL: not
 * open yet): is the event asked about among them? */
static inline void import_locate_after(struct import_locate *l, const struct ovni_writer *w, int has_pos, uint64_t pos)
{
	if (w && !l->found && ow_offset(w) > l->off) {
		l->found = 1;
		l->has_pos = has_pos;
		l->pos = pos;
	}
}

/* All formats weft can import; returns the count. */
int import_formats(const struct weft_import_fmt *const **out);
const struct weft_import_fmt *import_by_name(const char *name);

/* Convert the log at `path` into `outdir` (which must exist and be empty),
 * detecting its format unless o->format names one. */
WEFT_MUST_CHECK int import_to_dir(const char *path, const struct import_opts *o, const char *outdir,
				  struct weft_err *e);

/* The time origin of a converted log, at the root of its directory:
 * {"weft_origin": 1, "format": NAME, "epoch_ns": N} where clock + N is the
 * absolute time in ns since 1970 (as a decimal string), or no "epoch_ns" when
 * the format records no absolute time (then inputs of one run start
 * together). import_to_dir writes the second form unless the importer wrote
 * the file itself. */
#define IMPORT_ORIGIN_FILE "weft-origin.json"
WEFT_MUST_CHECK int import_write_origin(const char *outdir, const char *format, int has_epoch, int64_t epoch_ns,
					struct weft_err *e);
WEFT_MUST_CHECK int import_read_origin(const char *path, int *has_epoch, int64_t *epoch_ns, struct weft_err *e);

/* A text log's line holding a NUL byte (at byte offset `off` of the file):
 * the error "PATH:LINE: byte offset OFF: a NUL byte: a text log has none"
 * (a NUL would cut every quoted field short). Returns -1. */
WEFT_MUST_CHECK int import_nul_byte(struct weft_err *e, const char *path, long line, size_t off);

/* The loom folder outdir/loom.FROM renamed outdir/loom.TO, TO being the
 * loom's name in its streams (an importer knows the padding of the names
 * only at the end); nothing when they are equal or it was renamed before.
 * 0, or -1 with e filled. */
WEFT_MUST_CHECK int import_name_loom(const char *outdir, const char *from, const char *to, struct weft_err *e);

#endif
