/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_int: private to the PICL importer (src/import/picl*.c).
 * picl.c detects the format and drives the conversion; picl_lex.c splits
 * lines and reads numbers exactly; picl_new.c reads new-format records
 * (descriptors, scoped -6 aliases, subsets, statistics), with a fast path
 * for plain numeric lines in picl_fast.c; picl_old.c reads old-format lines
 * and turns calls into entries and exits; picl_write.c writes the records as
 * one ovni stream per processor; picl_par.c reads the plain lines of a large
 * log ahead on a second thread; picl_text.c holds the texts of the records
 * kept beside the timeline (user record data, -7 messages), picl_kept.c
 * writes them; picl_rows.c says which rows (streams) there are.
 *
 * Records are written as they are read while the log is sorted (batches of
 * PICL_BATCH records), so memory stays flat. A log found unsorted before
 * any was written is held whole and sorted; after, it is read again from
 * the start, holding every record. Records that need the whole log (statistics: the timestamp
 * decimals of every line; file I/O: data from the other end of each call)
 * stop the writing: those from there on are held to the end. */
#ifndef WEFT_PICL_INT_H
#define WEFT_PICL_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/err.h"
#include "import/import.h"

#define HOST 32767
#define NPROC_IDS 32768 /* processor ids 0..32767 (32767 = host) */
#define MAX_WARN 20
#define PICL_BATCH 2048 /* records written at a time while the log is sorted */
#define PICL_RESTART 1  /* the log was found unsorted: read it again, holding every record */

/* K_USER: a user record (a its record type; when sub is 'd', b and c the
 * offset (low, high) of its data in p->txt: an i64 value, then the text).
 * K_TEXT: a -7 message (b and c the offset of its text). K_SUBSET: a -201/-202/-203 record
 * (a its index in p->subset). K_TEXT and K_SUBSET of a global processor
 * id have proc PICL_ALL. */
enum { K_ENTRY, K_EXIT, K_MARK, K_USER, K_UBEGIN, K_UEND, K_STAT, K_TEXT, K_SUBSET };
#define PICL_ALL (-1) /* orec.proc of a record for every processor */
#define PICL_TEXT_MAX 32000 /* bytes of a kept text (longer ones are cut) */
#define PICL_NO_VALUE INT64_MIN /* a user record's first data field is no number */

/* K_MARK with sub 'm': a mark of a call whose data the msg model reads
 * (picl_call_mark: a message sent, received, or a request posted or
 * completed), its data split into the entry's and the exit's (seed §2.3.3)
 * and kept as a size, b tag, c partner processor, d partner process, e
 * request id (-1: absent). */
struct orec {
	int64_t t;     /* ns */
	uint32_t line;
	int32_t proc;  /* 0..32767, or PICL_ALL */
	int32_t type, a, b, c; /* K_STAT: event type, context, value (b low, c high) */
	int32_t d, e; /* the 4th data field (-1: none); e: see K_MARK 'm' */
	int32_t process; /* the process id field as written (-1 all or unknown) */
	uint8_t kind;
	uint8_t sub; /* K_STAT: 't', 'c' or 'v' (-101, -102, -103); K_MARK: 'm' */
	uint8_t digits; /* K_STAT time: decimals of the value */
	uint8_t seq;
};
_Static_assert(sizeof(struct orec) == 48, "struct orec: 48 bytes");

struct tok {
	const char *p;
	size_t n;
};

struct label {
	int64_t value;
	char *text;
};

struct picl_alias {        /* a -6 record: code -> control string, in scope */
	int64_t code;
	char *ctrl;
	int64_t et, proc, process; /* -1 all, >= 0 one, < -1 a subset */
};

struct picl_subset {
	int kind;              /* 0 processors (-201), 1 processes (-202), 2 event types (-203) */
	int64_t id;
	int64_t *m;
	int n;
};

struct picl_out;

