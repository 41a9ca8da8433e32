/* visandor/common: the VisAndOr events both log models share (AGENT_BUSY/
 * AGENT_IDLE activity, WAM ids, other codes). Not a model of its own: the
 * and-fork (A) and or-branch (R) models each keep a struct vao_common and
 * call these from their handlers, after their own bookkeeping. */
#ifndef WEFT_VISANDOR_COMMON_H
#define WEFT_VISANDOR_COMMON_H

#include <stdint.h>

#include "emu.h"
#include "strbuf.h"

struct vao_common {
	int s_active, s_nact, s_wam, s_other; /* thread.prv slots */
	int32_t code[64];                     /* other event codes seen (labels) */
	int ncode;                            /* -1: too many to label */
};

/* Give every agent of the model its CPU (phyid = agent number = tid - 1):
 * the CPU field of its thread row, its cpu.prv row in cpu_row[stream], and
 * its number on that row in slot sc_agent. Returns 0 when there is nothing
 * to write (no Paraver output). */
int vao_agent_cpus(struct emu *e, char model, int *cpu_row, int sc_agent);

/* Activity (AGENT_BUSY '[' / AGENT_IDLE) and its field 4 on the thread row. */
void vao_activity(struct emu *e, const struct vao_common *c, const struct weft_ev *ev,
		  const struct evinfo *in);
/* The WAM id on the thread row. */
void vao_wam(struct emu *e, const struct vao_common *c, const struct weft_ev *ev,
	     const struct evinfo *in);
/* Remember an other-code value for its .pcf label. */
void vao_note_code(struct vao_common *c, int32_t code);
/* The VALUES list of the "other event code" type (nothing when none). */
void vao_pcf_codes(const struct vao_common *c, struct strbuf *b);

#endif
