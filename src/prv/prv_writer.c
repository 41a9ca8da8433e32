/* prv_writer: sorted Paraver bodies, front/back halves (see header). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "prv_writer.h"

#define END_WIDTH 20 /* digits of a patchable time */
#define OUTBUF_SIZE (1u << 20)
#define OP_ROOM 200  /* bytes one op may append */
#define PIPE_FILES 4

struct prv_pipe {
	/* the producer's own fields, on their own cache line: the consumer
	 * must not share a line the producer writes on every op */
	struct {
		struct prv_op *cur; /* the chunk being filled */
		uint32_t plen;
		int prod;
	} __attribute__((aligned(64))) w;
	pthread_t th __attribute__((aligned(64)));
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct prv_op *chunk[PRV_PIPE_CHUNKS];
	uint32_t len[PRV_PIPE_CHUNKS];
	int head, count;  /* filled chunks: [head, head + count) */
	int stop;
	struct prv_back *back[PIPE_FILES];
	int nfiles;
};

/* ---- back ----------------------------------------------------------------- */

static void pad20(char *dst, uint64_t v)
{
	for (int i = END_WIDTH - 1; i >= 0; i--) {
		dst[i] = (char) ('0' + v % 10);
		v /= 10;
	}
}

/* Overwrite 20 digits at absolute offset `off`: in the buffer if they are
 * still there, else in the file. */
static void patch20(struct prv_back *b, uint64_t off, uint64_t v)
{
	char d[END_WIDTH];
	pad20(d, v);
	if (off >= b->ob.written) {
		memcpy(b->ob.buf + (off - b->ob.written), d, END_WIDTH);
		return;
	}
	if (pwrite(b->fd, d, END_WIDTH, (off_t) off) != END_WIDTH && !b->ob.failed)
		b->ob.failed = errno ? errno : EIO;
}

/* Overwrite `n` bytes at absolute offset `off`, the part still buffered in
 * the buffer and the part already written with pwrite. */
static void patch_bytes(struct prv_back *b, uint64_t off, const char *d, size_t n)
{
	if (off < b->ob.written) {
		size_t k = off + n <= b->ob.written ? n : (size_t) (b->ob.written - off);
		if (pwrite(b->fd, d, k, (off_t) off) != (ssize_t) k && !b->ob.failed)
			b->ob.failed = errno ? errno : EIO;
		off += k;
		d += k;
		n -= k;
	}
	if (n)
		memcpy(b->ob.buf + (off - b->ob.written), d, n);
}

/* "cpu:appl:task:thread:" of a row, rebuilt only when its cpu changed. */
static inline void put_head(struct prv_back *b, char kind, struct prv_back_row *r)
{
	struct outbuf *o = &b->ob;
	if (r->head_cpu != r->cpu) {
		uint32_t n = (uint32_t) fmt_u64(r->head, r->cpu);
		r->head[n++] = ':';
		memcpy(r->head + n, r->prefix, r->prefix_len);
		n += r->prefix_len;
		r->head[n++] = ':';
		r->head_len = n;
		r->head_cpu = r->cpu;
	}
	o->buf[o->len++] = kind;
	o->buf[o->len++] = ':';
	memcpy(o->buf + o->len, r->head, sizeof(r->head));
	o->len += r->head_len;
}

static inline void close_line(struct prv_back *b)
{
	if (b->open_row != ~0u) {
		b->ob.buf[b->ob.len++] = '\n';
		b->open_row = ~0u;
	}
}

/* ---- communications ------------------------------------------------------- */

#define COMM_ID_W 10
#define COMM_RECV_LEN (4 * (COMM_ID_W + 1) + 2 * (END_WIDTH + 1) - 1)
#define COMM_ROOM 320
#define COMM_NONE UINT64_MAX
#define COMM_RECVD (UINT64_MAX - 1) /* received: psend may still be patched */

static void padw(char *dst, uint64_t v, int w)
{
	for (int i = w - 1; i >= 0; i--) {
		dst[i] = (char) ('0' + v % 10);
		v /= 10;
	}
}

