/* SPDX-License-Identifier: GPL-3.0-or-later */
/* metadata: stream.json (version 3) parsing and per-key validation. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonscan.h"
#include "util/mapfile.h"
#include "trace/metadata.h"

/* Context for error messages: which file is being read. */
struct mctx {
	const char *path;
	struct weft_err *e;
};

const char *json_kind(const cJSON *j)
{
	if (!j)
		return "nothing";
	if (cJSON_IsObject(j))
		return "an object";
	if (cJSON_IsArray(j))
		return "an array";
	if (cJSON_IsString(j))
		return "a string";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsBool(j))
		return "a boolean";
	if (cJSON_IsNull(j))
		return "null";
	return "an invalid value";
}

static int bad(struct mctx *c, const char *key, const char *expected, const cJSON *found)
{
	if (!found)
		return weft_fail(c->e, WEFT_EINPUT, "%s: missing key '%s' (expected %s)", c->path, key,
				 expected);
	return weft_fail(c->e, WEFT_EINPUT, "%s: key '%s': expected %s, found %s", c->path, key,
			 expected, json_kind(found));
}

/* An integer-valued JSON number within [lo, hi]. */
static int get_int(struct mctx *c, const cJSON *j, const char *key, int64_t lo, int64_t hi,
		   const char *expected, int64_t *out)
{
	if (!cJSON_IsNumber(j))
		return bad(c, key, expected, j);
	double d = j->valuedouble;
	/* hi + 1.0: (double) INT64_MAX rounds up to 2^63, which int64_t cannot hold */
	if (!(d == floor(d)) || d < (double) lo || d >= (double) hi + 1.0) {
		return weft_fail(c->e, WEFT_EINPUT, "%s: key '%s': expected %s, found %.17g", c->path,
				 key, expected, d);
	}
	*out = (int64_t) d;
	return 0;
}

static int get_str(struct mctx *c, const cJSON *j, const char *key, char **out)
{
	if (!cJSON_IsString(j))
		return bad(c, key, "a string", j);
	*out = weft_xstrdup(j->valuestring);
	return 0;
}

/* Keys of a nested object are looked up case-sensitively. */
static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static int parse_cpus(struct mctx *c, struct weft_meta *m, const cJSON *arr)
{
	if (!cJSON_IsArray(arr))
		return bad(c, "ovni.loom_cpus", "an array of {index, phyid}", arr);
	int n = cJSON_GetArraySize(arr);
	if (n == 0)
		return weft_fail(c->e, WEFT_EINPUT,
				 "%s: key 'ovni.loom_cpus': expected at least one CPU, found an empty array",
				 c->path);
	m->cpus = weft_xcalloc((size_t) n, sizeof(*m->cpus));
	int i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		char key[64];
		snprintf(key, sizeof(key), "ovni.loom_cpus[%d]", i);
		if (!cJSON_IsObject(it))
			return bad(c, key, "an object {index, phyid}", it);
		snprintf(key, sizeof(key), "ovni.loom_cpus[%d].index", i);
		if (get_int(c, get(it, "index"), key, 0, INT32_MAX, "an integer >= 0", &m->cpus[i].index))
			return -1;
		snprintf(key, sizeof(key), "ovni.loom_cpus[%d].phyid", i);
		if (get_int(c, get(it, "phyid"), key, 0, INT32_MAX, "an integer >= 0", &m->cpus[i].phyid))
			return -1;
		m->ncpus = ++i;
	}
	return 0;
}

static int parse_int_key(struct mctx *c, const char *s, const char *key, int64_t lo, int64_t hi,
			 int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi)
		return weft_fail(c->e, WEFT_EINPUT,
				 "%s: key '%s': expected a decimal integer in %lld..%lld, found \"%s\"",
				 c->path, key, (long long) lo, (long long) hi, s);
	*out = v;
	return 0;
}

