/* SPDX-License-Identifier: GPL-3.0-or-later */
/* share: a share of a run, for src/par/ (see share.h). */
#include <stdlib.h>

#include "emu/merge.h"
#include "emu/share.h"
#include "emu/warns.h"

int emu_share_open(struct emu *e, const struct emu_share *s, struct weft_err *err)
{
	const struct emu *m = s->main;
	struct emu_opts o = m->o;
	o.sinks.n = 0;
	o.quiet = 1;
	o.progress = 0;
	o.reuse = NULL;
	o.streams_lo = s->lo;
	o.streams_hi = s->hi;
	/* a log the main run converted is read from its conversion */
	const char **conv = weft_xcalloc((size_t) m->tr.ninputs + 1, sizeof(*conv));
	for (int i = 0; i < m->tr.ninputs; i++)
		conv[i] = m->tr.inputs[i].source ? m->tr.inputs[i].dir : NULL;
	o.converted = conv;
	int rc = emu_open(e, m->run.trace, &o, err);
	free(conv);
	if (rc)
		return -1;
	if (s->follow)
		merge_follow(&e->merge, s->follow, s->fk);
	if (!m->o.quiet || m->o.keep_warns)
		warns_keep(e, s->lo); /* printed by the merging run, in one run's order */
	/* as paraver_open leaves the files: thread.prv is file 0, cpu.prv 1,
	 * each CPU row names its CPU, no row has a state (jobs_serial_why) */
	prv_front_init(&e->out.prv[EMU_THREAD_FILE], s->ring, 0, e->sys.nth, e->out.slots.n[EMU_THREAD_FILE]);
	prv_front_init(&e->out.prv[EMU_CPU_FILE], s->ring, 1, e->sys.ncpu, e->out.slots.n[EMU_CPU_FILE]);
	for (int k = 0; k < EMU_NFILES; k++)
		emu_fresh_apply(e, k, &e->out.prv[k]);
	for (int i = 0; i < e->sys.ncpu; i++)
		e->out.prv[EMU_CPU_FILE].rows[i].cpu = (uint32_t) i + 1;
	/* its rows that open with a state, as paraver_open gives them, in row
	 * order; the main run's are not flushed (jobs_serial_why) */
	for (int r = 0; r < e->sys.nth; r++) {
		const struct emu_thread *t = e->sys.by_row[r];
		int k = (int) (t - e->sys.th);
		if (k >= s->lo && k < s->hi && emu_owner(e, t) != 'O')
			prv_state(&e->out.prv[EMU_THREAD_FILE], r, EMU_STATE_NOT_STARTED);
	}
	e->out.writing = 1;
	e->run.t0 = m->run.t0;
	e->part.t0_fixed = 1;
	e->part.halt = s->halt;
	e->part.done = s->done;
	e->part.match_defer = 1; /* message ends go to the merger (match.h) */
	return 0;
}

int emu_share_run(struct emu *e, struct emu_share_fail *f, struct weft_err *err)
{
	int rc = 0;
	int r = emu_run_events(e, err);
	if (r < 0) {
		rc = -1;
		f->time = e->run.now + e->run.t0;
		f->stream = e->merge.cur ? e->merge.cur->index : e->o.streams_lo;
	} else if (r == 0 && emu_run_end(e, &f->model, err)) {
		rc = -2;
	}
	/* the states of its last instant */
	prv_flush_now(&e->out.prv[EMU_THREAD_FILE]);
	prv_flush_now(&e->out.prv[EMU_CPU_FILE]);
	return rc;
}

void emu_share_free(struct emu *e)
{
	if (e->out.writing) {
		for (int f = 0; f < EMU_NFILES; f++)
			prv_front_free(&e->out.prv[f]);
		e->out.writing = 0;
	}
	emu_free(e);
}
