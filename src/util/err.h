/* SPDX-License-Identifier: GPL-3.0-or-later */
/* err: how weft reports failures.
 * A function that fails fills the caller's weft_err (exit code + message) and
 * returns -1; only the command layer prints the message and exits with the
 * code. Messages name the file, the byte offset or line, the event and what
 * was expected versus found. Warnings go straight to stderr. */
#ifndef WEFT_ERR_H
#define WEFT_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum weft_exit {
	/* success */
	WEFT_OK = 0,
	/* the input is malformed or inconsistent; or the system refuses
	 * something (weft_io_code, weft_sys_hint) */
	WEFT_EINPUT = 1,
	/* bad command line */
	WEFT_EUSAGE = 2,
	/* weft's own fault: a bug */
	WEFT_EINTERNAL = 3
};

struct weft_err {
	int code;
	char msg[4096];
};

/* Record a failure; always returns -1 so callers can `return weft_fail(...)`. */
int weft_fail(struct weft_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* In a function taking (..., fmt, ...): its message formatted into the
 * char array `buf` (cut to fit), for the caller to wrap with where it
 * happened. One macro, not a function: va_start must run in the variadic
 * function itself. */
#define WEFT_VFORMAT(buf, fmt)                                                                             \
	do {                                                                                               \
		va_list weft_ap_;                                                                          \
		va_start(weft_ap_, fmt);                                                                   \
		vsnprintf(buf, sizeof(buf), fmt, weft_ap_);                                                \
		va_end(weft_ap_);                                                                          \
	} while (0)

/* The exit code of a failure the system reported (errnum) while weft made,
 * wrote, renamed or removed a file: whatever the system refuses (permission,
 * a read-only file system, no space, a quota or a file-size limit, too many
 * open files, no memory, an I/O error) is the user's environment, 1; only
 * what says weft called wrongly (EBADF, EFAULT, EINVAL) is weft's own fault,
 * 3. An unusable output name is found before (a usage error, 2). */
int weft_io_code(int errnum);

/* What the user can do about a refusal of the system, as " (...)" to put
 * after strerror(errnum): raise a limit, free memory; "" when weft has
 * nothing to say. */
const char *weft_sys_hint(int errnum);

/* What to do about errnum where the place matters, said after it: for an
 * output (and the temporaries beside it), e.g. "use -o to write
 * elsewhere"; for a temporary in $TMPDIR, e.g. "set TMPDIR to a folder
 * with room". "" otherwise (weft_sys_hint then has the rest: limits). */
const char *weft_out_hint(int errnum);
const char *weft_tmp_hint(int errnum);

/* Record a system failure on an output: the formatted text, then ": " and
 * strerror(errnum), then " (hint)" (weft_out_hint, else weft_sys_hint);
 * the code is weft_io_code(errnum).
 * weft_tmp_fail: the same for a temporary in $TMPDIR. Return -1. */
int weft_out_fail(struct weft_err *e, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int weft_tmp_fail(struct weft_err *e, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Print a warning line "weft: warning: ..." on stderr. */
void weft_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that reports out-of-memory and exits 1 (the system refused,
 * as weft(1) says: the user can raise the limit or free memory); no
 * caller has to handle a NULL. */
void *weft_xmalloc(size_t n);
void *weft_xcalloc(size_t n, size_t sz);
void *weft_xrealloc(void *p, size_t n);
char *weft_xstrdup(const char *s);
/* Formatted string in a new allocation. */
char *weft_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