static void comm_slot(struct prv_back *b, uint64_t id)
{
	if (id < b->ncomm_off)
		return;
	uint64_t n = b->ncomm_off ? b->ncomm_off : 1024;
	while (n <= id)
		n *= 2;
	/* two offsets per comm: the record's first byte and its psend field */
	b->comm_off = weft_xrealloc(b->comm_off, (size_t) n * 2 * sizeof(*b->comm_off));
	for (uint64_t i = b->ncomm_off; i < n; i++)
		b->comm_off[2 * i] = b->comm_off[2 * i + 1] = COMM_NONE;
	b->ncomm_off = n;
}

static void comm_send(struct prv_back *b, const struct prv_op *op)
{
	struct outbuf *o = &b->ob;
	if (o->len + COMM_ROOM > o->cap)
		ob_drain(o);
	close_line(b);
	uint64_t id = (uint64_t) op->value;
	comm_slot(b, id);
	b->comm_off[2 * id] = o->written + o->len;
	put_head(b, '3', &b->rows[op->row]);
	ob_u64(o, (uint64_t) b->arg[0]);
	o->buf[o->len++] = ':';
	b->comm_off[2 * id + 1] = o->written + o->len;
	pad20(o->buf + o->len, (uint64_t) b->arg[0]);
	o->len += END_WIDTH;
	for (int k = 0; k < 4; k++) {
		o->buf[o->len++] = ':';
		padw(o->buf + o->len, 0, COMM_ID_W);
		o->len += COMM_ID_W;
	}
	for (int k = 0; k < 2; k++) {
		o->buf[o->len++] = ':';
		pad20(o->buf + o->len, 0);
		o->len += END_WIDTH;
	}
	o->buf[o->len++] = ':';
	ob_i64(o, b->arg[1]);
	o->buf[o->len++] = ':';
	ob_i64(o, b->arg[2]);
	o->buf[o->len++] = '\n';
	b->nrecords++;
	b->ncomms++;
}

static int comm_open(const struct prv_back *b, uint64_t id)
{
	return id < b->ncomm_off && b->comm_off[2 * id] != COMM_NONE && b->comm_off[2 * id] != COMM_RECVD;
}

static int comm_patchable(const struct prv_back *b, uint64_t id)
{
	return id < b->ncomm_off && b->comm_off[2 * id + 1] != COMM_NONE;
}

static void comm_recv(struct prv_back *b, const struct prv_op *op)
{
	uint64_t id = (uint64_t) op->value;
	if (!comm_open(b, id))
		return;
	const struct prv_back_row *r = &b->rows[(uint32_t) b->arg[0]];
	char d[COMM_RECV_LEN];
	padw(d, r->cpu, COMM_ID_W);
	for (int k = 0; k < 3; k++) {
		d[(k + 1) * (COMM_ID_W + 1) - 1] = ':';
		padw(d + (k + 1) * (COMM_ID_W + 1), r->id[k], COMM_ID_W);
	}
	char *t = d + 4 * (COMM_ID_W + 1);
	t[-1] = ':';
	pad20(t, (uint64_t) b->arg[1]);
	t[END_WIDTH] = ':';
	pad20(t + END_WIDTH + 1, (uint64_t) b->arg[2]);
	patch_bytes(b, b->comm_off[2 * id + 1] + END_WIDTH + 1, d, sizeof(d));
	b->comm_off[2 * id] = COMM_RECVD;
}

static void comm_drop(struct prv_back *b, uint64_t id)
{
	if (!comm_open(b, id))
		return;
	patch_bytes(b, b->comm_off[2 * id], "#", 1);
	b->comm_off[2 * id] = b->comm_off[2 * id + 1] = COMM_NONE;
	b->ndropped++;
}

/* Bring the decimal time string to `now`: times only grow, and usually by
 * little, so adding the difference digit by digit beats formatting anew. */
