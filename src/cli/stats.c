/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats: per thread, the time and count of every state of every emulated
 * model and the time, count and bytes of the operations models count (also
 * within context operations such as PICL user events), as an aligned table
 * or JSON; figures the trace states about itself (PICL statistics records)
 * beside what weft measured, with a verdict. Built on the emulator through
 * its accounting hooks (src/stats/acct.h); no Paraver output is written. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/acct.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "emu/emu.h"
#include "model.h"
#include "util/outbuf.h"
#include "util/strbuf.h"

/* What the command line asked for. */
struct stats_cmd {
	struct emu_opts o;
	int json;
	int first; /* argv[first]: TRACE */
};

static int opt_quiet(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct emu_opts *o = dst;
	(void) cmd, (void) row, (void) arg;
	o->quiet = o->imp.quiet = 1;
	return 0;
}

#define K struct stats_cmd
static const struct opt stats_opts[] = {
	OPT_FLAG("json", 0, K, json, "one JSON document instead of the tables (times in ns)"),
	OPT_STRING("clock", 'c', "FILE", K, o.clock_file, "clock file: weft's (weft sync) or an ovnisync table"),
	OPT_FLAG("keep-going", 'k', K, o.keep_going, "report model errors as warnings, skip the event, go on"),
	OPT_CALL("quiet", 'q', NULL, K, o, opt_quiet, "no warnings"),
	OPT_FLAG("salvage", 0, K, o.salvage,
		 "read a stream cut mid-event up to its last whole event\n"
		 "and say on stderr what is dropped (as weft emu --salvage;\n"
		 "-q: not said)"),
	OPT_IMPORT_ROWS(K, o.imp),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd stats_cmdline = {
	.name = "stats",
	.synopsis = "[OPTIONS] TRACE",
	.about = "Emulate TRACE (an ovni trace directory, or a legacy log that weft imports)\n"
		 "and print, per thread: the time and number of entries of each state of each\n"
		 "emulated model; the time, count and bytes of each operation the models count\n"
		 "(PICL event types, file I/O requests), also within each PICL user event; and,\n"
		 "when the trace states statistics about itself (PICL -101/-102/-103 records),\n"
		 "each stated value beside weft's measure: equal, rounding (a difference within\n"
		 "the resolution of the stated value and of the timestamps), DIFFERS, or not\n"
		 "measured (with the reason).\n",
	.opts = stats_opts,
	.more = "Exit status: 0 ok (also when stated and measured values differ), 1 bad input\n"
		"or model error, 2 usage, 3 internal error.\n",
};

/* ---- numbers --------------------------------------------------------------- */

/* Seconds with at least `dec` decimals, more when needed to be exact. */
static void secs(char *buf, int64_t ns, int dec)
{
	int64_t unit = 1;
	for (int k = dec; k < 9; k++)
		unit *= 10;
	while (dec < 9 && ns % unit != 0)
		dec++, unit /= 10;
	size_t n = fmt_fixed(buf, ns / unit, dec);
	buf[n] = 0;
}

static int unit_decimals(int64_t unit_ns)
{
	int d = 9;
	while (unit_ns >= 10 && d > 0)
		unit_ns /= 10, d--;
	return d;
}

static void thread_name(const struct emu *e, int i, char *buf, size_t n)
{
	const struct weft_thread *t = e->sys.th[i].sys;
	snprintf(buf, n, "%s/%lld/%lld", t->proc->loom->name, (long long) t->proc->pid, (long long) t->tid);
}

/* Where a claim was stated: its thread, or the rows it sums over. */
static void claim_where(const struct emu *e, const struct acct_claim *cl, char *buf, size_t n)
{
	if (cl->c.threads)
		snprintf(buf, n, "%s (%d row%s)", cl->c.scope ? cl->c.scope : "rows", cl->c.nthreads,
			 cl->c.nthreads == 1 ? "" : "s");
	else
		thread_name(e, cl->thread, buf, n);
}

static const char *model_name(const struct acct *a, char id)
{
	const struct weft_model_def *d = evtable_model(&a->e->tab, id);
	return d ? d->name : "?";
}

/* A thread's state rows worth showing, in model order: the model names the
 * value, and it is not a model's initial 0 never left. Returns the count;
 * free *out. */
static int shown_states(const struct acct *a, int thread, const struct acct_state ***out)
{
	const struct acct_thread *x = &a->th[thread];
	const struct acct_state **v = weft_xcalloc((size_t) x->nst + 1, sizeof(*v));
	int n = 0;
	for (int m = 0; m < a->e->models.n; m++)
		for (int s = 0; s < x->nst; s++) {
			const struct acct_state *st = &x->st[s];
			if (st->model == a->e->models.def[m]->id && acct_state_label(a, st->model, st->value) &&
			    (st->ns || st->count > 1 || st->value != 0))
				v[n++] = st;
		}
	*out = v;
	return n;
}

/* ---- aligned tables -------------------------------------------------------- */

#define MAXCOL 9

struct table {
	char **cell; /* row-major, ncol per row */
	int nrow, cap, ncol;
	unsigned right; /* bit per right-aligned column */
};

static void t_add(struct table *t, const char *const *cells)
{
	if (t->nrow == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->cell = weft_xrealloc(t->cell, (size_t) t->cap * (size_t) t->ncol * sizeof(char *));
	}
	for (int c = 0; c < t->ncol; c++)
		t->cell[t->nrow * t->ncol + c] = weft_xstrdup(cells[c]);
	t->nrow++;
}

static void t_print(struct table *t)
{
	int w[MAXCOL] = {0};
	for (int r = 0; r < t->nrow; r++)
		for (int c = 0; c < t->ncol; c++) {
			int l = (int) strlen(t->cell[r * t->ncol + c]);
			if (l > w[c])
				w[c] = l;
		}
	struct strbuf line = {0};
	for (int r = 0; r < t->nrow; r++) {
		line.len = 0;
		for (int c = 0; c < t->ncol; c++) {
			const char *s = t->cell[r * t->ncol + c];
			if (t->right >> c & 1)
				sb_printf(&line, "%*s  ", w[c], s);
			else
				sb_printf(&line, "%-*s  ", w[c], s);
		}
		while (line.len && line.s[line.len - 1] == ' ')
			line.s[--line.len] = 0;
		printf("%s\n", line.s);
	}
	sb_free(&line);
	for (int i = 0; i < t->nrow * t->ncol; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof(*t));
}

/* ---- rows ------------------------------------------------------------------- */

static void op_label(const struct acct *a, int thread, char model, int32_t op, char *buf, size_t n)
{
	char nm[128];
	acct_op_name(a, thread, model, op, nm, (int) sizeof(nm));
	snprintf(buf, n, "%s [%d]", nm, op);
}

static void print_tables(const struct acct *a, const char *trace)
{
	const struct emu *e = a->e;
	char end[48];
	secs(end, (int64_t) a->end, 6);
	printf("weft stats: %s: %d threads, %s s\n\n", trace, e->sys.nth, end);
	struct table t = {.ncol = 8, .right = 0xe0};
	const char *head[] = {"THREAD", "MODEL", "KIND", "WITHIN", "NAME", "TIME (s)", "COUNT", "BYTES"};
	t_add(&t, head);
	for (int r = 0; r < e->sys.nth; r++) {
		int i = (int) (e->sys.by_row[r] - e->sys.th);
		char th[160], tm[48], cnt[32], by[32], name[200], ctx[200];
		thread_name(e, i, th, sizeof(th));
		const struct acct_state **sts;
		int nst = shown_states(a, i, &sts);
		for (int k = 0; k < nst; k++) {
			secs(tm, (int64_t) sts[k]->ns, 9);
			snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long) sts[k]->count);
			const char *row[] = {th,
					     model_name(a, sts[k]->model),
					     "state",
					     "-",
					     acct_state_label(a, sts[k]->model, sts[k]->value),
					     tm,
					     cnt,
					     "-"};
			t_add(&t, row);
		}
		free(sts);
		struct acct_op **ops;
		int n = acct_sorted_ops(a, i, &ops);
		for (int k = 0; k < n; k++) {
			const struct acct_op *o = ops[k];
			op_label(a, i, o->k.model, o->k.op, name, sizeof(name));
			if (o->k.ctx_model)
				op_label(a, i, o->k.ctx_model, o->k.ctx, ctx, sizeof(ctx));
			else
				snprintf(ctx, sizeof(ctx), "-");
			secs(tm, (int64_t) o->ns, 9);
			snprintf(cnt, sizeof(cnt), "%lld", (long long) o->count);
			if (o->has_bytes)
				snprintf(by, sizeof(by), "%lld", (long long) o->bytes);
			else
				snprintf(by, sizeof(by), "-");
			const char *row[] = {th, model_name(a, o->k.model), "op", ctx, name, tm, cnt, by};
			t_add(&t, row);
		}
		free(ops);
	}
	t_print(&t);
	if (!a->nclaims)
		return;
	printf("\nStatistics the trace states about itself, beside weft's measure:\n");
	struct table c = {.ncol = 9, .right = 0x70};
	const char *chead[] = {"THREAD", "RECORD", "WITHIN", "EVENT", "STATED", "MEASURED", "DIFFERENCE",
			       "VERDICT", "WHY"};
	t_add(&c, chead);
	int nv[4] = {0};
	for (int k = 0; k < a->nclaims; k++) {
		const struct acct_claim *cl = &a->claims[k];
		char th[160], rec[16], ctx[200], name[200], st[64], me[64], df[64], why[200];
		claim_where(e, cl, th, sizeof(th));
		snprintf(rec, sizeof(rec), "%d", cl->c.record);
		if (cl->c.ctx_model)
			op_label(a, cl->thread, cl->c.ctx_model, cl->c.ctx, ctx, sizeof(ctx));
		else
			snprintf(ctx, sizeof(ctx), "%d", cl->c.ctx);
		op_label(a, cl->thread, cl->c.model, cl->c.op, name, sizeof(name));
		int unmeasured = cl->verdict == AV_UNMEASURED;
		if (cl->c.what == EMU_CLAIM_TIME) {
			int d = unit_decimals(cl->c.unit_ns);
			secs(st, cl->c.value, d);
			strcat(st, " s");
			secs(me, cl->measured, d);
			strcat(me, " s");
			df[0] = cl->diff > 0 ? '+' : 0;
			secs(df + (cl->diff > 0), cl->diff, d);
			strcat(df, " s");
		} else {
			snprintf(st, sizeof(st), "%lld", (long long) cl->c.value);
			snprintf(me, sizeof(me), "%lld", (long long) cl->measured);
			snprintf(df, sizeof(df), "%+lld", (long long) cl->diff);
		}
		if (unmeasured)
			snprintf(me, sizeof(me), "-"), snprintf(df, sizeof(df), "-");
		if (unmeasured)
			snprintf(why, sizeof(why), "%s", cl->why_not);
		else if (cl->verdict == AV_ROUNDING) {
			char tol[64];
			secs(tol, cl->tolerance, unit_decimals(cl->c.unit_ns));
			snprintf(why, sizeof(why), "within %s s: the stated resolution and the timestamps'", tol);
		} else
			why[0] = 0;
		nv[cl->verdict]++;
		const char *row[] = {th, rec, ctx, name, st, me, df, acct_verdict_name(cl->verdict), why};
		t_add(&c, row);
	}
	t_print(&c);
	printf("%d stated values: %d equal, %d within rounding, %d differ, %d not measured\n", a->nclaims, nv[0],
	       nv[1], nv[2], nv[3]);
}

