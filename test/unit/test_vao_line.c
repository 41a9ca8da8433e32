/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/import/vao_line.h: the one-pass reader of the common
 * VisAndOr line takes exactly the lines its header describes, with the
 * values a plain reference reader gives, refuses every other line (the
 * importer's careful parser then reads it), and never reads more than
 * VAO_LINE_SPAN bytes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "testutil.h"
#include "import/vao_line.h"
#include "util/macros.h"

static void same(const struct vao_rec *a, const struct vao_rec *b);

/* The line at the start of a buffer of VAO_LINE_SPAN bytes that ends at an
 * unreadable page (the rest after the line is `fill`). Returns the bytes
 * consumed, or -1 for NULL. Every hint gives the same answer. The guarded
 * pages are writable: one copy serves every line of a test. */
static long run_in(uint8_t *g, const char *line, char fill, struct vao_rec *r)
{
	size_t n = strlen(line);
	ck_assert_uint_le(n, VAO_LINE_SPAN);
	memset(g, fill, VAO_LINE_SPAN);
	memcpy(g, line, n);
	static const struct vao_hint hints[4] = {{{0, 0}}, {{1, 1}}, {{0, 1}}, {{1, 0}}};
	long used = -1;
	for (int k = 0; k < 4; k++) {
		struct vao_hint h = hints[k];
		struct vao_rec x;
		memset(&x, 0, sizeof(x));
		const uint8_t *q = vao_line(g, &x, &h);
		long u = q ? (long) (q - g) : -1;
		if (k == 0) {
			used = u;
			*r = x;
		} else {
			ck_assert_int_eq(u, used);
			if (u >= 0)
				same(&x, r);
		}
	}
	return used;
}

static long run(const char *line, char fill, struct vao_rec *r)
{
	static const uint8_t zero[VAO_LINE_SPAN];
	uint8_t *g = (uint8_t *) tu_guard_copy(zero, sizeof(zero));
	long used = run_in(g, line, fill, r);
	tu_guard_free(g);
	return used;
}

/* Reference reader of the grammar in vao_line.h (plain loops, no tricks):
 * 1 when `line` is such a line (ending at its '\n'), with its values. */
static int field(const char **sp, int hex, int sign, int maxd, uint64_t *v, int *neg)
{
	const char *s = *sp;
	*neg = 0;
	if (sign && *s == '-') {
		*neg = 1;
		s++;
	}
	int n = 0;
	*v = 0;
	for (;; s++, n++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (hex && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (hex && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		*v = hex ? *v << 4 | (uint64_t) d : *v * 10 + (uint64_t) d;
	}
	if (n == 0 || n > maxd)
		return 0;
	*sp = s;
	return 1;
}

static int reference(const char *line, struct vao_rec *r)
{
	const char *s = line;
	int k = 0;
	while (*s == ' ')
		s++, k++;
	if (k > 31)
		return 0;
	uint64_t v[6];
	int neg[6];
	static const int hex[6] = {0, 0, 1, 0, 1, 0}, sign[6] = {0, 1, 0, 1, 0, 0};
	static const int maxd[6] = {15, 8, 16, 8, 16, 7};
	for (int i = 0; i < 6; i++) {
		if (!field(&s, hex[i], sign[i], maxd[i], &v[i], &neg[i]))
			return 0;
		if (i < 5 && *s++ != ' ')
			return 0;
	}
	if (*s == ' ')
		s++;
	if (*s != '\n' || v[5] > VAO_MAX_AGENT)
		return 0;
	r->ts = v[0];
	r->code = neg[1] ? -(int32_t) v[1] : (int32_t) v[1];
	r->node = v[2];
	r->f4 = neg[3] ? -(int32_t) v[3] : (int32_t) v[3];
	r->wam = v[4];
	r->ag = (int32_t) v[5];
	return 1;
}

static void same(const struct vao_rec *a, const struct vao_rec *b)
{
	ck_assert_uint_eq(a->ts, b->ts);
	ck_assert_int_eq(a->code, b->code);
	ck_assert_uint_eq(a->node, b->node);
	ck_assert_int_eq(a->f4, b->f4);
	ck_assert_uint_eq(a->wam, b->wam);
	ck_assert_int_eq(a->ag, b->ag);
}

START_TEST(accepts_ciao_lines)
{
	struct vao_rec r;
	ck_assert_int_eq(run("       1 5 0 0 1000 0 \n", 'x', &r), 23);
	ck_assert_uint_eq(r.ts, 1);
	ck_assert_int_eq(r.code, 5);
	ck_assert_uint_eq(r.wam, 0x1000);
	ck_assert_int_eq(r.ag, 0);
	ck_assert_int_eq(run("12345678 1 ABCDEF01 2 ffff 3 \n", '7', &r), 30);
	ck_assert_uint_eq(r.ts, 12345678);
	ck_assert_uint_eq(r.node, 0xabcdef01);
	ck_assert_int_eq(r.f4, 2);
	ck_assert_uint_eq(r.wam, 0xffff);
	ck_assert_int_eq(r.ag, 3);
	const char *big = "123456789012345 -42 0123456789abcdef -99999999 FEDCBA9876543210 1048575\n";
	ck_assert_int_eq(run(big, 'f', &r), (long) strlen(big));
	ck_assert_uint_eq(r.ts, 123456789012345ull);
	ck_assert_int_eq(r.code, -42);
	ck_assert_uint_eq(r.node, 0x0123456789abcdefull);
	ck_assert_int_eq(r.f4, -99999999);
	ck_assert_uint_eq(r.wam, 0xfedcba9876543210ull);
	ck_assert_int_eq(r.ag, 1048575);
	/* 31 leading blanks, 8-digit fields, two-digit agent without the blank */
	char l[128];
	snprintf(l, sizeof(l), "%31s%s", "", "99999999 12345678 1 87654321 F 42\n");
	ck_assert_int_eq(run(l, ' ', &r), (long) strlen(l));
	ck_assert_uint_eq(r.ts, 99999999);
	ck_assert_int_eq(r.code, 12345678);
	ck_assert_int_eq(r.f4, 87654321);
	ck_assert_int_eq(r.ag, 42);
}
END_TEST

START_TEST(refuses_other_lines)
{
	static const char *const bad[] = {
		"1\t5 0 0 0 0\n",          "1 5 0 0 0 0\r\n",          "1  5 0 0 0 0\n",
		"1 5 0x1 0 0 0\n",         "1 +5 0 0 0 0\n",           "1234567890123456 5 0 0 0 0\n",
		"1 5 11223344556677889 0 0 0\n", "1 5 0 0 0 1048576\n", "1 5 0 0 0 00000001\n",
		"1 123456789 0 0 0 0\n",   "1 5 0 0 0\n",              "1 5 0 0 0 0 0\n",
		"1x 5 0 0 0 0\n",          "1 - 0 0 0 0\n",            "1 --5 0 0 0 0\n",
		"\n",                      " \n",                      "1 5 G 0 0 0\n",
		"1 5 0 0 0 -1\n",          "1 5 0 0 0 0  \n",          "1 5 0 0 0 0",
		"1 5 0 0 0 0 x\n",         "1 5 @ 0 0 0\n",            "1 5 ` 0 0 0\n",
		"1 5 0 0 g 0\n",           "1 5 0 0 : 0\n",            "-1 5 0 0 0 0\n",
		"1 5 0 0 0 /\n",
	};
	struct vao_rec r;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (run(bad[i], 'z', &r) != -1)
			ck_abort_msg("accepted '%s'", bad[i]);
		ck_assert_int_eq(reference(bad[i], &r), 0);
	}
	char l[128];
	snprintf(l, sizeof(l), "%32s%s", "", "1 5 0 0 0 0\n");
	ck_assert_int_eq(run(l, ' ', &r), -1);
	/* bytes that are not digits (control bytes look like digits once
	 * their 0x20 bit is set) in a hex field, alone or after a digit, and
	 * in a decimal field */
	for (int c = 1; c < 256; c++) {
		if (c == ' ' || c == '\n' || (c >= '0' && c <= '9'))
			continue;
		int hexdigit = (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		snprintf(l, sizeof(l), "1 5 1%c 0 0 0\n", c);
		ck_assert_int_eq(run(l, '0', &r) != -1, hexdigit);
		snprintf(l, sizeof(l), "1 5 %c 0 0 0\n", c);
		ck_assert_int_eq(run(l, '0', &r) != -1, hexdigit);
		snprintf(l, sizeof(l), "1 5 0 0 7%c 0\n", c);
		ck_assert_int_eq(run(l, '0', &r) != -1, hexdigit);
		snprintf(l, sizeof(l), "1 %c 0 0 0 0\n", c);
		ck_assert_int_eq(run(l, '0', &r), -1);
		snprintf(l, sizeof(l), "1%c 5 0 0 0 0\n", c);
		ck_assert_int_eq(run(l, '0', &r), -1);
		snprintf(l, sizeof(l), "1 5 0 0 0 1%c\n", c);
		ck_assert_int_eq(run(l, '0', &r), -1);
	}
}
END_TEST

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17;
}

/* Random lines of the grammar, and random one-byte changes of them: vao_line
 * and the reference agree on every one. */
START_TEST(agrees_with_reference)
{
	uint64_t seed = 12345;
	static const uint8_t zero[VAO_LINE_SPAN];
	uint8_t *g = (uint8_t *) tu_guard_copy(zero, sizeof(zero));
	static const char bytes[] = "0123456789abcdefABCDEFxX -+\t\r\n/:@`gG";
	for (int it = 0; it < 40000; it++) {
		char l[VAO_LINE_SPAN + 1];
		int len = 0;
		int sp = (int) (next(&seed) % 10);
		int w = 1 + (int) (next(&seed) % 15);
		uint64_t ts = 0;
		for (int i = 0; i < w; i++)
			ts = ts * 10 + next(&seed) % 10;
		if (it % 4 < 2) /* Ciao's %8lu */
			len += snprintf(l + len, sizeof(l) - (size_t) len, "%8llu", (unsigned long long) (ts % 1000000000));
		else
			len += snprintf(l + len, sizeof(l) - (size_t) len, "%*s%llu", sp, "", (unsigned long long) ts);
		len += snprintf(l + len, sizeof(l) - (size_t) len, " %s%d %llX %d %llx %d%s\n", next(&seed) % 8 ? "" : "-", (int) (next(&seed) % 40),
				(unsigned long long) (next(&seed) << (next(&seed) % 30)),
				(int) (next(&seed) % 100000) - 500, (unsigned long long) (next(&seed) % 0x10000000),
				(int) (next(&seed) % 2000), next(&seed) % 2 ? " " : "");
		if (it % 2) {
			int at = (int) (next(&seed) % (uint64_t) len);
			l[at] = bytes[next(&seed) % (sizeof(bytes) - 1)];
		}
		struct vao_rec a, b;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		char fill = "0f \n"[it % 4];
		l[len] = 0;
		long used = run_in(g, l, fill, &a);
		/* the reference reads the line with the same bytes after it */
		char full[VAO_LINE_SPAN + 1];
		memset(full, fill, VAO_LINE_SPAN);
		full[VAO_LINE_SPAN] = 0;
		memcpy(full, l, (size_t) len);
		int ok = reference(full, &b);
		if (it % 2 == 0 && !ok)
			ck_abort_msg("'%.*s': a line of the grammar refused", len, l);
		if ((used >= 0) != ok)
			ck_abort_msg("'%.*s': vao_line %s, reference %s", len, l, used >= 0 ? "takes it" : "refuses",
				     ok ? "takes it" : "refuses");
		if (ok) {
			same(&a, &b);
			ck_assert_int_eq(full[used - 1], '\n');
		}
	}
	tu_guard_free(g);
}
END_TEST

Suite *vao_line_suite(void)
{
	Suite *s = suite_create("vao_line");
	TCase *tc = tcase_create("lines");
	tcase_add_test(tc, accepts_ciao_lines);
	tcase_add_test(tc, refuses_other_lines);
	tcase_add_test(tc, agrees_with_reference);
	suite_add_tcase(s, tc);
	return s;
}
