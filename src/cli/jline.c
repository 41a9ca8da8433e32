/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jline: one line of JSON as a small tree (jline.h), by recursive descent
 * with a depth limit. */
#include <stdlib.h>
#include <string.h>

#include "cli/jline.h"
#include "util/err.h"

#define JV_MAX_DEPTH 64

struct jp {
	const char *s;
	size_t n, i;
};

static void ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r' || p->s[p->i] == '\n'))
		p->i++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string at p->i (its opening quote): decoded into *out, *len. */
static int str(struct jp *p, char **out, size_t *len)
{
	p->i++;
	char *b = weft_xmalloc(p->n - p->i + 1);
	size_t k = 0;
	while (p->i < p->n && p->s[p->i] != '"') {
		char c = p->s[p->i++];
		if ((unsigned char) c < 0x20)
			goto bad;
		if (c != '\\') {
			b[k++] = c;
			continue;
		}
		if (p->i >= p->n)
			goto bad;
		c = p->s[p->i++];
		const char *plain = strchr("\"\\/bfnrt", c);
		if (plain && c) {
			static const char to[] = "\"\\/\b\f\n\r\t";
			b[k++] = to[plain - "\"\\/bfnrt"];
			continue;
		}
		if (c != 'u' || p->i + 4 > p->n)
			goto bad;
		unsigned u = 0;
		for (int j = 0; j < 4; j++) {
			int h = hexval(p->s[p->i++]);
			if (h < 0)
				goto bad;
			u = u << 4 | (unsigned) h;
		}
		if (u < 0x100) { /* weft's bytes */
			b[k++] = (char) u;
		} else if (u < 0x800) {
			b[k++] = (char) (0xc0 | u >> 6);
			b[k++] = (char) (0x80 | (u & 0x3f));
		} else {
			b[k++] = (char) (0xe0 | u >> 12);
			b[k++] = (char) (0x80 | (u >> 6 & 0x3f));
			b[k++] = (char) (0x80 | (u & 0x3f));
		}
	}
	if (p->i >= p->n)
		goto bad;
	p->i++;
	b[k] = '\0';
	*out = b;
	*len = k;
	return 0;
bad:
	free(b);
	return -1;
}

static int value(struct jp *p, struct jv *v, int depth);

static int members(struct jp *p, struct jv *v, int depth, char close, int named)
{
	p->i++;
	ws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	for (;;) {
		v->kid = weft_xrealloc(v->kid, (size_t) (v->nkid + 1) * sizeof(*v->kid));
		struct jv *k = &v->kid[v->nkid++];
		memset(k, 0, sizeof(*k));
		ws(p);
		if (named) {
			size_t kl;
			if (p->i >= p->n || p->s[p->i] != '"' || str(p, &k->key, &kl))
				return -1;
			ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return -1;
			p->i++;
		}
		if (value(p, k, depth + 1))
			return -1;
		ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close) {
			p->i++;
			return 0;
		}
		return -1;
	}
}

static int value(struct jp *p, struct jv *v, int depth)
{
	if (depth > JV_MAX_DEPTH)
		return -1;
	ws(p);
	if (p->i >= p->n)
		return -1;
	char c = p->s[p->i];
	if (c == '{') {
		v->t = JV_OBJ;
		return members(p, v, depth, '}', 1);
	}
	if (c == '[') {
		v->t = JV_ARR;
		return members(p, v, depth, ']', 0);
	}
	if (c == '"') {
		v->t = JV_STR;
		return str(p, &v->s, &v->n);
	}
	size_t st = p->i;
	while (p->i < p->n && strchr(",]} \t\r\n", p->s[p->i]) == NULL)
		p->i++;
	size_t len = p->i - st;
	if (len == 0)
		return -1;
	const char *w = p->s + st;
	if ((len == 4 && memcmp(w, "true", 4) == 0) || (len == 5 && memcmp(w, "false", 5) == 0))
		v->t = JV_BOOL;
	else if (len == 4 && memcmp(w, "null", 4) == 0)
		v->t = JV_NULL;
	else if (strspn(w, "-+.eE0123456789") >= len)
		v->t = JV_NUM;
	else
		return -1;
	v->s = weft_xmalloc(len + 1);
	memcpy(v->s, w, len);
	v->s[len] = '\0';
	v->n = len;
	return 0;
}

int jv_parse(const char *text, size_t n, struct jv *v)
{
	memset(v, 0, sizeof(*v));
	struct jp p = {.s = text, .n = n};
	if (value(&p, v, 0)) {
		jv_free(v);
		return -1;
	}
	ws(&p);
	if (p.i != p.n) {
		jv_free(v);
		return -1;
	}
	return 0;
}

void jv_free(struct jv *v)
{
	for (int i = 0; i < v->nkid; i++)
		jv_free(&v->kid[i]);
	free(v->kid);
	free(v->key);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

const struct jv *jv_get(const struct jv *obj, const char *key)
{
	if (!obj || obj->t != JV_OBJ)
		return NULL;
	for (int i = 0; i < obj->nkid; i++)
		if (obj->kid[i].key && strcmp(obj->kid[i].key, key) == 0)
			return &obj->kid[i];
	return NULL;
}
