/* SPDX-License-Identifier: GPL-3.0-or-later */
/* driver: the server's life (listen, the start, the end) and its analysers
 * and shards (driver.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "driver/dint.h"

/* ---- shards --------------------------------------------------------------- */

static struct drv_shard *shard_new(struct driver *d, struct weft_err *e)
{
	struct drv_shard *sh = weft_xcalloc(1, sizeof(*sh));
	if (query_init_tab(&sh->q, &d->tab, e) || query_bind(&sh->q, d->tr, d->emu, e)) {
		query_free(&sh->q);
		free(sh);
		return NULL;
	}
	sh->q.json = 1;
	sh->q.no_models = d->emu == NULL;
	query_start(&sh->q, d->t0);
	sh->q.chrono = d->chrono; /* every shard counts the events alike */
	d->shard = weft_xrealloc(d->shard, (size_t) (d->nshard + 1) * sizeof(*d->shard));
	d->shard[d->nshard++] = sh;
	return sh;
}

/* A shard with room for n more patterns (the first), or a new one. */
static struct drv_shard *shard_with_room(struct driver *d, int n, const struct drv_shard *skip, struct weft_err *e)
{
	for (int i = 0; i < d->nshard; i++)
		if (d->shard[i] != skip && d->shard[i]->q.npat + n <= QUERY_MAX_PATTERNS)
			return d->shard[i];
	return shard_new(d, e);
}

void drv_shard_tidy(struct driver *d)
{
	int k = 0;
	for (int i = 0; i < d->nshard; i++) {
		struct drv_shard *sh = d->shard[i];
		if (sh->nclients == 0 && sh->q.npat == 0) {
			query_free(&sh->q);
			free(sh);
		} else {
			d->shard[k++] = sh;
		}
	}
	d->nshard = k;
}

int drv_room(struct driver *d, struct drv_client *c, struct weft_err *e)
{
	if (c->npat >= QUERY_MAX_PATTERNS)
		return weft_fail(e, WEFT_EUSAGE, "too many patterns: at most %d per analyser", QUERY_MAX_PATTERNS);
	if (c->sh->q.npat < QUERY_MAX_PATTERNS)
		return 0;
	/* its shard is full of others' patterns: move its own, with their counts */
	struct drv_shard *to = shard_with_room(d, c->npat + 1, c->sh, e);
	if (!to)
		return -1;
	struct query *from = &c->sh->q;
	for (int k = 0; k < from->npat;) {
		if (from->pat[k]->owner != c) {
			k++;
			continue;
		}
		struct qpattern *p = query_take(from, k);
		if (query_put(&to->q, p, e))
			return -1; /* cannot happen: the room was counted */
	}
	c->sh->nclients--;
	c->sh = to;
	to->nclients++;
	drv_shard_tidy(d);
	return 0;
}

/* ---- analysers ------------------------------------------------------------ */

static const char *const at_name[] = {"start", "running", "end"};

void drv_client_new(struct driver *d, int fd)
{
	struct weft_err e = {0};
	struct drv_shard *sh = shard_with_room(d, 1, NULL, &e);
	if (!sh) {
		weft_warn("weft serve: a new analyser is refused: %s", e.msg);
		close(fd);
		return;
	}
	struct drv_client *c = weft_xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->id = ++d->next_id;
	c->sh = sh;
	sh->nclients++;
	ob_init(&c->out, OB_GROW, 4096);
	if (d->ncl == d->clcap) {
		d->clcap = d->clcap ? 2 * d->clcap : 8;
		d->cl = weft_xrealloc(d->cl, (size_t) d->clcap * sizeof(*d->cl));
	}
	d->cl[d->ncl++] = c;
	if (d->at == DRV_START) { /* the replay waits for everybody's first go */
		c->stopped = 1;
		d->nstopped++;
	}
	struct outbuf *o = &c->out;
	ob_str(o, "{\"hello\":{\"protocol\":");
	ob_room(o, 24);
	ob_u64(o, DRV_PROTOCOL);
	ob_str(o, ",\"weft\":\"" WEFT_VERSION "\",\"trace\":");
	query_put_json_str(o, d->o.trace, strlen(d->o.trace));
	ob_str(o, d->emu ? ",\"models\":true" : ",\"models\":false");
	ob_str(o, ",\"at\":\"");
	ob_str(o, at_name[d->at]);
	ob_str(o, "\",\"chrono\":");
	ob_room(o, 24);
	ob_u64(o, d->chrono);
	ob_str(o, ",\"analyser\":");
	ob_room(o, 24);
	ob_u64(o, c->id);
	ob_str(o, "}}\n");
	drv_flush(d, c);
}

static void client_free(struct driver *d, struct drv_client *c)
{
	query_remove_owner(&c->sh->q, c);
	c->sh->nclients--;
	if (c->stopped)
		d->nstopped--;
	if (c->step)
		d->nstep--;
	if (c->fd >= 0)
		close(c->fd);
	ob_free(&c->out);
	free(c->in);
	free(c);
}

