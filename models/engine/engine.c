/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine: the run-time side of model files — channel values per thread,
 * the compiled actions of each event, the rows that show them and the
 * end-of-trace checks (the .pcf blocks: engine_labels.c; the hook table
 * of every model file: engine_hooks.c). Over 700 lines: the channels'
 * layout, their writes and the end checks share the engine's private
 * arrays, and splitting them would put those in a header for one user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/breakdown.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "util/macros.h"

#define STACK_MAX 512 /* ovniemu's limit of a channel stack */

static const char *const state_name[] = {"Unknown", "Running", "Paused", "Dead", "Cooling", "Warming"};

/* ---- primitives --------------------------------------------------------------- */

static int off_cpu_setup(struct emu *e, const struct mf_model *m, struct weft_err *err)
{
	(void) m, (void) err;
	e->models.guard_off_cpu = 1;
	return 0;
}

static int off_cpu_run(struct emu *e, struct emu_thread *t, const struct engine_call *c, struct weft_err *err)
{
	(void) e, (void) err;
	t->off_cpu = c->args[0] != 0;
	return 0;
}

/* Every primitive model files may call, by name. A new one is a row here
 * (the task primitives have their own table, engine_task.c). */
static const struct engine_prim prims[] = {
	{.name = "off_cpu", .minargs = 1, .maxargs = 1, .setup = off_cpu_setup, .run = off_cpu_run},
};

const struct engine_prim *engine_prim_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(prims); i++)
		if (strcmp(prims[i].name, name) == 0)
			return &prims[i];
	for (int i = 0; i < engine_task_nprims; i++)
		if (strcmp(engine_task_prims[i].name, name) == 0)
			return &engine_task_prims[i];
	return NULL;
}


/* ---- showing values ------------------------------------------------------------- */

/* The thread states in which a channel is shown on its thread's row, a bit
 * per enum th_state (one shift and mask per value, no branch on its
 * `show`). */
static uint8_t show_mask(const struct mf_chan *c)
{
	switch (c->show) {
	case MF_SHOW_RUNNING:
		return 1u << TH_RUNNING;
	case MF_SHOW_ACTIVE:
		return 1u << TH_RUNNING | 1u << TH_COOLING | 1u << TH_WARMING;
	case MF_SHOW_ANY:
	default:
		return 0xff;
	}
}

static inline int shown_on_thread(const struct eng_chan *ch, const struct emu_thread *t)
{
	return (ch->onmask >> t->state) & 1;
}

/* Is a shown value written even when it repeats the row's last one (the
 * channel's `dup` rule)? `some`: it is a value, not "none" (0 off its
 * thread state, an empty stack, no thread running, a `zero` channel never
 * set). */
static inline int dup_written(const struct mf_chan *c, int some)
{
	switch (c->dup) {
	case MF_DUP_SKIP:
		return 0;
	case MF_DUP_EMIT:
		return 1;
	case MF_DUP_SKIP_NULL:
		return some;
	}
	return 0;
}

_Static_assert(PRV_OP_PUNCT == PRV_OP_EVENT + 1, "a punctual op is the kind after a set");

/* Queue v on (row, slot), a punctual value or a set. A set equal to *last,
 * the last value queued there, is not queued: the back would drop it
 * (engine_cpu_run writes every channel at each context switch, and most
 * repeat). */
static inline __attribute__((always_inline)) void emit_op(struct prv_file *f, int row, int slot, int64_t v, int punct)
{
	if (__builtin_expect(f->flast != NULL, 0)) { /* a -j worker's front */
		if (punct)
			prv_punct(f, row, slot, v);
		else
			prv_set(f, row, slot, v);
		return;
	}
	prv_emit_op(f, 1, (uint8_t) (PRV_OP_EVENT + punct), (uint32_t) row, (uint32_t) slot, v);
}

static inline __attribute__((always_inline)) void emit(struct prv_file *f, int row, int slot, int64_t v, int punct,
						       int64_t *last)
{
	if (!punct && *last == v)
		return;
	*last = v;
	emit_op(f, row, slot, v, punct);
}

/* Punctual or not by the flags of a channel's put rule (no branch). */
static inline int punct_of(unsigned flags, int64_t v)
{
	return (int) ((flags & ENG_W_PUNCT0) | ((flags >> 1) & (unsigned) (v != 0)));
}

