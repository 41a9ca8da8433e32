/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prvdiff: compare two Paraver traces semantically, the test oracle between
 * weft's output and ovniemu's reference output.
 *
 * Each trace is reduced to step functions: for every (row, event type) the
 * value in force over time, built from the event records of that row (at equal
 * times the last value in file order wins, the value before the first record
 * is 0, consecutive equal values are one step). Rows are matched across the two
 * files through their names in the .row files, not through their numbers.
 * Optionally the state records of each row are compared the same way.
 *
 * Standalone: links only libc and zlib (gzread reads plain files as well).
 * Exit status: 0 equal, 1 different, 2 usage or bad input. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "util/macros.h"

static const char help_text[] =
	"Usage: prvdiff [--types LIST] [--rows name|ovni] [--states [--state-type T]] [--max N]\n"
	"               A.prv B.prv\n"
	"\n"
	"Compare two Paraver traces semantically. A and B may be .prv or .prv.gz;\n"
	"each needs its .row file next to it (the same name with .row instead of\n"
	".prv or .prv.gz). Row i of the LEVEL THREAD block of the .row file names\n"
	"Paraver thread i in global order (application, then task, then thread, as\n"
	"declared by the .prv header); rows of A and B are matched by name.\n"
	"\n"
	"For every (row, event type) the value is taken as a step function of time:\n"
	"at equal times the last value in file order wins, the value before the first\n"
	"record is 0, and repeating a value or writing 0 first changes nothing. Two\n"
	"traces are equal when all these step functions are equal. Each differing\n"
	"(row, type) is reported as\n"
	"  row KEY type T: first difference at time X: A has V1, B has V2\n"
	"with the values in force at X, then a line 'N differences in M (row, type)\n"
	"pairs'. A row found in one file only is reported when it has a non-zero value.\n"
	"\n"
	"Options:\n"
	"  --types LIST     event types to compare, e.g. 1-4,6,7,100-199 (default: all)\n"
	"  --rows name      match rows by their full name, blanks trimmed (default)\n"
	"  --rows ovni      match rows by the first two words of the name, so that\n"
	"                   ovniemu's 'TH 1.5' and ' CPU 0.3' match 'TH 1.5 node00/3'\n"
	"                   and 'CPU 0.3 node00'\n"
	"  --states         also compare state records (1:...) as one step function per\n"
	"                   row (the state in force; 0 where none), reported as type\n"
	"                   'state'; overlapping state intervals are an input error\n"
	"  --state-type T   with --states: a trace without any state record takes its\n"
	"                   states from its events of type T, each value lasting until\n"
	"                   the next one or the trace end time of the header (ovniemu\n"
	"                   writes thread states only as events of type 4)\n"
	"  --max N          print at most N difference lines (default 20); all are\n"
	"                   counted\n"
	"  -h, --help       show this help\n"
	"\n"
	"Ignored: communication records (3:...; not compared yet, could be added),\n"
	"global operations (4:...), comments (#...), empty lines, communicator lines\n"
	"and the trace end time of the header. Times are compared in the header unit;\n"
	"when A and B use different units both are converted to ns.\n"
	"\n"
	"Input errors (exit 2, the message names file and line): bad header, .row\n"
	"THREAD level size different from the header's thread count, duplicate row\n"
	"keys, malformed records, records naming a thread or CPU the header lacks,\n"
	"and records of one thread out of time order (Paraver needs them sorted).\n"
	"\n"
	"Exit status: 0 no differences, 1 differences, 2 usage or input error.\n";

static const char usage_line[] =
	"usage: prvdiff [--types LIST] [--rows name|ovni] [--states [--state-type T]] [--max N] "
	"A.prv B.prv\n";

/* ---- errors and memory ---------------------------------------------------- */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("prvdiff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("prvdiff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(usage_line, stderr);
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		die("out of memory (%zu bytes)", n);
	return q;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (p == NULL)
		die("out of memory (%zu x %zu bytes)", n, sz);
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* p (elements of size sz, capacity *cap) grown to hold at least need. */
static void *grow(void *p, size_t *cap, size_t need, size_t sz)
{
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return p;
	while (c < need) {
		if (c > SIZE_MAX / 2 / sz)
			die("out of memory (array of %zu elements)", need);
		c *= 2;
	}
	*cap = c;
	return xrealloc(p, c * sz);
}

/* ---- line reader (plain or gzip) ------------------------------------------ */

struct reader {
	gzFile gz;
	const char *path;
	char *buf;
	size_t cap, len, pos; /* unread data is buf[pos..len) */
	bool eof;
	unsigned long line; /* number of the line returned last */
};

static void rd_open(struct reader *r, const char *path, const char *what)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	errno = 0;
	r->gz = gzopen(path, "rb");
	if (r->gz == NULL)
		die("cannot open %s%s: %s", path, what, errno ? strerror(errno) : "out of memory");
	gzbuffer(r->gz, 1u << 17);
	r->cap = 1u << 20;
	r->buf = xrealloc(NULL, r->cap);
}

static void rd_close(struct reader *r)
{
	if (r->gz != NULL)
		gzclose(r->gz);
	free(r->buf);
	r->gz = NULL;
	r->buf = NULL;
}

/* The next line without its "\n" or "\r\n", NUL-terminated and writable; NULL
 * at the end of the file. Valid until the next call. */
