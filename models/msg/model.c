/* msg model (X): PICL calls to thread states, punctual events and matched
 * messages (legacy-formats.md §5: FIFO per (source, destination, type),
 * broadcast expansion, request ids of non-blocking calls; receives earlier
 * than their send kept, and every pair told to emu (emu_pair: emu counts and
 * reports the receives before their send); unmatched ends reported per key). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys.h"
#include "msg.h"

#define STACK_MAX 256
#define PENDING_CAP 1000000 /* messages held waiting for their other end */
#define REPORT_KEYS 20

struct call {
	int32_t type;
	int32_t a, b, c;
	uint64_t time;
	uint64_t *ids; /* sends posted by this call (broadcast: several) */
	int nids;
};

struct req { /* a non-blocking call's request id */
	int32_t id;
	uint64_t time;           /* receives: the posting time */
	uint64_t *ids;           /* sends: the comms it posted */
	int nids;
};

struct mthread {
	int32_t proc;            /* PICL processor id (tid - 1) */
	struct call stack[STACK_MAX];
	int n;
	struct req *sreq, *rreq; /* outstanding request ids, FIFO */
	int nsreq, nrreq, csreq, crreq;
	int clear;               /* punctual values to reset at the next event */
};

struct mstate {
	struct mthread *th;      /* by stream index */
	struct emu_thread **by_proc_v;
	int32_t *by_proc_k;
	int nproc;
	struct keytab keys;
	uint64_t npending, nmatched, noverflow, nsends, nrecvs;
	int s_call, s_ssize, s_stag, s_sto, s_rsize, s_rtag, s_rfrom, s_mark, s_user;
};

static const struct {
	int v;
	const char *l;
} calls[] = {
	{11, "open0"}, {12, "close0"}, {21, "send0"}, {27, "sendbegin0"}, {28, "sendstatus0"},
	{30, "sendend0 (verifying)"}, {31, "sendend0 (waiting)"}, {51, "recv0"},
	{52, "recv0 (blocking)"}, {53, "probe0 (found)"}, {54, "probe0 (not found)"},
	{55, "wait0 (verifying)"}, {56, "wait0 (waiting)"}, {57, "recvbegin0"},
	{58, "recvstatus0"}, {60, "recvend0 (verifying)"}, {61, "recvend0 (waiting)"},
	{401, "clocksync0"}, {402, "sync0"}, {501, "open0 (allocate)"}, {502, "close0 (release)"},
	{503, "load0"}, {601, "idle"}, {602, "system overhead"}, {603, "user overhead"},
	{901, "tracing"}, {902, "traceevents"}, {903, "tracefiles"}, {904, "tracelevel"},
	{905, "traceinfo"}, {911, "tracemsg"}, {912, "traceflush"}, {913, "trace buffer full"},
	{914, "trace buffer full (overwriting)"},
};

static struct mstate *ms(struct emu *e)
{
	return e->mstate['X' - 0x21];
}

int msg_state_of(int type)
{
	if (type == -901)
		return MSG_RUNNING;
	if (type == -21 || (type >= -31 && type <= -27))
		return MSG_SENDING;
	if (type == -51 || type == -52 || (type >= -61 && type <= -57))
		return MSG_RECEIVING;
	if (type == -55 || type == -56)
		return MSG_WAITING;
	if (type == -53 || type == -54)
		return MSG_PROBING;
	if (type == -402)
		return MSG_SYNC;
	if (type == -401)
		return MSG_CLOCKSYNC;
	if (type == -601)
		return MSG_IDLE;
	if ((type >= -14 && type <= -11) || (type >= -503 && type <= -501) || type == -602 || type == -603)
		return MSG_OVERHEAD;
	if (type <= -902 && type >= -914)
		return MSG_TRACING;
	return 0;
}

/* Bytes an entry or an exit carries in its first data field (PICL's volume
 * statistic, §2.3.7), -1 if none. */
