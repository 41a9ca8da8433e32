/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni_synth: generator of ovni-model traces (see ovni_synth.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/ovni_synth.h"
#include "trace/writer.h"

#define T0 1000000000000ull /* first clock, like the corpus traces */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	/* splitmix64: small, fast, and the same on every machine */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return rnd(r) % n;
}

struct sthread {
	struct ovni_writer w;
	int64_t pid, tid, creator;
	int started, ended;
	uint64_t budget;
	unsigned models;
	uint32_t ntasks; /* nOS-V tasks this thread created */
	uint32_t typeid; /* its nOS-V task type, unique in its process */
	uint32_t nthp; /* threads in its process */
};

struct sloom {
	struct sthread *th;
	int nth;
};

/* One of the extra models in `set`, evenly (no draw when there is one). */
static unsigned pick_model(struct rng *r, unsigned set)
{
	unsigned bits[8], n = 0;
	for (unsigned b = 1; b <= set && n < 8; b <<= 1)
		if (set & b)
			bits[n++] = b;
	return n == 1 ? bits[0] : bits[below(r, n)];
}

static void ev0(struct sthread *t, const char *mcv, uint64_t clk)
{
	ow_event(&t->w, mcv, clk, NULL, 0);
}

static void ev_i32(struct sthread *t, const char *mcv, uint64_t clk, int32_t a)
{
	ow_event(&t->w, mcv, clk, &a, 4);
}

static void ev_i32_i32(struct sthread *t, const char *mcv, uint64_t clk, int32_t a, int32_t b)
{
	uint8_t p[8];
	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 4);
	ow_event(&t->w, mcv, clk, p, 8);
}

static void ev_mark(struct sthread *t, const char *mcv, uint64_t clk, int64_t value, int32_t type)
{
	uint8_t p[12];
	memcpy(p, &value, 8);
	memcpy(p + 8, &type, 4);
	ow_event(&t->w, mcv, clk, p, 12);
}

static void ev_ohx(struct sthread *t, uint64_t clk, int32_t cpu, int32_t creator, uint64_t tag)
{
	uint8_t p[16];
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &creator, 4);
	memcpy(p + 8, &tag, 8);
	ow_event(&t->w, "OHx", clk, p, 16);
}

/* The thread's nOS-V task type, created once when it first runs. */
static void ev_type(struct sthread *t, uint64_t clk)
{
	uint8_t p[64];
	memcpy(p, &t->typeid, 4);
	int len = snprintf((char *) p + 4, sizeof(p) - 4, "synth_type_%u", (unsigned) t->typeid);
	ow_jumbo_fixed(&t->w, ow_jumbo_head("VYc"), clk, p, (uint32_t) (4 + len + 1));
}

/* A task id unique in the process: threads interleave their counters. */
static uint32_t new_task(struct sthread *t, uint32_t nth)
{
	return ++t->ntasks * nth + t->typeid;
}

static void ev_ohc(struct sthread *t, uint64_t clk, int32_t cpu, uint64_t tag)
{
	uint8_t p[12];
	memcpy(p, &cpu, 4);
	memcpy(p + 4, &tag, 8);
	ow_event(&t->w, "OHC", clk, p, 12);
}

/* A nOS-V task in a slice (see the comment inside), from `now`; *k counts
 * the events written. Returns the clock after it. */
static uint64_t nosv_task(struct rng *r, struct sthread *x, uint64_t now, uint64_t *k)
{
	/* a task created inside nosv_create(), submitted inside
	 * nosv_submit() (the scheduler's submit inside that), taken
	 * while serving the scheduler, run and ended here, its body
	 * sometimes allocating memory; sometimes it pauses to run a
	 * nested task to its end, then resumes */
	uint32_t a = new_task(x, x->nthp), b2 = 0;
	static const char *const before[] = {"VAr", "VTc", "VAR", "VAs", "VU[", "VU]",
					     "VAS", "VS[", "VS@", "VS]", "VTx"};
	for (int j = 0; j < 11; j++, now++) {
		if (before[j][1] == 'T')
			ev_i32_i32(x, before[j], now, (int32_t) a, j == 1 ? (int32_t) x->typeid : 0);
		else
			ev0(x, before[j], now);
	}
	*k += 8;
	now += 1 + below(r, 200);
	if (below(r, 4) == 0) {
		ev0(x, "VMa", now);
		now += 1 + below(r, 50);
		ev0(x, "VMA", now);
		now += 1 + below(r, 100);
		*k += 2;
	}
	if (below(r, 2)) {
		b2 = new_task(x, x->nthp);
		ev_i32_i32(x, "VTc", now, (int32_t) b2, (int32_t) x->typeid);
		ev_i32_i32(x, "VTp", now + 1, (int32_t) a, 0);
		ev_i32_i32(x, "VTx", now + 2, (int32_t) b2, 0);
		now += 3 + below(r, 200);
		ev_i32_i32(x, "VTe", now, (int32_t) b2, 0);
		ev_i32_i32(x, "VTr", now + 1, (int32_t) a, 0);
		now += 2 + below(r, 200);
		*k += 3;
	}
	ev_i32_i32(x, "VTe", now, (int32_t) a, 0);
	*k += 3;
	return now;
}

