/* trace: an opened ovni trace directory (or a legacy log, converted first
 * into a temporary directory by its importer).
 * trace_open() discovers the streams, reads and merges every stream.json into
 * the system, and maps every stream.obs (header checked). The streams keep
 * discovery order (sorted relative path): that index is the merge tie-break. */
#ifndef WEFT_TRACE_H
#define WEFT_TRACE_H

#include "err.h"
#include "import.h"
#include "stream.h"
#include "system.h"

struct weft_trace {
	char *dir;
	struct weft_stream *streams;
	int nstreams;
	struct weft_system sys;
	char **labels; /* "loom/pid/tid" per stream */
	char *tmpdir;  /* a legacy log converted here, removed at close */
	char *source;  /* the legacy log itself (NULL for an ovni directory) */
};

struct trace_opts {
	enum stream_mode mode;
	uint64_t window;    /* look-back window for unordered regions, bytes */
	const char *only;   /* if set, keep only streams under this relative dir */
	const struct import_opts *import; /* for a legacy log given as TRACE */
};

int trace_open(struct weft_trace *t, const char *dir, const struct trace_opts *o, struct weft_err *e);
void trace_close(struct weft_trace *t);

#endif
