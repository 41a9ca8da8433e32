/* kernel model (K): KCO takes a thread off its CPU, KCI puts it back.
 * Paraver type 45 ("Kernel context switch"), value 3 while out: on the
 * thread's row whatever its state (ovniemu's ANY tracking), and on a CPU's
 * row for the thread running there (a channel the ovni model shows when
 * the running thread changes, emu_track). While a thread is out, its ovni
 * events are errors (the emulator checks them, guard_off_cpu). A second
 * KCO or a KCI while not out are errors. */
#include <stdlib.h>

#include "kernel.h"
#include "strbuf.h"

#define KERNEL_TYPE 45
#define KERNEL_OUT 3

struct kern {
	int tslot; /* thread.prv slot */
	int track; /* running-thread channel (cpu.prv), -1 if none is left */
};

static struct kern *st(struct emu *e)
{
	return e->mstate['K' - 0x21];
}

static int setup(struct emu *e, struct weft_err *err)
{
	(void) err;
	struct kern *k = weft_xcalloc(1, sizeof(*k));
	e->mstate['K' - 0x21] = k;
	k->tslot = emu_slot(e, EMU_THREAD_FILE, KERNEL_TYPE, "Kernel context switch");
	k->track = emu_track(e, emu_slot(e, EMU_CPU_FILE, KERNEL_TYPE,
					 "Kernel context switch of the RUNNING thread"));
	e->guard_off_cpu = 1;
	return 0;
}

static void show(struct emu *e, struct emu_thread *t, int64_t v)
{
	struct kern *k = st(e);
	emu_out(e, EMU_THREAD_FILE, t->row, k->tslot, v);
	if (k->track >= 0)
		emu_track_set(e, t, k->track, v);
}

int kernel_out(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct emu_thread *t = &e->th[ev->stream->index];
	if (t->off_cpu)
		return emu_model_error(e, err, "thread %lld is already out of its CPU: expected KCI before "
				       "another KCO", (long long) t->sys->tid);
	t->off_cpu = 1;
	show(e, t, KERNEL_OUT);
	return 0;
}

int kernel_in(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) in;
	struct emu_thread *t = &e->th[ev->stream->index];
	if (!t->off_cpu)
		return emu_model_error(e, err, "thread %lld is not out of its CPU: expected KCO before KCI",
				       (long long) t->sys->tid);
	t->off_cpu = 0;
	show(e, t, 0);
	return 0;
}

static void pcf(struct emu *e, int file, struct strbuf *b)
{
	(void) e;
	sb_printf(b, "EVENT_TYPE\n0 %d %s\nVALUES\n%d Context switch: Out of the CPU\n\n", KERNEL_TYPE,
		  file == EMU_THREAD_FILE ? "Kernel context switch" : "Kernel context switch of the RUNNING thread",
		  KERNEL_OUT);
}

static void release(struct emu *e)
{
	free(e->mstate['K' - 0x21]);
	e->mstate['K' - 0x21] = NULL;
}

const struct weft_model_hooks kernel_hooks = {
	.setup = setup, .pcf = pcf, .release = release,
};
