/* SPDX-License-Identifier: GPL-3.0-or-later */
/* run: what happens to a match — counts, sums, kept lines, printed lines —
 * and the summary at the end of a run. Output lines:
 *
 *   text:  sends,slowio: time=1200 rank=0 dst=1 size=1048576
 *   json:  {"labels":["sends","slowio"],"time":1200,"rank":0,"dst":1,"size":1048576}
 *
 * A line of patterns with call(NAME) names the calls after the labels
 * (calls=a,b; "calls":["a","b"]); a line at which weft serve stops for an
 * analyser says so after the labels ("stop":true, JSON only).
 *
 * A text value is printed bare unless it is empty or holds a space, a quote,
 * a backslash, '=' or a control byte; then it is quoted with C escapes. A
 * missing attribute prints as '-' (JSON null). */
#include <stdlib.h>
#include <string.h>

#include "query/qint.h"

/* ---- value formatting ---------------------------------------------------- */

static const char hexd[] = "0123456789abcdef";

/* s in double quotes, '"' and '\\' escaped with a backslash, other bytes
 * outside ' '..'~' as `hex` (an escape prefix) and two hex digits. */
static void put_quoted(struct outbuf *o, const char *s, size_t n, const char *hex)
{
	size_t hn = strlen(hex);
	ob_room(o, 1);
	ob_char(o, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char) s[i];
		ob_room(o, hn + 2);
		if (c == '"' || c == '\\') {
			ob_char(o, '\\');
			ob_char(o, (char) c);
		} else if (c < 0x20 || c >= 0x7f) {
			ob_mem(o, hex, hn);
			ob_char(o, hexd[c >> 4]);
			ob_char(o, hexd[c & 15]);
		} else {
			ob_char(o, (char) c);
		}
	}
	ob_room(o, 1);
	ob_char(o, '"');
}

/* A text value: as it is, or quoted when empty or when it holds a blank,
 * a quote, a backslash, '=' or a byte outside ' '..'~'. */
void query_put_text(struct outbuf *o, const char *s, size_t n)
{
	int quote = n == 0;
	for (size_t i = 0; i < n && !quote; i++) {
		unsigned char c = (unsigned char) s[i];
		quote = c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '=';
	}
	if (quote)
		put_quoted(o, s, n, "\\x");
	else
		ob_strn(o, s, n);
}

/* A JSON string: bytes, not UTF-8, each one outside ' '..'~' as a code
 * point, so the line stays valid JSON. */
void query_put_json_str(struct outbuf *o, const char *s, size_t n)
{
	put_quoted(o, s, n, "\\u00");
}

static void put_value(struct query *q, struct outbuf *o, const struct qattr *a,
		      const struct weft_ev *ev, uint64_t chrono)
{
	struct qv v;
	qfetch(q, a, ev, chrono, &v);
	if (!v.ok) {
		if (q->json)
			ob_strn(o, "null", 4);
		else
			ob_strn(o, "-", 1);
	} else if (v.is_str) {
		if (q->json)
			query_put_json_str(o, v.s, v.n);
		else
			query_put_text(o, v.s, v.n);
	} else {
		ob_room(o, 24);
		ob_i64(o, v.i);
	}
}

/* ---- lines --------------------------------------------------------------- */

/* A line's punctuation by output format: text "l1,l2: a=v b=v", JSON
 * {"labels":["l1","l2"],"a":v,"b":v}. */
static const struct line_fmt {
	const char *open, *lsep, *lclose, *apre, *aeq, *close;
} line_fmt[2] = {
	{"", ",", ":", " ", "=", "\n"},
	{"{\"labels\":[", ",", "]", ",", ":", "}\n"},
};

static void put_name(struct outbuf *o, int json, const char *s)
{
	if (json)
		query_put_json_str(o, s, strlen(s));
	else
		ob_strn(o, s, strlen(s));
}

/* What a line says besides its attributes: the calls of its patterns and
 * whether the replay stops there. */
struct line_extra {
	const char *const *calls;
	int ncalls;
	int stop;
};