static void time_string(struct prv_back *b)
{
	uint64_t d = b->now - b->tval;
	if (d == 0 && b->tlen)
		return;
	int i = (int) b->tlen - 1;
	unsigned carry = 0;
	while ((d || carry) && i >= 0) {
		unsigned x = (unsigned) (b->tstr[i] - '0') + (unsigned) (d % 10) + carry;
		d /= 10;
		carry = x >= 10;
		b->tstr[i] = (char) ('0' + (carry ? x - 10 : x));
		i--;
	}
	if (d || carry || !b->tlen)
		b->tlen = (uint32_t) fmt_u64(b->tstr, b->now); /* grew a digit */
	b->tval = b->now;
}

static void back_apply(struct prv_back *b, const struct prv_op *op)
{
	struct outbuf *o = &b->ob;
	if (o->len + OP_ROOM > o->cap)
		ob_drain(o); /* an open line may be split across writes: bytes are bytes */
	switch (op->kind) {
	case PRV_OP_TIME:
		close_line(b);
		b->now = (uint64_t) op->value;
		time_string(b);
		break;
	case PRV_OP_CPU:
		b->rows[op->row].cpu = (uint32_t) op->value;
		break;
	case PRV_OP_STATE: {
		close_line(b);
		struct prv_back_row *r = &b->rows[op->row];
		if (r->state)
			patch20(b, r->state_end_off, b->now);
		r->state = (uint32_t) op->value;
		if (!r->state)
			break;
		put_head(b, '1', r);
		memcpy(o->buf + o->len, b->tstr, sizeof(b->tstr));
		o->len += b->tlen;
		o->buf[o->len++] = ':';
		r->state_end_off = o->written + o->len;
		pad20(o->buf + o->len, b->now);
		o->len += END_WIDTH;
		o->buf[o->len++] = ':';
		ob_u64(o, r->state);
		o->buf[o->len++] = '\n';
		b->nrecords++;
		break;
	}
	case PRV_OP_EVENT:
		if (op->row != b->open_row) {
			close_line(b);
			put_head(b, '2', &b->rows[op->row]);
			memcpy(o->buf + o->len, b->tstr, sizeof(b->tstr));
			o->len += b->tlen;
			b->open_row = op->row;
			b->nrecords++;
		}
		memcpy(o->buf + o->len, b->slot_str[op->slot], sizeof(b->slot_str[op->slot]));
		o->len += b->slot_len[op->slot];
		ob_i64(o, op->value);
		break;
	case PRV_OP_ARG:
		b->arg[b->narg++ & 3] = op->value;
		break;
	case PRV_OP_COMM_SEND:
		comm_send(b, op);
		b->narg = 0;
		break;
	case PRV_OP_COMM_PSEND:
		if (comm_patchable(b, (uint64_t) op->value))
			patch20(b, b->comm_off[2 * (uint64_t) op->value + 1], (uint64_t) b->arg[0]);
		b->narg = 0;
		break;
	case PRV_OP_COMM_RECV:
		comm_recv(b, op);
		b->narg = 0;
		break;
	case PRV_OP_COMM_DROP:
		comm_drop(b, (uint64_t) op->value);
		b->narg = 0;
		break;
	}
}

/* ---- pipe ----------------------------------------------------------------- */

static void *pipe_main(void *arg)
{
	struct prv_pipe *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->count == 0 && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->count == 0)
			break;
		int c = p->head;
		const struct prv_op *ops = p->chunk[c];
		uint32_t n = p->len[c];
		struct prv_back *back[PIPE_FILES];
		memcpy(back, p->back, sizeof(back));
		pthread_mutex_unlock(&p->mu);
		for (uint32_t i = 0; i < n; i++)
			back_apply(back[ops[i].file], &ops[i]);
		pthread_mutex_lock(&p->mu);
		p->head = (p->head + 1) % PRV_PIPE_CHUNKS;
		p->count--;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct prv_pipe *prv_pipe_start(void)
{
	/* cache-line aligned, so the producer's line is its own */
	struct prv_pipe *p;
	if (posix_memalign((void **) &p, 64, sizeof(*p)) != 0)
		return NULL;
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < PRV_PIPE_CHUNKS; i++)
		p->chunk[i] = weft_xmalloc(PRV_PIPE_OPS * sizeof(struct prv_op));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->w.cur = p->chunk[0];
	if (pthread_create(&p->th, NULL, pipe_main, p) != 0) {
		for (int i = 0; i < PRV_PIPE_CHUNKS; i++)
			free(p->chunk[i]);
		free(p);
		return NULL; /* callers fall back to the inline back */
	}
	return p;
}

