/* SPDX-License-Identifier: GPL-3.0-or-later */
/* msg model (X): PICL calls to thread states, punctual events and matched
 * messages (doc/formats/legacy.md §5: FIFO per (source, destination, type),
 * broadcast expansion, request ids of non-blocking calls; receives earlier
 * than their send kept, and every pair told to emu (emu_pair: emu counts and
 * reports the receives before their send); unmatched ends reported per key).
 * Per event it allocates nothing (a broadcast's comm ids aside), finds its
 * key in a small table of the keys with ends waiting (keys.h), and passes
 * emu only the values that change (the ones it wrote last are kept per
 * thread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "emu/match.h"
#include "emu/warns.h"
#include "msg/msg.h"
#include "msg/msg_int.h"
#include "texts.h"
#include "util/macros.h"

/* Thread states of PICL system event types (Tables 4-5): -hi..-lo. */
static const struct {
	int16_t lo, hi;
	uint8_t state;
} state_ranges[] = {
	{901, 901, MSG_RUNNING},   {21, 21, MSG_SENDING},     {27, 31, MSG_SENDING},
	{51, 52, MSG_RECEIVING},   {57, 61, MSG_RECEIVING},   {55, 56, MSG_WAITING},
	{53, 54, MSG_PROBING},     {402, 402, MSG_SYNC},      {401, 401, MSG_CLOCKSYNC},
	{601, 601, MSG_IDLE},      {11, 14, MSG_OVERHEAD},    {501, 503, MSG_OVERHEAD},
	{602, 603, MSG_OVERHEAD},  {902, 914, MSG_TRACING},
};

static const struct sink_label calls[] = {
	{.value = 11, .label = "open0"},
	{.value = 12, .label = "close0"},
	{.value = 13, .label = "who0"},
	{.value = 14, .label = "recvinfo0"},
	{.value = 21, .label = "send0"},
	{.value = 27, .label = "sendbegin0"},
	{.value = 28, .label = "sendstatus0 (complete)"},
	{.value = 29, .label = "sendstatus0 (not complete)"},
	{.value = 30, .label = "sendend0 (verifying)"},
	{.value = 31, .label = "sendend0 (waiting)"},
	{.value = 51, .label = "recv0"},
	{.value = 52, .label = "recv0 (blocking)"},
	{.value = 53, .label = "probe0 (found)"},
	{.value = 54, .label = "probe0 (not found)"},
	{.value = 55, .label = "wait0 (verifying)"},
	{.value = 56, .label = "wait0 (waiting)"},
	{.value = 57, .label = "recvbegin0"},
	{.value = 58, .label = "recvstatus0 (complete)"},
	{.value = 59, .label = "recvstatus0 (not complete)"},
	{.value = 60, .label = "recvend0 (verifying)"},
	{.value = 61, .label = "recvend0 (waiting)"},
	{.value = 401, .label = "clocksync0"},
	{.value = 402, .label = "sync0"},
	{.value = 501, .label = "open0 (allocate)"},
	{.value = 502, .label = "close0 (release)"},
	{.value = 503, .label = "load0"},
	{.value = 601, .label = "idle"},
	{.value = 602, .label = "system overhead"},
	{.value = 603, .label = "user overhead"},
	{.value = 901, .label = "tracing"},
	{.value = 902, .label = "traceevents"},
	{.value = 903, .label = "tracefiles"},
	{.value = 904, .label = "tracelevel"},
	{.value = 905, .label = "traceinfo"},
	{.value = 911, .label = "tracemsg"},
	{.value = 912, .label = "traceflush"},
	{.value = 913, .label = "trace buffer full"},
	{.value = 914, .label = "trace buffer full (overwriting)"},
};

/* The punctual channels of kept records, MSG_T_USER_VAL on (msg.h): their
 * keys in its Paraver table (events.c) and their titles. */
static const struct {
	const char *key, *label;
} kept_chan[6] = {
	{"user_value", "PICL user record value (first data field, 10^-9 units)"},
	{"message", "PICL message"},
	{"user_text", "PICL user record data"},
	{"proc_subset", "PICL processor subset defined (-id)"},
	{"process_subset", "PICL process subset defined (-id)"},
	{"type_subset", "PICL event type subset defined (-id)"},
};