struct picl_lrec { /* a -5 record: its scope and text */
	int64_t et, proc, process;
	char *text;
};

struct picl_luse { /* a user block value given to (type, text) */
	int32_t type;
	int64_t value;
	char *text;
};

/* The rows of the log (picl_rows.c): a processor showing several processes
 * gets a row per process; its streams are at slots base.. base + n - 1
 * (the others at the processor's number). */
struct picl_split {
	int n;
	int32_t *q; /* its process ids, ascending */
	int base;
};

struct picl_rows {
	int32_t *first; /* by processor: the first process id >= 0 seen */
	struct picl_split **split; /* by processor, NULL: one row (all NULL until planned) */
	int nslots; /* NPROC_IDS + the rows of split processors */
};

/* The writing of warnings: those of the reading are shown at once, those of
 * the writing after every one of the reading (as when the whole log was
 * read first), MAX_WARN in all. */
struct picl_later {
	unsigned line;
	const char *what;
};

struct picl {
	const char *path;
	struct orec *r;  /* records read and not written yet */
	size_t n, cap;
	int streaming;   /* batches are written as they fill (a sorted log) */
	size_t nwritten; /* records already written */
	struct orec last; /* the last record written (time, line, seq) */
	int has_stats;   /* a -101/-102/-103 record was read */
	struct picl_out *out;
	struct tok *tk;
	int ntk, ctk;
	struct label *lab;
	int nlab, clab;
	int nwarn;
	int wsilent;     /* warnings a first reading already showed */
	int quiet;       /* warnings counted, never shown (import_opts.quiet) */
	struct picl_later later[MAX_WARN + 1];
	int nlater, nlater_more;
	int ts_digits; /* most decimals seen in a timestamp */
	char **file;   /* file names of -201 records; id = index + 1 */
	int nfile, cfile;
	int has_files; /* any file I/O record: streams require fileio */
	struct picl_alias *alias; /* -6 records, in file order */
	int nalias, calias;
	struct picl_subset *subset; /* -201/-202/-203 records */
	int nsubset, csubset;
	struct picl_rows rows;
	struct picl_lrec *lrec; /* -5 records, in file order */
	int nlrec, clrec;
	int scoped_labels; /* one is not global: values per row (picl_labels.c) */
	struct picl_luse *luse;
	int nluse, cluse;
	int64_t label_next; /* the next value of a user type's other text (0: not set) */
	struct import_locate *loc; /* import_opts.locate: the record of one event */
	char *txt;       /* texts of the records held (K_USER data, K_TEXT), NUL-ended;
			  * emptied when no record is held */
	size_t ntxt, ctxt;
	struct weft_err *err;
};

struct oldrec {
	int64_t t;
	uint32_t line;
	int32_t proc;
	int key;
	int64_t f[5];
};

struct oldlog {
	struct oldrec *v;
	size_t n, cap;
};

#define FIELD_ERR(line, k, name, exp)                                                                   \
	weft_fail(p->err, WEFT_EINPUT, "%s:%u: field %d (%s): expected %s, found '%.*s'", p->path, line, \
		  (k) + 1, name, exp, (int) (p->tk[k].n > 40 ? 40 : p->tk[k].n), p->tk[k].p)


void picl_warn(struct picl *p, unsigned line, const char *fmt, const char *what);
/* A warning of the writing (`what` a constant), shown by picl_warn_flush. */
void picl_warn_later(struct picl *p, unsigned line, const char *what);
void picl_warn_flush(struct picl *p);

void picl_grow(struct picl *p);

/* A new record, zeroed. */
static inline struct orec *picl_add(struct picl *p)
{
	if (__builtin_expect(p->n == p->cap, 0))
		picl_grow(p);
	struct orec *o = &p->r[p->n++];
	memset(o, 0, sizeof(*o));
	o->d = o->e = o->process = -1;
	return o;
}

