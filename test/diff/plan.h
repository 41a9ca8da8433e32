/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan: the text form of a generated trace, one line a step, that the
 * planner writes, the mutator and the minimiser edit and the writer plays
 * through libovni. Same text, same trace: nothing else decides what is
 * written. Lines (fields separated by one space):
 *   O HOST OFFSET           clock-offsets.txt row: HOST's clocks + OFFSET
 *   P APP LOOM PID RANK N   a process (RANK -1: no rank); its threads follow
 *   T TID                   a thread of the last process; its lines follow
 *   C INDEX PHYID           the thread reports a CPU of its loom
 *   R MODEL VERSION         the thread requires a model
 *   A KEY 0|1               a boolean attribute of the thread
 *   S KEY TEXT              a string attribute of the thread
 *   Y TYPE STACK TITLE      a mark type (STACK 1: push/pop)
 *   N TYPE VALUE LABEL      a mark label
 *   E CLOCK MCV HEX|- [@G]  an event, its payload in hex ("-": none);
 *                           G: its group in its thread (the events of one
 *                           frame, task, pause...), for the minimiser
 *   J CLOCK MCV HEX [@G]    a jumbo event
 * Lines starting with '#' are comments. */
#ifndef DIFFGEN_PLAN_H
#define DIFFGEN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct plan {
	char **line;
	size_t n, cap;
};

/* An event line split into its fields. */
struct plan_ev {
	char kind; /* 'E' or 'J' */
	uint64_t clock;
	char mcv[4];
	uint8_t pl[512];
	int plen;
	int group; /* 0: none */
};

void plan_init(struct plan *p);
void plan_free(struct plan *p);
/* Append a line (printf format, no newline). */
void plan_add(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Insert a copy of `s` before index i. */
void plan_insert(struct plan *p, size_t i, const char *s);
void plan_remove(struct plan *p, size_t i);
void plan_set(struct plan *p, size_t i, const char *s);
/* 0 ok; -1 with a message naming the line on stderr. */
int plan_read(struct plan *p, FILE *f, const char *name);
void plan_write(const struct plan *p, FILE *f);

/* 1 if line s is an event line, then filled in. */
int plan_ev_parse(const char *s, struct plan_ev *ev);
/* The line of an event (buf of at least 1200 bytes). */
void plan_ev_format(const struct plan_ev *ev, char *buf, size_t size);

/* A small deterministic generator (splitmix64). */
struct rng {
	uint64_t s;
};
static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
/* Uniform in [0, n) (n > 0). */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t) (rng_next(r) % n);
}
/* 1 with probability pct / 100. */
static inline int rng_pct(struct rng *r, uint32_t pct)
{
	return rng_below(r, 100) < pct;
}

/* planner.c: a valid multi-model trace from a seed. */
void plan_generate(struct plan *p, uint64_t seed);
/* mutate.c: one semantic mutation chosen by seed; its description in
 * `what` (a line). 0 done, -1 nothing to mutate. */
int plan_mutate(struct plan *p, uint64_t seed, char *what, size_t size);
/* writer.c: the plan written through libovni into DIR/ovni (and
 * DIR/clock-offsets.txt). 0 ok, -1 with a message. */
int plan_play(const struct plan *p, const char *dir);

#endif
