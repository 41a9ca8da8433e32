/* SPDX-License-Identifier: GPL-3.0-or-later */
/* paraver_out: headers, rows, labels and views of the emulator's output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/mapfile.h"
#include "util/outset.h"
#include "emu/paraver_out.h"
#include "emu/sink.h"
#include "prv/pcfcolors.h"
#include "util/srcdate.h"
#include "util/strbuf.h"
#include "emu/views.h"
#include "util/macros.h"

/* thread.prv's applications: the runs of consecutive processes of one
 * app_id in row order (ovniemu's: loom, then rank or pid), so that the rows
 * keep that order (doc/paraver-output.md). appl[k] is the application of
 * the k-th process in that order, 0-based; returns how many there are. */
static int applications(const struct weft_system *s, int *appl)
{
	int n = 0, k = 0;
	const struct weft_proc *prev = NULL;
	for (int l = 0; l < s->nlooms; l++)
		for (int p = 0; p < s->looms[l]->nprocs; p++) {
			const struct weft_proc *pr = s->looms[l]->procs[p];
			if (!prev || pr->app_id != prev->app_id)
				n++;
			appl[k++] = n - 1;
			prev = pr;
		}
	return n;
}

void paraver_rows(struct emu *e)
{
	struct weft_system *s = &e->tr.sys;
	e->sys.by_row = weft_xcalloc((size_t) e->sys.nth + 1, sizeof(*e->sys.by_row));
	for (int row = 0; row < s->nthreads; row++) {
		struct emu_thread *th = &e->sys.th[s->threads[row]->stream];
		th->row = row;
		e->sys.by_row[row] = th;
	}
}

static void resources(struct emu *e, struct strbuf *b)
{
	struct weft_system *s = &e->tr.sys;
	sb_printf(b, "%d(", s->nlooms);
	for (int l = 0; l < s->nlooms; l++)
		sb_printf(b, "%s%d", l ? "," : "", s->looms[l]->ncpus + 1);
	sb_printf(b, ")");
}

static void thread_header(struct emu *e, struct strbuf *b, uint32_t (*ids)[3])
{
	struct weft_system *s = &e->tr.sys;
	resources(e, b);
	int *appl = weft_xcalloc((size_t) s->nprocs + 1, sizeof(*appl));
	int na = applications(s, appl);
	sb_printf(b, ":%d:", na);
	int row = 0, k = 0, task = 0;
	for (int l = 0; l < s->nlooms; l++)
		for (int p = 0; p < s->looms[l]->nprocs; p++, k++) {
			struct weft_proc *pr = s->looms[l]->procs[p];
			int first = k == 0 || appl[k - 1] != appl[k],
			    last = k + 1 == s->nprocs || appl[k + 1] != appl[k];
			if (first) {
				int ntask = 0;
				while (k + ntask < s->nprocs && appl[k + ntask] == appl[k])
					ntask++;
				sb_printf(b, "%s%d(", k ? "," : "", ntask);
				task = 0;
			}
			sb_printf(b, "%s%d:%d", first ? "" : ",", pr->nthreads, l + 1);
			task++;
			for (int t = 0; t < pr->nthreads; t++, row++) {
				ids[row][0] = (uint32_t) appl[k] + 1;
				ids[row][1] = (uint32_t) task;
				ids[row][2] = (uint32_t) t + 1;
			}
			if (last)
				sb_printf(b, ")");
		}
	free(appl);
}

static void cpu_header(struct emu *e, struct strbuf *b, uint32_t (*ids)[3])
{
	struct weft_system *s = &e->tr.sys;
	resources(e, b);
	sb_printf(b, ":1:%d(", s->nlooms);
	int row = 0;
	for (int l = 0; l < s->nlooms; l++) {
		sb_printf(b, "%s%d:%d", l ? "," : "", s->looms[l]->ncpus + 1, l + 1);
		for (int c = 0; c <= s->looms[l]->ncpus; c++, row++) {
			ids[row][0] = 1;
			ids[row][1] = (uint32_t) l + 1;
			ids[row][2] = (uint32_t) c + 1;
		}
	}
	sb_printf(b, ")");
}

/* The header's date, in UTC (doc/paraver-output.md), never the wall clock:
 * the oldest stream.obs modification time of the inputs that have a date
 * (ovni records no absolute clock; a CHARISMA importer dates its streams by
 * the log's start_date), skipping converted logs with no date of their own
 * (PICL, VisAndOr). No dated input: SOURCE_DATE_EPOCH, else 1970-01-01
 * 00:00. A date later than SOURCE_DATE_EPOCH is clamped to it, as
 * reproducible builds do with file times. */
