/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_driver: the input is what an analyser sends weft serve, one request
 * per line (its first byte chooses the replay's position: at the start,
 * running, or stopped at an event for this analyser).
 *
 * Each line goes through the driver's request handler for one analyser
 * over a small fake system (no socket is read: the lines are handed in).
 * Every request but a blank line must get exactly one reply, a JSON object
 * on one line whose first member is "ok" or "error" — whatever the bytes.
 * Patterns that parse are bound; the analyser's patterns are counted
 * against the shard's. Then the analyser leaves: its patterns go with it.
 *
 * Nothing is printed and no file is written; a broken invariant aborts. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "driver/dint.h"
#include "trace/trace.h"

#include "fuzz_check.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct weft_loom loom;
static struct weft_loom *loomp = &loom;
static struct weft_proc proc;
static struct weft_thread thr;
static struct weft_stream strm;
static struct weft_trace tr;
static char loom_name[] = "node00";
static char rel[] = "loom.node00/proc.1/thread.1";

static void fake_system(void)
{
	memset(&tr, 0, sizeof(tr));
	loom.name = loom_name;
	proc.pid = 1;
	proc.loom = &loom;
	thr.tid = 1;
	thr.proc = &proc;
	strm.thread = &thr;
	strm.rel = rel;
	tr.sys.looms = &loomp;
	tr.sys.nlooms = 1;
	tr.streams = &strm;
	tr.nstreams = 1;
}

/* The reply to one request: one line, a JSON object led by ok or error. */
static void check_reply(const char *p, size_t n)
{
	check(n > 0 && p[n - 1] == '\n' && memchr(p, '\n', n) == p + n - 1);
	cJSON *j = cJSON_ParseWithLength(p, n - 1);
	check(j && cJSON_IsObject(j) && j->child);
	check(strcmp(j->child->string, "ok") == 0 || strcmp(j->child->string, "error") == 0);
	cJSON_Delete(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct driver d;
	static int have_tab;
	struct weft_err e = {0};
	if (!have_tab) { /* compiled once, never freed (still reachable) */
		/* weft's own models, made once (still reachable) */
		struct model_set set = model_registry_set(model_registry_new());
		const struct weft_model_def *const *all = set.all;
		int nall = set.n;
		check(evtable_init(&d.tab, all, nall, &e) == 0);
		have_tab = 1;
	}
	fake_system();
	struct evtable tab = d.tab;
	memset(&d, 0, sizeof(d));
	d.tab = tab;
	d.o.trace = "fuzz";
	d.o.buffer = 1 << 20;
	d.tr = &tr;
	d.sigfd = -1;
	d.sock.fd = -1;
	ob_init(&d.scratch, OB_GROW, 256);
	int where = size ? data[0] % 3 : 0;
	d.at = where == 0 ? DRV_START : DRV_RUN;
	int sv[2];
	check(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	drv_client_new(&d, sv[0]);
	check(d.ncl == 1);
	struct drv_client *c = d.cl[0];
	uint8_t payload[12] = {7, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0};
	struct weft_ev ev = {.model = 'O',
			     .cat = 'M',
			     .val = '[',
			     .stream = &strm,
			     .payload = payload,
			     .payload_len = 12,
			     .time = 10,
			     .clock = 15};
	if (where == 2) { /* stopped at an event for this analyser */
		d.chrono = 1;
		d.cur = &ev;
		c->stopped = 1;
		d.nstopped = 1;
	}
	c->out.len = c->sent = 0; /* the hello */
	size_t i = size ? 1 : 0;
	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t n = nl ? (size_t) (nl - (data + i)) : size - i;
		size_t before = c->out.len;
		int blank = 1;
		for (size_t k = 0; k < n && blank; k++)
			blank = data[i + k] == ' ' || data[i + k] == '\t' || data[i + k] == '\r';
		if (n <= DRV_MAX_REQUEST)
			drv_request(&d, c, (const char *) data + i, n);
		if (!blank && n <= DRV_MAX_REQUEST)
			check_reply(c->out.buf + before, c->out.len - before);
		else
			check(c->out.len == before);
		c->out.len = c->sent = 0;
		int mine = 0;
		for (int k = 0; k < c->sh->q.npat; k++)
			mine += c->sh->q.pat[k]->owner == c;
		check(mine == c->npat);
		if (d.cur && !c->stopped) { /* it said go: stopped again, as at the next stop */
			c->stopped = 1;
			d.nstopped++;
		}
		i += n + 1;
	}
	c->gone = 1;
	drv_reap(&d);
	check(d.ncl == 0 && d.nshard == 0 && d.nstopped == 0 && d.nstep == 0);
	free(d.cl);
	free(d.shard);
	ob_free(&d.scratch);
	close(sv[1]);
	return 0;
}
