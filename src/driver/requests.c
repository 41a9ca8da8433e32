/* SPDX-License-Identifier: GPL-3.0-or-later */
/* requests: an analyser's requests, one JSON object per line with one
 * member whose name is the request (doc/driver.md), each answered by one
 * line on that analyser's connection only: {"ok":NAME,...} or
 * {"error":MSG,"request":NAME}. Nothing a request says is a file the
 * server would open: patterns are text, attributes are names. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "driver/dint.h"
#include "util/jsonscan.h"
#include "util/macros.h"

/* ---- reply pieces ----------------------------------------------------------- */

static void put_str(struct outbuf *o, const char *s)
{
	query_put_json_str(o, s, strlen(s));
}

static void put_u64(struct outbuf *o, uint64_t v)
{
	ob_room(o, 24);
	ob_u64(o, v);
}

static void reply_ok(struct drv_client *c, const char *name)
{
	ob_str(&c->out, "{\"ok\":");
	put_str(&c->out, name);
}

int drv_reply_error(struct drv_client *c, const char *request, const char *msg)
{
	ob_str(&c->out, "{\"error\":");
	put_str(&c->out, msg);
	if (request) {
		ob_str(&c->out, ",\"request\":");
		put_str(&c->out, request);
	}
	ob_str(&c->out, "}\n");
	return 0;
}

void drv_put_summary(struct driver *d, struct drv_client *c, struct outbuf *o)
{
	struct query *q = &c->sh->q;
	query_sync(q);
	ob_str(o, "{\"events\":");
	put_u64(o, d->chrono);
	ob_str(o, ",\"patterns\":[");
	int n = 0;
	for (int k = 0; k < q->npat; k++)
		if (q->pat[k]->owner == c) {
			if (n++)
				ob_str(o, ",");
			query_pattern_json(q, k, o);
		}
	ob_str(o, "]}");
}

/* ---- requests --------------------------------------------------------------- */

typedef int (*req_fn)(struct driver *d, struct drv_client *c, const cJSON *v);

static int req_add(struct driver *d, struct drv_client *c, const cJSON *v)
{
	if (!cJSON_IsString(v))
		return drv_reply_error(c, "add", "add takes a string: the pattern, as weft query takes it");
	struct weft_err e = {0};
	if (drv_room(d, c, &e) || query_add_for(&c->sh->q, c, v->valuestring, "add", &e))
		return drv_reply_error(c, "add", e.msg);
	c->npat++;
	const struct qpattern *p = c->sh->q.pat[c->sh->q.npat - 1];
	reply_ok(c, "add");
	ob_str(&c->out, ",\"label\":");
	put_str(&c->out, p->label);
	ob_str(&c->out, ",\"from\":");
	put_u64(&c->out, d->chrono);
	ob_str(&c->out, p->sync || p->stop ? ",\"sync\":true" : ",\"sync\":false");
	ob_str(&c->out, ",\"calls\":[");
	for (int i = 0; i < p->ncalls; i++) {
		if (i)
			ob_str(&c->out, ",");
		put_str(&c->out, p->calls[i]);
	}
	ob_str(&c->out, "]}\n");
	return 0;
}

static int req_remove(struct driver *d, struct drv_client *c, const cJSON *v)
{
	if (!cJSON_IsString(v))
		return drv_reply_error(c, "remove", "remove takes a string: the label");
	struct query *q = &c->sh->q;
	int k = query_find(q, c, v->valuestring);
	if (k < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg), "remove: you have no pattern labelled \"%.200s\"", v->valuestring);
		return drv_reply_error(c, "remove", msg);
	}
	reply_ok(c, "remove");
	ob_str(&c->out, ",\"label\":");
	put_str(&c->out, v->valuestring);
	ob_str(&c->out, ",\"until\":");
	put_u64(&c->out, d->chrono);
	ob_str(&c->out, ",\"summary\":");
	query_sync(q);
	query_pattern_json(q, k, &c->out);
	ob_str(&c->out, "}\n");
	query_remove_for(q, c, v->valuestring);
	c->npat--;
	return 0;
}

