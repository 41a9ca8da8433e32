/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slices: time slices of the Paraver bodies, written apart and joined
 * (slices.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/paraver_out.h"
#include "emu/share.h"
#include "par/slices.h"

int slices_ok(const struct emu *e)
{
	if (e->o.win || e->o.breakdown)
		return 0;
	for (int m = 0; m < e->models.n; m++)
		if (!e->models.def[m]->hooks->par || !e->models.def[m]->hooks->par->sliceable)
			return 0; /* its communications and texts are paired by one merger */
	return 1;
}

uint64_t slice_start(uint64_t tmax, int k, int n)
{
	if (k <= 0)
		return 0;
	if (k >= n)
		return UINT64_MAX;
	return (uint64_t) ((unsigned __int128) tmax * (unsigned) k / (unsigned) n) + 1;
}

/* The sink of a slice: ops before `from` replayed without writing, then
 * written through the pipe's part files. */
struct slice_sink {
	struct prv_pipe *p;
	uint64_t from;
	int loud;
};

static size_t slice_put(void *arg, const struct prv_op *ops, size_t n, uint64_t bound, uint64_t *at)
{
	struct slice_sink *s = arg;
	size_t k = 0;
	if (!s->loud) {
		k = prv_pipe_skip_until(s->p, ops, n, bound < s->from ? bound : s->from, at);
		if (k == n || (uint64_t) ops[k].value >= bound)
			return k; /* the bound came first, or no TIME op stopped it */
		s->loud = 1; /* ops[k]: the slice's first instant */
	}
	return k + prv_pipe_apply_until(s->p, ops + k, n - k, bound, at);
}

static int save_info(const char *path, const struct prv_part_info info[2], struct weft_err *err)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return weft_out_fail(err, errno, "%s: cannot create", path);
	for (int k = 0; k < 2; k++) {
		const struct prv_part_info *i = &info[k];
		fwrite(i, sizeof(*i), 1, f);
		if (i->nslots) /* an empty array may be NULL: fwrite wants a pointer */
			fwrite(i->range, sizeof(*i->range), (size_t) i->nslots, f);
		if (i->nopen)
			fwrite(i->open, sizeof(*i->open), i->nopen, f);
		if (i->ncarry)
			fwrite(i->carry, sizeof(*i->carry), i->ncarry, f);
	}
	if (ferror(f) | fclose(f))
		return weft_out_fail(err, errno, "%s: cannot write", path);
	return 0;
}

static int load_info(const char *path, struct prv_part_info info[2], struct weft_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return weft_out_fail(err, errno, "%s: a slice's information", path);
	int ok = 1;
	for (int k = 0; k < 2 && ok; k++) {
		struct prv_part_info *i = &info[k];
		ok = fread(i, sizeof(*i), 1, f) == 1;
		i->range = ok ? weft_xcalloc((size_t) i->nslots + 1, sizeof(*i->range)) : NULL;
		i->open = ok ? weft_xcalloc(i->nopen + 1, sizeof(*i->open)) : NULL;
		i->carry = ok ? weft_xcalloc(i->ncarry + 1, sizeof(*i->carry)) : NULL;
		ok = ok && fread(i->range, sizeof(*i->range), (size_t) i->nslots, f) == (size_t) i->nslots;
		ok = ok && fread(i->open, sizeof(*i->open), i->nopen, f) == i->nopen;
		ok = ok && fread(i->carry, sizeof(*i->carry), i->ncarry, f) == i->ncarry;
	}
	fclose(f);
	if (!ok)
		return weft_fail(err, WEFT_EINTERNAL, "%s: a slice's information is cut short", path);
	return 0;
}

int slice_write(struct emu *e, struct job *jobs, int n, uint64_t from, uint64_t to, const char *const parts[2],
		const char *info_path, struct weft_err *err)
{
	struct prv_pipe *p = prv_ring_new();
	struct prv_file f[2];
	memset(f, 0, sizeof(f));
	int nrows[2] = {emu_share_nrows(e, EMU_THREAD_FILE), emu_share_nrows(e, EMU_CPU_FILE)}, rc = 0, opened = 0;
	for (int k = 0; k < 2 && rc == 0; k++) {
		uint32_t(*ids)[3] = weft_xcalloc((size_t) nrows[k] + 1, sizeof(*ids));
		paraver_row_ids(e, k, ids);
		int32_t *types = paraver_slot_types(e, k, err);
		rc = types ? prv_part_open(&f[k], p, parts[k], nrows[k], (const uint32_t(*)[3]) ids, e->out.slots.n[k],
					   types, err)
			   : -1;
		free(types);
		free(ids);
		if (rc == 0)
			emu_fresh_apply(e, k, &f[k]);
		opened += rc == 0;
	}
	/* as the main run's back after its first ops: each CPU row names its CPU */
	for (int i = 0; rc == 0 && i < nrows[EMU_CPU_FILE]; i++)
		f[EMU_CPU_FILE].back.rows[i].cpu = (uint32_t) i + 1;
	struct slice_sink s = {p, from, from == 0};
	struct jobs_sink sink = {slice_put, &s, 0, to};
	if (rc == 0)
		rc = jobs_merge(jobs, n, &sink, NULL, NULL, err);
	struct prv_part_info info[2];
	memset(info, 0, sizeof(info));
	for (int k = 0; k < opened; k++)
		if (rc == 0)
			rc = prv_part_close(&f[k], &info[k], err);
		else
			prv_abort(&f[k]);
	if (rc == 0)
		rc = save_info(info_path, info, err);
	prv_part_info_free(&info[0]);
	prv_part_info_free(&info[1]);
	prv_ring_free(p);
	return rc;
}

int slices_join(struct emu *e, const char *const *tparts, const char *const *cparts, const char *const *infos, int n,
		uint64_t ftime, struct weft_err *err)
{
	struct prv_part_info *in = weft_xcalloc((size_t) n * 2 + 1, sizeof(*in));
	struct prv_part_info *t = weft_xcalloc((size_t) n + 1, sizeof(*t)),
			     *c = weft_xcalloc((size_t) n + 1, sizeof(*c));
	int rc = 0;
	for (int k = 0; k < n && rc == 0; k++) {
		rc = load_info(infos[k], &in[2 * k], err);
		t[k] = in[2 * k];
		c[k] = in[2 * k + 1];
	}
	if (rc == 0)
		rc = prv_join(&e->out.par->f[EMU_THREAD_FILE], tparts, t, n, ftime, err);
	if (rc == 0)
		rc = prv_join(&e->out.par->f[EMU_CPU_FILE], cparts, c, n, ftime, err);
	for (int k = 0; k < 2 * n; k++)
		prv_part_info_free(&in[k]);
	free(in);
	free(t);
	free(c);
	return rc;
}
