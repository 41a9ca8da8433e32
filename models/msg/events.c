/* SPDX-License-Identifier: GPL-3.0-or-later */
/* msg model (X) event table: PICL calls as entries, exits and marks. */
#include "model.h"
#include "msg/msg.h"
#include "util/macros.h"

static const struct weft_evdecl msg_events[] = {
	{.mcv = "XE[",
	 .sig = "i32 type, i32 a, i32 b, i32 c",
	 .desc = "enters PICL event %{type} (data %{a} %{b} %{c})",
	 .handler = msg_entry},
	{.mcv = "XE]",
	 .sig = "i32 type, i32 a, i32 b, i32 c",
	 .desc = "exits PICL event %{type} (data %{a} %{b} %{c})",
	 .handler = msg_exit},
	/* message calls: the same payload with named fields (the importer
	 * picks the row by PICL event type) */
	{.mcv = "XS[",
	 .sig = "i32 type, i32 size, i32 tag, i32 dst",
	 .desc = "enters PICL event %{type}: sends %{size} bytes of type %{tag} to processor %{dst}",
	 .handler = msg_entry},
	{.mcv = "XR[",
	 .sig = "i32 type, i32 tag, i32 src, i32 proc",
	 .desc = "enters PICL event %{type}: receives type %{tag} from processor %{src} process %{proc} (-1: any)",
	 .handler = msg_entry},
	{.mcv = "XR]",
	 .sig = "i32 type, i32 size, i32 tag, i32 src",
	 .desc = "exits PICL event %{type}: received %{size} bytes of type %{tag} from processor %{src}",
	 .handler = msg_exit},
	{.mcv = "XE.",
	 .sig = "i32 type, i32 a, i32 b, i32 c",
	 .desc = "marks PICL event %{type} (data %{a} %{b} %{c})",
	 .handler = msg_mark},
	{.mcv = "XP.",
	 .sig = "i32 process",
	 .desc = "names process %{process} as the partner of its next message",
	 .handler = msg_partner},
	/* a mark of a call (record type -2) whose data gives a message or a
	 * request: the entry's and the exit's data read as the call's */
	{.mcv = "XC.",
	 .jumbo = 1,
	 .sig = "i32 type, i32 size, i32 tag, i32 peer, i32 process, i32 req",
	 .desc = "marks PICL call %{type}: %{size} bytes of type %{tag}, partner processor %{peer} process "
		 "%{process}, request %{req} (-1: none)",
	 .handler = msg_call_mark},
	{.mcv = "XU.",
	 .sig = "i32 rtype, i32 type",
	 .desc = "writes user record %{rtype} of event %{type}",
	 .handler = msg_user},
	/* kept records (doc/formats/legacy.md §2.4, item 9): a user record
	 * with data (XUd: its first field a number, value = that number in
	 * 10^-9 units; XUt: it is none), a -7 message, subset definitions
	 * (-201, -202, -203) */
	{.mcv = "XUd",
	 .jumbo = 1,
	 .sig = "i32 rtype, i32 type, i64 value, str data",
	 .desc = "writes user record %{rtype} of event %{type} with data %{data} (first field: %{value} x 1e-9)",
	 .handler = msg_user},
	{.mcv = "XUt",
	 .jumbo = 1,
	 .sig = "i32 rtype, i32 type, str data",
	 .desc = "writes user record %{rtype} of event %{type} with data %{data}",
	 .handler = msg_user},
	{.mcv = "XM.",
	 .jumbo = 1,
	 .sig = "i32 type, str text",
	 .desc = "writes message %{text} (event %{type})",
	 .handler = msg_text},
	{.mcv = "XBp",
	 .jumbo = 1,
	 .sig = "i32 id, i32 n, str members",
	 .desc = "defines processor subset %{id} of %{n}: %{members}",
	 .handler = msg_subset},
	{.mcv = "XBq",
	 .jumbo = 1,
	 .sig = "i32 id, i32 n, str members",
	 .desc = "defines process subset %{id} of %{n}: %{members}",
	 .handler = msg_subset},
	{.mcv = "XBe",
	 .jumbo = 1,
	 .sig = "i32 id, i32 n, str members",
	 .desc = "defines event type subset %{id} of %{n}: %{members}",
	 .handler = msg_subset},
	{.mcv = "XSt",
	 .sig = "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits",
	 .desc = "states %{value} ns in PICL event %{type} relative to %{ctx} (-101, %{digits} decimals)",
	 .handler = msg_stat},
	{.mcv = "XSc",
	 .sig = "i32 type, i64 value, i16 ctx",
	 .desc = "states %{value} occurrences of PICL event %{type} relative to %{ctx} (-102)",
	 .handler = msg_stat},
	{.mcv = "XSv",
	 .sig = "i32 type, i64 value, i16 ctx",
	 .desc = "states a volume of %{value} for PICL event %{type} relative to %{ctx} (-103)",
	 .handler = msg_stat},
	/* the same for several rows: processor %{.mcv = proc} (-1 all, below -1 a
	 * subset), process %{.mcv = process} (-1 every one of the processor) */
	{.mcv = "XGt",
	 .jumbo = 1,
	 .sig = "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits, i32 proc, i32 process",
	 .desc = "states %{value} ns in PICL event %{type} relative to %{ctx} (-101, %{digits} decimals) for processor "
		 "%{proc} process %{process}",
	 .handler = msg_stat},
	{.mcv = "XGc",
	 .jumbo = 1,
	 .sig = "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits, i32 proc, i32 process",
	 .desc = "states %{value} occurrences of PICL event %{type} relative to %{ctx} (-102) for processor %{proc} "
		 "process %{process}",
	 .handler = msg_stat},
	{.mcv = "XGv",
	 .jumbo = 1,
	 .sig = "i32 type, i64 value, i16 ctx, u8 digits, u8 tsdigits, i32 proc, i32 process",
	 .desc = "states a volume of %{value} for PICL event %{type} relative to %{ctx} (-103) for processor %{proc} "
		 "process %{process}",
	 .handler = msg_stat},
};

