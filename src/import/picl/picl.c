/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl: PICL trace files, new format (ORNL/TM-12125) and old format (PICL
 * 1.x), as ovni streams of the msg model (doc/formats/legacy.md §2-5).
 * Lines are read into records, converted to model events (old-format calls
 * get their ends from compstats pairs), in (time, line) order and written
 * one stream per processor: loom picl.P, one CPU, pid = tid = P + 1; the
 * host (32767 new, -32768 old) is loom picl.host. A sorted new-format log
 * is written as it is read (picl_int.h); any other is held whole and
 * sorted. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "util/mapfile.h"
#include "import/picl/picl_int.h"
#include "import/picl/picl_par.h"

/* ---- detection (doc/formats/legacy.md §4) ---------------------------------- */

enum { V_NONE, V_NEW, V_OLD_VERBOSE, V_OLD_PROV };

static int is_int_tok(const struct tok *t)
{
	int64_t v;
	return picl_tok_int(t, INT64_MIN / 2, INT64_MAX / 2, &v) == 0;
}

static int classify(struct picl *p)
{
	if (p->ntk == 0)
		return V_NONE;
	const struct tok *t = p->tk;
	int64_t v;
	if (p->ntk >= 2 && t[1].n == 5 && memcmp(t[1].p, "clock", 5) == 0 && picl_old_key(&t[0]))
		return V_OLD_VERBOSE;
	if (picl_tok_int(&t[0], INT32_MIN, INT32_MAX, &v))
		return V_NONE;
	if (v < 0 && p->ntk >= 6)
		return V_NEW;
	if (v >= 0 && p->ntk >= 6 && (memchr(t[2].p, '.', t[2].n) || memchr(t[2].p, 'e', t[2].n)))
		return V_NEW;
	if (v >= 1 && v <= 24 && p->ntk >= 4 && is_int_tok(&t[1]) && is_int_tok(&t[2]))
		return V_OLD_PROV;
	return V_NONE;
}

/* 0 not PICL, 1 new, 2 old; -1 contradictory. */
static int sniff(struct picl *p, const uint8_t *data, size_t len, unsigned *bad_line, size_t *bad_off, int forced)
{
	if (len == 0)
		return 0; /* nothing to classify; data may be NULL (NULL + 0 is undefined) */
	const char *s = (const char *) data, *end = s + len;
	int verdict = 0, prov = 0, lines = 0, first = 1;
	unsigned line = 0;
	while (s < end && lines < 1000) {
		const char *e = memchr(s, '\n', (size_t) (end - s));
		if (!e)
			e = end;
		line++;
		for (const char *q = s; q < e; q++)
			if ((unsigned char) *q < 32 && !isspace((unsigned char) *q)) {
				*bad_line = line; /* binary */
				*bad_off = (size_t) (q - (const char *) data);
				return 0;
			}
		if (picl_tokenize(p, s, e) == 0 && p->ntk > 0) {
			if (first && p->ntk == 1 && !forced)
				return 0; /* VisAndOr and others start with one token */
			first = 0;
			lines++;
			int c = classify(p);
			if (c == V_NEW || c == V_OLD_VERBOSE) {
				int v = c == V_NEW ? 1 : 2;
				if (verdict && verdict != v) {
					*bad_line = line;
					return -1;
				}
				verdict = v;
			} else if (c == V_OLD_PROV) {
				prov = 1;
			}
		}
		s = e + 1;
	}
	if (verdict)
		return verdict;
	return prov ? 2 : 0;
}

static int picl_detect(const uint8_t *data, size_t len)
{
	struct picl p = {0};
	unsigned bad = 0;
	size_t boff = 0;
	int v = sniff(&p, data, len, &bad, &boff, 0);
	free(p.tk);
	return v != 0;
}

/* ---- convert ---------------------------------------------------------------- */

/* A line [s, q) whose last non-blank character is '\\' continues on the
 * next one (the seed's typeset tables break long records so; doc/formats/
 * legacy.md §2.4, item 1). Joins it and its continuations into *buf, each '\\'
 * replaced by a space, sets [*rs, *rq) to the record and *next to the line
 * after it. Returns the number of lines joined (>= 2), 0 if the line is not
 * continued, -1 if the file ends inside the record. */
static int join_lines(const char *s, const char *q, const char *end, char **buf, size_t *cap, const char **rs,
		      const char **rq, const char **next)
{
	int n = 0;
	size_t len = 0;
	for (;;) {
		const char *t = q;
		while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
			t--;
		int more = t > s && t[-1] == '\\';
		if (!more && n == 0)
			return 0;
		size_t k = (size_t) (t - s) - (size_t) more;
		if (len + k + 2 > *cap) {
			*cap = 2 * (len + k + 2) + 256;
			*buf = weft_xrealloc(*buf, *cap);
		}
		memcpy(*buf + len, s, k);
		len += k;
		(*buf)[len++] = ' ';
		n++;
		if (!more)
			break;
		if (q >= end)
			return -1;
		s = q + 1;
		q = memchr(s, '\n', (size_t) (end - s));
		if (!q)
			q = end;
		if (s >= end)
			return -1;
	}
	*rs = *buf;
	*rq = *buf + len;
	*next = q < end ? q + 1 : end;
	return n;
}

