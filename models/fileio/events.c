/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fileio model (F) event table: one row per event, shared by dump, top,
 * query, the emulator and the docs (doc/models/fileio.md). */
#include "fileio/fileio.h"
#include "model.h"

static const struct weft_evdecl fileio_events[] = {
	{"FP+", 0, "", "joins its application", fio_member},
	{"FP-", 0, "", "leaves its application", fio_member},
	{"FO.", 0, "i32 fd, i32 file, i32 flags",
	 "opens file %{file} as descriptor %{fd} (open flags %{flags})", fio_open},
	{"FOa", 0, "i32 fd, i32 file, i32 flags",
	 "opens file %{file} as descriptor %{fd} with its application (open flags %{flags})", fio_open},
	{"FC.", 0, "i32 fd, i64 size", "closes descriptor %{fd} (file size %{size})", fio_close},
	{"FCa", 0, "i32 fd, i64 size", "closes descriptor %{fd} with its application (file size %{size})",
	 fio_close},
	{"FD.", 0, "i32 fd, i32 aid", "addresses descriptor %{fd} (async id %{aid})", fio_desc},
	{"FR[", 0, "i64 size, i64 offset", "starts reading %{size} bytes at offset %{offset}", fio_rw},
	{"FR]", 0, "", "ends reading", fio_rw},
	{"FW[", 0, "i64 size, i64 offset", "starts writing %{size} bytes at offset %{offset}", fio_rw},
	{"FW]", 0, "", "ends writing", fio_rw},
	{"FRa", 0, "i64 size, i64 offset", "issues an asynchronous read of %{size} bytes at offset %{offset}",
	 fio_async},
	{"FWa", 0, "i64 size, i64 offset", "issues an asynchronous write of %{size} bytes at offset %{offset}",
	 fio_async},
	/* a request naming its descriptor (FD. and the request in one event) */
	{"FRd", 1, "i64 size, i64 offset, i32 fd, i32 aid",
	 "starts reading %{size} bytes at offset %{offset} of descriptor %{fd} (async id %{aid})", fio_rw},
	{"FWd", 1, "i64 size, i64 offset, i32 fd, i32 aid",
	 "starts writing %{size} bytes at offset %{offset} of descriptor %{fd} (async id %{aid})", fio_rw},
	{"FRA", 1, "i64 size, i64 offset, i32 fd, i32 aid",
	 "issues an asynchronous read of %{size} bytes at offset %{offset} of descriptor %{fd} (async id %{aid})",
	 fio_async},
	{"FWA", 1, "i64 size, i64 offset, i32 fd, i32 aid",
	 "issues an asynchronous write of %{size} bytes at offset %{offset} of descriptor %{fd} (async id %{aid})",
	 fio_async},
	{"FA[", 0, "i32 aid", "waits for asynchronous request %{aid}", fio_wait},
	{"FA]", 0, "i32 aid", "sees asynchronous request %{aid} complete", fio_wait},
	{"FE.", 0, "i32 file, i64 size", "extends file %{file} to %{size} bytes", fio_size},
	{"FT.", 0, "i32 file, i64 size", "truncates file %{file} to %{size} bytes", fio_size},
	{"FL.", 0, "i32 file, i32 links", "links file %{file} (now %{links} links)", fio_link},
	{"FU.", 0, "i32 file, i32 links", "unlinks file %{file} (now %{links} links)", fio_link},
	{"FF.", 0, "i32 fd, i32 request, i32 arg", "calls fcntl %{request} (arg %{arg}) on descriptor %{fd}",
	 fio_fcntl},
	/* a file's name (PICL -201 opens name theirs): labels its file id */
	{"FN.", 1, "i32 file, str name", "names file %{file} %{name}", fio_name},
	{"Fo[", 0, "", "starts opening a file", fio_span},
	{"Fo]", 0, "", "ends opening a file", fio_span},
	{"Fc[", 0, "", "starts closing a file", fio_span},
	{"Fc]", 0, "", "ends closing a file", fio_span},
};

static const struct weft_state_label fileio_states[] = {
	{FS_READ, "Reading", {80, 200, 80}},
	{FS_WRITE, "Writing", {220, 60, 60}},
	{FS_WAIT, "Waiting for I/O", {240, 200, 40}},
	{FS_OPENING, "Opening", {90, 160, 230}},
	{FS_CLOSING, "Closing", {170, 100, 210}},
};

static const struct weft_model_hooks fileio_hooks = {
	.setup = fio_setup,
	.pcf = fio_pcf,
	.release = fio_free,
	.states = fileio_states,
	.nstates = (int) (sizeof(fileio_states) / sizeof(fileio_states[0])),
	.op_label = fio_op_label,
};

const struct weft_model_def model_fileio = {
	.id = 'F',
	.name = "fileio",
	.version = "1.0.0",
	.events = fileio_events,
	.nevents = (int) (sizeof(fileio_events) / sizeof(fileio_events[0])),
	.hooks = &fileio_hooks,
};
