/* SPDX-License-Identifier: GPL-3.0-or-later */
/* evtable: signature and template compilation, field decoding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evtable.h"
#include "trace/obs.h"
#include "trace/stream.h"
#include "util/macros.h"

static const struct {
	const char *name;
	enum evf_type type;
	uint32_t size;
} type_names[] = {
	{"u8", EVF_U8, 1},   {"u16", EVF_U16, 2}, {"u32", EVF_U32, 4}, {"u64", EVF_U64, 8},
	{"i8", EVF_I8, 1},   {"i16", EVF_I16, 2}, {"i32", EVF_I32, 4}, {"i64", EVF_I64, 8},
	{"str", EVF_STR, 0},	 {"bytes", EVF_BYTES, 0},
};

static int parse_sig(struct evinfo *in, const char *sig, char model, struct weft_err *e)
{
	const char *p = sig;
	int opt = 0;
	while (*p) {
		while (*p == ' ' || *p == ',' || *p == ']')
			p++;
		if (*p == '[' && !opt) { /* the fields from here on may be missing */
			opt = 1;
			in->min = in->size;
			p++;
			continue;
		}
		if (*p == ';') { /* the payload's rule: "; exact" */
			p++;
			while (*p == ' ')
				p++;
			if (strcmp(p, "exact") != 0 || opt || in->has_str)
				return weft_fail(e, WEFT_EINTERNAL,
						 "model %c: event %s: bad signature \"%s\" at \"%s\"", model,
						 in->decl->mcv, sig, p);
			in->only = 1;
			break;
		}
		if (!*p)
			break;
		char ty[8] = {0}, nm[32] = {0};
		int n = 0;
		if (sscanf(p, "%7s %31[A-Za-z0-9_]%n", ty, nm, &n) != 2)
			return weft_fail(e, WEFT_EINTERNAL, "model %c: event %s: bad signature \"%s\"",
					 model, in->decl->mcv, sig);
		p += n;
		size_t k;
		for (k = 0; k < ARRAY_SIZE(type_names); k++)
			if (strcmp(ty, type_names[k].name) == 0)
				break;
		if (k == ARRAY_SIZE(type_names) || in->nf == EV_MAX_FIELDS || in->has_str)
			return weft_fail(e, WEFT_EINTERNAL,
					 "model %c: event %s: bad signature \"%s\" at \"%s\"", model,
					 in->decl->mcv, sig, ty);
		struct evfield *f = &in->f[in->nf++];
		snprintf(f->name, sizeof(f->name), "%s", nm);
		f->type = type_names[k].type;
		f->off = in->size;
		f->size = type_names[k].size;
		f->opt = opt;
		in->size += f->size;
		if (f->type == EVF_STR)
			in->has_str = 1;
		if (f->type == EVF_BYTES)
			in->has_str = 2;
		if ((f->type == EVF_STR || f->type == EVF_BYTES) && opt)
			return weft_fail(e, WEFT_EINTERNAL,
					 "model %c: event %s: bad signature \"%s\": a tail "
					 "cannot be optional",
					 model, in->decl->mcv, sig);
	}
	if (!opt)
		in->min = in->size;
	return 0;
}

int evinfo_field(const struct evinfo *i, const char *name)
{
	for (int k = 0; k < i->nf; k++)
		if (strcmp(i->f[k].name, name) == 0)
			return k;
	return -1;
}

static int parse_template(struct evinfo *in, char model, struct weft_err *e)
{
	const char *p = in->decl->desc;
	while (*p) {
		if (in->nseg == EV_MAX_SEGS)
			return weft_fail(e, WEFT_EINTERNAL, "model %c: event %s: template too long", model,
					 in->decl->mcv);
		struct evseg *s = &in->seg[in->nseg++];
		if (p[0] == '%' && p[1] == '{') {
			const char *end = strchr(p, '}');
			char nm[32];
			size_t n = end ? (size_t) (end - p - 2) : 0;
			if (!end || n == 0 || n >= sizeof(nm))
				return weft_fail(e, WEFT_EINTERNAL, "model %c: event %s: bad template", model,
						 in->decl->mcv);
			memcpy(nm, p + 2, n);
			nm[n] = '\0';
			int f = evinfo_field(in, nm);
			if (f < 0)
				return weft_fail(e, WEFT_EINTERNAL,
						 "model %c: event %s: template names unknown field %s", model,
						 in->decl->mcv, nm);
			s->lit = NULL;
			s->field = (int16_t) f;
			p = end + 1;
		} else {
			const char *q = strstr(p, "%{");
			size_t n = q ? (size_t) (q - p) : strlen(p);
			s->lit = p;
			s->len = (uint16_t) n;
			if (n <= sizeof(s->inl))
				memcpy(s->inl, p, n);
			s->field = -1;
			p += n;
		}
	}
	return 0;
}

int evinfo_compile(struct evinfo *in, const struct weft_evdecl *d, const struct weft_model_def *m,
		   struct weft_err *e)
{
	memset(in, 0, sizeof(*in));
	in->decl = d;
	in->handler = d->handler;
	in->model = m;
	if (parse_sig(in, d->sig, m->id, e) || parse_template(in, m->id, e))
		return -1;
	/* a str tail has at least its NUL: never the exact size; an empty bytes
	 * tail is the common case, on the fast path; a row declared jumbo checks
	 * the event is one (ovniemu reads its payload only as a jumbo one) */
	in->exact = in->has_str == 1 || d->jumbo ? ~0u : in->size; /* a jumbo row: is it one? */
	return 0;
}

