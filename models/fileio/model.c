/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fileio model (F): per-thread I/O state (Reading, Writing, Waiting for I/O,
 * Opening, Closing; no state outside I/O), request sizes, files, offsets,
 * open-file and in-flight counts, punctual file operations; per node (on
 * its CPU 0 in cpu.prv) the clients in an application and, on nodes with
 * two or more, the clients in I/O (with one client that count would repeat
 * its client's state, which thread.prv shows).
 * Per event: no allocation, no lookup of the descriptor's file (kept with
 * the descriptor), the state given on only when it changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio/fileio.h"
#include "trace/obs.h"
#include "texts.h"
#include "util/macros.h"

struct fdmap {
	int64_t fd, file;
};

/* What a thread is doing, lowest priority first: its state shows the
 * highest in progress (Writing > Reading > Waiting > Opening > Closing). */
enum { K_CLOSING, K_OPENING, K_WAIT, K_READ, K_WRITE, K_NKINDS };
static const uint32_t kind_state[K_NKINDS] = {FS_CLOSING, FS_OPENING, FS_WAIT, FS_READ, FS_WRITE};

struct fio_thread {
	struct emu_thread *et; /* the same thread in the emulator */
	int n[K_NKINDS];   /* in progress, by kind */
	uint32_t busy;     /* bit k: n[k] > 0 */
	int64_t nopen, inflight;
	int64_t fd, aid;   /* the descriptor named by the last FD. */
	int has_file;      /* descriptor fd is open: its file is `file` */
	int64_t file;
	uint32_t state;    /* the last state given to emu_model_state */
	int cpu;           /* global index of its node's CPU 0, -1: none */
	int count_io;      /* its node counts clients in I/O */
	int member;        /* between FP+ and FP- */
	struct fdmap *map; /* open descriptors */
	int nmap, cap;
};

struct fio {
	struct fio_thread *th;
	int slot[FT_COUNT]; /* thread.prv slot by type - FT_FIRST */
	int cslot, mslot;   /* cpu.prv: clients in I/O, in an application */
	int64_t *ncpu_io, *nmembers; /* by global CPU index */
	int nodes_known;    /* fio_thread.cpu and count_io set (at first use) */
	struct texts names; /* file id -> name (FN.), labels of FT_FILE */
	int64_t fmin, fmax; /* the file ids written (fmin > fmax: none) */
};

static struct fio *st(struct emu *e)
{
	return e->models.state[mcv_index('F')];
}

/* What a handler works on: the model, the event's thread in the model and
 * in the emulator. */
struct ctx {
	struct fio *f;
	struct fio_thread *t;
	struct emu_thread *et;
};

static inline struct ctx ctx_of(struct emu *e, const struct weft_ev *ev)
{
	struct fio *f = st(e);
	struct fio_thread *t = &f->th[ev->stream->index];
	return (struct ctx){f, t, t->et};
}

static inline void out(struct emu *e, const struct ctx *c, int type, int64_t v)
{
	emu_out(e, EMU_THREAD_FILE, c->et->row, c->f->slot[type - FT_FIRST], v);
}

/* A punctual value: written even when it equals the previous one, so every
 * request and operation gives one record (the writer otherwise keeps only
 * changes). */
static inline void punct(struct emu *e, const struct ctx *c, int type, int64_t v)
{
	if (type == FT_FILE) { /* (a constant at every call) the ids the .pcf may label */
		if (v < c->f->fmin)
			c->f->fmin = v;
		if (v > c->f->fmax)
			c->f->fmax = v;
	}
	emu_punct(e, EMU_THREAD_FILE, c->et->row, c->f->slot[type - FT_FIRST], v);
}

/* Payload fields of the hot events, read directly (events.c: FR[/FW[/FRa/FWa
 * "i64 size, i64 offset", FRd/FWd/FRA/FWA the same then "i32 fd, i32 aid",
 * FD. "i32 fd, i32 aid", FA[/FA] "i32 aid"). */
static inline int64_t pl_i64(const struct weft_ev *ev, int off)
{
	return (int64_t) obs_u64(ev->payload + off, ev->stream->swap);
}

static inline int64_t pl_i32(const struct weft_ev *ev, int off)
{
	return (int32_t) obs_u32(ev->payload + off, ev->stream->swap);
}

/* Each thread's node, and the nodes that count clients in I/O: those with
 * two or more threads whose rows show this model's states. Done at the
 * first event (the models' setups have chosen the rows' owners by then). */
