/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prv_writer: sorted Paraver bodies, front/back halves (see header). Over
 * 700 lines because the back's formatting, patching of state ends and
 * communication records, windows and the pipe between the halves share the
 * one op stream and its inline fast paths: the hot path stays in one unit
 * the compiler can inline. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prv/prv_writer.h"
#include "util/gzpar.h"

#define END_WIDTH 20 /* digits of a patchable time */
#define OUTBUF_SIZE (1u << 18) /* 256 KiB writes: less kernel time per byte than 1 MiB here (see performance.md) */
#define OP_ROOM 200  /* bytes one op may append */
#define PIPE_FILES 8 /* thread.prv, cpu.prv and the breakdown traces */

struct prv_pipe {
	/* the producer's own fields, on their own cache line: the consumer
	 * must not share a line the producer writes on every op. First
	 * member: prv_file reaches it as a struct prv_pipe_w *. */
	struct prv_pipe_w w __attribute__((aligned(64)));
	struct prv_tclock clk __attribute__((aligned(64))); /* the writer thread's */
	pthread_t th __attribute__((aligned(64)));
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct prv_op *chunk[PRV_PIPE_CHUNKS];
	uint32_t len[PRV_PIPE_CHUNKS];
	int head, count;  /* filled chunks: [head, head + count) */
	int nchunks; /* its depth, up to PRV_PIPE_CHUNKS */
	int stop;
	struct prv_back *back[PIPE_FILES];
	int nfiles;
	void (*hook)(void *arg, const struct prv_op *op); /* prv_pipe_hook */
	void *hook_arg;
	void (*tap)(void *arg, const struct prv_op *ops, size_t n); /* prv_pipe_tap */
	void *tap_arg;
	/* prv_pipe_tap_cut: the tap that finds where runs end itself */
	size_t (*tap_cut)(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, int stop, uint64_t *at);
	int empty_zero; /* prv_files_new */
	int cut; /* prv_pipe_apply_cut: ops of a kind >= cut end a run (else 256: none) */
	struct prv_pipe *sub[PIPE_FILES]; /* prv_pipe_split: a writer thread a file */
	int alone; /* no thread could start: the producer applies its chunks */
};

/* ---- back ----------------------------------------------------------------- */

