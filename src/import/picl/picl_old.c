/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_old: old-format lines (PICL 1.x, compact and verbose; doc/formats/legacy.md
 * §3) and their calls as entries and exits. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"

/* ---- old format ----------------------------------------------------------- */

static const struct {
	const char *name;
	int nf; /* fields after the node */
} old_keys[25] = {
	{NULL, 0},          {"trace_start", 3}, {"open", 0},      {"load", 0},
	{"send", 3},        {"probe", 1},       {"recv", 3},      {"recv_blocking", 1},
	{"recv_waking", 3}, {"message", 0},     {"sync", 0},      {"compstats", 2},
	{"commstats", 5},   {"close", 0},       {"trace_level", 3}, {"trace_mark", 1},
	{"trace_message", 0}, {"trace_stop", 0}, {"trace_flush", 2}, {"trace_exit", 1},
	{"block_begin", 3}, {"block_end", 3},   {"trace_marks", -1}, {"clock_sync", 0},
	{"trace_files", 2},
};

int picl_old_key(const struct tok *t)
{
	for (int k = 1; k <= 24; k++)
		if (strlen(old_keys[k].name) == t->n && memcmp(old_keys[k].name, t->p, t->n) == 0)
			return k;
	return 0;
}

int picl_old_line(struct picl *p, unsigned line, struct oldlog *L, int *skipping)
{
	int verbose = !(isdigit((unsigned char) p->tk[0].p[0]) || p->tk[0].p[0] == '-');
	int64_t key, s, us, node;
	int base;
	if (verbose) {
		key = picl_old_key(&p->tk[0]);
		if (!key) {
			if (*skipping)
				return 0;
			return FIELD_ERR(line, 0, "record name", "a PICL record name such as send or compstats");
		}
		if (p->ntk < 6 || p->tk[1].n != 5 || memcmp(p->tk[1].p, "clock", 5) ||
		    p->tk[4].n != 4 || memcmp(p->tk[4].p, "node", 4))
			return weft_fail(p->err, WEFT_EINPUT,
					 "%s:%u: verbose record: expected '<name> clock <s> <us> node <n> ...'",
					 p->path, line);
		if (picl_tok_int(&p->tk[2], INT32_MIN, INT32_MAX, &s))
			return FIELD_ERR(line, 2, "seconds", "an integer");
		if (picl_tok_int(&p->tk[3], INT32_MIN, INT32_MAX, &us))
			return FIELD_ERR(line, 3, "microseconds", "an integer");
		if (picl_tok_int(&p->tk[5], -32768, 32767, &node))
			return FIELD_ERR(line, 5, "node", "an integer");
		base = 6;
	} else {
		if (p->ntk >= 6 && p->tk[1].n == 2 && memcmp(p->tk[1].p, "is", 2) == 0) {
			picl_warn(p, line, "not a legal record type: raw trace data skipped", NULL);
			*skipping = 1;
			return 0;
		}
		if (picl_tok_int(&p->tk[0], 1, 24, &key)) {
			if (*skipping)
				return 0;
			return FIELD_ERR(line, 0, "record key", "an integer 1..24");
		}
		if (p->ntk < 4)
			return weft_fail(p->err, WEFT_EINPUT,
					 "%s:%u: record of %d fields: expected at least 4 (key, seconds, "
					 "microseconds, node)",
					 p->path, line, p->ntk);
		if (picl_tok_int(&p->tk[1], INT32_MIN, INT32_MAX, &s))
			return FIELD_ERR(line, 1, "seconds", "an integer");
		if (picl_tok_int(&p->tk[2], INT32_MIN, INT32_MAX, &us))
			return FIELD_ERR(line, 2, "microseconds", "an integer");
		if (picl_tok_int(&p->tk[3], -32768, 32767, &node))
			return FIELD_ERR(line, 3, "node", "an integer -32768..32767");
		base = 4;
	}
	*skipping = 0;
	struct oldrec r = {s * 1000000000 + us * 1000, line, 0, (int) key, {0}};
	if (node == -32768)
		r.proc = HOST;
	else if (node >= 0 && node < HOST)
		r.proc = (int32_t) node;
	else if (node == -1 && key == 3)
		return 0; /* load for all processes */
	else
		return FIELD_ERR(line, base - 1, "node", "0..32766 or the host -32768");
	/* the values: every integer token after the node (verbose lines label
	 * them with words, which are skipped) */
	int64_t val[64];
	int have = 0;
	for (int k = base; k < p->ntk && have < 64; k++) {
		if (verbose && !(isdigit((unsigned char) p->tk[k].p[0]) || p->tk[k].p[0] == '-'))
			continue;
		if (picl_tok_int(&p->tk[k], INT64_MIN / 2, INT64_MAX / 2, &val[have]))
			return FIELD_ERR(line, k, old_keys[key].name, "an integer");
		have++;
	}
	int nf = old_keys[key].nf;
	if (nf < 0)
		nf = have; /* trace_marks: count, then that many integers */
	if (key == 11 && verbose && have == 4)
		nf = 4; /* verbose compstats: busy s us, idle s us */
	if (have < nf)
		return weft_fail(p->err, WEFT_EINPUT, "%s:%u: %s record: expected %d fields after the node, "
				 "found %d", p->path, line, old_keys[key].name, nf, have);
	for (int k = 0; k < nf && k < 5; k++)
		r.f[k] = val[k];
	if (key == 11 && nf == 4)
		r.f[0] = r.f[2], r.f[1] = r.f[3];
	if ((key == 4 || key == 6 || key == 8) && r.f[0] == -32768)
		r.f[0] = HOST; /* partner is the host */
	if (L->n == L->cap) {
		L->cap = L->cap ? 2 * L->cap : 4096;
		L->v = weft_xrealloc(L->v, L->cap * sizeof(*L->v));
	}
	L->v[L->n++] = r;
	return 0;
}