/* ---- JSON -------------------------------------------------------------------- */

static cJSON *op_ref(const struct acct *a, int thread, char model, int32_t op)
{
	char nm[128];
	acct_op_name(a, thread, model, op, nm, (int) sizeof(nm));
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", model_name(a, model));
	cJSON_AddNumberToObject(o, "op", op);
	cJSON_AddStringToObject(o, "name", nm);
	return o;
}

static void print_json(const struct acct *a, const char *trace)
{
	const struct emu *e = a->e;
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "trace", trace);
	cJSON_AddNumberToObject(root, "end_ns", (double) a->end);
	cJSON *ths = cJSON_AddArrayToObject(root, "threads");
	for (int r = 0; r < e->sys.nth; r++) {
		int i = (int) (e->sys.by_row[r] - e->sys.th);
		char th[160];
		thread_name(e, i, th, sizeof(th));
		cJSON *jt = cJSON_CreateObject();
		cJSON_AddStringToObject(jt, "thread", th);
		cJSON_AddStringToObject(jt, "loom", e->sys.th[i].sys->proc->loom->name);
		cJSON_AddNumberToObject(jt, "pid", (double) e->sys.th[i].sys->proc->pid);
		cJSON_AddNumberToObject(jt, "tid", (double) e->sys.th[i].sys->tid);
		cJSON_AddNumberToObject(jt, "row", r + 1);
		cJSON *js = cJSON_AddArrayToObject(jt, "states");
		const struct acct_state **sts;
		int nst = shown_states(a, i, &sts);
		for (int k = 0; k < nst; k++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "model", model_name(a, sts[k]->model));
			cJSON_AddNumberToObject(o, "value", sts[k]->value);
			cJSON_AddStringToObject(o, "label", acct_state_label(a, sts[k]->model, sts[k]->value));
			cJSON_AddNumberToObject(o, "time_ns", (double) sts[k]->ns);
			cJSON_AddNumberToObject(o, "count", (double) sts[k]->count);
			cJSON_AddItemToArray(js, o);
		}
		free(sts);
		cJSON *jo = cJSON_AddArrayToObject(jt, "operations");
		struct acct_op **ops;
		int n = acct_sorted_ops(a, i, &ops);
		for (int k = 0; k < n; k++) {
			const struct acct_op *op = ops[k];
			cJSON *o = op_ref(a, i, op->k.model, op->k.op);
			if (op->k.ctx_model)
				cJSON_AddItemToObject(o, "within", op_ref(a, i, op->k.ctx_model, op->k.ctx));
			else
				cJSON_AddNullToObject(o, "within");
			cJSON_AddNumberToObject(o, "time_ns", (double) op->ns);
			cJSON_AddNumberToObject(o, "count", (double) op->count);
			if (op->has_bytes)
				cJSON_AddNumberToObject(o, "bytes", (double) op->bytes);
			else
				cJSON_AddNullToObject(o, "bytes");
			cJSON_AddNumberToObject(o, "ends", (double) op->nend);
			cJSON_AddItemToArray(jo, o);
		}
		free(ops);
		cJSON_AddItemToArray(ths, jt);
	}
	static const char *const what[] = {"time_ns", "count", "bytes"};
	cJSON *jc = cJSON_AddArrayToObject(root, "stated");
	int nv[4] = {0};
	for (int k = 0; k < a->nclaims; k++) {
		const struct acct_claim *cl = &a->claims[k];
		char th[160];
		claim_where(e, cl, th, sizeof(th));
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "thread", th);
		cJSON_AddNumberToObject(o, "record", cl->c.record);
		cJSON_AddStringToObject(o, "quantity", what[cl->c.what]);
		cJSON_AddItemToObject(o, "event", op_ref(a, cl->thread, cl->c.model, cl->c.op));
		if (cl->c.ctx_model)
			cJSON_AddItemToObject(o, "within", op_ref(a, cl->thread, cl->c.ctx_model, cl->c.ctx));
		else
			cJSON_AddNumberToObject(o, "within", cl->c.ctx);
		cJSON_AddNumberToObject(o, "stated", (double) cl->c.value);
		if (cl->verdict == AV_UNMEASURED) {
			cJSON_AddNullToObject(o, "measured");
			cJSON_AddNullToObject(o, "difference");
		} else {
			cJSON_AddNumberToObject(o, "measured", (double) cl->measured);
			cJSON_AddNumberToObject(o, "difference", (double) cl->diff);
		}
		if (cl->c.what == EMU_CLAIM_TIME) {
			cJSON_AddNumberToObject(o, "unit_ns", (double) cl->c.unit_ns);
			cJSON_AddNumberToObject(o, "tolerance_ns", (double) cl->tolerance);
		}
		cJSON_AddStringToObject(o, "verdict", cl->verdict == AV_DIFFERS ? "differs" : acct_verdict_name(cl->verdict));
		if (cl->why_not)
			cJSON_AddStringToObject(o, "why_not", cl->why_not);
		nv[cl->verdict]++;
		cJSON_AddItemToArray(jc, o);
	}
	cJSON *sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(sum, "stated", a->nclaims);
	cJSON_AddNumberToObject(sum, "equal", nv[AV_EQUAL]);
	cJSON_AddNumberToObject(sum, "rounding", nv[AV_ROUNDING]);
	cJSON_AddNumberToObject(sum, "differs", nv[AV_DIFFERS]);
	cJSON_AddNumberToObject(sum, "not_measured", nv[AV_UNMEASURED]);
	char *txt = cJSON_Print(root);
	if (!txt) {
		fprintf(stderr, "weft: error: out of memory printing JSON: %s%s\n", strerror(ENOMEM),
			weft_sys_hint(ENOMEM));
		exit(WEFT_EINPUT);
	}
	puts(txt);
	free(txt);
	cJSON_Delete(root);
}