static int parse_mark(struct mctx *c, struct weft_meta_mark *mk, const cJSON *def)
{
	char key[256];
	snprintf(key, sizeof(key), "ovni.mark.%s", def->string);
	if (parse_int_key(c, def->string, key, 0, 99, &mk->type))
		return -1;
	if (!cJSON_IsObject(def))
		return bad(c, key, "an object {title, chan_type, labels}", def);
	snprintf(key, sizeof(key), "ovni.mark.%s.title", def->string);
	if (get_str(c, get(def, "title"), key, &mk->title))
		return -1;
	snprintf(key, sizeof(key), "ovni.mark.%s.chan_type", def->string);
	const cJSON *ct = get(def, "chan_type");
	if (!cJSON_IsString(ct))
		return bad(c, key, "\"single\" or \"stack\"", ct);
	if (strcmp(ct->valuestring, "single") == 0)
		mk->stack = 0;
	else if (strcmp(ct->valuestring, "stack") == 0)
		mk->stack = 1;
	else
		return weft_fail(c->e, WEFT_EINPUT,
				 "%s: key '%s': expected \"single\" or \"stack\", found \"%s\"", c->path,
				 key, ct->valuestring);
	const cJSON *labels = get(def, "labels");
	if (!labels)
		return 0;
	snprintf(key, sizeof(key), "ovni.mark.%s.labels", def->string);
	if (!cJSON_IsObject(labels))
		return bad(c, key, "an object value -> label", labels);
	int n = cJSON_GetArraySize(labels);
	mk->labels = weft_xcalloc((size_t) n, sizeof(*mk->labels));
	const cJSON *l;
	cJSON_ArrayForEach(l, labels) {
		struct weft_meta_label *lb = &mk->labels[mk->nlabels];
		snprintf(key, sizeof(key), "ovni.mark.%s.labels.%s", def->string, l->string);
		if (parse_int_key(c, l->string, key, INT64_MIN, INT64_MAX, &lb->value))
			return -1;
		if (get_str(c, l, key, &lb->label))
			return -1;
		mk->nlabels++;
	}
	return 0;
}

static int parse_version_str(const char *s)
{
	/* major.minor.patch, the patch may carry a -suffix */
	int dots = 0, digits = 0;
	for (const char *p = s; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			digits++;
		} else if (*p == '.') {
			if (!digits)
				return -1;
			digits = 0;
			if (++dots > 2)
				return -1;
		} else if (*p == '-' && dots == 2 && digits) {
			return 0;
		} else {
			return -1;
		}
	}
	return (dots == 2 && digits) ? 0 : -1;
}

static int parse_require(struct mctx *c, struct weft_meta *m, const cJSON *req)
{
	if (!cJSON_IsObject(req))
		return bad(c, "ovni.require", "an object model -> version", req);
	int n = cJSON_GetArraySize(req);
	m->req = weft_xcalloc((size_t) n, sizeof(*m->req));
	const cJSON *r;
	cJSON_ArrayForEach(r, req) {
		char key[256];
		snprintf(key, sizeof(key), "ovni.require.%s", r->string);
		if (!cJSON_IsString(r))
			return bad(c, key, "a version string \"major.minor.patch\"", r);
		if (parse_version_str(r->valuestring) != 0)
			return weft_fail(c->e, WEFT_EINPUT,
					 "%s: key '%s': expected a version \"major.minor.patch\", found \"%s\"",
					 c->path, key, r->valuestring);
		m->req[m->nreq].model = weft_xstrdup(r->string);
		m->req[m->nreq].version = weft_xstrdup(r->valuestring);
		m->nreq++;
	}
	return 0;
}

