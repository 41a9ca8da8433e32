/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mfform: the compiled form of a model file (modelfile.h compiles it): the
 * model's definition, its channels, per event the actions the engine
 * (models/engine/engine.c) runs, its breakdown view. Part of the models'
 * interface (layer mdef, below the emulator): data and one lookup, nothing
 * that reads a file. */
#ifndef WEFT_MFFORM_H
#define WEFT_MFFORM_H

#include <stdint.h>

#include "model.h"

#define MF_MAX_ARGS 4 /* arguments of a `call` */

enum mf_show { MF_SHOW_ANY, MF_SHOW_RUNNING, MF_SHOW_ACTIVE };
enum mf_same { MF_SAME_ERROR, MF_SAME_IGNORE, MF_SAME_ALLOW };
/* A shown value equal to the last one written on its row (ovniemu's
 * per-channel Paraver flags): skip it (PRV_SKIPDUP), write it (PRV_EMITDUP),
 * or skip it only when it is "none" (PRV_SKIPDUPNULL: 0, unless the channel
 * is `zero` and the 0 was set). A row's first value is always written. */
enum mf_dup { MF_DUP_SKIP, MF_DUP_EMIT, MF_DUP_SKIP_NULL };

struct mf_label {
	int64_t value;
	char *label;
};

struct mf_chan {
	char *name;
	int stack; /* 1: push/pop, 0: single value */
	/* its titles on thread and CPU rows ("nOS-V subsystem of the ACTIVE
	 * thread"); NULL: those rows do not show it */
	char *tlabel, *clabel;
	enum mf_show show; /* thread rows */
	enum mf_same same; /* a push or set of the value it has */
	enum mf_dup dup; /* a repeated value on a row */
	int zero; /* `zero`: a set of 0 is a value, not "none" (PRV_ZERO) */
	int dynamic; /* labels may be added at run time */
	int nolint; /* -l does not check that its stack ends empty */
	int64_t initial; /* every thread's value before its first event (single) */
	int64_t cpu_none; /* CPU rows when no thread (or several) runs there (single) */
	char *each_key; /* `each`: one channel per entry N of this stream.json object, */
	char *each_field; /* type + N, labelled with the entry's string field (NULL: a plain channel) */
	struct mf_label *labels;
	int nlabels;
	int line; /* of its `channel` statement, for messages */
};

enum mf_op { MF_PUSH, MF_POP, MF_SET, MF_UNSET, MF_PUNCT, MF_CHECK_EQ, MF_CHECK_NE, MF_CALL, MF_LABEL, MF_SETALL };

/* An action's value: a payload field (field >= 0) or a constant. */
struct mf_val {
	int16_t field;
	int64_t k;
};

struct engine_prim;

struct mf_action {
	uint8_t op; /* enum mf_op */
	uint16_t chan; /* the model's channel index */
	struct mf_val v;
	const char *msg; /* check: the error's template */
	int16_t str; /* label: the str field naming the value */
	const struct engine_prim *prim; /* call */
	struct mf_val args[MF_MAX_ARGS]; /* call; check of a field: args[0], nargs 1 */
	int nargs;
};

struct mf_event {
	const struct mf_action *act;
	int nact;
};

enum mf_guard { MF_GUARD_NONE, MF_GUARD_RUNNING, MF_GUARD_ACTIVE };

/* A breakdown view (`breakdown`, doc/dev/models.md): per physical CPU a
 * chain of muxes over the CPU rows of the model's channels; the last mux's
 * value of every CPU, sorted, is one row each of MODEL-breakdown.prv (as
 * ovniemu's -b writes it). A source is a channel (>= 0, its index) or an
 * earlier mux of the view (-1 - its index). */
#define MF_MAX_CONDS 4

struct mf_cond {
	int16_t src;
	uint8_t ne; /* 1: !=, 0: == */
	int64_t k;
};

struct mf_pick {
	int16_t src; /* the input shown while this pick is selected */
	struct mf_cond cond[MF_MAX_CONDS]; /* all must hold (none: always) */
	int ncond;
};

struct mf_mux {
	char *name;
	int16_t sel; /* a change of this source selects again */
	int64_t def; /* the value when no pick holds */
	struct mf_pick *picks; /* the first that holds is selected */
	int npicks;
};

struct mf_breakdown {
	char *label;
	int *labels; /* channels whose value labels the .pcf lists, in order */
	int nlabels;
	char *require; /* stream.json key every thread must have true, or NULL */
	struct mf_mux *mux;
	int nmux;
	int line; /* of the `breakdown` statement, for messages */
};

/* The model's Paraver table: the numbers only a Paraver output needs, kept
 * apart from the model's channels (a format 2 file's `paraver` block; a
 * format 1 file gives them inline). Per channel its event type on thread
 * rows and on CPU rows (an `each` group's member j: the type + j), and the
 * breakdown view's type; -1: none. */
struct mf_paraver {
	int32_t *thread, *cpu; /* by channel index */
	int32_t breakdown;
};

struct mf_model {
	struct weft_model_def def; /* first: a def of a file model is its mf_model */
	struct weft_evdecl *decls; /* def.events */
	struct mf_event *evs; /* evs[k]: the actions of decls[k] */
	struct mf_action *acts;
	struct mf_chan *chans;
	int nchans;
	enum mf_guard guard;
	int oncpu; /* `guard STATE oncpu`: not switched out */
	struct mf_breakdown *bd; /* NULL: none */
	struct mf_paraver prv;
	struct weft_prv_type *prv_rows; /* def.paraver: prv as the Paraver sink reads it */
	char *path; /* as given, for messages */
};

/* A channel's label of value v, or NULL. */
const char *mf_label(const struct mf_chan *c, int64_t v);

#endif