static int run_date(struct emu *e, char *out, size_t n, struct weft_err *err)
{
	int64_t sde = 0;
	int has_sde = source_date_epoch(&sde, err);
	if (has_sde < 0)
		return -1;
	int64_t oldest = 0;
	int dated = 0;
	for (int i = 0; i < e->tr.nstreams; i++) {
		struct stat st;
		if (trace_input_of(&e->tr, &e->tr.streams[i])->undated)
			continue;
		if (stat(e->tr.streams[i].obs_path, &st) == 0 && (!dated || st.st_mtime < oldest)) {
			oldest = st.st_mtime;
			dated = 1;
		}
	}
	if (!dated)
		oldest = has_sde ? sde : 0;
	if (has_sde && oldest > sde)
		oldest = sde;
	time_t t = (time_t) oldest;
	struct tm tm;
	if (!gmtime_r(&t, &tm) || strftime(out, n, "%d/%m/%Y at %H:%M", &tm) == 0)
		snprintf(out, n, "01/01/1970 at 00:00"); /* a file time past year 9999 */
	return 0;
}

char *paraver_trace_tmp(struct emu *e, const char *name)
{
	char *reg = weft_xasprintf("%s%s", name, e->out.par->gzip ? ".gz" : "");
	const char *p = outset_add(&e->out.par->out, reg);
	free(reg);
	return weft_xasprintf("%.*s", (int) (strlen(p) - (e->out.par->gzip ? 3 : 0)), p);
}

/* The name of every output the run may write, registered with the set (to
 * check them before the emulation; the views that do not fit, not written,
 * go at the commit if an earlier run left them as plain files). */
static void outputs(struct emu *e, struct outset *s)
{
	static const char *const text[] = {"thread.pcf", "cpu.pcf", "thread.row", "cpu.row"};
	for (size_t i = 0; i < ARRAY_SIZE(text); i++)
		outset_add(s, text[i]);
	for (int i = 0; i < weft_cfg_nfiles; i++) {
		char *n = weft_xasprintf("cfg/%s", weft_cfg_files[i].path);
		outset_add(s, n);
		free(n);
	}
	const char *gz = e->out.par->gzip ? ".gz" : "";
	char *t = weft_xasprintf("thread.prv%s", gz), *c = weft_xasprintf("cpu.prv%s", gz);
	outset_add(s, t);
	outset_add(s, c);
	free(t);
	free(c);
	paraver_bd_outputs(e, e->out.par, s);
}

/* The output directory: made if missing, locked, what killed runs left in
 * it removed, and every output name checked before the emulation starts. */
static int prepare_dir(struct emu *e, struct weft_err *err)
{
	struct stat st;
	if (stat(e->out.par->outdir, &st) == 0 && !S_ISDIR(st.st_mode))
		return weft_fail(err, WEFT_EUSAGE, "%s: is an existing file; -o names the output directory",
				 e->out.par->outdir);
	if (outset_open(&e->out.par->out, e->out.par->outdir, err))
		return -1;
	outputs(e, &e->out.par->out);
	if (outset_check(&e->out.par->out, err)) {
		outset_abort(&e->out.par->out);
		return -1;
	}
	return 0;
}

void paraver_row_ids(struct emu *e, int file, uint32_t (*ids)[3])
{
	struct strbuf h = {0};
	if (file == EMU_THREAD_FILE)
		thread_header(e, &h, ids);
	else
		cpu_header(e, &h, ids);
	sb_free(&h);
}

/* begin: the files opened in the order of the records' sets (thread.prv
 * 0, cpu.prv 1, the breakdown traces from 2), before any record comes. */