/* 20 digits, zero-padded (any uint64_t fits). */
static inline void pad20(char *dst, uint64_t v)
{
	if (v < 10000000000000000ull) { /* times below 115 days: the usual */
		memcpy(dst, "0000", 4);
		fmt_8(dst + 4, (uint32_t) (v / 100000000));
		fmt_8(dst + 12, (uint32_t) (v % 100000000));
		return;
	}
	uint64_t hi = v / 10000000000000000ull; /* at most 4 digits */
	uint64_t lo = v % 10000000000000000ull;
	memcpy(dst, ob_digit_pairs + 2 * (hi / 100), 2);
	memcpy(dst + 2, ob_digit_pairs + 2 * (hi % 100), 2);
	fmt_8(dst + 4, (uint32_t) (lo / 100000000));
	fmt_8(dst + 12, (uint32_t) (lo % 100000000));
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

/* The record writers below keep the output position in a local pointer
 * and store the buffer's length once: through a char pointer every byte
 * stored could alias the outbuf, so o->buf and o->len would be loaded
 * again after each one. */

/* "K:cpu:appl:task:thread:" of a row (K the record kind) at d, rebuilt
 * only when its cpu changed; returns the end. The usual head fits in 32
 * bytes: one copy of 32, then the kind. */
static inline char *put_head(char *d, char kind, struct prv_back_row *r)
{
	if (__builtin_expect(r->head_cpu != r->cpu, 0)) {
		r->head[1] = ':';
		uint32_t n = 2 + (uint32_t) fmt_u64(r->head + 2, r->cpu);
		r->head[n++] = ':';
		memcpy(r->head + n, r->prefix, r->prefix_len);
		n += r->prefix_len;
		r->head[n++] = ':';
		r->head_len = n;
		r->head_cpu = r->cpu;
	}
	memcpy(d, r->head, 32);
	if (__builtin_expect(r->head_len > 32, 0))
		memcpy(d + 32, r->head + 32, sizeof(r->head) - 32);
	d[0] = kind;
	return d + r->head_len;
}

static inline void close_line(struct prv_back *b)
{
	if (b->open_row != ~0u) {
		/* through locals: the byte store may alias buf and len */
		char *buf = b->ob.buf;
		size_t len = b->ob.len;
		buf[len] = '\n';
		b->ob.len = len + 1;
		b->open_row = ~0u;
	}
}

/* Values below 10000 (most event values, states, tags) from one table:
 * four digits zero-padded and their count without leading zeros (a value
 * is the last `len` digits, copied as 4 bytes). Made once, before the
 * first file opens. */
#define VAL_SMALL 10000
static char val_pad4[VAL_SMALL + 1][4]; /* one spare row: 4-byte reads past the last */
static uint8_t val_len[VAL_SMALL];
/* the same digits without the leading zeros, first, and their count: a
 * value is one 4-byte copy with no address arithmetic on its length */
static struct val_left {
	char d[4];
	uint32_t len;
} val_left[VAL_SMALL];
static pthread_once_t val_once = PTHREAD_ONCE_INIT;

static void val_init(void)
{
	for (uint32_t v = 0; v < VAL_SMALL; v++) {
		memcpy(val_pad4[v], ob_digit_pairs + 2 * (v / 100), 2);
		memcpy(val_pad4[v] + 2, ob_digit_pairs + 2 * (v % 100), 2);
		val_len[v] = (uint8_t) (v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4);
		memset(val_left[v].d, '0', 4);
		memcpy(val_left[v].d, val_pad4[v] + 4 - val_len[v], val_len[v]);
		val_left[v].len = val_len[v];
	}
}

static inline char *put_small(char *d, uint32_t v)
{
	const struct val_left *l = &val_left[v];
	memcpy(d, l->d, 4);
	return d + l->len;
}

/* ---- the clock's strings ------------------------------------------------ */

/* Digits of v without leading zeros (at least one). */
static inline uint32_t ndigits(uint64_t v)
{
	uint32_t n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Make the clock's digits spell `now`. Times grow by little: the digits
 * above the last eight rarely change, so they are kept and only the low
 * eight are formatted again; the padded and the plain string are the same
 * bytes. */
static inline void time_string(struct prv_tclock *c)
{
	if (c->tval == c->now)
		return;
	uint64_t hi = c->now / 100000000;
	uint32_t lo = (uint32_t) (c->now % 100000000);
	if (hi != c->hi) {
		/* hi < 2^64 / 10^8 < 10^12: twelve digits */
		uint32_t top = (uint32_t) (hi / 100000000);
		memcpy(c->digits, ob_digit_pairs + 2 * (top / 100), 2);
		memcpy(c->digits + 2, ob_digit_pairs + 2 * (top % 100), 2);
		fmt_8(c->digits + 4, (uint32_t) (hi % 100000000));
		memcpy(c->hdigits, c->digits, 12);
		c->hi = hi;
		c->hlen = hi ? ndigits(hi) : 0;
	}
	/* the low eight digits as two rows of the value table, one word (so
	 * put_time need not load bytes just stored in pieces: a load spanning
	 * several recent stores waits for them to reach the cache) */
	uint32_t lh = lo / 10000;
	char w[8];
	memcpy(w, val_pad4[lh], 4);
	memcpy(w + 4, val_pad4[lo % 10000], 4);
	memcpy(&c->lo8, w, 8);
	memcpy(c->digits + 12, &c->lo8, 8);
	c->tlen = c->hlen ? c->hlen + 8 : lh ? 4u + val_len[lh] : val_len[lo];
	/* the plain string of a time below 10^8 as one word, its leading
	 * zeros dropped: the first digit is the low byte (little endian) or
	 * the high one. Made once an instant, copied by every record. */
	if (!c->hlen) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		c->plain8 = c->lo8 << (8 * (8 - c->tlen));
#else
		c->plain8 = c->lo8 >> (8 * (8 - c->tlen));
#endif
	}
	c->tval = c->now;
}

static void tclock_init(struct prv_tclock *c)
{
	memset(c, 0, sizeof(*c));
	c->tval = ~0ull;
	c->hi = ~0ull;
}

/* The plain time string at d (24 bytes stored, tlen kept: callers have
 * OP_ROOM); returns the end. */
static inline char *put_time(char *d, struct prv_tclock *c)
{
	time_string(c);
	uint32_t n = c->tlen;
	if (__builtin_expect(c->hlen != 0, 0)) {
		memcpy(d, c->hdigits + 12 - c->hlen, 16);
		memcpy(d + c->hlen, &c->lo8, 8);
		return d + n;
	}
	memcpy(d, &c->plain8, 8);
	return d + n;
}

/* Overwrite the 20-digit field at `off` with the current time. */
static inline void patch_now(struct prv_back *b, uint64_t off)
{
	struct prv_tclock *c = b->clk;
	time_string(c);
	if (__builtin_expect(off >= b->ob.written, 1)) {
		memcpy(b->ob.buf + (off - b->ob.written), c->digits, END_WIDTH);
		return;
	}
	if (pwrite(b->fd, c->digits, END_WIDTH, (off_t) off) != END_WIDTH && !b->ob.failed)
		b->ob.failed = errno ? errno : EIO;
}

static __attribute__((noinline)) char *put_value_huge(char *d, int64_t v)
{
	return d + fmt_i64(d, v);
}

/* A value at d; returns the end. Below 10^8 (node ids too, as values
 * and tags) as one or two table rows. */
static inline __attribute__((always_inline)) char *put_value(char *d, int64_t v)
{
	if (__builtin_expect((uint64_t) v < VAL_SMALL, 1))
		return put_small(d, (uint32_t) v);
	if (__builtin_expect((uint64_t) v >= 100000000, 0))
		return put_value_huge(d, v);
	uint32_t a = (uint32_t) v / 10000, b = (uint32_t) v % 10000;
	d = put_small(d, a);
	memcpy(d, val_pad4[b], 4);
	return d + 4;
}

/* ---- communications ------------------------------------------------------- */

#define COMM_ID_W 10
#define COMM_RCV_IDS (4 * (COMM_ID_W + 1) - 1) /* "cpu:appl:task:thread", padded */
#define COMM_RECV_LEN (COMM_RCV_IDS + 2 * (END_WIDTH + 1))
#define COMM_ROOM 320
#define COMM_NONE UINT64_MAX
#define COMM_RECVD (UINT64_MAX - 1) /* received: psend may still be patched */

/* COMM_ID_W (10) digits, zero-padded (v < 10^10). */
static inline void pad10(char *dst, uint64_t v)
{
	memcpy(dst, ob_digit_pairs + 2 * (v / 100000000), 2);
	fmt_8(dst + 2, (uint32_t) (v % 100000000));
}

/* The receiver part of a communication record before it is known: four
 * 10-digit ids and two 20-digit times, all zeros. */
static const char comm_blank[] = ":0000000000:0000000000:0000000000:0000000000"
				 ":00000000000000000000:00000000000000000000";

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

/* "3:cpu:appl:task:thread:lsend:" with lsend the current time (lsend
 * given: `lsend` digits, else the clock's), then psend = lsend padded, the
 * blank receiver part, ":size:tag". */
static void comm_send(struct prv_back *b, const struct prv_op *op, int64_t size)
{
	struct outbuf *o = &b->ob;
	if (o->len + COMM_ROOM > o->cap)
		ob_drain(o);
	close_line(b);
	uint64_t id = b->next_comm++;
	comm_slot(b, id);
	char *base = o->buf, *d = base + o->len;
	b->comm_off[2 * id] = o->written + o->len;
	d = put_head(d, '3', &b->rows[op->row]);
	struct prv_tclock *c = b->clk;
	d = put_time(d, c);
	*d++ = ':';
	b->comm_off[2 * id + 1] = o->written + (uint64_t) (d - base);
	memcpy(d, c->digits, END_WIDTH);
	d += END_WIDTH;
	memcpy(d, comm_blank, sizeof(comm_blank) - 1);
	d += sizeof(comm_blank) - 1;
	*d++ = ':';
	d = put_value(d, size);
	*d++ = ':';
	d = put_value(d, op->value);
	*d++ = '\n';
	o->len = (size_t) (d - base);
	b->nrecords++;
	b->ncomms++;
	b->nopen++;
}

/* A send at a time other than the clock's: the clock spells lsend for the
 * record, then the time it had. */
static void comm_send_at(struct prv_back *b, const struct prv_op *op, uint64_t lsend, int64_t size)
{
	struct prv_tclock *c = b->clk;
	uint64_t now = c->now;
	c->now = lsend;
	comm_send(b, op, size);
	c->now = now;
}

static int comm_open(const struct prv_back *b, uint64_t id)
{
	return id < b->ncomm_off && b->comm_off[2 * id] != COMM_NONE && b->comm_off[2 * id] != COMM_RECVD;
}

static int comm_patchable(const struct prv_back *b, uint64_t id)
{
	return id < b->ncomm_off && b->comm_off[2 * id + 1] != COMM_NONE;
}

/* The receiver ids of a row, for its current cpu. */
static inline const char *rcv_ids(struct prv_back_row *r)
{
	if (r->rcv_cpu != r->cpu) {
		pad10(r->rcv, r->cpu);
		for (int k = 0; k < 3; k++) {
			r->rcv[(k + 1) * (COMM_ID_W + 1) - 1] = ':';
			pad10(r->rcv + (k + 1) * (COMM_ID_W + 1), r->id[k]);
		}
		r->rcv_cpu = r->cpu;
	}
	return r->rcv;
}

/* Fill the receiver part of comm `id`: `row`'s ids, then the 20-digit
 * lrecv and precv. Written in place when the record is still buffered. */
static void comm_fill(struct prv_back *b, uint64_t id, uint32_t row, const char *lrecv,
		      const char *precv)
{
	const char *ids = rcv_ids(&b->rows[row]);
	uint64_t off = b->comm_off[2 * id + 1] + END_WIDTH + 1;
	char tmp[COMM_RECV_LEN];
	int direct = off >= b->ob.written;
	char *d = direct ? b->ob.buf + (off - b->ob.written) : tmp;
	memcpy(d, ids, COMM_RCV_IDS);
	d[COMM_RCV_IDS] = ':';
	memcpy(d + COMM_RCV_IDS + 1, lrecv, END_WIDTH);
	d[COMM_RCV_IDS + 1 + END_WIDTH] = ':';
	memcpy(d + COMM_RCV_IDS + 2 + END_WIDTH, precv, END_WIDTH);
	if (!direct)
		patch_bytes(b, off, tmp, sizeof(tmp));
	b->comm_off[2 * id] = COMM_RECVD;
	b->nopen--;
}

/* Received at the current time (lrecv = precv = now). */
static void comm_recv(struct prv_back *b, const struct prv_op *op)
{
	uint64_t id = (uint64_t) op->value;
	if (!comm_open(b, id))
		return;
	struct prv_tclock *c = b->clk;
	time_string(c);
	comm_fill(b, id, op->row, c->digits, c->digits);
}

static void comm_recv_at(struct prv_back *b, const struct prv_op *op, uint64_t lrecv, uint64_t precv)
{
	uint64_t id = (uint64_t) op->value;
	if (!comm_open(b, id))
		return;
	char l[END_WIDTH], p[END_WIDTH];
	pad20(l, lrecv);
	pad20(p, precv);
	comm_fill(b, id, op->row, l, p);
}

static void comm_drop(struct prv_back *b, uint64_t id)
{
	if (!comm_open(b, id))
		return;
	uint64_t off = b->comm_off[2 * id];
	if (off >= b->ob.written)
		b->ob.buf[off - b->ob.written] = '#';
	else
		patch_bytes(b, off, "#", 1);
	b->comm_off[2 * id] = b->comm_off[2 * id + 1] = COMM_NONE;
	b->ndropped++;
	b->nopen--;
}

/* "2:cpu:appl:task:thread:time" opening the event line of op->row, then
 * ":type:value" (the common op: kept small so the pipe loop inlines it).
 * PRV_OP_EVENT values equal to the last one written are dropped. The text
 * goes through a local cursor: with o->len in memory, every byte stored
 * would make the compiler load it again. */
static inline __attribute__((always_inline)) void put_event(struct prv_back *b, const struct prv_op *op)
{
	uint32_t row = op->row, slot = op->slot;
	int64_t v = op->value;
	int64_t *last = &b->last[(size_t) row * (size_t) b->nslots + slot];
	/* one branch, not two: EVENT and PUNCT ops come mixed */
	if ((op->kind == PRV_OP_EVENT) & (*last == v))
		return;
	*last = v;
	/* a slot's range rarely widens: two predicted branches cost less
	 * than two conditional stores */
	struct prv_range *rg = &b->range[slot];
	if (__builtin_expect(v < rg->min, 0))
		rg->min = v;
	if (__builtin_expect(v > rg->max, 0))
		rg->max = v;
	struct outbuf *o = &b->ob;
	if (__builtin_expect(o->len + OP_ROOM > o->cap, 0))
		ob_drain(o);
	/* one value of a type a record: a slot already on the open line
	 * starts another line */
	uint64_t *on = &b->slot_line[slot];
	if (__builtin_expect(row == b->open_row && *on == b->nrecords, 0))
		close_line(b);
	char *base = o->buf, *d = base + o->len;
	if (row != b->open_row) {
		if (b->open_row != ~0u)
			*d++ = '\n';
		d = put_head(d, '2', &b->rows[row]);
		d = put_time(d, b->clk);
		b->open_row = row;
		b->nrecords++;
	}
	*on = b->nrecords;
	memcpy(d, b->slot_str[slot], sizeof(b->slot_str[slot]));
	d += b->slot_len[slot];
	d = put_value(d, v);
	o->len = (size_t) (d - base);
}

/* The row's open record lies in an earlier part: its end is now. */
static __attribute__((noinline)) void note_carry(struct prv_back *b, uint32_t row)
{
	if (b->ncarry == b->capcarry) {
		b->capcarry = b->capcarry ? 2 * b->capcarry : 256;
		b->carry = weft_xrealloc(b->carry, b->capcarry * sizeof(*b->carry));
	}
	b->carry[b->ncarry++] = (struct prv_carry){row, b->clk->now};
}

/* A state op: close the row's open state record (patch its end) and open
 * a new one with a placeholder end; state 0 opens none. */
static inline __attribute__((always_inline)) void put_state(struct prv_back *b, const struct prv_op *op)
{
	struct outbuf *o = &b->ob;
	if (__builtin_expect(o->len + OP_ROOM > o->cap, 0))
		ob_drain(o);
	close_line(b);
	struct prv_back_row *r = &b->rows[op->row];
	if (r->state && __builtin_expect(r->state_end_off == PRV_CARRIED, 0))
		note_carry(b, op->row);
	else if (r->state)
		patch_now(b, r->state_end_off);
	uint32_t state = (uint32_t) op->value;
	r->state = state;
	if (!state)
		return;
	if (state < 256)
		b->state_seen[state >> 6] |= 1ull << (state & 63);
	b->state_max = state > b->state_max ? state : b->state_max;
	char *base = o->buf, *d = base + o->len;
	d = put_head(d, '1', r);
	d = put_time(d, b->clk);
	*d++ = ':';
	r->state_end_off = o->written + (uint64_t) (d - base);
	/* a placeholder: the end is patched when the state closes (or at
	 * prv_close) */
	memcpy(d, comm_blank + 45, END_WIDTH);
	d += END_WIDTH;
	*d++ = ':';
	d = put_value(d, state);
	*d++ = '\n';
	o->len = (size_t) (d - base);
	b->nrecords++;
}

static void back_apply(struct prv_back *b, const struct prv_op *op)
{
	struct outbuf *o = &b->ob;
	if (o->len + OP_ROOM > o->cap)
		ob_drain(o); /* an open line may be split across writes: bytes are bytes */
	switch (op->kind) {
	case PRV_OP_TIME:
		close_line(b);
		b->clk->now = (uint64_t) op->value;
		break;
	case PRV_OP_CPU:
		b->rows[op->row].cpu = (uint32_t) op->value;
		break;
	case PRV_OP_STATE:
		put_state(b, op);
		break;
	case PRV_OP_EVENT:
	case PRV_OP_PUNCT:
		put_event(b, op);
		break;
	case PRV_OP_ARG:
		b->arg[b->narg++ & 3] = op->value;
		break;
	case PRV_OP_COMM_SEND:
		comm_send(b, op, 0);
		break;
	case PRV_OP_COMM_SEND_ARGS:
		comm_send_at(b, op, (uint64_t) b->arg[0], b->arg[1]);
		b->narg = 0;
		break;
	case PRV_OP_COMM_PSEND:
		if (comm_patchable(b, (uint64_t) op->value))
			patch20(b, b->comm_off[2 * (uint64_t) op->value + 1], (uint64_t) b->arg[0]);
		b->narg = 0;
		break;
	case PRV_OP_COMM_RECV:
		comm_recv(b, op);
		break;
	case PRV_OP_COMM_RECV_ARGS:
		comm_recv_at(b, op, (uint64_t) b->arg[0], (uint64_t) b->arg[1]);
		b->narg = 0;
		break;
	case PRV_OP_COMM_DROP:
		comm_drop(b, (uint64_t) op->value);
		break;
	}
}

/* ---- pipe ----------------------------------------------------------------- */

/* Apply ops to the pipe's files (the writer thread's work) up to the first
 * TIME op at or past `bound`; returns how many were applied, *at the last
 * TIME op's time applied. */
/* An op into sub-pipe s as its file 0 (prv_pipe_split). */
static inline void sub_put(struct prv_pipe *s, const struct prv_op *op)
{
	struct prv_op *o = s->w.wp;
	*o = *op;
	o->file = 0;
	s->w.wp = o + 1;
	if (__builtin_expect(o + 1 == s->w.wend, 0))
		prv_pipe_publish(s);
}

/* apply_until of a split pipe: TIME ops to every file's thread, the rest to
 * their file's, the hook's (communications) in this thread. */
static size_t route_until(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	size_t i = 0;
	for (; i < n; i++) {
		const struct prv_op *op = &ops[i];
		if (op->kind == PRV_OP_TIME) {
			if ((uint64_t) op->value >= bound)
				break;
			*at = (uint64_t) op->value;
			for (int k = 0; k < p->nfiles; k++)
				sub_put(p->sub[k], op);
		} else if (op->kind >= p->cut) {
			break;
		} else if (op->kind >= PRV_OP_ARG && p->hook) {
			p->hook(p->hook_arg, op);
		} else {
			sub_put(p->sub[op->file], op);
		}
	}
	return i;
}

static size_t apply_run(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at);

/* apply_until with a tap: each run of ops the files get is shown to the
 * tap first; the hook's ops are not (what the hook puts is, by
 * prv_pipe_put_op). */
static __attribute__((noinline)) size_t apply_tapped(struct prv_pipe *p, const struct prv_op *ops, size_t n,
						     uint64_t bound, uint64_t *at)
{
	/* a pipe with no file of its own (the emulator's stream) only finds
	 * where its runs end, in this one pass */
	int files = p->nfiles > 0 || p->sub[0];
	uint8_t hooked = p->hook ? PRV_OP_ARG : UINT8_MAX;
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		uint64_t t = *at;
		for (; j < n; j++) {
			uint8_t k = ops[j].kind;
			if (k == PRV_OP_TIME) {
				if ((uint64_t) ops[j].value >= bound)
					break;
				t = (uint64_t) ops[j].value;
			} else if (k >= hooked)
				break;
		}
		if (j > i) {
			p->tap(p->tap_arg, ops + i, j - i);
			if (files)
				apply_run(p, ops + i, j - i, bound, at);
			*at = t;
		}
		if (j == n || ops[j].kind == PRV_OP_TIME)
			return j;
		p->hook(p->hook_arg, &ops[j]);
		i = j + 1;
	}
	return i;
}

