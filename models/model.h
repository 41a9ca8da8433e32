/* SPDX-License-Identifier: GPL-3.0-or-later */
/* model: the data every model folder provides.
 * An event table row is one MCV with its payload signature and a sentence
 * template; it is the single description shared by dump, top, query, the
 * emulator and the docs. Adding an event to a model is adding one row.
 *
 * Signature: comma-separated "TYPE name" with TYPE one of u8 u16 u32 u64 i8
 * i16 i32 i64 str bytes (str: NUL-terminated tail, in a jumbo event a
 * tail up to a NUL or the payload's end; bytes: any tail, maybe
 * empty), laid out back to back from
 * payload offset 0; jumbo events count from the jumbo data. The payload
 * rule is ovniemu's (what its model reads, checked with the sizes it
 * checks): a payload holds at least the fields, and bytes past them are
 * ignored; fields after a "[" may be missing too (ovniemu does not read
 * them: "i32 cpu, [i32 creator, u64 tag]" takes 4 bytes or more, a missing
 * field reads as 0 and dump shows "-"); a signature ending in "; exact"
 * takes exactly its fields (ovniemu checks the size). An empty signature:
 * the payload is not read (any is accepted). Template: text where %{name}
 * inserts a field. */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

#include <stdint.h>

#include "trace/event.h" /* MCV_NCHARS, mcv_index(): tables by model character */
#include "util/macros.h"

struct emu;
struct evinfo;
struct weft_err;
struct weft_model_def;

/* How the emulator handles one event: 0 ok, -1 fatal error (err filled),
 * 1 the event was rejected and skipped (--keep-going). */
typedef int (*weft_handler)(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
			    struct weft_err *err);

struct weft_evdecl {
	const char *mcv;      /* three characters */
	int jumbo;            /* 1 if written as a jumbo event */
	const char *sig;      /* payload signature */
	const char *desc;     /* sentence template */
	weft_handler handler; /* NULL: the emulator does not model it yet */
};

struct strbuf;

/* A Paraver state value a model writes on thread rows, with its label and
 * colour. Values are unique across models (ovni 0-5, andfork 10-19,
 * orbranch 20-29, msg 30-49, fileio 50-59) so one .pcf STATES section can
 * name them all. */
struct weft_state_label {
	int value;
	const char *label;
	unsigned char rgb[3];
};

/* How a model runs split across -j workers or --mpi ranks (src/par/):
 * the hooks a model has for it, in one place. A model with them keeps its
 * state within a loom, its messages between looms paired by emu
 * (match.h), so the looms may be split (jobs.h); one without runs on one
 * worker. */
struct weft_model_par {
	/* the state one run gathers from every worker, as a line of text
	 * (save writes it, load adds one worker's); NULL: none */
	void (*save)(const struct emu *e, struct strbuf *b);
	int (*load)(struct emu *e, const char *line);
	/* why this model still runs on one worker (NULL, or NULL returned:
	 * it splits) */
	const char *(*serial_why)(const struct weft_model_def *self);
	/* 1: its outputs can be written in time slices by --mpi --slices
	 * ranks (no messages or texts paired by one merger) */
	int sliceable;
};

/* What the emulator calls on an emulated model; NULL members are skipped.
 * Every hook is given its model (`self`): the model files' engine serves
 * them all with one table. */
struct weft_model_hooks {
	/* register slots, state */
	int (*setup)(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
	/* end-of-trace checks */
	int (*finish)(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
	void (*release)(struct emu *e, const struct weft_model_def *self);
	const struct weft_state_label *states;
	int nstates;
	/* name of an operation the model counts for weft stats (emu_acct_op)
	 * on thread `thread` (stream index, -1: none in particular); NULL: the
	 * number is shown */
	void (*op_label)(const struct emu *e, int thread, int32_t op, char *buf, int n);
	/* the values a model names by texts (match.h; one run asks at once,
	 * emu -j on the merger): the value of text s in table `table` (new
	 * texts numbered in one run's order), a value named by s; NULL: it
	 * names none */
	int64_t (*text_value)(struct emu *e, int table, const char *s);
	void (*text_name)(struct emu *e, int table, int64_t value, const char *s);
	/* how it runs split (src/par/); NULL: on one worker */
	const struct weft_model_par *par;
	/* 1: the model may draw a breakdown view (-b: NAME-breakdown.prv);
	 * NULL: never */
	int (*breakdown)(const struct weft_model_def *self);
	/* 1: turned on by weft emu -a even when no stream requires it */
	int on_with_all;
	/* 1: ovniemu's rule: each of its channels' first value is written,
	 * even 0 (a run of other models keeps weft's: changes only) */
	int ovniemu;
};

/* A row of a model's Paraver table: the event type channel `chan` (the
 * key its slots are declared with, emu_slot_decl) gets in thread.prv (set
 * 0) or cpu.prv (set 1), or its breakdown view's trace (set 2, chan
 * "breakdown"); member j of a channel group gets type + j. Data the
 * Paraver sink reads, not the model (model files: their `paraver` block). */
struct weft_prv_type {
	const char *chan;
	int set;
	int32_t type;
};

struct weft_model_def {
	char id;              /* model character */
	const char *name;     /* ovni's name for it ("ovni", "nosv", ...) */
	const char *version;  /* model version weft implements, "" if none */
	const struct weft_evdecl *events;
	int nevents;          /* 0: weft knows the model's name only */
	const struct weft_model_hooks *hooks; /* NULL: not emulated */
	const char *file; /* the model file it was read from; NULL: written in C */
	/* its Paraver table: the types of the slots it declares by key
	 * (emu_slot_declare), in the order of their .pcf blocks (one each) */
	const struct weft_prv_type *paraver;
	int nparaver;
	int pcf_gap; /* blank lines after each of its .pcf blocks (0: one; PICL's 2) */
};

/* Does a stream requiring version `want` of a model work with the version
 * weft has? As ovniemu: both MAJOR.MINOR.PATCH[-suffix], equal majors, and
 * want's minor not above have's. */
int model_version_ok(const char *want, const char *have);


extern const struct weft_model_def model_ovni;

#endif