/* Write v on (row, slot) by the channel's rule (eng_put). Outside `zero`
 * channels "some" is v != 0. A `zero` channel (its 0 may be a value) keeps
 * in *none whether the row's last value was "none": "none" after a set 0
 * is a change for ovniemu, written though it is 0 again. Inline in every
 * loop: a call per value cost more than the writing (1 M synth,
 * nosv,mpi,tampi: 67 instructions a CPU channel, 42 inline). */
static inline __attribute__((always_inline)) void put(struct prv_file *f, int row, int slot, int64_t v, int kind,
						      const struct mf_chan *c, int some, uint8_t *none, int64_t *last)
{
	int punct;
	switch (kind) {
	case ENG_PUT_SET:
		punct = 0;
		break;
	case ENG_PUT_PUNCT:
		punct = 1;
		break;
	case ENG_PUT_SOME:
		punct = v != 0;
		break;
	default:
		punct = dup_written(c, some) | (!some && !*none);
		*none = (uint8_t) !some;
		break;
	}
	emit(f, row, slot, v, punct, last);
}

/* Show thread t's new value v of channel ch (index ci; at: its index in
 * g->val) on the rows that show it; punct: written even if it repeats. */
static inline void show(struct emu *e, const struct eng_chan *ch, int ci, struct emu_thread *t, int64_t v, int punct,
			size_t at)
{
	if (!e->out.writing)
		return;
	struct engine *g = e->eng.s;
	const struct mf_chan *c = ch->c;
	int p = punct | punct_of(ch->pflags, v);
	if (ch->tslot >= 0 && shown_on_thread(ch, t)) {
		if (__builtin_expect(ch->put == ENG_PUT_ZERO, 0))
			put(&e->out.prv[EMU_THREAD_FILE], t->row, ch->tslot, v, punct ? ENG_PUT_PUNCT : ENG_PUT_ZERO, c,
			    g->vset[at], &g->tnone[at], &g->tlast[at]);
		else
			emit(&e->out.prv[EMU_THREAD_FILE], t->row, ch->tslot, v, p, &g->tlast[at]);
	}
	if (ch->cslot >= 0 && t->cpu && t->cpu->running == t) {
		int row = t->cpu->row;
		size_t cat = (size_t) row * (size_t) g->nch + (size_t) ci;
		if (__builtin_expect(ch->put == ENG_PUT_ZERO, 0))
			put(&e->out.prv[EMU_CPU_FILE], row, ch->cslot, v, punct ? ENG_PUT_PUNCT : ENG_PUT_ZERO, c,
			    g->vset[at], &g->cnone[cat], &g->clast[cat]);
		else
			emit(&e->out.prv[EMU_CPU_FILE], row, ch->cslot, v, p, &g->clast[cat]);
		if (__builtin_expect(ch->bdv >= 0, 0))
			bd_note(e, ch->bdv, ch->bdc, row, v);
	}
}

void engine_thread_state(struct emu *e, struct emu_thread *t)
{
	struct engine *g = e->eng.s;
	if (!e->out.writing)
		return;
	size_t base = (size_t) t->stream->index * (size_t) g->nch;
	const int64_t *val = &g->val[base];
	int64_t *last = &g->tlast[base];
	/* locals: an op's stores could alias them (see thread_row) */
	struct prv_file *f = &e->out.prv[EMU_THREAD_FILE];
	int row = t->row, st = (int) t->state;
	for (const struct eng_state_w *w = g->state_w, *we = w + g->nstate_ch; w < we; w++) {
		int on = (w->show >> st) & 1;
		int64_t v = val[w->ci] & -(int64_t) on; /* 0 off its states */
		int64_t *l = &last[w->ci];
		if (__builtin_expect(w->flags & ENG_W_SLOW, 0)) {
			size_t at = base + (size_t) w->ci;
			if (w->put == ENG_PUT_ZERO)
				put(f, row, w->slot, v, ENG_PUT_ZERO, w->ch->c, on && g->vset[at], &g->tnone[at], l);
			else
				emit(f, row, w->slot, v, punct_of(w->flags, v), l);
			continue;
		}
		/* most repeat: one test for both reasons to write (eng_cpu_w) */
		int64_t x = *l & w->same;
		if (__builtin_expect(((v ^ x) | (*l ^ x)) != 0, 0)) {
			*l = v;
			emit_op(f, row, w->slot, v, punct_of(w->flags, v));
		}
	}
}

