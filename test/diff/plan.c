/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan.c: the plan's lines, read, written and split (plan.h). */
#include "plan.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *q, size_t n)
{
	void *r = realloc(q, n);
	if (r == NULL) {
		fprintf(stderr, "gen: out of memory\n");
		exit(3);
	}
	return r;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xrealloc(NULL, n), s, n);
}

void plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
}

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->line[i]);
	free(p->line);
	plan_init(p);
}

void plan_insert(struct plan *p, size_t i, const char *s)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->line = xrealloc(p->line, p->cap * sizeof(*p->line));
	}
	memmove(p->line + i + 1, p->line + i, (p->n - i) * sizeof(*p->line));
	p->line[i] = xstrdup(s);
	p->n++;
}

void plan_add(struct plan *p, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	plan_insert(p, p->n, buf);
}

void plan_remove(struct plan *p, size_t i)
{
	free(p->line[i]);
	memmove(p->line + i, p->line + i + 1, (p->n - i - 1) * sizeof(*p->line));
	p->n--;
}

void plan_set(struct plan *p, size_t i, const char *s)
{
	free(p->line[i]);
	p->line[i] = xstrdup(s);
}

int plan_read(struct plan *p, FILE *f, const char *name)
{
	char buf[4096];
	size_t no = 0;
	while (fgets(buf, sizeof(buf), f)) {
		no++;
		size_t len = strlen(buf);
		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n') {
			fprintf(stderr, "gen: %s:%zu: line longer than %zu bytes\n", name, no, sizeof(buf) - 2);
			return -1;
		}
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (len == 0 || buf[0] == '#')
			continue;
		if (!strchr("OPTCRASYNEJ", buf[0]) || (buf[1] != ' ' && buf[1] != '\0')) {
			fprintf(stderr, "gen: %s:%zu: unknown line kind '%c' (expected one of OPTCRASYNEJ)\n", name, no,
				buf[0]);
			return -1;
		}
		struct plan_ev ev;
		if ((buf[0] == 'E' || buf[0] == 'J') && !plan_ev_parse(buf, &ev)) {
			fprintf(stderr, "gen: %s:%zu: bad event line (expected 'E CLOCK MCV HEX|-'): %s\n", name, no,
				buf);
			return -1;
		}
		plan_insert(p, p->n, buf);
	}
	return 0;
}

void plan_write(const struct plan *p, FILE *f)
{
	for (size_t i = 0; i < p->n; i++)
		fprintf(f, "%s\n", p->line[i]);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int plan_ev_parse(const char *s, struct plan_ev *ev)
{
	if (s[0] != 'E' && s[0] != 'J')
		return 0;
	ev->kind = s[0];
	char *end;
	ev->clock = strtoull(s + 2, &end, 10);
	if (end == s + 2 || *end != ' ' || strlen(end + 1) < 4 || end[4] != ' ')
		return 0;
	memcpy(ev->mcv, end + 1, 3);
	ev->mcv[3] = '\0';
	const char *h = end + 5;
	ev->plen = 0;
	ev->group = 0;
	size_t n = strcspn(h, " ");
	if (h[n] == ' ') {
		char *gend;
		if (h[n + 1] != '@')
			return 0;
		ev->group = (int) strtol(h + n + 2, &gend, 10);
		if (gend == h + n + 2 || *gend != '\0')
			return 0;
	}
	if (n == 1 && h[0] == '-')
		return 1;
	if (n % 2 || n / 2 > sizeof(ev->pl))
		return 0;
	for (size_t i = 0; i < n; i += 2) {
		int a = hexval(h[i]), b = hexval(h[i + 1]);
		if (a < 0 || b < 0)
			return 0;
		ev->pl[ev->plen++] = (uint8_t) (a * 16 + b);
	}
	return 1;
}

void plan_ev_format(const struct plan_ev *ev, char *buf, size_t size)
{
	int k = snprintf(buf, size, "%c %llu %s ", ev->kind, (unsigned long long) ev->clock, ev->mcv);
	if (ev->plen == 0)
		k += snprintf(buf + k, size - (size_t) k, "-");
	for (int i = 0; i < ev->plen && (size_t) k + 3 < size; i++)
		k += snprintf(buf + k, size - (size_t) k, "%02x", ev->pl[i]);
	if (ev->group > 0 && (size_t) k < size)
		snprintf(buf + k, size - (size_t) k, " @%d", ev->group);
}
