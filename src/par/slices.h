/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slices: the final Paraver bodies written in time slices by several
 * writers at once, then joined (weft emu --mpi: each rank one slice). A
 * slice's writer merges every job's ops (jobs_merge, files whole) from the
 * start, replays those before its slice without writing (the values, states
 * and CPUs its records depend on), writes the records of its instants into
 * part files (prv_part_open: no header), and stops at the next slice. The
 * join appends the parts to the main run's files in order and patches the
 * state records still open at a part's end with the time their row next
 * changed (or FTIME): the bytes of one writer. Runs with communication
 * records or values named by texts (msg) or a window keep one writer
 * (slices_ok). MPI-free: ranks.c moves the files and the outcomes. */
#ifndef WEFT_SLICES_H
#define WEFT_SLICES_H

#include "par/jobs_impl.h"
#include "util/macros.h"

/* May this run's bodies be written in slices? */
int slices_ok(const struct emu *e);

/* The start of slice k of n over instants [0, tmax] (slice n: UINT64_MAX). */
uint64_t slice_start(uint64_t tmax, int k, int n);

/* Write slice [from, to) of the jobs' merged ops into `parts` (thread.prv's
 * and cpu.prv's part files), its join information into `info_path`. */
WEFT_MUST_CHECK int slice_write(struct emu *e, struct job *jobs, int n, uint64_t from, uint64_t to,
				const char *const parts[2], const char *info_path, struct weft_err *err);

/* The main run e (its Paraver files open, nothing written yet): the parts
 * of slices 0..n-1 appended and patched; tparts, cparts and infos name them. */
WEFT_MUST_CHECK int slices_join(struct emu *e, const char *const *tparts, const char *const *cparts,
				const char *const *infos, int n, uint64_t ftime, struct weft_err *err);

#endif
