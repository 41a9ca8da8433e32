/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sink: what an emulation produces, and the interface of what consumes it.
 *
 * The one product of `weft emu` is a stream of channel changes over a
 * declared layout:
 *   - the layout (struct sink_layout): the rows, in two row sets (the
 *     threads and the CPUs of the system tree: loom = node, process,
 *     thread; loom, CPU), and per row set the channels the models declared
 *     (a name, a kind, a title, value labels with colours) and the row
 *     state channel (its labels: every model's states);
 *   - the changes (struct sink_change): 16-byte records in time order,
 *     handed over in batches; a TIME record moves every row set to a time,
 *     the others say what changed at that time.
 * A sink (struct sink) is told the layout (begin), gets every batch
 * (changes), then is told whether the run succeeded (end). src/cli chooses
 * the sinks (-o: Paraver, --otf2: OTF2, none for query and the checks) and
 * hands them in emu_opts.sinks; the emulator writes no file itself. Every
 * sink takes the batches through `changes` (the Paraver sink, too: its
 * records are its writer's ops, paraver_out.h). The models' channels are
 * declared with their labels (emu_slot_declare, emu_slot_label) and their
 * Paraver types are their models' Paraver tables' (weft_model_def.
 * paraver), which the Paraver sink looks up (paraver_slot_types) and
 * writes the .pcf from (every model's: no model writes Paraver text).
 * What is left: the Paraver sink still lives in src/emu and reads the
 * row names and headers from the run (layout.run).
 * --from/--to is one filter in front of every sink (sinks.c: sinks see the
 * window only, times from its start; test/e2e/window.sh checks it against
 * Paraver's cutter rules).
 *
 * Threads and -j: begin and end are called by the thread that runs emu
 * (emu_open / emu_close); changes by one thread at a time, in order: the
 * emulating thread, or a writer thread beside it, or under -j/--mpi the
 * merging thread (rank 0), which rebuilds one serial run's stream from the
 * workers' (jobs.h). A sink sees the same records in the same order
 * whatever -j is, once the rule of SET is applied (-j 1 hands over a
 * repeated value as a SET, -j workers drop it and may hand a change as a
 * PUT); where batches are cut differs too, so a sink must not depend on
 * batch boundaries. Records of a set the layout has not (>=
 * SINK_NROWSETS: the -b breakdown traces, Paraver's own) are ignored by
 * the sinks that do not know them. Workers' side messages (message ends to
 * match, text-named values) are never handed to a sink. With --mpi
 * --slices each rank writes a time slice of Paraver only (slices.h); other
 * sinks are then refused (a sink with `slices` 0).
 *
 * Additive changes only: new fields at the ends of structs, new record
 * kinds with new numbers; a sink ignores a record kind it does not know. */
#ifndef WEFT_SINK_H
#define WEFT_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct emu;

/* Row sets. */
enum { SINK_THREADS = 0, SINK_CPUS = 1, SINK_NROWSETS = 2 };

/* What a channel's values mean. */
enum sink_kind {
	SINK_STATE, /* an interval value (enter at a change, leave at the next) */
	SINK_VALUE, /* a sampled value: a metric, valid until the next change */
	SINK_PUNCTUAL, /* an occurrence at an instant; repeats are occurrences */
	SINK_COMM /* communications (send/receive pairs between rows) */
};

/* A label of a channel's value (a value with none is shown as its
 * number). rgb: its colour when has_rgb. */
struct sink_label {
	int64_t value;
	const char *label;
	uint8_t rgb[3];
	uint8_t has_rgb;
};

/* A channel of a row set. Channels are numbered per row set from 0
 * (struct sink_change.chan), in declaration order. */
struct sink_channel {
	const char *name; /* "<model>.<channel>", unique in its row set, e.g. "nosv.subsystem" */
	char model; /* the declaring model's character ('V') */
	const char *model_name; /* its name ("nosv") */
	const char *title; /* a sentence: "nOS-V subsystem of the ACTIVE thread" */
	enum sink_kind kind;
	/* its first value on a row is a record even when 0 (else a row reads
	 * 0 before its first record, and a first 0 is no change) */
	int fresh;
	const struct sink_label *labels; /* may be NULL */
	int nlabels;
	/* 1: more labels are named during the run (task types...): they are
	 * complete in the layout when end() is called, not before */
	int dynamic_labels;
};

/* A node of the system (an ovni loom, a legacy log's node). */
struct sink_loom {
	const char *name; /* the loom's name ("node1.1234"), hostname part first */
	const char *hostname; /* may equal name */
	int first_cpu, ncpus; /* its CPU rows [first_cpu, first_cpu + ncpus), the last is its vCPU */
};

/* A process: thread rows [first_row, first_row + nrows) are its threads. */
struct sink_proc {
	int loom; /* index in layout.looms */
	int64_t pid;
	int appid; /* the application it belongs to (ovni's app id) */
	int rank; /* its MPI rank, -1: none */
	int nranks;
	int first_row, nrows;
};

/* A row: a thread (SINK_THREADS) or a CPU (SINK_CPUS). */
struct sink_row {
	int loom; /* index in layout.looms */
	int proc; /* thread rows: index in layout.procs; CPU rows: -1 */
	int64_t tid; /* thread rows: the thread id; CPU rows: -1 */
	int64_t cpu; /* CPU rows: the CPU's physical id, -1: the loom's vCPU; thread rows: -1 */
	int stream; /* thread rows: the stream index; CPU rows: -1 */
	const char *name; /* its label ("THREAD 1.1.1", "CPU 0.3") */
};

struct sink_rowset {
	const char *name; /* "thread", "cpu" */
	int nrows;
	const struct sink_row *rows;
	int nchannels;
	const struct sink_channel *channels;
	/* the row state (SINK_CH_STATE records): its labels (every model's
	 * states, 0 "No state"); nstate_labels 0: the row set has no states */
	const struct sink_label *state_labels;
	int nstate_labels;
};

struct sink_layout {
	struct sink_rowset set[SINK_NROWSETS];
	int nlooms, nprocs;
	const struct sink_loom *looms;
	const struct sink_proc *procs;
	/* times: ns from t0, the corrected time of the run's first event (or
	 * the window's start with --from) */
	uint64_t t0;
	const char *trace; /* the trace's path, for messages */
	const char *outdir; /* what the sink was given (-o DIR, --otf2 DIR); may be NULL */
	const char *date; /* the run's date as Paraver headers spell it (SOURCE_DATE_EPOCH) */
	uint64_t clock_ns; /* resolution of the times: 1 */
	/* the run itself, for the sinks of the emulator's own layer (the
	 * Paraver sink, while the models still tell its labels and texts in
	 * C); other sinks never look at it */
	struct emu *run;
};

/* ---- the change records -------------------------------------------------- */

/* Record kinds. The numbers are the Paraver writer's op numbers
 * (prv_writer.h), checked there: the emulator's records reach the Paraver
 * sink with no translation. */
enum {
	SINK_CH_TIME = 0, /* value: the time of the records that follow (never decreases) */
	SINK_CH_CPU = 1, /* thread row `row` runs on CPU row value - 1 from now on (0: none);
			     * CPU rows: value = row + 1, once at the start */
	SINK_CH_STATE = 2, /* row's state is `value` from now on (0: no state) */
	SINK_CH_SET = 3, /* channel chan of row is `value`: a record only if it differs from
			     * the last record of (row, chan) (see sink_channel.fresh) */
	SINK_CH_PUT = 4, /* channel chan of row is `value`, a record always */
	SINK_CH_ARG = 5, /* an operand of the next SEND_ARGS, PSEND or RECV_ARGS record */
	/* communications on the thread rows. Sends are numbered in order from
	 * 0 (the n-th SEND or SEND_ARGS record is comm id n) */
	SINK_CH_SEND = 6, /* row sends at the current time, size 0; value: tag */
	SINK_CH_SEND_ARGS = 7, /* ARGs lsend, size; row sends; value: tag */
	SINK_CH_PSEND = 8, /* ARG psend: the physical send time of comm `value` (else lsend) */
	SINK_CH_RECV = 9, /* row receives comm `value` at the current time (logical = physical) */
	SINK_CH_RECV_ARGS = 10, /* ARGs lrecv, precv (may be before lsend); row receives comm `value` */
	SINK_CH_DROP = 11, /* comm `value` is never received */
	SINK_CH_NKINDS = 12
};

/* One record. `set` is the row set (SINK_THREADS, SINK_CPUS); TIME records
 * have kind, set, chan and row 0. A value record (SET, PUT) names channel
 * `chan` of set `set`; STATE and CPU records the row only. At one time, a
 * row's STATE record comes after its channel records of that time; a
 * send never received nor dropped by end() is dropped. The same layout
 * as struct prv_op. */
struct sink_change {
	uint8_t kind;
	uint8_t set;
	uint16_t chan;
	uint32_t row;
	int64_t value;
};

/* ---- the interface --------------------------------------------------------- */

struct sink {
	const char *name; /* "paraver", "otf2": for messages */
	void *self; /* the sink's own state */
	/* 1: the sink can be fed by --mpi --slices ranks (Paraver only) */
	int slices;
	/* 1: the sink writes -b's breakdown traces (Paraver: breakdown.h),
	 * which the run then computes */
	int breakdown;
	/* The layout, before any change (valid until end returns). 0, or -1
	 * with err filled (the run stops; end(ok 0) is still called). */
	int (*begin)(struct sink *s, const struct sink_layout *l, struct weft_err *err);
	/* A batch of n records (every sink has it). Cannot fail: a sink keeps
	 * its first error and reports it from end. */
	void (*changes)(struct sink *s, const struct sink_change *c, size_t n);
	/* After the last batch: ok 1, finish at time `ftime` (the run's end,
	 * from t0) and put the outputs in place (0, or -1 with err filled);
	 * ok 0, the run failed: remove what was written (returns 0). */
	int (*end)(struct sink *s, int ok, uint64_t ftime, struct weft_err *err);
	/* Release the sink (after end, or without begin). May be NULL. */
	void (*free)(struct sink *s);
	/* on 1: the batches to come may be written by threads of the sink's
	 * own beside the caller (-j --writers): 0, or -1 when none started
	 * (the caller's thread writes them); on 0: those threads have written
	 * every batch handed so far (returns 0). Between begin and end. May
	 * be NULL. */
	int (*writers)(struct sink *s, int on);
	/* For speed, may be NULL: `changes` of the longest batch of c[0..n)
	 * that ends before the first TIME record of value >= bound and before
	 * the first record of kind >= stop (256: none), in one pass; returns
	 * its length, *at the value of its last TIME record (unchanged: none).
	 * Used when the sink is the run's only one and there is no window
	 * (the emulator then does not look for the cut itself). */
	size_t (*changes_cut)(struct sink *s, const struct sink_change *c, size_t n, uint64_t bound, int stop,
			      uint64_t *at);
};

/* The sinks of one run, in the order src/cli gives them; n 0: no output. */
struct sink_list {
	struct sink *const *s;
	int n;
};

#endif
