/* SPDX-License-Identifier: GPL-3.0-or-later */
/* otf2_int: the OTF2 sink's state, shared by otf2_sink.c (the records) and
 * otf2_defs.c (the definitions and the archive's files). For src/otf2 only. */
#ifndef WEFT_OTF2_INT_H
#define WEFT_OTF2_INT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "otf2/otf2_sink.h"
#include "util/outset.h"

#ifdef WEFT_OTF2
#include <otf2/otf2.h>
#include <uthash.h>
#include "util/macros.h"

/* the archive's name in DIR: DIR/traces.otf2, DIR/traces.def, DIR/traces/ */
#define O2_ARCHIVE "traces"

enum { O2_ENTER, O2_LEAVE, O2_METRIC, O2_SEND, O2_RECV };
/* a send's peer before its receive; a send never received */
#define O2_WAITING UINT32_MAX
#define O2_DROPPED (UINT32_MAX - 1)

/* an event as written, or queued behind a send waiting for its receiver */
struct o2_ev {
	uint8_t kind;
	uint32_t tag;
	uint32_t peer; /* SEND: the receiver's rank; RECV: the sender's */
	uint64_t time;
	uint64_t a; /* region or metric ref */
	int64_t b; /* metric value, message size */
};

struct o2_loc {
	OTF2_EvtWriter *w;
	int set, row, chan; /* chan -1: the row's own location */
	struct o2_ev *q; /* events waiting behind a send, from qhead */
	size_t qhead, qn, qcap;
	uint64_t qbase; /* sequence number of q[0] */
};

struct o2_comm {
	uint32_t loc; /* the sender's location (= its thread row) */
	uint32_t tag;
	uint64_t seq; /* its send in the sender's queue */
	int64_t size;
	int open;
};

struct o2_str {
	char *text;
	uint32_t ref;
	UT_hash_handle hh;
};

struct o2_region {
	struct {
		int32_t set, chan; /* chan -1: the row state */
		int64_t value;
	} k;
	uint32_t ref;
	UT_hash_handle hh;
};

struct o2_set {
	const struct sink_rowset *rs;
	int nrows, nchan;
	uint32_t first_loc;
	int64_t *last; /* per (row, channel): its last record's value */
	uint8_t *seen; /* per (row, channel): it had a record */
	uint32_t *chan_loc; /* per (row, channel): its location + 1, 0 none */
	uint32_t *state; /* per row: the state shown */
	uint32_t *metric; /* per channel: its metric ref + 1, 0 none */
};

struct o2 {
	struct outset out;
	const struct sink_layout *lay;
	OTF2_Archive *archive;
	struct o2_set set[SINK_NROWSETS];
	struct o2_loc *locs;
	uint32_t nlocs, caplocs;
	struct o2_str *strs;
	uint32_t nstrs;
	struct o2_region *regions;
	uint32_t nregions;
	struct {
		int set, chan;
	} * metric_of;
	uint32_t nmetrics, capmetrics;
	struct o2_comm *comm; /* comm ids comm_lo .. comm_lo + ncomm - 1 */
	uint64_t comm_lo, next_comm;
	size_t ncomm, capcomm;
	int64_t arg[4];
	int narg;
	uint64_t now, ftime;
	void **spare; /* event chunks handed back by OTF2, for reuse (o2_chunk_*) */
	size_t nspare, capspare;
	int failed;
	char why[512];
};

uint32_t o2_string(struct o2 *o, const char *text);
void o2_fail(struct o2 *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Close the event writers and files, write every definition, close the
 * archive: 0, or -1 with o->why set. */
int o2_defs(struct o2 *o);
/* Register the archive's files with the output set: 0, or -1 with err. */
WEFT_MUST_CHECK int o2_files(struct o2 *o, struct weft_err *err);
#endif

#endif