struct msg_stats *msg_stats_of(struct emu *e)
{
	struct mstate *m = ms(e);
	return m ? m->stats : NULL;
}

int msg_state_of(int type)
{
	if (type > 0 || type < -MAX_CALL_TYPE)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(state_ranges); i++)
		if (-type >= state_ranges[i].lo && -type <= state_ranges[i].hi)
			return state_ranges[i].state;
	return 0;
}

/* Bytes an entry or an exit carries in its first data field (PICL's volume
 * statistic, §2.3.7), -1 if none. */
static int64_t entry_bytes(int32_t type, int32_t a)
{
	return type == -21 || type == -27 || type == -911 ? a : -1;
}

/* The volume of a call at its exit (seed §2.3.7: the length of recv0,
 * wait0 (-55, -56), recvstatus0, recvend0, traceflush; "the number of
 * processes spawned by load0": one per load0, whose exit names it). */
static int64_t exit_bytes(int32_t type, int32_t a)
{
	switch (type) {
	case -51:
	case -52:
	case -55:
	case -56:
	case -58:
	case -60:
	case -61:
	case -912:
		return a;
	case -503:
		return 1;
	default:
		return -1;
	}
}

/* A row named by a -5 label of event type -1 (picl.name): "TH A.T NAME
 * (picl.P/pid)"; the others keep their names. */
static int row_name(const struct emu *e, const struct emu_thread *t, char *buf, int n)
{
	(void) e;
	const struct weft_meta_kv *kv = meta_kv_find(t->sys->kv, t->sys->nkv, "picl.name");
	if (!kv || kv->kind != WEFT_KV_STR)
		return 0;
	const struct weft_proc *p = t->sys->proc;
	snprintf(buf, (size_t) n, "TH %lld.%lld %s (%s/%lld)", (long long) p->app_id, (long long) t->sys->tid, kv->s,
		 p->loom->name, (long long) p->pid);
	return 1;
}

int msg_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct mstate *m = weft_xcalloc(1, sizeof(*m));
	e->models.state[mcv_index('X')] = m;
	e->models.state_owner = 'X';
	m->th = weft_xcalloc((size_t) e->sys.nth, sizeof(*m->th));
	m->by_proc_v = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*m->by_proc_v));
	m->by_proc_k = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*m->by_proc_k));
	m->by_proc_p = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*m->by_proc_p));
	m->rows = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*m->rows));
	m->stats = msg_stats_new();
	for (int i = 0; i < e->sys.nth; i++) {
		struct mthread *x = &m->th[i];
		int32_t process;
		msg_thread_ids(&e->sys.th[i], &x->proc, &process);
		x->ep = x->proc;
		x->peer_process = -1;
		if (!e->sys.th[i].sys->req[mcv_index('X')])
			continue;
		if (process >= 0) { /* ends above the processor ids 0..32767 */
			x->ep = 32768 + m->nrows;
			m->rows[m->nrows++] = (struct msg_row){x->proc, process, x->ep};
		}
		if (meta_kv_find(e->sys.th[i].sys->kv, e->sys.th[i].sys->nkv, "picl.name"))
			e->models.thread_name = row_name;
		m->by_proc_v[m->nproc] = &e->sys.th[i];
		m->by_proc_p[m->nproc] = x->proc;
		m->by_proc_k[m->nproc++] = x->ep;
	}
	/* keys of its Paraver table (events.c); the call and the mark are
	 * named by the calls' names */
	static const struct {
		const char *key, *label;
	} slots[NV] = {
		[V_CALL] = {"call", "PICL call"},
		[V_SSIZE] = {"send_size", "Message size sent (bytes)"},
		[V_STAG] = {"send_tag", "Message type sent (+1)"},
		[V_STO] = {"send_to", "Message sent to processor (+1)"},
		[V_RSIZE] = {"recv_size", "Message size received (bytes)"},
		[V_RTAG] = {"recv_tag", "Message type received (+1)"},
		[V_RFROM] = {"recv_from", "Message received from processor (+1)"},
		[V_MARK] = {"mark", "PICL mark (user event types: type + 1)"},
		[V_USER] = {"user", "PICL user record"},
	};
	for (int k = 0; k < NV; k++) {
		m->slot[k] = emu_slot(e, EMU_THREAD_FILE, slots[k].label);
		struct emu_slot_decl d = {.key = slots[k].key, .kind = SINK_VALUE};
		if (k == V_CALL || k == V_MARK) {
			d.labels = calls;
			d.nlabels = (int) ARRAY_SIZE(calls);
		}
		if (k == V_MARK)
			d.name = "picl_mark"; /* its channel's name before the title grew */
		emu_slot_declare(e, EMU_THREAD_FILE, m->slot[k], &d);
	}
	/* a kept record's block is listed once one is seen (kseen) */
	for (int k = 0; k < 6; k++) {
		m->kslot[k] = emu_slot(e, EMU_THREAD_FILE, kept_chan[k].label);
		emu_slot_declare(e, EMU_THREAD_FILE, m->kslot[k],
				 &(struct emu_slot_decl){.key = kept_chan[k].key, .kind = SINK_VALUE, .sparse = 1});
	}
	for (int ty = 0; ty <= MAX_CALL_TYPE; ty++)
		m->state_of[ty] = (uint8_t) msg_state_of(-ty);
	return 0;
}

