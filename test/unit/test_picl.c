/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of the PICL importer's fast path (src/import/picl/picl_fast.c):
 * every line it takes gives the record picl_new_line gives, the lines it
 * leaves are the ones it must leave, and no read passes the end of a log
 * (guarded copies end right before an unreadable page). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "import/picl/picl_int.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

extern const struct weft_import_fmt import_picl;

static void picl_init(struct picl *p, struct weft_err *e)
{
	memset(p, 0, sizeof(*p));
	p->path = "t.trf";
	p->err = e;
	p->cap = 16;
	p->r = malloc(p->cap * sizeof(*p->r));
	ck_assert_ptr_nonnull(p->r);
}

static void picl_done(struct picl *p)
{
	free(p->r);
	free(p->tk);
	for (int i = 0; i < p->nlab; i++)
		free(p->lab[i].text);
	free(p->lab);
	for (int i = 0; i < p->nfile; i++)
		free(p->file[i]);
	free(p->file);
	picl_scope_free(p);
}

/* Read `line` with the fast path (followed by "\n" and 7 bytes, the last
 * one readable) and, when it takes it, compare with picl_new_line. Returns
 * 1 if the fast path took it. */
static int fast_vs_slow(const char *line, int with_alias)
{
	size_t n = strlen(line);
	char *buf = malloc(n + 8);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, line, n);
	memcpy(buf + n, "\n-3 9 1", 8);
	const char *g = (const char *) tu_guard_copy(buf, n + 8);
	struct weft_err e1 = {0}, e2 = {0};
	struct picl f, s;
	picl_init(&f, &e1);
	picl_init(&s, &e2);
	if (with_alias) {
		picl_alias_add(&f, 2, "%d%d", 4, -1, -1, -1);
		picl_alias_add(&s, 2, "%d%d", 4, -1, -1, -1);
	}
	unsigned ln = 6;
	const char *end = picl_fast_lines(&f, g, g + 1, &ln, SIZE_MAX);
	int took = end != g;
	if (took) {
		ck_assert_ptr_eq(end, g + n + 1);
		ck_assert_uint_eq(ln, 7);
		ck_assert_uint_eq(f.n, 1);
		ck_assert_int_eq(picl_tokenize(&s, g, g + n), 0);
		ck_assert_msg(picl_new_line(&s, 7) == 0, "fast path took '%s', picl_new_line refuses it: %s", line,
			      e2.msg);
		ck_assert_uint_eq(s.n, 1);
		const struct orec *x = &f.r[0], *y = &s.r[0];
		ck_assert_msg(x->t == y->t && x->line == y->line && x->seq == y->seq && x->proc == y->proc &&
				      x->kind == y->kind && x->sub == y->sub && x->digits == y->digits &&
				      x->type == y->type && x->a == y->a && x->b == y->b && x->c == y->c &&
				      x->d == y->d && x->e == y->e && x->process == y->process,
			      "records differ for '%s'", line);
		ck_assert_int_eq(f.ts_digits, s.ts_digits);
		ck_assert_int_eq(f.has_files, s.has_files);
	} else {
		ck_assert_uint_eq(ln, 6);
		ck_assert_uint_eq(f.n, 0);
	}
	picl_done(&f);
	picl_done(&s);
	tu_guard_free((const uint8_t *) g);
	free(buf);
	return took;
}

START_TEST(plain_lines_taken)
{
	static const char *const lines[] = {
		"-3 -21 0.000428 37 0 3 2 491 3 30",
		"-4 -21 0.000429 37 0 0",
		"-3 -52 0.000430 34 0 1 2 3",
		"-4 -52 0.000430 34 0 3 2 3224 3 16",
		"-3 0 -0.000015 61 0 2 2 0 0",
		"-2 -904 -0.715024 6 0 3 2 1 1 1",
		"7 3 1.5 0 0 0",
		"-3 -901 0 0 0 0",
		"-3 -901 12 32767 0 0",
		"-3 -201 0.000010 0 0 0",
		"-3 -21 0.1 0 -5 3 2 8 7 -1",
		"-3 -21 0.1 0 0 4 3 1 2 3 4",
		"-3 -21 0.1 0 0 3 2 -999999999 999999999 0",
		"-3 -21 123456789.123456789 0 0 0",
		"-3 -21 .5 0 0 0",
		"-3 -21 5. 0 0 0",
		"-3 -21 -0.0 0 0 0",
		"-4 -1 0.12345678 1 0 0",
		"-3\t-21\t0.1 2\t0 0",
		"-3 -21  0.1   2 0 0",
		"-3 -21 0.1 2 0 0   ",
		"-3 -21 0.1 2 0 0\r",
		"-3 -21 0.1 2 0 1 2 5\r",
		"-3 -21 0.1 2 0 1 2 5 \t",
		"-3 -21 0.1 2 0 1\t2 5",
		"-3 -21 0.1 2 0 3 2 8   7 1",
		"12345 -21 0.1 2 0 0",
		"-3 -21 0.000001 2 0 2 3 1 2",
		"-4 -52 0.000430 34 11 4 2 3224 3 16 12", /* a 4th field (the source process) kept */
		"-2 -29 0.1 0 0 1 2 6", /* a mark of a call whose data the model does not read */
	};
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		ck_assert_msg(fast_vs_slow(lines[i], 0), "fast path left '%s'", lines[i]);
}
END_TEST

/* Lines the fast path leaves (they are other records, not plain, or
 * malformed): picl_new_line reads them or reports them. Some would be read
 * the same by both; leaving them only costs time. */