static int cmp_old(const void *a, const void *b)
{
	const struct oldrec *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static void emit(struct picl *p, const struct oldrec *r, int64_t t, uint32_t line, uint8_t kind, int32_t type,
		 int32_t a, int32_t b, int32_t c)
{
	struct orec *o = picl_add(p);
	o->t = t;
	o->line = line;
	o->seq = kind == K_EXIT || kind == K_UEND ? 0 : 1; /* ends first at one line */
	o->proc = r->proc;
	o->kind = kind;
	o->type = type;
	o->a = a, o->b = b, o->c = c;
}

/* Old records to model records: calls end at the second following
 * compstats of their node (doc/formats/legacy.md §3.3). */
void picl_old_convert(struct picl *p, struct oldlog *L)
{
	if (L->n > 1) /* v is NULL without records: qsort(NULL, 0) is UB */
		qsort(L->v, L->n, sizeof(*L->v), cmp_old);
	int32_t *last = weft_xmalloc(NPROC_IDS * sizeof(int32_t));
	for (int i = 0; i < NPROC_IDS; i++)
		last[i] = -1;
	uint32_t *next = weft_xcalloc(L->n + 1, sizeof(*next));
	for (size_t i = L->n; i-- > 0;) {
		int32_t pr = L->v[i].proc;
		next[i] = last[pr] < 0 ? UINT32_MAX : (uint32_t) last[pr];
		last[pr] = (int32_t) i;
	}
	free(last);
	for (size_t i = 0; i < L->n; i++) {
		const struct oldrec *r = &L->v[i];
		int32_t type = 0, a = -1, b = -1, c = -1;
		switch (r->key) {
		case 1:
			emit(p, r, r->t, r->line, K_ENTRY, -901, -1, -1, -1);
			continue;
		case 13:
			emit(p, r, r->t, r->line, K_EXIT, -901, -1, -1, -1);
			continue;
		case 4:
			type = -21, a = (int32_t) r->f[2], b = (int32_t) r->f[1], c = (int32_t) r->f[0];
			break;
		case 5:
			type = -53, a = (int32_t) r->f[0];
			break;
		case 6:
			type = -51, a = (int32_t) r->f[1];
			break;
		case 10:
			type = -402;
			break;
		case 7:
			emit(p, r, r->t, r->line, K_ENTRY, -52, (int32_t) r->f[0], -1, -1);
			continue;
		case 8:
			emit(p, r, r->t, r->line, K_EXIT, -52, (int32_t) r->f[2], (int32_t) r->f[1], (int32_t) r->f[0]);
			continue;
		case 15:
			emit(p, r, r->t, r->line, K_MARK, (int32_t) r->f[0] >= 0 ? (int32_t) r->f[0] : -1, -1, -1, -1);
			continue;
		case 22:
			emit(p, r, r->t, r->line, K_MARK, -1, (int32_t) r->f[0], -1, -1);
			continue;
		case 23:
			emit(p, r, r->t, r->line, K_MARK, -401, -1, -1, -1);
			continue;
		case 20:
		case 21: {
			int32_t bt = (int32_t) r->f[0];
			emit(p, r, r->t, r->line, r->key == 20 ? K_UBEGIN : K_UEND, bt, -1, -1, -1);
			continue;
		}
		default:
			continue; /* compstats (read below), statistics, levels */
		}
		/* a call: its end is the second following compstats, before any
		 * other call of the node; else it is punctual */
		emit(p, r, r->t, r->line, K_ENTRY, type, a, b, c);
		int64_t et = r->t;
		uint32_t eline = r->line;
		int seen = 0;
		for (uint32_t j = next[i]; j != UINT32_MAX; j = next[j]) {
			int k = L->v[j].key;
			if (k == 11) {
				if (++seen == 2) {
					et = L->v[j].t;
					eline = L->v[j].line;
					break;
				}
			} else if (k == 4 || k == 5 || k == 6 || k == 7 || k == 8 || k == 10 || k == 13) {
				break;
			}
		}
		if (type == -51)
			emit(p, r, et, eline, K_EXIT, type, (int32_t) r->f[2], (int32_t) r->f[1], (int32_t) r->f[0]);
		else
			emit(p, r, et, eline, K_EXIT, type, -1, -1, -1);
		if (eline == r->line)
			p->r[p->n - 1].seq = 2; /* punctual: after its entry */
	}
	free(next);
}