static void find_nodes(struct emu *e, struct fio *f)
{
	int *n = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*n));
	for (int i = 0; i < e->sys.nth; i++) {
		struct emu_thread *et = &e->sys.th[i];
		struct weft_cpu *c = sys_cpu_by_index(et->sys->proc->loom, 0);
		f->th[i].cpu = c && et->sys->req[mcv_index('F')] ? c->gindex : -1;
		if (f->th[i].cpu >= 0 && emu_owner(e, et) == 'F')
			n[f->th[i].cpu]++;
	}
	for (int i = 0; i < e->sys.nth; i++)
		f->th[i].count_io = f->th[i].cpu >= 0 && emu_owner(e, &e->sys.th[i]) == 'F' && n[f->th[i].cpu] >= 2;
	free(n);
	f->nodes_known = 1;
}

/* The node's count of clients in I/O follows a thread going from no state
 * to a state or back. */
static void count_io(struct emu *e, const struct ctx *c, uint32_t s)
{
	struct fio_thread *t = c->t;
	if (__builtin_expect(!c->f->nodes_known, 0))
		find_nodes(e, c->f);
	int was = t->state != 0, now = s != 0;
	if (was != now && t->count_io) {
		c->f->ncpu_io[t->cpu] += now - was;
		emu_out(e, EMU_CPU_FILE, e->sys.cpu[t->cpu].row, c->f->cslot, c->f->ncpu_io[t->cpu]);
	}
}

static inline void enter(struct fio_thread *t, int k)
{
	if (t->n[k]++ == 0)
		t->busy |= 1u << k;
}

static inline void leave(struct fio_thread *t, int k)
{
	if (--t->n[k] == 0)
		t->busy &= ~(1u << k);
}

static inline __attribute__((always_inline)) void show_state(struct emu *e, const struct ctx *c)
{
	struct fio_thread *t = c->t;
	uint32_t s = t->busy ? kind_state[31 - __builtin_clz(t->busy)] : 0;
	if (s == t->state && !e->obs.acct)
		return; /* unchanged: the row shows it already */
	emu_model_state(e, c->et, 'F', s);
	if (__builtin_expect(!c->f->nodes_known || c->t->count_io, 0))
		count_io(e, c, s);
	t->state = s;
}

static inline void acct(struct emu *e, const struct ctx *c, enum emu_op_kind kind, int32_t op, int64_t bytes)
{
	emu_acct_op(e, c->et, 'F', kind, op, bytes, 0);
}

static struct fdmap *find_fd(struct fio_thread *t, int64_t fd)
{
	for (int i = 0; i < t->nmap; i++)
		if (t->map[i].fd == fd)
			return &t->map[i];
	return NULL;
}

int fio_member(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	struct ctx c = ctx_of(e, ev);
	struct fio_thread *t = c.t;
	if (!c.f->nodes_known)
		find_nodes(e, c.f);
	int member = ev->val == '+';
	if (member != t->member && t->cpu >= 0) {
		t->member = member;
		c.f->nmembers[t->cpu] += member ? 1 : -1;
		emu_out(e, EMU_CPU_FILE, e->sys.cpu[t->cpu].row, c.f->mslot, c.f->nmembers[t->cpu]);
	}
	show_state(e, &c);
	return 0;
}

int fio_open(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct ctx c = ctx_of(e, ev);
	struct fio_thread *t = c.t;
	int64_t fd = ev_field(in, 0, ev), file = ev_field(in, 1, ev), flags = ev_field(in, 2, ev);
	struct fdmap *m = find_fd(t, fd);
	if (!m) {
		if (t->nmap == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 8;
			t->map = weft_xrealloc(t->map, (size_t) t->cap * sizeof(*t->map));
		}
		m = &t->map[t->nmap++];
		m->fd = fd;
		t->nopen++;
	}
	m->file = file;
	if (fd == t->fd)
		t->has_file = 1, t->file = file;
	if (!t->n[K_OPENING])
		acct(e, &c, EMU_OP_MARK, FIO_OP_OPEN, -1); /* else counted by its span */
	punct(e, &c, FT_OP, ev->val == 'a' ? FOP_APPOPEN : FOP_OPEN);
	punct(e, &c, FT_FILE, file);
	punct(e, &c, FT_FLAGS, flags);
	out(e, &c, FT_NOPEN, t->nopen);
	return 0;
}