/* The calls whose marks carry a message or a request id (see K_MARK 'm'):
 * -21, -27, -28, -30, -31, -51, -52, -56, -57, -58, -60, -61. */
static inline int picl_call_mark(int32_t type)
{
	uint32_t k = (uint32_t) (-21 - (int64_t) type);
	return type < 0 && k <= 40 && (0x1b8c00006c1ull >> k & 1);
}

static inline int picl_is_file(int32_t type)
{
	return type == -201 || type == -202 || type == -221 || type == -251;
}

/* The kind of an event record (o->type set) of record type rt: user
 * record, user event entry/exit/mark, system entry/exit/mark. */
static inline void picl_set_kind(struct picl *p, struct orec *o, int64_t rt)
{
	if (rt >= 0) {
		o->kind = K_USER;
		o->a = (int32_t) rt;
	} else if (o->type >= 0) {
		o->kind = rt == -3 ? K_UBEGIN : rt == -4 ? K_UEND : K_MARK;
	} else {
		o->kind = rt == -3 ? K_ENTRY : rt == -4 ? K_EXIT : K_MARK;
		if (picl_is_file(o->type))
			p->has_files = 1;
	}
}
void picl_add_label(struct picl *p, int64_t value, const char *s, size_t n);
/* Keep `n` bytes at s (at most PICL_TEXT_MAX) after `pre` bytes at pre
 * (NULL: none) in p->txt, NUL-ended; returns the offset of pre. */
size_t picl_text_add(struct picl *p, const void *pre, size_t npre, const char *s, size_t n);
static inline void picl_set_off(struct orec *o, size_t off)
{
	o->b = (int32_t) (uint32_t) ((uint64_t) off & 0xffffffffu);
	o->c = (int32_t) (uint32_t) ((uint64_t) off >> 32);
}
static inline size_t picl_off(const struct orec *o)
{
	return (size_t) ((uint64_t) (uint32_t) o->b | (uint64_t) (uint32_t) o->c << 32);
}
/* The data of the tokens from `first` to the end as one text: the bytes
 * from the first token's start to the last's end, one pair of enclosing
 * quotes removed. */
void picl_data_text(const struct picl *p, int first, const char **s, size_t *n);

/* Split [s, e) at white space; a token starting with '"' runs to the next
 * '"'. Returns -1 on an unterminated quote. */
int picl_tokenize(struct picl *p, const char *s, const char *e);
int picl_tok_int(const struct tok *t, int64_t lo, int64_t hi, int64_t *out);
/* Decimal seconds to ns exactly (half to even), no binary floating point. */
int picl_tok_seconds(const struct tok *t, int64_t *out);
int picl_tok_decimals(const struct tok *t);

/* One tokenized new-format record (p->tk); -1 with p->err filled. */
int picl_new_line(struct picl *p, unsigned line);
/* Plain new-format lines (picl_fast.c) read without tokenizing into any
 * record array: picl_par.c reads chunks of the log on two threads with it.
 * `alias` (in): codes 2 and 3 redefined by a -6 record, as bits
 * 1 << (code - 2) (their lines are not plain); `line` the number of the
 * line before s, kept counting; `dec` the most decimals of a timestamp and
 * `file_at` the index of the first file I/O record (SIZE_MAX: none yet),
 * both updated. */
struct picl_plain {
	struct orec *r;
	size_t n, cap;
	unsigned line, alias;
	int dec;
	size_t file_at;
};
/* Reads lines from s while they start before `end` and fewer than `stop`
 * records are held: a '\n' must end every line starting before `end`,
 * and 8 bytes must be readable at any byte up to it (they bound every
 * scan). Returns where it stopped: at `end`, at the stop, or at a line
 * that is not plain (read it with picl_tokenize and picl_new_line, which
 * also report its errors). */
