/* SPDX-License-Identifier: GPL-3.0-or-later */
/* labels: .pcf sections and .row THREAD names, read line by line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/err.h"
#include "util/mapfile.h"
#include "plot/labels.h"

/* A side file's text, NULL when there is none (no labels then); an input
 * like any other: a regular file of bounded size, or an error. */
static char *slurp(const char *path, struct weft_err *e, int *rc)
{
	if (access(path, F_OK) != 0 && errno == ENOENT)
		return NULL;
	size_t len;
	char *text = input_slurp(path, INPUT_TEXT_MAX, "a Paraver side file", &len, e);
	if (!text)
		*rc = -1;
	return text;
}

static char *sibling(const char *prv, const char *ext)
{
	size_t n = strlen(prv);
	if (n > 7 && strcmp(prv + n - 7, ".prv.gz") == 0)
		n -= 7;
	else if (n > 4 && strcmp(prv + n - 4, ".prv") == 0)
		n -= 4;
	return weft_xasprintf("%.*s%s", (int) n, prv, ext);
}

static struct plot_label *add(struct plot_label **v, int *n, int64_t value)
{
	for (int i = 0; i < *n; i++)
		if ((*v)[i].value == value)
			return &(*v)[i];
	/* capacity: 8, then doubled each time n reaches a power of two */
	if (*n == 0 || (*n >= 8 && (*n & (*n - 1)) == 0))
		*v = weft_xrealloc(*v, (size_t) (*n ? *n * 2 : 8) * sizeof(**v));
	struct plot_label *l = &(*v)[(*n)++];
	memset(l, 0, sizeof(*l));
	l->value = value;
	return l;
}

const struct plot_label *labels_find(const struct plot_label *v, int n, int64_t value)
{
	for (int i = 0; i < n; i++)
		if (v[i].value == value)
			return &v[i];
	return NULL;
}

const struct plot_type *labels_type(const struct plot_labels *l, int64_t type)
{
	for (int i = 0; i < l->ntypes; i++)
		if (l->types[i].type == type)
			return &l->types[i];
	return NULL;
}

/* A new type entry (capacity doubled at powers of two, as add() does). */
static struct plot_type *add_type(struct plot_labels *l, int64_t type, const char *name)
{
	if (l->ntypes == 0 || (l->ntypes >= 8 && (l->ntypes & (l->ntypes - 1)) == 0))
		l->types = weft_xrealloc(l->types, (size_t) (l->ntypes ? l->ntypes * 2 : 8) * sizeof(*l->types));
	struct plot_type *t = &l->types[l->ntypes++];
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->name = weft_xstrdup(name);
	return t;
}

static char *trimmed(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return weft_xasprintf("%.*s", (int) n, s);
}

enum { S_NONE, S_STATES, S_COLORS, S_TYPE, S_VALUES, S_OTHER };

/* A value's name for every type of the current block [from, ntypes). */
static void add_value(struct plot_labels *l, int from, int64_t v, const char *text)
{
	for (int i = from; i < l->ntypes; i++) {
		struct plot_label *p = add(&l->types[i].values, &l->types[i].nvalues, v);
		free(p->text);
		p->text = weft_xstrdup(text);
	}
}

static void pcf(struct plot_labels *l, char *text)
{
	int sec = S_NONE, block = 0; /* block: the first type of the EVENT_TYPE block */
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *t = trimmed(line);
		if (!*t || *t == '#') {
			free(t);
			continue;
		}
		if (strcmp(t, "STATES") == 0)
			sec = S_STATES;
		else if (strcmp(t, "STATES_COLOR") == 0)
			sec = S_COLORS;
		else if (strcmp(t, "EVENT_TYPE") == 0) {
			sec = S_TYPE;
			block = l->ntypes;
		} else if (strcmp(t, "VALUES") == 0)
			sec = sec == S_TYPE ? S_VALUES : S_OTHER;
		else if (strcmp(t, "DEFAULT_OPTIONS") == 0 || strcmp(t, "DEFAULT_SEMANTIC") == 0 ||
			 strcmp(t, "GRADIENT_COLOR") == 0 || strcmp(t, "GRADIENT_NAMES") == 0)
			sec = S_OTHER;
		else {
			char *e;
			long long v = strtoll(t, &e, 10);
			if (e == t) {
				free(t);
				continue;
			}
			while (*e == ' ' || *e == '\t')
				e++;
			if (sec == S_STATES) {
				struct plot_label *p = add(&l->states, &l->nstates, v);
				free(p->text);
				p->text = weft_xstrdup(e);
			} else if (sec == S_COLORS) {
				int r, g, b;
				if (sscanf(e, "{%d,%d,%d}", &r, &g, &b) == 3) {
					struct plot_label *p = add(&l->states, &l->nstates, v);
					p->has_rgb = 1;
					p->rgb[0] = (unsigned char) r;
					p->rgb[1] = (unsigned char) g;
					p->rgb[2] = (unsigned char) b;
				}
			} else if (sec == S_TYPE) { /* "<gradient> <type> <label>" */
				char *e2;
				long long ty = strtoll(e, &e2, 10);
				if (e2 != e) {
					while (*e2 == ' ' || *e2 == '\t')
						e2++;
					add_type(l, ty, e2);
				}
			} else if (sec == S_VALUES) {
				add_value(l, block, v, e);
			}
		}
		free(t);
	}
}

static void row(struct plot_labels *l, char *text)
{
	char *save = NULL;
	int left = 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int n;
		if (sscanf(line, "LEVEL THREAD SIZE %d", &n) == 1 && n > 0 && n < (1 << 24)) {
			l->rows = weft_xcalloc((size_t) n, sizeof(*l->rows));
			left = n;
			continue;
		}
		if (strncmp(line, "LEVEL ", 6) == 0) {
			left = 0;
			continue;
		}
		if (left > 0) {
			l->rows[l->nrows++] = trimmed(line);
			left--;
		}
	}
}

int labels_load(struct plot_labels *l, const char *prv, struct weft_err *e)
{
	memset(l, 0, sizeof(*l));
	int rc = 0;
	char *p = sibling(prv, ".pcf");
	char *text = slurp(p, e, &rc);
	if (text)
		pcf(l, text);
	free(text);
	free(p);
	p = sibling(prv, ".row");
	text = rc ? NULL : slurp(p, e, &rc);
	if (text)
		row(l, text);
	free(text);
	free(p);
	return rc;
}

void labels_free(struct plot_labels *l)
{
	for (int i = 0; i < l->nstates; i++)
		free(l->states[i].text);
	for (int i = 0; i < l->ntypes; i++) {
		for (int k = 0; k < l->types[i].nvalues; k++)
			free(l->types[i].values[k].text);
		free(l->types[i].values);
		free(l->types[i].name);
	}
	for (int i = 0; i < l->nrows; i++)
		free(l->rows[i]);
	free(l->states);
	free(l->types);
	free(l->rows);
	memset(l, 0, sizeof(*l));
}
