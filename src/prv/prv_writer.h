/* prv_writer: one Paraver .prv body written in time order, fast.
 * Callers set (row, slot) values and row states at a current time that never
 * decreases. Changes at one instant are collected and written when time
 * moves on: at most one value per (row, type, time), only values that differ
 * from the last one written (Paraver reads a missing value as 0), states
 * before events. A state record is written when its interval opens, with a
 * fixed-width end that is patched when it closes (in the buffer, or with
 * pwrite once flushed), so the body stays sorted by first time without
 * holding records back. Numbers are formatted by outbuf's digit-pair code.
 * The file is written under a temporary name and renamed by prv_close();
 * with gzip it is compressed at close. */
#ifndef WEFT_PRV_WRITER_H
#define WEFT_PRV_WRITER_H

#include <stdint.h>

#include "err.h"
#include "outbuf.h"

struct prv_chan {
	int64_t last, pend;
	uint8_t dirty;
};

struct prv_row {
	char prefix[40];     /* "appl:task:thread" */
	uint32_t prefix_len;
	uint32_t cpu;        /* CPU field of this row's records (0 = none) */
	char head[64];       /* "cpu:appl:task:thread:" for the current cpu */
	uint32_t head_len;
	uint32_t head_cpu;   /* cpu the head was built for; ~0 = not built */
	uint32_t state;      /* state of the open record, 0 = none */
	uint32_t pend_state;
	uint8_t state_dirty;
	uint64_t state_end_off; /* absolute offset of the open record's end field */
};

struct prv_file {
	char *path, *tmp_path;
	int fd;
	int gzip;
	struct outbuf ob;
	uint64_t now;        /* current time, ns from the trace start */
	int nrows, nslots;
	struct prv_row *rows;
	int32_t *slot_type;  /* Paraver event type of each slot */
	char (*slot_str)[16]; /* ":type:" of each slot */
	uint8_t *slot_len;
	struct prv_chan *chan; /* nrows * nslots */
	uint32_t *dirty;     /* channel indices changed at `now` */
	uint32_t ndirty;
	uint32_t *sdirty;    /* rows whose state changed at `now` */
	uint32_t nsdirty;
	uint64_t ftime_off;  /* offset of the header's FTIME digits */
	uint64_t nrecords;
};

/* Create PATH's temporary file and write the header
 * "#Paraver (DATE):<FTIME>_ns:<rest>". `ids[r]` is row r's appl:task:thread. */
int prv_open(struct prv_file *f, const char *path, const char *date, const char *rest, int nrows,
	     const uint32_t (*ids)[3], int nslots, const int32_t *slot_type, int gzip,
	     struct weft_err *e);

void prv_flush_now(struct prv_file *f);

static inline void prv_time(struct prv_file *f, uint64_t t)
{
	if (t != f->now) {
		if (f->ndirty || f->nsdirty)
			prv_flush_now(f);
		f->now = t;
	}
}

static inline void prv_set(struct prv_file *f, int row, int slot, int64_t value)
{
	uint32_t i = (uint32_t) row * (uint32_t) f->nslots + (uint32_t) slot;
	struct prv_chan *c = &f->chan[i];
	c->pend = value;
	if (!c->dirty && value != c->last) {
		c->dirty = 1;
		f->dirty[f->ndirty++] = i;
	}
}

static inline void prv_state(struct prv_file *f, int row, uint32_t state)
{
	struct prv_row *r = &f->rows[row];
	r->pend_state = state;
	if (!r->state_dirty && state != r->state) {
		r->state_dirty = 1;
		f->sdirty[f->nsdirty++] = (uint32_t) row;
	}
}

static inline void prv_cpu(struct prv_file *f, int row, uint32_t cpu)
{
	f->rows[row].cpu = cpu;
}

/* Write what is pending, close open states at `ftime`, patch the header's
 * end time, compress if asked, and rename into place. */
int prv_close(struct prv_file *f, uint64_t ftime, struct weft_err *e);
/* Remove the temporary file and release everything. */
void prv_abort(struct prv_file *f);

/* Write `text` to PATH through a temporary file and rename. */
int write_file_atomic(const char *path, const char *text, size_t len, struct weft_err *e);

#endif
