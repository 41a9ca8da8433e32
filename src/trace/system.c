/* SPDX-License-Identifier: GPL-3.0-or-later */
/* system: merge stream metadata into looms/processes/threads/CPUs and order
 * them like ovniemu (doc/formats/ovni.md §3.3, §4). */
#include <stdlib.h>
#include <string.h>

#include "trace/system.h"

void sys_init(struct weft_system *s)
{
	memset(s, 0, sizeof(*s));
}

static struct weft_loom *loom_get(struct weft_system *s, const char *name)
{
	struct weft_loom *l;
	HASH_FIND_STR(s->loom_by_name, name, l);
	if (l)
		return l;
	l = weft_xcalloc(1, sizeof(*l));
	l->name = weft_xstrdup(name);
	l->hostname = weft_xstrdup(name);
	char *dot = strchr(l->hostname, '.');
	if (dot)
		*dot = '\0';
	l->vcpu.index = -1;
	l->vcpu.phyid = -1;
	l->vcpu.is_virtual = 1;
	l->vcpu.loom = l;
	l->first_seen = s->nlooms++;
	HASH_ADD_KEYPTR(hh, s->loom_by_name, l->name, strlen(l->name), l);
	return l;
}

static int merge_cpus(struct weft_loom *l, const struct weft_meta *m, const char *path,
		      struct weft_err *e)
{
	/* set first: a conflict inside this very list names this file */
	if (m->ncpus && !l->cpus_from)
		l->cpus_from = path;
	for (int i = 0; i < m->ncpus; i++) {
		struct weft_cpu *c;
		HASH_FIND(hh, l->cpu_by_phyid, &m->cpus[i].phyid, sizeof(int64_t), c);
		if (c) {
			if (c->index != m->cpus[i].index)
				return weft_fail(e, WEFT_EINPUT,
						 "%s: key 'ovni.loom_cpus[%d]': CPU phyid %lld of loom %s "
						 "has index %lld in %s, found index %lld",
						 path, i, (long long) c->phyid, l->name, (long long) c->index,
						 l->cpus_from, (long long) m->cpus[i].index);
			continue;
		}
		c = weft_xcalloc(1, sizeof(*c));
		c->index = m->cpus[i].index;
		c->phyid = m->cpus[i].phyid;
		c->loom = l;
		HASH_ADD(hh, l->cpu_by_phyid, phyid, sizeof(int64_t), c);
		l->ncpus++;
	}
	return 0;
}

static int merge_marks(struct weft_system *s, const struct weft_meta *m, const char *path,
		       struct weft_err *e)
{
	for (int i = 0; i < m->nmarks; i++) {
		const struct weft_meta_mark *mk = &m->marks[i];
		struct weft_mark_type *t = &s->marks[mk->type];
		if (!t->defined) {
			t->defined = 1;
			t->title = weft_xstrdup(mk->title);
			t->stack = mk->stack;
			t->from = path;
		} else if (strcmp(t->title, mk->title) != 0 || t->stack != mk->stack) {
			return weft_fail(e, WEFT_EINPUT,
					 "%s: key 'ovni.mark.%lld': mark type defined as \"%s\" (%s) in "
					 "%s, found \"%s\" (%s)",
					 path, (long long) mk->type, t->title, t->stack ? "stack" : "single",
					 t->from, mk->title, mk->stack ? "stack" : "single");
		}
		for (int k = 0; k < mk->nlabels; k++) {
			const struct weft_meta_label *lb = &mk->labels[k];
			struct weft_mark_vidx *x;
			HASH_FIND(hh, t->by_value, &lb->value, sizeof(int64_t), x);
			if (x) {
				if (strcmp(t->labels[x->index].label, lb->label) != 0)
					return weft_fail(e, WEFT_EINPUT,
							 "%s: key 'ovni.mark.%lld.labels.%lld': value "
							 "labelled \"%s\" elsewhere, found \"%s\"",
							 path, (long long) mk->type, (long long) lb->value,
							 t->labels[x->index].label, lb->label);
				continue;
			}
			if (t->nlabels == t->caplabels) {
				t->caplabels = t->caplabels ? 2 * t->caplabels : 16;
				t->labels = weft_xrealloc(t->labels, (size_t) t->caplabels * sizeof(*t->labels));
			}
			t->labels[t->nlabels].value = lb->value;
			t->labels[t->nlabels].label = weft_xstrdup(lb->label);
			x = weft_xmalloc(sizeof(*x));
			x->value = lb->value;
			x->index = t->nlabels++;
			HASH_ADD(hh, t->by_value, value, sizeof(int64_t), x);
		}
	}
	return 0;
}

