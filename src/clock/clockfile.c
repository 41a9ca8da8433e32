/* SPDX-License-Identifier: GPL-3.0-or-later */
/* clockfile: weft's JSON clock file, form detection, lookup (clockfile.h).
 *
 *   {"weft_clock": 2, "generator": "...", "looms": [
 *     {"loom": "node01", "offset_ns": -2047, "drift_ppm": 12.5, "ref_ns": 1000,
 *      "uncertainty_ns": 340, "linked": true,
 *      "segments": [{"from_ns": 5000000000, "offset_ns": ..., "drift_ppm": ...,
 *                    "ref_ns": ...}, ...]}, ...]}
 *
 * The loom's own offset_ns, drift_ppm, ref_ns are its first segment (from
 * local time 0); "segments" (version 2, optional) lists the next ones in
 * increasing from_ns, each a line from that local time on. Version 1 files
 * (no segments) read as before.
 *
 * offset_ns and ref_ns are integers, written as JSON numbers up to 2^53 and as
 * decimal strings beyond (JSON readers hold numbers as doubles); drift_ppm
 * has six decimals, so it is an exact number of parts per 10^12. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "clock/clockfile.h"
#include "util/jsonscan.h"
#include "util/mapfile.h"
#include "trace/metadata.h"
#include "util/strbuf.h"

#define SAFE_INT 9007199254740992.0 /* 2^53 */

const char *clockfile_form_name(enum clock_form f)
{
	static const char *const names[] = {"weft clock file", "ovnisync offset table",
					    "ovnisync drift table"};
	return names[f];
}

struct clock_entry *clockfile_add(struct clock_table *t, const char *name, int by_host)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->ent = weft_xrealloc(t->ent, (size_t) t->cap * sizeof(*t->ent));
	}
	struct clock_entry *en = &t->ent[t->n++];
	memset(en, 0, sizeof(*en));
	en->name = weft_xstrdup(name);
	en->by_host = by_host;
	en->uncertainty = -1;
	return en;
}

struct clock_entry *clockfile_find(struct clock_table *t, const char *loom, const char *host)
{
	for (int i = 0; i < t->n; i++)
		if (!t->ent[i].by_host && strcmp(t->ent[i].name, loom) == 0)
			return &t->ent[i];
	for (int i = 0; i < t->n; i++)
		if (t->ent[i].by_host && strcmp(t->ent[i].name, host) == 0)
			return &t->ent[i];
	return NULL;
}

void clockfile_set_segs(struct clock_entry *en, const struct clock_seg *seg, int n)
{
	free(en->seg);
	en->seg = weft_xmalloc((size_t) n * sizeof(*seg));
	memcpy(en->seg, seg, (size_t) n * sizeof(*seg));
	en->seg[0].from = 0;
	en->nseg = n;
	en->map = seg[0].map;
}

void clockfile_free(struct clock_table *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->ent[i].name), free(t->ent[i].seg);
	free(t->ent);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

/* ---- reading the JSON form ------------------------------------------------------- */

/* An integer as a JSON number (exact up to 2^53) or a decimal string. */
static int get_int(const cJSON *j, int64_t *out)
{
	if (cJSON_IsNumber(j)) {
		double v = j->valuedouble;
		if (v != floor(v) || fabs(v) > SAFE_INT)
			return -1;
		*out = (int64_t) v;
		return 0;
	}
	if (cJSON_IsString(j)) {
		char *end;
		errno = 0;
		long long v = strtoll(j->valuestring, &end, 10);
		if (end == j->valuestring || *end || errno)
			return -1;
		*out = v;
		return 0;
	}
	return -1;
}

