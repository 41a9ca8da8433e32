/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_prv: the input is a Paraver trace in memory: the .prv text, then
 * optionally a NUL byte and the .pcf text, then a NUL byte and the .row text.
 *
 * The checker (src/prv/check_*.c) runs twice over the same input: once with
 * the .prv in one piece, once cut into small pieces at input-dependent places
 * (each piece in its own heap buffer of exactly its size, so a read past a
 * piece is a heap overflow). Both runs must report the same problems in the
 * same order and count the same records: the result must not depend on how
 * the bytes arrive (mmap in one piece, zlib in 1 MiB pieces). Every problem
 * must name a file and carry a non-empty message; the error count must match
 * the callbacks; a parsed header must declare at least one application,
 * task and thread, each within 65,535.
 *
 * Nothing is printed and no file is written; a broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/prvcheck.h"

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t errors, warnings;
	uint64_t hash; /* FNV-1a over level, file, line and message of each problem */
};

static void mix(struct tally *t, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		t->hash ^= b[i];
		t->hash *= UINT64_C(1099511628211);
	}
}

static void on_problem(void *ctx, const struct prvchk_problem *p)
{
	struct tally *t = ctx;
	check(p->file != NULL && p->file[0] != '\0');
	check(p->msg != NULL && p->msg[0] != '\0');
	check(p->level == PRVCHK_ERROR || p->level == PRVCHK_WARNING);
	if (p->level == PRVCHK_ERROR)
		t->errors++;
	else
		t->warnings++;
	mix(t, &p->level, sizeof(p->level));
	mix(t, p->file, strlen(p->file));
	mix(t, &p->line, sizeof(p->line));
	mix(t, p->msg, strlen(p->msg));
}

/* A copy of p[0..n) in a heap buffer of exactly n bytes. */
static void *exact(const uint8_t *p, size_t n)
{
	void *b = malloc(n ? n : 1);
	check(b != NULL);
	if (n)
		memcpy(b, p, n);
	return b;
}

/* One run; `cut` = 0 feeds the .prv in one piece, otherwise in pieces of
 * 1..cut bytes chosen from the input itself. */
static void run(const uint8_t *prv, size_t nprv, const uint8_t *pcf, size_t npcf, const uint8_t *row,
		size_t nrow, unsigned cut, struct tally *t, struct prvchk_stats *st)
{
	memset(t, 0, sizeof(*t));
	t->hash = UINT64_C(14695981039346656037);
	struct prvchk_opts o = {on_problem, t, 0};
	struct prvchk *c = prvchk_new("fuzz.prv", &o);
	if (pcf) {
		void *b = exact(pcf, npcf);
		prvchk_pcf(c, "fuzz.pcf", b, npcf);
		free(b);
	}
	size_t off = 0, k = 0;
	while (off < nprv) {
		size_t n = nprv - off;
		if (cut) {
			size_t want = 1 + (size_t) (prv[k % nprv] % cut);
			k += 7;
			if (want < n)
				n = want;
		}
		void *b = exact(prv + off, n);
		prvchk_feed(c, b, n);
		free(b);
		off += n;
	}
	prvchk_end(c);
	if (row) {
		void *b = exact(row, nrow);
		prvchk_row(c, "fuzz.row", b, nrow);
		free(b);
	}
	prvchk_finish(c, st);
	prvchk_free(c);
	check(st->errors == t->errors && st->warnings == t->warnings);
	if (st->header_ok) {
		check(st->nappl >= 1 && st->ntasks >= st->nappl && st->nthreads >= st->ntasks);
		check(st->nappl <= 65535 && st->ntasks <= 65535 && st->nthreads <= 65535);
		check(st->ncpus <= 65535 && st->nnodes <= 65535);
		check(st->unit != NULL);
	}
	check(st->records >= st->states + st->events + st->comms + st->globalops);
	if (st->errors == 0)
		check(st->pairs >= st->events); /* every valid event line has a pair */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *prv = data, *pcf = NULL, *row = NULL;
	size_t nprv = size, npcf = 0, nrow = 0;
	const uint8_t *z = memchr(data, 0, size);
	if (z) {
		nprv = (size_t) (z - data);
		pcf = z + 1;
		npcf = size - nprv - 1;
		const uint8_t *z2 = memchr(pcf, 0, npcf);
		if (z2) {
			npcf = (size_t) (z2 - pcf);
			row = z2 + 1;
			nrow = size - nprv - 1 - npcf - 1;
		}
	}
	struct tally a, b;
	struct prvchk_stats sa, sb;
	run(prv, nprv, pcf, npcf, row, nrow, 0, &a, &sa);
	run(prv, nprv, pcf, npcf, row, nrow, 13, &b, &sb);
	check(a.hash == b.hash && a.errors == b.errors && a.warnings == b.warnings);
	check(sa.lines == sb.lines && sa.records == sb.records && sa.states == sb.states);
	check(sa.events == sb.events && sa.pairs == sb.pairs && sa.comms == sb.comms);
	check(sa.header_ok == sb.header_ok && sa.ftime == sb.ftime && sa.nthreads == sb.nthreads);
	return 0;
}
