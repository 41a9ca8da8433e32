/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rows: the names of a trace's rows (its .row file's THREAD level) as keys
 * shared by the two traces of a diff. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/rows.h"

/* X.row beside X.prv or X.prv.gz */
static char *row_path(const char *prv)
{
	size_t n = strlen(prv);
	if (n > 7 && strcmp(prv + n - 7, ".prv.gz") == 0)
		n -= 7;
	else if (n > 4 && strcmp(prv + n - 4, ".prv") == 0)
		n -= 4;
	return weft_xasprintf("%.*s.row", (int) n, prv);
}

/* The key of a name: blanks trimmed; for ovni, its first two words. */
static char *key_of(const char *s, size_t n, enum diff_rows mode)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (mode == DIFF_ROWS_OVNI) {
		size_t k = 0, words = 0;
		while (k < n && words < 2) {
			while (k < n && s[k] != ' ' && s[k] != '\t')
				k++;
			words++;
			if (words < 2)
				while (k < n && (s[k] == ' ' || s[k] == '\t'))
					k++;
		}
		n = k;
	}
	return weft_xasprintf("%.*s", (int) n, s);
}

uint32_t rowkeys_id(struct rowkeys *k, const char *name)
{
	struct rowkey *e;
	HASH_FIND_STR(k->by_name, name, e);
	if (e)
		return e->id;
	e = weft_xcalloc(1, sizeof(*e));
	e->name = weft_xstrdup(name);
	e->id = k->n;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->names = weft_xrealloc(k->names, k->cap * sizeof(*k->names));
	}
	k->names[k->n++] = e->name;
	HASH_ADD_KEYPTR(hh, k->by_name, e->name, strlen(e->name), e);
	return e->id;
}

int rowkeys_load(struct rowkeys *k, const char *prv, uint32_t nrows, enum diff_rows mode, uint32_t **out,
		 struct weft_err *err)
{
	char *path = row_path(prv);
	FILE *f = fopen(path, "r");
	if (!f) {
		weft_fail(err, WEFT_EINPUT, "%s: cannot open: the rows are matched by their names there", path);
		free(path);
		return -1;
	}
	uint32_t *ids = weft_xcalloc((size_t) nrows + 1, sizeof(*ids));
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0, size = -1, got = 0;
	int rc = 0;
	ssize_t len;
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		long n;
		if (size < 0 && sscanf(line, "LEVEL THREAD SIZE %ld", &n) == 1) {
			if (n != (long) nrows)
				rc = weft_fail(err, WEFT_EINPUT,
					       "%s:%ld: LEVEL THREAD SIZE %ld, but the trace has %u threads", path,
					       lineno, n, nrows);
			size = n;
			continue;
		}
		if (size < 0 || got >= size)
			continue;
		char *key = key_of(line, (size_t) len - (len && line[len - 1] == '\n'), mode);
		ids[got++] = rowkeys_id(k, key);
		free(key);
	}
	/* a name again in one file (ovniemu's "TH 1.1765" for a pid in two
	 * looms): its n-th row is matched with the other trace's n-th row of
	 * that name, keyed "NAME #n", both traces keeping ovniemu's row order */
	uint32_t *seen = weft_xcalloc((size_t) k->n + 1, sizeof(*seen));
	for (long i = 0; rc == 0 && i < got; i++) {
		if (seen[ids[i]]++ == 0)
			continue;
		char *key = weft_xasprintf("%s #%u", k->names[ids[i]], seen[ids[i]]);
		ids[i] = rowkeys_id(k, key);
		free(key);
	}
	free(seen);
	if (rc == 0 && size < 0)
		rc = weft_fail(err, WEFT_EINPUT, "%s: no LEVEL THREAD block (the rows' names)", path);
	else if (rc == 0 && got < size)
		rc = weft_fail(err, WEFT_EINPUT, "%s: the LEVEL THREAD block names %ld rows of %ld", path, got, size);
	free(line);
	fclose(f);
	free(path);
	if (rc) {
		free(ids);
		return -1;
	}
	*out = ids;
	return 0;
}

void rowkeys_free(struct rowkeys *k)
{
	struct rowkey *e, *t;
	HASH_ITER(hh, k->by_name, e, t)
	{
		HASH_DEL(k->by_name, e);
		free(e->name);
		free(e);
	}
	free(k->names);
	memset(k, 0, sizeof(*k));
}