/* looms[i].segments: the segments after the first, from_ns increasing. */
static int parse_segs(struct clock_entry *en, const cJSON *segs, const char *path, int i, double ver,
		      struct weft_err *e)
{
	if (ver < 2)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: key 'looms[%d].segments' (loom %s): segments need "
				 "\"weft_clock\": 2, found version 1",
				 path, i, en->name);
	if (!cJSON_IsArray(segs))
		return weft_fail(e, WEFT_EINPUT,
				 "%s: key 'looms[%d].segments' (loom %s): expected an array, "
				 "found %s",
				 path, i, en->name, json_kind(segs));
	int n = cJSON_GetArraySize(segs);
	struct clock_seg *sg = weft_xcalloc((size_t) n + 1, sizeof(*sg));
	sg[0].map = en->map;
	int k = 1, rc = 0;
	const cJSON *j;
	cJSON_ArrayForEach(j, segs)
	{
		const cJSON *from = cJSON_GetObjectItemCaseSensitive(j, "from_ns");
		const cJSON *off = cJSON_GetObjectItemCaseSensitive(j, "offset_ns");
		const cJSON *dr = cJSON_GetObjectItemCaseSensitive(j, "drift_ppm");
		const cJSON *ref = cJSON_GetObjectItemCaseSensitive(j, "ref_ns");
		int64_t f, o, r = 0;
		double ppt = cJSON_IsNumber(dr) ? dr->valuedouble * (double) CLOCK_PPT_PER_PPM : dr ? NAN : 0;
		const char *what = NULL;
		if (!cJSON_IsObject(j))
			what = "an object";
		else if (get_int(from, &f) || f <= 0 || (uint64_t) f <= sg[k - 1].from)
			what = "'from_ns', a local time after the previous segment's";
		else if (get_int(off, &o))
			what = "'offset_ns', an integer number of ns";
		else if (!(fabs(ppt) <= (double) CLOCK_DRIFT_MAX))
			what = "'drift_ppm', a number of ppm within +-10000";
		else if (ref && (get_int(ref, &r) || r < 0))
			what = "'ref_ns', a non-negative integer number of ns";
		if (what) {
			rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d].segments[%d]' (loom %s): expected %s", path,
				       i, k - 1, en->name, what);
			break;
		}
		sg[k].from = (uint64_t) f;
		sg[k].map.offset = o;
		sg[k].map.drift = llround(ppt);
		sg[k].map.tref = ref ? (uint64_t) r : (uint64_t) f;
		k++;
	}
	if (rc == 0)
		clockfile_set_segs(en, sg, k);
	free(sg);
	return rc;
}

