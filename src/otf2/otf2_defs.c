/* SPDX-License-Identifier: GPL-3.0-or-later */
/* otf2_defs: the OTF2 sink's end: the definitions (strings, the system
 * tree, location groups, locations, regions, metrics, the communicator,
 * the clock) written once every event is, and the archive's files handed
 * to the output set. */
#include "otf2/otf2_int.h"

#ifdef WEFT_OTF2
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* the names every definition refers to, made before the strings are written */
struct o2_names {
	uint32_t machine, node_class, machine_class, comm, empty;
	uint32_t *loom, *group, *loc;
	uint32_t (*region)[3]; /* name, canonical name, description */
	uint32_t (*metric)[2]; /* name, description */
};

static const char *o2_label(const struct sink_label *l, int n, int64_t v)
{
	for (int i = 0; i < n; i++)
		if (l[i].value == v)
			return l[i].label;
	return NULL;
}

static void o2_region_names(struct o2 *o, struct o2_names *nm)
{
	struct o2_region *r;
	nm->region = weft_xcalloc(o->nregions ? o->nregions : 1, sizeof(*nm->region));
	for (r = o->regions; r; r = r->hh.next) {
		const struct sink_rowset *rs = &o->lay->set[r->k.set];
		const char *cname = "state", *title = "the row's state", *label;
		if (r->k.chan < 0) {
			label = o2_label(rs->state_labels, rs->nstate_labels, r->k.value);
		} else {
			const struct sink_channel *ch = &rs->channels[r->k.chan];
			cname = ch->name;
			title = ch->title ? ch->title : ch->name;
			label = o2_label(ch->labels, ch->nlabels, r->k.value);
		}
		char *canon = weft_xasprintf("%s=%lld", cname, (long long) r->k.value);
		char *fallback = weft_xasprintf("%s %lld", cname, (long long) r->k.value);
		nm->region[r->ref][0] = o2_string(o, label ? label : fallback);
		nm->region[r->ref][1] = o2_string(o, canon);
		nm->region[r->ref][2] = o2_string(o, title);
		free(canon);
		free(fallback);
	}
}

static void o2_names_make(struct o2 *o, struct o2_names *nm)
{
	const struct sink_layout *l = o->lay;
	nm->empty = o2_string(o, "");
	nm->machine = o2_string(o, "machine");
	nm->machine_class = o2_string(o, "machine");
	nm->node_class = o2_string(o, "node");
	nm->comm = o2_string(o, "weft messages");
	nm->loom = weft_xcalloc(l->nlooms + 1, sizeof(*nm->loom));
	for (int i = 0; i < l->nlooms; i++)
		nm->loom[i] = o2_string(o, l->looms[i].name);
	nm->group = weft_xcalloc(l->nprocs + l->nlooms + 1, sizeof(*nm->group));
	for (int i = 0; i < l->nprocs; i++) {
		const struct sink_proc *p = &l->procs[i];
		char *s = p->rank >= 0 ? weft_xasprintf("rank %d (pid %lld)", p->rank, (long long) p->pid)
				       : weft_xasprintf("process %lld", (long long) p->pid);
		nm->group[i] = o2_string(o, s);
		free(s);
	}
	for (int i = 0; i < l->nlooms; i++) {
		char *s = weft_xasprintf("CPUs of %s", l->looms[i].name);
		nm->group[l->nprocs + i] = o2_string(o, s);
		free(s);
	}
	nm->loc = weft_xcalloc(o->nlocs + 1, sizeof(*nm->loc));
	for (uint32_t i = 0; i < o->nlocs; i++) {
		const struct o2_loc *x = &o->locs[i];
		const struct sink_rowset *rs = &l->set[x->set];
		const char *row = rs->rows[x->row].name;
		char *s = x->chan < 0 ? weft_xstrdup(row) : weft_xasprintf("%s / %s", row, rs->channels[x->chan].name);
		nm->loc[i] = o2_string(o, s);
		free(s);
	}
	o2_region_names(o, nm);
	nm->metric = weft_xcalloc(o->nmetrics + 1, sizeof(*nm->metric));
	for (uint32_t i = 0; i < o->nmetrics; i++) {
		const struct sink_channel *ch = &l->set[o->metric_of[i].set].channels[o->metric_of[i].chan];
		nm->metric[i][0] = o2_string(o, ch->name);
		nm->metric[i][1] = o2_string(o, ch->title ? ch->title : ch->name);
	}
}

static void o2_names_free(struct o2_names *nm)
{
	free(nm->loom);
	free(nm->group);
	free(nm->loc);
	free(nm->region);
	free(nm->metric);
}

/* the location group of a location: its process, or its loom's CPUs */
static uint32_t o2_group_of(const struct o2 *o, const struct o2_loc *x)
{
	const struct sink_row *r = &o->lay->set[x->set].rows[x->row];
	if (x->set == SINK_THREADS && r->proc >= 0)
		return (uint32_t) r->proc;
	return (uint32_t) (o->lay->nprocs + (r->loom >= 0 ? r->loom : 0));
}

