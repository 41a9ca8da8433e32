/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writer: buffered ovni stream output (see writer.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/mkdirp.h"
#include "trace/writer.h"

static int append_file(const char *path, const void *data, size_t len, int create)
{
	int flags = O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : O_APPEND);
	int fd = open(path, flags, 0666);
	if (fd < 0)
		return errno;
	const uint8_t *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int er = errno;
			close(fd);
			return er;
		}
		p += n;
		len -= (size_t) n;
	}
	if (close(fd) != 0)
		return errno;
	return 0;
}

int ow_open(struct ovni_writer *w, const char *dir, size_t bufsize, struct weft_err *e)
{
	memset(w, 0, sizeof(*w));
	if (mkdir_p(dir, NULL, e))
		return -1;
	w->obs_path = weft_xasprintf("%s/stream.obs", dir);
	uint8_t hdr[8] = {'o', 'v', 'n', 'i'};
	uint32_t ver = 1;
	memcpy(hdr + 4, &ver, 4);
	int er = append_file(w->obs_path, hdr, sizeof(hdr), 1);
	if (er) {
		weft_out_fail(e, er, "%s: cannot write", w->obs_path);
		free(w->obs_path);
		return -1;
	}
	w->flushed = sizeof(hdr);
	w->cap = bufsize < 64 ? 64 : bufsize;
	w->buf = weft_xmalloc(w->cap);
	return 0;
}

void ow_drain(struct ovni_writer *w)
{
	if (w->len && !w->failed)
		w->failed = append_file(w->obs_path, w->buf, w->len, 0);
	w->flushed += w->len;
	w->len = 0;
}

void ow_event(struct ovni_writer *w, const char mcv[3], uint64_t clock, const void *payload,
	      size_t len)
{
	ow_event_fixed(w, ow_head(mcv, len), clock, payload, len);
}

int ow_close(struct ovni_writer *w, struct weft_err *e)
{
	ow_drain(w);
	int rc = 0;
	if (w->failed)
		rc = weft_out_fail(e, w->failed, "%s: write failed", w->obs_path);
	free(w->buf);
	free(w->obs_path);
	memset(w, 0, sizeof(*w));
	return rc;
}

int ow_write_json(const char *dir, const char *text, struct weft_err *e)
{
	char *path = weft_xasprintf("%s/stream.json", dir);
	int er = append_file(path, text, strlen(text), 1);
	int rc = 0;
	if (er)
		rc = weft_out_fail(e, er, "%s: cannot write", path);
	free(path);
	return rc;
}