static int parse_ovni(struct mctx *c, struct weft_meta *m, const cJSON *o)
{
	const cJSON *part = get(o, "part");
	if (!cJSON_IsString(part))
		return bad(c, "ovni.part", "the string \"thread\"", part);
	if (strcmp(part->valuestring, "thread") != 0)
		return weft_fail(c->e, WEFT_EINPUT,
				 "%s: key 'ovni.part': expected \"thread\" (the only stream part ovni "
				 "defines), found \"%s\"",
				 c->path, part->valuestring);
	const cJSON *lib = get(o, "lib");
	if (!cJSON_IsObject(lib))
		return bad(c, "ovni.lib", "an object {version, commit}", lib);
	if (get_str(c, get(lib, "version"), "ovni.lib.version", &m->lib_version) ||
	    get_str(c, get(lib, "commit"), "ovni.lib.commit", &m->lib_commit))
		return -1;
	if (get_int(c, get(o, "tid"), "ovni.tid", INT32_MIN, INT64_MAX, "a non-zero integer",
		    &m->tid))
		return -1;
	if (m->tid == 0)
		return weft_fail(c->e, WEFT_EINPUT, "%s: key 'ovni.tid': expected a non-zero integer, found 0",
				 c->path);
	if (get_int(c, get(o, "pid"), "ovni.pid", INT32_MIN, INT64_MAX, "a non-zero integer",
		    &m->pid))
		return -1;
	if (m->pid == 0)
		return weft_fail(c->e, WEFT_EINPUT, "%s: key 'ovni.pid': expected a non-zero integer, found 0",
				 c->path);
	if (get_str(c, get(o, "loom"), "ovni.loom", &m->loom))
		return -1;
	if (m->loom[0] == '\0' || strchr(m->loom, '/'))
		return weft_fail(c->e, WEFT_EINPUT,
				 "%s: key 'ovni.loom': expected a non-empty name without '/', found \"%s\"",
				 c->path, m->loom);
	const cJSON *j = get(o, "app_id");
	if (j) {
		if (get_int(c, j, "ovni.app_id", 1, INT32_MAX, "an integer > 0", &m->app_id))
			return -1;
		m->has_app_id = 1;
	}
	j = get(o, "rank");
	if (j) {
		if (get_int(c, j, "ovni.rank", 0, INT32_MAX, "an integer >= 0", &m->rank))
			return -1;
		const cJSON *nr = get(o, "nranks");
		if (!nr)
			return weft_fail(c->e, WEFT_EINPUT,
					 "%s: key 'ovni.nranks' is missing but 'ovni.rank' is present "
					 "(expected both)",
					 c->path);
		if (get_int(c, nr, "ovni.nranks", 1, INT32_MAX, "an integer > 0", &m->nranks))
			return -1;
		if (m->rank >= m->nranks)
			return weft_fail(c->e, WEFT_EINPUT,
					 "%s: key 'ovni.rank': expected a rank below nranks %lld, found %lld",
					 c->path, (long long) m->nranks, (long long) m->rank);
		m->has_rank = 1;
	}
	j = get(o, "loom_cpus");
	if (j && parse_cpus(c, m, j))
		return -1;
	/* in ovniemu's order: the loom's and process's keys, then whether the
	 * thread finished, before the rest (a thread that never finished may
	 * lack them: its stream may be empty) */
	j = get(o, "finished");
	if (!j)
		return weft_fail(c->e, WEFT_EINPUT,
				 "%s: missing key 'ovni.finished': the thread never finished (libovni "
				 "writes finished=1 when the thread is freed; it probably crashed)",
				 c->path);
	int64_t fin;
	if (get_int(c, j, "ovni.finished", INT32_MIN, INT32_MAX, "1", &fin))
		return -1;
	if (fin != 1)
		return weft_fail(c->e, WEFT_EINPUT, "%s: key 'ovni.finished': expected 1, found %lld",
				 c->path, (long long) fin);
	if (parse_require(c, m, get(o, "require")))
		return -1;
	j = get(o, "mark");
	if (j) {
		if (!cJSON_IsObject(j))
			return bad(c, "ovni.mark", "an object type -> definition", j);
		int n = cJSON_GetArraySize(j);
		m->marks = weft_xcalloc((size_t) n, sizeof(*m->marks));
		const cJSON *d;
		cJSON_ArrayForEach(d, j) {
			if (parse_mark(c, &m->marks[m->nmarks++], d))
				return -1;
		}
	}
	return 0;
}

/* Key `key` (value j) and, for an object, its keys below it. */
static void add_kv(struct weft_meta *m, const char *key, const cJSON *j)
{
	if ((m->nkv & (m->nkv - 1)) == 0) /* 0, 1, 2, 4, ...: grow at powers of two */
		m->kv = weft_xrealloc(m->kv, (size_t) (m->nkv ? 2 * m->nkv : 1) * sizeof(*m->kv));
	struct weft_meta_kv *kv = &m->kv[m->nkv++];
	memset(kv, 0, sizeof(*kv));
	kv->key = weft_xstrdup(key);
	if (cJSON_IsBool(j)) {
		kv->kind = WEFT_KV_BOOL;
		kv->i = cJSON_IsTrue(j);
	} else if (cJSON_IsNumber(j) && j->valuedouble == (double) (int64_t) j->valuedouble) {
		kv->kind = WEFT_KV_INT;
		kv->i = (int64_t) j->valuedouble;
	} else if (cJSON_IsString(j)) {
		kv->kind = WEFT_KV_STR;
		kv->s = weft_xstrdup(j->valuestring);
	} else if (cJSON_IsObject(j)) {
		kv->kind = WEFT_KV_OBJECT;
		for (const cJSON *c = j->child; c; c = c->next) {
			char *sub = weft_xasprintf("%s.%s", key, c->string);
			add_kv(m, sub, c);
			free(sub);
		}
	} else {
		kv->kind = WEFT_KV_OTHER;
	}
}

