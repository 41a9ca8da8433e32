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
	WEFT_OK = 0,       /* success */
	WEFT_EINPUT = 1,   /* the input is malformed or inconsistent; or the system
			    * refuses an output: full disk, quota, file size */
	WEFT_EUSAGE = 2,   /* bad command line */
	WEFT_EINTERNAL = 3 /* out of memory, other I/O failures, a bug */
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

/* The exit code of a failed write or create: a full disk, a quota or a
 * file-size limit is the user's environment (1), anything else internal. */
int weft_io_code(int errnum);

/* Print a warning line "weft: warning: ..." on stderr. */
void weft_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that reports out-of-memory as an internal error and exits 3:
 * running out of memory is never an input problem to recover from. */
void *weft_xmalloc(size_t n);
void *weft_xcalloc(size_t n, size_t sz);
void *weft_xrealloc(void *p, size_t n);
char *weft_xstrdup(const char *s);
/* Formatted string in a new allocation. */
char *weft_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