int sys_add(struct weft_system *s, struct weft_meta *m, int stream, const char *path,
	    struct weft_err *e)
{
	struct weft_loom *l = loom_get(s, m->loom);
	if (merge_cpus(l, m, path, e))
		return -1;
	struct weft_proc *p;
	HASH_FIND(hh, l->proc_by_pid, &m->pid, sizeof(int64_t), p);
	if (!p) {
		p = weft_xcalloc(1, sizeof(*p));
		p->pid = m->pid;
		p->loom = l;
		p->first_seen = l->nprocs++;
		s->nprocs++;
		HASH_ADD(hh, l->proc_by_pid, pid, sizeof(int64_t), p);
	}
	if (m->has_app_id) {
		if (p->has_app_id && p->app_id != m->app_id)
			return weft_fail(e, WEFT_EINPUT,
					 "%s: key 'ovni.app_id': process %lld of loom %s has app_id %lld "
					 "in %s, found %lld",
					 path, (long long) p->pid, l->name, (long long) p->app_id,
					 p->app_id_from, (long long) m->app_id);
		p->has_app_id = 1;
		p->app_id = m->app_id;
		p->app_id_from = path;
	}
	if (m->has_rank) {
		if (p->has_rank && (p->rank != m->rank || p->nranks != m->nranks))
			return weft_fail(e, WEFT_EINPUT,
					 "%s: key 'ovni.rank': process %lld of loom %s has rank %lld of "
					 "%lld in %s, found rank %lld of %lld",
					 path, (long long) p->pid, l->name, (long long) p->rank,
					 (long long) p->nranks, p->rank_from, (long long) m->rank,
					 (long long) m->nranks);
		p->has_rank = 1;
		p->rank = m->rank;
		p->nranks = m->nranks;
		p->rank_from = path;
	}
	struct weft_thread *t;
	HASH_FIND(hh, p->thread_by_tid, &m->tid, sizeof(int64_t), t);
	if (t)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: key 'ovni.tid': thread %lld of process %lld in loom %s already "
				 "exists (stream %d)",
				 path, (long long) m->tid, (long long) p->pid, l->name, t->stream);
	t = weft_xcalloc(1, sizeof(*t));
	t->tid = m->tid;
	t->proc = p;
	for (int i = 0; i < m->nreq && s->require; i++) {
		int id = s->require(s->require_arg, path, m->req[i].model, m->req[i].version, e);
		if (id < 0) {
			free(t);
			return -1;
		}
		if (id >= MCV_FIRST && id <= MCV_LAST)
			t->req[mcv_index((char) id)] = 1;
	}
	t->stream = stream;
	t->kv = m->kv; /* taken over: the metadata is freed after this */
	t->nkv = m->nkv;
	m->kv = NULL;
	m->nkv = 0;
	HASH_ADD(hh, p->thread_by_tid, tid, sizeof(int64_t), t);
	p->nthreads++;
	s->nthreads++;
	return merge_marks(s, m, path, e);
}

/* Stable merge sort of pointers (ovniemu's sorts are stable). */
typedef int (*ptrcmp)(const void *a, const void *b);