/* Chunk c (read by picl_par from `from`) into p's records, numbering its
 * lines after `line`, writing batches as they fill while p->streaming.
 * Returns 0, -1 or PICL_RESTART. */
static int adopt_chunk(struct picl *p, const struct picl_plain *c, unsigned line, const char *outdir,
		       struct mapfile *map, size_t from)
{
	if (c->dec > p->ts_digits)
		p->ts_digits = c->dec;
	for (size_t i = 0; i < c->n;) {
		size_t take = c->n - i;
		if (p->streaming && take > PICL_BATCH - p->n)
			take = PICL_BATCH - p->n;
		while (p->n + take > p->cap)
			picl_grow(p);
		struct orec *o = &p->r[p->n];
		const struct orec *r = &c->r[i];
		for (size_t j = 0; j < take; j++) {
			o[j] = r[j];
			o[j].line += line;
		}
		if (c->file_at >= i && c->file_at < i + take)
			p->has_files = 1; /* as when its line was read: before the batch is written */
		p->n += take;
		i += take;
		if (p->streaming && p->n >= PICL_BATCH) {
			int rc = picl_write_batch(p, outdir);
			if (rc)
				return rc;
			if (map)
				map_release(map, from);
		}
	}
	return 0;
}

/* Read every line of the log (fmt 1 new, 2 old) into records, writing them
 * as they come while p->streaming (and giving back the pages of `map`
 * read, when it is not NULL). Returns 0, -1 or PICL_RESTART. A large
 * new-format log has its plain lines read ahead on a second thread
 * (picl_par.h): the chunks are taken here in order, and the lines they
 * leave read as before. */