int fio_close(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct ctx c = ctx_of(e, ev);
	struct fio_thread *t = c.t;
	int64_t fd = ev_field(in, 0, ev);
	struct fdmap *m = find_fd(t, fd);
	if (m) {
		punct(e, &c, FT_FILE, m->file);
		*m = t->map[--t->nmap];
		t->nopen--;
		if (fd == t->fd)
			t->has_file = 0;
	}
	if (!t->n[K_CLOSING])
		acct(e, &c, EMU_OP_MARK, FIO_OP_CLOSE, -1);
	punct(e, &c, FT_OP, ev->val == 'a' ? FOP_APPCLOSE : FOP_CLOSE);
	if (ev_field(in, 1, ev) >= 0) /* -1: the format gives no size */
		punct(e, &c, FT_FSIZE, ev_field(in, 1, ev));
	out(e, &c, FT_NOPEN, t->nopen);
	return 0;
}

/* The descriptor and async id of the next requests (FD., or a request
 * naming them at payload offset `at`). */
static inline void set_desc(struct fio_thread *t, const struct weft_ev *ev, int at)
{
	int64_t fd = pl_i32(ev, at);
	t->aid = pl_i32(ev, at + 4);
	if (fd != t->fd) { /* else its file is known (fio_open, fio_close keep it) */
		struct fdmap *m = find_fd(t, fd);
		t->has_file = m != NULL;
		t->file = m ? m->file : 0;
	}
	t->fd = fd;
}

int fio_desc(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	set_desc(ctx_of(e, ev).t, ev, 0);
	return 0;
}

/* The punctual values of a read or write request (FR[, FW[, FRa, FWa). */
static inline void request(struct emu *e, const struct ctx *c, const struct weft_ev *ev, int write)
{
	int64_t off = pl_i64(ev, 8);
	punct(e, c, write ? FT_BWRITE : FT_BREAD, pl_i64(ev, 0));
	if (off >= 0) /* -1: the format gives no offset */
		punct(e, c, FT_OFFSET, off);
	if (c->t->has_file)
		punct(e, c, FT_FILE, c->t->file);
}

int fio_rw(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct ctx c = ctx_of(e, ev);
	struct fio_thread *t = c.t;
	int write = ev->cat == 'W', k = write ? K_WRITE : K_READ;
	int32_t op = write ? FIO_OP_WRITE : FIO_OP_READ;
	if (ev->val != ']') { /* FR[ FW[, or FRd FWd naming the descriptor */
		if (ev->val == 'd')
			set_desc(t, ev, 16);
		enter(t, k);
		request(e, &c, ev, write);
		if (e->obs.acct)
			acct(e, &c, EMU_OP_BEGIN, op, pl_i64(ev, 0));
	} else {
		if (t->n[k] == 0)
			return emu_model_error(e, err, "thread %lld ends %s with no %s in progress: expected F%c[ first",
					       (long long) c.et->sys->tid, write ? "writing" : "reading",
					       write ? "write" : "read", ev->cat);
		leave(t, k);
		acct(e, &c, EMU_OP_END, op, -1);
	}
	show_state(e, &c);
	return 0;
}

int fio_async(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	struct ctx c = ctx_of(e, ev);
	if (ev->val == 'A') /* FRA FWA: naming the descriptor */
		set_desc(c.t, ev, 16);
	request(e, &c, ev, ev->cat == 'W');
	if (e->obs.acct)
		acct(e, &c, EMU_OP_MARK, ev->cat == 'W' ? FIO_OP_AWRITE : FIO_OP_AREAD, pl_i64(ev, 0));
	c.t->inflight++;
	out(e, &c, FT_INFLIGHT, c.t->inflight);
	return 0;
}

int fio_wait(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct ctx c = ctx_of(e, ev);
	struct fio_thread *t = c.t;
	if (ev->val == '[') {
		enter(t, K_WAIT);
		acct(e, &c, EMU_OP_BEGIN, FIO_OP_WAIT, -1);
	} else {
		if (t->n[K_WAIT] == 0 || t->inflight == 0)
			return emu_model_error(e, err, "thread %lld: asynchronous request %lld completes with %s: "
					       "expected FA[ and an issued request first",
					       (long long) c.et->sys->tid, (long long) pl_i32(ev, 0),
					       t->n[K_WAIT] ? "no request in flight" : "no wait in progress");
		leave(t, K_WAIT);
		t->inflight--;
		acct(e, &c, EMU_OP_END, FIO_OP_WAIT, -1);
		out(e, &c, FT_INFLIGHT, t->inflight);
	}
	show_state(e, &c);
	return 0;
}