static int64_t entry_bytes(int32_t type, int32_t a)
{
	return type == -21 || type == -27 || type == -911 ? a : -1;
}

static int64_t exit_bytes(int32_t type, int32_t a)
{
	switch (type) {
	case -51: case -52: case -56: case -58: case -60: case -61: case -912:
		return a;
	default:
		return -1;
	}
}

int msg_setup(struct emu *e, struct weft_err *err)
{
	(void) err;
	struct mstate *m = weft_xcalloc(1, sizeof(*m));
	e->mstate['X' - 0x21] = m;
	e->state_owner = 'X';
	m->th = weft_xcalloc((size_t) e->nth, sizeof(*m->th));
	m->by_proc_v = weft_xcalloc((size_t) e->nth + 1, sizeof(*m->by_proc_v));
	m->by_proc_k = weft_xcalloc((size_t) e->nth + 1, sizeof(*m->by_proc_k));
	for (int i = 0; i < e->nth; i++) {
		m->th[i].proc = (int32_t) (e->th[i].sys->tid - 1);
		if (!e->th[i].sys->req['X' - 0x21])
			continue;
		m->by_proc_v[m->nproc] = &e->th[i];
		m->by_proc_k[m->nproc++] = m->th[i].proc;
	}
	m->s_call = emu_slot(e, EMU_THREAD_FILE, MSG_T_CALL, "PICL call");
	m->s_ssize = emu_slot(e, EMU_THREAD_FILE, MSG_T_SEND_SIZE, "Message size sent (bytes)");
	m->s_stag = emu_slot(e, EMU_THREAD_FILE, MSG_T_SEND_TAG, "Message type sent");
	m->s_sto = emu_slot(e, EMU_THREAD_FILE, MSG_T_SEND_TO, "Message sent to processor (+1)");
	m->s_rsize = emu_slot(e, EMU_THREAD_FILE, MSG_T_RECV_SIZE, "Message size received (bytes)");
	m->s_rtag = emu_slot(e, EMU_THREAD_FILE, MSG_T_RECV_TAG, "Message type received");
	m->s_rfrom = emu_slot(e, EMU_THREAD_FILE, MSG_T_RECV_FROM, "Message received from processor (+1)");
	m->s_mark = emu_slot(e, EMU_THREAD_FILE, MSG_T_MARK, "PICL mark");
	m->s_user = emu_slot(e, EMU_THREAD_FILE, MSG_T_USER_REC, "PICL user record");
	return 0;
}

/* ---- output helpers ------------------------------------------------------- */

static void out(struct emu *e, struct emu_thread *t, int slot, int64_t v)
{
	emu_out(e, EMU_THREAD_FILE, t->row, slot, v);
}

static void show_state(struct emu *e, struct emu_thread *t, struct mthread *x)
{
	uint32_t st = 0;
	int32_t call = 0;
	for (int i = x->n - 1; i >= 0; i--) {
		int s = msg_state_of(x->stack[i].type);
		if (s) {
			st = (uint32_t) s;
			if (s != MSG_RUNNING && !call)
				call = -x->stack[i].type;
			break;
		}
	}
	emu_model_state(e, t, 'X', st);
	out(e, t, ms(e)->s_call, call);
}

static void punctual_reset(struct emu *e, struct emu_thread *t, struct mthread *x)
{
	if (!x->clear)
		return;
	struct mstate *m = ms(e);
	int slots[] = {m->s_rsize, m->s_rtag, m->s_rfrom, m->s_mark, m->s_user};
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		out(e, t, slots[i], 0);
	x->clear = 0;
}

/* ---- messages ------------------------------------------------------------- */

