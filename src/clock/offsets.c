/* SPDX-License-Identifier: GPL-3.0-or-later */
/* offsets: ovnisync's two tables (doc/formats/ovni.md §6.2, §6.3) read
 * into a clock table (clockfile.h).
 *
 * Offset table: line 1 is a header and is not checked, as in ovni; each
 * further line is "rank hostname median mean stddev" (ns); the median is the
 * constant offset of every loom of that host, read as ovniemu reads it (a
 * decimal number cut toward zero). Blank lines are skipped
 * (ovniemu stops reading at one); a host appearing twice is an error.
 *
 * Drift table (ovnisync -d): a header "wallclock host1 host2 ..." (one
 * column per rank, the reference rank 0 first) and rows "wall_seconds off1
 * off2 ..." (CLOCK_REALTIME of rank 0 with six decimals, then each rank's
 * offset in ns). Each host gets a least-squares line through its samples;
 * sample k is placed on the trace's time line by the assumption of
 * doc/clock.md: the first row is taken at the first event of the reference
 * host, later rows (wall_k - wall_0) later on the reference clock, which is
 * host h's local time (that) - off_k(h). A host named by several ranks uses
 * its first column (ranks of one host share its clock). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock/clockfile.h"

/* Split a line into at most `max` blank-separated fields; returns the count
 * (max + 1 when there are more). Fields point into `buf`, NUL-terminated. */