static char *rd_line(struct reader *r)
{
	char *s, *nl;
	size_t avail, l;

	for (;;) {
		s = r->buf + r->pos;
		avail = r->len - r->pos;
		nl = memchr(s, '\n', avail);
		if (nl != NULL) {
			l = (size_t) (nl - s);
			r->pos += l + 1;
			break;
		}
		if (r->eof) {
			if (avail == 0)
				return NULL;
			l = avail; /* last line without a newline; len < cap */
			r->pos = r->len;
			break;
		}
		if (r->pos > 0) {
			memmove(r->buf, s, avail);
			r->len = avail;
			r->pos = 0;
		}
		if (r->len + 1 >= r->cap)
			r->buf = grow(r->buf, &r->cap, r->cap + 1, 1);
		size_t want = r->cap - 1 - r->len;
		if (want > INT_MAX)
			want = INT_MAX;
		int n = gzread(r->gz, r->buf + r->len, (unsigned) want);
		if (n < 0) {
			int errnum;
			const char *msg = gzerror(r->gz, &errnum);
			die("%s: read error after line %lu: %s", r->path, r->line,
			    errnum == Z_ERRNO ? strerror(errno) : msg);
		}
		if (n == 0) {
			int errnum;
			const char *msg = gzerror(r->gz, &errnum);
			if (errnum != Z_OK)
				die("%s: read error after line %lu: %s (truncated gzip file?)", r->path,
				    r->line, msg);
			r->eof = true;
		}
		r->len += (size_t) n;
	}
	s[l] = '\0';
	r->line++;
	if (l > 0 && s[l - 1] == '\r')
		s[--l] = '\0';
	if (strlen(s) != l)
		die("%s:%lu: NUL byte in the line", r->path, r->line);
	return s;
}

/* ---- number scanning ------------------------------------------------------ */

/* Decimal digits at *pp into *out (at least one digit, no overflow). */
static bool scan_u64(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return false;
	do {
		unsigned d = (unsigned) (*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		p++;
	} while (*p >= '0' && *p <= '9');
	*pp = p;
	*out = v;
	return true;
}

static bool scan_i64(const char **pp, int64_t *out)
{
	const char *p = *pp;
	bool neg = false;
	uint64_t u;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (!scan_u64(&p, &u))
		return false;
	if (neg) {
		if (u > (uint64_t) INT64_MAX + 1)
			return false;
		*out = u == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) u;
	} else {
		if (u > (uint64_t) INT64_MAX)
			return false;
		*out = (int64_t) u;
	}
	*pp = p;
	return true;
}

/* ---- options -------------------------------------------------------------- */

struct range {
	uint32_t lo, hi;
};

enum row_mode { ROWS_NAME, ROWS_OVNI };

static struct {
	bool all_types;
	struct range *ranges;
	size_t nranges;
	enum row_mode rows;
	bool states;
	int64_t state_type; /* -1: none */
	uint64_t max;
} opt = { .all_types = true, .rows = ROWS_NAME, .state_type = -1, .max = 20 };

static void parse_types(const char *list)
{
	const char *p = list;
	size_t cap = 0;

	opt.all_types = false;
	for (;;) {
		uint64_t lo, hi;
		if (!scan_u64(&p, &lo) || lo > UINT32_MAX)
			usage_error("--types '%s': expected a type number (0..%" PRIu32 ") at '%s'",
				    list, UINT32_MAX, p);
		hi = lo;
		if (*p == '-') {
			p++;
			if (!scan_u64(&p, &hi) || hi > UINT32_MAX)
				usage_error("--types '%s': expected the end of a range at '%s'",
					    list, p);
			if (hi < lo)
				usage_error("--types '%s': empty range %" PRIu64 "-%" PRIu64, list,
					    lo, hi);
		}
		opt.ranges = grow(opt.ranges, &cap, opt.nranges + 1, sizeof(*opt.ranges));
		opt.ranges[opt.nranges].lo = (uint32_t) lo;
		opt.ranges[opt.nranges].hi = (uint32_t) hi;
		opt.nranges++;
		if (*p == '\0')
			break;
		if (*p != ',')
			usage_error("--types '%s': expected ',' or '-' at '%s'", list, p);
		p++;
	}
}

static bool type_selected(uint32_t type)
{
	static bool cached;
	static uint32_t cached_type;
	static bool cached_result;

	if (opt.all_types)
		return true;
	if (cached && cached_type == type)
		return cached_result;
	bool sel = false;
	for (size_t i = 0; i < opt.nranges; i++) {
		if (type >= opt.ranges[i].lo && type <= opt.ranges[i].hi) {
			sel = true;
			break;
		}
	}
	cached = true;
	cached_type = type;
	cached_result = sel;
	return sel;
}

/* ---- traces --------------------------------------------------------------- */

struct point {
	uint64_t t;
	int64_t v;
};

/* The collapsed step function of one (row, tkey): tkey 0 is the state,
 * tkey = type + 1 an event type, TKEY_SHADOW the events of --state-type kept
 * aside until the end of the file says whether they stand for the states. Points have strictly increasing times and
 * each value differs from the previous one (the first from 0). */
struct series {
	uint32_t row;
	uint64_t tkey;
	struct point *p;
	size_t n, cap;
};

#define TKEY_SHADOW (UINT64_C(1) << 33) /* above every type + 1, below the row bits */

struct task {
	uint32_t nthreads, node, row0;
};

struct slot {
	uint64_t key;
	size_t idx; /* series index + 1; 0 = empty */
};

