/* SPDX-License-Identifier: GPL-3.0-or-later */
/* match: messages paired by key in one run's order (match.h). */
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/match.h"

static struct emu_match *matcher(struct emu *e)
{
	if (!e->side.match)
		e->side.match = weft_xcalloc(1, sizeof(*e->side.match));
	return e->side.match;
}

static void got_recv(struct emu *e, struct emu_match *m, uint64_t id, const struct emu_thread *to, uint64_t lrecv,
		     uint64_t precv, uint64_t now)
{
	if (m->recv)
		m->recv(m->arg, id, to, lrecv, precv, now);
	else
		emu_comm_recv(e, id, to, lrecv, precv);
}

static void dropped(struct emu *e, struct emu_match *m, uint64_t id)
{
	if (m->drop)
		m->drop(m->arg, id);
	else
		emu_comm_drop(e, id);
}

/* A -j worker: the end goes to the merger as ops of thread.prv's stream. */
static void defer(struct emu *e, uint8_t kind, const struct emu_thread *t, int32_t src, int32_t dst, int32_t tag,
		  const uint64_t *times, int ntimes, uint64_t value)
{
	struct prv_file *f = &e->out.prv[EMU_THREAD_FILE];
	prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, (int64_t) ((uint64_t) (uint32_t) src << 32 | (uint32_t) dst));
	prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, tag);
	for (int k = 0; k < ntimes; k++)
		prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, (int64_t) times[k]);
	prv_emit_op(f, 0, kind, (uint32_t) t->row, 0, (int64_t) value);
}

void match_send_at(struct emu *e, const struct emu_thread *t, int32_t src, int32_t dst, int32_t tag, uint64_t id,
		   uint64_t now)
{
	struct emu_match *m = matcher(e);
	struct key *k = keytab_find(&m->keys, src, dst, tag);
	if (key_waiting(k, KEY_RECVS)) {
		struct pend r = keytab_pop(&m->keys, k);
		m->npending--;
		got_recv(e, m, id, r.th, r.a, r.b, now);
		emu_pair(e, t, r.th, now, r.b); /* the receive came first */
	} else if (m->npending < MATCH_PENDING_CAP) {
		struct pend s = {id, now, (struct emu_thread *) t};
		keytab_push(&m->keys, k, src, dst, tag, KEY_SENDS, &s);
		m->npending++;
	} else {
		m->noverflow++;
		dropped(e, m, id);
	}
}

void match_recv_at(struct emu *e, const struct emu_thread *t, int32_t src, int32_t dst, int32_t tag,
		   uint64_t lrecv, uint64_t now)
{
	struct emu_match *m = matcher(e);
	struct key *k = keytab_find(&m->keys, src, dst, tag);
	if (key_waiting(k, KEY_SENDS)) {
		struct pend s = keytab_pop(&m->keys, k);
		m->npending--;
		got_recv(e, m, s.a, t, lrecv, now, now);
		emu_pair(e, s.th, t, s.b, now);
	} else if (m->npending < MATCH_PENDING_CAP) {
		struct pend r = {lrecv, now, (struct emu_thread *) t};
		keytab_push(&m->keys, k, src, dst, tag, KEY_RECVS, &r);
		m->npending++;
	} else {
		m->noverflow++;
	}
}

void emu_match_send(struct emu *e, struct emu_thread *t, int32_t src, int32_t dst, int32_t tag, uint64_t id)
{
	if (e->part.match_defer)
		defer(e, MATCH_OP_SEND, t, src, dst, tag, &e->run.now, 1, id);
	else
		match_send_at(e, t, src, dst, tag, id, e->run.now);
}

void emu_match_recv(struct emu *e, struct emu_thread *t, int32_t src, int32_t dst, int32_t tag, uint64_t lrecv)
{
	uint64_t times[2] = {lrecv, e->run.now};
	if (e->part.match_defer)
		defer(e, MATCH_OP_RECV, t, src, dst, tag, times, 2, 0);
	else
		match_recv_at(e, t, src, dst, tag, lrecv, e->run.now);
}

/* The text's bytes as ARG ops, 8 a op, then the op that takes them. */
static void defer_text(struct emu *e, uint8_t kind, uint32_t row, int slot, char model, int table, const char *s)
{
	struct prv_file *f = &e->out.prv[EMU_THREAD_FILE];
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i += 8) {
		int64_t w = 0;
		memcpy(&w, s + i, n - i < 8 ? n - i : 8);
		prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, w);
	}
	uint64_t v = (uint64_t) (uint8_t) model << 56 | (uint64_t) (uint16_t) table << 40 | (uint64_t) (n & 0xffffffffff);
	prv_emit_op(f, 1, kind, row, (uint32_t) slot, (int64_t) v);
	if (kind == MATCH_OP_TEXT_PUNCT)
		prv_front_unknown(f, (int) row, slot); /* the merger sets the value */
}

void emu_text_punct(struct emu *e, const struct emu_thread *t, int slot, char model, int table, const char *s)
{
	if (e->part.match_defer) {
		defer_text(e, MATCH_OP_TEXT_PUNCT, (uint32_t) t->row, slot, model, table, s);
		return;
	}
	const struct weft_model_def *d = emu_registry_id(e, model);
	emu_punct(e, EMU_THREAD_FILE, t->row, slot, d->hooks->text_value(e, table, s));
}

void emu_text_name(struct emu *e, char model, int table, int64_t value, const char *s)
{
	if (e->part.match_defer) {
		prv_emit_op(&e->out.prv[EMU_THREAD_FILE], 0, PRV_OP_ARG, 0, 0, value);
		defer_text(e, MATCH_OP_TEXT_NAME, 0, 0, model, table, s);
		return;
	}
	emu_registry_id(e, model)->hooks->text_name(e, table, value, s);
}

void emu_match_finish(struct emu *e, int nkeys, void (*name)(const struct emu *e, int32_t end, char *buf, int n))
{
	struct emu_match *m = e->side.match;
	if (!m)
		return;
	uint64_t us = 0, ur = 0;
	int shown = 0;
	struct key **wait;
	size_t nwait = keytab_waiting(&m->keys, &wait);
	for (size_t i = 0; i < nwait; i++) {
		const struct key *k = wait[i];
		size_t ns = key_waiting(k, KEY_SENDS), nr = key_waiting(k, KEY_RECVS);
		us += ns;
		ur += nr;
		for (uint32_t j = 0; j < ns; j++) /* the oldest first */
			dropped(e, m, j ? k->ring[(k->head + j - 1) % k->cap].a : k->first.a);
		if (!e->o.quiet && shown++ < nkeys) {
			char a[64], b[64];
			if (name) {
				name(e, k->src, a, (int) sizeof(a));
				name(e, k->dst, b, (int) sizeof(b));
			} else {
				snprintf(a, sizeof(a), "processor %d", k->src);
				snprintf(b, sizeof(b), "processor %d", k->dst);
			}
			weft_warn("msg: %s to %s, type %d: %zu sends and %zu receives unmatched", a, b, k->tag, ns, nr);
		}
	}
	free(wait);
	if (!e->o.quiet) {
		if (shown > nkeys)
			weft_warn("msg: %d more keys with unmatched messages", shown - nkeys);
		if (us || ur || m->noverflow)
			weft_warn("msg: %llu sends and %llu receives unmatched (%llu beyond the memory cap)",
				  (unsigned long long) us, (unsigned long long) ur,
				  (unsigned long long) m->noverflow);
	}
}

void emu_match_free(struct emu *e)
{
	if (!e->side.match)
		return;
	keytab_free(&e->side.match->keys);
	free(e->side.match);
	e->side.match = NULL;
}