static int ok_char(char c)
{
	return c >= MCV_FIRST && c <= MCV_LAST;
}

int evtable_init(struct evtable *t, const struct weft_model_def *const *all, int n, struct weft_err *e)
{
	memset(t, 0, sizeof(*t));
	t->models = (struct model_set){.all = all, .n = n};
	for (int i = 0; i < n; i++)
		t->by_id[mcv_index(all[i]->id)] = all[i];
	for (int i = 0; i < n; i++) {
		const struct weft_model_def *m = all[i];
		if (m->nevents == 0)
			continue;
		struct evinfo **slots = weft_xcalloc(MCV_NCHARS * MCV_NCHARS, sizeof(*slots));
		struct evinfo *rows = weft_xcalloc((size_t) m->nevents, sizeof(*rows));
		free(t->slots[mcv_index(m->id)]); /* (a model character registered twice) */
		free(t->rows[mcv_index(m->id)]);
		t->slots[mcv_index(m->id)] = slots;
		t->rows[mcv_index(m->id)] = rows;
		for (int k = 0; k < m->nevents; k++) {
			const struct weft_evdecl *d = &m->events[k];
			if (strlen(d->mcv) != 3 || d->mcv[0] != m->id || !ok_char(d->mcv[1]) ||
			    !ok_char(d->mcv[2]))
				return weft_fail(e, WEFT_EINTERNAL, "model %c: bad MCV \"%s\" in its table",
						 m->id, d->mcv);
			struct evinfo **slot = &slots[mcv_index(d->mcv[1]) * MCV_NCHARS + mcv_index(d->mcv[2])];
			if (*slot)
				return weft_fail(e, WEFT_EINTERNAL, "model %c: MCV %s listed twice", m->id,
						 d->mcv);
			struct evinfo *in = &rows[k];
			*slot = in;
			if (evinfo_compile(in, d, m, e))
				return -1;
		}
	}
	return 0;
}

void evtable_free(struct evtable *t)
{
	for (int i = 0; i < MCV_NCHARS; i++) {
		free(t->slots[i]);
		free(t->rows[i]);
	}
	memset(t, 0, sizeof(*t));
}

void evtable_wrap(struct evtable *t, char model, weft_handler h)
{
	struct evinfo **slots = t->slots[mcv_index(model)];
	if (!slots)
		return;
	for (int k = 0; k < MCV_NCHARS * MCV_NCHARS; k++)
		if (slots[k] && slots[k]->handler) {
			slots[k]->inner = slots[k]->handler;
			slots[k]->handler = h;
		}
}

void evtable_default(struct evtable *t, weft_handler h)
{
	for (int m = 0; m < MCV_NCHARS; m++)
		for (int k = 0; t->slots[m] && k < MCV_NCHARS * MCV_NCHARS; k++)
			if (t->slots[m][k] && !t->slots[m][k]->handler)
				t->slots[m][k]->handler = h;
}

int ev_payload_ok_slow(const struct evinfo *i, const struct weft_ev *ev)
{
	if (i->decl->jumbo && !ev->jumbo)
		return 0;
	if (!i->has_str)
		return i->only ? ev->payload_len == i->size : ev->payload_len >= i->min;
	if (i->has_str == 2)
		return ev->payload_len >= i->size;
	if (i->decl->jumbo) /* its str ends at a NUL or at the payload's end, as ovniemu reads it */
		return ev->payload_len >= i->size;
	if (ev->payload_len <= i->size)
		return 0;
	return memchr(ev->payload + i->size, 0, ev->payload_len - i->size) != NULL;
}

void ev_sentence(struct outbuf *o, const struct evinfo *i, const struct weft_ev *ev)
{
	for (int k = 0; k < i->nseg; k++) {
		const struct evseg *s = &i->seg[k];
		if (s->lit) {
			ob_room(o, s->len + sizeof(s->inl));
			if (s->len <= sizeof(s->inl)) {
				/* fixed-size copy: one move, no call */
				memcpy(o->buf + o->len, s->inl, sizeof(s->inl));
				o->len += s->len;
			} else {
				ob_mem(o, s->lit, s->len);
			}
			continue;
		}
		const struct evfield *f = &i->f[s->field];
		ob_room(o, 24);
		if (f->off + f->size > ev->payload_len) {
			ob_char(o, '-'); /* an optional field the payload does not reach */
			continue;
		}
		if (f->type == EVF_BYTES) {
			ob_u64(o, ev->payload_len - f->off);
			ob_mem(o, " bytes", 6);
			continue;
		}
		if (f->type == EVF_STR) {
			const uint8_t *p = ev->payload + f->off;
			const uint8_t *end = ev->payload + ev->payload_len;
			ob_char(o, '"');
			for (; p < end && *p; p++) {
				ob_room(o, 8);
				if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
					ob_char(o, (char) *p);
				} else {
					static const char hx[] = "0123456789abcdef";
					ob_mem(o, "\\x", 2);
					ob_char(o, hx[*p >> 4]);
					ob_char(o, hx[*p & 15]);
				}
			}
			ob_room(o, 1);
			ob_char(o, '"');
		} else if (f->type == EVF_U64) {
			ob_u64(o, (uint64_t) ev_field(i, s->field, ev));
		} else {
			ob_i64(o, ev_field(i, s->field, ev));
		}
	}
}
