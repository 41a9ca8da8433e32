/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_file: `weft check` on a path: X.prv (mapped, fed in 32 MiB pieces
 * released as they are read) or X.prv.gz (zlib, 1 MiB pieces), with X.pcf
 * read before the body so labels are checked record by record, and X.row
 * after it. A missing or unreadable file is one error naming it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check/check_int.h"
#include "util/err.h"
#include "util/mapfile.h"

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* Map an auxiliary file and hand it to fn, or report it missing. */
static void aux_file(struct prvchk *c, const char *path, const char *why,
		     void (*fn)(struct prvchk *, const char *, const void *, size_t))
{
	struct mapfile m;
	struct weft_err e = {0};
	if (map_open(&m, path, &e)) {
		size_t k = strlen(path);
		const char *msg = strncmp(e.msg, path, k) == 0 && e.msg[k] == ':' ? e.msg + k + 2 : e.msg;
		ERR(c, path, 0, "%s (%s)", msg, why);
		return;
	}
	fn(c, path, m.data ? (const void *) m.data : "", m.size);
	map_close(&m);
}

/* The .prv, opened before the side files so a missing trace is one error. */
struct body {
	const char *path;
	int gz;
	struct mapfile m;
	gzFile g;
};

static int body_open(struct prvchk *c, struct body *b)
{
	if (b->gz) {
		struct weft_err e = {0};
		int fd = input_open(b->path, &e);
		b->g = fd < 0 ? NULL : gzdopen(fd, "rb");
		if (!b->g) {
			size_t k = strlen(b->path);
			if (fd >= 0)
				close(fd);
			ERR(c, b->path, 0, "%s",
			    fd >= 0 ? "cannot open for reading"
			    : strncmp(e.msg, b->path, k) == 0 && e.msg[k] == ':' ? e.msg + k + 2 : e.msg);
			return -1;
		}
		gzbuffer(b->g, 256u << 10);
		return 0;
	}
	struct weft_err e = {0};
	if (map_open(&b->m, b->path, &e)) {
		size_t k = strlen(b->path);
		ERR(c, b->path, 0, "%s",
		    strncmp(e.msg, b->path, k) == 0 && e.msg[k] == ':' ? e.msg + k + 2 : e.msg);
		return -1;
	}
	return 0;
}

static void body_plain(struct prvchk *c, struct body *b)
{
	const size_t step = 32u << 20;
	for (size_t off = 0; off < b->m.size; off += step) {
		size_t n = b->m.size - off < step ? b->m.size - off : step;
		prvchk_feed(c, b->m.data + off, n);
		map_release(&b->m, off + n);
	}
	map_close(&b->m);
	prvchk_end(c);
}

static void body_gz(struct prvchk *c, struct body *b)
{
	const unsigned cap = 1u << 20;
	char *buf = weft_xmalloc(cap);
	uint64_t total = 0;
	int n;
	while ((n = gzread(b->g, buf, cap)) > 0) {
		prvchk_feed(c, buf, (size_t) n);
		total += (uint64_t) n;
	}
	/* a truncated stream ends like EOF, with Z_BUF_ERROR left in gzerror() */
	int failed = 0, zerr = Z_OK;
	const char *msg = gzerror(b->g, &zerr);
	if (n < 0 || zerr != Z_OK) {
		ERR(c, b->path, 0, "gzip read failed after %llu uncompressed bytes: %s; the body is not checked further",
		    (unsigned long long) total, msg && *msg ? msg : "unknown error");
		failed = 1;
	}
	free(buf);
	gzclose(b->g);
	if (failed) {
		c->phase = PH_SKIP;
		return;
	}
	prvchk_end(c);
}

int prvchk_file(const char *path, const struct prvchk_opts *o, struct prvchk_stats *st)
{
	struct prvchk *c = prvchk_new(path, o);
	size_t n = strlen(path);
	char *base = NULL;
	int gz = ends_with(path, n, ".gz");
	if (ends_with(path, n, ".prv.gz"))
		base = weft_xasprintf("%.*s", (int) (n - 7), path);
	else if (ends_with(path, n, ".prv"))
		base = weft_xasprintf("%.*s", (int) (n - 4), path);
	else
		ERR(c, path, 0,
		    "the name must end in .prv or .prv.gz (the reader refuses others); .pcf and .row not checked");

	char *pcf = base ? weft_xasprintf("%s.pcf", base) : NULL;
	char *row = base ? weft_xasprintf("%s.row", base) : NULL;
	struct body b = {path, gz, {0}, NULL};
	if (body_open(c, &b) == 0) {
		if (pcf)
			aux_file(c, pcf, "the reader falls back to default labels; expected one beside the .prv",
				 prvchk_pcf);
		if (gz)
			body_gz(c, &b);
		else
			body_plain(c, &b);
		if (row)
			aux_file(c, row, "the reader falls back to default names; expected one beside the .prv",
				 prvchk_row);
	}
	prvchk_finish(c, st);
	int rc = c->st.errors ? 1 : 0;
	prvchk_free(c);
	free(base);
	free(pcf);
	free(row);
	return rc;
}