/* ---- output helpers ------------------------------------------------------- */

/* The state and call of the innermost call that has a state. */
static inline __attribute__((always_inline)) void show_state(struct emu *e, struct emu_thread *t,
							       struct mthread *x)
{
	uint32_t st = 0;
	int32_t call = 0;
	for (int i = x->n - 1; i >= 0; i--)
		if (x->stack[i].st) {
			st = x->stack[i].st;
			if (st != MSG_RUNNING)
				call = -x->stack[i].type;
			break;
		}
	if (st != x->shown_state) {
		x->shown_state = st;
		emu_model_state(e, t, 'X', st);
	}
	out(e, t, x, V_CALL, call);
}

/* The four i32 fields of an XE event. */
static inline void fields4(const struct weft_ev *ev, const struct evinfo *in, int32_t f[4])
{
	if (__builtin_expect(ev->stream && ev->stream->swap, 0)) {
		for (int k = 0; k < 4; k++)
			f[k] = (int32_t) ev_field(in, k, ev);
		return;
	}
	memcpy(f, ev->payload, 4 * sizeof(*f));
}

/* ---- messages ------------------------------------------------------------- */

static inline const uint64_t *posted_ids(const struct posted *p)
{
	return p->ids ? p->ids : &p->one;
}

static void psend_all(struct emu *e, const struct posted *p)
{
	const uint64_t *ids = posted_ids(p);
	for (int k = 0; k < p->n; k++)
		emu_comm_psend(e, ids[k], e->run.now);
}

/* The end of processor proc, process `process` in message keys: the
 * processor's, or the row of that process when the processor is shown as
 * a row per process (no such row: the processor's, which no row receives
 * with: the message stays unmatched and is reported). */
static int32_t end_of(const struct mstate *m, int32_t proc, int32_t process)
{
	for (int i = 0; i < m->nrows && process >= 0; i++)
		if (m->rows[i].proc == proc && m->rows[i].process == process)
			return m->rows[i].ep;
	return proc;
}

/* An end in the reports of unmatched messages. */
static void end_name(const struct emu *e, int32_t end, char *buf, int n)
{
	const struct mstate *m = e->models.state[mcv_index('X')];
	for (int i = 0; i < m->nrows; i++)
		if (m->rows[i].ep == end) {
			snprintf(buf, (size_t) n, "processor %d process %d", m->rows[i].proc, m->rows[i].process);
			return;
		}
	snprintf(buf, (size_t) n, "processor %d", end);
}

/* Messages are matched by emu (match.h): FIFO per (source, destination,
 * type), in one run's order even when the processors are emulated apart. */
static uint64_t post_send(struct emu *e, struct emu_thread *t, struct mthread *x, int32_t to, int32_t len,
			  int32_t tag)
{
	uint64_t id = emu_comm_send(e, t, len, tag);
	emu_match_send(e, t, x->ep, to, tag, id);
	return id;
}