/* A pipe whose ops go to its tap alone (the emulator's stream: its sinks
 * keep their files), with no hook: one run up to the bound. */
static size_t tap_only(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	size_t i = n;
	if (bound != UINT64_MAX)
		for (i = 0; i < n && !(ops[i].kind == PRV_OP_TIME && (uint64_t) ops[i].value >= bound); i++)
			;
	for (size_t k = i; k-- > 0;) /* the last TIME op of the run */
		if (ops[k].kind == PRV_OP_TIME) {
			*at = (uint64_t) ops[k].value;
			break;
		}
	if (i)
		p->tap(p->tap_arg, ops, i);
	return i;
}

static inline size_t apply_cut_tapped(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound,
				      uint64_t *at);

static size_t apply_until(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	if (p->tap_cut)
		return apply_cut_tapped(p, ops, n, bound, at);
	if (__builtin_expect(p->tap != NULL, 0)) {
		if (p->nfiles == 0 && !p->hook)
			return tap_only(p, ops, n, bound, at);
		return apply_tapped(p, ops, n, bound, at);
	}
	return apply_run(p, ops, n, bound, at);
}

/* A pipe with no file of its own (the stream's sinks have none: no
 * Paraver output): its ops go to the tap alone, up to the bound. */
static __attribute__((noinline)) size_t skip_run(const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	size_t i = 0;
	for (; i < n; i++)
		if (ops[i].kind == PRV_OP_TIME) {
			if ((uint64_t) ops[i].value >= bound)
				break;
			*at = (uint64_t) ops[i].value;
		}
	return i;
}