struct trace {
	const char *path;
	char *rowpath;
	const char *label; /* "A" or "B" */
	struct reader rd;
	uint64_t unit_ns; /* 1, 1000 or 1000000 */
	uint64_t ftime;   /* trace end time of the header, in the header unit */
	uint64_t nstates; /* state records read */
	uint64_t scale;   /* multiply body times by this */
	uint32_t nnodes, ncpus;
	uint32_t *cpu_node; /* [1..ncpus] -> node (1-based) */
	uint32_t nappl;
	uint32_t *appl_task0; /* [nappl + 1]: first task index of each application */
	struct task *tasks;
	size_t ntasks, tasks_cap;
	uint32_t nrows;
	uint64_t *last_time; /* per row */
	uint64_t *state_end; /* per row, with --states */
	char **names;         /* per row: name from the .row file */
	char **keys;          /* per row: match key */
	unsigned long *name_line;
	struct series *ser;
	size_t nser, ser_cap;
	struct slot *hash;
	size_t hcap, hused;
	size_t *row_first; /* after sorting: series of row r are [row_first[r], row_first[r+1]) */
};

#define MAX_OBJECTS (1u << 24)

static void hdr_fail(struct trace *t, const char *line, const char *p, const char *what)
	__attribute__((noreturn));

static void hdr_fail(struct trace *t, const char *line, const char *p, const char *what)
{
	die("%s:1: bad Paraver header: expected %s at column %zu (\"%.40s\")", t->path, what,
	    (size_t) (p - line) + 1, p);
}

static uint32_t hdr_count(struct trace *t, const char *line, const char **pp, const char *what,
			  uint64_t min)
{
	uint64_t v;
	const char *p = *pp;

	if (!scan_u64(pp, &v))
		hdr_fail(t, line, p, what);
	if (v < min || v > MAX_OBJECTS)
		die("%s:1: bad Paraver header: %s is %" PRIu64 " at column %zu (must be %" PRIu64
		    "..%u)",
		    t->path, what, v, (size_t) (p - line) + 1, min, MAX_OBJECTS);
	return (uint32_t) v;
}

static void hdr_expect(struct trace *t, const char *line, const char **pp, char c)
{
	char what[8];

	if (**pp != c) {
		snprintf(what, sizeof(what), "'%c'", c);
		hdr_fail(t, line, *pp, what);
	}
	(*pp)++;
}

static void parse_header(struct trace *t)
{
	char *line = rd_line(&t->rd);
	const char *p, *unit;
	uint64_t ftime, ncomm = 0;
	size_t cpus_cap = 0;

	if (line == NULL)
		die("%s: empty file, expected a '#Paraver (' header line", t->path);
	if (strncmp(line, "#Paraver (", 10) != 0)
		die("%s:1: not a Paraver trace: the first line must start with '#Paraver ('",
		    t->path);
	p = strchr(line + 10, ')');
	if (p == NULL)
		hdr_fail(t, line, line + strlen(line), "')' closing the date");
	p++;
	hdr_expect(t, line, &p, ':');
	if (!scan_u64(&p, &ftime))
		hdr_fail(t, line, p, "the trace end time");
	t->ftime = ftime;
	unit = p;
	while (*p != '\0' && *p != ':')
		p++;
	if (p - unit == 3 && strncmp(unit, "_ns", 3) == 0)
		t->unit_ns = 1;
	else if (p - unit == 3 && strncmp(unit, "_ms", 3) == 0)
		t->unit_ns = 1000000;
	else
		t->unit_ns = 1000; /* _us, no suffix or any other: microseconds */
	hdr_expect(t, line, &p, ':');

	/* resources */
	t->nnodes = hdr_count(t, line, &p, "the number of nodes", 0);
	t->ncpus = 0;
	t->cpu_node = xrealloc(NULL, sizeof(uint32_t));
	cpus_cap = 1;
	if (t->nnodes > 0 && *p == '(') {
		p++;
		for (uint32_t n = 1; n <= t->nnodes; n++) {
			uint32_t c = hdr_count(t, line, &p, "a node's CPU count", 0);
			if (t->ncpus + (uint64_t) c > MAX_OBJECTS)
				die("%s:1: bad Paraver header: more than %u CPUs", t->path,
				    MAX_OBJECTS);
			t->cpu_node = grow(t->cpu_node, &cpus_cap, (size_t) t->ncpus + c + 1,
			     sizeof(uint32_t));
			for (uint32_t i = 0; i < c; i++)
				t->cpu_node[++t->ncpus] = n;
			hdr_expect(t, line, &p, n < t->nnodes ? ',' : ')');
		}
	} else if (t->nnodes > 0) {
		/* legacy form: one CPU per node */
		t->cpu_node = grow(t->cpu_node, &cpus_cap, (size_t) t->nnodes + 1, sizeof(uint32_t));
		for (uint32_t n = 1; n <= t->nnodes; n++)
			t->cpu_node[++t->ncpus] = n;
	}
	hdr_expect(t, line, &p, ':');

	/* applications */
	t->nappl = hdr_count(t, line, &p, "the number of applications", 1);
	hdr_expect(t, line, &p, ':');
	t->appl_task0 = xcalloc((size_t) t->nappl + 1, sizeof(uint32_t));
	uint64_t rows = 0;
	for (uint32_t a = 1; a <= t->nappl; a++) {
		uint32_t nt = hdr_count(t, line, &p, "an application's task count", 1);
		t->appl_task0[a - 1] = (uint32_t) t->ntasks;
		hdr_expect(t, line, &p, '(');
		for (uint32_t k = 1; k <= nt; k++) {
			struct task tk;
			const char *q;
			tk.nthreads = hdr_count(t, line, &p, "a task's thread count", 1);
			hdr_expect(t, line, &p, ':');
			q = p;
			tk.node = hdr_count(t, line, &p, "a task's node", 0);
			if (t->nnodes > 0 && (tk.node < 1 || tk.node > t->nnodes))
				die("%s:1: bad Paraver header: task %" PRIu32 ".%" PRIu32
				    " on node %" PRIu32 " at column %zu, but there are %" PRIu32
				    " nodes",
				    t->path, a, k, tk.node, (size_t) (q - line) + 1, t->nnodes);
			tk.row0 = (uint32_t) rows;
			rows += tk.nthreads;
			if (rows > MAX_OBJECTS || t->ntasks + 1 > MAX_OBJECTS)
				die("%s:1: bad Paraver header: more than %u threads or tasks",
				    t->path, MAX_OBJECTS);
			t->tasks = grow(t->tasks, &t->tasks_cap, t->ntasks + 1, sizeof(*t->tasks));
			t->tasks[t->ntasks++] = tk;
			hdr_expect(t, line, &p, k < nt ? ',' : ')');
		}
		if (a < t->nappl)
			hdr_expect(t, line, &p, ',');
	}
	t->appl_task0[t->nappl] = (uint32_t) t->ntasks;
	t->nrows = (uint32_t) rows;
	if (*p == ',') {
		p++;
		if (!scan_u64(&p, &ncomm))
			hdr_fail(t, line, p, "the number of communicators");
	}
	if (*p != '\0')
		hdr_fail(t, line, p, "the end of the line");

	/* communicator lines */
	for (uint64_t i = 0; i < ncomm; i++) {
		char *c = rd_line(&t->rd);
		if (c == NULL)
			die("%s: the header declares %" PRIu64
			    " communicator lines but the file ends after %" PRIu64,
			    t->path, ncomm, i);
		if (c[0] != 'c' && c[0] != 'C' && c[0] != 'i' && c[0] != 'I')
			die("%s:%lu: expected communicator line %" PRIu64 " of %" PRIu64
			    " (starting with 'c' or 'i')",
			    t->path, t->rd.line, i + 1, ncomm);
	}
}

