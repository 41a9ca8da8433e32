/* SPDX-License-Identifier: GPL-3.0-or-later */
/* paraver_out: the Paraver sink (sink.h) — thread.{prv,pcf,row} and
 * cpu.{prv,pcf,row} in the output directory, with a real resource model
 * (nodes = looms, their CPUs plus the vCPU) and process model (thread.prv:
 * rows in ovniemu's order, the system's; appl = a run of processes of one
 * app id in that order, task = process, thread = thread; cpu.prv: one
 * application whose tasks are the looms and threads their CPUs), and the
 * view files of cfg/ copied beside them. Everything is written into a new
 * generation of the output directory, shown at once when the run succeeded
 * (util/outset.h). */
#ifndef WEFT_PARAVER_OUT_H
#define WEFT_PARAVER_OUT_H

#include "emu/emu.h"
#include "emu/sink.h"
#include "util/outset.h"

/* The Paraver sink's state. Its files are opened on a set of its own
 * (prv_files_new) as files 0 and 1 (then the breakdown traces), the
 * records' sets: `changes` hands each batch to the writer as its ops, in
 * the thread that calls it (the run's pipe thread, -j's merger), or to a
 * thread a file (`writers`: -j --writers). */
struct paraver_out {
	struct sink sink;
	const char *outdir; /* -o DIR */
	int gzip; /* -z: PRV_GZIP(level, threads), or 0 */
	struct emu *e; /* the run (layout.run), for what models still tell in C: texts, row names */
	struct prv_pipe *files; /* the files' set, while records come (begin to end) */
	struct outset out; /* the outputs in outdir, while writing */
	struct prv_file f[EMU_NFILES]; /* thread.prv, cpu.prv: their backs */
	int32_t *type[EMU_NFILES]; /* each slot's Paraver type (paraver_slot_types) */
	struct paraver_bd *bd; /* the breakdown traces, by view (paraver_bd.c) */
	int nbd;
	int open; /* the outputs are open: finished or aborted by end */
};

/* A breakdown view's trace (-b): its file, open from begin to end. */
struct paraver_bd {
	struct prv_file prv;
	int open;
};

/* The breakdown traces of the run's views (e->bd.ops; none: nothing):
 * their names in the output set; their files opened as the sets after
 * thread.prv and cpu.prv, each view told its set; their .pcf and .row;
 * finished at ftime, or aborted; freed. The type of model's view (its
 * Paraver table's row of set 2), -1 none. */
void paraver_bd_outputs(struct emu *e, struct paraver_out *po, struct outset *s);
WEFT_MUST_CHECK int paraver_bd_open(struct emu *e, struct paraver_out *po, const char *date, struct weft_err *err);
WEFT_MUST_CHECK int paraver_bd_texts(struct emu *e, struct paraver_out *po, struct outset *s, struct weft_err *err);
WEFT_MUST_CHECK int paraver_bd_finish(struct emu *e, struct paraver_out *po, uint64_t ftime, struct weft_err *err);
void paraver_bd_abort(struct emu *e, struct paraver_out *po);
void paraver_bd_free(struct paraver_out *po);
int32_t paraver_bd_type(const struct emu *e, char model);

/* The Paraver sink writing into outdir (gzip: -z, prv_open's PRV_GZIP or 0);
 * free with its free. */
struct sink *paraver_sink_new(const char *outdir, int gzip);

/* The Paraver event type of each slot of `file` (e->out.slots.n[file] of
 * them, malloc'd): its model's Paraver table's for the slot's key (+ its
 * group member), or numbered when the table has none. NULL: a slot has
 * no key (an internal error, err filled). */
int32_t *paraver_slot_types(const struct emu *e, int file, struct weft_err *err);
/* Slot k of `file`: its model's table's type; PARAVER_NO_TYPE when the
 * table has none (paraver_slot_types numbers it). */
#define PARAVER_NO_TYPE (-1)
int32_t paraver_table_type(const struct emu *e, int file, int k);
/* A type of one file claimed by two models (resolved types `type`, by
 * file): -1 with err naming both, else 0. */
WEFT_MUST_CHECK int paraver_slot_clash(const struct emu *e, int32_t *const type[EMU_NFILES], struct weft_err *err);

/* Assign thread.prv rows: the system's thread order (ovniemu's). */
void paraver_rows(struct emu *e);
/* Each row's appl:task:thread in `file` (thread.prv's e->sys.nth rows, cpu.prv's
 * e->sys.ncpu), as the headers name them. */
void paraver_row_ids(struct emu *e, int file, uint32_t (*ids)[3]);
/* The file to write trace NAME (thread.prv, X-breakdown.prv) at, in the new
 * generation: registered as an output (NAME.gz with -z, whose compressed copy
 * prv_finish writes beside); the caller frees it. */
char *paraver_trace_tmp(struct emu *e, const char *name);

/* The view files compiled into weft (generated from cfg/ at build time). */
struct cfg_file {
	const char *path; /* relative to cfg/ */
	const char *text;
};
extern const struct cfg_file weft_cfg_files[];
extern const int weft_cfg_nfiles;

#endif