static void emit(struct query *q, struct outbuf *o, const struct weft_ev *ev, uint64_t chrono,
		 const char *const *labels, int nl, const struct line_extra *x, const struct qattr *const *attrs,
		 int na)
{
	const struct line_fmt *f = &line_fmt[q->json != 0];
	ob_strn(o, f->open, strlen(f->open));
	for (int i = 0; i < nl; i++) {
		if (i)
			ob_strn(o, f->lsep, 1);
		put_name(o, q->json, labels[i]);
	}
	ob_strn(o, f->lclose, 1);
	if (x && x->stop && q->json)
		ob_strn(o, ",\"stop\":true", 12);
	if (x && x->ncalls) {
		ob_strn(o, q->json ? ",\"calls\":[" : " calls=", q->json ? 10 : 7);
		for (int i = 0; i < x->ncalls; i++) {
			if (i)
				ob_strn(o, ",", 1);
			put_name(o, q->json, x->calls[i]);
		}
		if (q->json)
			ob_strn(o, "]", 1);
	}
	for (int i = 0; i < na; i++) {
		ob_strn(o, f->apre, 1);
		put_name(o, q->json, attrs[i]->name);
		ob_strn(o, f->aeq, 1);
		put_value(q, o, attrs[i], ev, chrono);
	}
	ob_strn(o, f->close, strlen(f->close));
}

int query_default_attrs(struct query *q, int with_state, const struct qattr **out)
{
	*out = q->def;
	return with_state ? 9 : 7;
}

static void union_add(struct query *q, int *n, const struct qattr *a)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(q->ubuf[i]->name, a->name) == 0)
			return;
	if (*n == q->ucap) {
		q->ucap = q->ucap ? 2 * q->ucap : 32;
		q->ubuf = weft_xrealloc(q->ubuf, (size_t) q->ucap * sizeof(*q->ubuf));
	}
	q->ubuf[(*n)++] = a;
}

void query_print_event(struct query *q, const struct weft_ev *ev, uint64_t chrono,
		       const char *const *labels, int nlabels, const struct qattr *attrs, int nattrs)
{
	int n = 0;
	for (int i = 0; i < nattrs; i++) {
		if (n == q->ucap) {
			q->ucap = q->ucap ? 2 * q->ucap : 32;
			q->ubuf = weft_xrealloc(q->ubuf, (size_t) q->ucap * sizeof(*q->ubuf));
		}
		q->ubuf[n++] = &attrs[i];
	}
	emit(q, q->out, ev, chrono, labels, nlabels, NULL, q->ubuf, n);
}

void query_put_values(struct query *q, struct outbuf *o, const struct weft_ev *ev, uint64_t chrono,
		      const struct qattr *attrs, int nattrs)
{
	int json = q->json;
	q->json = 1;
	ob_strn(o, "{", 1);
	for (int i = 0; i < nattrs; i++) {
		if (i)
			ob_strn(o, ",", 1);
		put_name(o, 1, attrs[i].name);
		ob_strn(o, ":", 1);
		put_value(q, o, &attrs[i], ev, chrono);
	}
	ob_strn(o, "}", 1);
	q->json = json;
}

/* ---- aggregates ---------------------------------------------------------- */

/* Integer built-ins and integer fields straight, the rest through qfetch. */
static inline void fetch_fast(struct query *q, const struct qattr *a, const struct weft_ev *ev,
			      uint64_t chrono, struct qv *v)
{
	if (a->type == QT_INT && a->kind != QA_MSTATE) {
		v->is_str = 0;
		v->ok = a->kind == QA_FIELD ? field_int(q, a, ev, &v->i) : int_attr(q, a->kind, ev, chrono, &v->i);
		return;
	}
	qfetch(q, a, ev, chrono, v);
}

