/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_meta: the input is the text of a stream.json.
 *
 * meta_parse() over the bytes as they are (no NUL terminator: the input lives
 * in a buffer of exactly its size, so a read past it is a heap overflow).
 * When it parses, the metadata goes into a fresh system: sys_add(),
 * sys_finish() and sys_free(); a second sys_add() of the same metadata must
 * then be refused as a duplicate thread, as in a trace with two identical
 * stream.json files. Errors must be input errors with a message.
 *
 * Nothing is printed and no file is written; a broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/metadata.h"
#include "trace/system.h"

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_PATH "fuzz/stream.json"

static void check_meta(const struct weft_meta *m)
{
	check(m->loom && m->loom[0] && !strchr(m->loom, '/'));
	check(m->pid != 0 && m->tid != 0);
	check(m->lib_version && m->lib_commit);
	check(m->ncpus >= 0 && (m->ncpus == 0 || m->cpus));
	for (int i = 0; i < m->ncpus; i++)
		check(m->cpus[i].index >= 0 && m->cpus[i].phyid >= 0);
	for (int i = 0; i < m->nmarks; i++) {
		check(m->marks[i].type >= 0 && m->marks[i].type <= 99);
		check(m->marks[i].title != NULL);
		for (int k = 0; k < m->marks[i].nlabels; k++)
			check(m->marks[i].labels[k].label != NULL);
	}
	for (int i = 0; i < m->nreq; i++)
		check(m->req[i].model && m->req[i].version);
	if (m->has_rank)
		check(m->rank >= 0 && m->rank < m->nranks);
	if (m->has_app_id)
		check(m->app_id > 0);
}

static void build_system(struct weft_meta *m) /* sys_add takes over m->kv */
{
	struct weft_system s;
	struct weft_err e = {0};
	sys_init(&s);
	if (sys_add(&s, m, 0, FUZZ_PATH, &e) != 0) {
		check_err_code(&e, WEFT_EINPUT);
		sys_free(&s);
		return;
	}
	if (sys_finish(&s, &e) == 0) {
		check(s.nlooms == 1 && s.nthreads == 1 && s.nprocs == 1);
		struct weft_loom *l = s.looms[0];
		check(l->ncpus >= 1 && l->ncpus <= m->ncpus); /* phyids may repeat */
		check(s.ncpus == l->ncpus + 1);
		check(s.threads[0]->tid == m->tid);
		check(sys_cpu_by_index(l, -1) == &l->vcpu);
		for (int i = 0; i < l->ncpus; i++)
			check(sys_cpu_by_index(l, i) != NULL);
		check(sys_cpu_by_index(l, l->ncpus) == NULL);
	} else {
		check_err_code(&e, WEFT_EINPUT);
	}
	sys_free(&s);

	/* the same stream twice: a duplicate thread */
	sys_init(&s);
	check(sys_add(&s, m, 0, FUZZ_PATH, &e) == 0);
	check(sys_add(&s, m, 1, FUZZ_PATH "2", &e) != 0);
	check_err_code(&e, WEFT_EINPUT);
	sys_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	check(text != NULL);
	if (size)
		memcpy(text, data, size);
	struct weft_meta m;
	struct weft_err e = {0};
	if (meta_parse(&m, text, size, FUZZ_PATH, &e) == 0) {
		check_meta(&m);
		build_system(&m);
		meta_free(&m);
	} else {
		check_err_code(&e, WEFT_EINPUT);
	}
	free(text);
	return 0;
}