static void pipe_publish(struct prv_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->len[p->w.prod] = p->w.plen;
	p->count++;
	pthread_cond_broadcast(&p->cv);
	while (p->count == PRV_PIPE_CHUNKS)
		pthread_cond_wait(&p->cv, &p->mu);
	p->w.prod = (p->head + p->count) % PRV_PIPE_CHUNKS;
	p->w.cur = p->chunk[p->w.prod];
	pthread_mutex_unlock(&p->mu);
	p->w.plen = 0;
}

void prv_pipe_finish(struct prv_pipe *p)
{
	if (!p)
		return;
	if (p->w.plen)
		pipe_publish(p);
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	for (int i = 0; i < PRV_PIPE_CHUNKS; i++)
		free(p->chunk[i]);
	free(p);
}

/* ---- front ---------------------------------------------------------------- */

static inline void emit(struct prv_file *f, uint8_t kind, uint32_t row, uint32_t slot, int64_t value)
{
	struct prv_pipe *p = f->pipe;
	if (!p) {
		struct prv_op op = {kind, (uint8_t) f->id, (uint16_t) slot, row, value};
		back_apply(&f->back, &op);
		return;
	}
	/* fields written in place: composing the op elsewhere and copying it
	 * as one 16-byte load stalls on store forwarding */
	struct prv_op *o = &p->w.cur[p->w.plen];
	o->kind = kind;
	o->file = (uint8_t) f->id;
	o->slot = (uint16_t) slot;
	o->row = row;
	o->value = value;
	if (++p->w.plen == PRV_PIPE_OPS)
		pipe_publish(p);
}

static inline void emit_cpu(struct prv_file *f, uint32_t row)
{
	struct prv_front_row *r = &f->rows[row];
	if (r->cpu != r->sent_cpu) {
		r->sent_cpu = r->cpu;
		emit(f, PRV_OP_CPU, row, 0, r->cpu);
	}
}

static inline void send_time(struct prv_file *f)
{
	if (f->sent_time != f->now) {
		f->sent_time = f->now;
		emit(f, PRV_OP_TIME, 0, 0, (int64_t) f->now);
	}
}

void prv_emit_value(struct prv_file *f, int row, int slot, int64_t value)
{
	send_time(f);
	emit_cpu(f, (uint32_t) row);
	emit(f, PRV_OP_EVENT, (uint32_t) row, (uint32_t) slot, value);
}

/* States changed at `now` (collected: a thread may pass through several
 * states in one instant, and only the last one starts a record). */
void prv_flush_now(struct prv_file *f)
{
	for (uint32_t k = 0; k < f->nsdirty; k++) {
		uint32_t row = f->sdirty[k];
		struct prv_front_row *r = &f->rows[row];
		r->state_dirty = 0;
		if (r->pend_state == r->state)
			continue;
		r->state = r->pend_state;
		send_time(f);
		emit_cpu(f, row);
		emit(f, PRV_OP_STATE, row, 0, r->state);
	}
	f->nsdirty = 0;
}

uint64_t prv_comm_send(struct prv_file *f, int row, uint64_t lsend, int64_t size, int64_t tag)
{
	uint64_t id = f->next_comm++;
	emit_cpu(f, (uint32_t) row);
	emit(f, PRV_OP_ARG, 0, 0, (int64_t) lsend);
	emit(f, PRV_OP_ARG, 0, 0, size);
	emit(f, PRV_OP_ARG, 0, 0, tag);
	emit(f, PRV_OP_COMM_SEND, (uint32_t) row, 0, (int64_t) id);
	return id;
}

