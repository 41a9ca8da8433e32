/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jsonscan: one strict pass over JSON text (see jsonscan.h). */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/jsonscan.h"

_Static_assert(JSONSCAN_MAX_DEPTH == CJSON_NESTING_LIMIT, "the limit is cJSON's");

struct scan {
	const char *t;
	size_t len, i;
	int depth;
	size_t off;
	char *why;
	size_t whylen;
};

static int fail(struct scan *s, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct scan *s, size_t at, const char *fmt, ...)
{
	s->off = at;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, s->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Blanks and comments (ovni's metadata may carry // and / * * / ones). */
static int skip(struct scan *s)
{
	while (s->i < s->len) {
		char c = s->t[s->i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			s->i++;
		} else if (c == '/' && s->i + 1 < s->len && s->t[s->i + 1] == '/') {
			for (; s->i < s->len && s->t[s->i] != '\n'; s->i++)
				if (s->t[s->i] == '\0')
					return fail(s, s->i, "a NUL byte (JSON text has none)");
		} else if (c == '/' && s->i + 1 < s->len && s->t[s->i + 1] == '*') {
			size_t at = s->i;
			for (s->i += 2; s->i + 1 < s->len && !(s->t[s->i] == '*' && s->t[s->i + 1] == '/'); s->i++)
				if (s->t[s->i] == '\0')
					return fail(s, s->i, "a NUL byte (JSON text has none)");
			if (s->i + 1 >= s->len)
				return fail(s, at, "a comment that never ends (no */)");
			s->i += 2;
		} else {
			break;
		}
	}
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9'    ? c - '0'
		: c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10
				       : -1;
}

/* The UTF-8 bytes of code point v into out (4 bytes at most); their count. */
static size_t utf8(unsigned v, unsigned char *out)
{
	if (v < 0x80)
		return out[0] = (unsigned char) v, 1;
	if (v < 0x800)
		return out[0] = (unsigned char) (0xc0 | v >> 6), out[1] = (unsigned char) (0x80 | (v & 0x3f)), 2;
	if (v < 0x10000) {
		out[0] = (unsigned char) (0xe0 | v >> 12);
		out[1] = (unsigned char) (0x80 | ((v >> 6) & 0x3f));
		out[2] = (unsigned char) (0x80 | (v & 0x3f));
		return 3;
	}
	out[0] = (unsigned char) (0xf0 | v >> 18);
	out[1] = (unsigned char) (0x80 | ((v >> 12) & 0x3f));
	out[2] = (unsigned char) (0x80 | ((v >> 6) & 0x3f));
	out[3] = (unsigned char) (0x80 | (v & 0x3f));
	return 4;
}

/* Four hex digits at t[i..i+4) as a number, or -1. */
static long hex4(const struct scan *s, size_t i)
{
	long v = 0;
	for (size_t d = 0; d < 4; d++) {
		int h = i + d < s->len ? hexval(s->t[i + d]) : -1;
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* A string from its opening quote; *key (when not NULL) gets its text
 * decoded (escapes resolved, \u as UTF-8), a new allocation, so two
 * spellings of one key compare equal. */
static int string(struct scan *s, char **key, size_t *keylen)
{
	size_t at = s->i++, cap = 0, n = 0;
	char *k = NULL;
	int rc = 0;
	for (;;) {
		if (s->i >= s->len) {
			rc = fail(s, at, "a string that never ends (no closing \")");
			break;
		}
		unsigned char c = (unsigned char) s->t[s->i], out[4] = {c};
		size_t nout = 1;
		if (c == '"')
			break;
		if (c == '\0') {
			rc = fail(s, s->i, "a NUL byte inside a string: names and values cannot hold one");
			break;
		}
		if (c < 0x20) {
			rc = fail(s, s->i,
				  "a raw control character (byte 0x%02x) inside a string: JSON escapes it (\\n, \\t, "
				  "\\u00XX)",
				  c);
			break;
		}
		if (c == '\\') {
			char e = s->i + 1 < s->len ? s->t[s->i + 1] : '\0';
			static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			if (e == 'u') {
				long v = hex4(s, s->i + 2);
				if (v < 0) {
					rc = fail(s, s->i, "a \\u escape without four hex digits");
					break;
				}
				if (v == 0) {
					rc = fail(s, s->i,
						  "\\u0000 inside a string: names and values cannot hold a NUL");
					break;
				}
				s->i += 6;
				int pair = v >= 0xd800 && v < 0xdc00 && s->i + 1 < s->len && s->t[s->i] == '\\' &&
					s->t[s->i + 1] == 'u';
				long lo = pair ? hex4(s, s->i + 2) : -1;
				if (lo >= 0xdc00 && lo < 0xe000) { /* a surrogate pair: one code point */
					v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
					s->i += 6;
				}
				nout = utf8((unsigned) v, out);
			} else if (e && strchr(from, e)) {
				out[0] = (unsigned char) to[strchr(from, e) - from];
				s->i += 2;
			} else {
				rc = fail(s, s->i,
					  "an unknown escape \\%c (JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)",
					  e ? e : '?');
				break;
			}
		} else {
			s->i++;
		}
		if (key) {
			if (n + nout > cap) {
				cap = cap ? 2 * cap : 32;
				k = weft_xrealloc(k, cap);
			}
			memcpy(k + n, out, nout);
			n += nout;
		}
	}
	if (rc || !key) {
		free(k);
		if (rc == 0)
			s->i++;
		return rc;
	}
	s->i++;
	*key = k ? k : weft_xstrdup("");
	*keylen = n;
	return 0;
}

static int number(struct scan *s)
{
	size_t at = s->i;
	if (s->t[s->i] == '-')
		s->i++;
	if (s->i >= s->len || s->t[s->i] < '0' || s->t[s->i] > '9')
		return fail(s, at, "a '-' without digits after it");
	if (s->t[s->i] == '0' && s->i + 1 < s->len && s->t[s->i + 1] >= '0' && s->t[s->i + 1] <= '9')
		return fail(s, at, "a number with a leading zero (JSON numbers have none: 7, not 07)");
	while (s->i < s->len && s->t[s->i] >= '0' && s->t[s->i] <= '9')
		s->i++;
	if (s->i < s->len && s->t[s->i] == '.') {
		size_t d = ++s->i;
		while (s->i < s->len && s->t[s->i] >= '0' && s->t[s->i] <= '9')
			s->i++;
		if (s->i == d)
			return fail(s, at, "a number with no digit after its '.'");
	}
	if (s->i < s->len && (s->t[s->i] == 'e' || s->t[s->i] == 'E')) {
		s->i++;
		if (s->i < s->len && (s->t[s->i] == '+' || s->t[s->i] == '-'))
			s->i++;
		size_t d = s->i;
		while (s->i < s->len && s->t[s->i] >= '0' && s->t[s->i] <= '9')
			s->i++;
		if (s->i == d)
			return fail(s, at, "a number with no digit in its exponent");
	}
	return 0;
}

/* The keys of one object so far, for duplicates: open addressing on a
 * hash of the decoded key. */
struct keyent {
	char *k;
	size_t n, at;
};

struct keyset {
	struct keyent *e;
	size_t used, cap;
};

static size_t key_hash(const char *k, size_t n)
{
	size_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char) k[i]) * 1099511628211ull;
	return h;
}

/* 0 and the key kept, or the offset of its first place (the key freed). */
static size_t key_add(struct keyset *ks, char *k, size_t n, size_t at)
{
	if (2 * (ks->used + 1) > ks->cap) {
		size_t cap = ks->cap ? 2 * ks->cap : 16;
		struct keyent *e = weft_xcalloc(cap, sizeof(*e));
		for (size_t i = 0; i < ks->cap; i++)
			if (ks->e[i].k) {
				size_t j = key_hash(ks->e[i].k, ks->e[i].n) & (cap - 1);
				while (e[j].k)
					j = (j + 1) & (cap - 1);
				e[j] = ks->e[i];
			}
		free(ks->e);
		ks->e = e;
		ks->cap = cap;
	}
	size_t j = key_hash(k, n) & (ks->cap - 1);
	for (; ks->e[j].k; j = (j + 1) & (ks->cap - 1))
		if (ks->e[j].n == n && memcmp(ks->e[j].k, k, n) == 0) {
			free(k);
			return ks->e[j].at + 1;
		}
	ks->e[j] = (struct keyent){k, n, at};
	ks->used++;
	return 0;
}

static void keys_free(struct keyset *ks)
{
	for (size_t i = 0; i < ks->cap; i++)
		free(ks->e[i].k);
	free(ks->e);
}

static int value(struct scan *s);

static int container(struct scan *s, char close)
{
	size_t open = s->i++;
	if (++s->depth > JSONSCAN_MAX_DEPTH)
		return fail(s, open, "arrays and objects nested more than 1000 deep (weft's JSON reader stops there)");
	struct keyset ks = {0};
	int rc = skip(s), first = 1;
	while (rc == 0) {
		if (s->i >= s->len) {
			rc = fail(s, open, "%s that never ends (no '%c')", close == '}' ? "an object" : "an array",
				  close);
			break;
		}
		if (s->t[s->i] == close && first) {
			s->i++;
			break;
		}
		if (close == '}') {
			if (s->t[s->i] != '"') {
				rc = fail(s, s->i, "expected a key (a string in double quotes), found '%c'",
					  s->t[s->i]);
				break;
			}
			size_t at = s->i, n, was;
			char *k;
			if ((rc = string(s, &k, &n)) != 0)
				break;
			if ((was = key_add(&ks, k, n, at)) != 0) {
				rc = fail(s, at, "a key given twice in one object (first at byte offset %zu)", was - 1);
				break;
			}
			if ((rc = skip(s)) != 0)
				break;
			if (s->i >= s->len || s->t[s->i] != ':') {
				rc = fail(s, s->i, "expected ':' after the key");
				break;
			}
			s->i++;
		}
		if ((rc = skip(s)) != 0 || (rc = value(s)) != 0 || (rc = skip(s)) != 0)
			break;
		first = 0;
		if (s->i >= s->len) {
			rc = fail(s, open, "%s that never ends (no '%c')", close == '}' ? "an object" : "an array",
				  close);
			break;
		}
		if (s->t[s->i] == ',') {
			s->i++;
			if ((rc = skip(s)) != 0)
				break;
			if (s->i < s->len && s->t[s->i] == close) {
				rc = fail(s, s->i, "a ',' before '%c' (JSON has no trailing comma)", close);
				break;
			}
			continue;
		}
		if (s->i < s->len && s->t[s->i] == close) {
			s->i++;
			break;
		}
		rc = fail(s, s->i, "expected ',' or '%c'", close);
	}
	keys_free(&ks);
	s->depth--;
	return rc;
}

static int value(struct scan *s)
{
	if (s->i >= s->len)
		return fail(s, s->i, "the text ends where a value was expected");
	char c = s->t[s->i];
	if (c == '{')
		return container(s, '}');
	if (c == '[')
		return container(s, ']');
	if (c == '"')
		return string(s, NULL, NULL);
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(s);
	static const char *const words[] = {"true", "false", "null"};
	for (int w = 0; w < 3; w++) {
		size_t n = strlen(words[w]);
		if (s->len - s->i >= n && memcmp(s->t + s->i, words[w], n) == 0) {
			s->i += n;
			return 0;
		}
	}
	if (c == '\0')
		return fail(s, s->i, "a NUL byte (JSON text has none)");
	return fail(s, s->i, "expected a value (an object, array, string, number, true, false or null)");
}

int json_prescan(const char *text, size_t len, size_t *off, char *why, size_t whylen)
{
	struct scan s = {text, len, 0, 0, 0, why, whylen};
	int rc = skip(&s);
	if (rc == 0)
		rc = value(&s);
	if (rc == 0)
		rc = skip(&s);
	if (rc == 0 && s.i < len)
		rc = text[s.i] == '\0' ? fail(&s, s.i, "a NUL byte (JSON text has none)")
				       : fail(&s, s.i, "content after the top-level value (a JSON text holds one)");
	*off = s.off;
	return rc;
}
