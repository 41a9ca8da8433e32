/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ranks: weft emu --mpi, the emulation split by loom across MPI ranks
 * (mpirun -n R weft emu --mpi -o DIR TRACE...), the same bytes as one
 * process.
 *
 * Every rank opens the trace (a shared filesystem) and takes the loom range
 * emu_share_split gives it, emulating those looms as a -j worker does. Ranks
 * other than 0 write their writer ops, as they come, to
 * DIR/.weft-ranks-ID/R.ops, their dynamic labels (task types) to R.labels,
 * then send rank 0 their outcome (MPI): error or not, and how many ops the
 * file holds. Rank 0 emulates its own range in a thread and meanwhile
 * merges every rank's ops in one run's order (jobs.h), reading the files as
 * they grow (a file is whole once its rank's outcome came), into the
 * Paraver files under temporary names. The run's error is chosen as -j
 * chooses it (the first failing event in time order, then the end-of-run
 * checks); without one the files are renamed into place. The folder is
 * removed. Memory: each rank its looms' streams and live objects; rank 0
 * also a read buffer per rank. A rank that dies takes the job down (mpirun
 * says which); the final names never appear. Runs jobs.h keeps on one
 * worker run on rank 0 alone (the others wait), with a note.
 *
 * Built only when configure finds MPI (WEFT_MPI); otherwise --mpi is a
 * usage error saying so. */
#ifndef WEFT_RANKS_H
#define WEFT_RANKS_H

#include "emu/emu.h"
#include "util/macros.h"

/* MPI_Init; 0, or -1 with err filled (no MPI in this build). */
WEFT_MUST_CHECK int ranks_init(int *argc, char ***argv, struct weft_err *err);
/* This process's rank (0 without MPI). */
int ranks_rank(void);
/* emu_run for this rank: every rank calls it with its opened emu (rank 0's
 * with the Paraver output, the others' without). Returns 0 or -1 (err
 * filled on rank 0; other ranks return the run's outcome with err filled
 * too, for the exit status, but rank 0 alone reports it). */
WEFT_MUST_CHECK int emu_run_ranks(struct emu *e, struct weft_err *err);
/* Agree on the outcome: rank 0's rc goes to all; MPI_Finalize. */
int ranks_end(int rc);
/* Every rank opened the trace (rc 0) or not: the lowest failing rank, or
 * -1 when none failed. Each rank calls it once, before emu_run_ranks. */
int ranks_meet(int rc);

#endif
