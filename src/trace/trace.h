/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace: the opened inputs of one run, as one set of streams and one system.
 * An input is an ovni trace directory or a legacy log (converted first into
 * a temporary directory by its importer). trace_open() discovers the
 * streams, reads and merges every stream.json into the system, and maps
 * every stream.obs (header checked). Streams keep input order, then
 * discovery order (sorted relative path): that index is the merge tie-break.
 *
 * Several inputs make one system: each input keeps its own applications
 * (its app ids follow the previous input's), and a loom name an earlier input
 * already used is renamed NAME@K (K the input's position, from 1). With
 * same_nodes, looms whose names end in the same number (picl.3, node3) become
 * one loom "node<N>" (one Paraver node); a process id an earlier input used on
 * that loom is moved by K x 1000000. Each input records whether its clocks are
 * absolute (ovni: yes; a converted log: when weft-origin.json gives its epoch),
 * which the clock stage uses to align inputs. */
#ifndef WEFT_TRACE_H
#define WEFT_TRACE_H

#include "clock/clock.h"
#include "util/err.h"
#include "import/import.h"
#include "trace/stream.h"
#include "trace/system.h"
#include "util/macros.h"

struct trace_input {
	char *path;           /* as given */
	char *dir;            /* the directory read (the conversion, for a log) */
	char *tmpdir;         /* a log converted here, removed at close */
	char *source;         /* the log itself (NULL for an ovni directory) */
	int first, n;         /* its streams: [first, first + n) */
	int absolute;         /* clocks are absolute ns: clock + epoch is a real time */
	int undated;          /* a converted log with no date of its own (PICL, VisAndOr) */
	int64_t epoch;        /* ns to add to a clock for the absolute time */
};

struct weft_trace {
	char *dir;    /* the first input's directory */
	struct weft_stream *streams;
	int nstreams;
	struct weft_system sys;
	char **labels; /* "loom/pid/tid" per stream */
	char *tmpdir;  /* the first input's conversion directory (NULL for ovni) */
	char *source;  /* the first input's legacy log (NULL for an ovni directory) */
	struct trace_input *inputs;
	int ninputs;
	/* the clock stage (clocksetup.h): each loom's map before input shifts */
	struct clock_map *loom_clock; /* by loom gindex */
	struct clock_seg **loom_seg; /* by loom gindex: a piecewise clock's segments (owned) or NULL */
	int *loom_nseg; /* their number (0 or 1: loom_clock alone) */
	int64_t *input_shift;         /* by input: alignment plus the common bias */
	const char *clock_source;     /* the clock file applied, or NULL */
	size_t map_budget; /* trace_opts.map_budget, kept for rewinds */
};

struct trace_opts {
	enum stream_mode mode;
	uint64_t window;    /* look-back window for unordered regions, bytes */
	const char *only;   /* if set, keep only streams under this relative dir */
	const struct import_opts *import; /* for a legacy log given as TRACE */
	int same_nodes;     /* several inputs: equal loom numbers share a node */
	/* per input, the directory a log was already converted into (by an
	 * earlier open of the same inputs: emu -j workers), read instead of
	 * converting again (kept: not removed at close); NULL: none */
	const char *const *converted;
	/* the streams' resident pages together (mapfile.h; 0: the default) */
	size_t map_budget;
	int salvage; /* streams cut mid-event end at their last whole event */
	int quiet; /* no warnings: an earlier open of the same inputs said them (emu -j workers) */
	/* ovni.require's models, the caller's (system.h); NULL: none known */
	sys_require_fn require;
	const void *require_arg;
};

WEFT_MUST_CHECK int trace_open(struct weft_trace *t, const char *dir, const struct trace_opts *o, struct weft_err *e);
WEFT_MUST_CHECK int trace_open_inputs(struct weft_trace *t, const char *const *paths, int n, const struct trace_opts *o,
				      struct weft_err *e);
/* Reopen every active stream at its start (a second pass over the inputs). */
WEFT_MUST_CHECK int trace_rewind(struct weft_trace *t, struct weft_err *e);
/* The input holding a stream. */
static inline const struct trace_input *trace_input_of(const struct weft_trace *t,
							const struct weft_stream *s)
{
	return &t->inputs[s->input];
}
void trace_close(struct weft_trace *t);

#endif