int fio_size(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct ctx c = ctx_of(e, ev);
	acct(e, &c, EMU_OP_MARK, ev->cat == 'E' ? FIO_OP_EXTEND : FIO_OP_TRUNC, -1);
	punct(e, &c, FT_OP, ev->cat == 'E' ? FOP_EXTEND : FOP_TRUNC);
	punct(e, &c, FT_FILE, ev_field(in, 0, ev));
	punct(e, &c, FT_FSIZE, ev_field(in, 1, ev));
	return 0;
}

int fio_link(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct ctx c = ctx_of(e, ev);
	acct(e, &c, EMU_OP_MARK, ev->cat == 'L' ? FIO_OP_LINK : FIO_OP_UNLINK, -1);
	punct(e, &c, FT_OP, ev->cat == 'L' ? FOP_LINK : FOP_UNLINK);
	punct(e, &c, FT_FILE, ev_field(in, 0, ev));
	punct(e, &c, FT_LINKS, ev_field(in, 1, ev));
	return 0;
}

int fio_fcntl(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct ctx c = ctx_of(e, ev);
	struct fdmap *m = find_fd(c.t, ev_field(in, 0, ev));
	acct(e, &c, EMU_OP_MARK, FIO_OP_FCNTL, -1);
	punct(e, &c, FT_OP, FOP_FCNTL);
	if (m)
		punct(e, &c, FT_FILE, m->file);
	punct(e, &c, FT_FCNTL, ev_field(in, 1, ev));
	return 0;
}

int fio_span(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct ctx c = ctx_of(e, ev);
	struct fio_thread *t = c.t;
	int k = ev->cat == 'o' ? K_OPENING : K_CLOSING;
	int32_t op = ev->cat == 'o' ? FIO_OP_OPEN : FIO_OP_CLOSE;
	if (ev->val == '[') {
		enter(t, k);
		acct(e, &c, EMU_OP_BEGIN, op, -1);
	} else if (t->n[k] == 0) {
		return emu_model_error(e, err, "thread %lld ends %s a file with none in progress",
				       (long long) c.et->sys->tid, ev->cat == 'o' ? "opening" : "closing");
	} else {
		leave(t, k);
		acct(e, &c, EMU_OP_END, op, -1);
	}
	show_state(e, &c);
	return 0;
}

static const char *const type_label[FT_COUNT] = {
	"File I/O: bytes read",
	"File I/O: bytes written",
	"File I/O: file id",
	"File I/O: file offset",
	"File I/O: open files",
	"File I/O: asynchronous requests in flight",
	"File I/O: file operation",
	"File I/O: file size",
	"File I/O: link count",
	"File I/O: fcntl request",
	"File I/O: open flags",
};

/* Their keys in the model's Paraver table (events.c). */
const char *const fio_keys[FT_COUNT] = {"bread", "bwrite", "file",  "offset", "nopen", "inflight",
					"op",	 "fsize",  "links", "fcntl",  "flags"};

static const char *const cpu_label[2] = {
	"File I/O: clients in I/O on the node",
	"File I/O: clients in an application on the node",
};

