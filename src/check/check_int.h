/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_int: what the parts of the Paraver checker share (see prvcheck.h
 * for the public side). Not for use outside src/check/check_*.c.
 *
 * One struct prvchk holds the run: the header's object model, the per-thread
 * time order, the line carried between pieces of the .prv, and the label sets
 * of the .pcf. The parts are:
 *   check_common.c  hash sets, reporting and quoting, new/finish/free;
 *   check_hdr.c     the .prv header line;
 *   check_prv.c     the .prv body, fed in pieces of any size;
 *   check_pcf.c     the .pcf, and its labels against what the body used;
 *   check_row.c     the .row against the header's counts;
 *   check_file.c    a trace from its path (.prv mapped, .prv.gz streamed). */
#ifndef WEFT_CHECK_INT_H
#define WEFT_CHECK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "check/prvcheck.h"

#define MAX_OBJ 65535u           /* objects per level (16-bit kernel types) */
#define MAX_TRACK 100000u        /* distinct unlabelled keys remembered */
#define MAX_LINE (64u << 20)     /* longest line kept across pieces */
#define QUOTE_MAX 80             /* record bytes quoted in a message */

#define COLD __attribute__((cold, noinline))

/* ---- hash sets keyed by two words ---------------------------------------- */

struct hent {
	uint64_t k1, k2;
	uint64_t line;   /* where the key was first seen */
	uint32_t flags;
	uint32_t used;
};

struct hset {
	struct hent *t;
	size_t cap, n;
};

#define HAS_VALUES 1u /* types: the EVENT_TYPE block has a non-empty VALUES list */

static inline size_t hs_slot(const struct hset *s, uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * UINT64_C(0xC2B2AE3D27D4EB4F))) * UINT64_C(0x9E3779B97F4A7C15);
	return (size_t) (h ^ (h >> 29)) & (s->cap - 1);
}

/* Inline: the body looks labels up once per event pair. */
static inline struct hent *hs_find(const struct hset *s, uint64_t a, uint64_t b)
{
	if (s->n == 0)
		return NULL;
	size_t i = hs_slot(s, a, b);
	for (;;) {
		struct hent *e = &s->t[i];
		if (!e->used)
			return NULL;
		if (e->k1 == a && e->k2 == b)
			return e;
		i = (i + 1) & (s->cap - 1);
	}
}

/* The entry for (a, b); added with `line` when absent (*added set to 1). */
struct hent *chk_hs_add(struct hset *s, uint64_t a, uint64_t b, uint64_t line, int *added);
void chk_hs_free(struct hset *s);

/* ---- checker state -------------------------------------------------------- */

struct thr {
	uint64_t last_time;  /* latest first-time of the thread's records */
	uint64_t last_line;  /* line of that record; 0 = none yet */
	uint64_t state_end;  /* latest state end */
	uint64_t state_line; /* line of that state; 0 = none yet */
};

enum phase { PH_HEADER, PH_COMM, PH_BODY, PH_SKIP };

struct prvchk {
	char *name;
	struct prvchk_opts o;
	struct prvchk_stats st;

	enum phase phase;
	uint64_t lineno;
	uint64_t comm_seen;

	/* the header's model */
	int resources;
	uint32_t *cpu_node;     /* [ncpus + 1]: 1-based node of each global CPU */
	uint32_t *node_cpu0;    /* [nnodes + 1]: first global CPU of each node */
	uint32_t *appl_task0;   /* [nappl + 1]: first global task of each appl */
	uint32_t *task_thread0; /* [ntasks + 1]: first global thread of each task */
	uint32_t *task_node;    /* [ntasks] */
	struct thr *thr;        /* [nthreads] */
	int warned_appl_sep;

	/* a line cut between two pieces */
	char *carry;
	size_t carry_len, carry_cap;
	int carry_overlong;
	int last_nl;

	/* the record being checked, for messages */
	const char *rec;
	size_t rec_len;
	const char *kind;

	/* labels */
	int pcf_ok;
	char *pcfname;
	struct hset types;  /* (type, 0), flags HAS_VALUES */
	struct hset values; /* (type, value) */
	struct hset slabel; /* (state, 0) */
	struct hset scolor; /* (state, 0) */
	struct hset used_states;                  /* (state, 0): first line */
	struct hset miss_types, miss_values;      /* first line of use */
	uint64_t dropped;                         /* keys not remembered */
	uint64_t globalop_line;
};

/* ---- reporting ------------------------------------------------------------ */

/* Whether a problem of level lv is still passed to the callback (else it is
 * only counted, and need not be formatted). */
static inline int chk_wanted(const struct prvchk *c, enum prvchk_level lv)
{
	uint64_t n = lv == PRVCHK_ERROR ? c->st.errors : c->st.warnings;
	return c->o.report && (c->o.max_reports == 0 || n < c->o.max_reports);
}

#define ERR(c, file, line, ...) prvchk_report((c), PRVCHK_ERROR, (file), (line), __VA_ARGS__)
#define WARN(c, file, line, ...) prvchk_report((c), PRVCHK_WARNING, (file), (line), __VA_ARGS__)

/* `p[0..n)` as a C-like quoted string, at most `max` input bytes. dst needs
 * 4 * max + 8 bytes. */
char *chk_quote(char *dst, const char *p, size_t n, size_t max);
/* The text at p up to the next ':' (or the end), quoted, or "end of line".
 * dst needs 4 * 24 + 8 bytes. */
char *chk_token(char *dst, const char *p, const char *e);

/* ---- small helpers --------------------------------------------------------- */

/* p with room for `need` elements of elsz bytes; *cap grows by doubling. */
void *chk_grow(void *p, size_t *cap, size_t need, size_t elsz);
/* Space, tab or CR. */
int chk_blank(char ch);
const char *chk_skip_blanks(const char *p, const char *e);
/* An optionally negative decimal integer at *pp (no sign when !neg_ok);
 * returns 0 and advances, or -1. Values beyond int64 give -1 with *big = 1. */
int chk_txt_int(const char **pp, const char *e, int neg_ok, int64_t *out, int *big);

/* ---- between the parts ----------------------------------------------------- */

/* The header line (check_hdr.c): 0 and st.header_ok set, or -1 reported. */
int chk_parse_header(struct prvchk *c, const char *line, size_t n);
/* The labels the body used against the .pcf (check_pcf.c). */
void chk_check_labels(struct prvchk *c);

#endif
