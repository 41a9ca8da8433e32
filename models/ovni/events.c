/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ovni model (O) event table: thread life cycle, affinity, marks, flushes,
 * unordered regions and bursts (doc/models/ovni.md). Each row is the
 * event's whole description: payload (with ovniemu's size rule, model.h),
 * sentence and emulator handler. Beyond the rows, as ovniemu: every OU?
 * is ignored and every OB? is a burst (emu.c). */
#include "model.h"
#include "ovni/ovni.h"

static const struct weft_evdecl ovni_events[] = {
	{"OHx", 0, "i32 cpu, [i32 creator, u64 tag]",
	 "starts running on cpu %{cpu} (created by thread %{creator}, tag %{tag})", ovni_ohx},
	{"OHC", 0, "[i32 cpu, u64 tag]", "creates a thread that will run on cpu %{cpu} (tag %{tag})", ovni_ohc_create},
	{"OHp", 0, "", "pauses", ovni_state},
	{"OHr", 0, "", "resumes", ovni_state},
	{"OHc", 0, "", "cools down before sleeping", ovni_state},
	{"OHw", 0, "", "warms up after waking", ovni_state},
	{"OHe", 0, "", "ends", ovni_state},
	{"OAs", 0, "i32 cpu; exact", "moves itself to cpu %{cpu}", ovni_oas},
	{"OAr", 0, "i32 cpu, i32 tid; exact", "moves thread %{tid} to cpu %{cpu}", ovni_oar},
	{"OCn", 0, "[i32 ncpus]", "reports %{ncpus} cpus (obsolete)", ovni_ocn},
	{"OF[", 0, "", "starts flushing its buffer", ovni_flush},
	{"OF]", 0, "", "stops flushing its buffer", ovni_flush},
	{"OU[", 0, "", "opens an unordered region", ovni_nop},
	{"OU]", 0, "", "closes an unordered region", ovni_nop},
	{"OB.", 0, "bytes data", "emits a burst probe", ovni_burst},
	{"OM[", 0, "i64 value, i32 type; exact", "pushes value %{value} on mark type %{type}", ovni_mark_push},
	{"OM]", 0, "i64 value, i32 type; exact", "pops value %{value} from mark type %{type}", ovni_mark_pop},
	{"OM=", 0, "i64 value, i32 type; exact", "sets mark type %{type} to value %{value}", ovni_mark_set},
};

static const struct weft_state_label ovni_states[] = {
	{0, "Unknown", {0, 0, 0}},       {1, "Running", {70, 130, 230}},
	{2, "Paused", {180, 180, 180}},  {3, "Dead", {120, 30, 30}},
	{4, "Cooling", {110, 200, 230}}, {5, "Warming", {240, 170, 60}},
};

static const struct weft_model_hooks ovni_hooks = {
	.setup = ovni_setup,
	.finish = ovni_finish,
	.pcf = ovni_pcf,
	.release = ovni_free,
	.states = ovni_states,
	.nstates = (int) (sizeof(ovni_states) / sizeof(ovni_states[0])),
	.loom_local = 1,
	.sliceable = 1,
	.ovniemu = 1,
};

const struct weft_model_def model_ovni = {
	.id = 'O',
	.name = "ovni",
	.version = "1.1.0",
	.events = ovni_events,
	.nevents = (int) (sizeof(ovni_events) / sizeof(ovni_events[0])),
	.hooks = &ovni_hooks,
};
