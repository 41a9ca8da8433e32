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
	/* the input is malformed or inconsistent; or the system refuses: a
	 * full disk, a quota, a file size, memory, open files, threads */
	WEFT_EINPUT = 1,
	/* bad command line */
	WEFT_EUSAGE = 2,
	/* other I/O failures, a bug */
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

/* The exit code of a failed write or create: a full disk, a quota or a
 * file-size limit is the user's environment (1), anything else internal. */
int weft_io_code(int errnum);

/* What the user can do about a refusal of the system, as " (...)" to put
 * after strerror(errnum): raise a limit, free memory; "" when weft has
 * nothing to say. */
const char *weft_sys_hint(int errnum);

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