const char *picl_plain_lines(struct picl_plain *c, const char *s, const char *end, size_t stop);
/* The codes 2 and 3 redefined by -6 records so far (picl_plain.alias). */
unsigned picl_alias_bits(const struct picl *p);
/* picl_plain_lines into p's records (*line the last line read). */
const char *picl_fast_lines(struct picl *p, const char *s, const char *end, unsigned *line, size_t stop);

int picl_old_key(const struct tok *t);
int picl_old_line(struct picl *p, unsigned line, struct oldlog *L, int *skipping);
void picl_old_convert(struct picl *p, struct oldlog *L);

/* The control string code `code` stands for in a record of event type et,
 * processor proc and process `process`; 0 if no -6 record defines it there. */
int picl_alias_find(const struct picl *p, int64_t code, int64_t et, int64_t proc, int64_t process,
		    const char **s, size_t *n);
void picl_alias_add(struct picl *p, int64_t code, const char *ctrl, size_t n, int64_t et, int64_t proc,
		    int64_t process);
/* Does scope value `scope` (-1 every one, >= 0 that one, below -1 a subset)
 * of kind 0 (processor), 1 (process) or 2 (event type) take in `v`? */
int picl_in_scope(const struct picl *p, int kind, int64_t scope, int64_t v);
/* A -201/-202/-203 record (rt) whose data start at token `first`. */
int picl_subset_add(struct picl *p, unsigned line, int64_t rt, int first);
void picl_scope_free(struct picl *p);

/* Does a processor of the records held show a second process? (Notes the
 * first one of each.) */
int picl_rows_note(struct picl *p);
/* The rows of the records held (the whole log). */
void picl_rows_plan(struct picl *p);
void picl_rows_free(struct picl *p);
static inline const struct picl_split *picl_split_of(const struct picl *p, int32_t proc)
{
	return p->rows.split && proc >= 0 && proc < NPROC_IDS ? p->rows.split[proc] : NULL;
}
/* The stream slot of (proc, process): proc for a processor of one row,
 * -1 when a split processor has no row of that process. */
int picl_row_of(const struct picl *p, int32_t proc, int32_t process);

/* picl_labels.c: a -5 record (event type, processor, process fields, text). */
void picl_label_rec(struct picl *p, int64_t et, int64_t proc, int64_t process, const char *s, size_t n);
/* The label of user event type `type` on the row of (proc, process; -1 a
 * row of every process), NULL if none; the label of the row itself. */
const char *picl_label_of(const struct picl *p, int32_t type, int32_t proc, int32_t process);
const char *picl_row_label(const struct picl *p, int32_t proc, int32_t process);
/* The user block value of `type` on that row (type + 1 unless labels are
 * scoped), and its label's text (kept by p). */
int64_t picl_label_value(struct picl *p, int32_t type, int32_t proc, int32_t process, const char **text);
void picl_labels_free(struct picl *p);

struct ovni_writer;
/* The id of a file name (1, 2, ... in order of first appearance). */
int32_t picl_file_id(struct picl *p, const char *s, size_t n);
/* Give each file entry and exit the data of its other end (sorted records,
 * p->r[0..n)). */
void picl_files_pair(struct picl *p);
/* The fileio events of one file I/O entry, exit or mark. */
void picl_file_event(const struct picl *p, struct ovni_writer *w, const struct orec *r, uint64_t clk);
void picl_file_close(struct ovni_writer *w, int32_t type, uint64_t clk);

/* Writing (picl_write.c). picl_write_batch (new-format records, read in
 * line order) writes the records held when they continue the sorted order
 * of those written and nothing asks to hold
 * them (else it stops the streaming; PICL_RESTART if some were written
 * already). picl_write_rest sorts what is held if nothing was written yet
 * (PICL_RESTART if it is out of order after something was), writes it and
 * finishes the streams. picl_write_free releases the writing (also after
 * an error or for a restart). */
int picl_write_batch(struct picl *p, const char *outdir);
int picl_write_rest(struct picl *p, const char *outdir);
void picl_write_free(struct picl *p);

#endif