static void msort(void **v, int n, ptrcmp cmp)
{
	if (n < 2)
		return;
	void **tmp = weft_xmalloc((size_t) n * sizeof(*tmp));
	for (int w = 1; w < n; w *= 2) {
		for (int lo = 0; lo < n; lo += 2 * w) {
			int mid = lo + w < n ? lo + w : n;
			int hi = lo + 2 * w < n ? lo + 2 * w : n;
			int i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = cmp(v[j], v[i]) < 0 ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, (size_t) n * sizeof(*v));
	}
	free(tmp);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int by_phyid(const void *a, const void *b)
{
	return cmp_i64(((const struct weft_cpu *) a)->phyid, ((const struct weft_cpu *) b)->phyid);
}

static int by_tid(const void *a, const void *b)
{
	return cmp_i64(((const struct weft_thread *) a)->tid, ((const struct weft_thread *) b)->tid);
}

static int by_pid(const void *a, const void *b)
{
	return cmp_i64(((const struct weft_proc *) a)->pid, ((const struct weft_proc *) b)->pid);
}

static int by_rank(const void *a, const void *b)
{
	return cmp_i64(((const struct weft_proc *) a)->rank, ((const struct weft_proc *) b)->rank);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct weft_loom *) a)->name, ((const struct weft_loom *) b)->name);
}

static int by_min_rank(const void *a, const void *b)
{
	const struct weft_loom *x = a, *y = b;
	return cmp_i64(x->procs[0]->rank, y->procs[0]->rank);
}

/* Items of a uthash table in insertion order. */
#define HASH_TO_ARRAY(head, arr, n)                                  \
	do {                                                         \
		int i_ = 0;                                          \
		(arr) = weft_xcalloc((size_t) (n) + 1, sizeof(*(arr))); \
		for (__typeof__(head) it_ = (head); it_; it_ = it_->hh.next) \
			(arr)[i_++] = it_;                           \
	} while (0)

static int finish_loom(struct weft_loom *l, struct weft_err *e)
{
	if (l->ncpus == 0)
		return weft_fail(e, WEFT_EINPUT,
				 "loom %s has no physical CPUs: no stream of it lists 'ovni.loom_cpus'",
				 l->name);
	HASH_TO_ARRAY(l->cpu_by_phyid, l->cpus, l->ncpus);
	msort((void **) l->cpus, l->ncpus, by_phyid);
	l->cpus[l->ncpus] = &l->vcpu;
	l->by_index = weft_xcalloc((size_t) l->ncpus, sizeof(*l->by_index));
	for (int i = 0; i < l->ncpus; i++) {
		struct weft_cpu *c = l->cpus[i];
		if (c->index >= l->ncpus)
			return weft_fail(e, WEFT_EINPUT,
					 "loom %s: CPU phyid %lld has index %lld, expected an index "
					 "below the number of CPUs (%d) (from %s)",
					 l->name, (long long) c->phyid, (long long) c->index, l->ncpus,
					 l->cpus_from);
		if (l->by_index[c->index])
			return weft_fail(e, WEFT_EINPUT,
					 "loom %s: CPU index %lld is taken by both phyid %lld and phyid "
					 "%lld, expected each index once (from %s)",
					 l->name, (long long) c->index, (long long) l->by_index[c->index]->phyid,
					 (long long) c->phyid, l->cpus_from);
		l->by_index[c->index] = c;
	}
	HASH_TO_ARRAY(l->proc_by_pid, l->procs, l->nprocs);
	int nrank = 0;
	for (int i = 0; i < l->nprocs; i++) {
		struct weft_proc *p = l->procs[i];
		if (!p->has_app_id)
			return weft_fail(e, WEFT_EINPUT,
					 "process %lld of loom %s has no app_id: expected 'ovni.app_id' "
					 "in at least one of its streams",
					 (long long) p->pid, l->name);
		nrank += p->has_rank;
		HASH_TO_ARRAY(p->thread_by_tid, p->threads, p->nthreads);
		msort((void **) p->threads, p->nthreads, by_tid);
	}
	if (nrank && nrank != l->nprocs) {
		for (int i = 0; i < l->nprocs; i++)
			if (!l->procs[i]->has_rank)
				return weft_fail(e, WEFT_EINPUT,
						 "process %lld of loom %s has no rank, but other "
						 "processes of the loom do: expected 'ovni.rank' in all or none",
						 (long long) l->procs[i]->pid, l->name);
	}
	msort((void **) l->procs, l->nprocs, nrank ? by_rank : by_pid);
	return 0;
}

