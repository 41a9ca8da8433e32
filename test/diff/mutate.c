/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mutate.c: one semantic mutation of a plan, chosen by a seed: an event
 * dropped, swapped with the next one of its thread (clocks kept in place),
 * duplicated, a task ended twice, a payload cut, a payload value changed,
 * an unknown event of a known model, a clock going backwards, a thread cut
 * short (its end lost), an enter turned into an exit. What was done is
 * written into `what`, naming the plan line. */
#include "plan.h"

#include <ctype.h>
#include <string.h>

enum { X_DROP, X_SWAP, X_DUP, X_END2, X_CUT, X_VALUE, X_UNKNOWN, X_BACK, X_TRUNC, X_FLIP, NX };

static const char *const xname[NX] = {
	"drop",		"swap",		 "duplicate",  "end-twice",	  "cut-payload",
	"change-value", "unknown-event", "clock-back", "truncate-thread", "flip-enter-exit"};

static int is_ev(const struct plan *p, size_t i)
{
	return p->line[i][0] == 'E' || p->line[i][0] == 'J';
}

/* Event lines matching `want` (NULL: any), up to cap; their count. */
static size_t pick_events(const struct plan *p, size_t *out, size_t cap, int (*want)(const struct plan_ev *))
{
	size_t n = 0;
	for (size_t i = 0; i < p->n && n < cap; i++) {
		struct plan_ev ev;
		if (is_ev(p, i) && plan_ev_parse(p->line[i], &ev) && (!want || want(&ev)))
			out[n++] = i;
	}
	return n;
}

static int is_task_end(const struct plan_ev *e)
{
	return !strcmp(e->mcv, "VTe") || !strcmp(e->mcv, "6Te") || !strcmp(e->mcv, "PPe");
}

static int has_payload(const struct plan_ev *e)
{
	return e->plen >= 4;
}

static int not_ovni(const struct plan_ev *e)
{
	return e->mcv[0] != 'O';
}

static int is_letter_value(const struct plan_ev *e)
{
	return isalpha((unsigned char) e->mcv[2]) && e->mcv[0] != 'O';
}

int plan_mutate(struct plan *p, uint64_t seed, char *what, size_t size)
{
	struct rng r = {seed * 0x9e3779b97f4a7c15ULL + 7};
	static size_t idx[1 << 20];
	int x = (int) rng_below(&r, NX);
	int (*want)(const struct plan_ev *) = NULL;
	if (x == X_END2)
		want = is_task_end;
	else if (x == X_CUT || x == X_VALUE)
		want = has_payload;
	else if (x == X_UNKNOWN)
		want = not_ovni;
	else if (x == X_FLIP)
		want = is_letter_value;
	size_t n = pick_events(p, idx, sizeof(idx) / sizeof(idx[0]), want);
	if (n == 0) {
		x = X_DUP;
		n = pick_events(p, idx, sizeof(idx) / sizeof(idx[0]), NULL);
		if (n == 0)
			return -1;
	}
	size_t i = idx[rng_below(&r, (uint32_t) n)];
	struct plan_ev ev;
	char buf[1400];
	plan_ev_parse(p->line[i], &ev);
	snprintf(what, size, "%s at plan line %zu (%s)", xname[x], i + 1, ev.mcv);
	switch (x) {
	case X_DROP:
		plan_remove(p, i);
		break;
	case X_SWAP: {
		if (i + 1 >= p->n || !is_ev(p, i + 1))
			return plan_mutate(p, seed + 1000003, what, size);
		struct plan_ev b;
		plan_ev_parse(p->line[i + 1], &b);
		uint64_t c = ev.clock;
		ev.clock = b.clock;
		b.clock = c;
		plan_ev_format(&b, buf, sizeof(buf));
		plan_set(p, i, buf);
		plan_ev_format(&ev, buf, sizeof(buf));
		plan_set(p, i + 1, buf);
		break;
	}
	case X_DUP:
	case X_END2:
		plan_insert(p, i + 1, p->line[i]);
		break;
	case X_CUT:
		ev.plen = ev.kind == 'J' ? ev.plen - 1 - (int) rng_below(&r, (uint32_t) ev.plen - 1)
					 : 2 + (int) rng_below(&r, (uint32_t) ev.plen - 2);
		plan_ev_format(&ev, buf, sizeof(buf));
		plan_set(p, i, buf);
		break;
	case X_VALUE:
		ev.pl[0] = (uint8_t) (ev.pl[0] + 1 + rng_below(&r, 3));
		plan_ev_format(&ev, buf, sizeof(buf));
		plan_set(p, i, buf);
		break;
	case X_UNKNOWN:
		ev.mcv[2] = 'z';
		plan_ev_format(&ev, buf, sizeof(buf));
		plan_set(p, i, buf);
		break;
	case X_BACK: {
		size_t j = i;
		while (j > 0 && !is_ev(p, j - 1))
			j--;
		struct plan_ev prev;
		if (j == 0 || !plan_ev_parse(p->line[j - 1], &prev) || prev.clock < 2)
			return plan_mutate(p, seed + 1000003, what, size);
		ev.clock = prev.clock - 1 - rng_below(&r, (uint32_t) (prev.clock < 1000 ? prev.clock - 1 : 1000));
		plan_ev_format(&ev, buf, sizeof(buf));
		plan_set(p, i, buf);
		break;
	}
	case X_TRUNC:
		while (i < p->n && is_ev(p, i))
			plan_remove(p, i);
		break;
	case X_FLIP:
		ev.mcv[2] = (char) (islower((unsigned char) ev.mcv[2]) ? toupper((unsigned char) ev.mcv[2])
								       : tolower((unsigned char) ev.mcv[2]));
		plan_ev_format(&ev, buf, sizeof(buf));
		plan_set(p, i, buf);
		break;
	}
	return 0;
}