/* A TAMPI call or polling round in a slice (the caller counts it as 3 events). */
static uint64_t tampi_round(struct rng *r, struct sthread *x, uint64_t now)
{
	/* TAMPI subsystems nest: an API call issuing a request (with the
	 * MPI call inside when mpi is on), or a polling round */
	if (below(r, 2)) {
		ev0(x, "TLi", now);
		ev0(x, "TCi", now + 1);
		now += 2;
		if (x->models & SYNTH_M_MPI) {
			ev0(x, "MS[", now);
			now += 1 + below(r, 300);
			ev0(x, "MS]", now);
		}
		ev0(x, "TCI", now + 1);
		ev0(x, "TLI", now + 2);
	} else {
		ev0(x, "TLp", now);
		ev0(x, "TGc", now + 1);
		now += 2 + below(r, 300);
		ev0(x, "TGC", now);
		ev0(x, "TLP", now + 1);
	}
	now += 2;
	return now;
}

/* One running slice of thread x on cpu: body events between now and the
 * returned clock. `sib` are the threads sharing the cpu (for OAr). */
static uint64_t slice_body(struct rng *r, struct sthread *x, struct sthread **sib, int nsib,
			   int32_t cpu, uint64_t now)
{
	uint64_t left = x->budget > x->w.nevents + 2 ? x->budget - x->w.nevents - 2 : 0;
	uint64_t n = 4 + below(r, 40);
	if (n > left)
		n = left;
	int depth = 0;
	int64_t stack[2];
	for (uint64_t k = 0; k < n; k++) {
		now += 1 + below(r, 400);
		unsigned pick = (unsigned) below(r, 100);
		unsigned m = 0;
		if (pick < 10) {
			/* burst probes come in tight runs, as libovni emits them */
			uint64_t len = 3 + below(r, 4);
			for (uint64_t j = 0; j < len && k < n; j++, k++) {
				ev0(x, "OB.", now);
				now += 25 + below(r, 20);
			}
			k--;
		} else if (pick < 30) {
			ev_mark(x, "OM=", now, 1 + (int64_t) below(r, 4), 1);
		} else if (pick < 60) {
			if (depth < 2 && (depth == 0 || below(r, 2))) {
				stack[depth] = 1 + (int64_t) below(r, 6);
				ev_mark(x, "OM[", now, stack[depth], 2);
				depth++;
			} else {
				depth--;
				ev_mark(x, "OM]", now, stack[depth], 2);
			}
		} else if (pick < 75) {
			ev_mark(x, "OM=", now, 1 + (int64_t) below(r, 4), 1);
		} else if (pick < 82) {
			ev0(x, "OF[", now);
			now += 500 + below(r, 5000);
			ev0(x, "OF]", now);
			k++;
		} else if (pick < 88) {
			ev_i32(x, "OAs", now, -1);
			now += 1 + below(r, 300);
			ev_i32(x, "OAs", now, cpu);
			k++;
		} else if (pick < 94 && nsib > 1) {
			/* move a paused sibling to the vCPU and back */
			struct sthread *y = sib[below(r, (uint64_t) nsib)];
			if (y == x || !y->started || y->ended) {
				ev0(x, "OB.", now);
				continue;
			}
			ev_i32_i32(x, "OAr", now, -1, (int32_t) y->tid);
			now += 1 + below(r, 300);
			ev_i32_i32(x, "OAr", now, cpu, (int32_t) y->tid);
			k++;
		} else if (pick < 96) {
			ev_ohc(x, now, cpu, below(r, 1000));
		} else if (x->models && (m = pick_model(r, x->models)) == SYNTH_M_KERNEL) {
			/* the kernel takes the CPU away for a while and gives it back */
			ev0(x, "KCO", now);
			now += 1 + below(r, 1000);
			ev0(x, "KCI", now);
			k++;
		} else if (m == SYNTH_M_NOSV) {
			now = nosv_task(r, x, now, &k);
		} else if (m == SYNTH_M_TAMPI) {
			now = tampi_round(r, x, now);
			k += 3;
		} else if (m == SYNTH_M_NODES) {
			/* NODES subsystems nest: a task created (its accesses
			 * registered inside) and submitted, or a taskwait, a spawned
			 * function, accesses unregistered, an if(0) task waited for
			 * and run inline */
			static const char *const seq[][6] = {
				{"DC[", "DR[", "DR]", "DC]", "DS[", "DS]"},
				{"DT[", "DT]", "DP[", "DP]", "DU[", "DU]"},
				{"DW[", "DI[", "DC[", "DC]", "DI]", "DW]"},
			};
			const char *const *q = seq[below(r, 3)];
			for (int j = 0; j < 6; j++) {
				ev0(x, q[j], now);
				now += 1 + below(r, 200);
			}
			k += 3;
		} else if (m == SYNTH_M_MPI) {
			/* a whole MPI call inside the slice: the stack stays balanced */
			int b = (int) below(r, 2);
			ev0(x, b ? "MS[" : "MCb", now);
			now += 1 + below(r, 400);
			ev0(x, b ? "MS]" : "MCB", now);
			k++;
		} else {
			ev0(x, "OB.", now);
		}
	}
	while (depth > 0) {
		now += 1 + below(r, 100);
		depth--;
		ev_mark(x, "OM]", now, stack[depth], 2);
	}
	return now;
}