void drv_reap(struct driver *d)
{
	int k = 0;
	for (int i = 0; i < d->ncl; i++) {
		if (d->cl[i]->gone) {
			client_free(d, d->cl[i]);
			d->accept_paused = 0;
			continue;
		}
		d->cl[k++] = d->cl[i];
	}
	d->ncl = k;
	d->reap = 0;
	drv_shard_tidy(d);
}

/* ---- life ----------------------------------------------------------------- */

int driver_open(struct driver *d, const struct drv_opts *o, struct weft_err *e)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
	d->sigfd = -1;
	d->sock.fd = -1;
	if (evtable_init(&d->tab, o->models.all, o->models.n, e))
		return -1;
	ob_init(&d->scratch, OB_GROW, 4096);
	/* signals come as a descriptor polled with the sockets: the server
	 * leaves cleanly (socket removed, analysers told) between events */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 || (d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		return weft_fail(e, WEFT_EINTERNAL, "signalfd: %s", strerror(errno));
	if (usock_listen(&d->sock, o->socket, e))
		return -1;
	d->countdown = DRV_SERVICE;
	return 0;
}

int driver_start(struct driver *d, const struct weft_trace *tr, struct emu *emu, uint64_t t0, struct weft_err *e)
{
	d->tr = tr;
	d->emu = emu;
	d->t0 = t0;
	d->at = DRV_START;
	while (!d->interrupted && (d->nready < d->o.wait || d->nstopped > 0))
		drv_poll(d, 200);
	if (d->interrupted)
		return weft_fail(e, WEFT_EINPUT, "interrupted by signal %d before the replay began", d->interrupted);
	d->at = DRV_RUN;
	d->countdown = DRV_SERVICE;
	return 0;
}

int driver_needs_models(const struct driver *d)
{
	if (d->nstep)
		return 1;
	for (int i = 0; i < d->nshard; i++)
		if (d->shard[i]->q.needs_emu || d->shard[i]->q.syncmask)
			return 1;
	return 0;
}

void driver_drop_models(struct driver *d)
{
	d->emu = NULL;
	for (int i = 0; i < d->nshard; i++) {
		d->shard[i]->q.emu = NULL;
		d->shard[i]->q.no_models = 1;
	}
}

/* c's kept lines, summary and end line. */
static void queue_end(struct driver *d, struct drv_client *c, const char *why)
{
	struct query *q = &c->sh->q;
	struct outbuf *o = &c->out;
	query_sync(q);
	for (int k = 0; k < q->npat; k++)
		if (q->pat[k]->owner == c && q->pat[k]->saved)
			ob_strn(o, q->pat[k]->saved, q->pat[k]->saved_len);
	ob_str(o, "{\"summary\":");
	drv_put_summary(d, c, o);
	ob_str(o, "}\n{\"end\":{\"events\":");
	ob_room(o, 24);
	ob_u64(o, d->chrono);
	if (why) {
		ob_str(o, ",\"error\":");
		query_put_json_str(o, why, strlen(why));
	}
	ob_str(o, "}}\n");
	c->ending = 1;
}

void driver_end(struct driver *d, const char *why)
{
	d->at = DRV_END;
	usock_unlisten(&d->sock); /* nobody new */
	for (int i = 0; i < d->ncl; i++)
		if (!d->cl[i]->gone)
			queue_end(d, d->cl[i], why);
	for (;;) {
		int waiting = 0;
		double now = drv_now();
		for (int i = 0; i < d->ncl; i++) {
			struct drv_client *c = d->cl[i];
			if (c->gone || !drv_pending(c))
				continue;
			drv_check_stall(d, c, now);
			waiting += !c->gone;
		}
		if (d->reap)
			drv_reap(d);
		if (!waiting || d->interrupted)
			break;
		drv_poll(d, 100);
	}
	for (int i = 0; i < d->ncl; i++) {
		struct drv_client *c = d->cl[i];
		char sink[4096];
		while (read(c->fd, sink, sizeof(sink)) > 0)
			; /* what it sent last: read, so closing does not reset the connection */
		shutdown(c->fd, SHUT_WR);
		c->gone = 1;
	}
	drv_reap(d);
}

void driver_close(struct driver *d)
{
	for (int i = 0; i < d->ncl; i++)
		d->cl[i]->gone = 1;
	drv_reap(d);
	for (int i = 0; i < d->nshard; i++) {
		query_free(&d->shard[i]->q);
		free(d->shard[i]);
	}
	free(d->shard);
	free(d->cl);
	usock_unlisten(&d->sock);
	if (d->sigfd >= 0)
		close(d->sigfd);
	ob_free(&d->scratch);
	evtable_free(&d->tab);
	memset(d, 0, sizeof(*d));
	d->sigfd = -1;
	d->sock.fd = -1;
}
