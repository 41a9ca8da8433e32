/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_each: the members of a channel group (`each KEY FIELD`, e.g.
 * nOS-V's hardware counters, nosv.hwc): read from the threads' stream.json
 * keys (kept by metadata.c, flattened). A thread that has the object names
 * entries "0".."n-1", each an object with the string FIELD; every thread
 * that has a non-empty one must name the same n entries with the same
 * labels (ovniemu's rules); threads without it add nothing. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

#define EACH_MAX 100 /* Paraver types TYPE .. TYPE+99, as ovniemu */

/* The index an entry key "KEY.<digits>" names, or -1 when it is not a
 * direct entry of KEY. */
static int entry_index(const char *key, size_t klen, const char *k, int *bad)
{
	*bad = 0;
	if (strncmp(k, key, klen) != 0 || k[klen] != '.')
		return -1;
	const char *s = k + klen + 1;
	if (strchr(s, '.'))
		return -1; /* deeper: a field of an entry */
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || v >= EACH_MAX) {
		*bad = 1;
		return -1;
	}
	return (int) v;
}

int engine_each_names(struct emu *e, const struct mf_model *m, const struct mf_chan *c, char ***names, int *n,
		      struct weft_err *err)
{
	size_t klen = strlen(c->each_key);
	char **nm = NULL;
	int have = 0;
	for (int i = 0; i < e->sys.nth; i++) {
		const struct weft_thread *t = e->sys.th[i].sys;
		const char *path = e->tr.streams[i].json_path;
		const struct weft_meta_kv *obj = meta_kv_find(t->kv, t->nkv, c->each_key);
		if (!obj)
			continue;
		if (obj->kind != WEFT_KV_OBJECT) {
			weft_fail(err, WEFT_EINPUT,
				  "%s: key '%s': expected an object (the %s.%s channels), found "
				  "another kind",
				  path, c->each_key, m->def.name, c->name);
			goto fail;
		}
		int cnt = 0;
		for (int k = 0; k < t->nkv; k++) {
			int bad, x = entry_index(c->each_key, klen, t->kv[k].key, &bad);
			if (bad) {
				weft_fail(err, WEFT_EINPUT, "%s: key '%s': expected an index from 0 to %d", path,
					  t->kv[k].key, EACH_MAX - 1);
				goto fail;
			}
			cnt += x >= 0;
		}
		if (cnt == 0)
			continue; /* an empty object: ignored, as ovniemu */
		if (!nm) {
			have = cnt;
			nm = weft_xcalloc((size_t) have, sizeof(*nm));
		} else if (cnt != have) {
			weft_fail(err, WEFT_EINPUT, "%s: key '%s': %d entries, but another thread declares %d", path,
				  c->each_key, cnt, have);
			goto fail;
		}
		for (int k = 0; k < t->nkv; k++) {
			int bad, x = entry_index(c->each_key, klen, t->kv[k].key, &bad);
			if (x < 0)
				continue;
			if (x >= have) {
				weft_fail(err, WEFT_EINPUT,
					  "%s: key '%s': expected an index below %d (the number of "
					  "entries)",
					  path, t->kv[k].key, have);
				goto fail;
			}
			char *fk = weft_xasprintf("%s.%s", t->kv[k].key, c->each_field);
			const struct weft_meta_kv *f = meta_kv_find(t->kv, t->nkv, fk);
			if (!f || f->kind != WEFT_KV_STR) {
				weft_fail(err, WEFT_EINPUT, "%s: key '%s': expected a string", path, fk);
				free(fk);
				goto fail;
			}
			free(fk);
			if (!nm[x])
				nm[x] = weft_xstrdup(f->s);
			else if (strcmp(nm[x], f->s) != 0) {
				weft_fail(err, WEFT_EINPUT, "%s: key '%s': '%s', but another thread names it '%s'",
					  path, t->kv[k].key, f->s, nm[x]);
				goto fail;
			}
		}
	}
	*names = nm;
	*n = have;
	return 0;
fail:
	for (int i = 0; nm && i < have; i++)
		free(nm[i]);
	free(nm);
	return -1;
}