static int req_reset(struct driver *d, struct drv_client *c, const cJSON *v)
{
	(void) d, (void) v;
	int n = query_remove_owner(&c->sh->q, c);
	c->npat = 0;
	reply_ok(c, "reset");
	ob_str(&c->out, ",\"removed\":");
	put_u64(&c->out, (uint64_t) n);
	ob_str(&c->out, "}\n");
	return 0;
}

/* The attribute list of a current request: "a, b" or ["a", "b"]. */
static int attr_text(struct driver *d, const cJSON *v, struct weft_err *e)
{
	struct outbuf *o = &d->scratch;
	o->len = 0;
	if (cJSON_IsString(v)) {
		ob_str(o, v->valuestring);
	} else if (cJSON_IsArray(v)) {
		int i = 0;
		for (const cJSON *x = v->child; x; x = x->next, i++) {
			if (!cJSON_IsString(x))
				return weft_fail(e, WEFT_EUSAGE, "current takes attribute names (strings)");
			if (i)
				ob_str(o, ", ");
			ob_str(o, x->valuestring);
		}
	} else {
		return weft_fail(e, WEFT_EUSAGE, "current takes a list of attribute names, e.g. [\"time\", \"tid\"]");
	}
	ob_room(o, 1);
	o->buf[o->len] = '\0';
	return 0;
}

static int req_current(struct driver *d, struct drv_client *c, const cJSON *v)
{
	if (!c->stopped || !d->cur)
		return drv_reply_error(c, "current",
				       d->at == DRV_START ? "current: no event yet (the replay has not begun)"
							  : "current: the replay is not stopped for you (current "
							    "works at your stops: in a synchronous handler)");
	struct weft_err e = {0};
	if (attr_text(d, v, &e))
		return drv_reply_error(c, "current", e.msg);
	struct query *q = &c->sh->q;
	struct qattr *attrs = NULL;
	const struct qattr *def;
	int n;
	if (d->scratch.len == 0) {
		n = query_default_attrs(q, d->emu != NULL, &def);
	} else {
		n = query_parse_attrs(q, d->scratch.buf, "current", &attrs, &e);
		if (n < 0)
			return drv_reply_error(c, "current", e.msg);
		def = attrs;
	}
	reply_ok(c, "current");
	ob_str(&c->out, ",\"chrono\":");
	put_u64(&c->out, d->chrono - 1);
	ob_str(&c->out, ",\"values\":");
	query_put_values(q, &c->out, d->cur, d->chrono - 1, def, n);
	ob_str(&c->out, "}\n");
	if (attrs)
		query_free_attrs(attrs, n);
	return 0;
}

static int resume(struct driver *d, struct drv_client *c, const char *name)
{
	if (!c->stopped) {
		char msg[128];
		snprintf(msg, sizeof(msg), "%s: the replay is not waiting for you", name);
		drv_reply_error(c, name, msg);
		return 1;
	}
	c->stopped = 0;
	d->nstopped--;
	d->nready += d->at == DRV_START;
	reply_ok(c, name);
	ob_str(&c->out, "}\n");
	return 0;
}

static int req_go(struct driver *d, struct drv_client *c, const cJSON *v)
{
	(void) v;
	return resume(d, c, "go");
}

static int req_step(struct driver *d, struct drv_client *c, const cJSON *v)
{
	(void) v;
	if (c->stopped) {
		resume(d, c, "step");
	} else { /* running: stop at the next event */
		reply_ok(c, "step");
		ob_str(&c->out, "}\n");
	}
	if (!c->step) {
		c->step = 1;
		d->nstep++;
	}
	return 0;
}