static const struct weft_state_label msg_states[] = {
	{.value = MSG_RUNNING, .label = "Running", .rgb = {117, 195, 255}},
	{.value = MSG_SENDING, .label = "Sending", .rgb = {255, 46, 0}},
	{.value = MSG_RECEIVING, .label = "Receiving (blocked)", .rgb = {0, 0, 255}},
	{.value = MSG_WAITING, .label = "Waiting", .rgb = {179, 0, 0}},
	{.value = MSG_PROBING, .label = "Probing", .rgb = {255, 255, 0}},
	{.value = MSG_SYNC, .label = "Sync", .rgb = {255, 0, 174}},
	{.value = MSG_CLOCKSYNC, .label = "Clock sync", .rgb = {0, 162, 0}},
	{.value = MSG_IDLE, .label = "Idle", .rgb = {192, 192, 192}},
	{.value = MSG_OVERHEAD, .label = "Overhead", .rgb = {139, 121, 177}},
	{.value = MSG_TRACING, .label = "Tracing", .rgb = {255, 145, 0}},
};

static const struct weft_model_par msg_par = {
	.save = msg_save,
	.load = msg_load,
};

static const struct weft_model_hooks msg_hooks = {
	.setup = msg_setup,
	.finish = msg_finish,
	.release = msg_free,
	.states = msg_states,
	.nstates = (int) (ARRAY_SIZE(msg_states)),
	.op_label = msg_op_label,
	.text_value = msg_text_value,
	.text_name = msg_text_name,
	.par = &msg_par,
};

/* Its Paraver types (msg.h), by the keys of its slots (msg_setup), in
 * the order of the .pcf blocks; each block ends in two blank lines. */
static const struct weft_prv_type msg_paraver[] = {
	{.chan = "call", .set = 0, .type = MSG_T_CALL},
	{.chan = "mark", .set = 0, .type = MSG_T_MARK},
	{.chan = "send_size", .set = 0, .type = MSG_T_SEND_SIZE},
	{.chan = "send_tag", .set = 0, .type = MSG_T_SEND_TAG},
	{.chan = "send_to", .set = 0, .type = MSG_T_SEND_TO},
	{.chan = "recv_size", .set = 0, .type = MSG_T_RECV_SIZE},
	{.chan = "recv_tag", .set = 0, .type = MSG_T_RECV_TAG},
	{.chan = "recv_from", .set = 0, .type = MSG_T_RECV_FROM},
	{.chan = "user", .set = 0, .type = MSG_T_USER_REC},
	{.chan = "user_value", .set = 0, .type = MSG_T_USER_VAL},
	{.chan = "message", .set = 0, .type = MSG_T_MESSAGE},
	{.chan = "user_text", .set = 0, .type = MSG_T_USER_TEXT},
	{.chan = "proc_subset", .set = 0, .type = MSG_T_SUBSET},
	{.chan = "process_subset", .set = 0, .type = MSG_T_SUBSET + 1},
	{.chan = "type_subset", .set = 0, .type = MSG_T_SUBSET + 2},
};

const struct weft_model_def model_msg = {
	.id = 'X',
	.name = "msg",
	.version = "1.0.0",
	.events = msg_events,
	.nevents = (int) (ARRAY_SIZE(msg_events)),
	.hooks = &msg_hooks,
	.paraver = msg_paraver,
	.nparaver = (int) (ARRAY_SIZE(msg_paraver)),
	.pcf_gap = 2,
};