static void o2_write_tree(struct o2 *o, OTF2_GlobalDefWriter *g, const struct o2_names *nm, const uint64_t *nev)
{
	const struct sink_layout *l = o->lay;
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, nm->machine, nm->machine_class, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (int i = 0; i < l->nlooms; i++)
		OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1 + i, nm->loom[i], nm->node_class, 0);
	for (int i = 0; i < l->nprocs; i++)
		OTF2_GlobalDefWriter_WriteLocationGroup(g, i, nm->group[i], OTF2_LOCATION_GROUP_TYPE_PROCESS,
							1 + l->procs[i].loom, OTF2_UNDEFINED_LOCATION_GROUP);
	for (int i = 0; i < l->nlooms; i++)
		OTF2_GlobalDefWriter_WriteLocationGroup(g, l->nprocs + i, nm->group[l->nprocs + i],
							OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + i,
							OTF2_UNDEFINED_LOCATION_GROUP);
	for (uint32_t i = 0; i < o->nlocs; i++)
		OTF2_GlobalDefWriter_WriteLocation(g, i, nm->loc[i], OTF2_LOCATION_TYPE_CPU_THREAD, nev[i],
						   o2_group_of(o, &o->locs[i]));
}

static void o2_write_things(struct o2 *o, OTF2_GlobalDefWriter *g, const struct o2_names *nm)
{
	for (uint32_t i = 0; i < o->nregions; i++)
		OTF2_GlobalDefWriter_WriteRegion(g, i, nm->region[i][0], nm->region[i][1], nm->region[i][2],
						 OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
						 OTF2_UNDEFINED_STRING, 0, 0);
	for (uint32_t i = 0; i < o->nmetrics; i++) {
		OTF2_MetricMemberRef m = i;
		OTF2_GlobalDefWriter_WriteMetricMember(g, i, nm->metric[i][0], nm->metric[i][1], OTF2_METRIC_TYPE_USER,
						       OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_INT64, OTF2_BASE_DECIMAL,
						       0, nm->empty);
		OTF2_GlobalDefWriter_WriteMetricClass(g, i, 1, &m, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_CPU);
	}
	uint32_t n = (uint32_t) o->set[SINK_THREADS].nrows;
	if (!n)
		return;
	uint64_t *members = weft_xcalloc(n, sizeof(*members));
	for (uint32_t i = 0; i < n; i++)
		members[i] = i; /* thread row i: location i, rank i */
	OTF2_GlobalDefWriter_WriteGroup(g, 0, nm->empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, n, members);
	OTF2_GlobalDefWriter_WriteGroup(g, 1, nm->empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
					OTF2_GROUP_FLAG_NONE, n, members);
	OTF2_GlobalDefWriter_WriteComm(g, 0, nm->comm, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	free(members);
}

static int o2_close_events(struct o2 *o, uint64_t *nev)
{
	for (uint32_t i = 0; i < o->nlocs; i++) {
		struct o2_loc *x = &o->locs[i];
		if (!x->w)
			continue;
		OTF2_EvtWriter_GetNumberOfEvents(x->w, &nev[i]);
		if (OTF2_Archive_CloseEvtWriter(o->archive, x->w) != OTF2_SUCCESS && !o->failed)
			o2_fail(o, "cannot close the events of location %u", i);
		x->w = NULL;
	}
	if (OTF2_Archive_CloseEvtFiles(o->archive) != OTF2_SUCCESS && !o->failed)
		o2_fail(o, "cannot close the event files");
	if (OTF2_Archive_OpenDefFiles(o->archive) != OTF2_SUCCESS && !o->failed)
		o2_fail(o, "cannot open the definition files");
	for (uint32_t i = 0; i < o->nlocs && !o->failed; i++) {
		OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(o->archive, i);
		if (!d || OTF2_Archive_CloseDefWriter(o->archive, d) != OTF2_SUCCESS)
			o2_fail(o, "cannot write the definitions of location %u", i);
	}
	if (!o->failed && OTF2_Archive_CloseDefFiles(o->archive) != OTF2_SUCCESS)
		o2_fail(o, "cannot close the definition files");
	return o->failed ? -1 : 0;
}

int o2_defs(struct o2 *o)
{
	uint64_t *nev = weft_xcalloc(o->nlocs + 1, sizeof(*nev));
	struct o2_names nm = {0};
	if (o2_close_events(o, nev) < 0) {
		free(nev);
		return -1;
	}
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(o->archive);
	if (!g) {
		free(nev);
		o2_fail(o, "cannot open the global definitions");
		return -1;
	}
	o2_names_make(o, &nm);
	OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, o->ftime + 1, OTF2_UNDEFINED_TIMESTAMP);
	for (struct o2_str *x = o->strs; x; x = x->hh.next)
		OTF2_GlobalDefWriter_WriteString(g, x->ref, x->text);
	o2_write_tree(o, g, &nm, nev);
	o2_write_things(o, g, &nm);
	o2_names_free(&nm);
	free(nev);
	OTF2_ErrorCode rc = OTF2_Archive_Close(o->archive);
	o->archive = NULL;
	if (rc != OTF2_SUCCESS) {
		o2_fail(o, "cannot close the archive: %s", OTF2_Error_GetDescription(rc));
		return -1;
	}
	return 0;
}

int o2_files(struct o2 *o, struct weft_err *err)
{
	char *stage = weft_xstrdup(outset_add(&o->out, O2_ARCHIVE ".otf2"));
	*strrchr(stage, '/') = '\0';
	outset_add(&o->out, O2_ARCHIVE ".def");
	char *sub = weft_xasprintf("%s/%s", stage, O2_ARCHIVE);
	DIR *d = opendir(sub);
	if (!d) {
		weft_fail(err, WEFT_EINTERNAL, "%s: the OTF2 archive has no %s/ folder", o->out.dir, O2_ARCHIVE);
		free(sub);
		free(stage);
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			char *name = weft_xasprintf("%s/%s", O2_ARCHIVE, de->d_name);
			outset_add(&o->out, name);
			free(name);
		}
	closedir(d);
	free(sub);
	free(stage);
	return 0;
}
#endif