/* Run every thread whose home is `cpu` to its end, in turns. */
static void run_cpu(struct rng *r, struct sthread **ths, int n, int32_t cpu, uint64_t now)
{
	int alive = n, i = 0;
	while (alive > 0) {
		while (ths[i]->ended)
			i = (i + 1) % n;
		struct sthread *x = ths[i];
		if (!x->started) {
			ev_ohx(x, now, cpu, (int32_t) x->creator, (uint64_t) x->tid);
			x->started = 1;
			if (x->models & SYNTH_M_NOSV)
				ev_type(x, now + 1), now += 2;
		} else {
			ev0(x, "OHr", now);
		}
		now = slice_body(r, x, ths, n, cpu, now);
		now += 1 + below(r, 200);
		if (x->w.nevents + 2 >= x->budget) {
			ev0(x, "OHe", now);
			x->ended = 1;
			alive--;
			now += 1 + below(r, 200);
			i = (i + 1) % n;
			continue;
		}
		int j = (i + 1) % n;
		while (ths[j]->ended)
			j = (j + 1) % n;
		struct sthread *y = ths[j];
		if (y != x && y->started && below(r, 2)) {
			/* hand-over: x cools and pauses while y warms, then y runs */
			ev0(x, "OHc", now);
			ev0(y, "OHw", now);
			ev0(x, "OHp", now + 1 + below(r, 50));
			now += 60 + below(r, 100);
		} else {
			ev0(x, "OHp", now);
			now += 1 + below(r, 500);
		}
		i = j;
	}
}

