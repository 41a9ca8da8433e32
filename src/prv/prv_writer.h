/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prv_writer: Paraver .prv bodies written in time order, fast.
 * Callers set (row, slot) values and row states at a current time that never
 * decreases. Values are written as they come: a set only when it differs
 * from the last one written (Paraver reads a missing value as 0; a fresh
 * slot, prv_slot_fresh, writes its first value even when it is 0), a
 * punctual value always; states before events; the pairs of one row and
 * instant on one line, with one value of a type a line (a second value of
 * the type at that instant starts another). A state record
 * is written when its interval opens, with a fixed-width end that is patched
 * when it closes (in the buffer, or with pwrite once flushed), so the body
 * stays sorted by first time without holding records back.
 *
 * Two halves: the front (the caller's thread) keeps the last values and
 * turns each instant's changes into 16-byte ops; the back formats ops into
 * text with the digit-pair code and writes the file. With a prv_pipe the
 * back runs in its own thread (formatting and write(2) overlap emulation);
 * without one it runs inline. Files are written under a temporary name and
 * renamed by prv_close(); with gzip they are compressed at close. */
#ifndef WEFT_PRV_WRITER_H
#define WEFT_PRV_WRITER_H

#include <stdint.h>
#include <string.h>

#include "util/err.h"
#include "util/outbuf.h"
#include "util/macros.h"

struct prv_op {
	uint8_t kind;  /* PRV_OP_* */
	uint8_t file;  /* which prv_file of the pipe */
	uint16_t slot;
	uint32_t row;
	int64_t value;
};

enum {
	PRV_OP_TIME,
	PRV_OP_CPU,
	PRV_OP_STATE,
	PRV_OP_EVENT, /* a value written if it differs from the last one */
	PRV_OP_PUNCT, /* a value written always */
	/* communications (see prv_comm_send). The common ones are one op each,
	 * at the pipe's time: SEND (row = sender, value = tag, size 0, psend =
	 * lsend = the time), RECV (row = receiver, value = comm id, lrecv =
	 * precv = the time). The rest carry operands in ARG ops before the
	 * command op: SEND_ARGS (lsend, size; value = tag), RECV_ARGS (lrecv,
	 * precv; row, value = id), PSEND (psend; value = id). The back numbers
	 * sends itself, in the order the front hands out ids. */
	PRV_OP_ARG,
	PRV_OP_COMM_SEND,
	PRV_OP_COMM_SEND_ARGS,
	PRV_OP_COMM_PSEND,
	PRV_OP_COMM_RECV,
	PRV_OP_COMM_RECV_ARGS,
	PRV_OP_COMM_DROP,
	/* kinds from PRV_OP_SIDE up are a pipe user's own (the -j workers'
	 * messages to their merger: emu/match.h): the pipe carries them in
	 * order like any op, with ARG ops before; the back never sees one */
	PRV_OP_SIDE = 64
};

/* ---- back: text formatting and output ---------------------------------- */

struct prv_back_row {
	char prefix[40];      /* "appl:task:thread" */
	uint32_t id[3];       /* appl, task, thread */
	uint32_t prefix_len;
	uint32_t cpu;
	char head[64];        /* "K:cpu:appl:task:thread:" for `cpu` (K: kind) */
	uint32_t head_len;
	uint32_t head_cpu;    /* cpu the head was built for; ~0 = none */
	uint32_t state;       /* state of the open record, 0 = none */
	uint64_t state_end_off;
	/* "cpu:appl:task:thread" as four 10-digit fields, the receiver part of
	 * a communication record, rebuilt only when the row's cpu changed */
	uint32_t rcv_cpu;     /* cpu rcv was built for; ~0 = none */
	char rcv[44];
};

/* The current time and its decimal strings, made only when a record needs
 * them: one buffer holds the 20-digit zero-padded form (patched state ends,
 * psend, receive times) and ends with the plain one (its last tlen
 * digits). The files of one pipe share one (they move through time
 * together). */
struct prv_tclock {
	uint64_t now;
	uint64_t tval;        /* the time digits spell; ~0 = none */
	uint64_t hi;          /* tval / 10^8, spelled in digits[0..12) */
	uint32_t tlen, hlen;  /* digits of tval and of hi, no leading zeros */
	char digits[48];      /* 20 digits; the rest is slack for 24-byte copies */
	/* digits[12..20) as one word, and digits[0..12) apart (rewritten only
	 * when hi changes): put_time copies from these, never from bytes just
	 * stored in pieces */
	uint64_t lo8;
	uint64_t plain8; /* the plain string when hlen is 0 (time_string) */
	char hdigits[32];
};

/* prv_open's gzip: level 1..9, threads >= 1 (any true value is "gzip") */
#define PRV_GZIP(level, threads) ((level) | (threads) << 4)
#define PRV_GZIP_LEVEL(gz) ((gz) &15)
#define PRV_GZIP_THREADS(gz) ((gz) >> 4)

struct prv_back {
	char *path, *tmp_path, *gz_path; /* gz_path: NULL, a hidden name beside path */
	int fd, gzip; /* gzip: PRV_GZIP(level, threads), or 0 */
	struct outbuf ob;
	int nrows, nslots;
	struct prv_back_row *rows;
	int64_t *last; /* last value written per (row, slot); PRV_NEVER: none */
	uint64_t *slot_line; /* per slot: the record (nrecords) its last value went on */
	char (*slot_str)[16]; /* ":type:" */
	uint8_t *slot_len;
	struct prv_tclock *clk; /* the pipe's, or own */
	struct prv_tclock own;
	uint32_t open_row;    /* row of the event line being written, ~0 none */
	uint64_t ftime_off;
	uint64_t nrecords;
	int empty_zero; /* its set's (prv_files_new) */
	/* communication records still open, by comm id: offset of the psend
	 * field (the receiver block follows it), ~0 = closed or never sent */
	uint64_t *comm_off;
	uint64_t ncomm_off;
	uint64_t next_comm;   /* id of the next send (counted like the front's) */
	uint64_t nopen;       /* sends neither received nor dropped */
	int64_t arg[4];
	int narg;
	uint64_t ncomms;      /* records written (patched to comments included) */
	uint64_t ndropped;    /* sends turned into comments: never received */
	/* what was written, for the views (src/emu/views.c): per slot the
	 * least and greatest value (min > max: none), and the state values
	 * below 256 that opened a record */
	struct prv_range { int64_t min, max; } *range;
	uint64_t state_seen[4];
	uint32_t state_max;
	/* a part of a body (prv_part_open): a row whose open state record lies
	 * in an earlier part has state_end_off PRV_CARRIED; the time it closes
	 * here is noted in carry[] for the join to patch */
	struct prv_carry {
		uint32_t row;
		uint64_t time;
	} * carry;
	size_t ncarry, capcarry;
};

/* ---- the pipe between the halves ---------------------------------------- */

/* At most 64 chunks of 8192 ops (8 MiB): with -j, three busy threads on
 * two cores take turns, and a deep ring lets a worker run ahead while the
 * merger has the core (16 chunks: -j 2 took 1.10x -j 1's time, 64: 1.00x).
 * Many workers get shallower rings (jobs.c: 128 MiB in all, 16 chunks at
 * least). */
#define PRV_PIPE_CHUNKS 64
#define PRV_PIPE_OPS 8192

struct prv_pipe;

/* The producer's end of a pipe: ops are written in place into the chunk
 * being filled; a full chunk is handed over by prv_pipe_publish(). */
struct prv_pipe_w {
	struct prv_op *wp;       /* the next op to write */
	struct prv_op *wend;     /* the end of the chunk being filled */
	struct prv_op *time_end; /* wp just after the last TIME op (NULL: none in this chunk) */
	struct prv_op *cur;      /* the chunk being filled */
	int prod;
	int dirty;               /* a file of the pipe has states waiting (nsdirty) */
	uint64_t sent_time;      /* of the last TIME op (~0: none) */
};

void prv_pipe_publish(struct prv_pipe *p);

/* Start a writer thread serving up to 8 files. When no thread can start
 * (a process or memory limit), the pipe has none: prv_pipe_publish then
 * writes each chunk in the caller. NULL only when there is no memory. */
struct prv_pipe *prv_pipe_start(void);

/* ---- rings: pipes with no writer thread (weft emu -j) ---------------------
 * A worker's fronts queue ops into a ring as into a pipe; a merger takes
 * the published chunks in order (prv_ring_take blocks until one is there;
 * NULL once the producer ended and all were taken), gives each back when
 * done. */
struct prv_pipe *prv_ring_new(void);
/* A ring of `depth` chunks (2 to PRV_PIPE_CHUNKS) instead of the most. */
struct prv_pipe *prv_ring_new_depth(int depth);
void prv_ring_end(struct prv_pipe *p);      /* producer: publish the rest, no more */
const struct prv_op *prv_ring_take(struct prv_pipe *p, uint32_t *n);
void prv_ring_give(struct prv_pipe *p);
void prv_ring_free(struct prv_pipe *p);
/* A set of files with one clock and no thread: a sink's Paraver files
 * (prv_open them on it, in the order of the records' `file`), written by
 * the caller with prv_pipe_apply_until and prv_pipe_put_op (prv_pipe_split:
 * a thread a file). prv_files_free unsplits it and hands each back still
 * open its clock (then prv_finish or prv_abort them). With empty_zero, a
 * body of the set left without any record gets one value 0 at 0 instead
 * of none (a --from/--to window: Paraver cannot load an empty body);
 * without, a file with no record keeps an empty body (the header alone),
 * as ovniemu writes a breakdown view in which no CPU changes: prv_finish's
 * caller warns. */
struct prv_pipe *prv_files_new(int empty_zero);
void prv_files_free(struct prv_pipe *p);
/* The writer thread's work done by the caller: prv_pipe_drain waits until
 * the thread has written every op queued (it then sleeps until more are
 * published); prv_pipe_apply_until then writes ops in the calling thread. */
void prv_pipe_drain(struct prv_pipe *p);
/* With a hook, prv_pipe_apply_until hands it every op that is not TIME,
 * CPU, EVENT, PUNCT or STATE (ARG, communications, matches) instead of
 * writing it; prv_pipe_put_op writes one op as is (not TIME). NULL: none. */
void prv_pipe_hook(struct prv_pipe *p, void (*hook)(void *arg, const struct prv_op *op), void *arg);
void prv_pipe_put_op(struct prv_pipe *p, const struct prv_op *op);
/* With a tap, every op the pipe's files get (by prv_pipe_apply_until, the
 * writer thread, prv_pipe_put_op; not the hook's nor skipped ones) is
 * shown to it first, in order, in runs of n, by the thread applying them
 * (never two at once). Set it before any op is queued. NULL: none. */
void prv_pipe_tap(struct prv_pipe *p, void (*tap)(void *arg, const struct prv_op *ops, size_t n), void *arg);
/* Instead of a tap, one that finds where its runs end itself (one pass
 * over the ops): `cut` takes the ops before the first TIME op at or past
 * `bound` and before the first op of a kind >= stop (the hook's, 256:
 * none), returns how many it took and sets *at to the last TIME op's time
 * taken (unchanged: none). Set it before any op is queued. */
void prv_pipe_tap_cut(struct prv_pipe *p,
		      size_t (*cut)(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, int stop,
				    uint64_t *at),
		      void *arg);
/* prv_pipe_apply_until of a pipe with no hook, whose run also ends before
 * the first op of a kind >= stop (not applied; stop: PRV_OP_ARG or 256). */
size_t prv_pipe_apply_cut(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, int stop,
			  uint64_t *at);
/* A drained pipe's files each get a writer thread of their own: ops given
 * to prv_pipe_apply_until or prv_pipe_put_op are then handed to the
 * thread of their file (TIME ops to all; the hook still runs in the
 * caller), so formatting and write(2) run beside the caller, a file a
 * thread. prv_pipe_unsplit waits for those threads to write everything and
 * takes the files back. -1: a thread could not start (nothing split). */
int prv_pipe_split(struct prv_pipe *p);
void prv_pipe_unsplit(struct prv_pipe *p);
/* The same up to the first TIME op at or past `bound` (not applied);
 * returns the ops applied, *at the last TIME op's time applied. */
size_t prv_pipe_apply_until(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound,
			    uint64_t *at);

/* ---- front: the caller's side --------------------------------------------- */

struct prv_front_row {
	uint32_t cpu;
	uint32_t state, pend_state;
	uint8_t state_dirty;
};

struct prv_file {
	int id;               /* index in the pipe */
	struct prv_pipe *pipe;/* NULL: the back runs inline */
	struct prv_pipe_w *pw;/* the pipe's producer end, NULL with no pipe */
	uint64_t now;
	int nrows, nslots;
	struct prv_front_row *rows;
	uint32_t *sdirty;
	uint32_t nsdirty;
	int open;
	uint64_t next_comm;   /* comm ids handed out */
	uint64_t sent_time;   /* the time of the last TIME op sent (~0: none) */
	/* a -j worker's front (prv_front_init) drops repeated values itself
	 * and hands the merging thread, the serial one, each change as a value
	 * to write as is: the last value queued per (row, slot), as the back
	 * keeps it; NULL: the back drops repeats. `unknown`: a value INT64_MIN
	 * may mean "set by the merger" (prv_front_unknown), and is then left
	 * to the back to compare */
	int64_t *flast;
	int unknown;
	/* written by the writer thread: keep it off the front's cache lines */
	struct prv_back back __attribute__((aligned(64)));
	char pad[64];
};

/* Create PATH's temporary file and write the header
 * "#Paraver (DATE):<FTIME>_ns:<rest>". `ids[r]` is row r's appl:task:thread.
 * `pipe` may be NULL (synchronous). `tmp`: the file to write (with gzip,
 * the compressed copy is written at tmp + ".gz"); NULL: a hidden name beside
 * PATH. Messages name PATH (PATH.gz). `gzip`: 0, a plain file, else
 * PRV_GZIP(level, threads): compressed at the finish by gzpar_file (one
 * gzip member per 4 MiB of text, util/gzpar.h). */
WEFT_MUST_CHECK int prv_open(struct prv_file *f, struct prv_pipe *pipe, const char *path, const char *tmp,
			     const char *date, const char *rest, int nrows, const uint32_t (*ids)[3], int nslots,
			     const int32_t *slot_type, int gzip, struct weft_err *e);

void prv_flush_now(struct prv_file *f);
/* A front with no back of its own, queueing into `ring` as file `id`: its
 * rows name CPU 0 and have no state (as prv_open leaves them). */
struct prv_file;
void prv_front_init(struct prv_file *f, struct prv_pipe *ring, int id, int nrows, int nslots);
/* A front queueing into `pipe` as file `id` with no back (the emulator's
 * stream, sink.h): the back of file `id`, if any, is another prv_file
 * opened on the same pipe (prv_open gives ids in order), which keeps the
 * last values; a pipe with no back hands its ops to its tap alone. Its
 * rows name CPU 0 and have no state. Released by prv_front_free. */
void prv_front_open(struct prv_file *f, struct prv_pipe *pipe, int id, int nrows, int nslots);
void prv_front_free(struct prv_file *f);
/* The back's last value of (row, slot) set elsewhere (the merger numbers
 * a text value): the front no longer drops a repeat of it. */
static inline void prv_front_unknown(struct prv_file *f, int row, int slot)
{
	if (f->flast) {
		f->flast[(size_t) row * (size_t) f->nslots + (size_t) slot] = INT64_MIN;
		f->unknown = 1;
	}
}
/* The states waiting to be queued dropped, unwritten (another front
 * writes them). */
void prv_front_forget(struct prv_file *f);

/* A (row, slot) never written: its first value is written even when it is
 * 0 (ovniemu writes every channel's first value). By default a slot reads
 * as 0 before its first record, and a first 0 is dropped as a repeat. */
#define PRV_NEVER INT64_MIN
/* Slot `slot` of every row starts never written. Call it before any value
 * of the file is queued. */
void prv_slot_fresh(struct prv_file *f, int slot);


/* ---- op emission (inline: every value passes here) ---- */

/* Without a pipe: apply the op to the back at once (`timed`: TIME first). */
void prv_emit_inline(struct prv_file *f, int timed, uint8_t kind, uint32_t row, uint32_t slot,
		     int64_t value);

/* Queue one op. `timed`: it writes a record at f->now. With a pipe, the
 * pipe already holds a TIME op for f->now (prv_time2 places it when the
 * time moves), so no op checks the time. */
static inline void prv_emit_op(struct prv_file *f, int timed, uint8_t kind, uint32_t row, uint32_t slot,
			       int64_t value)
{
	struct prv_pipe_w *w = f->pw;
	if (__builtin_expect(!w, 0)) {
		prv_emit_inline(f, timed, kind, row, slot, value);
		return;
	}
	/* fields written in place: composing the op elsewhere and copying it
	 * as one 16-byte load stalls on store forwarding */
	struct prv_op *o = w->wp;
	o->kind = kind;
	o->file = (uint8_t) f->id;
	o->slot = (uint16_t) slot;
	o->row = row;
	o->value = value;
	w->wp = o + 1;
	if (__builtin_expect(o + 1 == w->wend, 0))
		prv_pipe_publish(f->pipe);
}

/* The pipe's TIME op for t: the last op when nothing was queued since the
 * previous TIME op (an instant with no record costs no op), else a new
 * one. */
static inline void prv_pipe_time(struct prv_file *f, uint64_t t)
{
	struct prv_pipe_w *w = f->pw;
	w->sent_time = t;
	struct prv_op *o = w->wp;
	/* the last op rewritten in place, with no branch: whether the instant
	 * queued anything is data (a wp just past a TIME op never is wend,
	 * publish moves it). The flag is hidden from GCC, which would branch
	 * on it again. */
	uintptr_t again = w->time_end == o;
#ifdef __GNUC__
	__asm__("" : "+r"(again));
#endif
	o -= again;
	if (__builtin_expect(o + 1 == w->wend, 0)) {
		/* not in a chunk's last slot, where it would go with the
		 * chunk even if its instant queued nothing: the next chunk
		 * starts with it, where the next TIME op can still take its
		 * place (so an instant with no record is never an op, at any
		 * chunk boundary: -j's workers and one run give their sinks
		 * the same TIME ops) */
		prv_pipe_publish(f->pipe);
		o = w->wp;
	}
	/* a TIME op moves every file: kind, file, slot and row all 0, one
	 * 8-byte store */
	_Static_assert(PRV_OP_TIME == 0, "a zero op head is a TIME op");
	memset(o, 0, 8);
	o->value = (int64_t) t;
	w->wp = w->time_end = o + 1;
}

/* The last TIME op taken back when nothing was queued after it (a last
 * instant with no record), before the pipe ends: the end of a -j worker's
 * looms is then no op, as in one run. */
static inline void prv_pipe_untime(struct prv_pipe_w *w)
{
	if (w && w->time_end && w->time_end == w->wp) {
		w->wp--;
		w->time_end = NULL;
		w->sent_time = ~0ull;
	}
}

void prv_time2_slow(struct prv_file *a, struct prv_file *b, uint64_t t);
/* The states waiting in a and b (both on one pipe) queued. */
void prv_flush_pair(struct prv_file *a, struct prv_file *b);

/* Move files a and b (b may be NULL) to time t, never earlier: the states
 * changed at the previous instant are queued first. Files that share a
 * pipe move in one call (the pipe has one time). Inline for the common
 * case: both on one pipe. */
static inline void prv_time2(struct prv_file *a, struct prv_file *b, uint64_t t)
{
	if (t == a->now)
		return;
	struct prv_pipe_w *w = a->pw;
	if (__builtin_expect(w && b && b->pw == w, 1)) {
		if (w->dirty)
			prv_flush_pair(a, b);
		a->now = b->now = t;
		prv_pipe_time(a, t);
		return;
	}
	prv_time2_slow(a, b, t);
}

static inline void prv_time(struct prv_file *f, uint64_t t)
{
	prv_time2(f, NULL, t);
}

/* A value of (row, slot) at the current time. Only changes are written:
 * the back compares with the last value written (the writer thread does
 * it, off the emulation's path). A value changed twice in one instant is
 * written twice; Paraver keeps the last, so it reads the same. */
static inline void prv_set(struct prv_file *f, int row, int slot, int64_t value)
{
	if (f->flast) {
		int64_t *l = &f->flast[(size_t) row * (size_t) f->nslots + (size_t) slot];
		int known = *l != INT64_MIN || !f->unknown;
		if (known && *l == value)
			return;
		*l = value;
		/* a change for sure: the back writes it without looking; else
		 * the back compares, as without flast */
		prv_emit_op(f, 1, known ? PRV_OP_PUNCT : PRV_OP_EVENT, (uint32_t) row, (uint32_t) slot, value);
		return;
	}
	prv_emit_op(f, 1, PRV_OP_EVENT, (uint32_t) row, (uint32_t) slot, value);
}

/* A punctual value: written at the current time even when it equals the last
 * value written (each occurrence is a record; the last of an instant wins). */
static inline void prv_punct(struct prv_file *f, int row, int slot, int64_t value)
{
	if (f->flast)
		f->flast[(size_t) row * (size_t) f->nslots + (size_t) slot] = value;
	prv_emit_op(f, 1, PRV_OP_PUNCT, (uint32_t) row, (uint32_t) slot, value);
}

static inline void prv_state(struct prv_file *f, int row, uint32_t state)
{
	struct prv_front_row *r = &f->rows[row];
	r->pend_state = state;
	if (!r->state_dirty && state != r->state) {
		r->state_dirty = 1;
		f->sdirty[f->nsdirty++] = (uint32_t) row;
		if (f->pw)
			f->pw->dirty = 1;
	}
}

/* The CPU a row's records name from now on. */
static inline void prv_cpu(struct prv_file *f, int row, uint32_t cpu)
{
	struct prv_front_row *r = &f->rows[row];
	if (r->cpu != cpu) {
		r->cpu = cpu;
		prv_emit_op(f, 0, PRV_OP_CPU, (uint32_t) row, 0, cpu);
	}
}
/* Communication records "3:cpu_s:appl_s:task_s:thread_s:lsend:psend:cpu_r:
 * appl_r:task_r:thread_r:lrecv:precv:size:tag", kept sorted by lsend: the
 * record is written when the send happens (lsend = the current time, which
 * must not be earlier than any time already given to prv_time), with psend
 * and the whole receiver part as fixed-width zero-padded fields that are
 * patched later. prv_comm_send returns the comm id the other calls take.
 * psend is lsend until prv_comm_psend; prv_comm_recv fills the receiver
 * (row, lrecv, precv; lrecv may be earlier than lsend); prv_comm_drop, or
 * prv_close for a send never received, turns the record into a '#' comment.
 * The receiver CPU is the receiving row's CPU when prv_comm_recv is
 * called. */
void prv_comm_send_args(struct prv_file *f, int row, uint64_t lsend, int64_t size, int64_t tag);
void prv_comm_recv_args(struct prv_file *f, uint64_t id, int row, uint64_t lrecv, uint64_t precv);
void prv_comm_psend(struct prv_file *f, uint64_t id, uint64_t psend);

/* Inline: the common send (now, size 0) and receive (now) are one op. */
static inline uint64_t prv_comm_send(struct prv_file *f, int row, uint64_t lsend, int64_t size,
				     int64_t tag)
{
	uint64_t id = f->next_comm++;
	if (__builtin_expect(lsend == f->now && size == 0, 1))
		prv_emit_op(f, 1, PRV_OP_COMM_SEND, (uint32_t) row, 0, tag);
	else
		prv_comm_send_args(f, row, lsend, size, tag);
	return id;
}

static inline void prv_comm_recv(struct prv_file *f, uint64_t id, int row, uint64_t lrecv,
				 uint64_t precv)
{
	if (__builtin_expect(lrecv == f->now && precv == f->now, 1))
		prv_emit_op(f, 1, PRV_OP_COMM_RECV, (uint32_t) row, 0, (int64_t) id);
	else
		prv_comm_recv_args(f, id, row, lrecv, precv);
}

static inline void prv_comm_drop(struct prv_file *f, uint64_t id)
{
	prv_emit_op(f, 0, PRV_OP_COMM_DROP, 0, 0, (int64_t) id);
}

/* Write what is pending, close open states at `ftime`, patch the header's
 * end time, compress if asked, and rename into place. With a pipe, call
 * prv_pipe_finish() first. */
WEFT_MUST_CHECK int prv_close(struct prv_file *f, uint64_t ftime, struct weft_err *e);
/* The same without the rename: the finished file (compressed with gzip)
 * is left under the temporary name *done (to free), for the caller to
 * commit with its other outputs (see outset.h). */
WEFT_MUST_CHECK int prv_finish(struct prv_file *f, uint64_t ftime, char **done, struct weft_err *e);
/* prv_finish, and the number of records the body holds in *nrecords (0: the
 * header alone) */
WEFT_MUST_CHECK int prv_finish_n(struct prv_file *f, uint64_t ftime, char **done, uint64_t *nrecords,
				 struct weft_err *e);
/* Remove the temporary file and release everything. */
void prv_abort(struct prv_file *f);

/* ---- parts: a body written in time slices, then joined (weft emu --mpi) ----
 * A part file holds the records of one time slice [from, to) with no header.
 * Its writer replays the ops before `from` without writing
 * (prv_pipe_skip_until: values, states and CPUs only), then writes; a state
 * record open when the part begins lies in an earlier part, so its close is
 * noted (carry) instead of patched, and the records still open at the end
 * are listed. prv_join appends the parts to a file's body in order and
 * patches every open end with the time its row next changed, in a later
 * part, or FTIME. */
#define PRV_CARRIED (~0ull)

struct prv_part_info {
	uint64_t bytes, nrecords;
	uint64_t state_seen[4];
	uint32_t state_max;
	int nslots;
	struct prv_range *range; /* by slot */
	size_t nopen;
	struct prv_open_rec {
		uint32_t row;
		uint64_t off;
	} * open; /* offsets in the part */
	size_t ncarry;
	struct prv_carry *carry; /* in time order */
};

WEFT_MUST_CHECK int prv_part_open(struct prv_file *f, struct prv_pipe *pipe, const char *path, int nrows,
				  const uint32_t (*ids)[3], int nslots, const int32_t *slot_type, struct weft_err *e);
/* Replay ops before `bound` into the pipe's files without writing
 * (returns how many; *at: the last TIME op's time). */
size_t prv_pipe_skip_until(struct prv_pipe *p, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at);
/* The part written and closed (its file kept), what the join needs in
 * *info (free with prv_part_info_free). */
WEFT_MUST_CHECK int prv_part_close(struct prv_file *f, struct prv_part_info *info, struct weft_err *e);
void prv_part_info_free(struct prv_part_info *info);
/* Append parts paths[0..n) (infos alike) to f's body (f's pipe drained, or
 * none) and patch their open state ends (ftime when no later part closes
 * them); f's record counts and value ranges become theirs. */
WEFT_MUST_CHECK int prv_join(struct prv_file *f, const char *const *paths, const struct prv_part_info *infos, int n,
			     uint64_t ftime, struct weft_err *e);

/* Send what is queued and stop the writer thread (before prv_close). */
void prv_pipe_finish(struct prv_pipe *p);


#endif
