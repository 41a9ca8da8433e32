/* SPDX-License-Identifier: GPL-3.0-or-later */
/* or-branch model (R) event table: one row per VisAndOr code it receives
 * from the importer (src/import/visandor.c). */
#include "model.h"
#include "orbranch/orbranch.h"

static const struct weft_evdecl ob_events[] = {
	{"RT[", 0, "u64 node, i32 n", "starts the trace (START_TIME, node %{node})", orb_time},
	{"RT]", 0, "u64 node, i32 n", "stops the trace (STOP_TIME, node %{node})", orb_time},
	{"RP.", 0, "u64 node, i32 n", "makes or-node %{node} public with %{n} branches (MAKE_PUBLIC)",
	 orb_public},
	{"RB[", 0, "u64 node, i32 n", "starts branch %{n} of or-node %{node} (START_BRANCH)", orb_branch},
	{"RBs", 0, "u64 node, i32 n", "ends branch %{n} of or-node %{node} with success (SUCC_BRANCH)",
	 orb_branch},
	{"RBf", 0, "u64 node, i32 n", "ends branch %{n} of or-node %{node} with failure (FAIL_BRANCH)",
	 orb_branch},
	{"RBp", 0, "u64 node, i32 n", "suspends branch %{n} of or-node %{node} (SUSPEND_BRANCH)",
	 orb_branch},
	{"RBr", 0, "u64 node, i32 n", "resumes branch %{n} of or-node %{node} (RESUME_BRANCH)", orb_branch},
	{"RBc", 0, "u64 node, i32 n", "cuts branch %{n} of or-node %{node} (CUTTING_BRANCH)", orb_branch},
	{"RBl", 0, "u64 node, i32 n", "leaf-cuts branch %{n} of or-node %{node} (LEAF-CUT)", orb_branch},
	{"RS[", 0, "u64 node, i32 n", "joins branch %{n} of or-node %{node} as a slave (START_BUSY)",
	 orb_busy},
	{"RS]", 0, "u64 node, i32 n", "leaves branch %{n} of or-node %{node} as a slave (STOP_BUSY)",
	 orb_busy},
	{"RA[", 0, "u64 node, i32 n", "finds work (AGENT_BUSY, %{n})", orb_active},
	{"RA]", 0, "u64 node, i32 n", "looks for work (AGENT_IDLE, %{n})", orb_active},
	{"RW=", 0, "u64 wam", "works in WAM %{wam}", orb_wam},
	{"RX.", 0, "i32 code, i32 n, u64 node", "emits event code %{code} (node %{node}, field %{n})",
	 orb_other},
};

static const struct weft_state_label ob_states[] = {
	{OB_ST_RUNNING, "Running branch", {60, 140, 220}},
	{OB_ST_SLAVE, "Slave", {170, 90, 200}},
	{OB_ST_IDLE, "Idle", {200, 200, 200}},
};

static const struct weft_model_hooks ob_hooks = {
	.setup = orb_setup,
	.finish = orb_finish,
	.pcf = orb_pcf,
	.release = orb_free,
	.states = ob_states,
	.nstates = (int) (sizeof(ob_states) / sizeof(ob_states[0])),
};

const struct weft_model_def model_orbranch = {
	.id = 'R',
	.name = "orbranch",
	.version = "1.0.0",
	.events = ob_events,
	.nevents = (int) (sizeof(ob_events) / sizeof(ob_events[0])),
	.hooks = &ob_hooks,
};
