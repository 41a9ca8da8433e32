/* SPDX-License-Identifier: GPL-3.0-or-later */
/* acct: per-thread tallies of an emulation, for weft stats.
 * An accounting sink hooked into the emulator (struct emu_acct): it adds up,
 * per thread, the time and the number of entries of every state of every
 * emulated model, and the time, count and bytes of the operations models
 * count (emu_acct_op), also within each context operation open around them;
 * it keeps the figures a trace states about itself (emu_acct_claim) and
 * judges each against the measured one. It never re-implements a model:
 * everything it knows, a model told it. Read-only for printers once
 * acct_finish has run. */
#ifndef WEFT_ACCT_H
#define WEFT_ACCT_H

#include <stdint.h>
#include <uthash.h>

#include "emu/emu.h"

struct acct_state {        /* one state value of one model on a thread */
	char model;
	uint32_t value;
	uint64_t ns, count;
};

struct acct_key {
	char ctx_model;        /* 0: the whole thread */
	int32_t ctx;
	char model;
	int32_t op;
};

struct acct_op {           /* one operation, maybe within a context */
	struct acct_key k;
	uint64_t ns;
	int64_t count, bytes, nend;
	int has_bytes;
	UT_hash_handle hh;
};

struct acct_open {
	char model;
	int32_t op;
	int depth, context;
};

struct acct_thread {
	uint32_t cur[8];       /* by e->models.slot */
	uint64_t since[8];
	struct acct_state *st;
	int nst, cst;
	struct acct_open *open;
	int nopen, copen;
	uint64_t last;
	struct acct_op *ops;   /* hash by key */
};

enum acct_verdict { AV_EQUAL, AV_ROUNDING, AV_DIFFERS, AV_UNMEASURED };

struct acct_claim {
	int thread;
	struct emu_claim c; /* its sets, threads and scope are the claim's own copies */
	uint64_t time;         /* when the trace stated it */
	/* filled by acct_finish */
	int64_t measured, diff, tolerance;
	enum acct_verdict verdict;
	const char *why_not;
};

struct acct {
	struct emu *e;
	struct emu_acct hooks;
	struct acct_thread *th; /* by stream index */
	struct acct_claim *claims;
	int nclaims, cclaims;
	uint64_t end;
};

/* Hook a new sink into e (after emu_open, before emu_run). */
void acct_init(struct acct *a, struct emu *e);
/* Close every interval at the end of the trace and judge the claims. */
void acct_finish(struct acct *a);
void acct_free(struct acct *a);

/* A thread's operation rows sorted (whole-thread rows first, then by
 * context; within each by model and operation: system types by magnitude,
 * then user types). Returns the count; free *out. */
int acct_sorted_ops(const struct acct *a, int thread, struct acct_op ***out);
/* The name of a model's operation ("recv0 (blocking)"), or its number. */
void acct_op_name(const struct acct *a, int thread, char model, int32_t op, char *buf, int n);
/* The label of a model's state value, or NULL if the model does not name it. */
const char *acct_state_label(const struct acct *a, char model, uint32_t value);

const char *acct_verdict_name(enum acct_verdict v);

#endif
