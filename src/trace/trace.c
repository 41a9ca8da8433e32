/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace: inputs -> discovery + metadata + system + mapped streams. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/discover.h"
#include "util/mapfile.h"
#include "util/onexit.h"
#include "util/rmtree.h"
#include "util/tmpdir.h"
#include "trace/trace.h"

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

static void remove_conversion(void *dir)
{
	rmtree(dir);
}

/* A regular file in place of a trace directory is a legacy log: convert it
 * into a temporary directory and read that. */
static int import_if_file(struct trace_input *in, int k, const struct trace_opts *o, struct weft_err *e)
{
	struct stat st;
	if (o && o->converted && o->converted[k]) {
		in->dir = weft_xstrdup(o->converted[k]);
		in->source = weft_xstrdup(in->path);
		return 0;
	}
	in->dir = weft_xstrdup(in->path);
	if (stat(in->path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	char *base;
	int bfd = tmpdir_open(&base, e);
	if (bfd < 0)
		return -1;
	/* conversions killed runs left (their PID, in the name, no longer runs) */
	tmpdir_sweep(bfd, "weft-import");
	close(bfd);
	/* the PID in the name lets a later run remove it if this one is killed */
	char *tmp = weft_xasprintf("%s/weft-import-%ld-XXXXXX", base, (long) getpid());
	free(base);
	if (!mkdtemp(tmp)) {
		int er = errno;
		weft_tmp_fail(e, er, "%s: cannot create a temporary directory", tmp);
		free(tmp);
		return -1;
	}
	in->tmpdir = tmp;
	onexit_add(remove_conversion, tmp); /* an exit() on the way (out of memory) */
	in->source = weft_xstrdup(in->path);
	free(in->dir);
	in->dir = weft_xstrdup(tmp);
	return import_to_dir(in->path, o ? o->import : NULL, tmp, e);
}

/* The input's time origin: weft-origin.json (written by importers), else an
 * ovni directory's clocks are taken as absolute. */
static int read_origin(struct trace_input *in, struct weft_err *e)
{
	char *p = weft_xasprintf("%s/%s", in->dir, IMPORT_ORIGIN_FILE);
	struct stat st;
	int rc = 0;
	in->absolute = 1;
	in->epoch = 0;
	if (stat(p, &st) == 0) {
		int has;
		rc = import_read_origin(p, &has, &in->epoch, e);
		in->absolute = rc == 0 && has;
		in->undated = rc == 0 && !has;
	}
	free(p);
	return rc;
}

/* "picl.3" -> 3, "node12" -> 12; -1 when the name does not end in digits. */
static long long loom_number(const char *name)
{
	size_t n = strlen(name), i = n;
	while (i > 0 && isdigit((unsigned char) name[i - 1]))
		i--;
	if (i == n || n - i > 15)
		return -1;
	return atoll(name + i);
}

struct seen { /* looms and (loom, pid) pairs of earlier inputs */
	char **loom;
	int *loom_input;
	int nloom;
	char **pl;
	int64_t *pid;
	int npl;
};

static int seen_loom(const struct seen *s, const char *name, int input)
{
	for (int i = 0; i < s->nloom; i++)
		if (s->loom_input[i] != input && strcmp(s->loom[i], name) == 0)
			return 1;
	return 0;
}

static void add_loom(struct seen *s, const char *name, int input)
{
	for (int i = 0; i < s->nloom; i++)
		if (s->loom_input[i] == input && strcmp(s->loom[i], name) == 0)
			return;
	s->loom = weft_xrealloc(s->loom, (size_t) (s->nloom + 1) * sizeof(*s->loom));
	s->loom_input = weft_xrealloc(s->loom_input, (size_t) (s->nloom + 1) * sizeof(int));
	s->loom[s->nloom] = weft_xstrdup(name);
	s->loom_input[s->nloom++] = input;
}

static int seen_pid(const struct seen *s, const char *loom, int64_t pid)
{
	for (int i = 0; i < s->npl; i++)
		if (s->pid[i] == pid && strcmp(s->pl[i], loom) == 0)
			return 1;
	return 0;
}

static void seen_free(struct seen *s)
{
	for (int i = 0; i < s->nloom; i++)
		free(s->loom[i]);
	for (int i = 0; i < s->npl; i++)
		free(s->pl[i]);
	free(s->loom);
	free(s->loom_input);
	free(s->pl);
	free(s->pid);
}

/* Several inputs: give input k its own applications, looms and pids. */
static void rewrite_meta(struct weft_meta *m, int nm, int k, int ninputs, int64_t *next_app,
			 struct seen *s, const struct trace_opts *o)
{
	if (ninputs < 2)
		return;
	int64_t lo = INT64_MAX;
	for (int i = 0; i < nm; i++)
		if ((m[i].has_app_id ? m[i].app_id : 0) < lo)
			lo = m[i].has_app_id ? m[i].app_id : 0;
	/* the first input keeps its ids; each next one follows the previous */
	int64_t base = k == 0 ? 0 : *next_app - lo, hi = *next_app;
	for (int i = 0; i < nm; i++) {
		int64_t a = (m[i].has_app_id ? m[i].app_id : 0) + base;
		m[i].has_app_id = 1;
		m[i].app_id = a;
		if (a + 1 > hi)
			hi = a + 1;
		char *name = NULL;
		long long num = loom_number(m[i].loom);
		if (o && o->same_nodes && num >= 0)
			name = weft_xasprintf("node%lld", num);
		else if (seen_loom(s, m[i].loom, k))
			name = weft_xasprintf("%s@%d", m[i].loom, k + 1);
		if (name) {
			free(m[i].loom);
			m[i].loom = name;
		}
		if (k > 0 && seen_pid(s, m[i].loom, m[i].pid))
			m[i].pid += (int64_t) k * 1000000;
	}
	*next_app = hi;
	for (int i = 0; i < nm; i++) {
		add_loom(s, m[i].loom, k);
		s->pl = weft_xrealloc(s->pl, (size_t) (s->npl + 1) * sizeof(*s->pl));
		s->pid = weft_xrealloc(s->pid, (size_t) (s->npl + 1) * sizeof(*s->pid));
		s->pl[s->npl] = weft_xstrdup(m[i].loom);
		s->pid[s->npl++] = m[i].pid;
	}
}

/* What an importer wrote and weft cannot read back is weft's fault, not the
 * log's: the error names the log and the stream inside the conversion, never
 * the temporary directory (gone when weft exits). */
static int converted_fails(const struct trace_input *in, struct weft_err *e)
{
	char msg[sizeof(e->msg)];
	size_t n = strlen(in->tmpdir), k = 0;
	for (const char *p = e->msg; *p && k + 1 < sizeof(msg);) {
		if (strncmp(p, in->tmpdir, n) == 0) {
			p += n + (p[n] == '/');
			continue;
		}
		msg[k++] = *p++;
	}
	msg[k] = '\0';
	return weft_fail(e, WEFT_EINTERNAL, "%s: weft cannot read back its own conversion of this log (a weft bug): %s",
			 in->path, msg);
}

static int read_input(struct weft_trace *t, int k, const struct trace_opts *o, int64_t *next_app,
		      struct seen *seen, struct weft_err *e);

static int add_input(struct weft_trace *t, int k, const struct trace_opts *o, int64_t *next_app,
		     struct seen *seen, struct weft_err *e)
{
	struct trace_input *in = &t->inputs[k];
	if (import_if_file(in, k, o, e))
		return -1;
	int rc = read_input(t, k, o, next_app, seen, e);
	if (rc && in->tmpdir)
		return converted_fails(in, e);
	return rc;
}

static int read_input(struct weft_trace *t, int k, const struct trace_opts *o, int64_t *next_app,
		      struct seen *seen, struct weft_err *e)
{
	struct trace_input *in = &t->inputs[k];
	if (read_origin(in, e))
		return -1;
	struct weft_found f;
	if (discover_streams(in->dir, &f, e))
		return -1;
	int base = t->nstreams;
	in->first = base;
	in->n = f.n;
	t->streams = weft_xrealloc(t->streams, (size_t) (base + f.n + 1) * sizeof(*t->streams));
	t->labels = weft_xrealloc(t->labels, (size_t) (base + f.n + 1) * sizeof(*t->labels));
	memset(t->streams + base, 0, (size_t) f.n * sizeof(*t->streams));
	memset(t->labels + base, 0, (size_t) f.n * sizeof(*t->labels));
	t->nstreams += f.n;
	struct weft_meta *m = weft_xcalloc((size_t) f.n + 1, sizeof(*m));
	int nm = 0, rc = 0;
	for (int i = 0; i < f.n; i++) {
		struct weft_stream *s = &t->streams[base + i];
		s->index = base + i;
		s->input = k;
		s->rel = f.rel[i];
		f.rel[i] = NULL;
		s->json_path = join(in->dir, s->rel, "stream.json");
		s->obs_path = join(in->dir, s->rel, "stream.obs");
		s->window = o ? o->window : 0;
		s->salvage = o ? o->salvage : 0;
		if (rc == 0 && (rc = meta_load(&m[i], s->json_path, e)) == 0)
			nm++;
	}
	discover_free(&f);
	if (rc == 0)
		rewrite_meta(m, nm, k, t->ninputs, next_app, seen, o);
	for (int i = 0; i < nm && rc == 0; i++) {
		struct weft_stream *s = &t->streams[base + i];
		rc = sys_add(&t->sys, &m[i], base + i, s->json_path, e);
		char *lab = weft_xasprintf("%s/%lld/%lld", m[i].loom, (long long) m[i].pid,
					   (long long) m[i].tid);
		size_t n = strlen(lab);
		/* padding lets writers copy a fixed 64 bytes */
		t->labels[base + i] = weft_xcalloc(n + 65, 1);
		memcpy(t->labels[base + i], lab, n);
		free(lab);
		s->label = t->labels[base + i];
		s->label_len = (uint32_t) n;
	}
	for (int i = 0; i < nm; i++)
		meta_free(&m[i]);
	free(m);
	return rc;
}

int trace_open_inputs(struct weft_trace *t, const char *const *paths, int n, const struct trace_opts *o,
		      struct weft_err *e)
{
	memset(t, 0, sizeof(*t));
	sys_init(&t->sys);
	t->sys.require = o ? o->require : NULL;
	t->sys.require_arg = o ? o->require_arg : NULL;
	t->ninputs = n;
	t->map_budget = o ? o->map_budget : 0;
	t->inputs = weft_xcalloc((size_t) n, sizeof(*t->inputs));
	for (int k = 0; k < n; k++)
		t->inputs[k].path = weft_xstrdup(paths[k]);
	int64_t next_app = 0;
	struct seen seen = {0};
	int rc = 0;
	for (int k = 0; k < n && rc == 0; k++)
		rc = add_input(t, k, o, &next_app, &seen, e);
	seen_free(&seen);
	if (rc == 0) {
		t->dir = weft_xstrdup(t->inputs[0].dir);
		if (t->inputs[0].tmpdir)
			t->tmpdir = weft_xstrdup(t->inputs[0].tmpdir);
		if (t->inputs[0].source)
			t->source = weft_xstrdup(t->inputs[0].source);
		t->sys.quiet = o && o->quiet;
		rc = sys_finish(&t->sys, e);
	}
	if (rc == 0) {
		for (int i = 0; i < t->sys.nthreads; i++) {
			struct weft_thread *th = t->sys.threads[i];
			t->streams[th->stream].thread = th;
		}
		t->loom_clock = weft_xcalloc((size_t) t->sys.nlooms + 1, sizeof(*t->loom_clock));
		t->loom_seg = weft_xcalloc((size_t) t->sys.nlooms + 1, sizeof(*t->loom_seg));
		t->loom_nseg = weft_xcalloc((size_t) t->sys.nlooms + 1, sizeof(*t->loom_nseg));
		t->input_shift = weft_xcalloc((size_t) n + 1, sizeof(*t->input_shift));
	}
	if (rc == 0 && o && o->only) {
		int k = 0;
		for (int i = 0; i < t->nstreams; i++) {
			if (under(t->streams[i].rel, o->only))
				k++;
		}
		if (k == 0)
			rc = weft_fail(e, WEFT_EINPUT, "%s: no stream under '%s' (give a directory "
				       "relative to the trace, e.g. loom.X/proc.P/thread.T)", t->dir, o->only);
	}
	for (int i = 0; i < t->nstreams && rc == 0; i++) {
		struct weft_stream *s = &t->streams[i];
		if (o && o->only && !under(s->rel, o->only))
			continue;
		rc = stream_open(s, o ? o->mode : STREAM_ORDERED, e);
		/* every stream is read at once: their resident pages together
		 * stay within a budget, not 2 MiB each */
		s->map.step = map_release_step_in(t->map_budget, (size_t) t->nstreams);
	}
	if (rc)
		trace_close(t);
	return rc;
}

int trace_open(struct weft_trace *t, const char *dir, const struct trace_opts *o, struct weft_err *e)
{
	return trace_open_inputs(t, &dir, 1, o, e);
}

int trace_rewind(struct weft_trace *t, struct weft_err *e)
{
	for (int i = 0; i < t->nstreams; i++) {
		struct weft_stream *s = &t->streams[i];
		if (!s->active)
			continue;
		enum stream_mode mode = s->mode;
		stream_close(s);
		if (stream_open(s, mode, e))
			return -1;
		s->map.step = map_release_step_in(t->map_budget, (size_t) t->nstreams);
	}
	return 0;
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
	for (int g = 0; t->loom_seg && g < t->sys.nlooms; g++)
		free(t->loom_seg[g]);
	sys_free(&t->sys);
	free(t->dir);
	for (int k = 0; k < t->ninputs; k++) {
		struct trace_input *in = &t->inputs[k];
		if (in->tmpdir) {
			onexit_remove(in->tmpdir);
			rmtree(in->tmpdir);
			free(in->tmpdir);
		}
		free(in->path);
		free(in->dir);
		free(in->source);
	}
	free(t->inputs);
	free(t->tmpdir);
	free(t->source);
	free(t->loom_clock);
	free(t->loom_seg);
	free(t->loom_nseg);
	free(t->input_shift);
	memset(t, 0, sizeof(*t));
}