static int read_log(struct picl *p, const char *data, size_t len, int fmt, struct mapfile *map,
		    const char *outdir)
{
	struct weft_err *e = p->err;
	struct oldlog L = {0};
	const char *s = data, *end = s + len;
	/* lines starting before the last '\n' that has 8 bytes after it end
	 * with one: the fast path reads them with no end checks */
	const char *lastnl = fmt == 1 && len > 8 ? memrchr(s, '\n', len - 8) : NULL;
	const char *fast_end = lastnl ? lastnl : s;
	unsigned line = 0;
	int skipping = 0, rc = 0;
	char *joined = NULL;
	size_t jcap = 0;
	unsigned ncont = 0;
	int nalias = p->nalias;
	unsigned alias = picl_alias_bits(p);
	struct picl_par *par = lastnl ? picl_par_start(s, fast_end, alias) : NULL;
	size_t nchunks = par ? picl_par_nchunks(par) : 0, cons = 0;
	const char *cs = fast_end, *ce = fast_end; /* chunk `cons` */
	if (par)
		picl_par_bounds(par, 0, &cs, &ce);
	while (rc == 0 && s < end) {
		const char *lim = fast_end;
		if (par) {
			while (cons < nchunks && s >= cs) {
				/* s == cs: take the chunk; past it (a continued record
				 * ran into it): read its lines here */
				const char *stop;
				const struct picl_plain *c = picl_par_take(par, cons, &stop);
				if (s == cs && c->alias == alias) {
					rc = adopt_chunk(p, c, line, outdir, map, (size_t) (cs - data));
					s = stop;
					line += (unsigned) c->n;
				}
				picl_par_done(par, cons);
				if (++cons < nchunks)
					picl_par_bounds(par, cons, &cs, &ce);
				if (rc || s < cs)
					break;
			}
			if (rc)
				break;
			if (cons < nchunks)
				lim = cs;
		}
		if (s < lim) {
			s = picl_fast_lines(p, s, lim, &line, p->streaming ? PICL_BATCH : SIZE_MAX);
			if (p->streaming && p->n >= PICL_BATCH) {
				rc = picl_write_batch(p, outdir);
				if (map)
					map_release(map, (size_t) (s - data));
				continue;
			}
			if (s >= end)
				break;
			if (s == lim && lim != fast_end)
				continue; /* at the next chunk */
		}
		unsigned at = ++line; /* the record's first line */
		const char *q = memchr(s, '\n', (size_t) (end - s));
		if (!q)
			q = end;
		const char *next = q < end ? q + 1 : end;
		int nl = join_lines(s, q, end, &joined, &jcap, &s, &q, &next);
		if (nl < 0) {
			rc = weft_fail(e, WEFT_EINPUT, "%s:%u: record continued with '\\': expected a continuation "
				       "line, found the end of the file", p->path, at);
			break;
		}
		if (nl > 0) {
			line += (unsigned) nl - 1;
			if (ncont++ == 0)
				picl_warn(p, at, "record continued on the next line with '\\': joined (PICL files "
					  "have one record per line)", NULL);
		}
		const char *nul = memchr(s, 0, (size_t) (q - s));
		if (nul)
			rc = import_nul_byte(e, p->path, at, (size_t) (nul - data));
		else if (picl_tokenize(p, s, q))
			rc = weft_fail(e, WEFT_EINPUT, "%s:%u: a quoted string is not closed: expected '\"'", p->path,
				       at);
		else if (p->ntk == 0)
			;
		else if (fmt == 1)
			rc = picl_new_line(p, at);
		else
			rc = picl_old_line(p, at, &L, &skipping);
		s = next;
		if (p->nalias != nalias) { /* a -6 record: later lines read with it */
			nalias = p->nalias;
			alias = picl_alias_bits(p);
			if (par)
				picl_par_alias(par, alias);
		}
		if (rc == 0 && p->n >= PICL_BATCH && p->streaming)
			rc = picl_write_batch(p, outdir);
	}
	picl_par_end(par);
	free(joined);
	if (rc == 0 && fmt == 2)
		picl_old_convert(p, &L);
	free(L.v);
	if (rc == 0 && p->n + p->nwritten == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: no event record of any processor: nothing to import", p->path);
	return rc;
}

/* Everything read, as before reading (the warnings shown stay counted). */
static void picl_reset(struct picl *p)
{
	picl_write_free(p);
	free(p->r);
	p->r = NULL;
	p->n = p->cap = p->nwritten = 0;
	for (int i = 0; i < p->nlab; i++)
		free(p->lab[i].text);
	free(p->lab);
	p->lab = NULL;
	p->nlab = p->clab = 0;
	for (int i = 0; i < p->nfile; i++)
		free(p->file[i]);
	free(p->file);
	p->file = NULL;
	p->nfile = p->cfile = 0;
	picl_scope_free(p);
	picl_rows_free(p);
	picl_labels_free(p);
	p->alias = NULL;
	p->subset = NULL;
	p->nalias = p->calias = p->nsubset = p->csubset = 0;
	free(p->txt);
	p->txt = NULL;
	p->ntxt = p->ctxt = 0;
	p->ts_digits = p->has_files = p->has_stats = 0;
	p->nlater = p->nlater_more = 0;
}

static int picl_convert(const char *path, struct mapfile *in, const struct import_opts *o, const char *outdir,
			struct weft_err *e)
{
	const uint8_t *data = in->data;
	size_t len = in->size;
	struct picl p = {0};
	p.path = path;
	p.err = e;
	p.quiet = o->quiet;
	p.loc = o->locate;
	if (p.loc)
		p.loc->text = 1;
	unsigned bad = 0;
	size_t boff = 0;
	/* with --format picl the first line is read like the others (its
	 * error, if any, then says what is wrong with it) */
	int fmt = sniff(&p, data, len, &bad, &boff, o->format != NULL);
	if (o->format && strcmp(o->format, "picl-old") == 0)
		fmt = 2;
	else if (o->format && strcmp(o->format, "picl-new") == 0)
		fmt = 1;
	int rc = 0;
	if (fmt < 0)
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s:%u: this line looks like the %s PICL format but earlier lines like the other: "
			       "expected one format (use --format picl-old or picl-new)",
			       path, bad, "other");
	else if (fmt == 0 && bad && data[boff] == 0)
		rc = import_nul_byte(e, path, bad, boff);
	else if (fmt == 0 && bad)
		rc = weft_fail(e, WEFT_EINPUT, "%s:%u: byte offset %zu: control byte 0x%02x: not a PICL trace (PICL logs are text)",
			       path, bad, boff, data[boff]);
	else if (fmt == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: not a PICL trace: no line looks like a PICL record", path);
	if (rc == 0) {
		/* a new-format log is read in batches (sorted) or whole (else) */
		p.streaming = fmt == 1;
		p.cap = p.streaming ? 2 * PICL_BATCH : len / 24 + 4096; /* whole: records are longer */
		p.r = weft_xmalloc(p.cap * sizeof(*p.r));
		rc = read_log(&p, (const char *) data, len, fmt, in, outdir);
		if (rc == 0)
			rc = picl_write_rest(&p, outdir);
		if (rc == PICL_RESTART) {
			/* found unsorted after writing: again, holding every record,
			 * without showing the warnings of the reading twice */
			int shown = p.nwarn;
			picl_reset(&p);
			if (p.loc) /* the streams are written again */
				p.loc->found = 0;
			p.streaming = 0;
			p.nwarn = 0;
			p.wsilent = shown;
			p.cap = len / 24 + 4096;
			p.r = weft_xmalloc(p.cap * sizeof(*p.r));
			rc = read_log(&p, (const char *) data, len, fmt, in, outdir);
			if (rc == 0)
				rc = picl_write_rest(&p, outdir);
		}
	}
	picl_reset(&p);
	free(p.tk);
	return rc;
}

const struct weft_import_fmt import_picl = {
	"picl", "PICL traces, new (ORNL/TM-12125) and old (PICL 1.x) formats", picl_detect, picl_convert,
};