void engine_cpu_run(struct emu *e, struct emu_cpu *c, const struct emu_thread *run)
{
	struct engine *g = e->eng.s;
	size_t base = run ? (size_t) run->stream->index * (size_t) g->nch : 0;
	/* no thread: each channel's none, from a row of them (no test a channel) */
	const int64_t *val = run ? &g->val[base] : g->cnoneval;
	struct prv_file *f = &e->out.prv[EMU_CPU_FILE];
	int row = c->row;
	int64_t *last = &g->clast[(size_t) row * (size_t) g->nch];
	for (const struct eng_cpu_w *w = g->cpu_w, *we = w + g->ncpu_ch; w < we; w++) {
		int64_t v = val[w->ci];
		int64_t *l = &last[w->ci];
		if (__builtin_expect(w->flags & ENG_W_SLOW, 0)) {
			if (w->put == ENG_PUT_ZERO) {
				int some = run ? g->vset[base + (size_t) w->ci] : v != 0;
				put(f, row, w->slot, v, ENG_PUT_ZERO, w->ch->c, some,
				    &g->cnone[(size_t) row * (size_t) g->nch + (size_t) w->ci], l);
			} else {
				emit(f, row, w->slot, v, punct_of(w->flags, v), l);
			}
			if (w->bdv >= 0)
				bd_note(e, w->bdv, w->ch->bdc, row, v);
			continue;
		}
		/* most repeat: one test for both reasons to write (eng_cpu_w) */
		int64_t x = *l & w->same;
		if (__builtin_expect(((v ^ x) | (*l ^ x)) != 0, 0)) {
			*l = v;
			emit_op(f, row, w->slot, v, punct_of(w->flags, v));
		}
	}
}

/* ---- messages ----------------------------------------------------------------------- */

/* A check's message: %{tid} and %{field} of the payload filled in. */
static int check_failed(struct emu *e, const struct emu_thread *t, const struct mf_action *a, const struct weft_ev *ev,
			const struct evinfo *in, struct weft_err *err)
{
	char out[1024];
	size_t o = 0;
	for (const char *p = a->msg; *p && o < sizeof(out) - 32; p++) {
		const char *end;
		if (p[0] == '%' && p[1] == '{' && (end = strchr(p, '}'))) {
			char nm[64];
			snprintf(nm, sizeof(nm), "%.*s", (int) (end - p - 2), p + 2);
			int f = evinfo_field(in, nm);
			if (strcmp(nm, "tid") == 0)
				o += (size_t) snprintf(out + o, sizeof(out) - o, "%lld", (long long) t->sys->tid);
			else if (f >= 0 && in->f[f].type != EVF_STR)
				o += (size_t) snprintf(out + o, sizeof(out) - o, "%lld",
						       (long long) ev_field(in, f, ev));
			else
				o += (size_t) snprintf(out + o, sizeof(out) - o, "%%{%s}", nm);
			p = end;
			continue;
		}
		out[o++] = *p;
	}
	out[o < sizeof(out) ? o : sizeof(out) - 1] = '\0';
	return emu_model_error(e, err, "%s", out);
}

static int same_value(struct emu *e, const struct emu_thread *t, const struct eng_chan *ch, const char *op, int64_t v,
		      struct weft_err *err)
{
	char b[160];
	return emu_model_error(e, err,
			       "%s of %s on channel %s.%s of thread %lld, which already has that value: "
			       "expected another value",
			       op, eng_vstr(ch, v, b, sizeof(b)), ch->m->def.name, ch->c->name,
			       (long long) t->sys->tid);
}

/* ---- the event handler ------------------------------------------------------------------ */

static inline int64_t value(const struct mf_val *v, const struct evinfo *in, const struct weft_ev *ev)
{
	return v->field >= 0 ? ev_field(in, v->field, ev) : v->k;
}

static int guard_failed(struct emu *e, const struct emu_thread *t, const struct mf_model *m, struct weft_err *err)
{
	return emu_model_error(e, err, "thread %lld is %s: expected it %s for an event of model %s",
			       (long long) t->sys->tid, state_name[t->state],
			       m->guard == MF_GUARD_RUNNING ? "Running" : "active (Running, Cooling or Warming)",
			       m->def.name);
}

