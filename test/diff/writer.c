/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writer.c: a plan played through libovni. One child process per P line
 * (libovni keeps one process state per address space), one pthread per T
 * line inside it, one after another (a thread's state is thread-local).
 * Every event gets the plan's clock; the buffer is written with
 * ovni_flush() before ovni_thread_free(), and the flush's own OF[ OF]
 * pair, stamped with the wall clock, stays in the freed buffer. */
#include "plan.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ovni.h>

struct span {
	const struct plan *p;
	size_t a, b; /* lines [a, b) of one thread, a is its T line */
	int rank, nranks;
};

static void play_event(const struct plan_ev *ev)
{
	struct ovni_ev e;
	memset(&e, 0, sizeof(e));
	ovni_ev_set_clock(&e, ev->clock);
	ovni_ev_set_mcv(&e, ev->mcv);
	if (ev->kind == 'J') {
		ovni_ev_jumbo_emit(&e, ev->pl, (uint32_t) ev->plen);
		return;
	}
	/* libovni takes payload pieces of 2 bytes or more: 1 byte is cut */
	if (ev->plen >= 2)
		ovni_payload_add(&e, ev->pl, ev->plen > 16 ? 16 : ev->plen);
	ovni_ev_emit(&e);
}

static void *play_thread(void *arg)
{
	const struct span *sp = arg;
	const struct plan *p = sp->p;
	ovni_thread_init(atoi(p->line[sp->a] + 2));
	if (sp->rank >= 0)
		ovni_proc_set_rank(sp->rank, sp->nranks);
	for (size_t i = sp->a + 1; i < sp->b; i++) {
		const char *s = p->line[i];
		char key[256], text[256];
		int a, b, c;
		struct plan_ev ev;
		switch (s[0]) {
		case 'C':
			if (sscanf(s + 2, "%d %d", &a, &b) == 2)
				ovni_add_cpu(a, b);
			break;
		case 'R':
			if (sscanf(s + 2, "%255s %255s", key, text) == 2)
				ovni_thread_require(key, text);
			break;
		case 'A':
			if (sscanf(s + 2, "%255s %d", key, &a) == 2)
				ovni_attr_set_boolean(key, a);
			break;
		case 'S':
			if (sscanf(s + 2, "%255s %255s", key, text) == 2)
				ovni_attr_set_str(key, text);
			break;
		case 'Y':
			if (sscanf(s + 2, "%d %d %255s", &a, &b, text) == 3)
				ovni_mark_type(a, b ? OVNI_MARK_STACK : 0, text);
			break;
		case 'N':
			if (sscanf(s + 2, "%d %d %255s", &a, &c, text) == 3)
				ovni_mark_label(a, c, text);
			break;
		case 'E':
		case 'J':
			if (plan_ev_parse(s, &ev))
				play_event(&ev);
			break;
		}
	}
	ovni_flush();
	ovni_thread_free();
	return NULL;
}

static int play_proc(const struct plan *p, size_t a, size_t b)
{
	int app, pid, rank, nranks;
	char loom[256];
	if (sscanf(p->line[a] + 2, "%d %255s %d %d %d", &app, loom, &pid, &rank, &nranks) != 5) {
		fprintf(stderr, "gen: bad process line: %s\n", p->line[a]);
		return 1;
	}
	ovni_version_check();
	ovni_proc_init(app, loom, pid);
	for (size_t i = a + 1; i < b;) {
		size_t j = i + 1;
		while (j < b && p->line[j][0] != 'T')
			j++;
		if (p->line[i][0] == 'T') {
			struct span sp = {p, i, j, rank, nranks};
			pthread_t t;
			if (pthread_create(&t, NULL, play_thread, &sp) != 0 || pthread_join(t, NULL) != 0) {
				fprintf(stderr, "gen: pthread failed\n");
				return 1;
			}
		}
		i = j;
	}
	ovni_proc_fini();
	return 0;
}

static int write_offsets(const struct plan *p, const char *tracedir)
{
	char path[4200];
	FILE *f = NULL;
	int row = 0;
	for (size_t i = 0; i < p->n; i++) {
		char host[256];
		long long off;
		if (p->line[i][0] != 'O' || sscanf(p->line[i] + 2, "%255s %lld", host, &off) != 2)
			continue;
		if (f == NULL) {
			snprintf(path, sizeof(path), "%s/clock-offsets.txt", tracedir);
			f = fopen(path, "w");
			if (f == NULL) {
				fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
				return -1;
			}
			fprintf(f, "rank       hostname   offset_median   offset_mean  offset_std\n");
		}
		fprintf(f, "%d %s %lld %lld.0 0.0\n", row++, host, off, off);
	}
	if (f && fclose(f) != 0)
		return -1;
	return 0;
}

int plan_play(const struct plan *p, const char *dir)
{
	char tracedir[4096];
	snprintf(tracedir, sizeof(tracedir), "%s/ovni", dir);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen: mkdir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (mkdir(tracedir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "gen: mkdir %s: %s\n", tracedir, strerror(errno));
		return -1;
	}
	setenv("OVNI_TRACEDIR", tracedir, 1);
	unsetenv("OVNI_TMPDIR");
	fflush(NULL);
	for (size_t i = 0; i < p->n; i++) {
		if (p->line[i][0] != 'P')
			continue;
		size_t j = i + 1;
		while (j < p->n && p->line[j][0] != 'P')
			j++;
		pid_t c = fork();
		if (c < 0) {
			fprintf(stderr, "gen: fork: %s\n", strerror(errno));
			return -1;
		}
		if (c == 0)
			_exit(play_proc(p, i, j));
		int st;
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "gen: libovni refused process line %zu: %s\n", i + 1, p->line[i]);
			return -1;
		}
		i = j - 1;
	}
	return write_offsets(p, tracedir);
}