/* ---- .row file ------------------------------------------------------------ */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *make_key(const char *name)
{
	const char *b = name, *e = name + strlen(name);

	while (is_blank(*b))
		b++;
	while (e > b && is_blank(e[-1]))
		e--;
	if (opt.rows == ROWS_NAME)
		return xstrndup(b, (size_t) (e - b));
	/* ovni: the first two words, joined by one space */
	const char *w1 = b, *w1e = w1;
	while (w1e < e && !is_blank(*w1e))
		w1e++;
	const char *w2 = w1e;
	while (w2 < e && is_blank(*w2))
		w2++;
	const char *w2e = w2;
	while (w2e < e && !is_blank(*w2e))
		w2e++;
	size_t l1 = (size_t) (w1e - w1), l2 = (size_t) (w2e - w2);
	char *k = xrealloc(NULL, l1 + l2 + 2);
	memcpy(k, w1, l1);
	if (l2 > 0) {
		k[l1] = ' ';
		memcpy(k + l1 + 1, w2, l2);
		k[l1 + 1 + l2] = '\0';
	} else {
		k[l1] = '\0';
	}
	return k;
}

static void load_rows(struct trace *t)
{
	static const char *const levels[] = { "WORKLOAD", "APPL", "TASK", "THREAD",
					      "SYSTEM",   "NODE", "CPU" };
	struct reader r;
	char *line;
	bool found = false;

	rd_open(&r, t->rowpath, t->label[0] == 'A' ? " (the .row file of A)" : " (the .row file of B)");
	t->names = xcalloc(t->nrows, sizeof(char *));
	t->keys = xcalloc(t->nrows, sizeof(char *));
	t->name_line = xcalloc(t->nrows, sizeof(unsigned long));
	while ((line = rd_line(&r)) != NULL) {
		const char *p, *name, *sp;
		uint64_t n;
		unsigned long level_line = r.line;
		bool known = false, thread;

		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (strncmp(line, "LEVEL ", 6) != 0)
			die("%s:%lu: expected a 'LEVEL <NAME> SIZE <n>' line, found \"%.40s\"",
			    r.path, r.line, line);
		name = line + 6;
		sp = strchr(name, ' ');
		if (sp == NULL || strncmp(sp, " SIZE ", 6) != 0)
			die("%s:%lu: expected 'LEVEL <NAME> SIZE <n>', found \"%.60s\"", r.path,
			    r.line, line);
		p = sp + 6;
		if (!scan_u64(&p, &n) || *p != '\0')
			die("%s:%lu: bad size in \"%.60s\"", r.path, r.line, line);
		for (size_t i = 0; i < ARRAY_SIZE(levels); i++)
			if (strlen(levels[i]) == (size_t) (sp - name) &&
			    strncmp(levels[i], name, (size_t) (sp - name)) == 0)
				known = true;
		if (!known)
			die("%s:%lu: unknown level \"%.*s\" (expected WORKLOAD, APPL, TASK, "
			    "THREAD, SYSTEM, NODE or CPU)",
			    r.path, r.line, (int) (sp - name), name);
		thread = (size_t) (sp - name) == 6 && strncmp(name, "THREAD", 6) == 0;
		if (thread) {
			if (found)
				die("%s:%lu: a second LEVEL THREAD block", r.path, r.line);
			found = true;
			if (n != t->nrows)
				die("%s:%lu: LEVEL THREAD SIZE %" PRIu64 ", but the header of %s "
				    "declares %" PRIu32 " threads",
				    r.path, r.line, n, t->path, t->nrows);
		}
		for (uint64_t i = 0; i < n; i++) {
			line = rd_line(&r);
			if (line == NULL)
				die("%s:%lu: LEVEL %.*s SIZE %" PRIu64
				    " but the file ends after %" PRIu64 " names",
				    r.path, level_line, (int) (sp - name), name, n, i);
			if (thread) {
				t->names[i] = xstrndup(line, strlen(line));
				t->keys[i] = make_key(line);
				t->name_line[i] = r.line;
			}
		}
	}
	rd_close(&r);
	if (!found)
		die("%s: no 'LEVEL THREAD SIZE <n>' block naming the rows", t->rowpath);
}