int engine_chan(const struct mf_model *m, const char *name)
{
	for (int k = 0; k < m->nchans; k++)
		if (strcmp(m->chans[k].name, name) == 0)
			return k;
	return -1;
}

/* One channel operation on thread t's value *cur of channel ch (index ci). */
static inline int apply(struct emu *e, struct engine *g, struct emu_thread *t, int ci, int op, int64_t v,
			struct weft_err *err)
{
	const struct eng_chan *ch = &g->ch[ci];
	size_t at = (size_t) t->stream->index * (size_t) g->nch + (size_t) ci;
	int64_t *cur = &g->val[at];
	char b1[160], b2[160];
	switch (op) {
	case MF_PUSH: {
		if (v == *cur && ch->c->same != MF_SAME_ALLOW) {
			if (ch->c->same == MF_SAME_IGNORE)
				return 0;
			return same_value(e, t, ch, "push", v, err);
		}
		struct eng_stack *s = &g->stk[at];
		if (s->n == STACK_MAX)
			return emu_model_error(e, err, "push of %s on channel %s.%s: the stack is full (%d values)",
					       eng_vstr(ch, v, b1, sizeof(b1)), ch->m->def.name, ch->c->name,
					       STACK_MAX);
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 8;
			s->v = weft_xrealloc(s->v, (size_t) s->cap * sizeof(*s->v));
		}
		s->v[s->n++] = v;
		*cur = v;
		show(e, ch, ci, t, v, 0, at);
		return 0;
	}
	case MF_POP: {
		struct eng_stack *s = &g->stk[at];
		if (s->n == 0)
			return emu_model_error(e, err, "pop of %s from channel %s.%s: the stack is empty",
					       eng_vstr(ch, v, b1, sizeof(b1)), ch->m->def.name, ch->c->name);
		if (s->v[s->n - 1] != v)
			return emu_model_error(e, err,
					       "pop of %s from channel %s.%s: expected the top of the "
					       "stack, %s",
					       eng_vstr(ch, v, b1, sizeof(b1)), ch->m->def.name, ch->c->name,
					       eng_vstr(ch, s->v[s->n - 1], b2, sizeof(b2)));
		s->n--;
		*cur = s->n ? s->v[s->n - 1] : 0;
		show(e, ch, ci, t, *cur, 0, at);
		return 0;
	}
	case MF_SET:
	case MF_PUNCT:
		if (op == MF_SET && v == *cur && ch->c->same != MF_SAME_ALLOW) {
			if (ch->c->same == MF_SAME_IGNORE)
				return 0;
			return same_value(e, t, ch, "set", v, err);
		}
		*cur = v;
		if (ch->c->zero)
			g->vset[at] = 1;
		show(e, ch, ci, t, v, op == MF_PUNCT, at);
		return 0;
	case MF_UNSET:
		if (ch->c->stack)
			g->stk[at].n = 0;
		*cur = 0;
		if (ch->c->zero)
			g->vset[at] = 0;
		show(e, ch, ci, t, 0, 0, at);
		return 0;
	}
	return weft_fail(err, WEFT_EINTERNAL, "engine: operation %d is not a channel operation", op);
}

int engine_apply(struct emu *e, struct emu_thread *t, const struct mf_model *m, int chan, int op, int64_t v,
		 struct weft_err *err)
{
	struct engine *g = e->eng.s;
	return apply(e, g, t, g->base[mcv_index(m->def.id)] + chan, op, v, err);
}

const char *engine_call_str(const struct engine_call *c, int arg, char *buf, size_t n)
{
	/* a str field's argument is its field index (engine_event) */
	buf[0] = '\0';
	if (arg >= c->nargs || c->args[arg] < 0 || c->args[arg] >= c->in->nf ||
	    c->in->f[c->args[arg]].type != EVF_STR || n == 0)
		return buf;
	const uint8_t *p = c->ev->payload + c->in->f[c->args[arg]].off;
	const uint8_t *end = c->ev->payload + c->ev->payload_len;
	size_t k = 0;
	while (p + k < end && p[k] && k + 1 < n)
		k++;
	memcpy(buf, p, k);
	buf[k] = '\0';
	return buf;
}

