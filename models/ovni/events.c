/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni model (O) event table: thread life cycle, affinity, marks, flushes,
 * unordered regions and bursts (doc/models/ovni.md). Each row is the
 * event's whole description: payload (with ovniemu's size rule, model.h),
 * sentence and emulator handler. Beyond the rows, as ovniemu: every OU?
 * is ignored and every OB? is a burst (emu.c). */
#include "model.h"
#include "ovni/ovni.h"
#include "util/macros.h"

static const struct weft_evdecl ovni_events[] = {
	{.mcv = "OHx",
	 .sig = "i32 cpu, [i32 creator, u64 tag]",
	 .desc = "starts running on cpu %{cpu} (created by thread %{creator}, tag %{tag})",
	 .handler = ovni_ohx},
	{.mcv = "OHC",
	 .sig = "[i32 cpu, u64 tag]",
	 .desc = "creates a thread that will run on cpu %{cpu} (tag %{tag})",
	 .handler = ovni_ohc_create},
	{.mcv = "OHp", .sig = "", .desc = "pauses", .handler = ovni_state},
	{.mcv = "OHr", .sig = "", .desc = "resumes", .handler = ovni_state},
	{.mcv = "OHc", .sig = "", .desc = "cools down before sleeping", .handler = ovni_state},
	{.mcv = "OHw", .sig = "", .desc = "warms up after waking", .handler = ovni_state},
	{.mcv = "OHe", .sig = "", .desc = "ends", .handler = ovni_state},
	{.mcv = "OAs", .sig = "i32 cpu; exact", .desc = "moves itself to cpu %{cpu}", .handler = ovni_oas},
	{.mcv = "OAr",
	 .sig = "i32 cpu, i32 tid; exact",
	 .desc = "moves thread %{tid} to cpu %{cpu}",
	 .handler = ovni_oar},
	{.mcv = "OCn", .sig = "[i32 ncpus]", .desc = "reports %{ncpus} cpus (obsolete)", .handler = ovni_ocn},
	{.mcv = "OF[", .sig = "", .desc = "starts flushing its buffer", .handler = ovni_flush},
	{.mcv = "OF]", .sig = "", .desc = "stops flushing its buffer", .handler = ovni_flush},
	{.mcv = "OU[", .sig = "", .desc = "opens an unordered region", .handler = ovni_nop},
	{.mcv = "OU]", .sig = "", .desc = "closes an unordered region", .handler = ovni_nop},
	{.mcv = "OB.", .sig = "bytes data", .desc = "emits a burst probe", .handler = ovni_burst},
	{.mcv = "OM[",
	 .sig = "i64 value, i32 type; exact",
	 .desc = "pushes value %{value} on mark type %{type}",
	 .handler = ovni_mark_push},
	{.mcv = "OM]",
	 .sig = "i64 value, i32 type; exact",
	 .desc = "pops value %{value} from mark type %{type}",
	 .handler = ovni_mark_pop},
	{.mcv = "OM=",
	 .sig = "i64 value, i32 type; exact",
	 .desc = "sets mark type %{type} to value %{value}",
	 .handler = ovni_mark_set},
};

static const struct weft_state_label ovni_states[] = {
	{.value = 0, .label = "Unknown", .rgb = {0, 0, 0}},
	{.value = 1, .label = "Running", .rgb = {70, 130, 230}},
	{.value = 2, .label = "Paused", .rgb = {180, 180, 180}},
	{.value = 3, .label = "Dead", .rgb = {120, 30, 30}},
	{.value = 4, .label = "Cooling", .rgb = {110, 200, 230}},
	{.value = 5, .label = "Warming", .rgb = {240, 170, 60}},
};

static const struct weft_model_par ovni_par = {
	.sliceable = 1,
};

static const struct weft_model_hooks ovni_hooks = {
	.setup = ovni_setup,
	.finish = ovni_finish,
	.release = ovni_free,
	.states = ovni_states,
	.nstates = (int) (ARRAY_SIZE(ovni_states)),
	.par = &ovni_par,
	.ovniemu = 1,
};

/* Its Paraver types (ovniemu's), by the keys its slots are declared with,
 * in the order of their .pcf blocks; a mark of type N: 100 + N. */
static const struct weft_prv_type ovni_paraver[] = {
	{.chan = "cpu", .set = 0, .type = 6},	 {.chan = "tid", .set = 0, .type = 2},
	{.chan = "state", .set = 0, .type = 4},	 {.chan = "flush", .set = 0, .type = 7},
	{.chan = "mark", .set = 0, .type = 100}, {.chan = "pid", .set = 1, .type = 1},
	{.chan = "tid", .set = 1, .type = 2},	 {.chan = "nrun", .set = 1, .type = 3},
	{.chan = "flush", .set = 1, .type = 7},	 {.chan = "mark", .set = 1, .type = 100},
};

const struct weft_model_def model_ovni = {
	.id = 'O',
	.name = "ovni",
	.version = "1.1.0",
	.events = ovni_events,
	.nevents = (int) (ARRAY_SIZE(ovni_events)),
	.hooks = &ovni_hooks,
	.paraver = ovni_paraver,
	.nparaver = (int) (ARRAY_SIZE(ovni_paraver)),
};
