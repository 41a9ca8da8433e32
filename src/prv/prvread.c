/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prvread: header objects and body records of a .prv or .prv.gz. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "prv/prvread.h"
#include "util/macros.h"

static int bad(struct prvread *r, struct weft_err *err, const char *what)
{
	return weft_fail(err, WEFT_EINPUT, "%s:%llu: %s", r->path, (unsigned long long) r->line, what);
}

/* An unsigned decimal at *p (p < end); -1 when there is none. */
static int num(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	while (s < end && *s >= '0' && *s <= '9')
		x = x * 10 + (uint64_t) (*s++ - '0');
	if (s == *p)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

static int snum(const char **p, const char *end, int64_t *v)
{
	int neg = *p < end && **p == '-';
	if (neg)
		(*p)++;
	uint64_t u;
	if (num(p, end, &u))
		return -1;
	*v = neg ? -(int64_t) u : (int64_t) u;
	return 0;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -1;
	(*p)++;
	return 0;
}

static int header(struct prvread *r, const char *s, const char *end)
{
	const char *p = memchr(s, ')', (size_t) (end - s));
	uint64_t v, n;
	if (!p || p + 1 >= end || p[1] != ':')
		return -1;
	p += 2;
	if (num(&p, end, &r->ftime))
		return -1;
	/* the unit: _ns, _us, _ms, _s (none: ns) */
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {{"_ns", 1}, {"_us", 1000}, {"_ms", 1000000}, {"_s", 1000000000}};
	r->unit_ns = 1;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		size_t k = strlen(units[i].name);
		if ((size_t) (end - p) > k && memcmp(p, units[i].name, k) == 0 && p[k] == ':')
			r->unit_ns = units[i].ns;
	}
	while (p < end && *p != ':')
		p++;
	if (expect(&p, end, ':') || num(&p, end, &v))
		return -1;
	if (p < end && *p == '(') { /* resources: skip the CPU counts */
		while (p < end && *p != ')')
			p++;
		p++;
	}
	if (expect(&p, end, ':') || num(&p, end, &n) || n == 0 || n > 65535)
		return -1;
	r->nappl = (uint32_t) n;
	r->task_base = calloc(n + 1, sizeof(uint32_t));
	size_t cap = 16;
	r->tbase = malloc(cap * sizeof(uint32_t));
	r->tcount = malloc(cap * sizeof(uint32_t));
	if (!r->task_base || !r->tbase || !r->tcount)
		return -1;
	for (uint64_t a = 0; a < n; a++) {
		uint64_t nt;
		/* appls are separated by ':' (Paraver) or ',' (ovni, weft) */
		if ((expect(&p, end, ':') && (a == 0 || expect(&p, end, ','))) || num(&p, end, &nt) ||
		    expect(&p, end, '('))
			return -1;
		r->task_base[a] = r->ntasks;
		for (uint64_t t = 0; t < nt; t++) {
			uint64_t nth, node;
			if ((t && expect(&p, end, ',')) || num(&p, end, &nth) || expect(&p, end, ':') ||
			    num(&p, end, &node))
				return -1;
			if (r->ntasks == cap) {
				cap *= 2;
				r->tbase = weft_xrealloc(r->tbase, cap * sizeof(uint32_t));
				r->tcount = weft_xrealloc(r->tcount, cap * sizeof(uint32_t));
			}
			r->tbase[r->ntasks] = r->nrows;
			r->tcount[r->ntasks++] = (uint32_t) nth;
			r->nrows += (uint32_t) nth;
		}
		if (expect(&p, end, ')'))
			return -1;
	}
	r->task_base[n] = r->ntasks;
	return 0;
}

int prvread_is_gz(const char *path)
{
	size_t n = strlen(path);
	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

#define GZ_PIECE (1u << 20)

/* .gz: more uncompressed bytes after buf[len]; the bytes before off are
 * dropped first. 0, or -1 with err filled (a damaged stream). */
static int gz_more(struct prvread *r, struct weft_err *err)
{
	if (r->off) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->off = 0;
	}
	if (r->cap - r->len < GZ_PIECE / 2)
		r->buf = weft_xrealloc(r->buf, r->cap *= 2);
	int n = gzread(r->gz, r->buf + r->len, (unsigned) (r->cap - r->len));
	int zerr = Z_OK;
	const char *msg = gzerror(r->gz, &zerr);
	/* a truncated stream ends like EOF, with Z_BUF_ERROR left in gzerror() */
	if (n < 0 || zerr != Z_OK)
		return weft_fail(err, WEFT_EINPUT, "%s: gzip read failed after line %llu: %s", r->path,
				 (unsigned long long) r->line, msg && *msg ? msg : "unknown error");
	if (n == 0)
		r->eof = 1;
	r->len += (size_t) n;
	return 0;
}

/* The next line [*p, *le) (no newline): 1, 0 at the end, -1 on a damaged
 * .gz (err filled). */