START_TEST(other_lines_left)
{
	static const char *const lines[] = {
		"-5 0 0.0 -1 -1 1 1 \"label\"",
		"-6 -1 0.0 -1 -1 1 \"%d%s\" 7 \"%d\"",
		"-101 -1 0.1 0 0 1 \"%d%lf\" -21 0.5",
		"-1 -21 0.1 0 0 0",
		"-7 -21 0.1 0 0 0",
		"0 0 0.000635 6 0 1 3 7", /* user record data: kept as text */
		"-3 -21 1e-6 0 0 0",
		"-3 -21 1.5E3 0 0 0",
		"-3 -21 0.1234567890 0 0 0",
		"-3 -21 1234567890.1 0 0 0",
		"-3 -21 . 0 0 0",
		"-3 -21 0.1 -1 0 0",
		"-3 -21 0.1 32768 0 0",
		"-3 -21 0.1 0 0 1 1 abc",
		"-3 -21 0.1 0 0 1 4 5",
		"-3 -21 0.1 0 0 1 \"%d\" 5",
		"-3 -21 0.1 0 0 3 2 8 1",
		"-3 -21 0.1 0 0 1 2 8 1",
		"-3 -21 0.1 0 0",
		"-3 -21 0.1 0 0 0 \\",
		"-3 -21 0.1 0 0 1 2 1234567890",
		"-3 -21 0.1 0 0 1 2 - 5",
		"-3 -21 0.1 0 0 1 2 5x",
		"-3 -21x 0.1 0 0 0",
		"-3 -21 0.1x 0 0 0",
		"-3 - 0.1 0 0 0",
		"",
		"   ",
		"trace_start clock 0 0 node 0 event 4",
		"-3 -21 0.1 0 0 1000001",
		"-3 -21 0.1 2 +0 0",
		"+3 -21 0.1 2 0 0",
		"-2 -21 0.1 0 0 4 2 100 5 1 0", /* marks of calls: their data split, picl_new_line */
		"-2 -61 0.1 1 0 4 2 6 200 6 0",
	};
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		ck_assert_msg(!fast_vs_slow(lines[i], 0), "fast path took '%s'", lines[i]);
	/* code 2 redefined by a -6 record */
	ck_assert(!fast_vs_slow("-3 -21 0.1 0 0 1 2 5 6", 1));
	ck_assert(fast_vs_slow("-3 -21 0.1 0 0 1 3 5", 1));
}
END_TEST

/* Whole logs ending right before an unreadable page: with and without a
 * final newline, shorter than 8 bytes, last lines of every length. */
START_TEST(no_read_past_the_end)
{
	static const char *const logs[] = {
		"-3 -901 0.0 0 0 0\n-4 -901 0.5 0 0 0\n",
		"-3 -901 0.0 0 0 0\n-4 -901 0.5 0 0 0",
		"-3 -901 0.0 0 0 0\n-4 -901 0.5 0 0 0\n\n",
		"-3 -901 0.0 0 0 0\n-4 -901 0.123456 0 0 0\n1 2 3\n",
		"-3 -901 0.0 0 0 0\n-4 -901 0.123456 0 0 0\n1 2\n",
		"-3 -901 0.0 0 0 0\n-4 -901 0.123456 0 0 0\n1\n",
		"-3 -901 0.0 0 0 0\n-4 -901 0.1234567 0 0 0\n",
		"-3 -901 0.0 0 0 0\n-4 -901 0.12345678 0 0 0",
		"-3 -901 0.0 0 0 0\n-3 -21 0.25 0 0 3 2 8 1 7\n-4 -21 0.2500001 0 0 0\n-4 -901 1 0 0 0\n",
		"1 2 3\n",
		"-3 -9",
		"-3 -901 0.0 0 0 0\n-4 -901 0.1\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(logs); i++) {
		size_t n = strlen(logs[i]);
		const uint8_t *g = tu_guard_copy(logs[i], n);
		char *dir = tu_mkdtemp();
		struct weft_err e = {0};
		struct import_opts o = {0};
		/* not a file mapping: nothing may be given back */
		struct mapfile m = {.data = g, .size = n, .keep = 1};
		int rc = import_picl.convert("t.trf", &m, &o, dir, &e);
		ck_assert_msg(rc == 0 || strstr(e.msg, "t.trf:"), "log %zu: %s", i, e.msg);
		tu_guard_free(g);
		tu_rmtree(dir);
		free(dir);
	}
}
END_TEST

/* Every format's detector on no bytes at all, as the library API may be
 * called (data NULL, len 0): no format, and no pointer arithmetic on NULL
 * (UBSan, make check-asan; the PICL sniffer did data + 0). */
START_TEST(detect_nothing)
{
	const struct weft_import_fmt *const *f;
	int n = import_formats(&f);
	for (int i = 0; i < n; i++)
		ck_assert_msg(f[i]->detect(NULL, 0) == 0, "%s", f[i]->name);
}
END_TEST

Suite *picl_suite(void)
{
	Suite *s = suite_create("picl");
	TCase *tc = tcase_create("fast");
	tcase_add_unchecked_fixture(tc, tu_base_setup, tu_base_teardown);
	tcase_add_test(tc, plain_lines_taken);
	tcase_add_test(tc, other_lines_left);
	tcase_add_test(tc, no_read_past_the_end);
	tcase_add_test(tc, detect_nothing);
	suite_add_tcase(s, tc);
	return s;
}