static uint64_t post_send(struct emu *e, struct emu_thread *t, struct mthread *x, int32_t to, int32_t len,
			  int32_t tag)
{
	struct mstate *m = ms(e);
	m->nsends++;
	uint64_t id = emu_comm_send(e, t, len, tag);
	struct key *k = keytab_get(&m->keys, x->proc, to, tag);
	if (k->recvs.n) {
		struct pend r = fifo_pop(&k->recvs);
		m->npending--;
		emu_comm_recv(e, id, r.th, r.ltime, r.ptime);
		m->nmatched++;
		emu_pair(e, t, r.th, e->now, r.ptime); /* the receive came first */
	} else if (m->npending < PENDING_CAP) {
		struct pend s = {id, e->now, 0, t};
		fifo_push(&k->sends, &s);
		m->npending++;
	} else {
		m->noverflow++;
		emu_comm_drop(e, id);
	}
	return id;
}

static void got_recv(struct emu *e, struct emu_thread *t, struct mthread *x, int32_t from, int32_t tag,
		     uint64_t lrecv)
{
	struct mstate *m = ms(e);
	m->nrecvs++;
	struct key *k = keytab_get(&m->keys, from, x->proc, tag);
	if (k->sends.n) {
		struct pend s = fifo_pop(&k->sends);
		m->npending--;
		emu_comm_recv(e, s.id, t, lrecv, e->now);
		m->nmatched++;
		emu_pair(e, s.th, t, s.ltime, e->now);
	} else if (m->npending < PENDING_CAP) {
		struct pend r = {0, lrecv, e->now, t};
		fifo_push(&k->recvs, &r);
		m->npending++;
	} else {
		m->noverflow++;
	}
}

