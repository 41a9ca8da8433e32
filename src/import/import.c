/* SPDX-License-Identifier: GPL-3.0-or-later */
/* import: the format table, detection and conversion driver. */
#define _XOPEN_SOURCE 700
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "import/import.h"
#include "util/mapfile.h"
#include "util/rmtree.h"
#include "util/tmpdir.h"
#include "util/macros.h"

extern const struct weft_import_fmt import_visandor;
extern const struct weft_import_fmt import_picl;

/* One row per format; importers add themselves here. */
extern const struct weft_import_fmt import_charisma;
static const struct weft_import_fmt *const formats[] = {
	&import_charisma,
	&import_visandor,
	&import_picl,
	NULL, /* keeps the array non-empty until the first importer lands */
};

int import_formats(const struct weft_import_fmt *const **out)
{
	*out = formats;
	int n = 0;
	while (n < (int) (ARRAY_SIZE(formats)) && formats[n])
		n++;
	return n;
}

const struct weft_import_fmt *import_by_name(const char *name)
{
	const struct weft_import_fmt *const *f;
	int n = import_formats(&f);
	for (int i = 0; i < n; i++)
		if (strcmp(f[i]->name, name) == 0)
			return f[i];
	return NULL;
}

/* What detection found first that no format starts so: the file is empty,
 * a NUL or control byte (in the first 64 KiB: text logs have none), or the
 * first line that is not blank. */
