/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_int: the engine's state, shared by its files (engine.c runs the
 * actions and shows values, engine_labels.c keeps the value labels): the
 * channels of every enabled model file, each thread's values. Not for use
 * outside models/engine/engine*.c (engine.h is the interface). */
#ifndef WEFT_ENGINE_INT_H
#define WEFT_ENGINE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

struct eng_stack {
	int64_t *v;
	int n, cap;
};

/* How a shown value is written, from the channel's `dup` rule and `zero`
 * (chosen once, so the per-event loops take one switch). */
enum { ENG_W_PUNCT0 = 1, ENG_W_PUNCT1 = 2, ENG_W_SLOW = 4 };

enum eng_put {
	ENG_PUT_SET, /* dup skip: only a change */
	ENG_PUT_PUNCT, /* dup emit: always */
	ENG_PUT_SOME, /* dup skip-null: always unless 0 (none), then a change */
	ENG_PUT_ZERO, /* a `zero` channel: its 0 may be a value (put) */
};

struct eng_chan {
	const struct mf_chan *c;
	uint8_t put; /* enum eng_put */
	int64_t cpu_none; /* c->cpu_none, beside the slot */
	uint8_t onmask; /* the thread states it is shown in on thread rows, a bit each */
	uint8_t pflags; /* ENG_W_PUNCT0, ENG_W_PUNCT1 of its put rule */
	const struct mf_model *m;
	int tslot, cslot; /* -1: not shown */
	int member; /* its index in its channel group (0: none) */
	const char *tlabel, *clabel;
	char *own; /* a group member's label, owned */
	int gfirst, gn; /* a group (`each`): its members are this one, then gfirst .. gfirst+gn-2 */
	int bdv, bdc; /* the breakdown view reading its CPU rows, -1: none; its channel index */
	struct mf_label *dyn; /* labels added at run time */
	int ndyn, capdyn;
};

struct engine {
	int nch; /* channels of every enabled file model */
	struct eng_chan *ch;
	int64_t *val; /* [thread * nch + channel]: its value (a stack's top) */
	/* `zero` channels only (doc/dev/models.md): [thread * nch + channel]
	 * it was set (its 0 is a value); whether the last value written on
	 * the thread's row, [cpu * nch + channel] on the CPU's, was none */
	uint8_t *vset, *tnone, *cnone;
	/* the last value queued on each row's slot of a channel, as the
	 * Paraver back keeps it ([thread * nch + channel], [cpu * nch +
	 * channel]; PRV_NEVER: none yet, as the back's fresh slots start):
	 * a set that repeats it is not queued (the back would drop it; -j
	 * workers drop repeats too, so every sink takes both) */
	int64_t *tlast, *clast;
	/* [channel]: what a CPU row shows with no thread running there (the
	 * channel's cpu_none) */
	int64_t *cnoneval;
	struct eng_stack *stk; /* [thread * nch + channel], stack channels */
	int base[MCV_NCHARS]; /* first channel of each model, at mcv_index(its character) */
	int *cpu_ch; /* channels CPU rows show */
	int ncpu_ch;
	/* the same, with what engine_cpu_run reads of each beside its index
	 * (one load per field, no walk through eng_chan; rebuilt by every
	 * engine_setup) */
	struct eng_cpu_w {
		int32_t ci, slot, bdv;
		uint8_t put;
		/* ENG_W_*: punctual when the value is 0, when it is not; a
		 * `zero` or `dup emit` channel, or one a breakdown view reads */
		uint8_t flags;
		/* the others: -1 for `dup skip` (written when v differs from
		 * the last value l), 0 for `dup skip-null` (when v or l is not
		 * 0): both are ((v ^ x) | (l ^ x)) != 0 with x = l & same */
		int64_t same;
		const struct eng_chan *ch;
	} * cpu_w;
	/* the same for the channels thread rows show by thread state */
	struct eng_state_w {
		int32_t ci, slot;
		uint8_t put, show;
		uint8_t flags;
		int64_t same;
		const struct eng_chan *ch;
	} * state_w;
	int *state_ch; /* channels thread rows show by thread state */
	int nstate_ch;
	struct { /* primitives set up, to release at the end */
		const struct engine_prim *p;
		const struct mf_model *m;
	} * setup;
	int nsetup;
};

/* Member j of the group whose first channel is ch (index ci): ci itself
 * for j 0. */
static inline int member(const struct eng_chan *ch, int ci, int j)
{
	return j == 0 ? ci : ch->gfirst + j - 1;
}

/* A channel's label of value v (static, then added at run time), or NULL. */
const char *eng_label_of(const struct eng_chan *ch, int64_t v);
/* "4 (MPI_Wait)" or "4", in buf. */
const char *eng_vstr(const struct eng_chan *ch, int64_t v, char *buf, size_t n);
/* Label value v of a dynamic channel (the first name given stays). */
void eng_label_add(struct emu *e, struct eng_chan *ch, int64_t v, const char *label, size_t len);

#endif
