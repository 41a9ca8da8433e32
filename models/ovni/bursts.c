/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni bursts (OB.): latency probes (doc/models/ovni.md, Bursts).
 * Each thread's burst clocks are taken in groups of 100; the 99 gaps of a
 * group give its median, mean and maximum, and the group starts over, as
 * ovniemu does. Instead of a line per group (ovniemu's), weft keeps per
 * thread the number of groups, the smallest, mean and largest group
 * median, the largest gap, and how many group medians exceed 100 ns, and
 * reports them once at the end. Only with `weft emu --bursts`: the groups
 * and their medians cost about a tenth of the emulation's main thread on
 * a trace that is one quarter bursts. Memory: one group of clocks per
 * thread that emits bursts. No Paraver output. */
#include <stdio.h>
#include <stdlib.h>

#include "ovni/ovni.h"

#define BURST_GROUP 100
#define BURST_SLOW_NS 100

struct ovni_bursts {
	uint64_t clk[BURST_GROUP];
	int n;
	uint64_t groups, slow;
	uint64_t med_min, med_max, med_sum, gap_max;
};

/* The k-th smallest of v[0..n) (v is reordered): quickselect. */
static uint64_t kth(uint64_t *v, int n, int k)
{
	int lo = 0, hi = n - 1;
	while (lo < hi) {
		uint64_t p = v[(lo + hi) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				uint64_t t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

static void close_group(struct ovni_bursts *b)
{
	uint64_t gap[BURST_GROUP - 1], max = 0;
	for (int i = 0; i < BURST_GROUP - 1; i++) {
		gap[i] = b->clk[i + 1] - b->clk[i];
		if (gap[i] > max)
			max = gap[i];
	}
	uint64_t med = kth(gap, BURST_GROUP - 1, (BURST_GROUP - 1) / 2);
	if (b->groups == 0 || med < b->med_min)
		b->med_min = med;
	if (med > b->med_max)
		b->med_max = med;
	if (max > b->gap_max)
		b->gap_max = max;
	b->med_sum += med;
	b->slow += med > BURST_SLOW_NS;
	b->groups++;
	b->n = 0;
}

int ovni_burst(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in, (void) err;
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	t->nbursts++;
	if (!e->o.bursts)
		return 0; /* the statistics cost about a tenth of the emulation: on request */
	struct ovni_bursts *b = t->bursts;
	if (__builtin_expect(!b, 0))
		b = t->bursts = weft_xcalloc(1, sizeof(*b));
	/* the stream's own clock: a thread's gaps need no correction */
	b->clk[b->n++] = ev->clock;
	if (b->n == BURST_GROUP)
		close_group(b);
	return 0;
}

void ovni_bursts_report(struct emu *e)
{
	for (int i = 0; i < e->sys.nth; i++) {
		const struct emu_thread *t = &e->sys.th[i];
		const struct ovni_bursts *b = t->bursts;
		if (!b || !b->groups)
			continue;
		fprintf(stderr,
			"weft: bursts of thread %lld (loom %s, pid %lld): %llu groups of %d, median gap per "
			"group min/avg/max = %llu/%llu/%llu ns, largest gap %llu ns\n",
			(long long) t->sys->tid, t->sys->proc->loom->name, (long long) t->sys->proc->pid,
			(unsigned long long) b->groups, BURST_GROUP, (unsigned long long) b->med_min,
			(unsigned long long) (b->med_sum / b->groups), (unsigned long long) b->med_max,
			(unsigned long long) b->gap_max);
		if (b->slow)
			weft_warn("thread %lld: %llu of %llu burst groups have a median gap above %d ns",
				  (long long) t->sys->tid, (unsigned long long) b->slow,
				  (unsigned long long) b->groups, BURST_SLOW_NS);
	}
}

void ovni_bursts_free(struct emu *e)
{
	for (int i = 0; i < e->sys.nth; i++) {
		free(e->sys.th[i].bursts);
		e->sys.th[i].bursts = NULL;
	}
}