static size_t apply_run(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	if (p->sub[0])
		return route_until(p, ops, n, bound, at);
	if (__builtin_expect(p->nfiles == 0, 0))
		return skip_run(ops, n, bound, at);
	struct prv_back *back[PIPE_FILES];
	memcpy(back, p->back, sizeof(back));
	int nb = p->nfiles;
	size_t i = 0;
	for (; i < n; i++) {
		const struct prv_op *op = &ops[i];
		if (op->kind == PRV_OP_EVENT || op->kind == PRV_OP_PUNCT) {
			put_event(back[op->file], op);
		} else if (op->kind == PRV_OP_STATE) {
			put_state(back[op->file], op);
		} else if (op->kind == PRV_OP_TIME) {
			if ((uint64_t) op->value >= bound)
				break;
			*at = (uint64_t) op->value;
			/* one TIME op moves every file of the pipe; its digits
			 * made now (nearly every instant writes a record), so
			 * put_time's test of them is always taken */
			p->clk.now = (uint64_t) op->value;
			time_string(&p->clk);
			for (int k = 0; k < nb; k++)
				close_line(back[k]);
		} else if (op->kind >= p->cut) {
			break;
		} else if (op->kind == PRV_OP_CPU || !p->hook) {
			back_apply(back[op->file], op);
		} else {
			p->hook(p->hook_arg, op);
		}
	}
	return i;
}

