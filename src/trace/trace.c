/* trace: discovery + metadata + system + mapped streams. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "trace.h"

static char *join(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
	char *p = weft_xmalloc(n);
	if (strcmp(b, ".") == 0)
		snprintf(p, n, "%s/%s", a, c);
	else
		snprintf(p, n, "%s/%s/%s", a, b, c);
	return p;
}

/* Does relative path `rel` lie at or under `dir`? */
static int under(const char *rel, const char *dir)
{
	while (dir[0] == '.' && dir[1] == '/')
		dir += 2;
	size_t n = strlen(dir);
	while (n > 0 && dir[n - 1] == '/')
		n--;
	if (n == 0 || (n == 1 && dir[0] == '.'))
		return 1;
	return strncmp(rel, dir, n) == 0 && (rel[n] == '\0' || rel[n] == '/');
}

/* A regular file in place of a trace directory is a legacy log: convert it
 * into a temporary directory and read that. */
static int import_if_file(struct weft_trace *t, const char **dir, const struct trace_opts *o,
			  struct weft_err *e)
{
	struct stat st;
	if (stat(*dir, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	const char *base = getenv("TMPDIR");
	char *tmp = weft_xasprintf("%s/weft-import-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		int er = errno;
		free(tmp);
		return weft_fail(e, WEFT_EINTERNAL, "cannot create a temporary directory: %s", strerror(er));
	}
	t->tmpdir = tmp;
	t->source = weft_xstrdup(*dir);
	if (import_to_dir(*dir, o ? o->import : NULL, tmp, e))
		return -1;
	*dir = tmp;
	return 0;
}

int trace_open(struct weft_trace *t, const char *dir, const struct trace_opts *o, struct weft_err *e)
{
	memset(t, 0, sizeof(*t));
	sys_init(&t->sys);
	if (import_if_file(t, &dir, o, e)) {
		trace_close(t);
		return -1;
	}
	t->dir = weft_xstrdup(dir);
	struct weft_found f;
	if (discover_streams(dir, &f, e)) {
		trace_close(t);
		return -1;
	}
	t->streams = weft_xcalloc((size_t) f.n, sizeof(*t->streams));
	t->labels = weft_xcalloc((size_t) f.n, sizeof(*t->labels));
	t->nstreams = f.n;
	int rc = 0;
	for (int i = 0; i < f.n && rc == 0; i++) {
		struct weft_stream *s = &t->streams[i];
		s->index = i;
		s->rel = f.rel[i];
		f.rel[i] = NULL;
		s->json_path = join(dir, s->rel, "stream.json");
		s->obs_path = join(dir, s->rel, "stream.obs");
		s->window = o ? o->window : 0;
		struct weft_meta m;
		rc = meta_load(&m, s->json_path, e);
		if (rc == 0) {
			rc = sys_add(&t->sys, &m, i, s->json_path, e);
			char *lab = weft_xasprintf("%s/%lld/%lld", m.loom, (long long) m.pid,
						   (long long) m.tid);
			size_t n = strlen(lab);
			/* padding lets writers copy a fixed 64 bytes */
			t->labels[i] = weft_xcalloc(n + 65, 1);
			memcpy(t->labels[i], lab, n);
			free(lab);
			s->label = t->labels[i];
			s->label_len = (uint32_t) n;
			meta_free(&m);
		}
	}
	discover_free(&f);
	if (rc == 0)
		rc = sys_finish(&t->sys, e);
	if (rc == 0) {
		for (int i = 0; i < t->sys.nthreads; i++) {
			struct weft_thread *th = t->sys.threads[i];
			t->streams[th->stream].thread = th;
		}
	}
	if (rc == 0 && o && o->only) {
		int k = 0;
		for (int i = 0; i < t->nstreams; i++) {
			if (under(t->streams[i].rel, o->only))
				k++;
		}
		if (k == 0)
			rc = weft_fail(e, WEFT_EINPUT, "%s: no stream under '%s' (give a directory "
				       "relative to the trace, e.g. loom.X/proc.P/thread.T)", dir, o->only);
	}
	for (int i = 0; i < t->nstreams && rc == 0; i++) {
		struct weft_stream *s = &t->streams[i];
		if (o && o->only && !under(s->rel, o->only))
			continue;
		rc = stream_open(s, o ? o->mode : STREAM_ORDERED, e);
	}
	if (rc)
		trace_close(t);
	return rc;
}

void trace_close(struct weft_trace *t)
{
	for (int i = 0; i < t->nstreams; i++) {
		struct weft_stream *s = &t->streams[i];
		stream_close(s);
		free(s->rel);
		free(s->json_path);
		free(s->obs_path);
		free(t->labels[i]);
	}
	free(t->streams);
	free(t->labels);
	sys_free(&t->sys);
	free(t->dir);
	if (t->tmpdir) {
		remove_tree(t->tmpdir);
		free(t->tmpdir);
	}
	free(t->source);
	memset(t, 0, sizeof(*t));
}