void qgroup_add(struct query *q, struct qagg *g, const struct weft_ev *ev, uint64_t chrono, uint64_t n)
{
	struct qv v;
	fetch_fast(q, &g->a, ev, chrono, &v);
	/* a few groups are hot: a direct-mapped cache in front of the hash */
	int is_int = v.ok && !(v.is_str && g->a.type != QT_STATE);
	unsigned slot = 0;
	if (is_int) {
		slot = (unsigned) (((uint64_t) v.i * 0x9e3779b97f4a7c15ull) >> 58);
		struct qgroup *l = g->cache[slot];
		if (l && l->i == v.i) {
			l->n += n;
			return;
		}
	} else if (v.ok && g->last && g->last->is_str && g->last->klen == v.n + 1 &&
		   memcmp(g->last->key + 1, v.s, v.n) == 0) {
		g->last->n += n;
		return;
	}
	char small[256];
	char *key = small;
	size_t klen;
	if (!v.ok) {
		key[0] = 'm';
		klen = 1;
	} else if (v.is_str && g->a.type != QT_STATE) {
		klen = 1 + v.n;
		if (klen > sizeof(small))
			key = weft_xmalloc(klen);
		key[0] = 's';
		memcpy(key + 1, v.s, v.n);
	} else {
		key[0] = 'i';
		memcpy(key + 1, &v.i, sizeof(v.i));
		klen = 1 + sizeof(v.i);
	}
	struct qgroup *x;
	HASH_FIND(hh, g->groups, key, klen, x);
	if (!x) {
		x = weft_xcalloc(1, sizeof(*x) + klen);
		memcpy(x->key, key, klen);
		x->klen = klen;
		x->missing = !v.ok;
		x->is_str = key[0] == 's';
		x->i = v.ok ? v.i : 0;
		HASH_ADD(hh, g->groups, key, klen, x);
	}
	x->n += n;
	if (is_int)
		g->cache[slot] = x;
	else if (x->is_str)
		g->last = x;
	if (key != small)
		free(key);
}

void qsum_add(struct query *q, struct qagg *g, const struct weft_ev *ev, uint64_t chrono, uint64_t n)
{
	struct qv v;
	fetch_fast(q, &g->a, ev, chrono, &v);
	if (v.ok && !v.is_str)
		g->sum += (uint64_t) v.i * n;
}

static void keep_last(struct query *q, struct qpattern *p, const struct weft_ev *ev, uint64_t chrono)
{
	struct outbuf *o = &q->line;
	o->len = 0;
	o->failed = 0;
	const struct qattr *def;
	int nd = query_default_attrs(q, 0, &def);
	const struct qattr *const *attrs;
	int na = 0;
	for (int i = 0; i < (p->ncur ? p->ncur : nd); i++)
		union_add(q, &na, p->ncur ? &p->cur[i] : &def[i]);
	attrs = q->ubuf;
	const char *label = p->label;
	struct line_extra x = {.calls = (const char *const *) p->calls, .ncalls = p->ncalls};
	emit(q, o, ev, chrono, &label, 1, &x, attrs, na);
	p->saved = weft_xrealloc(p->saved, o->len + 1);
	memcpy(p->saved, o->buf, o->len);
	p->saved_len = o->len;
}

void qact(struct query *q, const struct weft_ev *ev, uint64_t act, uint64_t mask, int stop)
{
	uint64_t chrono = q->chrono - 1;
	const char *labels[QUERY_MAX_PATTERNS];
	int nl = 0, ncalls = 0;
	uint64_t printers = 0, was = q->active;
	for (uint64_t m = mask; m; m &= m - 1) {
		int b = __builtin_ctzll(m);
		struct qpattern *p = q->pat[b];
		if (!((act >> b) & 1)) {
			labels[nl++] = p->label; /* counted by its slot */
			continue;
		}
		p->matches++;
		for (int i = 0; i < p->ncby; i++)
			qgroup_add(q, &p->cby[i], ev, chrono, 1);
		for (int i = 0; i < p->nsum; i++)
			qsum_add(q, &p->sum[i], ev, chrono, 1);
		if (p->last) {
			keep_last(q, p, ev, chrono);
		} else {
			labels[nl++] = p->label;
			if (p->prints)
				printers |= 1ull << b;
		}
		if (p->first) {
			p->done = 1;
			q->active &= ~(1ull << b);
		}
		if (p->stop)
			q->stopped = 1;
	}
	if (q->active != was)
		qslots_todo(q);
	if (!printers && !stop)
		return;
	int na = 0;
	const struct qattr *def;
	int nd = query_default_attrs(q, 0, &def);
	for (uint64_t m = printers; m; m &= m - 1) {
		const struct qpattern *p = q->pat[__builtin_ctzll(m)];
		if (p->ncur)
			for (int i = 0; i < p->ncur; i++)
				union_add(q, &na, &p->cur[i]);
		else
			for (int i = 0; i < nd; i++)
				union_add(q, &na, &def[i]);
		ncalls += p->ncalls;
	}
	if (!printers) /* a stop of patterns that only count */
		for (int i = 0; i < nd; i++)
			union_add(q, &na, &def[i]);
	const char *callv[256];
	const char **calls = ncalls <= 256 ? callv : weft_xmalloc((size_t) ncalls * sizeof(*calls));
	int nc = 0;
	for (uint64_t m = printers; m; m &= m - 1) {
		const struct qpattern *p = q->pat[__builtin_ctzll(m)];
		for (int i = 0; i < p->ncalls; i++)
			calls[nc++] = p->calls[i];
	}
	struct line_extra x = {.calls = calls, .ncalls = nc, .stop = stop};
	emit(q, q->out, ev, chrono, labels, nl, &x, q->ubuf, na);
	if (calls != callv)
		free(calls);
}