/* ---- body ----------------------------------------------------------------- */

static size_t hash_u64(uint64_t k, size_t cap)
{
	k ^= k >> 31;
	k *= UINT64_C(0x9E3779B97F4A7C15);
	k ^= k >> 29;
	return (size_t) k & (cap - 1);
}

static struct series *get_series(struct trace *t, uint32_t row, uint64_t tkey)
{
	static struct trace *ct;
	static uint64_t ckey;
	static size_t cidx;
	uint64_t key = ((uint64_t) row << 34) | tkey;
	size_t h;

	if (ct == t && ckey == key && cidx < t->nser)
		return &t->ser[cidx];
	if (2 * (t->hused + 1) > t->hcap) {
		size_t ncap = t->hcap ? 2 * t->hcap : 1024;
		struct slot *nh = xcalloc(ncap, sizeof(*nh));
		for (size_t i = 0; i < t->hcap; i++) {
			if (t->hash[i].idx == 0)
				continue;
			h = hash_u64(t->hash[i].key, ncap);
			while (nh[h].idx != 0)
				h = (h + 1) & (ncap - 1);
			nh[h] = t->hash[i];
		}
		free(t->hash);
		t->hash = nh;
		t->hcap = ncap;
	}
	h = hash_u64(key, t->hcap);
	while (t->hash[h].idx != 0 && t->hash[h].key != key)
		h = (h + 1) & (t->hcap - 1);
	if (t->hash[h].idx == 0) {
		t->ser = grow(t->ser, &t->ser_cap, t->nser + 1, sizeof(*t->ser));
		memset(&t->ser[t->nser], 0, sizeof(t->ser[0]));
		t->ser[t->nser].row = row;
		t->ser[t->nser].tkey = tkey;
		t->hash[h].key = key;
		t->hash[h].idx = ++t->nser;
		t->hused++;
	}
	ct = t;
	ckey = key;
	cidx = t->hash[h].idx - 1;
	return &t->ser[cidx];
}

/* Append (time, v) to a step function; time is >= every earlier time. */
static void series_push(struct series *s, uint64_t time, int64_t v)
{
	if (s->n > 0 && s->p[s->n - 1].t == time) {
		int64_t before = s->n > 1 ? s->p[s->n - 2].v : 0;
		if (v == before)
			s->n--; /* back to the value in force before this time */
		else
			s->p[s->n - 1].v = v;
		return;
	}
	if (v == (s->n > 0 ? s->p[s->n - 1].v : 0))
		return;
	s->p = grow(s->p, &s->cap, s->n + 1, sizeof(*s->p));
	s->p[s->n].t = time;
	s->p[s->n].v = v;
	s->n++;
}

static void rec_fail(struct trace *t, const char *kind, const char *what, const char *p)
	__attribute__((noreturn));

static void rec_fail(struct trace *t, const char *kind, const char *what, const char *p)
{
	die("%s:%lu: malformed %s record: expected %s at \"%.30s\"", t->path, t->rd.line, kind,
	    what, p);
}

static uint64_t rec_u64(struct trace *t, const char **pp, const char *kind, const char *what,
			uint64_t max)
{
	uint64_t v;
	const char *p = *pp;

	if (!scan_u64(pp, &v) || v > max)
		rec_fail(t, kind, what, p);
	return v;
}

static void rec_colon(struct trace *t, const char **pp, const char *kind, const char *what)
{
	if (**pp != ':')
		rec_fail(t, kind, what, *pp);
	(*pp)++;
}

/* The row of the record's thread, after checking the location like Paraver
 * does (a record that fails is dropped by Paraver: an error here). */
