/* prv_writer: sorted Paraver body with patched state ends (see header). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "prv_writer.h"

#define END_WIDTH 20 /* digits of a patchable time */
#define OUTBUF_SIZE (1u << 20)

static char *tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash)
		return weft_xasprintf("%.*s/.%s.weft-tmp-%ld", (int) (slash - path), path, slash + 1,
				      (long) getpid());
	return weft_xasprintf(".%s.weft-tmp-%ld", path, (long) getpid());
}

static void pad20(char *dst, uint64_t v)
{
	for (int i = END_WIDTH - 1; i >= 0; i--) {
		dst[i] = (char) ('0' + v % 10);
		v /= 10;
	}
}

int prv_open(struct prv_file *f, const char *path, const char *date, const char *rest, int nrows,
	     const uint32_t (*ids)[3], int nslots, const int32_t *slot_type, int gzip,
	     struct weft_err *e)
{
	memset(f, 0, sizeof(*f));
	f->path = weft_xstrdup(path);
	f->tmp_path = tmp_name(path);
	f->gzip = gzip;
	f->fd = open(f->tmp_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (f->fd < 0) {
		int er = errno;
		weft_fail(e, WEFT_EINTERNAL, "%s: cannot create: %s", f->tmp_path, strerror(er));
		free(f->path);
		free(f->tmp_path);
		return -1;
	}
	ob_init(&f->ob, f->fd, OUTBUF_SIZE);
	f->nrows = nrows;
	f->nslots = nslots;
	f->rows = weft_xcalloc((size_t) nrows, sizeof(*f->rows));
	for (int r = 0; r < nrows; r++) {
		int n = snprintf(f->rows[r].prefix, sizeof(f->rows[r].prefix), "%u:%u:%u", ids[r][0],
				 ids[r][1], ids[r][2]);
		f->rows[r].prefix_len = (uint32_t) n;
		f->rows[r].head_cpu = ~0u;
	}
	f->slot_str = weft_xcalloc((size_t) nslots + 1, sizeof(*f->slot_str));
	f->slot_len = weft_xcalloc((size_t) nslots + 1, 1);
	for (int s = 0; s < nslots; s++)
		f->slot_len[s] = (uint8_t) snprintf(f->slot_str[s], sizeof(f->slot_str[s]), ":%d:",
						    (int) slot_type[s]);
	f->slot_type = weft_xcalloc((size_t) nslots, sizeof(*f->slot_type));
	memcpy(f->slot_type, slot_type, (size_t) nslots * sizeof(*slot_type));
	f->chan = weft_xcalloc((size_t) nrows * (size_t) nslots, sizeof(*f->chan));
	f->dirty = weft_xcalloc((size_t) nrows * (size_t) nslots, sizeof(*f->dirty));
	f->sdirty = weft_xcalloc((size_t) nrows, sizeof(*f->sdirty));
	ob_str(&f->ob, "#Paraver (");
	ob_str(&f->ob, date);
	ob_str(&f->ob, "):");
	f->ftime_off = f->ob.written + f->ob.len;
	ob_room(&f->ob, END_WIDTH);
	pad20(f->ob.buf + f->ob.len, 0);
	f->ob.len += END_WIDTH;
	ob_str(&f->ob, "_ns:");
	ob_str(&f->ob, rest);
	ob_str(&f->ob, "\n");
	return 0;
}

/* Overwrite 20 digits at absolute offset `off`: in the buffer if it is
 * still there, else in the file. */
static void patch20(struct prv_file *f, uint64_t off, uint64_t v)
{
	char d[END_WIDTH];
	pad20(d, v);
	if (off >= f->ob.written) {
		memcpy(f->ob.buf + (off - f->ob.written), d, END_WIDTH);
		return;
	}
	if (pwrite(f->fd, d, END_WIDTH, (off_t) off) != END_WIDTH && !f->ob.failed)
		f->ob.failed = errno ? errno : EIO;
}

/* "cpu:appl:task:thread:" of a row, rebuilt only when its cpu changed. */
static inline const struct prv_row *row_head(struct prv_row *r)
{
	if (r->head_cpu != r->cpu) {
		uint32_t n = (uint32_t) fmt_u64(r->head, r->cpu);
		r->head[n++] = ':';
		memcpy(r->head + n, r->prefix, r->prefix_len);
		n += r->prefix_len;
		r->head[n++] = ':';
		r->head_len = n;
		r->head_cpu = r->cpu;
	}
	return r;
}

static inline void put_head(struct prv_file *f, char kind, struct prv_row *r)
{
	struct outbuf *o = &f->ob;
	row_head(r);
	o->buf[o->len++] = kind;
	o->buf[o->len++] = ':';
	memcpy(o->buf + o->len, r->head, sizeof(r->head));
	o->len += r->head_len;
}

static void write_states(struct prv_file *f)
{
	struct outbuf *o = &f->ob;
	for (uint32_t k = 0; k < f->nsdirty; k++) {
		struct prv_row *r = &f->rows[f->sdirty[k]];
		r->state_dirty = 0;
		if (r->pend_state == r->state)
			continue;
		if (r->state)
			patch20(f, r->state_end_off, f->now);
		r->state = r->pend_state;
		if (!r->state)
			continue;
		ob_room(o, 128);
		put_head(f, '1', r);
		ob_u64(o, f->now);
		o->buf[o->len++] = ':';
		r->state_end_off = o->written + o->len;
		pad20(o->buf + o->len, f->now);
		o->len += END_WIDTH;
		o->buf[o->len++] = ':';
		ob_u64(o, r->state);
		o->buf[o->len++] = '\n';
		f->nrecords++;
	}
	f->nsdirty = 0;
}

/* Write the values that changed at `now`. Consecutive pairs of one row go
 * on one line ("2:...:time:t1:v1:t2:v2"), and the time is formatted once. */
void prv_flush_now(struct prv_file *f)
{
	if (f->nsdirty)
		write_states(f);
	struct outbuf *o = &f->ob;
	char tbuf[24];
	size_t tlen = fmt_u64(tbuf, f->now);
	uint32_t open_row = ~0u;
	for (uint32_t k = 0; k < f->ndirty; k++) {
		uint32_t i = f->dirty[k];
		struct prv_chan *c = &f->chan[i];
		c->dirty = 0;
		if (c->pend == c->last)
			continue;
		c->last = c->pend;
		uint32_t row = i / (uint32_t) f->nslots, slot = i % (uint32_t) f->nslots;
		if (o->len + 160 > o->cap) {
			if (open_row != ~0u)
				o->buf[o->len++] = '\n';
			ob_drain(o);
			open_row = ~0u;
		}
		if (row != open_row) {
			if (open_row != ~0u)
				o->buf[o->len++] = '\n';
			put_head(f, '2', &f->rows[row]);
			memcpy(o->buf + o->len, tbuf, sizeof(tbuf));
			o->len += tlen;
			open_row = row;
			f->nrecords++;
		}
		memcpy(o->buf + o->len, f->slot_str[slot], sizeof(f->slot_str[slot]));
		o->len += f->slot_len[slot];
		ob_i64(o, c->pend);
	}
	if (open_row != ~0u)
		o->buf[o->len++] = '\n';
	f->ndirty = 0;
}

static void release(struct prv_file *f)
{
	ob_free(&f->ob);
	free(f->rows);
	free(f->slot_type);
	free(f->slot_str);
	free(f->slot_len);
	free(f->chan);
	free(f->dirty);
	free(f->sdirty);
	free(f->path);
	free(f->tmp_path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void prv_abort(struct prv_file *f)
{
	if (f->fd >= 0 && f->tmp_path) {
		close(f->fd);
		unlink(f->tmp_path);
	}
	release(f);
}

static int gzip_copy(int fd, const char *gzpath, struct weft_err *e)
{
	gzFile gz = gzopen(gzpath, "wb6");
	if (!gz)
		return weft_fail(e, WEFT_EINTERNAL, "%s: cannot create", gzpath);
	char *buf = weft_xmalloc(1u << 20);
	int rc = 0;
	if (lseek(fd, 0, SEEK_SET) != 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rewind the temporary trace: %s", strerror(errno));
	for (;;) {
		if (rc)
			break;
		ssize_t n = read(fd, buf, 1u << 20);
		if (n < 0) {
			rc = weft_fail(e, WEFT_EINTERNAL, "cannot read the temporary trace: %s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (gzwrite(gz, buf, (unsigned) n) != (int) n)
			rc = weft_fail(e, WEFT_EINTERNAL, "%s: compression failed", gzpath);
	}
	if (gzclose(gz) != Z_OK && rc == 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: compression failed", gzpath);
	free(buf);
	return rc;
}

int prv_close(struct prv_file *f, uint64_t ftime, struct weft_err *e)
{
	prv_time(f, ftime);
	prv_flush_now(f);
	for (int r = 0; r < f->nrows; r++)
		if (f->rows[r].state)
			patch20(f, f->rows[r].state_end_off, ftime);
	patch20(f, f->ftime_off, ftime);
	int rc = ob_flush(&f->ob, e, f->tmp_path);
	if (rc == 0 && f->gzip) {
		char *gztmp = weft_xasprintf("%s.gz", f->tmp_path);
		char *gzpath = weft_xasprintf("%s.gz", f->path);
		rc = gzip_copy(f->fd, gztmp, e);
		if (rc == 0 && rename(gztmp, gzpath) != 0)
			rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", gztmp, gzpath,
				       strerror(errno));
		if (rc)
			unlink(gztmp);
		unlink(f->tmp_path);
		free(gztmp);
		free(gzpath);
	} else if (rc == 0 && rename(f->tmp_path, f->path) != 0) {
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", f->tmp_path, f->path,
			       strerror(errno));
	}
	if (close(f->fd) != 0 && rc == 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: close failed: %s", f->path, strerror(errno));
	if (rc)
		unlink(f->tmp_path);
	release(f);
	return rc;
}

int write_file_atomic(const char *path, const char *text, size_t len, struct weft_err *e)
{
	char *tmp = tmp_name(path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		int er = errno;
		free(tmp);
		return weft_fail(e, WEFT_EINTERNAL, "%s: cannot create: %s", path, strerror(er));
	}
	struct outbuf o = {.buf = (char *) text, .len = len, .cap = len, .fd = fd};
	ob_drain(&o);
	int rc = 0;
	if (o.failed)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: write failed: %s", path, strerror(o.failed));
	if (close(fd) != 0 && rc == 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "%s: close failed: %s", path, strerror(errno));
	if (rc == 0 && rename(tmp, path) != 0)
		rc = weft_fail(e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}
