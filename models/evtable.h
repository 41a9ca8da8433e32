/* SPDX-License-Identifier: GPL-3.0-or-later */
/* evtable: the models' event tables compiled for fast lookup.
 * At start-up every row's signature is parsed into fields (type, offset) and
 * its template into literal/field segments, so per event there is one table
 * lookup by MCV and no string work. Used by dump (sentences), top (model
 * names), and later by the emulator and query (fields by name). */
#ifndef WEFT_EVTABLE_H
#define WEFT_EVTABLE_H

#include <stdint.h>

#include "util/err.h"
#include "trace/event.h"
#include "model.h"
#include "require.h"
#include "trace/obs.h"
#include "util/outbuf.h"
#include "trace/stream.h"
#include "util/macros.h"

enum evf_type { EVF_U8, EVF_U16, EVF_U32, EVF_U64, EVF_I8, EVF_I16, EVF_I32, EVF_I64, EVF_STR, EVF_BYTES };

#define EV_MAX_FIELDS 16
#define EV_MAX_SEGS 32

struct evfield {
	char name[32];
	enum evf_type type;
	uint32_t off, size; /* size 0 for str */
	int opt; /* after "[" in the signature: the payload may end before it */
};

struct evseg {
	const char *lit; /* literal text, or NULL for a field */
	uint16_t len;
	int16_t field;
	char inl[32];    /* the literal again when len <= 32: copied whole */
};

struct evinfo {
	/* hot fields first, on one cache line: the emulator reads them per event */
	weft_handler handler;  /* decl->handler; a run may put another in (evtable_wrap) */
	weft_handler inner;    /* the handler evtable_wrap replaced, for the wrapper to call */
	uint32_t size; /* fixed payload bytes (without the str tail) */
	uint32_t exact; /* a payload of this length needs no other check (~0: a str tail) */
	int has_str;   /* the payload ends with a tail: 1 a str, 2 any bytes */
	uint32_t min; /* fewest payload bytes accepted: the fields before "[" (no tail) */
	int only; /* "; exact": exactly `size` bytes (else at least min, more ignored) */
	const struct weft_evdecl *decl;
	const struct weft_model_def *model;
	struct evfield f[EV_MAX_FIELDS];
	int nf;
	struct evseg seg[EV_MAX_SEGS];
	int nseg;
};

struct evtable {
	/* per model character (mcv_index): NULL or MCV_NCHARS^2 slots by (cat, val) */
	struct evinfo **slots[MCV_NCHARS];
	/* per model character: its rows, one array (what the slots point to) */
	struct evinfo *rows[MCV_NCHARS];
	/* the models it was built from (the caller's registry, which outlives
	 * it), and by character: what a command asks of a model by id */
	struct model_set models;
	const struct weft_model_def *by_id[MCV_NCHARS];
};

/* Compile the tables of the n models of `all` (the caller's registry:
 * models/registry.h, or a run's own). A malformed row is an internal error naming
 * the model and MCV. */
WEFT_MUST_CHECK int evtable_init(struct evtable *t, const struct weft_model_def *const *all, int n, struct weft_err *e);
void evtable_free(struct evtable *t);

/* The model of character id among those t was built from; NULL if none. */
static inline const struct weft_model_def *evtable_model(const struct evtable *t, char id)
{
	return id >= MCV_FIRST && id <= MCV_LAST ? t->by_id[mcv_index(id)] : NULL;
}

static inline const struct evinfo *evtable_find(const struct evtable *t, uint8_t m, uint8_t c,
						uint8_t v)
{
	struct evinfo **s = t->slots[mcv_index(m)];
	return s ? s[mcv_index(c) * MCV_NCHARS + mcv_index(v)] : 0;
}

/* For one run: every row of `model` that has a handler gets h instead, the
 * old one kept as `inner` (e.g. a check before it, or an error for a model
 * no stream requires). */
void evtable_wrap(struct evtable *t, char model, weft_handler h);
/* For one run: every row without a handler gets h. */
void evtable_default(struct evtable *t, weft_handler h);

int ev_payload_ok_slow(const struct evinfo *i, const struct weft_ev *ev);

/* Does the payload have what the row needs, as ovniemu's rule for the
 * event is (model.h, Signature): at least its fixed fields, the optional
 * ones aside, more bytes ignored; exactly them with "; exact"; with a str
 * or bytes tail at least the fixed fields, a str tail holding a NUL (but
 * in a jumbo event, whose str ends at a NUL or at the payload's end, as
 * ovniemu reads a label: 6Yc with its type id alone is accepted); a jumbo
 * event where the row says jumbo. */
static inline int ev_payload_ok(const struct evinfo *i, const struct weft_ev *ev)
{
	if (__builtin_expect(ev->payload_len == i->exact, 1))
		return 1;
	return ev_payload_ok_slow(i, ev);
}

/* Field value, sign- or zero-extended; the payload must be valid. Inline:
 * handlers call it on every event. */
static inline int64_t ev_field(const struct evinfo *i, int field, const struct weft_ev *ev)
{
	const struct evfield *f = &i->f[field];
	if (__builtin_expect(f->opt, 0) && f->off + f->size > ev->payload_len)
		return 0; /* an optional field the payload does not reach */
	const uint8_t *p = ev->payload + f->off;
	int swap = ev->stream ? ev->stream->swap : 0;
	switch (f->type) {
	case EVF_U8:
		return p[0];
	case EVF_I8:
		return (int8_t) p[0];
	case EVF_U16:
		return obs_u16(p, swap);
	case EVF_I16:
		return (int16_t) obs_u16(p, swap);
	case EVF_U32:
		return obs_u32(p, swap);
	case EVF_I32:
		return (int32_t) obs_u32(p, swap);
	case EVF_U64:
	case EVF_I64:
		return (int64_t) obs_u64(p, swap);
	case EVF_STR:
	case EVF_BYTES:
		return 0;
	}
	return 0;
}
/* Compile one row (signature and template) into *in; a malformed row is an
 * internal error naming the model and MCV (model files check their rows
 * with it when they are read). */
WEFT_MUST_CHECK int evinfo_compile(struct evinfo *in, const struct weft_evdecl *d, const struct weft_model_def *m,
				   struct weft_err *e);
/* Index of a field by name, or -1. */
int evinfo_field(const struct evinfo *i, const char *name);
/* Append the event's sentence (at most a few KiB). */
void ev_sentence(struct outbuf *o, const struct evinfo *i, const struct weft_ev *ev);

#endif
