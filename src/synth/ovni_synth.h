/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni_synth: deterministic synthetic ovni-model traces.
 * Threads are bound to a home CPU of their loom and take turns on it in
 * slices; slices start with OHx (first) or OHr, end with OHp (optionally after
 * OHc, the next thread warming with OHw) or OHe, and hold bursts, single and
 * stacked marks, flushes, self-moves to the vCPU and back (OAs) and moves of a
 * paused sibling (OAr). Every ovni-model rule holds: at most one Running
 * thread per physical CPU, marks balanced, every thread dead at the end.
 * With extra models (synth_opts.models), some steps of a slice are instead a
 * whole MPI call, nested TAMPI subsystems, a kernel switch out and back, or
 * nOS-V tasks (a labelled type per thread, tasks run to their end, some
 * paused for a nested one), each balanced inside the slice; every stream
 * requires the models used. Same options, same bytes. */
#ifndef WEFT_OVNI_SYNTH_H
#define WEFT_OVNI_SYNTH_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

struct synth_opts {
	int looms, procs, threads, cpus;
	uint64_t events; /* target total; the result is within a few per thread */
	uint64_t seed;
	unsigned models; /* SYNTH_M_* bits besides ovni */
	int plain_names; /* 1: looms node1..nodeL; 0: node00, node01, ... */
};

enum { SYNTH_M_MPI = 1u << 0, SYNTH_M_TAMPI = 1u << 1, SYNTH_M_KERNEL = 1u << 2, SYNTH_M_NOSV = 1u << 3,
       SYNTH_M_NODES = 1u << 4 };


/* Write the trace into the existing empty directory `dir`. Sets *written. */
WEFT_MUST_CHECK int synth_ovni(const char *dir, const struct synth_opts *o, uint64_t *written, struct weft_err *e);

#endif