static uint32_t rec_row(struct trace *t, const char **pp, const char *kind)
{
	uint64_t cpu, appl, task, thread;
	const struct task *tk;

	cpu = rec_u64(t, pp, kind, "the CPU", UINT32_MAX);
	rec_colon(t, pp, kind, "':' after the CPU");
	appl = rec_u64(t, pp, kind, "the application", UINT32_MAX);
	rec_colon(t, pp, kind, "':' after the application");
	task = rec_u64(t, pp, kind, "the task", UINT32_MAX);
	rec_colon(t, pp, kind, "':' after the task");
	thread = rec_u64(t, pp, kind, "the thread", UINT32_MAX);
	rec_colon(t, pp, kind, "':' after the thread");
	if (appl < 1 || appl > t->nappl)
		die("%s:%lu: %s record of application %" PRIu64 ", but the header declares %" PRIu32,
		    t->path, t->rd.line, kind, appl, t->nappl);
	uint32_t ntasks = t->appl_task0[appl] - t->appl_task0[appl - 1];
	if (task < 1 || task > ntasks)
		die("%s:%lu: %s record of task %" PRIu64 ".%" PRIu64
		    ", but application %" PRIu64 " has %" PRIu32 " tasks",
		    t->path, t->rd.line, kind, appl, task, appl, ntasks);
	tk = &t->tasks[t->appl_task0[appl - 1] + task - 1];
	if (thread < 1 || thread > tk->nthreads)
		die("%s:%lu: %s record of thread %" PRIu64 ".%" PRIu64 ".%" PRIu64
		    ", but task %" PRIu64 ".%" PRIu64 " has %" PRIu32 " threads",
		    t->path, t->rd.line, kind, appl, task, thread, appl, task, tk->nthreads);
	if (cpu > t->ncpus)
		die("%s:%lu: %s record on CPU %" PRIu64 ", but the header declares %" PRIu32
		    " CPUs (Paraver drops it)",
		    t->path, t->rd.line, kind, cpu, t->ncpus);
	if (cpu != 0 && t->cpu_node[cpu] != tk->node)
		die("%s:%lu: %s record of thread %" PRIu64 ".%" PRIu64 ".%" PRIu64 " on CPU %" PRIu64
		    " of node %" PRIu32 ", but its task runs on node %" PRIu32 " (Paraver drops it)",
		    t->path, t->rd.line, kind, appl, task, thread, cpu, t->cpu_node[cpu], tk->node);
	return tk->row0 + (uint32_t) thread - 1;
}

static uint64_t rec_time(struct trace *t, const char **pp, const char *kind, const char *what)
{
	const char *p = *pp;
	uint64_t v = rec_u64(t, pp, kind, what, UINT64_MAX);

	if (t->scale != 1) {
		if (v > UINT64_MAX / t->scale)
			die("%s:%lu: time %.20s overflows when converted to ns", t->path,
			    t->rd.line, p);
		v *= t->scale;
	}
	return v;
}

static void check_order(struct trace *t, uint32_t row, uint64_t time)
{
	if (time < t->last_time[row])
		die("%s:%lu: record at time %" PRIu64 " of row %" PRIu32 " (\"%s\") comes after one "
		    "at time %" PRIu64 "; each thread's records must be in time order",
		    t->path, t->rd.line, time, row + 1, t->names[row], t->last_time[row]);
	t->last_time[row] = time;
}

static void parse_event(struct trace *t, const char *s)
{
	const char *p = s + 2;
	uint32_t row = rec_row(t, &p, "event");
	uint64_t time = rec_time(t, &p, "event", "the time");

	check_order(t, row, time);
	do {
		uint64_t type;
		int64_t value;
		const char *q;
		rec_colon(t, &p, "event", "':' before the type");
		type = rec_u64(t, &p, "event", "the type", UINT32_MAX);
		rec_colon(t, &p, "event", "':' after the type");
		q = p;
		if (!scan_i64(&p, &value))
			rec_fail(t, "event", "the value", q);
		if (*p != '\0' && *p != ':')
			rec_fail(t, "event", "':' or the end of the line", p);
		if (type_selected((uint32_t) type))
			series_push(get_series(t, row, type + 1), time, value);
		if (opt.state_type >= 0 && type == (uint64_t) opt.state_type)
			series_push(get_series(t, row, TKEY_SHADOW), time, value);
	} while (*p != '\0');
}

static void parse_state(struct trace *t, const char *s)
{
	const char *p = s + 2;
	uint32_t row = rec_row(t, &p, "state");
	uint64_t begin = rec_time(t, &p, "state", "the begin time");
	rec_colon(t, &p, "state", "':' after the begin time");
	uint64_t end = rec_time(t, &p, "state", "the end time");
	rec_colon(t, &p, "state", "':' after the end time");
	uint64_t state = rec_u64(t, &p, "state", "the state", UINT32_MAX);

	if (*p != '\0')
		rec_fail(t, "state", "the end of the line", p);
	if (end < begin)
		die("%s:%lu: state record ends (%" PRIu64 ") before it begins (%" PRIu64 ")",
		    t->path, t->rd.line, end, begin);
	check_order(t, row, begin);
	t->nstates++;
	if (!opt.states || begin == end)
		return;
	if (begin < t->state_end[row])
		die("%s:%lu: state [%" PRIu64 ", %" PRIu64 ") of row %" PRIu32
		    " (\"%s\") overlaps the previous state of that row, which ends at %" PRIu64,
		    t->path, t->rd.line, begin, end, row + 1, t->names[row], t->state_end[row]);
	struct series *ser = get_series(t, row, 0);
	series_push(ser, begin, (int64_t) state);
	series_push(ser, end, 0);
	t->state_end[row] = end;
}

static void load_body(struct trace *t)
{
	char *s;

	t->last_time = xcalloc(t->nrows, sizeof(uint64_t));
	if (opt.states)
		t->state_end = xcalloc(t->nrows, sizeof(uint64_t));
	while ((s = rd_line(&t->rd)) != NULL) {
		switch (s[0]) {
		case '\0':
		case '#':
			continue;
		case '1':
		case '2':
		case '3':
		case '4':
			break;
		default:
			die("%s:%lu: unknown record kind '%.1s' (expected 1, 2, 3, 4 or '#')",
			    t->path, t->rd.line, s);
		}
		if (s[1] != ':')
			die("%s:%lu: malformed record: expected ':' after the record kind", t->path,
			    t->rd.line);
		if (s[0] == '1')
			parse_state(t, s);
		else if (s[0] == '2')
			parse_event(t, s);
		/* 3 (communication) and 4 (global operation): not compared */
	}
	rd_close(&t->rd);
}