/* ---- command ----------------------------------------------------------------- */

int cmd_stats(int argc, char **argv)
{
	struct stats_cmd k = {0};
	int rc = opts_parse(&stats_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (argc - k.first != 1)
		return cli_usage_error("stats", "expected one TRACE, found %d arguments", argc - k.first);
	const char *trace = argv[k.first];
	struct weft_err err = {0};
	struct emu e;
	struct acct a;
	memset(&a, 0, sizeof(a));
	k.o.sync_file = 1; /* the clock file weft sync wrote, when no -c says otherwise */
	struct cli_models cm = {0};
	if (cli_models_make(&cm, &err)) {
		cli_models_free(&cm);
		return cli_report(&err);
	}
	cli_registry(&k.o, &cm);
	rc = emu_open(&e, trace, &k.o, &err);
	if (rc == 0) {
		acct_init(&a, &e);
		rc = emu_run(&e, &err);
	}
	if (rc == 0 && k.o.salvage && !k.o.quiet)
		cli_salvage_report("stats", &e.tr);
	if (rc == 0) {
		acct_finish(&a);
		if (k.json)
			print_json(&a, trace);
		else
			print_tables(&a, trace);
	}
	acct_free(&a);
	emu_free(&e);
	cli_models_free(&cm);
	if (rc)
		return cli_report(&err);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "weft: error: writing the report failed\n");
		return 3;
	}
	return 0;
}
