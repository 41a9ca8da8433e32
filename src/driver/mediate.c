/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mediate: an event's matches to each analyser, and the waits of the
 * replay (dint.h): at the analysers' stops, for room in a queue, and the
 * regular poll of the sockets. */
#include "driver/dint.h"

void drv_matched(struct driver *d, int shard, const struct weft_ev *ev, uint64_t m)
{
	struct query *q = &d->shard[shard]->q;
	while (m) {
		/* the patterns of one analyser make one line */
		struct drv_client *c = (struct drv_client *) q->pat[__builtin_ctzll(m)]->owner;
		uint64_t cm = 0;
		for (uint64_t x = m; x; x &= x - 1)
			if (q->pat[__builtin_ctzll(x)]->owner == c)
				cm |= x & -x;
		m &= ~cm;
		if (c->gone)
			continue;
		int stop = (cm & q->syncmask) != 0 || c->step;
		q->out = &c->out;
		query_act_line(q, ev, cm, stop);
		q->stopped = 0; /* stop is do_synchro here: the replay goes on after the go */
		if (stop) {
			c->stopped = 1;
			d->nstopped++;
			if (c->step) {
				c->step = 0;
				d->nstep--;
			}
		}
		if (drv_pending(c) >= DRV_FLUSH)
			drv_flush(d, c);
		if (drv_pending(c) > d->o.buffer)
			d->paced = 1;
	}
}

/* Analysers that stepped and matched nothing here stop here too. */
static void step_stops(struct driver *d, const struct weft_ev *ev)
{
	for (int i = 0; i < d->ncl && d->nstep; i++) {
		struct drv_client *c = d->cl[i];
		if (!c->step)
			continue;
		c->step = 0;
		d->nstep--;
		if (c->gone)
			continue;
		struct query *q = &c->sh->q;
		q->out = &c->out;
		query_act_line(q, ev, 0, 1);
		c->stopped = 1;
		d->nstopped++;
	}
}

/* Wait until the analysers stopped here have all said go (or are gone). */
static void wait_stops(struct driver *d, const struct weft_ev *ev)
{
	d->cur = ev;
	for (int i = 0; i < d->ncl; i++)
		drv_flush(d, d->cl[i]);
	while (d->nstopped > 0 && !d->interrupted) {
		double now = drv_now();
		for (int i = 0; i < d->ncl; i++)
			if (d->cl[i]->stopped)
				drv_check_stall(d, d->cl[i], now);
		if (d->reap)
			drv_reap(d);
		if (d->nstopped > 0)
			drv_poll(d, 100);
	}
	d->cur = NULL;
}

/* Wait until every queue is back to half its bound. */
static void wait_room(struct driver *d)
{
	for (;;) {
		int over = 0;
		double now = drv_now();
		for (int i = 0; i < d->ncl; i++) {
			struct drv_client *c = d->cl[i];
			if (c->gone || drv_pending(c) <= d->o.buffer / 2) {
				c->since = 0;
				continue;
			}
			drv_check_stall(d, c, now);
			over += !c->gone;
		}
		if (d->reap)
			drv_reap(d);
		if (!over || d->interrupted)
			break;
		drv_poll(d, 100);
	}
	d->paced = 0;
}

int drv_after_event(struct driver *d, const struct weft_ev *ev)
{
	if (d->reap)
		drv_reap(d);
	if (d->nstep)
		step_stops(d, ev);
	if (d->nstopped)
		wait_stops(d, ev);
	if (d->paced)
		wait_room(d);
	if (d->countdown <= 0) {
		drv_poll(d, 0);
		d->countdown = DRV_SERVICE;
	}
	return d->interrupted != 0;
}
