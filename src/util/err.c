/* SPDX-License-Identifier: GPL-3.0-or-later */
/* err: failure records, warnings and checked allocation. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/macros.h"

int weft_fail(struct weft_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int weft_io_code(int errnum)
{
	return errnum == EBADF || errnum == EFAULT || errnum == EINVAL ? WEFT_EINTERNAL : WEFT_EINPUT;
}

/* What the user can do, by errno, where it depends on the place: 0 an
 * output, 1 a temporary (the rest: weft_sys_hint). */
static const struct {
	int errnum;
	const char *what[2];
} place_hints[] = {
	{EACCES, {"use -o to write elsewhere", "set TMPDIR to a folder you can write"}},
	{EPERM, {"use -o to write elsewhere", "set TMPDIR to a folder you can write"}},
	{EROFS, {"use -o to write elsewhere", "set TMPDIR to a folder you can write"}},
	{ENOSPC,
	 {"free some space, or use -o to write elsewhere", "free some space, or set TMPDIR to a folder with room"}},
	{EDQUOT,
	 {"free some space, or use -o to write elsewhere", "free some space, or set TMPDIR to a folder with room"}},
	{EFBIG, {"raise the file-size limit: ulimit -f", "raise the file-size limit: ulimit -f"}},
	{EIO,
	 {"the device reported an error: use -o to write elsewhere",
	  "the device reported an error: set TMPDIR elsewhere"}},
};

static const char *hint(int errnum, int where)
{
	for (size_t i = 0; i < ARRAY_SIZE(place_hints); i++)
		if (place_hints[i].errnum == errnum)
			return place_hints[i].what[where];
	return "";
}

const char *weft_out_hint(int errnum)
{
	return hint(errnum, 0);
}

const char *weft_tmp_hint(int errnum)
{
	return hint(errnum, 1);
}

static int sys_fail(struct weft_err *e, int errnum, const char *h, const char *text)
{
	if (*h)
		return weft_fail(e, weft_io_code(errnum), "%s: %s (%s)", text, strerror(errnum), h);
	return weft_fail(e, weft_io_code(errnum), "%s: %s%s", text, strerror(errnum), weft_sys_hint(errnum));
}

int weft_out_fail(struct weft_err *e, int errnum, const char *fmt, ...)
{
	char text[sizeof(e->msg)];
	WEFT_VFORMAT(text, fmt);
	return sys_fail(e, errnum, weft_out_hint(errnum), text);
}

int weft_tmp_fail(struct weft_err *e, int errnum, const char *fmt, ...)
{
	char text[sizeof(e->msg)];
	WEFT_VFORMAT(text, fmt);
	return sys_fail(e, errnum, weft_tmp_hint(errnum), text);
}

const char *weft_sys_hint(int errnum)
{
	static const struct {
		int errnum;
		const char *hint;
	} hints[] = {
		{EMFILE, " (raise the open-file limit: ulimit -n)"},
		{ENFILE, " (the system's open-file table is full: close other programs' files)"},
		{ENOMEM, " (raise the memory limit, ulimit -v, or free memory; emu -j 1 needs the least)"},
		{EAGAIN,
		 " (a limit of the system: memory, ulimit -v, or processes, ulimit -u; or fewer threads: emu -j 1)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(hints); i++)
		if (hints[i].errnum == errnum)
			return hints[i].hint;
	return "";
}

void weft_warn(const char *fmt, ...)
{
	va_list ap;
	fputs("weft: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void oom(size_t n)
{
	fprintf(stderr, "weft: error: out of memory allocating %zu bytes: %s%s\n", n, strerror(ENOMEM),
		weft_sys_hint(ENOMEM));
	exit(WEFT_EINPUT);
}

void *weft_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *weft_xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		oom(n * sz);
	return p;
}

void *weft_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *weft_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = weft_xmalloc(n);
	memcpy(p, s, n);
	return p;
}

char *weft_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	char *p = weft_xmalloc((size_t) n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t) n + 1, fmt, ap);
	va_end(ap);
	return p;
}