int sys_finish(struct weft_system *s, struct weft_err *e)
{
	HASH_TO_ARRAY(s->loom_by_name, s->looms, s->nlooms);
	int ranked = 0;
	for (int i = 0; i < s->nlooms; i++) {
		if (finish_loom(s->looms[i], e))
			return -1;
		ranked += s->looms[i]->procs[0]->has_rank;
	}
	if (ranked == s->nlooms)
		msort((void **) s->looms, s->nlooms, by_min_rank);
	else {
		if (ranked && !s->quiet)
			weft_warn("only %d of %d looms have rank information; ordering looms by name",
				  ranked, s->nlooms);
		msort((void **) s->looms, s->nlooms, by_name);
	}
	s->threads = weft_xcalloc((size_t) s->nthreads, sizeof(*s->threads));
	int nt = 0, nc = 0, np = 0;
	for (int i = 0; i < s->nlooms; i++)
		s->ncpus += s->looms[i]->ncpus + 1;
	s->cpus = weft_xcalloc((size_t) s->ncpus, sizeof(*s->cpus));
	for (int i = 0; i < s->nlooms; i++) {
		struct weft_loom *l = s->looms[i];
		l->gindex = i;
		for (int k = 0; k <= l->ncpus; k++) {
			l->cpus[k]->gindex = nc;
			s->cpus[nc++] = l->cpus[k];
		}
		for (int k = 0; k < l->nprocs; k++) {
			struct weft_proc *p = l->procs[k];
			p->gindex = np++;
			for (int j = 0; j < p->nthreads; j++) {
				p->threads[j]->gindex = nt;
				s->threads[nt++] = p->threads[j];
			}
		}
	}
	return 0;
}

struct weft_cpu *sys_cpu_by_index(const struct weft_loom *l, int64_t index)
{
	if (index == -1)
		return (struct weft_cpu *) &l->vcpu;
	if (index < 0 || index >= l->ncpus)
		return NULL;
	return l->by_index[index];
}

void sys_free(struct weft_system *s)
{
	struct weft_loom *l, *lt;
	HASH_ITER(hh, s->loom_by_name, l, lt) {
		HASH_DEL(s->loom_by_name, l);
		struct weft_cpu *c, *ct;
		HASH_ITER(hh, l->cpu_by_phyid, c, ct) {
			HASH_DEL(l->cpu_by_phyid, c);
			free(c);
		}
		struct weft_proc *p, *pt;
		HASH_ITER(hh, l->proc_by_pid, p, pt) {
			HASH_DEL(l->proc_by_pid, p);
			struct weft_thread *t, *tt;
			HASH_ITER(hh, p->thread_by_tid, t, tt) {
				HASH_DEL(p->thread_by_tid, t);
				meta_kv_free(t->kv, t->nkv);
				free(t);
			}
			free(p->threads);
			free(p);
		}
		free(l->cpus);
		free(l->by_index);
		free(l->procs);
		free(l->name);
		free(l->hostname);
		free(l);
	}
	for (int i = 0; i < 100; i++) {
		free(s->marks[i].title);
		for (int k = 0; k < s->marks[i].nlabels; k++)
			free(s->marks[i].labels[k].label);
		free(s->marks[i].labels);
		struct weft_mark_vidx *x, *tmp;
		HASH_ITER(hh, s->marks[i].by_value, x, tmp) {
			HASH_DEL(s->marks[i].by_value, x);
			free(x);
		}
	}
	free(s->looms);
	free(s->threads);
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}