static char *thread_json(const struct synth_opts *o, const char *loom, int64_t pid, int64_t tid,
			 int rank)
{
	char cpus[8192];
	size_t off = 0;
	for (int c = 0; c < o->cpus && off < sizeof(cpus) - 64; c++)
		off += (size_t) snprintf(cpus + off, sizeof(cpus) - off, "%s{\"index\": %d, \"phyid\": %d}",
					 c ? ", " : "", c, c);
	return weft_xasprintf(
		"{\n"
		"  \"version\": 3,\n"
		"  \"ovni\": {\n"
		"    \"lib\": {\"version\": \"1.14.0\", \"commit\": \"weft-synth\"},\n"
		"    \"part\": \"thread\",\n"
		"    \"tid\": %lld,\n"
		"    \"pid\": %lld,\n"
		"    \"loom\": \"%s\",\n"
		"    \"app_id\": 1,\n"
		"    \"rank\": %d,\n"
		"    \"nranks\": %d,\n"
		"    \"require\": {\"ovni\": \"1.1.0\"%s%s%s%s%s},\n"
		"    \"mark\": {\n"
		"      \"1\": {\"title\": \"Synth phase\", \"chan_type\": \"single\",\n"
		"             \"labels\": {\"1\": \"init\", \"2\": \"compute\", \"3\": \"exchange\", \"4\": \"reduce\"}},\n"
		"      \"2\": {\"title\": \"Synth region\", \"chan_type\": \"stack\",\n"
		"             \"labels\": {\"1\": \"pack\", \"2\": \"unpack\", \"3\": \"kernel\", \"4\": \"wait\", \"5\": \"copy\", \"6\": \"check\"}}\n"
		"    },\n"
		"    \"loom_cpus\": [%s],\n"
		"    \"finished\": 1\n"
		"  }%s\n"
		"}\n",
		(long long) tid, (long long) pid, loom, rank, o->looms * o->procs,
		(o->models & SYNTH_M_MPI) ? ", \"mpi\": \"1.0.0\"" : "",
		(o->models & SYNTH_M_TAMPI) ? ", \"tampi\": \"1.0.0\"" : "",
		(o->models & SYNTH_M_KERNEL) ? ", \"kernel\": \"1.0.0\"" : "",
		(o->models & SYNTH_M_NOSV) ? ", \"nosv\": \"2.7.0\"" : "",
		(o->models & SYNTH_M_NODES) ? ", \"nodes\": \"1.0.0\"" : "", cpus,
		/* as nOS-V's runtime writes it: its breakdown view may be drawn */
		(o->models & SYNTH_M_NOSV) ? ",\n  \"nosv\": {\"can_breakdown\": true}" : "");
}

int synth_ovni(const char *dir, const struct synth_opts *o, uint64_t *written, struct weft_err *e)
{
	struct rng r = {o->seed * 0x2545f4914f6cdd1dull + 1};
	int nth = o->procs * o->threads;
	uint64_t per = o->events / ((uint64_t) o->looms * (uint64_t) nth);
	if (per < 4)
		per = 4;
	/* writers buffer at most ~64 MiB in all */
	size_t bufsize = (64u << 20) / (size_t) nth;
	if (bufsize > (1u << 20))
		bufsize = 1u << 20;
	int rc = 0;
	*written = 0;
	struct sthread *th = weft_xcalloc((size_t) nth, sizeof(*th));
	struct sthread **ths = weft_xcalloc((size_t) nth, sizeof(*ths));
	for (int l = 0; l < o->looms && rc == 0; l++) {
		char loom[32];
		if (o->plain_names)
			snprintf(loom, sizeof(loom), "node%d", l + 1);
		else
			snprintf(loom, sizeof(loom), "node%02d", l);
		memset(th, 0, (size_t) nth * sizeof(*th));
		int opened = 0;
		for (int j = 0; j < nth && rc == 0; j++) {
			int p = j / o->threads, t = j % o->threads;
			struct sthread *x = &th[j];
			x->pid = (int64_t) (l + 1) * 100000 + p * 1000;
			x->tid = x->pid + t;
			x->creator = t == 0 ? -1 : x->pid;
			x->budget = per;
			x->models = o->models;
			x->typeid = (uint32_t) t + 1;
			x->nthp = (uint32_t) o->threads;
			char *sdir = weft_xasprintf("%s/loom.%s/proc.%lld/thread.%lld", dir, loom,
						    (long long) x->pid, (long long) x->tid);
			char *json = thread_json(o, loom, x->pid, x->tid, l * o->procs + p);
			rc = ow_open(&x->w, sdir, bufsize, e);
			if (rc == 0) {
				opened++;
				rc = ow_write_json(sdir, json, e);
			}
			free(json);
			free(sdir);
		}
		for (int c = 0; c < o->cpus && rc == 0; c++) {
			int n = 0;
			for (int j = c; j < nth; j += o->cpus)
				ths[n++] = &th[j];
			if (n)
				run_cpu(&r, ths, n, c, T0 + (uint64_t) c * 7 + (uint64_t) l * 3);
		}
		for (int j = 0; j < opened; j++) {
			*written += th[j].w.nevents;
			if (ow_close(&th[j].w, e))
				rc = -1;
		}
	}
	free(ths);
	free(th);
	return rc;
}