static int req_list(struct driver *d, struct drv_client *c, const cJSON *v)
{
	(void) d, (void) v;
	struct query *q = &c->sh->q;
	reply_ok(c, "list");
	ob_str(&c->out, ",\"patterns\":[");
	int n = 0;
	for (int k = 0; k < q->npat; k++) {
		const struct qpattern *p = q->pat[k];
		if (p->owner != c)
			continue;
		ob_str(&c->out, n++ ? ",{\"label\":" : "{\"label\":");
		put_str(&c->out, p->label);
		ob_str(&c->out, ",\"pattern\":");
		put_str(&c->out, p->text);
		ob_str(&c->out, p->sync || p->stop ? ",\"sync\":true}" : ",\"sync\":false}");
	}
	ob_str(&c->out, "]}\n");
	return 0;
}

static int req_summary(struct driver *d, struct drv_client *c, const cJSON *v)
{
	(void) v;
	reply_ok(c, "summary");
	ob_str(&c->out, ",\"summary\":");
	drv_put_summary(d, c, &c->out);
	ob_str(&c->out, "}\n");
	return 0;
}

static int req_protocol(struct driver *d, struct drv_client *c, const cJSON *v)
{
	(void) d;
	if (!cJSON_IsNumber(v) || v->valuedouble != DRV_PROTOCOL) {
		char msg[128];
		snprintf(msg, sizeof(msg), "protocol: this server speaks protocol %d only", DRV_PROTOCOL);
		return drv_reply_error(c, "protocol", msg);
	}
	reply_ok(c, "protocol");
	ob_str(&c->out, ",\"protocol\":");
	put_u64(&c->out, DRV_PROTOCOL);
	ob_str(&c->out, "}\n");
	return 0;
}

static const struct {
	const char *name;
	req_fn fn;
} requests[] = {
	{"add", req_add},	  {"remove", req_remove},   {"reset", req_reset},
	{"current", req_current}, {"go", req_go},	    {"step", req_step},
	{"list", req_list},	  {"summary", req_summary}, {"protocol", req_protocol},
};

void drv_request(struct driver *d, struct drv_client *c, const char *line, size_t n)
{
	size_t i = 0;
	while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i == n)
		return; /* a blank line asks nothing */
	size_t off;
	char why[160];
	if (json_prescan(line, n, &off, why, sizeof(why))) { /* what cJSON would misread or let through */
		char msg[240];
		snprintf(msg, sizeof(msg), "a request is not JSON: %s (byte %zu)", why, off + 1);
		drv_reply_error(c, NULL, msg);
		return;
	}
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(line, n, &end, 0);
	while (j && end && end < line + n && (*end == ' ' || *end == '\t' || *end == '\r'))
		end++;
	if (j && end != line + n) { /* one value, and nothing after it */
		cJSON_Delete(j);
		char msg[160];
		snprintf(msg, sizeof(msg), "a request is one JSON object; this one has more after it (byte %zu)",
			 (size_t) (end - line) + 1);
		drv_reply_error(c, NULL, msg);
		return;
	}
	if (!j) {
		const char *at = cJSON_GetErrorPtr();
		char msg[160];
		size_t at_off = at && at >= line && at <= line + n ? (size_t) (at - line) : 0;
		snprintf(msg, sizeof(msg), "a request is a JSON object on one line; this one is not JSON (byte %zu)",
			 at_off + 1);
		drv_reply_error(c, NULL, msg);
		return;
	}
	if (!cJSON_IsObject(j) || !j->child || j->child->next) {
		cJSON_Delete(j);
		drv_reply_error(c, NULL, "a request is an object with one member, e.g. {\"go\":true}");
		return;
	}
	const cJSON *v = j->child;
	for (size_t k = 0; k < ARRAY_SIZE(requests); k++)
		if (strcmp(v->string, requests[k].name) == 0) {
			requests[k].fn(d, c, v);
			cJSON_Delete(j);
			return;
		}
	char msg[256];
	snprintf(msg, sizeof(msg),
		 "unknown request \"%.60s\" (expected add, remove, reset, current, go, step, list, summary or "
		 "protocol)",
		 v->string);
	cJSON_Delete(j);
	drv_reply_error(c, NULL, msg);
}