size_t prv_pipe_apply_cut(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, int stop,
			  uint64_t *at)
{
	p->cut = stop;
	size_t k = apply_run(p, ops, n, bound, at);
	p->cut = 256;
	return k;
}

/* apply_until with a cutting tap: it takes the runs, the hook the ops
 * between them. */
static inline size_t apply_cut_tapped(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound,
				      uint64_t *at)
{
	int stop = p->hook ? PRV_OP_ARG : 256;
	size_t i = p->tap_cut(p->tap_arg, ops, n, bound, stop, at);
	while (i < n && ops[i].kind != PRV_OP_TIME) {
		p->hook(p->hook_arg, &ops[i]);
		i++;
		i += p->tap_cut(p->tap_arg, ops + i, n - i, bound, stop, at);
	}
	return i;
}

void prv_pipe_tap_cut(struct prv_pipe *p,
		      size_t (*cut)(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, int stop,
				    uint64_t *at),
		      void *arg)
{
	p->tap_cut = cut;
	p->tap_arg = arg;
}

void prv_pipe_hook(struct prv_pipe *p, void (*hook)(void *arg, const struct prv_op *op), void *arg)
{
	p->hook = hook;
	p->hook_arg = arg;
}

void prv_pipe_tap(struct prv_pipe *p, void (*tap)(void *arg, const struct prv_op *ops, size_t n), void *arg)
{
	p->tap = tap;
	p->tap_arg = arg;
}

void prv_pipe_put_op(struct prv_pipe *p, const struct prv_op *op)
{
	uint64_t at;
	if (p->tap_cut)
		p->tap_cut(p->tap_arg, op, 1, UINT64_MAX, 256, &at);
	if (p->tap)
		p->tap(p->tap_arg, op, 1);
	if (p->sub[0])
		sub_put(p->sub[op->file], op);
	else if (op->file < p->nfiles)
		back_apply(p->back[op->file], op);
}

int prv_pipe_split(struct prv_pipe *p)
{
	for (int k = 0; k < p->nfiles; k++) {
		struct prv_pipe *s = prv_pipe_start();
		if (!s || s->alone) {
			prv_ring_free(s);
			prv_pipe_unsplit(p);
			return -1;
		}
		/* the thread touches its back only once ops come (the lock orders it) */
		s->clk = p->clk;
		s->back[0] = p->back[k];
		s->nfiles = 1;
		p->back[k]->clk = &s->clk;
		p->sub[k] = s;
	}
	return 0;
}

void prv_pipe_unsplit(struct prv_pipe *p)
{
	for (int k = 0; k < p->nfiles && p->sub[k]; k++) {
		struct prv_pipe *s = p->sub[k];
		prv_ring_end(s);
		pthread_join(s->th, NULL);
		p->clk = s->clk; /* every file's thread saw every TIME op */
		p->back[k]->clk = &p->clk;
		prv_ring_free(s);
		p->sub[k] = NULL;
	}
}

static void apply_ops(struct prv_pipe *p, const struct prv_op *ops, uint32_t n)
{
	uint64_t at;
	apply_until(p, ops, n, UINT64_MAX, &at);
}

size_t prv_pipe_apply_until(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound,
			    uint64_t *at)
{
	return apply_until(p, ops, n, bound, at);
}