/* --state-type: in a trace without state records the shadow series become the
 * states, ending at the trace end time; otherwise they are dropped. */
static void settle_shadow(struct trace *t)
{
	size_t kept = 0;

	if (opt.state_type < 0)
		return;
	uint64_t end = t->ftime;
	if (t->scale != 1)
		end = end > UINT64_MAX / t->scale ? UINT64_MAX : end * t->scale;
	for (size_t i = 0; i < t->nser; i++) {
		struct series *s = &t->ser[i];
		if (s->tkey == TKEY_SHADOW) {
			if (t->nstates > 0) {
				free(s->p);
				continue;
			}
			s->tkey = 0;
			if (s->n > 0 && s->p[s->n - 1].t <= end)
				series_push(s, end, 0);
		}
		t->ser[kept++] = *s;
	}
	t->nser = kept;
}

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->tkey != y->tkey)
		return x->tkey < y->tkey ? -1 : 1;
	return 0;
}

static void index_series(struct trace *t)
{
	if (t->nser > 0)
		qsort(t->ser, t->nser, sizeof(*t->ser), cmp_series);
	free(t->hash);
	t->hash = NULL;
	t->row_first = xcalloc((size_t) t->nrows + 1, sizeof(size_t));
	size_t i = 0;
	for (uint32_t r = 0; r <= t->nrows; r++) {
		t->row_first[r] = i;
		while (i < t->nser && t->ser[i].row == r)
			i++;
	}
}

static void open_trace(struct trace *t, const char *path, const char *label)
{
	size_t l = strlen(path), base;

	t->path = path;
	t->label = label;
	if (l > 7 && strcmp(path + l - 7, ".prv.gz") == 0)
		base = l - 7;
	else if (l > 4 && strcmp(path + l - 4, ".prv") == 0)
		base = l - 4;
	else
		usage_error("%s: the name must end in .prv or .prv.gz (the .row file is found by "
			    "replacing that suffix)",
			    path);
	t->rowpath = xrealloc(NULL, base + 5);
	memcpy(t->rowpath, path, base);
	memcpy(t->rowpath + base, ".row", 5);
	rd_open(&t->rd, path, "");
	parse_header(t);
}

static void free_trace(struct trace *t)
{
	rd_close(&t->rd);
	for (size_t i = 0; i < t->nser; i++)
		free(t->ser[i].p);
	free(t->ser);
	free(t->hash);
	free(t->row_first);
	if (t->names != NULL)
		for (uint32_t r = 0; r < t->nrows; r++) {
			free(t->names[r]);
			free(t->keys[r]);
		}
	free(t->names);
	free(t->keys);
	free(t->name_line);
	free(t->last_time);
	free(t->state_end);
	free(t->tasks);
	free(t->appl_task0);
	free(t->cpu_node);
	free(t->rowpath);
	memset(t, 0, sizeof(*t));
}

/* ---- row matching ---------------------------------------------------------- */

struct keyent {
	const char *key;
	int64_t row[2]; /* row in A, row in B; -1 = none */
};

static struct trace tr[2];
static struct keyent *keytab;
static size_t keycap;

static size_t hash_str(const char *s, size_t cap)
{
	uint64_t h = UINT64_C(1469598103934665603);

	for (; *s != '\0'; s++) {
		h ^= (unsigned char) *s;
		h *= UINT64_C(1099511628211);
	}
	return hash_u64(h, cap);
}

static void build_keys(void)
{
	size_t n = (size_t) tr[0].nrows + tr[1].nrows;

	keycap = 16;
	while (keycap < 2 * n + 2)
		keycap *= 2;
	keytab = xcalloc(keycap, sizeof(*keytab));
	for (int f = 0; f < 2; f++) {
		struct trace *t = &tr[f];
		for (uint32_t r = 0; r < t->nrows; r++) {
			size_t h = hash_str(t->keys[r], keycap);
			while (keytab[h].key != NULL && strcmp(keytab[h].key, t->keys[r]) != 0)
				h = (h + 1) & (keycap - 1);
			if (keytab[h].key == NULL) {
				keytab[h].key = t->keys[r];
				keytab[h].row[0] = keytab[h].row[1] = -1;
			}
			if (keytab[h].row[f] >= 0)
				die("%s:%lu: row key \"%s\" repeats the row of line %lu%s", t->rowpath,
				    t->name_line[r], t->keys[r],
				    t->name_line[keytab[h].row[f]],
				    opt.rows == ROWS_OVNI ? " (--rows ovni keeps the first two words)" : "");
			keytab[h].row[f] = r;
		}
	}
}

static const struct keyent *find_key(const char *key)
{
	size_t h = hash_str(key, keycap);

	while (strcmp(keytab[h].key, key) != 0)
		h = (h + 1) & (keycap - 1);
	return &keytab[h];
}

/* ---- comparison ----------------------------------------------------------- */

static uint64_t ndiff, npairs;

