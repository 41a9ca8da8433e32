/* fileio model (F): per-thread I/O state (Reading, Writing, Waiting for I/O,
 * Opening, Closing; no state outside I/O), request sizes, files, offsets,
 * open-file and in-flight counts, punctual file operations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

struct fdmap {
	int64_t fd, file;
};

struct fio_thread {
	int nread, nwrite, nwait, nopening, nclosing;
	int64_t nopen, inflight;
	int64_t fd, aid; /* the descriptor named by the last FD. */
	uint32_t state;
	struct fdmap *map;
	int nmap, cap;
};

struct fio {
	struct fio_thread *th;
	int slot[FT_COUNT]; /* thread.prv slot by type - FT_FIRST */
	int cslot;          /* cpu.prv: clients in I/O on the node */
	int64_t *ncpu_io;   /* by global CPU index */
};

static struct fio *st(struct emu *e)
{
	return e->mstate['F' - 0x21];
}

static struct fio_thread *fth(struct emu *e, const struct weft_ev *ev)
{
	return &st(e)->th[ev->stream->index];
}

static struct emu_thread *cur(struct emu *e, const struct weft_ev *ev)
{
	return &e->th[ev->stream->index];
}

static void out(struct emu *e, const struct weft_ev *ev, int type, int64_t v)
{
	emu_out(e, EMU_THREAD_FILE, cur(e, ev)->row, st(e)->slot[type - FT_FIRST], v);
}

/* A punctual value: written even when it equals the previous one, so every
 * request and operation gives one record (the writer otherwise keeps only
 * changes). */
static void punct(struct emu *e, const struct weft_ev *ev, int type, int64_t v)
{
	emu_punct(e, EMU_THREAD_FILE, cur(e, ev)->row, st(e)->slot[type - FT_FIRST], v);
}

static void show_state(struct emu *e, const struct weft_ev *ev)
{
	struct fio_thread *t = fth(e, ev);
	struct emu_thread *et = cur(e, ev);
	uint32_t s = t->nwrite	    ? FS_WRITE
		     : t->nread	    ? FS_READ
		     : t->nwait	    ? FS_WAIT
		     : t->nopening  ? FS_OPENING
		     : t->nclosing  ? FS_CLOSING
				    : 0;
	emu_model_state(e, et, 'F', s);
	if (emu_owner(e, et) != 'F')
		return;
	/* the node's first CPU counts its clients in I/O */
	int was = t->state != 0, now = s != 0;
	t->state = s;
	struct weft_cpu *c = sys_cpu_by_index(et->sys->proc->loom, 0);
	if (was != now && c) {
		st(e)->ncpu_io[c->gindex] += now - was;
		emu_out(e, EMU_CPU_FILE, e->cpu[c->gindex].row, st(e)->cslot, st(e)->ncpu_io[c->gindex]);
	}
}

static void acct(struct emu *e, const struct weft_ev *ev, enum emu_op_kind kind, int32_t op, int64_t bytes)
{
	emu_acct_op(e, cur(e, ev), 'F', kind, op, bytes, 0);
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
	show_state(e, ev);
	return 0;
}

int fio_open(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct fio_thread *t = fth(e, ev);
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
	if (!t->nopening)
		acct(e, ev, EMU_OP_MARK, FIO_OP_OPEN, -1); /* else counted by its span */
	punct(e, ev, FT_OP, ev->val == 'a' ? FOP_APPOPEN : FOP_OPEN);
	punct(e, ev, FT_FILE, file);
	punct(e, ev, FT_FLAGS, flags);
	out(e, ev, FT_NOPEN, t->nopen);
	return 0;
}

int fio_close(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct fio_thread *t = fth(e, ev);
	int64_t fd = ev_field(in, 0, ev);
	struct fdmap *m = find_fd(t, fd);
	if (m) {
		punct(e, ev, FT_FILE, m->file);
		*m = t->map[--t->nmap];
		t->nopen--;
	}
	if (!t->nclosing)
		acct(e, ev, EMU_OP_MARK, FIO_OP_CLOSE, -1);
	punct(e, ev, FT_OP, ev->val == 'a' ? FOP_APPCLOSE : FOP_CLOSE);
	if (ev_field(in, 1, ev) >= 0) /* -1: the format gives no size */
		punct(e, ev, FT_FSIZE, ev_field(in, 1, ev));
	out(e, ev, FT_NOPEN, t->nopen);
	return 0;
}