int clockfile_parse_json(struct clock_table *t, const char *text, size_t len, const char *path,
			 struct weft_err *e)
{
	t->form = CLOCK_FORM_WEFT;
	size_t at;
	char why[256];
	if (json_prescan(text, len, &at, why, sizeof(why))) {
		int line = 1;
		for (size_t i = 0; i < at; i++)
			line += text[i] == '\n';
		return weft_fail(e, WEFT_EINPUT, "%s:%d: byte offset %zu: %s", path, line, at, why);
	}
	const char *endp = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &endp, 0);
	if (!root) {
		size_t off = endp && endp >= text ? (size_t) (endp - text) : 0;
		int line = 1;
		for (size_t i = 0; i < off && i < len; i++)
			line += text[i] == '\n';
		return weft_fail(e, WEFT_EINPUT, "%s:%d: not valid JSON (byte offset %zu): expected weft's "
				 "clock file", path, line, off);
	}
	int rc = 0;
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "weft_clock");
	const cJSON *looms = cJSON_GetObjectItemCaseSensitive(root, "looms");
	if (!cJSON_IsObject(root)) {
		rc = weft_fail(e, WEFT_EINPUT, "%s: expected a JSON object, found %s", path, json_kind(root));
	} else if (!cJSON_IsNumber(ver) || (ver->valuedouble != 1 && ver->valuedouble != 2)) {
		rc = weft_fail(e, WEFT_EINPUT,
			       "%s: key 'weft_clock': expected 1 or 2 (the clock file "
			       "version), found %s",
			       path, ver && cJSON_IsNumber(ver) ? "another number" : json_kind(ver));
	} else if (!cJSON_IsArray(looms)) {
		rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms': expected an array, found %s", path, json_kind(looms));
	}
	int i = 0;
	const cJSON *l;
	const cJSON *list = rc ? (const cJSON *) NULL : looms;
	cJSON_ArrayForEach(l, list) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(l, "loom");
		const cJSON *off = cJSON_GetObjectItemCaseSensitive(l, "offset_ns");
		const cJSON *drift = cJSON_GetObjectItemCaseSensitive(l, "drift_ppm");
		const cJSON *ref = cJSON_GetObjectItemCaseSensitive(l, "ref_ns");
		const cJSON *unc = cJSON_GetObjectItemCaseSensitive(l, "uncertainty_ns");
		int64_t v;
		if (!cJSON_IsObject(l)) {
			rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d]': expected an object, found %s", path, i,
				       json_kind(l));
			break;
		}
		if (!cJSON_IsString(name) || !name->valuestring[0]) {
			rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d].loom': expected a loom name, found %s",
				       path, i, json_kind(name));
			break;
		}
		if (clockfile_find(t, name->valuestring, "")) {
			rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d].loom': loom \"%s\" appears twice (first "
				       "in looms[%d])", path, i, name->valuestring,
				       clockfile_find(t, name->valuestring, "")->line);
			break;
		}
		struct clock_entry *en = clockfile_add(t, name->valuestring, 0);
		en->line = i;
		if (get_int(off, &v)) {
			rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d].offset_ns' (loom %s): expected an "
				       "integer number of ns, found %s", path, i, en->name, json_kind(off));
			break;
		}
		en->map.offset = v;
		if (drift) {
			double ppt = cJSON_IsNumber(drift) ? drift->valuedouble * (double) CLOCK_PPT_PER_PPM : NAN;
			if (!(fabs(ppt) <= (double) CLOCK_DRIFT_MAX)) {
				rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d].drift_ppm' (loom %s): expected "
					       "a number of ppm within +-10000, found %s", path, i, en->name,
					       cJSON_IsNumber(drift) ? "a larger number" : json_kind(drift));
				break;
			}
			en->map.drift = llround(ppt);
		}
		if (ref) {
			if (get_int(ref, &v) || v < 0) {
				rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d].ref_ns' (loom %s): expected a "
					       "non-negative integer number of ns (local clock), found %s",
					       path, i, en->name, json_kind(ref));
				break;
			}
			en->map.tref = (uint64_t) v;
		} else if (en->map.drift) {
			rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d]' (loom %s): a drift needs 'ref_ns', "
				       "the local time where the offset holds, found none", path, i, en->name);
			break;
		}
		if (unc) {
			if (!cJSON_IsNumber(unc) || unc->valuedouble < 0) {
				rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms[%d].uncertainty_ns' (loom %s): "
					       "expected a non-negative number, found %s", path, i, en->name,
					       json_kind(unc));
				break;
			}
			en->uncertainty = llround(unc->valuedouble);
		}
		const cJSON *segs = cJSON_GetObjectItemCaseSensitive(l, "segments");
		if (segs && (rc = parse_segs(en, segs, path, i, ver->valuedouble, e)))
			break;
		i++;
	}
	if (rc == 0 && t->n == 0)
		rc = weft_fail(e, WEFT_EINPUT, "%s: key 'looms': expected at least one loom, found none", path);
	cJSON_Delete(root);
	return rc;
}

int clockfile_parse(struct clock_table *t, const char *text, size_t len, const char *path,
		    struct weft_err *e)
{
	memset(t, 0, sizeof(*t));
	t->path = weft_xstrdup(path);
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
		i++;
	int rc = i < len && text[i] == '{' ? clockfile_parse_json(t, text, len, path, e)
					    : ovnisync_parse(t, text, len, path, e);
	if (rc) {
		clockfile_free(t);
		return -1;
	}
	return 0;
}