static int par_begin(struct sink *k, const struct sink_layout *l, struct weft_err *err)
{
	struct paraver_out *po = (struct paraver_out *) k;
	struct emu *e = l->run;
	if (!e || !e->out.pipe)
		return weft_fail(err, WEFT_EINTERNAL, "the Paraver sink was begun without a run");
	po->e = e;
	e->out.par = po;
	for (int f = 0; f < EMU_NFILES; f++)
		if (!(po->type[f] = paraver_slot_types(e, f, err)))
			return -1;
	if (paraver_slot_clash(e, po->type, err))
		return -1;
	char date[64];
	if (run_date(e, date, sizeof(date), err))
		return -1;
	if (prepare_dir(e, err))
		return -1;
	po->open = 1;
	po->files = prv_files_new(e->o.win); /* Paraver cannot load a window's empty body */
	if (!po->files)
		return weft_fail(err, WEFT_EINTERNAL, "%s: no memory for the Paraver files", po->outdir);
	struct strbuf h = {0};
	uint32_t (*ids)[3] = weft_xcalloc((size_t) e->sys.nth + (size_t) e->sys.ncpu + 1, sizeof(*ids));
	thread_header(e, &h, ids);
	char *p = outset_shown(&po->out, "thread.prv"), *tmp = paraver_trace_tmp(e, "thread.prv");
	int rc = prv_open(&po->f[EMU_THREAD_FILE], po->files, p, tmp, date, h.s, e->sys.nth, (const uint32_t(*)[3]) ids,
			  e->out.slots.n[EMU_THREAD_FILE], po->type[EMU_THREAD_FILE], po->gzip, err);
	free(p);
	free(tmp);
	sb_free(&h);
	if (rc == 0) {
		cpu_header(e, &h, ids);
		p = outset_shown(&po->out, "cpu.prv");
		tmp = paraver_trace_tmp(e, "cpu.prv");
		rc = prv_open(&po->f[EMU_CPU_FILE], po->files, p, tmp, date, h.s, e->sys.ncpu,
			      (const uint32_t(*)[3]) ids, e->out.slots.n[EMU_CPU_FILE], po->type[EMU_CPU_FILE],
			      po->gzip, err);
		free(p);
		free(tmp);
		sb_free(&h);
	}
	free(ids);
	for (int f = 0; rc == 0 && f < EMU_NFILES; f++)
		if (po->f[f].id != e->out.prv[f].id || po->f[f].pipe != po->files)
			rc = weft_fail(err, WEFT_EINTERNAL, "%s: the Paraver files are not the first", po->outdir);
	if (rc == 0)
		rc = paraver_bd_open(e, po, date, err);
	for (int f = 0; rc == 0 && f < EMU_NFILES; f++)
		emu_fresh_apply(e, f, &po->f[f]);
	return rc;
}

/* changes: the records are the Paraver writer's ops (their set its file),
 * written in this thread or by the files' own (writers). */
static void par_changes(struct sink *k, const struct sink_change *c, size_t n)
{
	struct paraver_out *po = (struct paraver_out *) k;
	uint64_t at;
	prv_pipe_apply_until(po->files, (const struct prv_op *) c, n, UINT64_MAX, &at);
}

static size_t par_changes_cut(struct sink *k, const struct sink_change *c, size_t n, uint64_t bound, int stop,
			      uint64_t *at)
{
	struct paraver_out *po = (struct paraver_out *) k;
	return prv_pipe_apply_cut(po->files, (const struct prv_op *) c, n, bound, stop, at);
}

static int par_writers(struct sink *k, int on)
{
	struct paraver_out *po = (struct paraver_out *) k;
	if (!po->files)
		return -1;
	if (!on) {
		prv_pipe_unsplit(po->files);
		return 0;
	}
	return prv_pipe_split(po->files);
}

static void value_line(struct strbuf *b, const struct sink_label *l)
{
	sb_i64(b, l->value);
	sb_append(b, " ", 1);
	sb_text(b, l->label); /* labels from models and events: one line each */
	sb_append(b, "\n", 1);
}

/* The EVENT_TYPE blocks of the slots a model declared, in the order of
 * its Paraver table's rows, each row's slots in slot order: its type,
 * title, and value labels, those named while the run went after the
 * declared ones; a sparse slot's only once used; the model's pcf_gap
 * blank lines after each. */
static void slot_block(struct emu *e, int file, int k, int gap, struct strbuf *b)
{
	const struct emu_slots *sl = &e->out.slots;
	const struct emu_slot_decl *d = &sl->decl[file][k];
	if (d->sparse && !d->used)
		return;
	sb_printf(b, "EVENT_TYPE\n0 %d ", (int) e->out.par->type[file][k]);
	sb_text(b, sl->label[file][k] ? sl->label[file][k] : ""); /* a model file's text: one line */
	sb_printf(b, "\n");
	if (d->nlabels || d->nmore)
		sb_printf(b, "VALUES\n");
	for (int i = 0; i < d->nlabels; i++)
		value_line(b, &d->labels[i]);
	for (int i = 0; i < d->nmore; i++)
		value_line(b, &d->more[i]);
	for (int i = 0; i < (gap > 1 ? gap : 1); i++)
		sb_printf(b, "\n");
}