void prv_pipe_drain(struct prv_pipe *p)
{
	if (p->w.wp != p->w.cur)
		prv_pipe_publish(p);
	pthread_mutex_lock(&p->mu);
	while (p->count)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

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
		pthread_mutex_unlock(&p->mu);
		apply_ops(p, ops, n);
		pthread_mutex_lock(&p->mu);
		p->head = (p->head + 1) % p->nchunks;
		p->count--;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct prv_pipe *prv_pipe_start(void)
{
	struct prv_pipe *p = prv_ring_new();
	if (!p)
		return NULL;
	p->w.sent_time = ~0ull;
	/* no thread (a process or memory limit): the same pipe, its chunks
	 * applied as they fill, so no caller meets a missing one */
	if (pthread_create(&p->th, NULL, pipe_main, p) != 0)
		p->alone = 1;
	return p;
}

void prv_pipe_publish(struct prv_pipe *p)
{
	if (p->alone) {
		apply_ops(p, p->w.cur, (uint32_t) (p->w.wp - p->w.cur));
		p->w.wp = p->w.cur;
		p->w.time_end = NULL;
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->len[p->w.prod] = (uint32_t) (p->w.wp - p->w.cur);
	p->count++;
	pthread_cond_broadcast(&p->cv);
	while (p->count == p->nchunks)
		pthread_cond_wait(&p->cv, &p->mu);
	p->w.prod = (p->head + p->count) % p->nchunks;
	p->w.cur = p->w.wp = p->chunk[p->w.prod];
	p->w.wend = p->w.cur + PRV_PIPE_OPS;
	pthread_mutex_unlock(&p->mu);
	p->w.time_end = NULL; /* the last TIME op went with the chunk */
}

void prv_pipe_finish(struct prv_pipe *p)
{
	if (!p)
		return;
	prv_ring_end(p); /* what is queued, then the thread's end */
	if (!p->alone)
		pthread_join(p->th, NULL);
	/* the backs go on alone (prv_close): each takes the clock with it */
	for (int k = 0; k < p->nfiles; k++) {
		p->back[k]->own = p->clk;
		p->back[k]->clk = &p->back[k]->own;
	}
	prv_ring_free(p);
}

/* ---- parts ------------------------------------------------------------------ */

static void release(struct prv_file *f);

size_t prv_pipe_skip_until(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	size_t i = 0;
	for (; i < n; i++) {
		const struct prv_op *op = &ops[i];
		struct prv_back *b = p->back[op->file];
		switch (op->kind) {
		case PRV_OP_TIME:
			if ((uint64_t) op->value >= bound)
				return i;
			*at = (uint64_t) op->value;
			p->clk.now = (uint64_t) op->value;
			break;
		case PRV_OP_EVENT:
		case PRV_OP_PUNCT:
			b->last[(size_t) op->row * (size_t) b->nslots + op->slot] = op->value;
			break;
		case PRV_OP_STATE:
			b->rows[op->row].state = (uint32_t) op->value;
			b->rows[op->row].state_end_off = op->value ? PRV_CARRIED : 0;
			break;
		case PRV_OP_CPU:
			b->rows[op->row].cpu = (uint32_t) op->value;
			break;
		}
	}
	return i;
}

int prv_part_close(struct prv_file *f, struct prv_part_info *info, struct weft_err *e)
{
	struct prv_back *b = &f->back;
	memset(info, 0, sizeof(*info));
	close_line(b);
	int rc = ob_flush(&b->ob, e, b->path);
	info->bytes = b->ob.written;
	info->nrecords = b->nrecords;
	memcpy(info->state_seen, b->state_seen, sizeof(info->state_seen));
	info->state_max = b->state_max;
	info->nslots = b->nslots;
	info->range = weft_xcalloc((size_t) b->nslots + 1, sizeof(*info->range));
	memcpy(info->range, b->range, (size_t) b->nslots * sizeof(*info->range));
	info->open = weft_xcalloc((size_t) b->nrows + 1, sizeof(*info->open));
	for (int r = 0; r < b->nrows; r++)
		if (b->rows[r].state && b->rows[r].state_end_off != PRV_CARRIED)
			info->open[info->nopen++] = (struct prv_open_rec){(uint32_t) r, b->rows[r].state_end_off};
	info->ncarry = b->ncarry;
	info->carry = b->carry;
	b->carry = NULL;
	if (close(b->fd) != 0 && rc == 0)
		rc = weft_out_fail(e, errno, "%s: cannot write", b->path);
	b->fd = -1;
	if (rename(b->tmp_path, b->path) != 0 && rc == 0)
		rc = weft_out_fail(e, errno, "%s: cannot rename", b->path);
	release(f);
	return rc;
}

void prv_part_info_free(struct prv_part_info *info)
{
	free(info->range);
	free(info->open);
	free(info->carry);
	memset(info, 0, sizeof(*info));
}

static int append_file(struct prv_back *b, const char *path, struct weft_err *e)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return weft_out_fail(e, errno, "%s: cannot read a part", path);
	/* the kernel copies (no trip through this process; a reflink where the
	 * filesystem shares extents); where it cannot, read and write */
	ssize_t r;
	while ((r = copy_file_range(in, NULL, b->fd, NULL, 1u << 30, 0)) > 0)
		b->ob.written += (uint64_t) r;
	if (r == 0) {
		close(in);
		return 0;
	}
	if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) {
		int er = errno;
		close(in);
		return weft_out_fail(e, er, "%s: cannot append a part of %s", b->path, path);
	}
	char *buf = weft_xmalloc(1u << 20);
	int rc = 0;
	while (rc == 0 && (r = read(in, buf, 1u << 20)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = weft_out_fail(e, errno, "%s: cannot read a part", path);
			break;
		}
		for (ssize_t done = 0; done < r && rc == 0;) {
			ssize_t w = write(b->fd, buf + done, (size_t) (r - done));
			if (w <= 0)
				rc = weft_out_fail(e, errno, "%s: cannot write", b->path);
			else
				done += w;
		}
		b->ob.written += (uint64_t) r;
	}
	free(buf);
	close(in);
	return rc;
}

int prv_join(struct prv_file *f, const char *const *paths, const struct prv_part_info *infos, int n, uint64_t ftime,
	     struct weft_err *e)
{
	struct prv_back *b = &f->back;
	close_line(b);
	ob_drain(&b->ob);
	uint64_t *base = weft_xcalloc((size_t) n + 1, sizeof(*base));
	int rc = 0;
	for (int k = 0; k < n && rc == 0; k++) {
		base[k] = b->ob.written;
		rc = append_file(b, paths[k], e);
		b->nrecords += infos[k].nrecords;
		for (int w = 0; w < 4; w++)
			b->state_seen[w] |= infos[k].state_seen[w];
		b->state_max = infos[k].state_max > b->state_max ? infos[k].state_max : b->state_max;
		for (int s = 0; s < b->nslots && s < infos[k].nslots; s++) {
			b->range[s].min =
				infos[k].range[s].min < b->range[s].min ? infos[k].range[s].min : b->range[s].min;
			b->range[s].max =
				infos[k].range[s].max > b->range[s].max ? infos[k].range[s].max : b->range[s].max;
		}
	}
	/* from the last part back: when each row next closes a carried
	 * record after part k (a row has at most one carry a part) */
	uint64_t *next = weft_xmalloc(((size_t) b->nrows + 1) * sizeof(*next));
	for (int r = 0; r < b->nrows; r++)
		next[r] = ftime;
	for (int k = n - 1; k >= 0 && rc == 0; k--) {
		for (size_t i = 0; i < infos[k].nopen; i++)
			patch20(b, base[k] + infos[k].open[i].off, next[infos[k].open[i].row]);
		for (size_t i = 0; i < infos[k].ncarry; i++)
			next[infos[k].carry[i].row] = infos[k].carry[i].time;
	}
	free(next);
	free(base);
	return rc;
}

/* ---- rings: a pipe with no thread (emu -j: a worker's ops, merged) ------ */

struct prv_pipe *prv_ring_new(void)
{
	return prv_ring_new_depth(PRV_PIPE_CHUNKS);
}

struct prv_pipe *prv_ring_new_depth(int depth)
{
	/* cache-line aligned, so the producer's line is its own */
	struct prv_pipe *p;
	if (posix_memalign((void **) &p, 64, sizeof(*p)) != 0)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->nchunks = depth < 2 ? 2 : depth > PRV_PIPE_CHUNKS ? PRV_PIPE_CHUNKS : depth;
	for (int i = 0; i < p->nchunks; i++)
		p->chunk[i] = weft_xmalloc(PRV_PIPE_OPS * sizeof(struct prv_op));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->w.cur = p->w.wp = p->chunk[0];
	p->w.wend = p->chunk[0] + PRV_PIPE_OPS;
	p->w.sent_time = 0; /* a front starts at time 0: its first ops need no TIME op */
	p->cut = 256;
	tclock_init(&p->clk);
	return p;
}

