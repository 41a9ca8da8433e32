/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_row: the .row of a trace: LEVEL <NAME> SIZE <n> blocks, each followed
 * by n names taken verbatim, and, once the header parsed, each size equal to
 * the header's count of that level (a WORKLOAD or SYSTEM of 1; NODE and CPU
 * only with a resource model). A missing THREAD block is a warning. */
#include <string.h>

#include "check/check_int.h"

enum { L_WORKLOAD, L_APPL, L_TASK, L_THREAD, L_SYSTEM, L_NODE, L_CPU, NLEVELS };

static const char *const levels[NLEVELS] = {"WORKLOAD", "APPL", "TASK", "THREAD", "SYSTEM", "NODE", "CPU"};

/* "LEVEL <NAME> SIZE <n>" with single spaces: the level, or -1 with the line
 * reported. */
static int row_block(struct prvchk *c, const char *name, uint64_t ln, const char *line, const char *e,
		     int64_t *size)
{
	char q[4 * QUOTE_MAX + 8];
	size_t n = (size_t) (e - line);
	const char *r = line;
	int lv = -1;
	if (n > 6 && memcmp(r, "LEVEL ", 6) == 0) {
		r += 6;
		for (int i = 0; i < NLEVELS; i++) {
			size_t k = strlen(levels[i]);
			if ((size_t) (e - r) > k && memcmp(r, levels[i], k) == 0 && r[k] == ' ') {
				lv = i;
				r += k + 1;
				break;
			}
		}
	}
	int big = 0;
	*size = 0;
	if (lv >= 0 && (size_t) (e - r) > 5 && memcmp(r, "SIZE ", 5) == 0) {
		r += 5;
		if (chk_txt_int(&r, e, 0, size, &big) || r != e)
			lv = -2;
	} else if (lv >= 0) {
		lv = -2;
	}
	if (lv < 0) {
		ERR(c, name, ln,
		    "expected a block header 'LEVEL <NAME> SIZE <n>' (NAME one of WORKLOAD, APPL, TASK, "
		    "THREAD, SYSTEM, NODE, CPU; single spaces), found %s",
		    chk_quote(q, line, n, QUOTE_MAX));
		return -1;
	}
	return lv;
}

/* The size of a block against the header's count of its level. */
static void row_size(struct prvchk *c, const char *name, uint64_t ln, int lv, int64_t size)
{
	static const struct {
		const char *what; /* NULL: one object (WORKLOAD, SYSTEM) */
		int resource;     /* only with a resource model */
	} kinds[NLEVELS] = {
		[L_APPL] = {"applications", 0}, [L_TASK] = {"tasks", 0}, [L_THREAD] = {"threads", 0},
		[L_NODE] = {"nodes", 1},        [L_CPU] = {"CPUs", 1},
	};
	const uint64_t counts[NLEVELS] = {
		[L_APPL] = c->st.nappl,   [L_TASK] = c->st.ntasks, [L_THREAD] = c->st.nthreads,
		[L_NODE] = c->st.nnodes,  [L_CPU] = c->st.ncpus,
	};
	if (!kinds[lv].what) {
		if (size != 1)
			WARN(c, name, ln, "LEVEL %s SIZE %lld; expected SIZE 1", levels[lv], (long long) size);
		return;
	}
	if (kinds[lv].resource && !c->resources) {
		WARN(c, name, ln,
		     "LEVEL %s SIZE %lld but the header of %s has no resource model (RESOURCES 0); the "
		     "reader ignores these names",
		     levels[lv], (long long) size, c->name);
		return;
	}
	uint64_t expect = counts[lv];
	if ((uint64_t) size != expect)
		ERR(c, name, ln, "LEVEL %s SIZE %lld: expected SIZE %llu (the header of %s declares %llu %s)",
		    levels[lv], (long long) size, (unsigned long long) expect, c->name,
		    (unsigned long long) expect, kinds[lv].what);
}

void prvchk_row(struct prvchk *c, const char *name, const void *data, size_t len)
{
	uint64_t seen[NLEVELS] = {0};
	const char *p = data, *end = p + len;
	uint64_t ln = 0, left = 0, want = 0, bline = 0;
	int blevel = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		const char *e = nl ? nl : end;
		ln++;
		if (e > p && e[-1] == '\r')
			e--;
		const char *line = p;
		p = nl ? nl + 1 : end;
		if (left > 0) { /* a name, taken verbatim */
			left--;
			continue;
		}
		if (e == line || line[0] == '#')
			continue;
		int64_t size;
		int lv = row_block(c, name, ln, line, e, &size);
		if (lv < 0)
			continue;
		if (seen[lv])
			ERR(c, name, ln, "LEVEL %s declared again (first at line %llu)", levels[lv],
			    (unsigned long long) seen[lv]);
		else
			seen[lv] = ln;
		left = want = (uint64_t) size;
		blevel = lv;
		bline = ln;
		if (c->st.header_ok)
			row_size(c, name, ln, lv, size);
	}
	if (left > 0)
		ERR(c, name, bline, "LEVEL %s SIZE %llu: expected %llu names, found %llu before the end of the file",
		    levels[blevel], (unsigned long long) want, (unsigned long long) want,
		    (unsigned long long) (want - left));
	if (!seen[L_THREAD])
		WARN(c, name, 0, "no LEVEL THREAD block; the reader shows default thread names");
}