int fio_desc(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct fio_thread *t = fth(e, ev);
	t->fd = ev_field(in, 0, ev);
	t->aid = ev_field(in, 1, ev);
	return 0;
}

static void request(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, int write)
{
	struct fio_thread *t = fth(e, ev);
	punct(e, ev, write ? FT_BWRITE : FT_BREAD, ev_field(in, 0, ev));
	if (ev_field(in, 1, ev) >= 0) /* -1: the format gives no offset */
		punct(e, ev, FT_OFFSET, ev_field(in, 1, ev));
	struct fdmap *m = find_fd(t, t->fd);
	if (m)
		punct(e, ev, FT_FILE, m->file);
}

int fio_rw(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct fio_thread *t = fth(e, ev);
	int write = ev->cat == 'W';
	int *n = write ? &t->nwrite : &t->nread;
	int32_t op = write ? FIO_OP_WRITE : FIO_OP_READ;
	if (ev->val == '[') {
		(*n)++;
		request(e, ev, in, write);
		acct(e, ev, EMU_OP_BEGIN, op, ev_field(in, 0, ev));
	} else {
		if (*n == 0)
			return emu_model_error(e, err, "thread %lld ends %s with no %s in progress: expected F%c[ first",
					       (long long) cur(e, ev)->sys->tid, write ? "writing" : "reading",
					       write ? "write" : "read", ev->cat);
		(*n)--;
		acct(e, ev, EMU_OP_END, op, -1);
	}
	show_state(e, ev);
	return 0;
}

int fio_async(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct fio_thread *t = fth(e, ev);
	request(e, ev, in, ev->cat == 'W');
	acct(e, ev, EMU_OP_MARK, ev->cat == 'W' ? FIO_OP_AWRITE : FIO_OP_AREAD, ev_field(in, 0, ev));
	t->inflight++;
	out(e, ev, FT_INFLIGHT, t->inflight);
	return 0;
}

int fio_wait(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	struct fio_thread *t = fth(e, ev);
	if (ev->val == '[') {
		t->nwait++;
		acct(e, ev, EMU_OP_BEGIN, FIO_OP_WAIT, -1);
	} else {
		if (t->nwait == 0 || t->inflight == 0)
			return emu_model_error(e, err, "thread %lld: asynchronous request %lld completes with %s: "
					       "expected FA[ and an issued request first",
					       (long long) cur(e, ev)->sys->tid, (long long) ev_field(in, 0, ev),
					       t->nwait ? "no request in flight" : "no wait in progress");
		t->nwait--;
		t->inflight--;
		acct(e, ev, EMU_OP_END, FIO_OP_WAIT, -1);
		out(e, ev, FT_INFLIGHT, t->inflight);
	}
	show_state(e, ev);
	return 0;
}

int fio_size(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	acct(e, ev, EMU_OP_MARK, ev->cat == 'E' ? FIO_OP_EXTEND : FIO_OP_TRUNC, -1);
	punct(e, ev, FT_OP, ev->cat == 'E' ? FOP_EXTEND : FOP_TRUNC);
	punct(e, ev, FT_FILE, ev_field(in, 0, ev));
	punct(e, ev, FT_FSIZE, ev_field(in, 1, ev));
	return 0;
}

int fio_link(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	acct(e, ev, EMU_OP_MARK, ev->cat == 'L' ? FIO_OP_LINK : FIO_OP_UNLINK, -1);
	punct(e, ev, FT_OP, ev->cat == 'L' ? FOP_LINK : FOP_UNLINK);
	punct(e, ev, FT_FILE, ev_field(in, 0, ev));
	punct(e, ev, FT_LINKS, ev_field(in, 1, ev));
	return 0;
}

int fio_fcntl(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct fdmap *m = find_fd(fth(e, ev), ev_field(in, 0, ev));
	acct(e, ev, EMU_OP_MARK, FIO_OP_FCNTL, -1);
	punct(e, ev, FT_OP, FOP_FCNTL);
	if (m)
		punct(e, ev, FT_FILE, m->file);
	punct(e, ev, FT_FCNTL, ev_field(in, 1, ev));
	return 0;
}