static void call_send(struct emu *e, struct emu_thread *t, struct mthread *x, struct call *c)
{
	struct mstate *m = ms(e);
	out(e, t, m->s_ssize, c->a);
	out(e, t, m->s_stag, c->b);
	out(e, t, m->s_sto, c->c == -1 ? -1 : (int64_t) c->c + 1);
	if (c->c != -1) {
		c->ids = weft_xmalloc(sizeof(*c->ids));
		c->ids[c->nids++] = post_send(e, t, x, c->c, c->a, c->b);
		return;
	}
	/* broadcast: one send to every other non-host processor */
	c->ids = weft_xcalloc((size_t) m->nproc + 1, sizeof(*c->ids));
	for (int i = 0; i < m->nproc; i++) {
		int32_t p = m->by_proc_k[i];
		if (p == x->proc || p == 32767)
			continue;
		c->ids[c->nids++] = post_send(e, t, x, p, c->a, c->b);
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
	struct emu_thread *t = &e->th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	if (x->n == STACK_MAX)
		return emu_model_error(e, err, "PICL calls nested %d deep: expected exits", STACK_MAX);
	struct call *c = &x->stack[x->n++];
	memset(c, 0, sizeof(*c));
	c->type = (int32_t) ev_field(in, 0, ev);
	c->a = (int32_t) ev_field(in, 1, ev);
	c->b = (int32_t) ev_field(in, 2, ev);
	c->c = (int32_t) ev_field(in, 3, ev);
	c->time = e->now;
	emu_acct_op(e, t, 'X', EMU_OP_BEGIN, c->type, entry_bytes(c->type, c->a), c->type >= 0);
	if (c->type == -21 || c->type == -27)
		call_send(e, t, x, c);
	show_state(e, t, x);
	return 0;
}

int msg_exit(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	int32_t type = (int32_t) ev_field(in, 0, ev);
	int32_t a = (int32_t) ev_field(in, 1, ev), b = (int32_t) ev_field(in, 2, ev),
		c3 = (int32_t) ev_field(in, 3, ev);
	int i = x->n - 1;
	while (i >= 0 && x->stack[i].type != type)
		i--;
	if (i < 0)
		return emu_model_error(e, err, "exit of PICL event %d: expected an open entry of that type", type);
	struct call c = x->stack[i];
	memmove(&x->stack[i], &x->stack[i + 1], (size_t) (x->n - i - 1) * sizeof(*x->stack));
	x->n--;
	emu_acct_op(e, t, 'X', EMU_OP_END, type, exit_bytes(type, a), type >= 0);
	struct req r;
	switch (type) {
	case -21:
		for (int k = 0; k < c.nids; k++)
			emu_comm_psend(e, c.ids[k], e->now);
		out(e, t, m->s_ssize, 0);
		out(e, t, m->s_stag, 0);
		out(e, t, m->s_sto, 0);
		break;
	case -27: {
		for (int k = 0; k < c.nids; k++)
			emu_comm_psend(e, c.ids[k], e->now);
		struct req *q = req_push(&x->sreq, &x->nsreq, &x->csreq);
		q->id = a;
		q->ids = c.ids;
		q->nids = c.nids;
		c.ids = NULL;
		out(e, t, m->s_ssize, 0);
		out(e, t, m->s_stag, 0);
		out(e, t, m->s_sto, 0);
		break;
	}
	case -28:
	case -30:
	case -31:
		if (req_take(x->sreq, &x->nsreq, c.a, &r)) {
			for (int k = 0; k < r.nids; k++)
				emu_comm_psend(e, r.ids[k], e->now);
			free(r.ids);
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
		out(e, t, m->s_rsize, a);
		out(e, t, m->s_rtag, b);
		out(e, t, m->s_rfrom, (int64_t) c3 + 1);
		x->clear = 1;
		break;
	}
	default:
		break;
	}
	free(c.ids);
	show_state(e, t, x);
	return 0;
}

int msg_mark(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	int32_t type = (int32_t) ev_field(in, 0, ev);
	emu_acct_op(e, t, 'X', EMU_OP_MARK, type, -1, 0);
	out(e, t, m->s_mark, type >= 0 ? (int64_t) type + 1 : -(int64_t) type);
	x->clear = 1;
	return 0;
}

int msg_user(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	out(e, t, m->s_user, ev_field(in, 0, ev) + 1);
	x->clear = 1;
	return 0;
}

/* A PICL statistics record's pair, as a figure to compare with what weft
 * measures (legacy-formats.md §2.1: -101 time, -102 count, -103 volume of
 * event type `type` relative to event type `ctx`). */
int msg_stat(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct emu_thread *t = &e->th[ev->stream->index];
	static const struct { char val; int32_t record; enum emu_claim_what what; } kinds[] = {
		{'t', -101, EMU_CLAIM_TIME}, {'c', -102, EMU_CLAIM_COUNT}, {'v', -103, EMU_CLAIM_BYTES},
	};
	struct emu_claim c;
	memset(&c, 0, sizeof(c));
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (kinds[k].val == ev->val)
			c.record = kinds[k].record, c.what = kinds[k].what;
	c.op = (int32_t) ev_field(in, 0, ev);
	/* PICL's file I/O is emulated by the fileio model, which numbers its
	 * operations as PICL does */
	c.model = c.op == -201 || c.op == -202 || c.op == -221 || c.op == -251 ? 'F' : 'X';
	c.value = ev_field(in, 1, ev);
	c.ctx = (int32_t) ev_field(in, 2, ev);
	c.ctx_model = c.ctx == -1 ? 0 : 'X';
	c.unit_ns = c.ts_unit_ns = 1;
	if (c.what == EMU_CLAIM_TIME) {
		for (int64_t d = ev_field(in, 3, ev); d < 9; d++)
			c.unit_ns *= 10;
		for (int64_t d = ev_field(in, 4, ev); d < 9; d++)
			c.ts_unit_ns *= 10;
	}
	static const int32_t unrecorded[] = {-13, -14, -29, -53, -54, -55, -59};
	for (size_t k = 0; k < sizeof(unrecorded) / sizeof(unrecorded[0]); k++)
		if (c.op == unrecorded[k])
			c.why_not = "PICL writes no records for this event type";
	if (c.op <= -1001 || c.op == -1)
		c.why_not = "a subset of event types";
	else if (c.ctx < -1)
		c.why_not = c.ctx <= -1001 ? "relative to a subset of event types"
					   : "relative to a system event type (weft measures within user events)";
	emu_acct_claim(e, t, &c);
	return 0;
}

void msg_op_label(const struct emu *e, int32_t op, char *buf, int n)
{
	if (op >= 0) {
		const struct weft_mark_type *mk = &e->tr.sys.marks[0];
		for (int i = 0; mk->defined && i < mk->nlabels; i++)
			if (mk->labels[i].value == (int64_t) op + 1) {
				snprintf(buf, (size_t) n, "%s", mk->labels[i].label);
				return;
			}
		snprintf(buf, (size_t) n, "user event %d", op);
		return;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].v == -op) {
			snprintf(buf, (size_t) n, "%s", calls[i].l);
			return;
		}
	snprintf(buf, (size_t) n, "PICL event %d", op);
}