void query_act(struct query *q, const struct weft_ev *ev, uint64_t mask)
{
	qact(q, ev, mask, mask, 0);
}

void query_act_line(struct query *q, const struct weft_ev *ev, uint64_t mask, int stop)
{
	qact(q, ev, mask, mask, stop);
}

void query_start(struct query *q, uint64_t t0)
{
	q->t0 = t0;
	q->chrono = 0;
	q->stopped = 0;
	q->active = 0;
	for (int k = 0; k < q->npat; k++) {
		struct qpattern *p = q->pat[k];
		p->matches = 0;
		p->done = 0;
		free(p->saved);
		p->saved = NULL;
		p->saved_len = 0;
		for (int i = 0; i < p->ncby; i++) {
			struct qgroup *g, *tmp;
			HASH_ITER(hh, p->cby[i].groups, g, tmp) {
				HASH_DEL(p->cby[i].groups, g);
				free(g);
			}
			p->cby[i].last = NULL;
			memset(p->cby[i].cache, 0, sizeof(p->cby[i].cache));
		}
		for (int i = 0; i < p->nsum; i++)
			p->sum[i].sum = 0;
		q->active |= 1ull << k;
	}
	qslots_discard(q);
	qslots_start(q);
	qslots_todo(q);
	qphase_restart(q);
}

/* ---- summary ------------------------------------------------------------- */

static int group_cmp(const void *a, const void *b)
{
	const struct qgroup *x = *(const struct qgroup *const *) a;
	const struct qgroup *y = *(const struct qgroup *const *) b;
	if (x->missing != y->missing)
		return x->missing - y->missing;
	if (x->is_str != y->is_str)
		return x->is_str - y->is_str;
	if (!x->is_str)
		return x->i < y->i ? -1 : x->i > y->i;
	size_t n = x->klen < y->klen ? x->klen : y->klen;
	int r = memcmp(x->key, y->key, n);
	if (r)
		return r;
	return x->klen < y->klen ? -1 : x->klen > y->klen;
}

static void put_group_value(struct query *q, struct outbuf *o, const struct qagg *g,
			    const struct qgroup *x)
{
	if (x->missing) {
		ob_strn(o, q->json ? "null" : "-", q->json ? 4 : 1);
	} else if (x->is_str) {
		if (q->json)
			query_put_json_str(o, x->key + 1, x->klen - 1);
		else
			query_put_text(o, x->key + 1, x->klen - 1);
	} else if (g->a.type == QT_STATE && x->i >= 0 && x->i < QSTATE_N) {
		const char *s = qstate_name[x->i];
		if (q->json)
			query_put_json_str(o, s, strlen(s));
		else
			ob_strn(o, s, strlen(s));
	} else {
		ob_room(o, 24);
		ob_i64(o, x->i);
	}
}

static struct qgroup **sorted_groups(const struct qagg *g, int *n)
{
	*n = (int) HASH_COUNT(g->groups);
	struct qgroup **v = weft_xmalloc(((size_t) *n + 1) * sizeof(*v));
	int k = 0;
	for (struct qgroup *x = g->groups; x; x = x->hh.next)
		v[k++] = x;
	qsort(v, (size_t) k, sizeof(*v), group_cmp);
	return v;
}

