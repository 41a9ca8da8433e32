/* SPDX-License-Identifier: GPL-3.0-or-later */
/* require: ovni.require against the models handed in (require.h). */
#include <stdlib.h>
#include <string.h>

#include "require.h"

static int version_parse(const char *v, long t[3])
{
	const char *p = v;
	for (int i = 0; i < 3; i++) {
		char *end;
		if (*p < '0' || *p > '9')
			return -1;
		t[i] = strtol(p, &end, 10);
		if (i < 2 && *end != '.')
			return -1;
		if (i == 2 && *end && *end != '-')
			return -1;
		p = end + 1;
	}
	return 0;
}

int model_version_ok(const char *want, const char *have)
{
	long w[3], h[3];
	if (version_parse(want, w) || version_parse(have, h))
		return 0;
	return w[0] == h[0] && w[1] <= h[1];
}

int model_require(const void *set, const char *path, const char *model, const char *version,
		  struct weft_err *e)
{
	const struct weft_model_def *d = model_set_name(set, model);
	if (!d)
		return 0;
	if (d->version[0] && version && !model_version_ok(version, d->version))
		return weft_fail(e, WEFT_EINPUT,
				 "%s: key 'ovni.require': unsupported %s model version (want %s, have %s): "
				 "expected major %.*s and a minor not above weft's",
				 path, d->name, version, d->version, (int) strcspn(d->version, "."), d->version);
	return d->id;
}

const struct weft_model_def *model_set_id(const struct model_set *s, char id)
{
	for (int i = 0; i < s->n; i++)
		if (s->all[i]->id == id)
			return s->all[i];
	return NULL;
}

const struct weft_model_def *model_set_name(const struct model_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->all[i]->name, name) == 0)
			return s->all[i];
	return NULL;
}
