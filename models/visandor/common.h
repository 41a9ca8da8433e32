/* SPDX-License-Identifier: GPL-3.0-or-later */
/* visandor/common: the VisAndOr events both log models share (AGENT_BUSY/
 * AGENT_IDLE activity, WAM ids, other codes). Not a model of its own: the
 * and-fork (A) and or-branch (R) models each keep a struct vao_common and
 * call these from their handlers, after their own bookkeeping. */
#ifndef WEFT_VISANDOR_COMMON_H
#define WEFT_VISANDOR_COMMON_H

#include <stdint.h>

#include "emu/emu.h"
#include "trace/obs.h"
#include "util/strbuf.h"
#include "util/macros.h"

struct vao_common {
	int s_active, s_nact, s_wam, s_other; /* thread.prv slots */
	char title[4][48]; /* theirs, "<model>: ..." */
	int32_t code[64];                     /* other event codes seen (labels) */
	int ncode;                            /* -1: too many to label */
	uint64_t nwarn;                       /* check warnings */
};

/* The Nodeid and field 4 of an event with the signature "u64 node, i32 n"
 * (every event of both models but WAM and other codes), read directly: the
 * emulator has checked the payload size against the signature. */
static inline uint64_t vao_node(const struct weft_ev *ev)
{
	return obs_u64(ev->payload, ev->stream->swap);
}

static inline int32_t vao_n(const struct weft_ev *ev)
{
	return (int32_t) obs_u32(ev->payload + 8, ev->stream->swap);
}

/* emu_out of a value only this model writes in (file, row, slot), when it
 * differs from the last one written there (*shown, 0 at first like the
 * Paraver writer's memory): the writer drops equal values anyway, so the
 * output is the same with fewer ops. Every write of such a slot must come
 * through here. */
static inline void vao_set(struct emu *e, int file, int row, int slot, int64_t *shown, int64_t v)
{
	if (*shown != v) {
		*shown = v;
		emu_out(e, file, row, slot, v);
	}
}

/* vao_set on a Paraver file already known to be written (e->out.writing):
 * for a row of several values, tested once. */
static inline void vao_put(struct prv_file *f, int row, int slot, int64_t *shown, int64_t v)
{
	if (*shown != v) {
		*shown = v;
		prv_set(f, row, slot, v);
	}
}

/* thread.row: the row of an agent says which one it is (tid = agent + 1);
 * both models' e->models.thread_name. */
int vao_agent_name(const struct emu *e, const struct emu_thread *t, char *buf, int n);

/* cpu.prv row per stream, none yet (-1): the array vao_agent_cpus fills. */
int *vao_cpu_rows(const struct emu *e);

/* Give every agent of the model its CPU (phyid = agent number = tid - 1):
 * the CPU field of its thread row, its cpu.prv row in cpu_row[stream], and
 * its number on that row in slot sc_agent (nothing without Paraver output).
 * Returns 1: the caller goes on to set the agents' first states, which do
 * not depend on the output (weft stats counts them). */
int vao_agent_cpus(struct emu *e, char model, int *cpu_row, int sc_agent);

/* A consistency check of the model named `model` ("and-fork") failed on
 * the current event: with --strict a model error, else a warning "<model>:
 * agent N at T ns: <message>" (the first VAO_MAX_WARN, then one line saying
 * only the count follows), counted in c->nwarn. Returns 0 or -1. */
#define VAO_MAX_WARN 20
WEFT_MUST_CHECK int vao_check(struct emu *e, struct weft_err *err, struct vao_common *c, const char *model,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The count of check warnings, at the end (nothing when none, or with -q). */
void vao_check_count(const struct emu *e, const struct vao_common *c, const char *model);

/* Activity (AGENT_BUSY '[' / AGENT_IDLE) and its field 4 on the thread row. */
void vao_activity(struct emu *e, const struct vao_common *c, const struct weft_ev *ev,
		  const struct evinfo *in);
/* The WAM id on the thread row. */
void vao_wam(struct emu *e, const struct vao_common *c, const struct weft_ev *ev,
	     const struct evinfo *in);
/* Remember an other-code value for its .pcf label. */
void vao_note_code(struct vao_common *c, int32_t code);
/* The VALUES list of the "other event code" type (nothing when none). */
/* The agents' channels both log models have alike, registered with
 * their titles ("<model>: agent activity", "...: AGENT_BUSY/IDLE field
 * 4", "...: WAM id", "...: other event code"), keys in the model's
 * Paraver table active, nact, wam, other, and the activity's labels. */
void vao_declare_agent(struct emu *e, struct vao_common *c, const char *model);
/* A channel of `file` with its key in the model's Paraver table. */
void vao_slot(struct emu *e, int file, int *slot, const char *key, const char *title);
/* At the end: the other event codes seen, as labels of s_other. */
void vao_label_codes(struct emu *e, const struct vao_common *c);
/* At the end: the node labels "WHAT NODEID #ID" of the dense ids 1..n
 * (Nodeid raw[id - 1] in hex) for thread slot `slot` and CPU slot
 * `cslot`; returns the buffer that holds them (the caller frees it when
 * the run is released; NULL when n is 0). */
char *vao_label_nodes(struct emu *e, int slot, int cslot, const uint64_t *raw, int n, const char *what);

#endif