int fio_span(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct fio_thread *t = fth(e, ev);
	int *n = ev->cat == 'o' ? &t->nopening : &t->nclosing;
	int32_t op = ev->cat == 'o' ? FIO_OP_OPEN : FIO_OP_CLOSE;
	if (ev->val == '[') {
		(*n)++;
		acct(e, ev, EMU_OP_BEGIN, op, -1);
	} else if (*n == 0) {
		return emu_model_error(e, err, "thread %lld ends %s a file with none in progress",
				       (long long) cur(e, ev)->sys->tid, ev->cat == 'o' ? "opening" : "closing");
	} else {
		(*n)--;
		acct(e, ev, EMU_OP_END, op, -1);
	}
	show_state(e, ev);
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

int fio_setup(struct emu *e, struct weft_err *err)
{
	(void) err;
	struct fio *s = weft_xcalloc(1, sizeof(*s));
	s->th = weft_xcalloc((size_t) e->nth + 1, sizeof(*s->th));
	for (int k = 0; k < FT_COUNT; k++)
		s->slot[k] = emu_slot(e, EMU_THREAD_FILE, FT_FIRST + k, type_label[k]);
	s->cslot = emu_slot(e, EMU_CPU_FILE, FT_CPU_IO, "File I/O: clients in I/O on the node");
	s->ncpu_io = weft_xcalloc((size_t) e->ncpu + 1, sizeof(*s->ncpu_io));
	e->mstate['F' - 0x21] = s;
	e->state_owner = 'F';
	return 0;
}

void fio_pcf(struct emu *e, int file, struct strbuf *b)
{
	(void) e;
	if (file != EMU_THREAD_FILE) {
		sb_printf(b, "EVENT_TYPE\n0 %d File I/O: clients in I/O on the node\n\n", FT_CPU_IO);
		return;
	}
	for (int k = 0; k < FT_COUNT; k++) {
		sb_printf(b, "EVENT_TYPE\n0 %d %s\n", FT_FIRST + k, type_label[k]);
		if (FT_FIRST + k == FT_OP)
			sb_printf(b, "VALUES\n%d open\n%d close\n%d extend\n%d truncate\n%d link\n%d unlink\n"
				     "%d fcntl\n%d application open\n%d application close\n",
				  FOP_OPEN, FOP_CLOSE, FOP_EXTEND, FOP_TRUNC, FOP_LINK, FOP_UNLINK, FOP_FCNTL,
				  FOP_APPOPEN, FOP_APPCLOSE);
		else if (FT_FIRST + k == FT_FLAGS)
			sb_printf(b, "VALUES\n1 read\n2 read-write\n4 write\n8 create\n16 truncate\n32 append\n"
				     "9 read, create\n10 read-write, create\n12 write, create\n"
				     "26 read-write, create, truncate\n28 write, create, truncate\n"
				     "36 write, append\n44 write, create, append\n");
		sb_printf(b, "\n");
	}
}

void fio_op_label(const struct emu *e, int32_t op, char *buf, int n)
{
	(void) e;
	static const struct { int32_t op; const char *l; } names[] = {
		{FIO_OP_OPEN, "open"}, {FIO_OP_CLOSE, "close"}, {FIO_OP_WRITE, "write"}, {FIO_OP_READ, "read"},
		{FIO_OP_AREAD, "asynchronous read issued"}, {FIO_OP_AWRITE, "asynchronous write issued"},
		{FIO_OP_WAIT, "wait for asynchronous I/O"}, {FIO_OP_EXTEND, "extend"}, {FIO_OP_TRUNC, "truncate"},
		{FIO_OP_LINK, "link"}, {FIO_OP_UNLINK, "unlink"}, {FIO_OP_FCNTL, "fcntl"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].op == op) {
			snprintf(buf, (size_t) n, "%s", names[i].l);
			return;
		}
}

void fio_free(struct emu *e)
{
	struct fio *s = st(e);
	if (!s)
		return;
	for (int i = 0; i < e->nth; i++)
		free(s->th[i].map);
	free(s->th);
	free(s->ncpu_io);
	free(s);
	e->mstate['F' - 0x21] = NULL;
}
