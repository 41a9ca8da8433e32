/* SPDX-License-Identifier: GPL-3.0-or-later */
/* viewcheck: each copied view against the .pcf and .prv it is for. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prv/cfgview.h"
#include "util/mapfile.h"
#include "prv/prvread.h"
#include "check/viewcheck.h"
#include "util/macros.h"

/* int64 -> [min, max] of what was seen with it; open addressing */
struct seen {
	int64_t key, min, max;
	int used;
};
struct seenset {
	struct seen *s;
	size_t cap, n;
};

static struct seen *seen_get(struct seenset *h, int64_t key, int add)
{
	if (add && (h->n + 1) * 2 > h->cap) {
		struct seenset g = {weft_xcalloc(h->cap ? h->cap * 2 : 64, sizeof(struct seen)),
				    h->cap ? h->cap * 2 : 64, 0};
		for (size_t i = 0; i < h->cap; i++)
			if (h->s[i].used)
				*seen_get(&g, h->s[i].key, 1) = h->s[i];
		free(h->s);
		*h = g;
	}
	if (!h->cap)
		return NULL;
	size_t i = (size_t) ((uint64_t) key * 0x9e3779b97f4a7c15ull >> 40) & (h->cap - 1);
	for (;; i = (i + 1) & (h->cap - 1)) {
		if (h->s[i].used && h->s[i].key == key)
			return &h->s[i];
		if (!h->s[i].used) {
			if (!add)
				return NULL;
			h->s[i] = (struct seen){key, INT64_MAX, INT64_MIN, 1};
			h->n++;
			return &h->s[i];
		}
	}
}

static void seen_val(struct seenset *h, int64_t key, int64_t v)
{
	struct seen *s = seen_get(h, key, 1);
	s->min = v < s->min ? v : s->min;
	s->max = v > s->max ? v : s->max;
}

struct filedata {
	int loaded, ok;
	struct seenset pcf_types, pcf_states; /* labelled */
	struct seenset types;                 /* written: type -> value range */
	struct seenset states;                /* written state values */
	int64_t state_min, state_max;
};

static const char *const sections[] = {"DEFAULT_OPTIONS", "DEFAULT_SEMANTIC", "STATES", "STATES_COLOR",
				       "EVENT_TYPE", "VALUES", "GRADIENT_COLOR", "GRADIENT_NAMES"};

static void load_pcf(struct filedata *f, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int sec = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		const char *le = nl ? nl : end;
		char line[256];
		size_t n = (size_t) (le - p) < sizeof(line) - 1 ? (size_t) (le - p) : sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\r' || line[n - 1] == '\t'))
			line[--n] = '\0';
		int k = -1;
		for (int i = 0; i < (int) (ARRAY_SIZE(sections)); i++)
			if (strcmp(line, sections[i]) == 0)
				k = i;
		if (k >= 0) {
			sec = k;
		} else if (sec == 2) { /* STATES: "<int> label" */
			char *e;
			long long v = strtoll(line, &e, 10);
			if (e != line)
				seen_val(&f->pcf_states, v, v);
		} else if (sec == 4) { /* EVENT_TYPE: "<n> <type> label" */
			char *e, *e2;
			strtoll(line, &e, 10);
			long long t = strtoll(e, &e2, 10);
			if (e != line && e2 != e)
				seen_val(&f->pcf_types, t, t);
		}
		p = nl ? nl + 1 : end;
	}
}

static int load(struct filedata *f, const char *dir, const char *name)
{
	if (f->loaded)
		return f->ok;
	f->loaded = 1;
	f->state_min = INT64_MAX;
	f->state_max = INT64_MIN;
	struct weft_err err = {0};
	char *pcf = weft_xasprintf("%s/%s.pcf", dir, name);
	struct mapfile m;
	if (map_open(&m, pcf, &err)) {
		fprintf(stderr, "weft: error: %s\n", err.msg);
		free(pcf);
		return 0;
	}
	load_pcf(f, (const char *) m.data, m.size);
	map_close(&m);
	free(pcf);
	char *prv = weft_xasprintf("%s/%s.prv", dir, name);
	struct stat pst;
	if (stat(prv, &pst) != 0) { /* weft emu -z's */
		free(prv);
		prv = weft_xasprintf("%s/%s.prv.gz", dir, name);
	}
	struct prvread r;
	struct prvrec rec;
	int rc = prvread_open(&r, prv, &err);
	while (rc == 0 && (rc = prvread_next(&r, &rec, &err)) == 1) {
		if (rec.kind == 1) {
			seen_val(&f->states, rec.state, rec.state);
			f->state_min = rec.state < f->state_min ? rec.state : f->state_min;
			f->state_max = rec.state > f->state_max ? rec.state : f->state_max;
		} else if (rec.kind == 2) {
			for (int i = 0; i < rec.npairs; i++)
				seen_val(&f->types, rec.type[i], rec.value[i]);
		}
		rc = 0;
	}
	prvread_close(&r);
	free(prv);
	if (rc < 0) {
		fprintf(stderr, "weft: error: %s\n", err.msg);
		return 0;
	}
	f->ok = 1;
	return 1;
}

