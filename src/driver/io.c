/* SPDX-License-Identifier: GPL-3.0-or-later */
/* io: the driver's sockets — one poll over the listening socket, the
 * signals and every analyser; requests read into lines; queues written as
 * far as each socket takes them; slow analysers noticed (dint.h). */
#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "driver/dint.h"

double drv_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

void drv_gone(struct driver *d, struct drv_client *c, const char *why)
{
	if (c->gone)
		return;
	if (why)
		weft_warn("weft serve: analyser %u %s: disconnected", c->id, why);
	c->gone = 1;
	d->reap = 1;
}

void drv_flush(struct driver *d, struct drv_client *c)
{
	while (!c->gone && drv_pending(c)) {
		ssize_t w = send(c->fd, c->out.buf + c->sent, drv_pending(c), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				drv_gone(d, c, errno == EPIPE || errno == ECONNRESET ? NULL : strerror(errno));
			break;
		}
		c->sent += (size_t) w;
	}
	if (c->sent == c->out.len) {
		c->sent = c->out.len = 0;
	} else if (c->sent >= (1u << 20) && c->sent >= c->out.len / 2) {
		memmove(c->out.buf, c->out.buf + c->sent, drv_pending(c));
		c->out.len -= c->sent;
		c->sent = 0;
	}
}

void drv_check_stall(struct driver *d, struct drv_client *c, double now)
{
	int queued = 0;
	if (ioctl(c->fd, SIOCOUTQ, &queued) != 0)
		queued = 0;
	uint64_t unread = drv_pending(c) + (uint64_t) (queued > 0 ? queued : 0);
	if (unread == 0) {
		c->since = 0;
	} else if (c->since == 0 || unread < c->unread) {
		c->since = now; /* it took some: it lives */
	} else if (d->o.stall > 0 && now - c->since > d->o.stall) {
		char why[128];
		snprintf(why, sizeof(why), "took none of its %llu unread bytes for %g s", (unsigned long long) unread,
			 d->o.stall);
		drv_gone(d, c, why);
	}
	c->unread = unread;
}

/* The requests in n bytes just read: whole lines are handled, the rest
 * kept; a line longer than DRV_MAX_REQUEST is refused and skipped. */
static void take_input(struct driver *d, struct drv_client *c, const char *buf, size_t n)
{
	while (n > 0 && !c->gone && !c->ending) {
		const char *nl = memchr(buf, '\n', n);
		size_t k = nl ? (size_t) (nl - buf) : n;
		if (!c->skipping && c->inlen + k > DRV_MAX_REQUEST) {
			char msg[128];
			snprintf(msg, sizeof(msg), "a request is one line of at most %u bytes", DRV_MAX_REQUEST);
			drv_reply_error(c, NULL, msg);
			c->skipping = 1;
			c->inlen = 0;
		}
		if (!c->skipping) {
			if (c->inlen + k > c->incap) {
				c->incap = c->inlen + k + 256;
				c->in = weft_xrealloc(c->in, c->incap);
			}
			memcpy(c->in + c->inlen, buf, k);
			c->inlen += k;
		}
		if (!nl)
			return;
		if (!c->skipping)
			drv_request(d, c, c->in, c->inlen);
		c->skipping = 0;
		c->inlen = 0;
		buf += k + 1;
		n -= k + 1;
	}
}

static void read_client(struct driver *d, struct drv_client *c)
{
	char buf[65536];
	for (int rounds = 0; rounds < 16 && !c->gone; rounds++) {
		ssize_t r = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r == 0) {
			drv_gone(d, c, NULL);
			return;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				drv_gone(d, c, errno == ECONNRESET ? NULL : strerror(errno));
			return;
		}
		take_input(d, c, buf, (size_t) r);
		if (drv_pending(c) > d->o.buffer)
			return; /* it does not read its replies: read no more of it */
	}
}

static void accept_all(struct driver *d)
{
	for (;;) {
		int fd = accept4(d->sock.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				/* no descriptor left: listen again when an analyser leaves */
				weft_warn("weft serve: accept: %s (new analysers wait)", strerror(errno));
				d->accept_paused = 1;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED) {
				weft_warn("weft serve: accept: %s", strerror(errno));
			}
			return;
		}
		drv_client_new(d, fd);
	}
}

static void read_signal(struct driver *d)
{
	struct signalfd_siginfo si;
	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si))
		d->interrupted = (int) si.ssi_signo;
}

void drv_poll(struct driver *d, int timeout_ms)
{
	struct pollfd small[64];
	size_t n = (size_t) d->ncl + 2;
	struct pollfd *p = n <= 64 ? small : weft_xmalloc(n * sizeof(*p));
	int k = 0;
	p[k++] = (struct pollfd){.fd = d->sigfd, .events = POLLIN};
	p[k++] = (struct pollfd){.fd = d->at != DRV_END && !d->accept_paused ? d->sock.fd : -1, .events = POLLIN};
	for (int i = 0; i < d->ncl; i++) {
		const struct drv_client *c = d->cl[i];
		short ev = 0;
		if (!c->gone && !c->ending && drv_pending(c) <= d->o.buffer)
			ev |= POLLIN;
		if (!c->gone && drv_pending(c))
			ev |= POLLOUT;
		p[k++] = (struct pollfd){.fd = c->gone ? -1 : c->fd, .events = ev};
	}
	int ncl = d->ncl; /* accepting adds analysers after these */
	int r = poll(p, (nfds_t) k, timeout_ms);
	if (r > 0) {
		if (p[0].revents)
			read_signal(d);
		for (int i = 0; i < ncl; i++) {
			struct drv_client *c = d->cl[i];
			short re = p[i + 2].revents;
			if (re & POLLOUT)
				drv_flush(d, c);
			if (re & (POLLIN | POLLHUP | POLLERR))
				read_client(d, c);
		}
		if (p[1].revents)
			accept_all(d);
	}
	if (p != small)
		free(p);
	for (int i = 0; i < d->ncl; i++)
		if (drv_pending(d->cl[i]))
			drv_flush(d, d->cl[i]);
	if (d->reap)
		drv_reap(d);
}
