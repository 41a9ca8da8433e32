/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/usock.c: the socket in a private folder — made
 * 0700 when missing and removed with the socket, refused when others may
 * enter it, a file in the way refused, a live socket kept, a stale one
 * replaced — and connecting to it. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/usock.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

static char *dir;

static void setup(void)
{
	dir = tu_mkdtemp();
}

static void teardown(void)
{
	tu_rmtree(dir);
	free(dir);
}

static mode_t mode_of(const char *p)
{
	struct stat st;
	ck_assert_int_eq(lstat(p, &st), 0);
	return st.st_mode;
}

START_TEST(missing_folder_made_private)
{
	char *f = tu_join(dir, "new"), *s = tu_join(f, "s");
	struct usock u;
	struct weft_err e = {0};
	ck_assert_msg(usock_listen(&u, s, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(mode_of(f) & 07777, 0700);
	ck_assert(S_ISSOCK(mode_of(s)));
	ck_assert_uint_eq(mode_of(s) & 0777, 0600);
	int c = usock_connect(s, &e);
	ck_assert_msg(c >= 0, "%s", e.msg);
	close(c);
	usock_unlisten(&u);
	ck_assert_int_ne(access(s, F_OK), 0);
	ck_assert_int_ne(access(f, F_OK), 0); /* the folder it made is gone */
	free(s);
	free(f);
}
END_TEST

START_TEST(refusals)
{
	static const struct {
		mode_t mode; /* of the folder */
		int file; /* a regular file where the socket goes */
		const char *msg;
	} cases[] = {
		{0755, 0,
		 "the socket's folder must be private (yours, mode 0700: others could connect or replace "
		 "the socket); found mode 0755"},
		{0701, 0, "found mode 0701"},
		{0700, 1, "exists and is not a socket"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%zu", i);
		char *f = tu_join(dir, name), *s = tu_join(f, "s");
		ck_assert_int_eq(mkdir(f, 0700), 0);
		ck_assert_int_eq(chmod(f, cases[i].mode), 0);
		if (cases[i].file) {
			FILE *x = fopen(s, "w");
			ck_assert_ptr_nonnull(x);
			fputs("keep", x);
			fclose(x);
		}
		struct usock u;
		struct weft_err e = {0};
		ck_assert_int_eq(usock_listen(&u, s, &e), -1);
		ck_assert_int_eq(e.code, WEFT_EUSAGE);
		ck_assert_msg(strstr(e.msg, cases[i].msg) != NULL, "%s", e.msg);
		if (cases[i].file)
			ck_assert(S_ISREG(mode_of(s))); /* left alone */
		else
			ck_assert_int_ne(access(s, F_OK), 0);
		ck_assert_uint_eq(mode_of(f) & 07777, cases[i].mode);
		free(s);
		free(f);
	}
	struct usock u;
	struct weft_err e = {0};
	char longp[200];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	ck_assert_int_eq(usock_listen(&u, longp, &e), -1);
	ck_assert_msg(strstr(e.msg, "a socket path has at most 107 bytes") != NULL, "%s", e.msg);
}
END_TEST

START_TEST(live_kept_stale_replaced)
{
	char *s = tu_join(dir, "s");
	ck_assert_int_eq(chmod(dir, 0700), 0);
	struct usock a, b;
	struct weft_err e = {0};
	ck_assert_msg(usock_listen(&a, s, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(usock_listen(&b, s, &e), -1);
	ck_assert_msg(strstr(e.msg, "another server is listening there") != NULL, "%s", e.msg);
	ck_assert(S_ISSOCK(mode_of(s)));
	/* a's server dies without removing its socket: stale */
	close(a.fd);
	a.fd = -1;
	ck_assert_msg(usock_listen(&b, s, &e) == 0, "%s", e.msg);
	int c = usock_connect(s, &e);
	ck_assert_msg(c >= 0, "%s", e.msg);
	close(c);
	usock_unlisten(&a); /* not a's socket any more: b's stays */
	ck_assert(S_ISSOCK(mode_of(s)));
	usock_unlisten(&b);
	ck_assert_int_ne(access(s, F_OK), 0);
	ck_assert_int_eq(usock_connect(s, &e), -1);
	ck_assert_msg(strstr(e.msg, "cannot connect") != NULL, "%s", e.msg);
	free(s);
}
END_TEST

Suite *usock_suite(void)
{
	Suite *s = suite_create("usock");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, missing_folder_made_private);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, live_kept_stale_replaced);
	suite_add_tcase(s, tc);
	return s;
}