static void filedata_free(struct filedata *f)
{
	if (!f)
		return;
	free(f->pcf_types.s);
	free(f->pcf_states.s);
	free(f->types.s);
	free(f->states.s);
}

static const char *const thread_funcs[] = {
	"State As Is", "Useful", "State Sign", "Given State", "In State", "Not In State", "State Record Dur.",
	"Last Evt Type", "Last Evt Val", "Last Evt Val w/o Bursts", "Next Evt Type", "Next Evt Val",
	"Average Next Evt Val", "Average Last Evt Val", "Given Evt Val", "In Evt Val", "Not In Evt Val",
	"Int. Between Evt", "Int. Between Evt w/o Bursts", "Event Sign", "Active Thd", "Active Thd Sign",
};

static const char *thread_func(const char *text, char *out, size_t n)
{
	const char *p = strstr(text, "{thread, ");
	if (!p)
		return NULL;
	p += 9;
	const char *e = strchr(p, '}');
	if (!e)
		return NULL;
	snprintf(out, n, "%.*s", (int) (e - p), p);
	return out;
}

struct ctx {
	const char *dir;
	struct filedata file[2];
	long problems;
	int nviews;
};

static void problem(struct ctx *c, const char *view, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(struct ctx *c, const char *view, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "weft: error: %s: ", view);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	c->problems++;
}

static const char *const fname[2] = {"thread", "cpu"};

