/* SPDX-License-Identifier: GPL-3.0-or-later */
/* and-fork/join model (A) event table: one row per VisAndOr code it
 * receives from the importer (src/import/visandor.c). */
#include "andfork/andfork.h"
#include "model.h"

static const struct weft_evdecl af_events[] = {
	{"AT[", 0, "u64 node, i32 n", "starts the trace (START_TIME, node %{node})", af_time},
	{"AT]", 0, "u64 node, i32 n", "stops the trace (STOP_TIME, node %{node})", af_time},
	{"AF.", 0, "u64 node, i32 n", "forks and-node %{node} into %{n} tasks (FORK)", af_fork},
	{"AG[", 0, "u64 node, i32 n", "starts task %{n} of and-node %{node} (START_GOAL)", af_start},
	{"AG]", 0, "u64 node, i32 n", "finishes task %{n} of and-node %{node} (FINISH_GOAL)", af_finish_goal},
	{"AJ.", 0, "u64 node, i32 n", "joins and-node %{node} (JOIN, field %{n})", af_join},
	{"AA[", 0, "u64 node, i32 n", "finds work (AGENT_BUSY, %{n})", af_busy},
	{"AA]", 0, "u64 node, i32 n", "looks for work (AGENT_IDLE, %{n})", af_busy},
	{"AW=", 0, "u64 wam", "works in WAM %{wam}", af_wam},
	{"AX.", 0, "i32 code, i32 n, u64 node", "emits event code %{code} (node %{node}, field %{n})",
	 af_other},
};

static const struct weft_state_label af_states[] = {
	{AF_ST_RUNNING, "Running goal", {80, 170, 80}},
	{AF_ST_WAITING, "Waiting for join", {230, 150, 40}},
	{AF_ST_IDLE, "Idle", {200, 200, 200}},
};

static const struct weft_model_hooks af_hooks = {
	.setup = af_setup,
	.finish = af_finish,
	.pcf = af_pcf,
	.release = af_free,
	.states = af_states,
	.nstates = (int) (sizeof(af_states) / sizeof(af_states[0])),
};

const struct weft_model_def model_andfork = {
	.id = 'A',
	.name = "andfork",
	.version = "1.0.0",
	.events = af_events,
	.nevents = (int) (sizeof(af_events) / sizeof(af_events[0])),
	.hooks = &af_hooks,
};
