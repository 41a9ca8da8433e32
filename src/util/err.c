/* err: failure records, warnings and checked allocation. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

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
	return errnum == ENOSPC || errnum == EDQUOT || errnum == EFBIG ? WEFT_EINPUT : WEFT_EINTERNAL;
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
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
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