static void compare_series(const char *key, uint64_t tkey, const struct series *a,
			   const struct series *b, const char *note)
{
	static const struct series empty;
	size_t i = 0, na, nb;
	uint64_t x;
	int64_t va, vb;

	if (a == NULL)
		a = &empty;
	if (b == NULL)
		b = &empty;
	na = a->n;
	nb = b->n;
	npairs++;
	while (i < na && i < nb && a->p[i].t == b->p[i].t && a->p[i].v == b->p[i].v)
		i++;
	if (i == na && i == nb)
		return;
	if (i >= na)
		x = b->p[i].t;
	else if (i >= nb)
		x = a->p[i].t;
	else
		x = a->p[i].t < b->p[i].t ? a->p[i].t : b->p[i].t;
	va = i < na && a->p[i].t == x ? a->p[i].v : (i > 0 ? a->p[i - 1].v : 0);
	vb = i < nb && b->p[i].t == x ? b->p[i].v : (i > 0 ? b->p[i - 1].v : 0);
	ndiff++;
	if (ndiff > opt.max)
		return;
	if (tkey == 0)
		printf("row %s type state", key);
	else
		printf("row %s type %" PRIu64, key, tkey - 1);
	printf(": first difference at time %" PRIu64 ": A has %" PRId64 ", B has %" PRId64 "%s\n",
	       x, va, vb, note);
}

/* Compare row ra of A with row rb of B (-1: the row is missing there). */
static void compare_rows(const char *key, int64_t ra, int64_t rb)
{
	const struct series *sa = NULL, *ea = NULL, *sb = NULL, *eb = NULL;
	const char *note = ra < 0 ? " (row only in B)" : rb < 0 ? " (row only in A)" : "";

	if (ra >= 0) {
		sa = tr[0].ser + tr[0].row_first[ra];
		ea = tr[0].ser + tr[0].row_first[ra + 1];
	}
	if (rb >= 0) {
		sb = tr[1].ser + tr[1].row_first[rb];
		eb = tr[1].ser + tr[1].row_first[rb + 1];
	}
	while (sa != ea || sb != eb) {
		if (sb == eb || (sa != ea && sa->tkey < sb->tkey)) {
			compare_series(key, sa->tkey, sa, NULL, note);
			sa++;
		} else if (sa == ea || sb->tkey < sa->tkey) {
			compare_series(key, sb->tkey, NULL, sb, note);
			sb++;
		} else {
			compare_series(key, sa->tkey, sa, sb, note);
			sa++;
			sb++;
		}
	}
}

/* ---- main ----------------------------------------------------------------- */

int main(int argc, char **argv)
{
	const char *files[2];
	int nfiles = 0;
	bool opts_done = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		if (opts_done || a[0] != '-' || a[1] == '\0') {
			if (nfiles == 2)
				usage_error("too many arguments ('%s')", a);
			files[nfiles++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			opts_done = true;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(help_text, stdout);
			return fflush(stdout) == 0 ? 0 : 2;
		}
		if (strcmp(a, "--states") == 0) {
			opt.states = true;
			continue;
		}
		const char *names[] = { "--types", "--rows", "--max", "--state-type" };
		const char *name = NULL;
		for (size_t k = 0; k < 4; k++) {
			size_t l = strlen(names[k]);
			if (strncmp(a, names[k], l) == 0 && (a[l] == '\0' || a[l] == '=')) {
				name = names[k];
				if (a[l] == '=')
					val = a + l + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				else
					usage_error("%s needs a value", name);
			}
		}
		if (name == NULL)
			usage_error("unknown option '%s'", a);
		if (strcmp(name, "--types") == 0) {
			parse_types(val);
		} else if (strcmp(name, "--rows") == 0) {
			if (strcmp(val, "name") == 0)
				opt.rows = ROWS_NAME;
			else if (strcmp(val, "ovni") == 0)
				opt.rows = ROWS_OVNI;
			else
				usage_error("--rows '%s': expected 'name' or 'ovni'", val);
		} else if (strcmp(name, "--state-type") == 0) {
			const char *p = val;
			uint64_t v;
			if (!scan_u64(&p, &v) || *p != '\0' || v > UINT32_MAX)
				usage_error("--state-type '%s': expected an event type (0..%" PRIu32 ")",
					    val, UINT32_MAX);
			opt.state_type = (int64_t) v;
		} else {
			const char *p = val;
			if (!scan_u64(&p, &opt.max) || *p != '\0')
				usage_error("--max '%s': expected a number >= 0", val);
		}
	}
	if (opt.state_type >= 0 && !opt.states)
		usage_error("--state-type needs --states");
	if (nfiles != 2)
		usage_error("expected two traces, A.prv and B.prv (got %d)", nfiles);

	open_trace(&tr[0], files[0], "A");
	open_trace(&tr[1], files[1], "B");
	if (tr[0].unit_ns != tr[1].unit_ns) {
		tr[0].scale = tr[0].unit_ns;
		tr[1].scale = tr[1].unit_ns;
		fprintf(stderr, "prvdiff: note: A and B use different time units; times are in ns\n");
	} else {
		tr[0].scale = tr[1].scale = 1;
	}
	for (int f = 0; f < 2; f++) {
		load_rows(&tr[f]);
		load_body(&tr[f]);
		settle_shadow(&tr[f]);
		index_series(&tr[f]);
	}
	build_keys();

	for (uint32_t r = 0; r < tr[0].nrows; r++) {
		const struct keyent *e = find_key(tr[0].keys[r]);
		compare_rows(e->key, r, e->row[1]);
	}
	for (uint32_t r = 0; r < tr[1].nrows; r++) {
		const struct keyent *e = find_key(tr[1].keys[r]);
		if (e->row[0] < 0)
			compare_rows(e->key, -1, r);
	}
	printf("%" PRIu64 " differences in %" PRIu64 " (row, type) pairs\n", ndiff, npairs);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "prvdiff: error writing the report: %s\n", strerror(errno));
		return 2;
	}

	free(keytab);
	free_trace(&tr[0]);
	free_trace(&tr[1]);
	free(opt.ranges);
	return ndiff > 0 ? 1 : 0;
}