static void got_recv(struct emu *e, struct emu_thread *t, struct mthread *x, int32_t from, int32_t tag,
		     uint64_t lrecv)
{
	emu_match_recv(e, t, end_of(ms(e), from, x->peer_process), x->ep, tag, lrecv);
	x->peer_process = -1;
}

static void call_send(struct emu *e, struct emu_thread *t, struct mthread *x, struct call *c)
{
	struct mstate *m = ms(e);
	out(e, t, x, V_SSIZE, c->a);
	out(e, t, x, V_STAG, (int64_t) c->b + 1);
	out(e, t, x, V_STO, c->c == -1 ? -1 : (int64_t) c->c + 1);
	int32_t peer = x->peer_process;
	x->peer_process = -1;
	if (c->c != -1) {
		c->sent.one = post_send(e, t, x, end_of(m, c->c, peer), c->a, c->b);
		c->sent.n = 1;
		return;
	}
	/* broadcast: one send to every row of every other non-host processor */
	c->sent.ids = weft_xcalloc((size_t) m->nproc + 1, sizeof(*c->sent.ids));
	for (int i = 0; i < m->nproc; i++) {
		int32_t p = m->by_proc_p[i];
		if (p == x->proc || p == 32767)
			continue;
		c->sent.ids[c->sent.n++] = post_send(e, t, x, m->by_proc_k[i], c->a, c->b);
	}
}

