/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pairs: receive-before-send accounting and the pair observer (pairs.h). */
#include <stdio.h>

#include "emu/emu.h"

void emu_pair(struct emu *e, const struct emu_thread *from, const struct emu_thread *to, uint64_t send_now,
	      uint64_t recv_now)
{
	struct pair_stats *ps = &e->count.pairs;
	struct emu_pair p = {from, to, send_now + e->run.t0, recv_now + e->run.t0};
	ps->n++;
	if (recv_now < send_now) {
		if (ps->nviol < PAIRS_FIRST)
			ps->first[ps->nviol] = p;
		ps->nviol++;
		if (send_now - recv_now > ps->worst) {
			ps->worst = send_now - recv_now;
			ps->worst_pair = p;
		}
	}
	if (ps->observer)
		ps->observer(ps->arg, e, &p);
}

static void describe(const struct emu *e, const struct emu_pair *p, char *buf, size_t n)
{
	snprintf(buf, n, "sent by %.*s at %llu ns, received by %.*s at %llu ns (%.3f us early)",
		 (int) p->from->stream->label_len, p->from->stream->label,
		 (unsigned long long) (p->send - e->run.t0), (int) p->to->stream->label_len, p->to->stream->label,
		 (unsigned long long) (p->recv - e->run.t0), (double) (p->send - p->recv) / 1e3);
}

void emu_pairs_report(const struct emu *e)
{
	const struct pair_stats *ps = &e->count.pairs;
	if (!ps->nviol)
		return;
	char buf[512];
	describe(e, &ps->worst_pair, buf, sizeof(buf));
	weft_warn("%llu of %llu matched messages are received before they are sent (clocks not "
		  "synchronised? see weft sync, emu --sync=messages); worst: %s",
		  (unsigned long long) ps->nviol, (unsigned long long) ps->n, buf);
	for (uint64_t i = 0; i < ps->nviol && i < PAIRS_FIRST; i++) {
		describe(e, &ps->first[i], buf, sizeof(buf));
		weft_warn("received before sent (#%llu): %s", (unsigned long long) i + 1, buf);
	}
}
