/* SPDX-License-Identifier: GPL-3.0-or-later */
/* msg model (X) event table: PICL calls as entries, exits and marks. */
#include "model.h"
#include "msg/msg.h"

static const struct weft_evdecl msg_events[] = {
	{"XE[", 0, "i32 type, i32 a, i32 b, i32 c", "enters PICL event %{type} (data %{a} %{b} %{c})", msg_entry},
	{"XE]", 0, "i32 type, i32 a, i32 b, i32 c", "exits PICL event %{type} (data %{a} %{b} %{c})", msg_exit},
	/* message calls: the same payload with named fields (the importer
	 * picks the row by PICL event type) */
	{"XS[", 0, "i32 type, i32 size, i32 tag, i32 dst",
	 "enters PICL event %{type}: sends %{size} bytes of type %{tag} to processor %{dst}", msg_entry},
	{"XR[", 0, "i32 type, i32 tag, i32 src, i32 proc",
	 "enters PICL event %{type}: receives type %{tag} from processor %{src} process %{proc} (-1: any)", msg_entry},
	{"XR]", 0, "i32 type, i32 size, i32 tag, i32 src",
	 "exits PICL event %{type}: received %{size} bytes of type %{tag} from processor %{src}", msg_exit},
	{"XE.", 0, "i32 type, i32 a, i32 b, i32 c", "marks PICL event %{type} (data %{a} %{b} %{c})", msg_mark},
	{"XP.", 0, "i32 process", "names process %{process} as the partner of its next message", msg_partner},
	/* a mark of a call (record type -2) whose data gives a message or a
	 * request: the entry's and the exit's data read as the call's */
	{"XC.", 1, "i32 type, i32 size, i32 tag, i32 peer, i32 process, i32 req",
	 "marks PICL call %{type}: %{size} bytes of type %{tag}, partner processor %{peer} process "
	 "%{process}, request %{req} (-1: none)",
	 msg_call_mark},
	{"XU.", 0, "i32 rtype, i32 type", "writes user record %{rtype} of event %{type}", msg_user},
	/* kept records (doc/formats/legacy.md §2.4, item 9): a user record
	 * with data (XUd: its first field a number, value = that number in
	 * 10^-9 units; XUt: it is none), a -7 message, subset definitions
	 * (-201, -202, -203) */
	{"XUd", 1, "i32 rtype, i32 type, i64 value, str data",
	 "writes user record %{rtype} of event %{type} with data %{data} (first field: %{value} x 1e-9)", msg_user},
	{"XUt", 1, "i32 rtype, i32 type, str data", "writes user record %{rtype} of event %{type} with data %{data}",
	 msg_user},
	{"XM.", 1, "i32 type, str text", "writes message %{text} (event %{type})", msg_text},
	{"XBp", 1, "i32 id, i32 n, str members", "defines processor subset %{id} of %{n}: %{members}", msg_subset},
	{"XBq", 1, "i32 id, i32 n, str members", "defines process subset %{id} of %{n}: %{members}", msg_subset},
	{"XBe", 1, "i32 id, i32 n, str members", "defines event type subset %{id} of %{n}: %{members}", msg_subset},
	{"XSt", 0, "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits",
	 "states %{value} ns in PICL event %{type} relative to %{ctx} (-101, %{digits} decimals)", msg_stat},
	{"XSc", 0, "i32 type, i64 value, i16 ctx",
	 "states %{value} occurrences of PICL event %{type} relative to %{ctx} (-102)", msg_stat},
	{"XSv", 0, "i32 type, i64 value, i16 ctx",
	 "states a volume of %{value} for PICL event %{type} relative to %{ctx} (-103)", msg_stat},
	/* the same for several rows: processor %{proc} (-1 all, below -1 a
	 * subset), process %{process} (-1 every one of the processor) */
	{"XGt", 1, "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits, i32 proc, i32 process",
	 "states %{value} ns in PICL event %{type} relative to %{ctx} (-101, %{digits} decimals) for processor "
	 "%{proc} process %{process}",
	 msg_stat},
	{"XGc", 1, "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits, i32 proc, i32 process",
	 "states %{value} occurrences of PICL event %{type} relative to %{ctx} (-102) for processor %{proc} "
	 "process %{process}",
	 msg_stat},
	{"XGv", 1, "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits, i32 proc, i32 process",
	 "states a volume of %{value} for PICL event %{type} relative to %{ctx} (-103) for processor %{proc} "
	 "process %{process}",
	 msg_stat},
};

static const struct weft_state_label msg_states[] = {
	{MSG_RUNNING, "Running", {117, 195, 255}},
	{MSG_SENDING, "Sending", {255, 46, 0}},
	{MSG_RECEIVING, "Receiving (blocked)", {0, 0, 255}},
	{MSG_WAITING, "Waiting", {179, 0, 0}},
	{MSG_PROBING, "Probing", {255, 255, 0}},
	{MSG_SYNC, "Sync", {255, 0, 174}},
	{MSG_CLOCKSYNC, "Clock sync", {0, 162, 0}},
	{MSG_IDLE, "Idle", {192, 192, 192}},
	{MSG_OVERHEAD, "Overhead", {139, 121, 177}},
	{MSG_TRACING, "Tracing", {255, 145, 0}},
};

static const struct weft_model_hooks msg_hooks = {
	.setup = msg_setup,
	.finish = msg_finish,
	.pcf = msg_pcf,
	.release = msg_free,
	.states = msg_states,
	.nstates = (int) (sizeof(msg_states) / sizeof(msg_states[0])),
	.op_label = msg_op_label,
	.loom_local = 1,
	.text_value = msg_text_value,
	.text_name = msg_text_name,
	.save = msg_save,
	.load = msg_load,
};

const struct weft_model_def model_msg = {
	.id = 'X',
	.name = "msg",
	.version = "1.0.0",
	.events = msg_events,
	.nevents = (int) (sizeof(msg_events) / sizeof(msg_events[0])),
	.hooks = &msg_hooks,
};