int fio_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct fio *s = weft_xcalloc(1, sizeof(*s));
	s->th = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*s->th));
	for (int i = 0; i < e->sys.nth; i++)
		s->th[i].et = &e->sys.th[i];
	static const struct sink_label ops[] = {
		{.value = FOP_OPEN, .label = "open"},
		{.value = FOP_CLOSE, .label = "close"},
		{.value = FOP_EXTEND, .label = "extend"},
		{.value = FOP_TRUNC, .label = "truncate"},
		{.value = FOP_LINK, .label = "link"},
		{.value = FOP_UNLINK, .label = "unlink"},
		{.value = FOP_FCNTL, .label = "fcntl"},
		{.value = FOP_APPOPEN, .label = "application open"},
		{.value = FOP_APPCLOSE, .label = "application close"},
	};
	static const struct sink_label flags[] = {
		{.value = 1, .label = "read"},
		{.value = 2, .label = "read-write"},
		{.value = 4, .label = "write"},
		{.value = 8, .label = "create"},
		{.value = 16, .label = "truncate"},
		{.value = 32, .label = "append"},
		{.value = 9, .label = "read, create"},
		{.value = 10, .label = "read-write, create"},
		{.value = 12, .label = "write, create"},
		{.value = 26, .label = "read-write, create, truncate"},
		{.value = 28, .label = "write, create, truncate"},
		{.value = 36, .label = "write, append"},
		{.value = 44, .label = "write, create, append"},
	};
	for (int k = 0; k < FT_COUNT; k++) {
		s->slot[k] = emu_slot(e, EMU_THREAD_FILE, type_label[k]);
		struct emu_slot_decl d = {.key = fio_keys[k], .kind = SINK_VALUE};
		if (FT_FIRST + k == FT_OP) {
			d.labels = ops;
			d.nlabels = (int) ARRAY_SIZE(ops);
		} else if (FT_FIRST + k == FT_FLAGS) {
			d.labels = flags;
			d.nlabels = (int) ARRAY_SIZE(flags);
		}
		emu_slot_declare(e, EMU_THREAD_FILE, s->slot[k], &d);
	}
	s->cslot = emu_slot(e, EMU_CPU_FILE, cpu_label[0]);
	s->mslot = emu_slot(e, EMU_CPU_FILE, cpu_label[1]);
	emu_slot_declare(e, EMU_CPU_FILE, s->cslot, &(struct emu_slot_decl){.key = "io", .kind = SINK_VALUE});
	emu_slot_declare(e, EMU_CPU_FILE, s->mslot, &(struct emu_slot_decl){.key = "members", .kind = SINK_VALUE});
	s->ncpu_io = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*s->ncpu_io));
	s->nmembers = weft_xcalloc((size_t) e->sys.ncpu + 1, sizeof(*s->nmembers));
	s->fmin = INT64_MAX;
	s->fmax = INT64_MIN;
	e->models.state[mcv_index('F')] = s;
	e->models.state_owner = 'F';
	return 0;
}

/* FN.: a file's name, the label of its id in the .pcf. */
int fio_name(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	texts_set(&st(e)->names, ev_field(in, 0, ev), (const char *) ev->payload + in->f[1].off);
	return 0;
}

/* At the end, the file ids' labels when some file has a name: every id
 * written gets one (those without a name "file N", -1 "no name"), as
 * weft check wants of a type with VALUES; none when no file has a name. */
int fio_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err)
{
	(void) self;
	(void) err;
	struct fio *s = st(e);
	if (!e->out.writing || !s->names.n) /* labels are for the outputs only */
		return 0;
	if (s->fmin <= s->fmax && s->fmax - s->fmin < 1000000)
		for (int64_t v = s->fmin; v <= s->fmax; v++)
			if (v != 0 && !texts_has(&s->names, v)) {
				char l[48];
				snprintf(l, sizeof(l), v == -1 ? "no name" : "file %lld", (long long) v);
				texts_set(&s->names, v, l);
			}
	for (int i = 0; i < s->names.n; i++) {
		int64_t v;
		const char *l = texts_nth(&s->names, i, &v);
		emu_slot_label(e, EMU_THREAD_FILE, s->slot[FT_FILE - FT_FIRST], v, l);
	}
	return 0;
}

void fio_op_label(const struct emu *e, int thread, int32_t op, char *buf, int n)
{
	(void) thread;
	(void) e;
	static const struct { int32_t op; const char *l; } names[] = {
		{FIO_OP_OPEN, "open"}, {FIO_OP_CLOSE, "close"}, {FIO_OP_WRITE, "write"}, {FIO_OP_READ, "read"},
		{FIO_OP_AREAD, "asynchronous read issued"}, {FIO_OP_AWRITE, "asynchronous write issued"},
		{FIO_OP_WAIT, "wait for asynchronous I/O"}, {FIO_OP_EXTEND, "extend"}, {FIO_OP_TRUNC, "truncate"},
		{FIO_OP_LINK, "link"}, {FIO_OP_UNLINK, "unlink"}, {FIO_OP_FCNTL, "fcntl"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].op == op) {
			snprintf(buf, (size_t) n, "%s", names[i].l);
			return;
		}
}

void fio_free(struct emu *e, const struct weft_model_def *self)
{
	(void) self;
	struct fio *s = st(e);
	if (!s)
		return;
	for (int i = 0; i < e->sys.nth; i++)
		free(s->th[i].map);
	free(s->th);
	free(s->ncpu_io);
	free(s->nmembers);
	texts_free(&s->names);
	free(s);
	e->models.state[mcv_index('F')] = NULL;
}