static struct req *req_push(struct req **v, int *n, int *cap)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		*v = weft_xrealloc(*v, (size_t) *cap * sizeof(**v));
	}
	struct req *r = &(*v)[(*n)++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* The oldest outstanding request with this id, removed (0 if none). */
static int req_take(struct req *v, int *n, int32_t id, struct req *out)
{
	for (int i = 0; i < *n; i++)
		if (v[i].id == id) {
			*out = v[i];
			memmove(&v[i], &v[i + 1], (size_t) (*n - i - 1) * sizeof(*v));
			(*n)--;
			return 1;
		}
	return 0;
}

/* ---- handlers ------------------------------------------------------------- */

int msg_entry(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	if (x->n == STACK_MAX)
		return emu_model_error(e, err, "PICL calls nested %d deep: expected exits", STACK_MAX);
	int32_t f[4];
	fields4(ev, in, f);
	struct call *c = &x->stack[x->n++];
	c->type = f[0], c->a = f[1], c->b = f[2], c->c = f[3];
	c->time = e->run.now;
	c->sent = (struct posted){0, NULL, 0};
	c->st = f[0] < 0 && f[0] >= -MAX_CALL_TYPE ? m->state_of[-f[0]] : 0;
	emu_acct_op(e, t, 'X', EMU_OP_BEGIN, c->type, entry_bytes(c->type, c->a), c->type >= 0);
	if (c->type == -21 || c->type == -27)
		call_send(e, t, x, c);
	if (c->st) /* a call without a state changes neither state nor call shown */
		show_state(e, t, x);
	return 0;
}

int msg_exit(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	int32_t f[4];
	fields4(ev, in, f);
	int32_t type = f[0], a = f[1], b = f[2], c3 = f[3];
	int i = x->n - 1;
	while (i >= 0 && x->stack[i].type != type)
		i--;
	if (i < 0)
		return emu_model_error(e, err, "exit of PICL event %d: expected an open entry of that type", type);
	struct call c = x->stack[i];
	if (i < x->n - 1)
		memmove(&x->stack[i], &x->stack[i + 1], (size_t) (x->n - i - 1) * sizeof(*x->stack));
	x->n--;
	emu_acct_op(e, t, 'X', EMU_OP_END, type, exit_bytes(type, a), type >= 0);
	struct req r;
	switch (type) {
	case -21:
		psend_all(e, &c.sent);
		out(e, t, x, V_SSIZE, 0);
		out(e, t, x, V_STAG, 0);
		out(e, t, x, V_STO, 0);
		break;
	case -27: {
		psend_all(e, &c.sent);
		struct req *q = req_push(&x->sreq, &x->nsreq, &x->csreq);
		q->id = a;
		q->sent = c.sent;
		c.sent.ids = NULL;
		out(e, t, x, V_SSIZE, 0);
		out(e, t, x, V_STAG, 0);
		out(e, t, x, V_STO, 0);
		break;
	}
	case -28:
	case -30:
	case -31:
		if (req_take(x->sreq, &x->nsreq, c.a, &r)) {
			psend_all(e, &r.sent);
			free(r.sent.ids);
		}
		break;
	case -57: {
		struct req *q = req_push(&x->rreq, &x->nrreq, &x->crreq);
		q->id = a;
		q->time = c.time;
		break;
	}
	case -51:
	case -52:
	case -58:
	case -60:
	case -61: {
		uint64_t lrecv = c.time;
		if (type <= -58 && req_take(x->rreq, &x->nrreq, c.a, &r))
			lrecv = r.time;
		got_recv(e, t, x, c3, b, lrecv);
		out(e, t, x, V_RSIZE, a);
		out(e, t, x, V_RTAG, (int64_t) b + 1);
		out(e, t, x, V_RFROM, (int64_t) c3 + 1);
		punctual_shown(e, x, 1);
		break;
	}
	default:
		break;
	}
	if (c.sent.ids)
		free(c.sent.ids);
	if (c.st)
		show_state(e, t, x);
	return 0;
}

int msg_mark(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	int32_t type = (int32_t) ev_field(in, 0, ev);
	emu_acct_op(e, t, 'X', EMU_OP_MARK, type, -1, 0);
	out(e, t, x, V_MARK, type >= 0 ? (int64_t) type + 1 : -(int64_t) type);
	punctual_shown(e, x, 1);
	return 0;
}

/* XC.: a mark of a call (-2 record) with a message or a request: a send
 * (-21, -27) whose logical and physical sends are the mark's time (a -27's
 * physical send moves to its completion, as for its exit), a receive (-51,
 * -52, -58, -60, -61) received then (a -58..-61's logical receive is its
 * -57's posting, when one names its request), a request posted (-57) or a
 * send completed (-28, -30, -31). Counted as a mark, with the message's
 * bytes; its values are punctual. */
int msg_call_mark(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	int32_t f[6];
	for (int k = 0; k < 6; k++)
		f[k] = (int32_t) ev_field(in, k, ev);
	int32_t type = f[0], size = f[1], tag = f[2], peer = f[3], req = f[5];
	x->peer_process = f[4];
	int send = type == -21 || type == -27, recv = type == -51 || type == -52 || type <= -58;
	emu_acct_op(e, t, 'X', EMU_OP_MARK, type, send || recv || type == -56 ? size : -1, 0);
	out(e, t, x, V_MARK, -(int64_t) type);
	punctual_shown(e, x, 1);
	struct req r;
	if (send) {
		struct call c = {type, size, tag, peer, e->run.now, {0, NULL, 0}, 0};
		call_send(e, t, x, &c);
		psend_all(e, &c.sent);
		punctual_shown(e, x, 2);
		if (type == -27 && req != -1) { /* its completion sends it */
			struct req *q = req_push(&x->sreq, &x->nsreq, &x->csreq);
			q->id = req;
			q->sent = c.sent;
		} else {
			free(c.sent.ids);
		}
	} else if (type == -28 || type == -30 || type == -31) {
		if (req_take(x->sreq, &x->nsreq, req, &r)) {
			psend_all(e, &r.sent);
			free(r.sent.ids);
		}
	} else if (type == -57) {
		struct req *q = req_push(&x->rreq, &x->nrreq, &x->crreq);
		q->id = req;
		q->time = e->run.now;
	} else if (recv) {
		uint64_t lrecv = e->run.now;
		if (type <= -58 && req_take(x->rreq, &x->nrreq, req, &r))
			lrecv = r.time;
		got_recv(e, t, x, peer, tag, lrecv);
		out(e, t, x, V_RSIZE, size);
		out(e, t, x, V_RTAG, (int64_t) tag + 1);
		out(e, t, x, V_RFROM, (int64_t) peer + 1);
	}
	x->peer_process = -1;
	return 0;
}

/* XP.: the partner process of the thread's next send entry or receive
 * exit (the importer writes it when that processor is shown as a row per
 * process). */
int msg_partner(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	ms(e)->th[ev->stream->index].peer_process = (int32_t) ev_field(in, 0, ev);
	return 0;
}

void msg_op_label(const struct emu *e, int thread, int32_t op, char *buf, int n)
{
	static const char *const kept[] = {"processor subset defined", "process subset defined",
					   "event type subset defined"};
	if (op <= MSG_OP_USER_REC) {
		snprintf(buf, (size_t) n, "user record %d", MSG_OP_USER_REC - op);
		return;
	}
	msg_set_label(e, op, buf, n);
	if (buf[0])
		return;
	if (op == MSG_OP_MESSAGE || (op <= -201 && op >= -203)) {
		snprintf(buf, (size_t) n, "%s", op == MSG_OP_MESSAGE ? "message" : kept[-201 - op]);
		return;
	}
	if (op >= 0) {
		/* a row whose labels are scoped names its own (picl.labels.T) */
		char key[40];
		snprintf(key, sizeof(key), "picl.labels.%d", op);
		const struct weft_thread *t = thread >= 0 ? e->sys.th[thread].sys : NULL;
		const struct weft_meta_kv *kv = t ? meta_kv_find(t->kv, t->nkv, key) : NULL;
		if (kv && kv->kind == WEFT_KV_STR) {
			snprintf(buf, (size_t) n, "%s", kv->s);
			return;
		}
		const struct weft_mark_type *mk = &e->tr.sys.marks[0];
		for (int i = 0; mk->defined && i < mk->nlabels; i++)
			if (mk->labels[i].value == (int64_t) op + 1) {
				snprintf(buf, (size_t) n, "%s", mk->labels[i].label);
				return;
			}
		snprintf(buf, (size_t) n, "user event %d", op);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(calls); i++)
		if (calls[i].value == -op) {
			snprintf(buf, (size_t) n, "%s", calls[i].label);
			return;
		}
	snprintf(buf, (size_t) n, "PICL event %d", op);
}

/* The kept records seen, and the texts that name their values. */
static void kept_labels(struct emu *e, struct mstate *m)
{
	const struct texts *named[6] = {NULL, &m->msgs, &m->utexts, &m->subs[0], &m->subs[1], &m->subs[2]};
	for (int k = 0; k < 6; k++) {
		if (!(m->kseen >> k & 1))
			continue;
		emu_slot_used(e, EMU_THREAD_FILE, m->kslot[k]);
		for (int i = 0; named[k] && i < named[k]->n; i++) {
			int64_t v;
			const char *l = texts_nth(named[k], i, &v);
			emu_slot_label(e, EMU_THREAD_FILE, m->kslot[k], v, l);
		}
	}
}

int msg_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct mstate *m = ms(e);
	emu_match_finish(e, REPORT_KEYS, end_name);
	for (int i = e->part.th_lo; i < e->part.th_hi; i++)
		if (m->th[i].n && e->sys.th[i].sys->req[mcv_index('X')])
			emu_warn(e, "msg: processor %d ends with %d PICL calls open", m->th[i].proc, m->th[i].n);
	if (e->out.writing) /* labels are for the outputs only */
		kept_labels(e, m);
	return 0;
}

void msg_free(struct emu *e, const struct weft_model_def *self)
{
	(void) self;
	struct mstate *m = ms(e);
	if (!m)
		return;
	for (int i = 0; i < e->sys.nth; i++) {
		struct mthread *x = &m->th[i];
		for (int j = 0; j < x->n; j++)
			free(x->stack[j].sent.ids);
		for (int j = 0; j < x->nsreq; j++)
			free(x->sreq[j].sent.ids);
		free(x->sreq);
		free(x->rreq);
	}
	free(m->th);
	free(m->by_proc_v);
	free(m->by_proc_k);
	free(m->by_proc_p);
	free(m->rows);
	msg_stats_free(m->stats);
	texts_free(&m->msgs);
	texts_free(&m->utexts);
	for (int k = 0; k < 3; k++)
		texts_free(&m->subs[k]);
	free(m);
	e->models.state[mcv_index('X')] = NULL;
}
