/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_out: the streams the PICL importer writes (picl_write.c) and the
 * records it keeps beside the timeline, written by picl_kept.c: user
 * record data, -7 messages, subsets and statistics, and the records of
 * every processor. Private to src/import/picl/. */
#ifndef WEFT_PICL_OUT_H
#define WEFT_PICL_OUT_H

#include "import/picl/picl_int.h"
#include "trace/writer.h"

struct pstream {
	struct ovni_writer w;
	int32_t proc, process; /* its row: process -1 for the row of a whole processor */
	char *dir;
	uint64_t last;
	int32_t *sys, *usr; /* open entries (types) */
	int nsys, csys, nusr, cusr;
	struct {
		int32_t type;
		const char *text;
	} * lab; /* user types used, scoped labels */
	int nlab, clab;
};

/* The user block values used, in order of first use (their default labels
 * follow the -5 labels in that order): a set and a list. */
struct used_marks {
	uint64_t small; /* values 0..63 in the set, as bits (the common ones) */
	int64_t *set; /* open addressing; INT64_MIN = empty */
	size_t cap, n;
	int64_t *order;
};

/* A record of every processor (a global -7 or subset record) written
 * already: a stream opened later gets it at its start. */
struct glob {
	uint8_t kind, sub;
	int32_t type, a;
	int64_t value; /* K_USER with data: its first field (PICL_NO_VALUE: no number) */
	char *text; /* K_TEXT; K_USER: its data */
};

struct picl_out {
	struct pstream **st; /* by slot (picl_row_of): processor id, or a row of a split processor */
	int nst;
	int64_t t0; /* time of the first record of a processor (the earliest) */
	int t0_set;
	struct used_marks used;
	struct glob *glob;
	int nglob, cglob;
	uint8_t *jbuf; /* a jumbo event's data being built */
	size_t cjbuf;
	struct pstream *loc; /* the stream p->loc asks about, once open */
	struct orec *pstat; /* statistics of several rows waiting for a stream */
	int npstat, cpstat;
};

/* The stream slots in row order (by processor, then process), one a call
 * (*pr, *k from 0); -1 at the end. */
static inline int picl_next_slot(const struct picl *p, int *pr, int *k)
{
	while (*pr < NPROC_IDS) {
		const struct picl_split *sp = picl_split_of(p, *pr);
		if (!sp)
			return (*pr)++;
		if (*k < sp->n)
			return sp->base + (*k)++;
		*k = 0;
		(*pr)++;
	}
	return -1;
}

/* A -7 message (XM.), a subset definition (XB*), a user record (XU., XUd,
 * XUt), a statistic (XS*, XG*) on stream s. */
void picl_text_ev(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t type, const char *text);
void picl_subset_ev(struct picl *p, struct pstream *s, uint64_t clk, int32_t index);
void picl_user_ev(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t rt, int32_t ty, int sub, int64_t v,
		  const char *text);
/* A user record's value and text, as picl_new_line stored them. */
void picl_user_data(const struct picl *p, const struct orec *r, int64_t *v, const char **text);
void picl_stat_ev(struct picl *p, struct pstream *s, const struct orec *r, uint64_t clk);
/* A record of every processor remembered (g) written on s. */
void picl_glob_ev(struct picl *p, struct pstream *s, uint64_t clk, const struct glob *g);
/* A record of every processor: on every stream open now, remembered for
 * those opened later. */
void picl_glob_record(struct picl *p, const struct orec *r, uint64_t clk);
/* A statistic of several rows: on the first stream open, or the first one
 * opened. */
void picl_glob_stat(struct picl *p, const struct orec *r, uint64_t clk);

#endif