void prv_ring_end(struct prv_pipe *p)
{
	if (p->w.wp != p->w.cur)
		prv_pipe_publish(p);
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

const struct prv_op *prv_ring_take(struct prv_pipe *p, uint32_t *n)
{
	pthread_mutex_lock(&p->mu);
	while (p->count == 0 && !p->stop)
		pthread_cond_wait(&p->cv, &p->mu);
	const struct prv_op *ops = NULL;
	*n = 0;
	if (p->count) {
		ops = p->chunk[p->head];
		*n = p->len[p->head];
	}
	pthread_mutex_unlock(&p->mu);
	return ops;
}

void prv_ring_give(struct prv_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->head = (p->head + 1) % p->nchunks;
	p->count--;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

void prv_ring_free(struct prv_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	for (int i = 0; i < p->nchunks; i++)
		free(p->chunk[i]);
	free(p);
}

struct prv_pipe *prv_files_new(int empty_zero)
{
	struct prv_pipe *p = prv_ring_new_depth(2); /* its chunks hold no op: the caller applies them */
	if (p)
		p->empty_zero = empty_zero;
	return p;
}

void prv_files_free(struct prv_pipe *p)
{
	if (!p)
		return;
	prv_pipe_unsplit(p);
	/* the backs still open go on alone (prv_finish, prv_abort) */
	for (int k = 0; k < p->nfiles; k++) {
		p->back[k]->own = p->clk;
		p->back[k]->clk = &p->back[k]->own;
	}
	prv_ring_free(p);
}

void prv_front_init(struct prv_file *f, struct prv_pipe *ring, int id, int nrows, int nslots)
{
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->pipe = ring;
	f->pw = &ring->w;
	f->nrows = nrows;
	f->nslots = nslots;
	f->rows = weft_xcalloc((size_t) f->nrows + 1, sizeof(*f->rows));
	f->sdirty = weft_xcalloc((size_t) f->nrows + 1, sizeof(*f->sdirty));
	f->flast = weft_xcalloc((size_t) nrows * (size_t) nslots + 1, sizeof(*f->flast)); /* 0, as the back's */
	f->sent_time = ~0ull;
}

void prv_front_open(struct prv_file *f, struct prv_pipe *pipe, int id, int nrows, int nslots)
{
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->pipe = pipe;
	f->pw = &pipe->w;
	f->nrows = nrows;
	f->nslots = nslots;
	f->rows = weft_xcalloc((size_t) f->nrows + 1, sizeof(*f->rows));
	f->sdirty = weft_xcalloc((size_t) f->nrows + 1, sizeof(*f->sdirty));
	f->sent_time = ~0ull;
}

void prv_front_forget(struct prv_file *f)
{
	for (uint32_t k = 0; k < f->nsdirty; k++) {
		struct prv_front_row *r = &f->rows[f->sdirty[k]];
		r->state_dirty = 0;
		r->pend_state = r->state;
	}
	f->nsdirty = 0;
	if (f->pw)
		f->pw->dirty = 0;
}

void prv_slot_fresh(struct prv_file *f, int slot)
{
	if (slot < 0 || slot >= f->nslots)
		return;
	/* a front's last value PRV_NEVER (INT64_MIN) is "unknown": the back,
	 * the merger's, compares with its own, which is never written too */
	int64_t *last = f->flast ? f->flast : f->back.last;
	if (!last)
		return; /* a front of the stream alone (prv_front_open): the sinks know */
	for (int r = 0; r < f->nrows; r++)
		last[(size_t) r * (size_t) f->nslots + (size_t) slot] = PRV_NEVER;
	if (f->flast)
		f->unknown = 1;
}

void prv_front_free(struct prv_file *f)
{
	free(f->rows);
	free(f->sdirty);
	free(f->flast);
	memset(f, 0, sizeof(*f));
}

/* ---- front ---------------------------------------------------------------- */

void prv_emit_inline(struct prv_file *f, int timed, uint8_t kind, uint32_t row, uint32_t slot,
		     int64_t value)
{
	if (timed && f->sent_time != f->now) {
		f->sent_time = f->now;
		back_apply(&f->back, &(struct prv_op){PRV_OP_TIME, 0, 0, 0, (int64_t) f->now});
	}
	struct prv_op op = {kind, (uint8_t) f->id, (uint16_t) slot, row, value};
	back_apply(&f->back, &op);
}

void prv_flush_pair(struct prv_file *a, struct prv_file *b)
{
	if (a->nsdirty)
		prv_flush_now(a);
	if (b->nsdirty)
		prv_flush_now(b);
	a->pw->dirty = 0;
}

void prv_time2_slow(struct prv_file *a, struct prv_file *b, uint64_t t)
{
	struct prv_file *f[2] = {a, b};
	int n = b ? 2 : 1;
	for (int k = 0; k < n; k++) {
		if (f[k]->nsdirty)
			prv_flush_now(f[k]);
		f[k]->now = t;
	}
	for (int k = 0; k < n; k++)
		if (f[k]->pw) {
			f[k]->pw->dirty = 0; /* every file of a pipe moves in this call */
			if (f[k]->pw->sent_time != t)
				prv_pipe_time(f[k], t);
		}
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
		prv_emit_op(f, 1, PRV_OP_STATE, row, 0, r->state);
	}
	f->nsdirty = 0;
}

/* The rest of prv_comm_send and prv_comm_recv: other times and sizes
 * carry ARG ops (see PRV_OP_COMM_SEND). */
void prv_comm_send_args(struct prv_file *f, int row, uint64_t lsend, int64_t size, int64_t tag)
{
	prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, (int64_t) lsend);
	prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, size);
	prv_emit_op(f, 0, PRV_OP_COMM_SEND_ARGS, (uint32_t) row, 0, tag);
}

void prv_comm_psend(struct prv_file *f, uint64_t id, uint64_t psend)
{
	prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, (int64_t) psend);
	prv_emit_op(f, 0, PRV_OP_COMM_PSEND, 0, 0, (int64_t) id);
}

void prv_comm_recv_args(struct prv_file *f, uint64_t id, int row, uint64_t lrecv, uint64_t precv)
{
	prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, (int64_t) lrecv);
	prv_emit_op(f, 0, PRV_OP_ARG, 0, 0, (int64_t) precv);
	prv_emit_op(f, 0, PRV_OP_COMM_RECV_ARGS, (uint32_t) row, 0, (int64_t) id);
}

static char *tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash)
		return weft_xasprintf("%.*s/.%s.weft-tmp-%ld", (int) (slash - path), path, slash + 1,
				      (long) getpid());
	return weft_xasprintf(".%s.weft-tmp-%ld", path, (long) getpid());
}

int prv_part_open(struct prv_file *f, struct prv_pipe *pipe, const char *path, int nrows, const uint32_t (*ids)[3],
		  int nslots, const int32_t *slot_type, struct weft_err *e)
{
	return prv_open(f, pipe, path, NULL, NULL, NULL, nrows, ids, nslots, slot_type, 0, e);
}