void meta_kv_free(struct weft_meta_kv *kv, int n)
{
	for (int i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].s);
	}
	free(kv);
}

const struct weft_meta_kv *meta_kv_find(const struct weft_meta_kv *kv, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return &kv[i];
	return NULL;
}

int meta_parse(struct weft_meta *m, const char *text, size_t len, const char *path,
	       struct weft_err *e)
{
	struct mctx c = {path, e};
	memset(m, 0, sizeof(*m));
	size_t at;
	char why[256];
	if (json_prescan(text, len, &at, why, sizeof(why)))
		return weft_fail(e, WEFT_EINPUT, "%s: byte offset %zu: %s", path, at, why);
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		/* ovni tolerates comments: retry with them stripped */
		size_t errpos = end ? (size_t) (end - text) : 0;
		char *copy = weft_xmalloc(len + 1);
		memcpy(copy, text, len);
		copy[len] = '\0';
		if (memchr(copy, '/', len)) {
			cJSON_Minify(copy);
			root = cJSON_Parse(copy);
		}
		free(copy);
		if (!root)
			return weft_fail(e, WEFT_EINPUT, "%s: not valid JSON (parse error near byte offset %zu)",
					 path, errpos);
	}
	int rc = -1;
	if (!cJSON_IsObject(root)) {
		weft_fail(e, WEFT_EINPUT, "%s: expected a JSON object at the top, found %s", path,
			  json_kind(root));
		goto out;
	}
	int64_t ver;
	const cJSON *v = get(root, "version");
	if (!v) {
		weft_fail(e, WEFT_EINPUT, "%s: missing key 'version' (expected 3)", path);
		goto out;
	}
	if (get_int(&c, v, "version", INT32_MIN, INT32_MAX, "3", &ver))
		goto out;
	if (ver != 3) {
		weft_fail(e, WEFT_EINPUT,
			  "%s: key 'version': expected metadata version 3 (libovni >= 1.11), found %lld",
			  path, (long long) ver);
		goto out;
	}
	const cJSON *o = get(root, "ovni");
	if (!cJSON_IsObject(o)) {
		bad(&c, "ovni", "an object", o);
		goto out;
	}
	rc = parse_ovni(&c, m, o);
	if (rc == 0)
		for (const cJSON *k = root->child; k; k = k->next)
			if (strcmp(k->string, "ovni") != 0 && strcmp(k->string, "version") != 0)
				add_kv(m, k->string, k);
out:
	cJSON_Delete(root);
	if (rc)
		meta_free(m);
	return rc;
}

int meta_load(struct weft_meta *m, const char *path, struct weft_err *e)
{
	struct mapfile f;
	if (map_open(&f, path, e))
		return -1;
	int rc;
	if (f.size == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: empty file, expected a JSON object", path);
	else
		rc = meta_parse(m, (const char *) f.data, f.size, path, e);
	map_close(&f);
	return rc;
}

void meta_free(struct weft_meta *m)
{
	free(m->loom);
	free(m->lib_version);
	free(m->lib_commit);
	free(m->cpus);
	for (int i = 0; i < m->nmarks; i++) {
		free(m->marks[i].title);
		for (int k = 0; k < m->marks[i].nlabels; k++)
			free(m->marks[i].labels[k].label);
		free(m->marks[i].labels);
	}
	free(m->marks);
	for (int i = 0; i < m->nreq; i++) {
		free(m->req[i].model);
		free(m->req[i].version);
	}
	free(m->req);
	meta_kv_free(m->kv, m->nkv);
	memset(m, 0, sizeof(*m));
}