static void first_line_of(const uint8_t *d, size_t len, char *out, size_t n)
{
	long line = 1;
	for (size_t i = 0; i < len && i < (64u << 10); i++) {
		if (d[i] < 32 && d[i] != '\t' && d[i] != '\r' && d[i] != '\n') {
			if (d[i] == 0)
				snprintf(out, n, "line %ld, byte offset %zu: a NUL byte", line, i);
			else
				snprintf(out, n, "line %ld, byte offset %zu: control byte 0x%02x", line, i, d[i]);
			return;
		}
		line += d[i] == '\n';
	}
	size_t p = 0;
	line = 1;
	while (p < len && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n'))
		line += d[p++] == '\n';
	if (p == len) {
		snprintf(out, n, "%s", len ? "only blank lines" : "the file is empty");
		return;
	}
	size_t q = p;
	while (q < len && d[q] != '\n' && q - p < 40)
		q++;
	size_t z = q;
	while (z > p && (d[z - 1] == ' ' || d[z - 1] == '\t' || d[z - 1] == '\r'))
		z--;
	snprintf(out, n, "line %ld '%.*s%s' starts none of them", line, (int) (z - p), (const char *) d + p,
		 q < len && d[q] != '\n' ? "..." : "");
}

static int starts(const uint8_t *d, size_t len, const char *s)
{
	size_t k = strlen(s);
	return len >= k && memcmp(d, s, k) == 0;
}

/* A file that is no log but something weft or Paraver writes or reads (a
 * stream of a trace, an output of weft emu): what it is and what takes it,
 * into out; 0 when it is none of those. */
static int known_file(const char *path, const uint8_t *d, size_t len, char *out, size_t n)
{
	size_t k = strlen(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int obs = starts(d, len, "ovni"), json = strcmp(base, "stream.json") == 0;
	if (obs || json) {
		/* the trace: the folder above loom.X/proc.P/thread.T, when the path says so */
		const char *loom = NULL;
		for (const char *p = path; (p = strstr(p, "loom.")); p++)
			if (p == path || p[-1] == '/')
				loom = p;
		if (loom && loom > path + 1)
			snprintf(out, n,
				 "this is one thread's ovni stream (%s), not a trace: give its trace directory, "
				 "the folder holding the loom.* folders (%.*s), as TRACE",
				 obs ? "stream.obs" : "stream.json", (int) (loom - path - 1), path);
		else
			snprintf(out, n,
				 "this is one thread's ovni stream (%s), not a trace: give its trace directory, "
				 "the folder holding the loom.* folders (of TRACE/loom.*/proc.*/thread.*/%s), as TRACE",
				 obs ? "stream.obs" : "stream.json", base);
		return 1;
	}
	int prv = starts(d, len, "#Paraver ") || (k > 7 && strcmp(path + k - 7, ".prv.gz") == 0);
	if (prv) {
		snprintf(out, n,
			 "this is a Paraver trace (what weft emu writes), which weft check, weft plot and "
			 "wxParaver read; weft's other commands read ovni traces and legacy logs");
		return 1;
	}
	static const struct {
		const char *head, *what;
	} para[] = {
		{"DEFAULT_OPTIONS", "a Paraver .pcf (the labels and colours of a trace, beside its .prv)"},
		{"LEVEL ", "a Paraver .row (the row names of a trace, beside its .prv)"},
		{"#ParaverCFG", "a Paraver view (.cfg; wxparaver TRACE.prv FILE.cfg opens it with its trace)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(para); i++)
		if (starts(d, len, para[i].head)) {
			snprintf(out, n, "this is %s, not a trace", para[i].what);
			return 1;
		}
	return 0;
}

int import_to_dir(const char *path, const struct import_opts *o, const char *outdir,
		  struct weft_err *e)
{
	const struct weft_import_fmt *const *f;
	int n = import_formats(&f);
	struct mapfile m;
	if (map_open(&m, path, e))
		return -1;
	const struct weft_import_fmt *fmt = NULL;
	if (o && o->format) {
		fmt = import_by_name(o->format);
		if (!fmt) {
			map_close(&m);
			return weft_fail(e, WEFT_EUSAGE, "unknown format '%s' (weft imports: %s)", o->format,
					 n ? f[0]->name : "nothing yet");
		}
	} else {
		for (int i = 0; i < n && !fmt; i++)
			if (f[i]->detect(m.data, m.size))
				fmt = f[i];
	}
	int rc;
	if (!fmt) {
		char names[256] = "";
		for (int i = 0; i < n; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
				 f[i]->name);
		char what[512];
		if (known_file(path, m.data, m.size, what, sizeof(what))) {
			map_close(&m);
			return weft_fail(e, WEFT_EINPUT, "%s: %s", path, what);
		}
		first_line_of(m.data, m.size, what, sizeof(what));
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s: not an ovni trace directory, and not a log in a format weft "
			       "recognises (%s): %s; if it is one, name it (emu --format NAME, import NAME "
			       "FILE) to see what does not match",
			       path, n ? names : "no importer yet", what);
	} else {
		static const struct import_opts none = {0};
		rc = fmt->convert(path, &m, o ? o : &none, outdir, e);
		char *op = weft_xasprintf("%s/%s", outdir, IMPORT_ORIGIN_FILE);
		struct stat st;
		if (rc == 0 && stat(op, &st) != 0)
			rc = import_write_origin(outdir, fmt->name, 0, 0, e);
		free(op);
	}
	map_close(&m);
	return rc;
}

int import_nul_byte(struct weft_err *e, const char *path, long line, size_t off)
{
	return weft_fail(e, WEFT_EINPUT, "%s:%ld: byte offset %zu: a NUL byte: a text log has none", path, line, off);
}

int import_write_origin(const char *outdir, const char *format, int has_epoch, int64_t epoch_ns,
			struct weft_err *e)
{
	char *p = weft_xasprintf("%s/%s", outdir, IMPORT_ORIGIN_FILE);
	FILE *f = fopen(p, "w");
	int rc = 0;
	if (!f) {
		rc = weft_out_fail(e, errno, "%s: cannot create", p);
	} else {
		fprintf(f, "{\"weft_origin\": 1, \"format\": \"%s\"", format);
		if (has_epoch)
			fprintf(f, ", \"epoch_ns\": \"%lld\"", (long long) epoch_ns);
		fprintf(f, "}\n");
		if (fclose(f) != 0)
			rc = weft_out_fail(e, errno, "%s: cannot write", p);
	}
	free(p);
	return rc;
}

int import_read_origin(const char *path, int *has_epoch, int64_t *epoch_ns, struct weft_err *e)
{
	struct mapfile m;
	if (map_open(&m, path, e))
		return -1;
	cJSON *root = cJSON_ParseWithLength((const char *) m.data, m.size);
	map_close(&m);
	int rc = 0;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "weft_origin");
	const cJSON *ep = cJSON_GetObjectItemCaseSensitive(root, "epoch_ns");
	*has_epoch = 0;
	if (!cJSON_IsObject(root) || !cJSON_IsNumber(v) || v->valuedouble != 1) {
		rc = weft_fail(e, WEFT_EINPUT, "%s: expected {\"weft_origin\": 1, ...} (weft's record of a "
			       "converted log's time origin)", path);
	} else if (ep) {
		char *end = NULL;
		errno = 0;
		long long x = cJSON_IsString(ep) ? strtoll(ep->valuestring, &end, 10) : 0;
		if (!cJSON_IsString(ep) || end == ep->valuestring || *end || errno) {
			rc = weft_fail(e, WEFT_EINPUT, "%s: key 'epoch_ns': expected a decimal string of ns, "
				       "found something else", path);
		} else {
			*has_epoch = 1;
			*epoch_ns = x;
		}
	}
	cJSON_Delete(root);
	return rc;
}

/* A stream's relative path with its loom's number unpadded (loom.picl.03
 * and loom.picl.3 alike: the folders are renamed with the padding when the
 * conversion ends, import_name_loom). */
static void unpadded(const char *rel, char *out, size_t n)
{
	const char *slash = strchr(rel, '/');
	size_t k = slash ? (size_t) (slash - rel) : strlen(rel), d = k;
	while (d > 0 && rel[d - 1] >= '0' && rel[d - 1] <= '9')
		d--;
	size_t z = d;
	while (strncmp(rel, "loom.", 5) == 0 && z + 1 < k && rel[z] == '0')
		z++;
	snprintf(out, n, "%.*s%s", (int) d, rel, rel + z);
}

int import_locate_is(const struct import_locate *l, const char *outdir, const char *dir)
{
	size_t n = strlen(outdir);
	if (!l || strncmp(dir, outdir, n) != 0 || dir[n] != '/')
		return 0;
	char a[4096], b[4096];
	unpadded(dir + n + 1, a, sizeof(a));
	unpadded(l->rel, b, sizeof(b));
	return strcmp(a, b) == 0;
}

int import_locate(const char *path, const struct import_opts *o, struct import_locate *l)
{
	l->found = l->has_pos = 0;
	struct weft_err ignored;
	char *base;
	int bfd = tmpdir_open(&base, &ignored);
	if (bfd < 0)
		return 0;
	close(bfd);
	/* named as the run's own conversions, so that a later run removes it
	 * if this one is killed */
	char *tmp = weft_xasprintf("%s/weft-import-%ld-XXXXXX", base, (long) getpid());
	free(base);
	if (!mkdtemp(tmp)) {
		free(tmp);
		return 0;
	}
	struct import_opts again = o ? *o : (struct import_opts){0};
	again.quiet = 1;
	again.locate = l;
	if (import_to_dir(path, &again, tmp, &ignored) != 0)
		l->found = 0;
	rmtree(tmp);
	free(tmp);
	return l->found;
}

int import_name_loom(const char *outdir, const char *from, const char *to, struct weft_err *e)
{
	if (strcmp(from, to) == 0)
		return 0;
	char *a = weft_xasprintf("%s/loom.%s", outdir, from), *b = weft_xasprintf("%s/loom.%s", outdir, to);
	struct stat st;
	int rc = 0;
	if (rename(a, b) != 0 && !(errno == ENOENT && stat(b, &st) == 0))
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", a, b, strerror(errno));
	free(a);
	free(b);
	return rc;
}