void prv_comm_psend(struct prv_file *f, uint64_t id, uint64_t psend)
{
	emit(f, PRV_OP_ARG, 0, 0, (int64_t) psend);
	emit(f, PRV_OP_COMM_PSEND, 0, 0, (int64_t) id);
}

void prv_comm_recv(struct prv_file *f, uint64_t id, int row, uint64_t lrecv, uint64_t precv)
{
	emit_cpu(f, (uint32_t) row);
	emit(f, PRV_OP_ARG, 0, 0, row);
	emit(f, PRV_OP_ARG, 0, 0, (int64_t) lrecv);
	emit(f, PRV_OP_ARG, 0, 0, (int64_t) precv);
	emit(f, PRV_OP_COMM_RECV, 0, 0, (int64_t) id);
}

void prv_comm_drop(struct prv_file *f, uint64_t id)
{
	emit(f, PRV_OP_COMM_DROP, 0, 0, (int64_t) id);
}

static char *tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash)
		return weft_xasprintf("%.*s/.%s.weft-tmp-%ld", (int) (slash - path), path, slash + 1,
				      (long) getpid());
	return weft_xasprintf(".%s.weft-tmp-%ld", path, (long) getpid());
}

int prv_open(struct prv_file *f, struct prv_pipe *pipe, const char *path, const char *date,
	     const char *rest, int nrows, const uint32_t (*ids)[3], int nslots,
	     const int32_t *slot_type, int gzip, struct weft_err *e)
{
	memset(f, 0, sizeof(*f));
	struct prv_back *b = &f->back;
	b->path = weft_xstrdup(path);
	b->tmp_path = tmp_name(path);
	b->gzip = gzip;
	b->fd = open(b->tmp_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (b->fd < 0) {
		int er = errno;
		weft_fail(e, WEFT_EINTERNAL, "%s: cannot create: %s", b->tmp_path, strerror(er));
		free(b->path);
		free(b->tmp_path);
		return -1;
	}
	if (pipe) {
		if (pipe->nfiles == PIPE_FILES)
			pipe = NULL;
		else {
			f->id = pipe->nfiles;
			pipe->back[pipe->nfiles++] = b;
		}
	}
	f->pipe = pipe;
	ob_init(&b->ob, b->fd, OUTBUF_SIZE);
	f->nrows = b->nrows = nrows;
	f->nslots = b->nslots = nslots;
	f->rows = weft_xcalloc((size_t) nrows, sizeof(*f->rows));
	b->rows = weft_xcalloc((size_t) nrows, sizeof(*b->rows));
	for (int r = 0; r < nrows; r++) {
		int n = snprintf(b->rows[r].prefix, sizeof(b->rows[r].prefix), "%u:%u:%u", ids[r][0],
				 ids[r][1], ids[r][2]);
		b->rows[r].prefix_len = (uint32_t) n;
		memcpy(b->rows[r].id, ids[r], sizeof(b->rows[r].id));
		b->rows[r].head_cpu = ~0u;
	}
	b->slot_str = weft_xcalloc((size_t) nslots + 1, sizeof(*b->slot_str));
	b->slot_len = weft_xcalloc((size_t) nslots + 1, 1);
	for (int s = 0; s < nslots; s++)
		b->slot_len[s] = (uint8_t) snprintf(b->slot_str[s], sizeof(b->slot_str[s]), ":%d:",
						    (int) slot_type[s]);
	b->open_row = ~0u;
	f->chan = weft_xcalloc((size_t) nrows * (size_t) nslots, sizeof(*f->chan));
	f->dirty = weft_xcalloc((size_t) nrows * (size_t) nslots, sizeof(*f->dirty));
	f->sdirty = weft_xcalloc((size_t) nrows, sizeof(*f->sdirty));
	ob_str(&b->ob, "#Paraver (");
	ob_str(&b->ob, date);
	ob_str(&b->ob, "):");
	b->ftime_off = b->ob.written + b->ob.len;
	ob_room(&b->ob, END_WIDTH);
	pad20(b->ob.buf + b->ob.len, 0);
	b->ob.len += END_WIDTH;
	ob_str(&b->ob, "_ns:");
	ob_str(&b->ob, rest);
	ob_str(&b->ob, "\n");
	f->sent_time = ~0ull;
	f->open = 1;
	return 0;
}

static void release(struct prv_file *f)
{
	struct prv_back *b = &f->back;
	ob_free(&b->ob);
	free(b->rows);
	free(b->slot_str);
	free(b->slot_len);
	free(b->comm_off);
	free(b->path);
	free(b->tmp_path);
	free(f->rows);
	free(f->chan);
	free(f->dirty);
	free(f->sdirty);
	memset(f, 0, sizeof(*f));
}

void prv_abort(struct prv_file *f)
{
	if (!f->open)
		return;
	close(f->back.fd);
	unlink(f->back.tmp_path);
	release(f);
}

static int gzip_copy(int fd, const char *gzpath, struct weft_err *e)
{
	gzFile gz = gzopen(gzpath, "wb6");
	if (!gz)
		return weft_fail(e, WEFT_EINTERNAL, "%s: cannot create", gzpath);
	char *buf = weft_xmalloc(1u << 20);
	int rc = 0;
	if (lseek(fd, 0, SEEK_SET) != 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rewind the temporary trace: %s", strerror(errno));
	while (rc == 0) {
		ssize_t n = read(fd, buf, 1u << 20);
		if (n < 0) {
			rc = weft_fail(e, WEFT_EINTERNAL, "cannot read the temporary trace: %s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (gzwrite(gz, buf, (unsigned) n) != (int) n)
			rc = weft_fail(e, WEFT_EINTERNAL, "%s: compression failed", gzpath);
	}
	if (gzclose(gz) != Z_OK && rc == 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: compression failed", gzpath);
	free(buf);
	return rc;
}

int prv_close(struct prv_file *f, uint64_t ftime, struct weft_err *e)
{
	struct prv_back *b = &f->back;
	f->pipe = NULL; /* the caller finished the pipe: the back is ours now */
	prv_time(f, ftime);
	prv_flush_now(f);
	back_apply(b, &(struct prv_op){PRV_OP_TIME, 0, 0, 0, (int64_t) ftime});
	for (int r = 0; r < b->nrows; r++)
		if (b->rows[r].state)
			patch20(b, b->rows[r].state_end_off, ftime);
	for (uint64_t id = 0; id < b->ncomm_off; id++)
		comm_drop(b, id); /* sends never received become comments */
	patch20(b, b->ftime_off, ftime);
	int rc = ob_flush(&b->ob, e, b->tmp_path);
	if (rc == 0 && b->gzip) {
		char *gztmp = weft_xasprintf("%s.gz", b->tmp_path);
		char *gzpath = weft_xasprintf("%s.gz", b->path);
		rc = gzip_copy(b->fd, gztmp, e);
		if (rc == 0 && rename(gztmp, gzpath) != 0)
			rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", gztmp, gzpath,
				       strerror(errno));
		if (rc)
			unlink(gztmp);
		unlink(b->tmp_path);
		free(gztmp);
		free(gzpath);
	} else if (rc == 0 && rename(b->tmp_path, b->path) != 0) {
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", b->tmp_path, b->path,
			       strerror(errno));
	}
	if (close(b->fd) != 0 && rc == 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: close failed: %s", b->path, strerror(errno));
	if (rc)
		unlink(b->tmp_path);
	release(f);
	return rc;
}

int write_file_atomic(const char *path, const char *text, size_t len, struct weft_err *e)
{
	char *tmp = tmp_name(path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		int er = errno;
		free(tmp);
		return weft_fail(e, WEFT_EINTERNAL, "%s: cannot create: %s", path, strerror(er));
	}
	struct outbuf o = {.buf = (char *) text, .len = len, .cap = len, .fd = fd};
	ob_drain(&o);
	int rc = 0;
	if (o.failed)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: write failed: %s", path, strerror(o.failed));
	if (close(fd) != 0 && rc == 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: close failed: %s", path, strerror(errno));
	if (rc == 0 && rename(tmp, path) != 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}