/* `setall`: the group's members from the payload, one i64 each. */
static int set_all(struct emu *e, struct engine *g, struct emu_thread *t, int ci, const struct weft_ev *ev,
		   struct weft_err *err)
{
	const struct eng_chan *ch = &g->ch[ci];
	if (ch->gn == 0)
		return emu_model_error(e, err, "channel %s.%s has no members: no thread's stream.json declares %s",
				       ch->m->def.name, ch->c->name, ch->c->each_key);
	if (ev->payload_len != 8u * (unsigned) ch->gn)
		return emu_model_error(e, err,
				       "payload of %u bytes: expected %d, an i64 for each of the %d %s.%s "
				       "channels (the entries of %s in stream.json)",
				       ev->payload_len, 8 * ch->gn, ch->gn, ch->m->def.name, ch->c->name,
				       ch->c->each_key);
	for (int j = 0; j < ch->gn; j++) {
		uint64_t u;
		memcpy(&u, ev->payload + 8 * j, 8);
		if (ev->stream && ev->stream->swap)
			u = __builtin_bswap64(u);
		int rc = apply(e, g, t, member(ch, ci, j), MF_SET, (int64_t) u, err);
		if (rc)
			return rc;
	}
	return 0;
}

int engine_event(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	const struct mf_model *m = (const struct mf_model *) in->model; /* a file model's def is first */
	const struct mf_event *me = &m->evs[in->decl - m->decls];
	struct engine *g = e->eng.s;
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	if (m->guard == MF_GUARD_RUNNING ? t->state != TH_RUNNING
		    : m->guard == MF_GUARD_ACTIVE
		    ? !(t->state == TH_RUNNING || t->state == TH_COOLING || t->state == TH_WARMING)
		    : 0)
		return guard_failed(e, t, m, err);
	if (m->oncpu && t->off_cpu) /* after the state, as ovniemu checks them */
		return emu_off_cpu_error(e, t, m->def.name, err);
	int base = g->base[mcv_index(ev->model)];
	for (int i = 0; i < me->nact; i++) {
		const struct mf_action *a = &me->act[i];
		int rc;
		switch (a->op) {
		case MF_CHECK_EQ:
		case MF_CHECK_NE: {
			int64_t cur = a->nargs
				? value(&a->args[0], in, ev)
				: g->val[(size_t) ev->stream->index * (size_t) g->nch + (size_t) (base + a->chan)];
			if ((cur == value(&a->v, in, ev)) != (a->op == MF_CHECK_EQ))
				return check_failed(e, t, a, ev, in, err);
			continue;
		}
		case MF_LABEL: {
			/* the str tail was checked: NUL-terminated inside the payload */
			const char *s = (const char *) ev->payload + in->f[a->str].off;
			eng_label_add(e, &g->ch[base + a->chan], value(&a->v, in, ev), s, strlen(s));
			continue;
		}
		case MF_SETALL:
			rc = set_all(e, g, t, base + a->chan, ev, err);
			break;
		case MF_CALL: {
			int64_t args[MF_MAX_ARGS];
			for (int k = 0; k < a->nargs; k++)
				args[k] = a->args[k].field >= 0 && in->f[a->args[k].field].type == EVF_STR
					? a->args[k].field
					: value(&a->args[k], in, ev);
			struct engine_call c = {m, args, a->nargs, ev, in};
			rc = a->prim->run(e, t, &c, err);
			break;
		}
		default:
			rc = apply(e, g, t, base + a->chan, a->op, a->op == MF_UNSET ? 0 : value(&a->v, in, ev), err);
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- setup, end, .pcf -------------------------------------------------------------------- */

/* Tell the layout what channel ch is: by its name in the model (a group's
 * members, named by their entries, by their titles), a state when it has
 * value labels or a stack. */
static void declare(struct emu *e, const struct eng_chan *ch)
{
	const struct mf_chan *c = ch->c;
	struct sink_label *l = c->nlabels ? weft_xcalloc((size_t) c->nlabels, sizeof(*l)) : NULL;
	for (int i = 0; i < c->nlabels; i++)
		l[i] = (struct sink_label){.value = c->labels[i].value, .label = c->labels[i].label};
	struct emu_slot_decl d = {
		.key = c->name,
		.member = ch->member,
		.name = ch->gn > 1 || ch->own ? NULL : c->name,
		.kind = c->stack || c->nlabels ? SINK_STATE : SINK_VALUE,
		.labels = l,
		.nlabels = c->nlabels,
		.dynamic = c->dynamic,
	};
	emu_slot_declare(e, EMU_THREAD_FILE, ch->tslot, &d);
	emu_slot_declare(e, EMU_CPU_FILE, ch->cslot, &d);
	free(l);
}

/* Engine channel `at`: channel k of model m (member j of its group),
 * shown on thread rows (tshow) and CPU rows (cshow) with the given labels
 * (own: a label the channel owns, used for both); its Paraver types are
 * its model's table's (by the slots' keys). */
static void lay_out(struct emu *e, struct engine *g, int at, const struct mf_model *m, int k, int j, int tshow,
		    int cshow, const char *tlabel, const char *clabel, char *own)
{
	struct eng_chan *ch = &g->ch[at];
	const struct mf_chan *c = &m->chans[k];
	memset(ch, 0, sizeof(*ch));
	ch->c = c;
	ch->m = m;
	ch->put = c->zero		     ? ENG_PUT_ZERO
		: c->dup == MF_DUP_EMIT	     ? ENG_PUT_PUNCT
		: c->dup == MF_DUP_SKIP_NULL ? ENG_PUT_SOME
					     : ENG_PUT_SET;
	ch->cpu_none = c->cpu_none;
	ch->onmask = show_mask(c);
	ch->pflags = (uint8_t) (ch->put == ENG_PUT_PUNCT	  ? ENG_W_PUNCT0 | ENG_W_PUNCT1
					: ch->put == ENG_PUT_SOME ? ENG_W_PUNCT1
								  : 0);
	ch->bdv = -1;
	ch->bdc = k;
	ch->own = own;
	ch->member = j;
	ch->tlabel = own ? own : tlabel;
	ch->clabel = own ? own : clabel;
	ch->tslot = tshow ? emu_slot(e, EMU_THREAD_FILE, ch->tlabel) : -1;
	ch->cslot = cshow ? emu_slot(e, EMU_CPU_FILE, ch->clabel) : -1;
	/* a model file's channel is ovniemu's: its first value is written */
	emu_slot_fresh(e, EMU_THREAD_FILE, ch->tslot);
	emu_slot_fresh(e, EMU_CPU_FILE, ch->cslot);
	if (ch->cslot >= 0)
		g->cpu_ch[g->ncpu_ch++] = at;
	if (ch->tslot >= 0 && c->show != MF_SHOW_ANY)
		g->state_ch[g->nstate_ch++] = at;
}

/* Every thread's and CPU's channel values, all 0 before the first event
 * (laid out again for each model set up; `base` channels were the models'
 * before this one). */
static void lay_values(struct emu *e, struct engine *g, int base)
{
	free(g->val);
	if (g->stk)
		for (size_t i = 0; i < (size_t) e->sys.nth * (size_t) base; i++) /* the models' before */
			free(g->stk[i].v);
	free(g->stk);
	g->val = weft_xcalloc((size_t) e->sys.nth * (size_t) g->nch + 1, sizeof(*g->val));
	g->stk = weft_xcalloc((size_t) e->sys.nth * (size_t) g->nch + 1, sizeof(*g->stk));
	free(g->vset);
	free(g->tnone);
	free(g->cnone);
	g->vset = weft_xcalloc((size_t) e->sys.nth * (size_t) g->nch + 1, 1);
	g->tnone = weft_xmalloc((size_t) e->sys.nth * (size_t) g->nch + 1);
	memset(g->tnone, 1, (size_t) e->sys.nth * (size_t) g->nch + 1);
	g->cnone = weft_xmalloc((size_t) e->sys.ncpu * (size_t) g->nch + 1);
	memset(g->cnone, 1, (size_t) e->sys.ncpu * (size_t) g->nch + 1);
	free(g->tlast);
	free(g->clast);
	free(g->cnoneval);
	g->tlast = weft_xmalloc(((size_t) e->sys.nth * (size_t) g->nch + 1) * sizeof(*g->tlast));
	for (size_t i = 0; i < (size_t) e->sys.nth * (size_t) g->nch + 1; i++)
		g->tlast[i] = PRV_NEVER;
	g->clast = weft_xmalloc(((size_t) e->sys.ncpu * (size_t) g->nch + 1) * sizeof(*g->clast));
	for (size_t i = 0; i < (size_t) e->sys.ncpu * (size_t) g->nch + 1; i++)
		g->clast[i] = PRV_NEVER;
	g->cnoneval = weft_xcalloc((size_t) g->nch + 1, sizeof(*g->cnoneval));
	for (int k = 0; k < g->nch; k++)
		g->cnoneval[k] = g->ch[k].cpu_none;
	for (int k = 0; k < g->nch; k++)
		if (g->ch[k].c->initial)
			for (int i = 0; i < e->sys.nth; i++)
				g->val[(size_t) i * (size_t) g->nch + (size_t) k] = g->ch[k].c->initial;
}

/* The flat arrays the CPU and state rows run over: what each writes. */
static void lay_writers(struct engine *g)
{
	g->cpu_w = weft_xrealloc(g->cpu_w, ((size_t) g->ncpu_ch + 1) * sizeof(*g->cpu_w));
	for (int k = 0; k < g->ncpu_ch; k++) {
		const struct eng_chan *ch = &g->ch[g->cpu_ch[k]];
		g->cpu_w[k] = (struct eng_cpu_w){
			.ci = g->cpu_ch[k],
			.slot = ch->cslot,
			.bdv = ch->bdv,
			.put = ch->put,
			.flags = (uint8_t) (ch->pflags |
					    (ch->put == ENG_PUT_ZERO || ch->put == ENG_PUT_PUNCT || ch->bdv >= 0
						     ? ENG_W_SLOW
						     : 0)),
			.same = ch->put == ENG_PUT_SET ? -1 : 0,
			.ch = ch};
	}
	g->state_w = weft_xrealloc(g->state_w, ((size_t) g->nstate_ch + 1) * sizeof(*g->state_w));
	for (int k = 0; k < g->nstate_ch; k++) {
		const struct eng_chan *ch = &g->ch[g->state_ch[k]];
		g->state_w[k] = (struct eng_state_w){
			.ci = g->state_ch[k],
			.slot = ch->tslot,
			.put = ch->put,
			.show = ch->onmask,
			.flags = (uint8_t) (ch->pflags |
					    (ch->put == ENG_PUT_ZERO || ch->put == ENG_PUT_PUNCT ? ENG_W_SLOW : 0)),
			.same = ch->put == ENG_PUT_SET ? -1 : 0,
			.ch = ch};
	}
}

int engine_setup(struct emu *e, const struct mf_model *m, struct weft_err *err)
{
	struct engine *g = e->eng.s;
	if (!g) {
		g = e->eng.s = weft_xcalloc(1, sizeof(*g));
		e->eng.free = engine_free;
	}
	/* the members of channel groups, from the metadata: appended after the
	 * model's declared channels */
	char ***names = weft_xcalloc((size_t) m->nchans + 1, sizeof(*names));
	int *gn = weft_xcalloc((size_t) m->nchans + 1, sizeof(*gn));
	int extra = 0, rc = 0;
	for (int k = 0; k < m->nchans && rc == 0; k++)
		if (m->chans[k].each_key) {
			rc = engine_each_names(e, m, &m->chans[k], &names[k], &gn[k], err);
			extra += gn[k] > 1 ? gn[k] - 1 : 0;
		}
	if (rc) {
		free(names);
		free(gn);
		return -1;
	}
	int base = g->base[mcv_index(m->def.id)] = g->nch;
	g->nch += m->nchans + extra;
	g->ch = weft_xrealloc(g->ch, (size_t) g->nch * sizeof(*g->ch));
	g->cpu_ch = weft_xrealloc(g->cpu_ch, (size_t) g->nch * sizeof(*g->cpu_ch));
	g->state_ch = weft_xrealloc(g->state_ch, (size_t) g->nch * sizeof(*g->state_ch));
	int next = base + m->nchans;
	for (int k = 0; k < m->nchans; k++) {
		const struct mf_chan *c = &m->chans[k];
		if (!c->each_key) {
			lay_out(e, g, base + k, m, k, 0, c->tlabel != NULL, c->clabel != NULL, c->tlabel, c->clabel,
				NULL);
			continue;
		}
		/* a group: member 0 here, the others appended; none: no row shows it */
		int first = next;
		for (int j = 0; j < gn[k] || j == 0; j++) {
			int at = j == 0 ? base + k : next++;
			int has = j < gn[k];
			lay_out(e, g, at, m, k, j, has && c->tlabel, has && c->clabel, NULL, NULL,
				has ? names[k][j] : NULL);
		}
		g->ch[base + k].gn = gn[k];
		g->ch[base + k].gfirst = first;
		free(names[k]);
	}
	free(names);
	free(gn);
	for (int at = base; at < next; at++)
		declare(e, &g->ch[at]);
	lay_values(e, g, base);
	e->eng.state = g->nstate_ch > 0;
	if (bd_setup(e, m, err))
		return -1;
	for (int k = 0; k < m->nchans; k++)
		g->ch[base + k].bdv = bd_chan_view(e, m, k);
	lay_writers(g);
	/* each primitive the model calls, once */
	for (int i = 0; i < m->def.nevents; i++)
		for (int k = 0; k < m->evs[i].nact; k++) {
			const struct engine_prim *p = m->evs[i].act[k].prim;
			if (m->evs[i].act[k].op != MF_CALL)
				continue;
			int seen = 0;
			for (int j = 0; j < g->nsetup; j++)
				seen |= g->setup[j].p == p && g->setup[j].m == m;
			if (seen)
				continue;
			g->setup = weft_xrealloc(g->setup, (size_t) (g->nsetup + 1) * sizeof(*g->setup));
			g->setup[g->nsetup].p = p;
			g->setup[g->nsetup++].m = m;
			if (p->setup && p->setup(e, m, err))
				return -1;
		}
	return 0;
}

int engine_finish(struct emu *e, const struct mf_model *m, struct weft_err *err)
{
	struct engine *g = e->eng.s;
	if (!g)
		return 0;
	/* the primitives' end (each finish function once) */
	int (*done[16])(struct emu *, const struct mf_model *, struct weft_err *);
	int ndone = 0;
	for (int i = 0; i < m->def.nevents; i++)
		for (int k = 0; k < m->evs[i].nact; k++) {
			const struct mf_action *a = &m->evs[i].act[k];
			if (a->op != MF_CALL || !a->prim->finish)
				continue;
			int seen = 0;
			for (int j = 0; j < ndone; j++)
				seen |= done[j] == a->prim->finish;
			if (seen)
				continue;
			if (ndone < 16)
				done[ndone++] = a->prim->finish;
			if (a->prim->finish(e, m, err))
				return -1;
		}
	if (!e->o.lint)
		return 0;
	int base = g->base[mcv_index(m->def.id)];
	for (int i = e->part.th_lo; i < e->part.th_hi; i++) {
		const struct emu_thread *t = &e->sys.th[i];
		for (int k = 0; k < m->nchans; k++) {
			const struct eng_stack *s = &g->stk[(size_t) i * (size_t) g->nch + (size_t) (base + k)];
			char b[160];
			if (m->chans[k].stack && !m->chans[k].nolint && s->n &&
			    emu_model_error(e, err,
					    "thread %lld (loom %s, pid %lld) ends with %d value(s) on the "
					    "stack of channel %s.%s (top: %s): expected it empty",
					    (long long) t->sys->tid, t->sys->proc->loom->name,
					    (long long) t->sys->proc->pid, s->n, m->def.name, m->chans[k].name,
					    eng_vstr(&g->ch[base + k], s->v[s->n - 1], b, sizeof(b))) < 0)
				return -1;
		}
	}
	return 0;
}

void engine_free(struct emu *e)
{
	struct engine *g = e->eng.s;
	if (!g)
		return;
	for (int i = 0; i < g->nsetup; i++)
		if (g->setup[i].p->release)
			g->setup[i].p->release(e, g->setup[i].m);
	free(g->setup);
	for (size_t i = 0; i < (size_t) e->sys.nth * (size_t) g->nch; i++)
		free(g->stk[i].v);
	for (int k = 0; k < g->nch; k++) {
		free(g->ch[k].own);
		for (int i = 0; i < g->ch[k].ndyn; i++)
			free(g->ch[k].dyn[i].label);
		free(g->ch[k].dyn);
	}
	free(g->stk);
	free(g->val);
	free(g->vset);
	free(g->tnone);
	free(g->cnone);
	free(g->tlast);
	free(g->clast);
	free(g->cnoneval);
	free(g->state_w);
	free(g->ch);
	free(g->cpu_ch);
	free(g->cpu_w);
	free(g->state_ch);
	free(g);
	e->eng.s = NULL;
	e->eng.free = NULL;
}
