/* picl_int: private to the PICL importer (src/import/picl*.c).
 * picl.c detects the format and drives the conversion; picl_lex.c splits
 * lines and reads numbers exactly; picl_new.c reads new-format records
 * (descriptors, scoped -6 aliases, subsets, statistics), with a fast path
 * for plain numeric lines in picl_fast.c; picl_old.c reads old-format lines
 * and turns calls into entries and exits; picl_write.c sorts the records and
 * writes one ovni stream per processor. */
#ifndef WEFT_PICL_INT_H
#define WEFT_PICL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define HOST 32767
#define NPROC_IDS 32768 /* processor ids 0..32767 (32767 = host) */
#define MAX_WARN 20

enum { K_ENTRY, K_EXIT, K_MARK, K_USER, K_UBEGIN, K_UEND, K_STAT };

struct orec {
	int64_t t;     /* ns */
	uint32_t line, seq;
	int32_t proc;  /* 0..32767 */
	uint8_t kind;
	uint8_t sub;   /* K_STAT: 't', 'c' or 'v' (-101, -102, -103) */
	uint8_t digits; /* K_STAT time: decimals of the value */
	int32_t type, a, b, c; /* K_STAT: event type, context, value (b low, c high) */
};

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

struct picl {
	const char *path;
	struct orec *r;
	size_t n, cap;
	struct tok *tk;
	int ntk, ctk;
	struct label *lab;
	int nlab, clab;
	int nwarn;
	int ts_digits; /* most decimals seen in a timestamp */
	char **file;   /* file names of -201 records; id = index + 1 */
	int nfile, cfile;
	int has_files; /* any file I/O record: streams require fileio */
	struct picl_alias *alias; /* -6 records, in file order */
	int nalias, calias;
	struct picl_subset *subset; /* -201/-202/-203 records */
	int nsubset, csubset;
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
struct orec *picl_add(struct picl *p);
/* The kind of an event record (o->type set) of record type rt: user
 * record, user event entry/exit/mark, system entry/exit/mark. */
void picl_set_kind(struct picl *p, struct orec *o, int64_t rt);
void picl_add_label(struct picl *p, int64_t value, const char *s, size_t n);

/* Split [s, e) at white space; a token starting with '"' runs to the next
 * '"'. Returns -1 on an unterminated quote. */
int picl_tokenize(struct picl *p, const char *s, const char *e);
int picl_tok_int(const struct tok *t, int64_t lo, int64_t hi, int64_t *out);
/* Decimal seconds to ns exactly (half to even), no binary floating point. */
int picl_tok_seconds(const struct tok *t, int64_t *out);
int picl_tok_decimals(const struct tok *t);

/* One tokenized new-format record (p->tk); -1 with p->err filled. */
int picl_new_line(struct picl *p, unsigned line);
/* A plain new-format line [s, e) read without tokenizing: 1 stored, 0 not
 * plain (read it with picl_tokenize and picl_new_line, which also report
 * its errors). */
int picl_fast_line(struct picl *p, const char *s, const char *e, unsigned line);

int picl_old_key(const struct tok *t);
int picl_old_line(struct picl *p, unsigned line, struct oldlog *L, int *skipping);
void picl_old_convert(struct picl *p, struct oldlog *L);

/* The control string code `code` stands for in a record of event type et,
 * processor proc and process `process`; 0 if no -6 record defines it there. */
int picl_alias_find(const struct picl *p, int64_t code, int64_t et, int64_t proc, int64_t process,
		    const char **s, size_t *n);
void picl_alias_add(struct picl *p, int64_t code, const char *ctrl, size_t n, int64_t et, int64_t proc,
		    int64_t process);
/* A -201/-202/-203 record (rt) whose data start at token `first`. */
int picl_subset_add(struct picl *p, unsigned line, int64_t rt, int first);
void picl_scope_free(struct picl *p);

struct ovni_writer;
int picl_is_file(int32_t type);
/* The id of a file name (1, 2, ... in order of first appearance). */
int32_t picl_file_id(struct picl *p, const char *s, size_t n);
/* Give each file entry and exit the data of its other end (sorted records). */
void picl_files_pair(struct picl *p);
/* The fileio events of one file I/O entry, exit or mark. */
void picl_file_event(struct ovni_writer *w, const struct orec *r, uint64_t clk);
void picl_file_close(struct ovni_writer *w, int32_t type, uint64_t clk);

/* Sort the records by (time, line, seq) and write the streams. */
int picl_write_streams(struct picl *p, const char *outdir);

#endif
