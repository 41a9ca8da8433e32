/* SPDX-License-Identifier: GPL-3.0-or-later */
/* system: looms, processes, threads and CPUs built from every stream's
 * metadata with the merge rules of doc/formats/ovni.md §3.3 and ordered as
 * §4.2 (the order ovniemu uses for Paraver rows). Global indices (gindex) are
 * positions in that order. A source describes its system here; nothing in
 * this module knows Paraver. */
#ifndef WEFT_SYSTEM_H
#define WEFT_SYSTEM_H

#include <stdint.h>
#include <uthash.h>

#include "util/err.h"
#include "trace/event.h"
#include "trace/metadata.h"
#include "util/macros.h"

struct weft_loom;
struct weft_proc;

struct weft_cpu {
	int64_t index, phyid;   /* logical index used by events; -1 for the vCPU */
	int is_virtual;
	int gindex;             /* row order: looms, then phyid order, vCPU last */
	struct weft_loom *loom;
	UT_hash_handle hh;      /* in loom->cpu_by_phyid */
};

struct weft_thread {
	int64_t tid;
	uint8_t req[MCV_NCHARS]; /* 1 for each model character its ovni.require names (mcv_index) */
	struct weft_proc *proc;
	int stream;             /* index of its stream in the trace */
	int gindex;
	struct weft_meta_kv *kv; /* its stream.json's keys of other models (metadata.h) */
	int nkv;
	UT_hash_handle hh;      /* in proc->thread_by_tid */
};

struct weft_proc {
	int64_t pid;
	int has_app_id, has_rank;
	int64_t app_id, rank, nranks;
	const char *app_id_from, *rank_from; /* the stream.json that set it */
	struct weft_loom *loom;
	struct weft_thread *thread_by_tid;
	struct weft_thread **threads; /* sorted by tid */
	int nthreads;
	int gindex;
	int first_seen;
	UT_hash_handle hh;      /* in loom->proc_by_pid */
};

struct weft_loom {
	char *name;
	char *hostname;         /* name up to the first '.' */
	struct weft_cpu *cpu_by_phyid;
	struct weft_cpu **cpus; /* physical, by phyid; then the vCPU */
	int ncpus;              /* physical CPUs */
	struct weft_cpu vcpu;
	struct weft_cpu **by_index; /* logical index -> CPU */
	struct weft_proc *proc_by_pid;
	struct weft_proc **procs;
	int nprocs;
	int gindex;
	int first_seen;
	const char *cpus_from;
	UT_hash_handle hh;
};

struct weft_mark_label {
	int64_t value;
	char *label;
};

/* A label's place in its type's list, by value (merging streams' labels
 * looks each up: 100,000 labels must not cost 10^10 comparisons). */
struct weft_mark_vidx {
	int64_t value;
	int index;
	UT_hash_handle hh;
};

struct weft_mark_type {
	int defined;
	char *title;
	int stack;
	const char *from;
	struct weft_mark_label *labels; /* in the order first met */
	int nlabels, caplabels;
	struct weft_mark_vidx *by_value;
};

/* Resolves one ovni.require entry of a stream.json at `path` (the trace
 * knows no model: the caller's registry does, models/require.h): the model
 * character, 0 (a model not known: ignored) or -1 with e set (refused). */
typedef int (*sys_require_fn)(const void *arg, const char *path, const char *model, const char *version,
			      struct weft_err *e);

struct weft_system {
	sys_require_fn require; /* NULL: no thread requires any model */
	const void *require_arg;
	struct weft_loom *loom_by_name;
	struct weft_loom **looms;
	int nlooms;
	struct weft_thread **threads; /* global row order */
	int nthreads;
	struct weft_cpu **cpus;       /* global row order, vCPUs included */
	int ncpus;
	struct weft_mark_type marks[100];
	int nprocs;
	int quiet; /* sys_finish warns of nothing (trace_opts.quiet) */
};

void sys_init(struct weft_system *s);
/* Add one stream's metadata; `path` is its stream.json (kept by reference). */
WEFT_MUST_CHECK int sys_add(struct weft_system *s, struct weft_meta *m, int stream, const char *path,
			    struct weft_err *e);
/* Check the per-loom rules and compute the global order. */
WEFT_MUST_CHECK int sys_finish(struct weft_system *s, struct weft_err *e);
void sys_free(struct weft_system *s);

struct weft_cpu *sys_cpu_by_index(const struct weft_loom *l, int64_t index);

#endif
