/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fileio model (F): file-system requests of legacy logs (CHARISMA, and the
 * PICL file I/O events). Private to the model folder: the handlers named by
 * its event table and the setup/pcf/release hooks. Paraver types 1070-1099,
 * thread states 50-59 (doc/models/fileio.md). */
#ifndef WEFT_FILEIO_H
#define WEFT_FILEIO_H

#include "emu/emu.h"
#include "util/strbuf.h"
#include "util/macros.h"

enum fio_state { FS_READ = 50, FS_WRITE, FS_WAIT, FS_OPENING, FS_CLOSING };

/* Paraver event types (thread.prv). */
enum {
	FT_BREAD = 1070, FT_BWRITE, FT_FILE, FT_OFFSET, FT_NOPEN, FT_INFLIGHT, FT_OP, FT_FSIZE,
	FT_LINKS, FT_FCNTL, FT_FLAGS
};
#define FT_CPU_IO 1090      /* cpu.prv: clients in I/O (nodes with two or more) */
#define FT_CPU_MEMBERS 1091 /* cpu.prv: clients in an application */
#define FT_FIRST FT_BREAD
#define FT_COUNT (FT_FLAGS - FT_BREAD + 1)

/* Values of FT_OP, the punctual file operations. */
enum { FOP_OPEN = 1, FOP_CLOSE, FOP_EXTEND, FOP_TRUNC, FOP_LINK, FOP_UNLINK, FOP_FCNTL, FOP_APPOPEN,
       FOP_APPCLOSE };

/* Operations counted for weft stats (emu_acct_op): numbered as PICL numbers
 * its file I/O event types (Table 4), so PICL's statistics records compare
 * with them directly; the rest are positive. */
enum {
	FIO_OP_OPEN = -201, FIO_OP_CLOSE = -202, FIO_OP_WRITE = -221, FIO_OP_READ = -251,
	FIO_OP_AREAD = 1, FIO_OP_AWRITE, FIO_OP_WAIT, FIO_OP_EXTEND, FIO_OP_TRUNC, FIO_OP_LINK, FIO_OP_UNLINK,
	FIO_OP_FCNTL
};

WEFT_MUST_CHECK int fio_setup(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
WEFT_MUST_CHECK int fio_finish(struct emu *e, const struct weft_model_def *self, struct weft_err *err);
extern const char *const fio_keys[FT_COUNT];
void fio_op_label(const struct emu *e, int thread, int32_t op, char *buf, int n);
void fio_free(struct emu *e, const struct weft_model_def *self);

WEFT_MUST_CHECK int fio_member(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_open(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_close(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_desc(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_rw(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_async(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_wait(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_size(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_link(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_fcntl(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_span(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
WEFT_MUST_CHECK int fio_name(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);

#endif
