/* SPDX-License-Identifier: GPL-3.0-or-later */
/* or-branch model (R) event table: one row per VisAndOr code it receives
 * from the importer (src/import/visandor.c). */
#include "model.h"
#include "orbranch/orbranch.h"
#include "util/macros.h"

static const struct weft_evdecl ob_events[] = {
	{.mcv = "RT[",
	 .sig = "u64 node, i32 n",
	 .desc = "starts the trace (START_TIME, node %{node})",
	 .handler = orb_time},
	{.mcv = "RT]",
	 .sig = "u64 node, i32 n",
	 .desc = "stops the trace (STOP_TIME, node %{node})",
	 .handler = orb_time},
	{.mcv = "RP.",
	 .sig = "u64 node, i32 n",
	 .desc = "makes or-node %{node} public with %{n} branches (MAKE_PUBLIC)",
	 .handler = orb_public},
	{.mcv = "RB[",
	 .sig = "u64 node, i32 n",
	 .desc = "starts branch %{n} of or-node %{node} (START_BRANCH)",
	 .handler = orb_branch},
	{.mcv = "RBs",
	 .sig = "u64 node, i32 n",
	 .desc = "ends branch %{n} of or-node %{node} with success (SUCC_BRANCH)",
	 .handler = orb_branch},
	{.mcv = "RBf",
	 .sig = "u64 node, i32 n",
	 .desc = "ends branch %{n} of or-node %{node} with failure (FAIL_BRANCH)",
	 .handler = orb_branch},
	{.mcv = "RBp",
	 .sig = "u64 node, i32 n",
	 .desc = "suspends branch %{n} of or-node %{node} (SUSPEND_BRANCH)",
	 .handler = orb_branch},
	{.mcv = "RBr",
	 .sig = "u64 node, i32 n",
	 .desc = "resumes branch %{n} of or-node %{node} (RESUME_BRANCH)",
	 .handler = orb_branch},
	{.mcv = "RBc",
	 .sig = "u64 node, i32 n",
	 .desc = "cuts branch %{n} of or-node %{node} (CUTTING_BRANCH)",
	 .handler = orb_branch},
	{.mcv = "RBl",
	 .sig = "u64 node, i32 n",
	 .desc = "leaf-cuts branch %{n} of or-node %{node} (LEAF-CUT)",
	 .handler = orb_branch},
	{.mcv = "RS[",
	 .sig = "u64 node, i32 n",
	 .desc = "joins branch %{n} of or-node %{node} as a slave (START_BUSY)",
	 .handler = orb_busy},
	{.mcv = "RS]",
	 .sig = "u64 node, i32 n",
	 .desc = "leaves branch %{n} of or-node %{node} as a slave (STOP_BUSY)",
	 .handler = orb_busy},
	{.mcv = "RA[", .sig = "u64 node, i32 n", .desc = "finds work (AGENT_BUSY, %{n})", .handler = orb_active},
	{.mcv = "RA]", .sig = "u64 node, i32 n", .desc = "looks for work (AGENT_IDLE, %{n})", .handler = orb_active},
	{.mcv = "RW=", .sig = "u64 wam", .desc = "works in WAM %{wam}", .handler = orb_wam},
	{.mcv = "RX.",
	 .sig = "i32 code, i32 n, u64 node",
	 .desc = "emits event code %{code} (node %{node}, field %{n})",
	 .handler = orb_other},
};

static const struct weft_state_label ob_states[] = {
	{.value = OB_ST_RUNNING, .label = "Running branch", .rgb = {60, 140, 220}},
	{.value = OB_ST_SLAVE, .label = "Slave", .rgb = {170, 90, 200}},
	{.value = OB_ST_IDLE, .label = "Idle", .rgb = {200, 200, 200}},
};

static const struct weft_model_hooks ob_hooks = {
	.setup = orb_setup,
	.finish = orb_finish,
	.release = orb_free,
	.states = ob_states,
	.nstates = (int) (ARRAY_SIZE(ob_states)),
};

/* Its Paraver types (orbranch.h), by the keys of its slots, in the order
 * of the .pcf blocks. */
static const struct weft_prv_type ob_paraver[] = {
	{.chan = "node", .set = 0, .type = OB_T_NODE},	     {.chan = "branch", .set = 0, .type = OB_T_BRANCH},
	{.chan = "outcome", .set = 0, .type = OB_T_OUTCOME}, {.chan = "open", .set = 0, .type = OB_T_OPEN},
	{.chan = "active", .set = 0, .type = OB_T_ACTIVE},   {.chan = "nact", .set = 0, .type = OB_T_NACT},
	{.chan = "wam", .set = 0, .type = OB_T_WAM},	     {.chan = "other", .set = 0, .type = OB_T_OTHER},
	{.chan = "node", .set = 1, .type = OB_T_NODE},	     {.chan = "agent", .set = 1, .type = OB_T_AGENT},
};

const struct weft_model_def model_orbranch = {
	.id = 'R',
	.name = "orbranch",
	.version = "1.0.0",
	.events = ob_events,
	.nevents = (int) (ARRAY_SIZE(ob_events)),
	.hooks = &ob_hooks,
	.paraver = ob_paraver,
	.nparaver = (int) (ARRAY_SIZE(ob_paraver)),
};
