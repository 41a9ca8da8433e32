/* SPDX-License-Identifier: GPL-3.0-or-later */
/* and-fork/join model (A) event table: one row per VisAndOr code it
 * receives from the importer (src/import/visandor.c). */
#include "andfork/andfork.h"
#include "model.h"
#include "util/macros.h"

static const struct weft_evdecl af_events[] = {
	{.mcv = "AT[",
	 .sig = "u64 node, i32 n",
	 .desc = "starts the trace (START_TIME, node %{node})",
	 .handler = af_time},
	{.mcv = "AT]",
	 .sig = "u64 node, i32 n",
	 .desc = "stops the trace (STOP_TIME, node %{node})",
	 .handler = af_time},
	{.mcv = "AF.",
	 .sig = "u64 node, i32 n",
	 .desc = "forks and-node %{node} into %{n} tasks (FORK)",
	 .handler = af_fork},
	{.mcv = "AG[",
	 .sig = "u64 node, i32 n",
	 .desc = "starts task %{n} of and-node %{node} (START_GOAL)",
	 .handler = af_start},
	{.mcv = "AG]",
	 .sig = "u64 node, i32 n",
	 .desc = "finishes task %{n} of and-node %{node} (FINISH_GOAL)",
	 .handler = af_finish_goal},
	{.mcv = "AJ.",
	 .sig = "u64 node, i32 n",
	 .desc = "joins and-node %{node} (JOIN, field %{n})",
	 .handler = af_join},
	{.mcv = "AA[", .sig = "u64 node, i32 n", .desc = "finds work (AGENT_BUSY, %{n})", .handler = af_busy},
	{.mcv = "AA]", .sig = "u64 node, i32 n", .desc = "looks for work (AGENT_IDLE, %{n})", .handler = af_busy},
	{.mcv = "AW=", .sig = "u64 wam", .desc = "works in WAM %{wam}", .handler = af_wam},
	{.mcv = "AX.",
	 .sig = "i32 code, i32 n, u64 node",
	 .desc = "emits event code %{code} (node %{node}, field %{n})",
	 .handler = af_other},
};

static const struct weft_state_label af_states[] = {
	{.value = AF_ST_RUNNING, .label = "Running goal", .rgb = {80, 170, 80}},
	{.value = AF_ST_WAITING, .label = "Waiting for join", .rgb = {230, 150, 40}},
	{.value = AF_ST_IDLE, .label = "Idle", .rgb = {200, 200, 200}},
};

static const struct weft_model_hooks af_hooks = {
	.setup = af_setup,
	.finish = af_finish,
	.release = af_free,
	.states = af_states,
	.nstates = (int) (ARRAY_SIZE(af_states)),
};

/* Its Paraver types (andfork.h), by the keys of its slots, in the order of
 * the .pcf blocks. */
static const struct weft_prv_type af_paraver[] = {
	{.chan = "node", .set = 0, .type = AF_T_NODE},	 {.chan = "task", .set = 0, .type = AF_T_TASK},
	{.chan = "depth", .set = 0, .type = AF_T_DEPTH}, {.chan = "active", .set = 0, .type = AF_T_ACTIVE},
	{.chan = "nact", .set = 0, .type = AF_T_NACT},	 {.chan = "wam", .set = 0, .type = AF_T_WAM},
	{.chan = "other", .set = 0, .type = AF_T_OTHER}, {.chan = "node", .set = 1, .type = AF_T_NODE},
	{.chan = "agent", .set = 1, .type = AF_T_AGENT},
};

const struct weft_model_def model_andfork = {
	.id = 'A',
	.name = "andfork",
	.version = "1.0.0",
	.events = af_events,
	.nevents = (int) (ARRAY_SIZE(af_events)),
	.hooks = &af_hooks,
	.paraver = af_paraver,
	.nparaver = (int) (ARRAY_SIZE(af_paraver)),
};
