/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jobs_pairs: messages between emu -j workers (or --mpi ranks), paired in
 * one run's order by the merger (jobs_impl.h): the workers' communication
 * records renumbered as one run numbers its sends, their message ends
 * (MATCH_OP_SEND/RECV) matched by the main run's matcher (match.h) and their
 * text-named values (MATCH_OP_TEXT_*) numbered by the main run's model. */
#include <stdlib.h>
#include <string.h>

#include "par/jobs_impl.h"
#include "emu/match.h"
#include "emu/share.h"

struct idmap {
	uint64_t *g; /* one run's comm id, by the job's own */
	size_t n, cap;
};

struct jobs_pairs {
	struct emu *e;
	struct prv_pipe *p;
	struct jobs_sink *sink;
	struct idmap *map; /* by job */
	int n;
	uint64_t next; /* one run's sends so far */
	int64_t *arg; /* the ARG ops before the op to come */
	size_t narg, cap;
	char *text; /* a text op's bytes */
	size_t text_cap;
};

static void put(struct jobs_pairs *x, uint8_t kind, uint32_t row, int64_t value)
{
	struct prv_op op = {kind, EMU_THREAD_FILE, 0, row, value};
	prv_pipe_put_op(x->p, &op);
}

static uint64_t global_id(const struct jobs_pairs *x, int64_t local)
{
	const struct idmap *m = &x->map[x->sink->cur];
	return m->g[local]; /* a job's ids name its own sends, which came first */
}

/* e's matcher writes through these: a receive as one run's front would
 * have queued it (one op at the time of the event, else with ARGs) */
static void pair_recv(void *arg, uint64_t id, const struct emu_thread *to, uint64_t lrecv, uint64_t precv, uint64_t now)
{
	struct jobs_pairs *x = arg;
	if (lrecv == now && precv == now) {
		put(x, PRV_OP_COMM_RECV, (uint32_t) to->row, (int64_t) id);
		return;
	}
	put(x, PRV_OP_ARG, 0, (int64_t) lrecv);
	put(x, PRV_OP_ARG, 0, (int64_t) precv);
	put(x, PRV_OP_COMM_RECV_ARGS, (uint32_t) to->row, (int64_t) id);
}

static void pair_drop(void *arg, uint64_t id)
{
	put(arg, PRV_OP_COMM_DROP, 0, (int64_t) id);
}

/* A text a worker named a value by: the main run's model numbers it. */
static void text_op(struct jobs_pairs *x, const struct prv_op *op)
{
	uint64_t v = (uint64_t) op->value;
	char model = (char) (v >> 56);
	int table = (int) (v >> 40 & 0xffff);
	size_t len = (size_t) (v & 0xffffffffff), words = (len + 7) / 8;
	size_t first = x->narg - words; /* TEXT_NAME: the named value before */
	if (len + 1 > x->text_cap) {
		x->text_cap = len + 64;
		x->text = weft_xrealloc(x->text, x->text_cap);
	}
	for (size_t i = 0; i < words; i++) {
		size_t k = len - 8 * i < 8 ? len - 8 * i : 8;
		memcpy(x->text + 8 * i, &x->arg[first + i], k);
	}
	x->text[len] = '\0';
	const struct weft_model_hooks *h = emu_registry_id(x->e, model)->hooks;
	if (op->kind == MATCH_OP_TEXT_PUNCT) {
		struct prv_op o = {PRV_OP_PUNCT, EMU_THREAD_FILE, op->slot, op->row,
				   h->text_value(x->e, table, x->text)};
		prv_pipe_put_op(x->p, &o);
	} else {
		h->text_name(x->e, table, x->arg[first - 1], x->text);
	}
	x->narg = 0;
}

/* Every op of a job but the timed records: ids made one run's, ends matched. */
static void pair_op(void *arg, const struct prv_op *op)
{
	struct jobs_pairs *x = arg;
	struct prv_op o = *op;
	switch (op->kind) {
	case PRV_OP_ARG:
		if (x->narg == x->cap) {
			x->cap = x->cap ? 2 * x->cap : 64;
			x->arg = weft_xrealloc(x->arg, x->cap * sizeof(*x->arg));
		}
		x->arg[x->narg++] = op->value;
		return;
	case MATCH_OP_TEXT_PUNCT:
	case MATCH_OP_TEXT_NAME:
		text_op(x, op);
		return;
	case MATCH_OP_SEND:
	case MATCH_OP_RECV: {
		int32_t src = (int32_t) ((uint64_t) x->arg[0] >> 32), dst = (int32_t) x->arg[0];
		int32_t tag = (int32_t) x->arg[1];
		const struct emu_thread *t = emu_share_row_thread(x->e, op->row);
		if (op->kind == MATCH_OP_SEND)
			match_send_at(x->e, t, src, dst, tag, global_id(x, op->value), (uint64_t) x->arg[2]);
		else
			match_recv_at(x->e, t, src, dst, tag, (uint64_t) x->arg[2], (uint64_t) x->arg[3]);
		x->narg = 0;
		return;
	}
	case PRV_OP_COMM_SEND:
	case PRV_OP_COMM_SEND_ARGS: {
		struct idmap *m = &x->map[x->sink->cur];
		if (m->n == m->cap) {
			m->cap = m->cap ? 2 * m->cap : 1024;
			m->g = weft_xrealloc(m->g, m->cap * sizeof(*m->g));
		}
		m->g[m->n++] = x->next++;
		break;
	}
	case PRV_OP_COMM_RECV:
	case PRV_OP_COMM_RECV_ARGS:
	case PRV_OP_COMM_PSEND:
	case PRV_OP_COMM_DROP:
		o.value = (int64_t) global_id(x, op->value);
		break;
	}
	for (size_t k = 0; k < x->narg; k++)
		put(x, PRV_OP_ARG, 0, x->arg[k]);
	x->narg = 0;
	prv_pipe_put_op(x->p, &o);
}

struct jobs_pairs *jobs_pairs_begin(struct emu *e, struct prv_pipe *out, struct jobs_sink *sink, int n)
{
	struct jobs_pairs *x = weft_xcalloc(1, sizeof(*x));
	x->e = e;
	x->p = out;
	x->sink = sink;
	x->n = n;
	x->map = weft_xcalloc((size_t) n + 1, sizeof(*x->map));
	if (!e->side.match)
		e->side.match = weft_xcalloc(1, sizeof(*e->side.match));
	e->side.match->recv = pair_recv;
	e->side.match->drop = pair_drop;
	e->side.match->arg = x;
	prv_pipe_hook(out, pair_op, x);
	return x;
}

void jobs_pairs_end(struct emu *e, struct jobs_pairs *x)
{
	if (!x)
		return;
	if (x->p)
		prv_pipe_hook(x->p, NULL, NULL);
	if (e->side.match) {
		e->side.match->recv = NULL;
		e->side.match->drop = NULL;
		e->side.match->arg = NULL;
	}
	for (int k = 0; k < x->n; k++)
		free(x->map[k].g);
	free(x->map);
	free(x->arg);
	free(x->text);
	free(x);
}
