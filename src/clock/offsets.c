/* offsets: parser of ovnisync's offset table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapfile.h"
#include "offsets.h"

/* Split a line into at most `max` blank-separated fields; returns the count
 * (max + 1 when there are more). Fields point into `buf`, NUL-terminated. */
static int split(char *buf, char **f, int max)
{
	int n = 0;
	char *p = buf;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static int parse_int(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

static int parse_num(const char *s)
{
	char *end;
	errno = 0;
	strtod(s, &end);
	return (end == s || *end || errno) ? -1 : 0;
}

int clkoff_parse(struct clkoff *t, const char *text, size_t len, const char *path,
		 struct weft_err *e)
{
	memset(t, 0, sizeof(*t));
	t->path = weft_xstrdup(path);
	size_t pos = 0;
	int line = 0, cap = 0;
	char *buf = NULL;
	int rc = 0;
	while (pos < len && rc == 0) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t) (nl - (text + pos)) : len - pos;
		buf = weft_xrealloc(buf, n + 1);
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		pos += n + (nl ? 1 : 0);
		line++;
		char *f[6];
		int nf = split(buf, f, 5);
		if (line == 1) {
			if (nf >= 1 && strcmp(f[0], "wallclock") == 0)
				rc = weft_fail(e, WEFT_EINPUT,
					       "%s:1: this is ovnisync's drift table (header \"wallclock "
					       "host...\"); weft reads the offset table (ovnisync without -d)",
					       path);
			continue; /* the header's content is not checked, as in ovni */
		}
		if (nf == 0)
			continue;
		if (nf != 5) {
			rc = weft_fail(e, WEFT_EINPUT,
				       "%s:%d: expected 5 fields (rank hostname offset_median offset_mean "
				       "offset_std), found %s%d",
				       path, line, nf > 5 ? "more than " : "", nf > 5 ? 5 : nf);
			break;
		}
		struct clkoff_entry en = {0};
		if (parse_int(f[0], &en.rank)) {
			rc = weft_fail(e, WEFT_EINPUT, "%s:%d: field 1 (rank): expected an integer, found \"%s\"",
				       path, line, f[0]);
			break;
		}
		if (parse_int(f[2], &en.offset)) {
			rc = weft_fail(e, WEFT_EINPUT,
				       "%s:%d: field 3 (offset_median): expected an integer number of ns, "
				       "found \"%s\"",
				       path, line, f[2]);
			break;
		}
		if (parse_num(f[3]) || parse_num(f[4])) {
			rc = weft_fail(e, WEFT_EINPUT,
				       "%s:%d: fields 4-5 (offset_mean offset_std): expected numbers, found "
				       "\"%s\" \"%s\"",
				       path, line, f[3], f[4]);
			break;
		}
		if (clkoff_find(t, f[1])) {
			rc = weft_fail(e, WEFT_EINPUT, "%s:%d: host \"%s\" appears twice (first on line %d)",
				       path, line, f[1], clkoff_find(t, f[1])->line);
			break;
		}
		if (t->n == cap) {
			cap = cap ? 2 * cap : 16;
			t->ent = weft_xrealloc(t->ent, (size_t) cap * sizeof(*t->ent));
		}
		en.host = weft_xstrdup(f[1]);
		en.line = line;
		t->ent[t->n++] = en;
	}
	free(buf);
	if (rc == 0 && line == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: empty file, expected ovnisync's header line", path);
	else if (rc == 0 && t->n == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: no entries after the header line", path);
	if (rc)
		clkoff_free(t);
	return rc;
}

int clkoff_load(struct clkoff *t, const char *path, struct weft_err *e)
{
	struct mapfile m;
	if (map_open(&m, path, e))
		return -1;
	int rc = clkoff_parse(t, (const char *) m.data, m.size, path, e);
	map_close(&m);
	return rc;
}

struct clkoff_entry *clkoff_find(struct clkoff *t, const char *host)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->ent[i].host, host) == 0)
			return &t->ent[i];
	return NULL;
}

void clkoff_free(struct clkoff *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->ent[i].host);
	free(t->ent);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
