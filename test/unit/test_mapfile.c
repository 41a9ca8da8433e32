/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/util/mapfile.c: a file that shrinks under its map
 * reads as zeros past its new end instead of killing the process, and is
 * reported as changed; a file left alone is not. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/mapfile.h"
#include "suites.h"
#include "util/macros.h"

/* A temporary file of n bytes of 'x'; its name in path (free it). */
static char *scratch(size_t n)
{
	char *path = strdup("/tmp/weft-test-mapfile-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	char *b = malloc(n);
	memset(b, 'x', n);
	ck_assert_int_eq(write(fd, b, n), (ssize_t) n);
	free(b);
	close(fd);
	return path;
}

/* Each case: the file's size, the size it is cut to after the map (-1:
 * not cut), where it is read after the cut, and what is read there. */
static const struct {
	size_t size;
	long cut;
	size_t at;
	int want;    /* the byte read */
	int fault;   /* the read faulted (SIGBUS, repaired) */
	int changed; /* reported */
} cases[] = {
	{1 << 20, -1, (1 << 20) - 1, 'x', 0, 0}, /* untouched */
	{1 << 20, 100000, 900000, 0, 1, 1},      /* a page past the new end */
	{1 << 20, 100000, 100001, 0, 0, 1},      /* the new end's page: zeros, no fault */
	{1 << 20, 100000, 99999, 'x', 0, 1},     /* before the cut: the file's bytes */
	{3 << 20, 0, (3 << 20) - 1, 0, 1, 1},    /* emptied: every page */
};

/* Each case in its own process (CK_FORK): the registry remembers a
 * changed file for the rest of the process, as a run needs. */
START_TEST(shrinks)
{
	size_t i = (size_t) _i;
	char *path = scratch(cases[i].size);
	struct mapfile m;
	struct weft_err e = {0};
	ck_assert_int_eq(map_open(&m, path, &e), 0);
	if (cases[i].cut >= 0)
		ck_assert_int_eq(truncate(path, cases[i].cut), 0);
	volatile const uint8_t *p = m.data;
	ck_assert_int_eq(p[cases[i].at], cases[i].want);
	ck_assert_int_eq(map_changed(&m), cases[i].fault);
	ck_assert_int_eq(map_inputs_check(&e), cases[i].changed ? -1 : 0);
	if (cases[i].changed) {
		char want[256];
		snprintf(want, sizeof(want), "%s: changed while being read (now %ld bytes)", path, cases[i].cut);
		ck_assert_str_eq(e.msg, want);
		ck_assert_int_eq(e.code, WEFT_EINPUT);
	}
	map_close(&m);
	/* still reported once closed (the commands check before commits) */
	ck_assert_int_eq(map_inputs_check(&e), cases[i].changed ? -1 : 0);
	unlink(path);
	free(path);
}
END_TEST

/* Many maps open at once, opened and closed in turns: the registry keeps
 * up (slots reused, chunks added) and each is its own. */
START_TEST(many)
{
	enum { N = 1000 };
	char *path = scratch(8192);
	struct mapfile *m = calloc(N, sizeof(*m));
	struct weft_err e;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++)
			ck_assert_int_eq(map_open(&m[i], path, &e), 0);
		for (int i = 0; i < N; i++) {
			ck_assert_int_eq(m[i].data[8191], 'x');
			ck_assert_int_eq(map_changed(&m[i]), 0);
			map_close(&m[i]);
		}
	}
	ck_assert_int_eq(map_inputs_check(&e), 0);
	free(m);
	unlink(path);
	free(path);
}
END_TEST

/* A map starts on a block of the kernel's fault-around (MAP_BLOCK), and a
 * file of MAP_REACH or more on a MAP_REACH boundary: the kernel maps
 * blocks of the address, which are then blocks of the file (mapfile.h);
 * every byte reads as the file's. */
START_TEST(aligned)
{
	static const size_t size[] = {1, 4097, 100000, MAP_REACH - 1, MAP_REACH, 3u << 20};
	for (size_t i = 0; i < ARRAY_SIZE(size); i++) {
		char *path = scratch(size[i]);
		struct mapfile m;
		struct weft_err e = {0};
		ck_assert_int_eq(map_open(&m, path, &e), 0);
		size_t align = size[i] >= MAP_REACH ? MAP_REACH : MAP_BLOCK;
		ck_assert_msg((uintptr_t) m.data % align == 0, "%zu bytes mapped at %p", size[i], (void *) m.data);
		ck_assert_int_eq(m.data[0], 'x');
		ck_assert_int_eq(m.data[size[i] - 1], 'x');
		map_close(&m);
		unlink(path);
		free(path);
	}
}
END_TEST

Suite *mapfile_suite(void)
{
	Suite *s = suite_create("mapfile");
	TCase *tc = tcase_create("mapfile");
	tcase_add_loop_test(tc, shrinks, 0, (int) (ARRAY_SIZE(cases)));
	tcase_add_test(tc, many);
	tcase_add_test(tc, aligned);
	suite_add_tcase(s, tc);
	return s;
}