int clockfile_load(struct clock_table *t, const char *path, struct weft_err *e)
{
	struct mapfile m;
	if (map_open(&m, path, e))
		return -1;
	int rc = clockfile_parse(t, (const char *) m.data, m.size, path, e);
	map_close(&m);
	return rc;
}

/* ---- writing the JSON form ------------------------------------------------------- */

static void put_str(struct strbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char) *s;
		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c < 0x20)
			sb_printf(b, "\\u%04x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

static void put_int(struct strbuf *b, int64_t v)
{
	if (v > -(int64_t) SAFE_INT && v < (int64_t) SAFE_INT)
		sb_printf(b, "%lld", (long long) v);
	else
		sb_printf(b, "\"%lld\"", (long long) v);
}

/* One side of a bound: whole ns (rounded outwards), null when unbounded. */
static void bound_side(struct strbuf *b, double v)
{
	if (isinf(v))
		sb_printf(b, "null");
	else
		put_int(b, (int64_t) (v < 0 ? ceil(v) : floor(v)));
}

int clockfile_write(const struct clock_table *t, const char *path, const char *generator,
		    const int *linked, struct weft_err *e)
{
	struct strbuf b = {0};
	int ver = 1;
	for (int i = 0; i < t->n; i++)
		ver = t->ent[i].nseg > 1 ? 2 : ver;
	sb_printf(&b, "{\n  \"weft_clock\": %d,\n", ver);
	if (generator) {
		sb_printf(&b, "  \"generator\": ");
		put_str(&b, generator);
		sb_printf(&b, ",\n");
	}
	sb_printf(&b, "  \"model\": \"t_global = t_local + offset_ns + drift_ppm/1e6 * (t_local - ref_ns)\",\n");
	sb_printf(&b, "  \"looms\": [");
	for (int i = 0; i < t->n; i++) {
		const struct clock_entry *en = &t->ent[i];
		char ppm[64];
		clock_ppm_str(en->map.drift, ppm, sizeof(ppm));
		sb_printf(&b, "%s\n    {\"loom\": ", i ? "," : "");
		put_str(&b, en->name);
		sb_printf(&b, ", \"offset_ns\": ");
		put_int(&b, en->map.offset);
		sb_printf(&b, ", \"drift_ppm\": %s, \"ref_ns\": ", ppm);
		put_int(&b, (int64_t) en->map.tref);
		if (en->uncertainty >= 0)
			sb_printf(&b, ", \"uncertainty_ns\": %lld", (long long) en->uncertainty);
		if (en->have_bound) {
			sb_printf(&b, ", \"bound_ns\": [");
			bound_side(&b, en->bound_lo);
			sb_printf(&b, ", ");
			bound_side(&b, en->bound_hi);
			sb_printf(&b, "]");
		}
		if (linked)
			sb_printf(&b, ", \"linked\": %s", linked[i] ? "true" : "false");
		if (en->nseg > 1) {
			sb_printf(&b, ",\n     \"segments\": [");
			for (int k = 1; k < en->nseg; k++) {
				const struct clock_seg *g = &en->seg[k];
				clock_ppm_str(g->map.drift, ppm, sizeof(ppm));
				sb_printf(&b, "%s\n      {\"from_ns\": ", k > 1 ? "," : "");
				put_int(&b, (int64_t) g->from);
				sb_printf(&b, ", \"offset_ns\": ");
				put_int(&b, g->map.offset);
				sb_printf(&b, ", \"drift_ppm\": %s, \"ref_ns\": ", ppm);
				put_int(&b, (int64_t) g->map.tref);
				sb_printf(&b, "}");
			}
			sb_printf(&b, "]");
		}
		sb_printf(&b, "}");
	}
	sb_printf(&b, "\n  ]\n}\n");
	int rc = atomic_write(path, b.s, b.len, e);
	sb_free(&b);
	return rc;
}
