/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fromevent: `weft emu --from-event EXPR`, the time where the window opens:
 * a first pass over the trace (emulated, so that state.<model> and cpu may
 * be named; no output) stops at the first event EXPR holds for, and gives
 * its Paraver time. The run itself then cuts from there as --from does, so
 * the window holds every record of that instant, as a cut of the full run
 * by time would. */
#include <string.h>

#include "cli/cli.h"
#include "emu/emu.h"
#include "cli/fromevent.h"
#include "query/query.h"

struct fe_state {
	struct query q;
	struct emu *e;
	int found;
	uint64_t at;
};

static int fe_on_event(void *arg, const struct weft_ev *ev)
{
	struct fe_state *s = arg;
	if (!query_eval(&s->q, 0, ev, s->e->count.nevents - 1))
		return 0;
	s->found = 1;
	s->at = s->e->run.now;
	return 1; /* stop the run here */
}

int from_event_time(const char *trace, const struct emu_opts *o, const char *expr, uint64_t *at,
		    struct weft_err *err)
{
	struct fe_state s;
	memset(&s, 0, sizeof(s));
	if (query_init(&s.q, &o->models, err))
		return -1;
	if (query_add_filter(&s.q, expr, "--from-event", err)) {
		query_free(&s.q);
		return -1;
	}
	struct emu_opts po = *o;
	po.sinks.n = 0; /* no output: only the events' times and states */
	po.reuse = NULL;   /* the run itself takes the trace the clock pass kept */
	po.quiet = 1;
	po.progress = 0;
	po.win = 0;
	po.breakdown = 0;
	struct emu e;
	int rc = emu_open(&e, trace, &po, err);
	if (rc == 0) {
		s.e = &e;
		e.obs.on_event = fe_on_event;
		e.obs.arg = &s;
		rc = query_bind(&s.q, &e.tr, &e, err);
	}
	if (rc == 0) {
		query_start(&s.q, query_merge_t0(&e.merge));
		rc = emu_run(&e, err);
	}
	uint64_t n = e.count.nevents;
	emu_free(&e);
	query_free(&s.q);
	if (rc)
		return -1;
	if (!s.found)
		return weft_fail(err, WEFT_EINPUT, "%s: --from-event: no event of the %llu in the trace matches '%s'",
				 trace, (unsigned long long) n, expr);
	*at = s.at;
	return 0;
}