static void declared_blocks(struct emu *e, int file, const struct weft_model_def *def, struct strbuf *b)
{
	const struct emu_slots *sl = &e->out.slots;
	for (int r = 0; r < def->nparaver; r++)
		for (int k = 0; k < sl->n[file]; k++) {
			const struct emu_slot_decl *d = &sl->decl[file][k];
			if (def->paraver[r].set == file && sl->model[file][k] == def->id && d->key &&
			    strcmp(d->key, def->paraver[r].chan) == 0)
				slot_block(e, file, k, def->pcf_gap, b);
		}
	/* then those its table does not number (paraver_slot_types did) */
	for (int k = 0; k < sl->n[file]; k++)
		if (sl->model[file][k] == def->id && sl->decl[file][k].key &&
		    paraver_table_type(e, file, k) == PARAVER_NO_TYPE)
			slot_block(e, file, k, def->pcf_gap, b);
}

static void pcf(struct emu *e, int file, struct strbuf *b)
{
	sb_printf(b, "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
		     "LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
		     "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
		     "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\nSTATES\n");
	/* every model's state values are distinct: one section names them all;
	 * 0 is ovni's "Unknown" in type 4, but a state record of 0 is never
	 * written: it is the gap where a row's model shows no state */
	for (int m = 0; m < e->models.n; m++)
		for (int s = 0; s < e->models.def[m]->hooks->nstates; s++) {
			const struct weft_state_label *l = &e->models.def[m]->hooks->states[s];
			sb_printf(b, "%d %s\n", l->value, l->value ? l->label : EMU_STATE_NONE_LABEL);
		}
	sb_printf(b, "%d Not started\n%d Ended\n", EMU_STATE_NOT_STARTED, EMU_STATE_ENDED);
	sb_printf(b, "\n\n");
	/* a trace of ovni threads: ovniemu's colour table, in which the ovni
	 * model's states take their colours too; other models' states keep
	 * their own (a legacy log alone: those only) */
	int ovni = 0;
	for (int i = 0; i < e->sys.nth && !ovni; i++)
		ovni = emu_owner(e, &e->sys.th[i]) == 'O';
	int n = 0;
	for (int m = 0; m < e->models.n; m++)
		n += e->models.def[m]->hooks->nstates;
	struct pcf_color *own = weft_xcalloc((size_t) n + 2, sizeof(*own));
	n = 0;
	for (int m = 0; m < e->models.n; m++)
		for (int s = 0; s < e->models.def[m]->hooks->nstates && !(ovni && e->models.def[m]->id == 'O'); s++) {
			const struct weft_state_label *l = &e->models.def[m]->hooks->states[s];
			own[n++] = (struct pcf_color){l->value, {l->rgb[0], l->rgb[1], l->rgb[2]}};
		}
	if (!ovni) {
		own[n++] = (struct pcf_color){EMU_STATE_NOT_STARTED, {230, 230, 230}};
		own[n++] = (struct pcf_color){EMU_STATE_ENDED, {90, 90, 90}};
	}
	pcfcolors_section(b, ovni, own, n);
	free(own);
	sb_printf(b, "\n\n");
	for (int m = 0; m < e->models.n; m++)
		declared_blocks(e, file, e->models.def[m], b);
}

static void cpu_row_name(struct strbuf *b, const struct weft_cpu *c)
{
	if (c->is_virtual)
		sb_printf(b, "vCPU %d.* ", c->loom->gindex);
	else
		sb_printf(b, "CPU %d.%lld ", c->loom->gindex, (long long) c->phyid);
	sb_text(b, c->loom->name); /* names from the trace: one line each */
	sb_printf(b, "\n");
}

