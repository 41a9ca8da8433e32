/* SPDX-License-Identifier: GPL-3.0-or-later */
/* metadata: one stream.json (metadata version 3) read with cJSON.
 * Checks every key of doc/formats/ovni.md §3.2 for presence and type and
 * returns the stream's own facts; merging across streams (processes, looms,
 * CPUs, marks) is system.c's job. Comments are tolerated like ovni does. */
#ifndef WEFT_METADATA_H
#define WEFT_METADATA_H

#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

struct weft_meta_cpu {
	int64_t index, phyid;
};

struct weft_meta_label {
	int64_t value;
	char *label;
};

struct weft_meta_mark {
	int64_t type; /* 0..99 */
	char *title;
	int stack;    /* chan_type "stack" (1) or "single" (0) */
	struct weft_meta_label *labels;
	int nlabels;
};

struct weft_meta_req {
	char *model;   /* "ovni", "nosv", ... */
	char *version; /* "major.minor.patch[-suffix]" */
};

/* A key of stream.json outside "ovni" and "version" (a runtime model's own
 * keys, e.g. nosv.can_breakdown, nosv.hwc.0.name), flattened with dots; an
 * object is listed itself (kind object) and then its keys, in file order. */
enum { WEFT_KV_BOOL, WEFT_KV_INT, WEFT_KV_STR, WEFT_KV_OBJECT, WEFT_KV_OTHER };

struct weft_meta_kv {
	char *key;
	int kind;
	int64_t i;   /* bool (0, 1) or integer */
	char *s;     /* string */
};

struct weft_meta {
	char *loom;
	int64_t pid, tid;
	int has_app_id, has_rank;
	int64_t app_id, rank, nranks;
	char *lib_version, *lib_commit;
	struct weft_meta_cpu *cpus;
	int ncpus;
	struct weft_meta_mark *marks;
	int nmarks;
	struct weft_meta_req *req;
	int nreq;
	struct weft_meta_kv *kv;
	int nkv;
};

/* Parse `len` bytes of JSON text; `path` names the file in errors. */
WEFT_MUST_CHECK int meta_parse(struct weft_meta *m, const char *text, size_t len, const char *path, struct weft_err *e);
/* Read and parse a stream.json file. */
WEFT_MUST_CHECK int meta_load(struct weft_meta *m, const char *path, struct weft_err *e);
void meta_free(struct weft_meta *m);
void meta_kv_free(struct weft_meta_kv *kv, int n);
/* Key `key` of a flattened list, or NULL. */
const struct weft_meta_kv *meta_kv_find(const struct weft_meta_kv *kv, int n, const char *key);

struct cJSON;
/* "a number", "an object", ... for messages about a JSON value (NULL:
 * "nothing"). */
const char *json_kind(const struct cJSON *j);

#endif