int prv_open(struct prv_file *f, struct prv_pipe *pipe, const char *path, const char *tmp, const char *date,
	     const char *rest, int nrows, const uint32_t (*ids)[3], int nslots, const int32_t *slot_type, int gzip,
	     struct weft_err *e)
{
	memset(f, 0, sizeof(*f));
	pthread_once(&val_once, val_init);
	struct prv_back *b = &f->back;
	b->path = weft_xstrdup(path);
	b->tmp_path = tmp ? weft_xstrdup(tmp) : tmp_name(path);
	b->gz_path = tmp && gzip ? weft_xasprintf("%s.gz", tmp) : NULL;
	b->gzip = gzip;
	b->fd = open(b->tmp_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (b->fd < 0) {
		int er = errno;
		weft_out_fail(e, er, "%s%s: cannot create", b->path, gzip ? ".gz" : "");
		free(b->path);
		free(b->tmp_path);
		free(b->gz_path);
		return -1;
	}
	if (pipe) {
		b->empty_zero = pipe->empty_zero;
		if (pipe->nfiles == PIPE_FILES)
			pipe = NULL;
		else {
			f->id = pipe->nfiles;
			pipe->back[pipe->nfiles++] = b;
		}
	}
	f->pipe = pipe;
	f->pw = pipe ? &pipe->w : NULL;
	tclock_init(&b->own);
	b->clk = pipe ? &pipe->clk : &b->own;
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
		b->rows[r].rcv_cpu = ~0u;
	}
	b->slot_str = weft_xcalloc((size_t) nslots + 1, sizeof(*b->slot_str));
	b->slot_len = weft_xcalloc((size_t) nslots + 1, 1);
	for (int s = 0; s < nslots; s++)
		b->slot_len[s] = (uint8_t) snprintf(b->slot_str[s], sizeof(b->slot_str[s]), ":%d:",
						    (int) slot_type[s]);
	b->open_row = ~0u;
	b->last = weft_xcalloc((size_t) nrows * (size_t) nslots + 1, sizeof(*b->last));
	b->slot_line = weft_xcalloc((size_t) nslots + 1, sizeof(*b->slot_line));
	b->range = weft_xcalloc((size_t) nslots + 1, sizeof(*b->range));
	for (int s = 0; s <= nslots; s++)
		b->range[s] = (struct prv_range){INT64_MAX, INT64_MIN};
	f->sdirty = weft_xcalloc((size_t) nrows, sizeof(*f->sdirty));
	f->sent_time = ~0ull;
	f->open = 1;
	if (!date)
		return 0; /* a part (prv_part_open): no header, no TIME op */
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
	/* ops of a pipe file follow a TIME op for f->now (prv_time2) */
	if (f->pw && f->pw->sent_time != f->now)
		prv_pipe_time(f, f->now);
	return 0;
}

static void release(struct prv_file *f)
{
	struct prv_back *b = &f->back;
	free(b->carry);
	ob_free(&b->ob);
	free(b->rows);
	free(b->slot_str);
	free(b->slot_len);
	free(b->comm_off);
	free(b->path);
	free(b->tmp_path);
	free(b->gz_path);
	free(f->rows);
	free(b->last);
	free(b->slot_line);
	free(b->range);
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

/* Compress the finished temporary into a new file at gztmp, in gzip
 * members compressed by several threads (util/gzpar.h); errors name
 * `what` (the output the user asked for) and the system's reason. */
static int gzip_copy(int fd, int gzip, const char *gztmp, const char *what, struct weft_err *e)
{
	int gfd = open(gztmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (gfd < 0)
		return weft_out_fail(e, errno, "%s: cannot create", what);
	int rc = gzpar_file(fd, gfd, PRV_GZIP_LEVEL(gzip), PRV_GZIP_THREADS(gzip), what, e);
	if (close(gfd) != 0 && rc == 0)
		rc = weft_out_fail(e, errno, "%s: write failed", what);
	return rc;
}

int prv_finish(struct prv_file *f, uint64_t ftime, char **done, struct weft_err *e)
{
	return prv_finish_n(f, ftime, done, NULL, e);
}

int prv_finish_n(struct prv_file *f, uint64_t ftime, char **done, uint64_t *nrecords, struct weft_err *e)
{
	struct prv_back *b = &f->back;
	*done = NULL;
	f->pipe = NULL; /* the caller finished the pipe: the back is ours now */
	f->pw = NULL;
	prv_time(f, ftime);
	prv_flush_now(f);
	back_apply(b, &(struct prv_op){PRV_OP_TIME, 0, 0, 0, (int64_t) ftime});
	if (b->nrecords == 0 && b->nslots > 0 && b->nrows > 0 && b->empty_zero) {
		/* a window without any record: Paraver cannot load an empty
		 * body; one value 0 (nothing) at the start reads the same.
		 * Without a window (a breakdown view that never changed) the
		 * body stays empty, as ovniemu writes it (prv_writer.h) */
		b->clk->now = 0;
		put_event(b, &(struct prv_op){PRV_OP_PUNCT, 0, 0, 0, 0});
		close_line(b);
	}
	for (int r = 0; r < b->nrows; r++)
		if (b->rows[r].state)
			patch20(b, b->rows[r].state_end_off, ftime);
	/* sends never received become comments (the last ones, usually: look
	 * from the end until none is open) */
	for (uint64_t id = b->next_comm; id-- > 0 && b->nopen;)
		comm_drop(b, id);
	patch20(b, b->ftime_off, ftime);
	if (nrecords)
		*nrecords = b->nrecords;
	/* errors name the output the user asked for (.prv.gz with -z) */
	char *what = weft_xasprintf("%s%s", b->path, b->gzip ? ".gz" : "");
	int rc = ob_flush(&b->ob, e, what);
	if (rc == 0 && b->gzip) {
		char *gztmp = b->gz_path ? weft_xstrdup(b->gz_path) : tmp_name(what);
		rc = gzip_copy(b->fd, b->gzip, gztmp, what, e);
		if (rc)
			unlink(gztmp);
		else
			*done = gztmp;
		if (rc)
			free(gztmp);
		unlink(b->tmp_path);
	} else if (rc == 0) {
		*done = weft_xstrdup(b->tmp_path);
	}
	if (close(b->fd) != 0 && rc == 0)
		rc = weft_out_fail(e, errno, "%s: write failed", what);
	free(what);
	if (rc) {
		unlink(b->tmp_path);
		if (*done)
			unlink(*done);
		free(*done);
		*done = NULL;
	}
	release(f);
	return rc;
}

int prv_close(struct prv_file *f, uint64_t ftime, struct weft_err *e)
{
	char *path = weft_xasprintf("%s%s", f->back.path, f->back.gzip ? ".gz" : "");
	char *done;
	int rc = prv_finish(f, ftime, &done, e);
	if (rc == 0 && rename(done, path) != 0) {
		rc = weft_out_fail(e, errno, "cannot rename %s to %s", done, path);
		unlink(done);
	}
	free(done);
	free(path);
	return rc;
}
