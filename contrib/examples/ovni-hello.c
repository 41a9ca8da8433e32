/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni-hello: the smallest program instrumented with libovni, for the
 * README's quick start: one process, one thread on CPU 0 that pauses and
 * resumes 1000 times. Running it writes the ovni trace ovni/ here.
 *
 *   cc -o ovni-hello contrib/examples/ovni-hello.c -lovni && ./ovni-hello
 *   weft emu ovni && weft plot ovni/thread.prv
 *
 * (-I/-L to libovni's include and lib folders when it is not installed
 * system-wide.) A real program gets these events from its runtime (nOS-V,
 * Nanos6, OpenMP...) or emits them as here; libovni's documentation says
 * how (runtime/index.md of the ovni sources). */
#define _GNU_SOURCE
#include <ovni.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* One event: its MCV, the clock now, the 32-bit payload words. */
static void emit(const char *mcv, const int32_t *words, int n)
{
	struct ovni_ev ev = {0};
	ovni_ev_set_mcv(&ev, mcv);
	ovni_ev_set_clock(&ev, ovni_clock_now());
	for (int i = 0; i < n; i++)
		ovni_payload_add(&ev, (const uint8_t *) &words[i], sizeof(words[i]));
	ovni_ev_emit(&ev);
}

int main(void)
{
	char host[256], loom[300];
	if (gethostname(host, sizeof(host)) != 0)
		return 1;
	snprintf(loom, sizeof(loom), "%s.0", host); /* a loom: the host name, a dot, a suffix */
	ovni_version_check();
	ovni_proc_init(1, loom, getpid());
	ovni_thread_init(gettid());
	ovni_add_cpu(0, 0);
	/* OHx: starts running on CPU 0, created by no thread (-1), tag 0 (u64) */
	const int32_t execute[4] = {0, -1, 0, 0};
	emit("OHx", execute, 4);
	for (int i = 0; i < 1000; i++) {
		emit("OHp", NULL, 0); /* pauses */
		usleep(100);
		emit("OHr", NULL, 0); /* resumes */
	}
	emit("OHe", NULL, 0); /* ends */
	ovni_flush();
	ovni_thread_free();
	ovni_proc_fini();
	return 0;
}