static void check_view(struct ctx *c, const char *path, const char *rel)
{
	struct weft_err err = {0};
	struct mapfile m;
	if (map_open(&m, path, &err)) {
		problem(c, path, "cannot read: %s", err.msg);
		return;
	}
	char *text = weft_xcalloc(m.size + 1, 1);
	if (m.size)
		memcpy(text, m.data, m.size);
	map_close(&m);
	c->nviews++;
	struct cfgview v;
	char msg[160];
	char model[64];
	int file = cfgview_file(rel, model, sizeof(model));
	if (cfgview_parse(text, strlen(text), &v, msg, sizeof(msg))) {
		problem(c, path, "%s", msg);
	} else if (file < 0) {
		problem(c, path,
			"expected a path cfg/thread/MODEL/NAME.cfg or cfg/cpu/MODEL/NAME.cfg (the file it "
			"is for: thread.prv, cpu.prv, or MODEL-breakdown.prv for cpu/MODEL/breakdown*.cfg)");
	} else if (v.nwindows < 1) {
		problem(c, path, "expected a window (\"< NEW DISPLAYING WINDOW NAME >\"), found none");
	} else {
		char fn[64];
		if (!thread_func(text, fn, sizeof(fn)))
			problem(c, path, "expected window_selected_functions with a {thread, FUNCTION}");
		else {
			int known = 0;
			for (size_t i = 0; i < ARRAY_SIZE(thread_funcs); i++)
				known |= strcmp(fn, thread_funcs[i]) == 0;
			if (!known)
				problem(c, path, "thread function \"%s\" is not one Paraver knows", fn);
		}
		/* ovni's views (copied by ovniemu) name no colour mode, Paraver's
		 * default being code, and let Paraver compute their range */
		if (v.color == CFGVIEW_COLOR_NONE && !v.compute_y)
			problem(c, path, "expected a window_color_mode (code for states and categories, gradient "
					 "for magnitudes)");
		if (!v.has_max && !v.compute_y)
			problem(c, path, "expected a window_maximum_y (Paraver's default range 0-18 draws larger "
					 "values black)");
		/* a breakdown view is for its folder's MODEL-breakdown trace:
		 * loaded for this view alone (one per model) */
		struct filedata bd, *f = &c->file[file];
		const char *name = NULL;
		char *bdname = NULL;
		if (file == CFGVIEW_BREAKDOWN) {
			bdname = weft_xasprintf("%s-breakdown", model);
			memset(&bd, 0, sizeof(bd));
			f = &bd;
			name = bdname;
		} else {
			name = fname[file];
		}
		char *bdpcf = bdname ? weft_xasprintf("%s/%s.pcf", c->dir, bdname) : NULL;
		int missing = bdpcf && access(bdpcf, F_OK) != 0;
		free(bdpcf);
		if (missing) {
			problem(c, path, "is for %s/%s.prv and .pcf, which are not there (weft emu -b writes them)",
				c->dir, bdname);
			free(bdname);
			free(text);
			return;
		}
		if (!load(f, c->dir, name)) {
			c->problems++;
			filedata_free(f == &bd ? f : NULL);
			free(bdname);
			free(text);
			return;
		}
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (int i = 0; i < v.ntypes; i++) {
			int64_t t = v.types[i];
			if (!seen_get(&f->pcf_types, t, 0))
				problem(c, path, "event type %lld has no EVENT_TYPE label in %s/%s.pcf", (long long) t,
					c->dir, name);
			const struct seen *s = seen_get(&f->types, t, 0);
			if (!s) {
				problem(c, path, "event type %lld is never written in %s/%s.prv (Paraver: \"None of "
						 "the events specified in the filter appear in the trace\")",
					(long long) t, c->dir, name);
				continue;
			}
			lo = s->min < lo ? s->min : lo;
			hi = s->max > hi ? s->max : hi;
		}
		if (v.states) {
			if (v.color != CFGVIEW_COLOR_CODE && v.color != CFGVIEW_COLOR_NONE)
				problem(c, path, "a view of states expected window_in_code_mode (the .pcf colours)");
			if (f->states.n == 0)
				problem(c, path, "shows states, but %s/%s.prv has no state record", c->dir,
					name);
			for (size_t i = 0; i < f->states.cap; i++)
				if (f->states.s[i].used && !seen_get(&f->pcf_states, f->states.s[i].key, 0))
					problem(c, path, "state %lld is written in %s/%s.prv with no STATES label in "
							 "its .pcf",
						(long long) f->states.s[i].key, c->dir, name);
			if (f->states.n) {
				lo = f->state_min < lo ? f->state_min : lo;
				hi = f->state_max > hi ? f->state_max : hi;
			}
		}
		if (lo <= hi && v.has_max && !v.compute_y && (double) hi > v.max)
			problem(c, path, "values up to %lld are written, above window_maximum_y %g", (long long) hi,
				v.max);
		if (lo <= hi && v.has_min && !v.compute_y && (double) lo < v.min)
			problem(c, path, "values down to %lld are written, below window_minimum_y %g",
				(long long) lo, v.min);
		filedata_free(f == &bd ? f : NULL);
		free(bdname);
	}
	free(text);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

struct list {
	char **v;
	int n, cap;
};

/* The .cfg files under root/rel, down to `depth` more folder levels, as
 * paths relative to root. */
static int walk(const char *root, const char *rel, int depth, struct list *l)
{
	char *dir = rel ? weft_xasprintf("%s/%s", root, rel) : weft_xstrdup(root);
	DIR *d = opendir(dir);
	free(dir);
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = rel ? weft_xasprintf("%s/%s", rel, de->d_name) : weft_xstrdup(de->d_name);
		size_t len = strlen(de->d_name);
		if (len >= 5 && strcmp(de->d_name + len - 4, ".cfg") == 0) {
			if (l->n == l->cap)
				l->v = weft_xrealloc(l->v,
						     (size_t) (l->cap = l->cap ? l->cap * 2 : 16) * sizeof(*l->v));
			l->v[l->n++] = sub;
			continue;
		}
		if (depth > 0)
			walk(root, sub, depth - 1, l); /* not a folder: nothing in it */
		free(sub);
	}
	closedir(d);
	return 0;
}

/* The view files under DIR/cfg (cfg/thread/MODEL/NAME.cfg, and any other
 * .cfg down to that depth, to be reported), sorted. */
static int list(const char *root, char ***out)
{
	struct list l = {0};
	if (walk(root, NULL, 2, &l))
		return -1;
	if (l.n)
		qsort(l.v, (size_t) l.n, sizeof(*l.v), cmp_str);
	*out = l.v;
	return l.n;
}

long viewcheck_dir(const char *dir, int quiet, struct weft_err *err)
{
	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.dir = dir;
	char *root = weft_xasprintf("%s/cfg", dir);
	char **files;
	int n = list(root, &files);
	if (n < 0) {
		weft_fail(err, WEFT_EINPUT, "%s: cannot open the views folder", root);
		free(root);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *path = weft_xasprintf("%s/%s", root, files[i]);
		check_view(&c, path, files[i]);
		free(path);
		free(files[i]);
	}
	free(files);
	free(root);
	for (int k = 0; k < 2; k++)
		filedata_free(&c.file[k]);
	if (!quiet && c.problems == 0)
		printf("%s: views ok: %d view(s) fit their trace\n", dir, c.nviews);
	return c.problems;
}