/* the field separators; a header's field count is bounded by counting them */
static int is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int split(char *buf, char **f, int max)
{
	int n = 0;
	char *p = buf;
	for (;;) {
		while (is_sep(*p))
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		f[n++] = p;
		while (*p && !is_sep(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int parse_int(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

static int parse_num(const char *s)
{
	char *end;
	errno = 0;
	strtod(s, &end);
	return (end == s || *end || errno) ? -1 : 0;
}

/* The median offset as ovniemu takes it: a floating-point number (what
 * scanf's %lf reads, e.g. "5.500" or "1e3") cut to its integer part
 * toward zero ("5.5" is 5 ns, "-5.5" is -5), which must fit in 63 bits. */
static int parse_median(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (end == s || *end || errno || !(d > -9.2e18 && d < 9.2e18))
		return -1;
	*out = (int64_t) d;
	return 0;
}

/* "S[.FFFFFF...]" seconds, non-negative, as exact ns (digits past the 9th
 * decimal are dropped). */
static int parse_wall(const char *s, int64_t *ns)
{
	const char *p = s;
	int64_t sec = 0, frac = 0;
	int nd = 0, nf = 0;
	for (; *p >= '0' && *p <= '9'; p++, nd++) {
		if (sec > (INT64_MAX / 1000000000 - 9) / 10)
			return -1;
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, nf++)
			if (nf < 9)
				frac = frac * 10 + (*p - '0');
	if (*p || nd == 0)
		return -1;
	for (int k = nf; k < 9; k++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	return 0;
}

/* One line of text at a time, NUL-terminated in a reused buffer. */
struct lines {
	const char *text;
	size_t len, pos;
	char *buf;
	int line;
};

static char *next_line(struct lines *l)
{
	if (l->pos >= l->len)
		return NULL;
	const char *nl = memchr(l->text + l->pos, '\n', l->len - l->pos);
	size_t n = nl ? (size_t) (nl - (l->text + l->pos)) : l->len - l->pos;
	l->buf = weft_xrealloc(l->buf, n + 1);
	memcpy(l->buf, l->text + l->pos, n);
	l->buf[n] = '\0';
	l->pos += n + (nl ? 1 : 0);
	l->line++;
	return l->buf;
}

static int offset_table(struct clock_table *t, struct lines *l, const char *path, struct weft_err *e)
{
	t->form = CLOCK_FORM_OFFSETS;
	char *s;
	while ((s = next_line(l))) {
		char *f[6];
		int nf = split(s, f, 5);
		if (nf == 0)
			continue;
		int line = l->line;
		if (nf != 5)
			return weft_fail(e, WEFT_EINPUT,
					 "%s:%d: expected 5 fields (rank hostname offset_median offset_mean "
					 "offset_std), found %s%d",
					 path, line, nf > 5 ? "more than " : "", nf > 5 ? 5 : nf);
		int64_t rank, off;
		if (parse_int(f[0], &rank))
			return weft_fail(e, WEFT_EINPUT, "%s:%d: field 1 (rank): expected an integer, found \"%s\"",
					 path, line, f[0]);
		if (parse_median(f[2], &off))
			return weft_fail(e, WEFT_EINPUT,
					 "%s:%d: field 3 (offset_median): expected a number of ns, found \"%s\"", path,
					 line, f[2]);
		if (parse_num(f[3]) || parse_num(f[4]))
			return weft_fail(e, WEFT_EINPUT,
					 "%s:%d: fields 4-5 (offset_mean offset_std): expected numbers, found "
					 "\"%s\" \"%s\"",
					 path, line, f[3], f[4]);
		for (int i = 0; i < t->n; i++)
			if (strcmp(t->ent[i].name, f[1]) == 0)
				return weft_fail(e, WEFT_EINPUT, "%s:%d: host \"%s\" appears twice (first on line %d)",
						 path, line, f[1], t->ent[i].line);
		struct clock_entry *en = clockfile_add(t, f[1], 1);
		en->map.offset = off;
		en->line = line;
		en->reference = rank == 0;
	}
	if (t->n == 0)
		return weft_fail(e, WEFT_EINPUT, "%s: no entries after the header line", path);
	return 0;
}

/* Samples of a drift table must stay below this in magnitude (ns), so that
 * a product of two fits in 128 bits; larger ones are refused, never wrapped. */
#define FIT_LIMIT ((__int128) 1 << 62)

/* *r = a * b; nonzero when it does not fit (no library call: clang's
 * __builtin_mul_overflow on 128 bits needs compiler-rt). */
static int mul_overflow(__int128 a, __int128 b, __int128 *r)
{
	const __int128 max = (__int128) (~(unsigned __int128) 0 >> 1);
	if (a == 0 || b == 0) {
		*r = 0;
		return 0;
	}
	if (a == -max - 1 || b == -max - 1)
		return 1;
	__int128 ua = a < 0 ? -a : a, ub = b < 0 ? -b : b;
	if (ua > max / ub)
		return 1;
	*r = a * b;
	return 0;
}

struct column {
	int entry;  /* index in t->ent, -1 for a repeated host */
	__int128 sx, sy, sxx, sxy; /* exact sums of the integer samples */
};

/* Add one row's samples (offsets g[1..nh] at dw ns since the first row)
 * to the hosts' sums. Returns 0, or -1 with e filled. */
static int sample_row(struct clock_table *t, struct column *col, int nh, char **g, int64_t dw, const char *path,
		      int line, struct weft_err *e)
{
	for (int h = 0; h < nh; h++) {
		int64_t off;
		if (parse_int(g[1 + h], &off))
			return weft_fail(e, WEFT_EINPUT,
					 "%s:%d: field %d (offset of host %s): expected an integer number "
					 "of ns, found \"%s\"",
					 path, line, h + 2, t->ent[col[h].entry >= 0 ? col[h].entry : 0].name,
					 g[1 + h]);
		if (col[h].entry < 0)
			continue;
		/* host h's local time of this sample, relative to the reference
		 * host's first event (the assumption of doc/clock.md) */
		__int128 x = (__int128) dw - off, y = off;
		if (x >= FIT_LIMIT || x <= -FIT_LIMIT || y >= FIT_LIMIT || y <= -FIT_LIMIT)
			return weft_fail(e, WEFT_EINPUT,
					 "%s:%d: field %d (offset of host %s): expected an offset and a "
					 "time since the first row within +-2^62 ns, found \"%s\"",
					 path, line, h + 2, t->ent[col[h].entry].name, g[1 + h]);
		/* |x|, |y| < 2^62: each product fits; the sums are checked */
		if (__builtin_add_overflow(col[h].sx, x, &col[h].sx) ||
		    __builtin_add_overflow(col[h].sy, y, &col[h].sy) ||
		    __builtin_add_overflow(col[h].sxx, x * x, &col[h].sxx) ||
		    __builtin_add_overflow(col[h].sxy, x * y, &col[h].sxy))
			return weft_fail(e, WEFT_EINPUT,
					 "%s:%d: field %d (offset of host %s): the drift fit's sums "
					 "overflow 128 bits here: expected fewer or smaller samples",
					 path, line, h + 2, t->ent[col[h].entry].name);
	}
	return 0;
}

/* Fit host en's offset and drift to its column's `rows` samples. */
static int fit_host(struct clock_entry *en, const struct column *c, int rows, const char *path,
		    struct weft_err *e)
{
	/* least squares with exact integer sums; the line is referred to
	 * the samples' mean time, where its offset is best known */
	__int128 n = rows, nxx, xx, nxy, xy, den, num;
	if (mul_overflow(n, c->sxx, &nxx) || mul_overflow(c->sx, c->sx, &xx) ||
	    mul_overflow(n, c->sxy, &nxy) || mul_overflow(c->sx, c->sy, &xy) ||
	    __builtin_sub_overflow(nxx, xx, &den) || __builtin_sub_overflow(nxy, xy, &num))
		return weft_fail(e, WEFT_EINPUT,
				 "%s: host %s: the drift fit overflows 128 bits: expected fewer or "
				 "smaller samples", path, en->name);
	long double b = 0;
	/* one row, or samples at one instant: a constant offset */
	if (rows > 1 && den > 0)
		b = (long double) num / (long double) den;
	long double xm = (long double) c->sx / (long double) n;
	long double ym = (long double) c->sy / (long double) n;
	int64_t tref = llroundl(xm);
	long double a = ym + b * ((long double) tref - xm);
	long double ppt = b * (long double) CLOCK_PPT;
	if (fabsl(ppt) > (long double) CLOCK_DRIFT_MAX)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: host %s: the fitted drift is %.1Lf ppm: expected at most 10000 ppm "
				 "(are the offsets in ns and the wall clock in seconds?)",
				 path, en->name, b * 1e6L);
	en->map.drift = llroundl(ppt);
	en->map.offset = llroundl(a);
	en->tref_rel = tref;
	en->nsamples = rows;
	return 0;
}

static int drift_table(struct clock_table *t, struct lines *l, char *header, const char *path,
		       struct weft_err *e)
{
	t->form = CLOCK_FORM_DRIFT;
	int cap = 1;
	for (const char *p = header; *p; p++)
		cap += is_sep(*p); /* every separator split() knows, '\r' too */
	char **f = weft_xcalloc((size_t) cap + 1, sizeof(*f));
	char *hcopy = header; /* split in place: the fields point into it */
	int nf = split(hcopy, f, cap);
	int nh = nf - 1;
	int rc = 0;
	struct column *col = NULL;
	char **g = NULL;
	if (nh < 1) {
		rc = weft_fail(e, WEFT_EINPUT, "%s:1: drift table header: expected \"wallclock\" and one "
			       "column per host, found no host", path);
		goto out;
	}
	col = weft_xcalloc((size_t) nh, sizeof(*col));
	for (int h = 0; h < nh; h++) {
		col[h].entry = -1;
		int dup = 0;
		for (int k = 0; k < h; k++)
			dup |= strcmp(f[1 + k], f[1 + h]) == 0;
		if (dup)
			continue;
		struct clock_entry *en = clockfile_add(t, f[1 + h], 1);
		en->line = 1;
		en->reference = h == 0;
		en->tref_from_start = 1;
		col[h].entry = t->n - 1;
	}
	g = weft_xcalloc((size_t) nh + 2, sizeof(*g));
	int64_t w0 = 0, wprev = 0;
	int rows = 0;
	char *s;
	while ((s = next_line(l))) {
		int n = split(s, g, nh + 1);
		if (n == 0)
			continue;
		int line = l->line;
		if (n != nh + 1) {
			rc = weft_fail(e, WEFT_EINPUT,
				       "%s:%d: expected %d fields (wallclock and one offset per host of the "
				       "header), found %s%d",
				       path, line, nh + 1, n > nh + 1 ? "more than " : "", n > nh + 1 ? nh + 1 : n);
			goto out;
		}
		int64_t w;
		if (parse_wall(g[0], &w)) {
			rc = weft_fail(e, WEFT_EINPUT,
				       "%s:%d: field 1 (wallclock): expected seconds such as 1700000000.123456, "
				       "found \"%s\"",
				       path, line, g[0]);
			goto out;
		}
		if (rows && w < wprev) {
			rc = weft_fail(e, WEFT_EINPUT,
				       "%s:%d: field 1 (wallclock): expected a time >= the previous row's "
				       "(%lld.%06lld), found %s",
				       path, line, (long long) (wprev / 1000000000),
				       (long long) (wprev % 1000000000 / 1000), g[0]);
			goto out;
		}
		if (!rows)
			w0 = w;
		wprev = w;
		if (sample_row(t, col, nh, g, w - w0, path, line, e)) {
			rc = -1;
			goto out;
		}
		rows++;
	}
	if (rows == 0) {
		rc = weft_fail(e, WEFT_EINPUT, "%s: drift table with no sample row after the header", path);
		goto out;
	}
	for (int h = 0; h < nh; h++)
		if (col[h].entry >= 0 && fit_host(&t->ent[col[h].entry], &col[h], rows, path, e)) {
			rc = -1;
			goto out;
		}
out:
	free(g);
	free(col);
	free(f);
	return rc;
}

int ovnisync_parse(struct clock_table *t, const char *text, size_t len, const char *path,
		   struct weft_err *e)
{
	struct lines l = {text, len, 0, NULL, 0};
	char *h = next_line(&l);
	int rc;
	if (!h) {
		rc = weft_fail(e, WEFT_EINPUT, "%s: empty file, expected ovnisync's header line", path);
	} else {
		char *f[2];
		char *copy = weft_xstrdup(h);
		int nf = split(copy, f, 1);
		int drift = nf >= 1 && strcmp(f[0], "wallclock") == 0;
		free(copy);
		if (drift) {
			char *hdr = weft_xstrdup(h);
			rc = drift_table(t, &l, hdr, path, e);
			free(hdr);
		} else {
			rc = offset_table(t, &l, path, e); /* the header is not checked */
		}
	}
	free(l.buf);
	return rc;
}