static void put_u64(struct outbuf *o, uint64_t v)
{
	ob_room(o, 24);
	ob_u64(o, v);
}

static void summary_text(struct query *q, struct outbuf *o)
{
	for (int k = 0; k < q->npat; k++) {
		struct qpattern *p = q->pat[k];
		size_t ll = strlen(p->label);
		if (p->count) {
			ob_strn(o, p->label, ll);
			ob_strn(o, ": count ", 8);
			put_u64(o, p->matches);
			ob_strn(o, "\n", 1);
		}
		for (int i = 0; i < p->ncby; i++) {
			int n;
			struct qgroup **v = sorted_groups(&p->cby[i], &n);
			for (int j = 0; j < n; j++) {
				ob_strn(o, p->label, ll);
				ob_strn(o, ": count(", 8);
				ob_strn(o, p->cby[i].a.name, strlen(p->cby[i].a.name));
				ob_strn(o, ") ", 2);
				put_group_value(q, o, &p->cby[i], v[j]);
				ob_strn(o, " ", 1);
				put_u64(o, v[j]->n);
				ob_strn(o, "\n", 1);
			}
			free(v);
		}
		for (int i = 0; i < p->nsum; i++) {
			ob_strn(o, p->label, ll);
			ob_strn(o, ": sum(", 6);
			ob_strn(o, p->sum[i].a.name, strlen(p->sum[i].a.name));
			ob_strn(o, ") ", 2);
			ob_room(o, 24);
			ob_i64(o, (int64_t) p->sum[i].sum);
			ob_strn(o, "\n", 1);
		}
	}
}

void query_pattern_json(struct query *q, int k, struct outbuf *o)
{
	struct qpattern *p = q->pat[k];
	ob_strn(o, "{\"label\":", 9);
	query_put_json_str(o, p->label, strlen(p->label));
	ob_strn(o, ",\"matches\":", 11);
	put_u64(o, p->matches);
	if (p->count) {
		ob_strn(o, ",\"count\":", 9);
		put_u64(o, p->matches);
	}
	for (int i = 0; i < p->ncby; i++) {
		char key[64];
		int kn = snprintf(key, sizeof(key), "count(%s)", p->cby[i].a.name);
		ob_strn(o, ",", 1);
		query_put_json_str(o, key, (size_t) kn < sizeof(key) ? (size_t) kn : sizeof(key) - 1);
		ob_strn(o, ":[", 2);
		int n;
		struct qgroup **v = sorted_groups(&p->cby[i], &n);
		for (int j = 0; j < n; j++) {
			ob_strn(o, j ? ",[" : "[", j ? 2 : 1);
			put_group_value(q, o, &p->cby[i], v[j]);
			ob_strn(o, ",", 1);
			put_u64(o, v[j]->n);
			ob_strn(o, "]", 1);
		}
		free(v);
		ob_strn(o, "]", 1);
	}
	for (int i = 0; i < p->nsum; i++) {
		char key[64];
		int kn = snprintf(key, sizeof(key), "sum(%s)", p->sum[i].a.name);
		ob_strn(o, ",", 1);
		query_put_json_str(o, key, (size_t) kn < sizeof(key) ? (size_t) kn : sizeof(key) - 1);
		ob_strn(o, ":", 1);
		ob_room(o, 24);
		ob_i64(o, (int64_t) p->sum[i].sum);
	}
	ob_strn(o, "}", 1);
}

static void summary_json(struct query *q, struct outbuf *o, uint64_t events)
{
	ob_strn(o, "{\"summary\":{\"events\":", 21);
	put_u64(o, events);
	ob_strn(o, ",\"patterns\":[", 13);
	for (int k = 0; k < q->npat; k++) {
		if (k)
			ob_strn(o, ",", 1);
		query_pattern_json(q, k, o);
	}
	ob_strn(o, "]}}\n", 4);
}

void query_summary(struct query *q, uint64_t events)
{
	query_sync(q);
	struct outbuf *o = q->out;
	for (int k = 0; k < q->npat; k++)
		if (q->pat[k]->saved)
			ob_strn(o, q->pat[k]->saved, q->pat[k]->saved_len);
	if (q->json)
		summary_json(q, o, events);
	else
		summary_text(q, o);
}