static void row_file(struct emu *e, int file, struct strbuf *b)
{
	struct weft_system *s = &e->tr.sys;
	sb_printf(b, "LEVEL CPU SIZE %d\n", e->sys.ncpu);
	for (int i = 0; i < e->sys.ncpu; i++)
		cpu_row_name(b, e->sys.cpu[i].sys);
	sb_printf(b, "\nLEVEL NODE SIZE %d\n", s->nlooms);
	for (int l = 0; l < s->nlooms; l++) {
		sb_text(b, s->looms[l]->name);
		sb_printf(b, "\n");
	}
	if (file == EMU_CPU_FILE) {
		sb_printf(b, "\nLEVEL APPL SIZE 1\nCPUs\n\nLEVEL TASK SIZE %d\n", s->nlooms);
		for (int l = 0; l < s->nlooms; l++) {
			sb_text(b, s->looms[l]->name);
			sb_printf(b, "\n");
		}
		sb_printf(b, "\nLEVEL THREAD SIZE %d\n", e->sys.ncpu);
		for (int i = 0; i < e->sys.ncpu; i++)
			cpu_row_name(b, e->sys.cpu[i].sys);
		return;
	}
	int *appl = weft_xcalloc((size_t) s->nprocs + 1, sizeof(*appl));
	int na = applications(s, appl);
	sb_printf(b, "\nLEVEL APPL SIZE %d\n", na);
	for (int l = 0, k = 0; l < s->nlooms; l++)
		for (int p = 0; p < s->looms[l]->nprocs; p++, k++)
			if (k == 0 || appl[k - 1] != appl[k])
				sb_printf(b, "app %lld\n", (long long) s->looms[l]->procs[p]->app_id);
	free(appl);
	sb_printf(b, "\nLEVEL TASK SIZE %d\n", s->nprocs);
	for (int l = 0; l < s->nlooms; l++)
		for (int p = 0; p < s->looms[l]->nprocs; p++) {
			struct weft_proc *pr = s->looms[l]->procs[p];
			if (pr->has_rank)
				sb_printf(b, "rank %lld ", (long long) pr->rank);
			sb_text(b, s->looms[l]->name);
			sb_printf(b, "/%lld\n", (long long) pr->pid);
		}
	sb_printf(b, "\nLEVEL THREAD SIZE %d\n", e->sys.nth);
	for (int r = 0; r < e->sys.nth; r++) {
		const struct weft_thread *t = e->sys.by_row[r]->sys;
		char nm[128];
		if (e->models.thread_name && e->models.thread_name(e, e->sys.by_row[r], nm, (int) sizeof(nm))) {
			sb_text(b, nm);
			sb_printf(b, "\n");
			continue;
		}
		sb_printf(b, "TH %lld.%lld ", (long long) t->proc->app_id, (long long) t->tid);
		sb_text(b, t->proc->loom->name);
		sb_printf(b, "/%lld\n", (long long) t->proc->pid);
	}
}

static int write_text(struct outset *s, const char *name, struct strbuf *b, struct weft_err *err)
{
	int rc = outset_write(s, name, b->s ? b->s : "", b->len, err);
	sb_free(b);
	return rc;
}

/* The labels, row names and the views that fit the run beside the traces
 * (views.h: stale copies of weft's views are removed, other files in cfg/
 * kept). */
static int write_texts(struct emu *e, struct outset *s, struct weft_err *err)
{
	struct strbuf b = {0};
	pcf(e, EMU_THREAD_FILE, &b);
	if (write_text(s, "thread.pcf", &b, err))
		return -1;
	pcf(e, EMU_CPU_FILE, &b);
	if (write_text(s, "cpu.pcf", &b, err))
		return -1;
	row_file(e, EMU_THREAD_FILE, &b);
	if (write_text(s, "thread.row", &b, err))
		return -1;
	row_file(e, EMU_CPU_FILE, &b);
	if (write_text(s, "cpu.row", &b, err))
		return -1;
	if (paraver_bd_texts(e, e->out.par, s, err))
		return -1;
	return views_copy(e, s, err);
}

/* Outputs an earlier run may have left in the same directory that this one
 * does not write and that would mislead (the traces in the other
 * compression, the breakdown trace of a model this run drew no breakdown
 * for): they go at the commit, as views that no longer fit do (views.c). */
static void retire_stale(struct emu *e)
{
	const char *other = e->out.par->gzip ? "" : ".gz";
	static const char *const trace[] = {"thread.prv", "cpu.prv"};
	for (int i = 0; i < 2; i++) {
		char *n = weft_xasprintf("%s%s", trace[i], other);
		outset_retire(&e->out.par->out, n);
		free(n);
	}
	const struct weft_model_def *const *all = e->o.models.all;
	int nall = e->o.models.n;
	for (int m = 0; m < nall; m++) {
		if (!all[m]->hooks || !all[m]->hooks->breakdown || !all[m]->hooks->breakdown(all[m]))
			continue;
		static const char *const ext[] = {".prv", ".prv.gz", ".pcf", ".row"};
		for (int k = 0; k < 4; k++) {
			char *n = weft_xasprintf("%s-breakdown%s", all[m]->name, ext[k]);
			outset_retire(&e->out.par->out, n);
			free(n);
		}
	}
}

