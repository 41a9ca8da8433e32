/* SPDX-License-Identifier: GPL-3.0-or-later */
/* visandor_synth: `weft synth --format visandor` writes a large, valid
 * VisAndOr log (deterministic). AND logs look like Ciao's writer (width-8
 * right-aligned timestamps, trailing blank): agent 0 runs the root goal and
 * forks 2 tasks again and again, running task 0 itself while another agent
 * runs task 1, then joins. OR logs: agent 0 makes a node public with one
 * branch per agent; each agent runs its branch and ends it with success or
 * failure (every third one is suspended, then resumed and ended by the next
 * agent once that one has ended its own). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicfile.h"
#include "synth/visandor_synth.h"

struct vs {
	FILE *f;
	uint64_t t, n;
};

static void ev(struct vs *s, int code, uint64_t node, long f4, int agent)
{
	s->t += 1 + (s->n * 7 % 5);
	fprintf(s->f, "%8llu %d %llX %ld %X %d \n", (unsigned long long) s->t, code, (unsigned long long) node,
		f4, 0x1000u + (unsigned) agent, agent);
	s->n++;
}

static void gen_and(struct vs *s, int agents, uint64_t events)
{
	ev(s, 5, 0, 0, 0);
	uint64_t k = 0;
	while (s->n + 7 < events) {
		int other = 1 + (int) (k % (uint64_t) (agents - 1));
		uint64_t node = 0x100 + (k % 3); /* Ciao reuses Nodeids after JOIN */
		ev(s, 1, node, 2, 0);
		ev(s, 2, node, 0, 0);
		ev(s, 2, node, 1, other);
		ev(s, 3, node, 0, 0);
		ev(s, 3, node, 1, other);
		ev(s, 4, node, 2, 0);
		k++;
	}
	ev(s, 6, 0, 0, 0);
}

static void gen_or(struct vs *s, int agents, uint64_t events)
{
	ev(s, 5, 0, 0, 0);
	uint64_t node = 1;
	while (s->n + 4 * (uint64_t) agents + 2 < events) {
		ev(s, 20, node, agents, 0);
		for (int a = 0; a < agents; a++)
			ev(s, 21, node, a, a);
		for (int a = 0; a < agents; a++)
			ev(s, a % 3 == 2 ? 24 : a % 2 ? 23 : 22, node, a, a);
		for (int a = 2; a < agents; a += 3) {
			ev(s, 25, node, a, (a + 1) % agents);
			ev(s, 22, node, a, (a + 1) % agents);
		}
		node++;
	}
	ev(s, 6, 0, 0, 0);
}

int visandor_synth_write(const char *out, int or_kind, int agents, uint64_t events, uint64_t *written,
			 struct weft_err *e)
{
	char *tmp;
	int fd = atomic_open(out, &tmp, e);
	if (fd < 0)
		return -1;
	struct vs s = {0};
	s.f = fdopen(fd, "w");
	static char buf[1 << 20];
	setvbuf(s.f, buf, _IOFBF, sizeof(buf));
	fprintf(s.f, "%d\n", or_kind);
	if (or_kind)
		gen_or(&s, agents, events);
	else
		gen_and(&s, agents, events);
	*written = s.n;
	int rc = 0;
	if (fflush(s.f) != 0 || ferror(s.f))
		rc = weft_out_fail(e, errno, "%s: write failed", out);
	if (fclose(s.f) != 0 && rc == 0) /* closes fd */
		rc = weft_out_fail(e, errno, "%s: write failed", out);
	return atomic_commit(-1, tmp, out, rc, e);
}
