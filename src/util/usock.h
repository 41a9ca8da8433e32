/* SPDX-License-Identifier: GPL-3.0-or-later */
/* usock: Unix stream sockets in a private folder (weft serve, weft attach).
 *
 * A server's socket lives in a folder only its user can enter: the folder
 * of PATH is created with mode 0700 when it is missing (and removed by
 * usock_unlisten if it was), and else must be a directory of the user with
 * no access for group or others, so nobody else can connect or put another
 * socket in its place. The socket is bound under a temporary name beside
 * PATH with mode 0600, listened on, then renamed to PATH: a client that
 * finds PATH can connect at once. A live server's PATH is never taken
 * over; a stale socket (nobody listening) is replaced; anything else there
 * is an error. */
#ifndef WEFT_USOCK_H
#define WEFT_USOCK_H

#include "util/err.h"
#include "util/macros.h"

struct usock {
	int fd; /* listening, nonblocking, close-on-exec */
	char *path; /* as given */
	char *made_dir; /* the folder usock_listen created, or NULL */
	unsigned long long dev, ino; /* PATH's, once renamed there */
};

/* 0 with *u filled, or -1 with e filled (WEFT_EUSAGE: the path; otherwise
 * WEFT_EINTERNAL). */
WEFT_MUST_CHECK int usock_listen(struct usock *u, const char *path, struct weft_err *e);
/* Remove PATH (if it is still this socket) and a folder usock_listen made;
 * close the socket. */
void usock_unlisten(struct usock *u);
/* Connect to PATH: a blocking descriptor, or -1 with e filled. */
WEFT_MUST_CHECK int usock_connect(const char *path, struct weft_err *e);

#endif