/* Nothing but the "Not started" states every row opens with. */
static int nothing_written(const struct prv_back *b)
{
	if (b->nrecords == 0)
		return 1;
	if (b->ncomms || b->state_max != EMU_STATE_NOT_STARTED)
		return 0;
	for (int s = 0; s < b->nslots; s++)
		if (b->range[s].min <= b->range[s].max)
			return 0;
	return 1;
}

/* end(ok): the texts beside the traces, everything into the new
 * generation, then shown at once. The pipe is finished: the backs are
 * ours. */
static int par_close(struct paraver_out *po, uint64_t ftime, struct weft_err *err)
{
	struct emu *e = po->e;
	if (nothing_written(&po->f[EMU_THREAD_FILE].back))
		return weft_fail(err, WEFT_EINPUT,
				 "%s: no Paraver record to write (no event changed any thread): an "
				 "empty trace cannot be loaded by Paraver",
				 e->tr.source ? e->tr.source : e->tr.dir);
	/* the texts first, while the writer's record of what was written
	 * (the views look at it) is still there */
	char *tdone = NULL, *cdone = NULL;
	int rc = write_texts(e, &po->out, err);
	if (rc == 0)
		rc = prv_finish(&po->f[EMU_THREAD_FILE], ftime, &tdone, err);
	if (rc == 0)
		rc = prv_finish(&po->f[EMU_CPU_FILE], ftime, &cdone, err);
	if (rc == 0)
		rc = paraver_bd_finish(e, po, ftime, err);
	free(tdone);
	free(cdone);
	if (rc == 0) {
		retire_stale(e);
		rc = outset_commit(&po->out, err);
	}
	return rc;
}

static int par_end(struct sink *k, int ok, uint64_t ftime, struct weft_err *err)
{
	struct paraver_out *po = (struct paraver_out *) k;
	if (!po->open)
		return 0;
	/* the run's stream is finished: the files go on in this thread */
	prv_files_free(po->files);
	po->files = NULL;
	int rc = ok ? par_close(po, ftime, err) : 0;
	/* what was not finished, and the set when not committed */
	prv_abort(&po->f[EMU_THREAD_FILE]);
	prv_abort(&po->f[EMU_CPU_FILE]);
	paraver_bd_abort(po->e, po);
	if (!ok || rc)
		outset_abort(&po->out);
	po->open = 0;
	return rc;
}

static void par_free(struct sink *k)
{
	struct paraver_out *po = k->self;
	prv_files_free(po->files); /* begun, never ended */
	for (int f = 0; f < EMU_NFILES; f++)
		free(po->type[f]);
	paraver_bd_free(po);
	free(k->self); /* the run is gone (emu_free): never look at it */
}

struct sink *paraver_sink_new(const char *outdir, int gzip)
{
	struct paraver_out *po = weft_xcalloc(1, sizeof(*po));
	po->outdir = outdir;
	po->gzip = gzip;
	po->sink = (struct sink){
		.name = "paraver",
		.self = po,
		.slices = 1,
		.breakdown = 1,
		.begin = par_begin,
		.changes = par_changes,
		.end = par_end,
		.free = par_free,
		.writers = par_writers,
		.changes_cut = par_changes_cut,
	};
	return &po->sink;
}

/* The emulator's change records reach the Paraver writer as its ops. */
_Static_assert(sizeof(struct sink_change) == sizeof(struct prv_op), "sink_change is a prv_op");
#define SAME_KIND(a, b) ((int) SINK_CH_##a == (int) PRV_OP_##b)
_Static_assert(SAME_KIND(TIME, TIME) && SAME_KIND(CPU, CPU) && SAME_KIND(STATE, STATE) && SAME_KIND(SET, EVENT) &&
		       SAME_KIND(PUT, PUNCT) && SAME_KIND(ARG, ARG) && SAME_KIND(SEND, COMM_SEND) &&
		       SAME_KIND(SEND_ARGS, COMM_SEND_ARGS) && SAME_KIND(PSEND, COMM_PSEND) &&
		       SAME_KIND(RECV, COMM_RECV) && SAME_KIND(RECV_ARGS, COMM_RECV_ARGS) && SAME_KIND(DROP, COMM_DROP),
	       "sink record kinds are the Paraver writer's op numbers");
#undef SAME_KIND