int msg_finish(struct emu *e, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	uint64_t us = 0, ur = 0;
	int shown = 0;
	for (size_t i = 0; i < m->keys.norder; i++) {
		struct key *k = m->keys.order[i];
		if (!k->sends.n && !k->recvs.n)
			continue;
		size_t ns = k->sends.n;
		us += k->sends.n;
		ur += k->recvs.n;
		while (k->sends.n) {
			struct pend s = fifo_pop(&k->sends);
			emu_comm_drop(e, s.id);
		}
		if (!e->o.quiet && shown++ < REPORT_KEYS)
			weft_warn("msg: processor %d to processor %d, type %d: %zu sends and %zu receives unmatched",
				  k->src, k->dst, k->tag, ns,
				  (size_t) k->recvs.n);
	}
	if (!e->o.quiet) {
		if (shown > REPORT_KEYS)
			weft_warn("msg: %d more keys with unmatched messages", shown - REPORT_KEYS);
		if (us || ur || m->noverflow)
			weft_warn("msg: %llu sends and %llu receives unmatched (%llu beyond the memory cap)",
				  (unsigned long long) us, (unsigned long long) ur,
				  (unsigned long long) m->noverflow);
		for (int i = 0; i < e->nth; i++)
			if (m->th[i].n && e->th[i].sys->req['X' - 0x21])
				weft_warn("msg: processor %d ends with %d PICL calls open", m->th[i].proc, m->th[i].n);
	}
	return 0;
}

void msg_pcf(struct emu *e, int file, struct strbuf *b)
{
	struct mstate *m = ms(e);
	if (file != EMU_THREAD_FILE)
		return;
	int types[] = {MSG_T_CALL, MSG_T_MARK};
	for (int k = 0; k < 2; k++) {
		sb_printf(b, "EVENT_TYPE\n0 %d %s\nVALUES\n", types[k],
			  k == 0 ? "PICL call" : "PICL mark (user event types: type + 1)");
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
			sb_printf(b, "%d %s\n", calls[i].v, calls[i].l);
		sb_printf(b, "\n\n");
	}
	for (int s = 0; s < e->nslots[EMU_THREAD_FILE]; s++) {
		int ty = e->slot_type[EMU_THREAD_FILE][s];
		if (ty >= 1041 && ty <= 1046 && ty != 1047)
			sb_printf(b, "EVENT_TYPE\n0 %d %s\n\n\n", ty, e->slot_label[EMU_THREAD_FILE][s]);
		if (ty == MSG_T_USER_REC)
			sb_printf(b, "EVENT_TYPE\n0 %d %s\n\n\n", ty, e->slot_label[EMU_THREAD_FILE][s]);
	}
	(void) m;
}

void msg_free(struct emu *e)
{
	struct mstate *m = ms(e);
	if (!m)
		return;
	keytab_free(&m->keys);
	for (int i = 0; i < e->nth; i++) {
		struct mthread *x = &m->th[i];
		for (int j = 0; j < x->n; j++)
			free(x->stack[j].ids);
		for (int j = 0; j < x->nsreq; j++)
			free(x->sreq[j].ids);
		free(x->sreq);
		free(x->rreq);
	}
	free(m->th);
	free(m->by_proc_v);
	free(m->by_proc_k);
	free(m);
	e->mstate['X' - 0x21] = NULL;
}