static int next_line(struct prvread *r, const char **p, const char **le, struct weft_err *err)
{
	if (!r->gz) {
		const char *base = (const char *) r->m.data, *end = base + r->m.size;
		if (r->off >= r->m.size)
			return 0;
		*p = base + r->off;
		const char *nl = memchr(*p, '\n', (size_t) (end - *p));
		*le = nl ? nl : end;
		r->off = (size_t) (*le - base) + 1;
		map_release(&r->m, r->off);
		return 1;
	}
	for (;;) {
		const char *s = r->buf + r->off;
		const char *nl = memchr(s, '\n', r->len - r->off);
		if (nl || (r->eof && r->off < r->len)) {
			*p = s;
			*le = nl ? nl : r->buf + r->len;
			r->off = (size_t) (*le - r->buf) + (nl != NULL);
			return 1;
		}
		if (r->eof)
			return 0;
		if (gz_more(r, err))
			return -1;
	}
}

int prvread_open(struct prvread *r, const char *path, struct weft_err *err)
{
	memset(r, 0, sizeof(*r));
	r->path = weft_xstrdup(path);
	if (prvread_is_gz(path)) {
		int fd = input_open(path, err);
		if (fd < 0)
			return -1;
		r->gz = gzdopen(fd, "rb");
		if (!r->gz) {
			close(fd);
			return weft_fail(err, WEFT_EINPUT, "%s: cannot open for reading", path);
		}
		r->buf = weft_xmalloc(r->cap = GZ_PIECE);
	} else if (map_open(&r->m, path, err)) {
		return -1;
	}
	const char *s, *nl;
	r->line = 1;
	int rc = next_line(r, &s, &nl, err);
	if (rc < 0)
		return -1;
	if (rc == 0 || nl - s < 9 || memcmp(s, "#Paraver ", 9) || header(r, s, nl))
		return bad(r, err,
			   r->gz ? "expected a header \"#Paraver (DATE):FTIME_ns:RESOURCES:NAPPL:TASKS\" "
				   "once uncompressed"
				 : "expected a header \"#Paraver (DATE):FTIME_ns:RESOURCES:NAPPL:TASKS\"");
	return 0;
}

/* The row of "appl:task:thread" (1-based) at *p. */
static int object(struct prvread *r, const char **p, const char *end, uint32_t *row)
{
	uint64_t a, t, th;
	if (num(p, end, &a) || expect(p, end, ':') || num(p, end, &t) || expect(p, end, ':') || num(p, end, &th))
		return -1;
	if (a < 1 || a > r->nappl || t < 1 || t > r->task_base[a] - r->task_base[a - 1] || th < 1)
		return -1;
	uint32_t task = r->task_base[a - 1] + (uint32_t) t - 1;
	if (th > r->tcount[task])
		return -1;
	*row = r->tbase[task] + (uint32_t) th - 1;
	return 0;
}

int prvread_next(struct prvread *r, struct prvrec *rec, struct weft_err *err)
{
	for (;;) {
		const char *p, *le;
		int got = next_line(r, &p, &le, err);
		if (got <= 0)
			return got;
		r->line++;
		if (le > p && le[-1] == '\r')
			le--;
		if (le == p || *p == '#' || *p == 'c' || *p == '4')
			continue;
		uint64_t cpu, u;
		rec->kind = *p - '0';
		p++;
		if (expect(&p, le, ':') || num(&p, le, &cpu) || expect(&p, le, ':') || object(r, &p, le, &rec->row) ||
		    expect(&p, le, ':'))
			return bad(r, err, "expected K:cpu:appl:task:thread: naming an object of the header");
		switch (rec->kind) {
		case 1:
			if (num(&p, le, &rec->t0) || expect(&p, le, ':') || num(&p, le, &rec->t1) ||
			    expect(&p, le, ':') || snum(&p, le, &rec->state))
				return bad(r, err, "expected a state record 1:cpu:appl:task:thread:begin:end:state");
			return 1;
		case 2:
			if (num(&p, le, &rec->t0))
				return bad(r, err, "expected an event time");
			rec->npairs = 0;
			while (p < le) {
				int64_t ty, va;
				if (expect(&p, le, ':') || snum(&p, le, &ty) || expect(&p, le, ':') || snum(&p, le, &va))
					return bad(r, err, "expected :type:value pairs");
				if ((size_t) rec->npairs == r->cap_pairs) {
					r->cap_pairs = r->cap_pairs ? 2 * r->cap_pairs : 64;
					r->types = weft_xrealloc(r->types, r->cap_pairs * sizeof(*r->types));
					r->values = weft_xrealloc(r->values, r->cap_pairs * sizeof(*r->values));
				}
				r->types[rec->npairs] = ty;
				r->values[rec->npairs++] = va;
			}
			rec->type = r->types;
			rec->value = r->values;
			return 1;
		case 3: {
			uint64_t psend;
			if (num(&p, le, &rec->t0) || expect(&p, le, ':') || num(&p, le, &psend) || expect(&p, le, ':') ||
			    num(&p, le, &cpu) || expect(&p, le, ':') || object(r, &p, le, &rec->row2) ||
			    expect(&p, le, ':') || num(&p, le, &rec->t1) || expect(&p, le, ':') || num(&p, le, &u))
				return bad(r, err, "expected a communication record 3:...:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag");
			return 1;
		}
		default:
			return bad(r, err, "expected a record of kind 1, 2, 3 or 4, a comment or a communicator");
		}
	}
}

void prvread_close(struct prvread *r)
{
	if (r->gz)
		gzclose(r->gz);
	else
		map_close(&r->m);
	free(r->buf);
	free(r->types);
	free(r->values);
	free(r->path);
	free(r->task_base);
	free(r->tbase);
	free(r->tcount);
	memset(r, 0, sizeof(*r));
}
