/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_clock: the input is the text of a clock file (`weft -c FILE`).
 *
 * clockfile_parse() over the bytes as they are (a buffer of exactly their
 * size, no NUL terminator: a read past it is a heap overflow), which tells
 * weft's JSON form from ovnisync's offset and drift tables by content; then
 * clockfile_parse_json() and ovnisync_parse() each over the same bytes, so
 * both parsers see every input whatever its form.
 * When a parse succeeds: the form is one of the three, every entry has a
 * non-empty name, the count is within the capacity, and clockfile_find()
 * finds an entry under each entry's name. When it fails: the error is an
 * input error with a non-empty, terminated message. Every table is freed
 * (a leak is reported by LeakSanitizer).
 *
 * Nothing is printed and no file is written; a broken invariant aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock/clockfile.h"

#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_PATH "fuzz/clock"

static void check_table(struct clock_table *t)
{
	check(t->form == CLOCK_FORM_WEFT || t->form == CLOCK_FORM_OFFSETS ||
	      t->form == CLOCK_FORM_DRIFT);
	check(t->n >= 0 && t->n <= t->cap);
	check(t->n == 0 || t->ent != NULL);
	for (int i = 0; i < t->n; i++) {
		struct clock_entry *c = &t->ent[i];
		check(c->name && c->name[0]);
		check(c->nsamples >= 0);
		check(clockfile_find(t, c->by_host ? "" : c->name,
				     c->by_host ? c->name : "") != NULL);
	}
	check(clockfile_form_name(t->form) != NULL);
}

typedef int (*parse_fn)(struct clock_table *, const char *, size_t, const char *,
			struct weft_err *);

static void run(parse_fn parse, const char *text, size_t size)
{
	struct clock_table t;
	struct weft_err e = {0};
	memset(&t, 0, sizeof(t));
	if (parse(&t, text, size, FUZZ_PATH, &e) == 0)
		check_table(&t);
	else
		check_err_code(&e, WEFT_EINPUT);
	clockfile_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	check(text != NULL);
	if (size)
		memcpy(text, data, size);
	run(clockfile_parse, text, size);
	run(clockfile_parse_json, text, size);
	run(ovnisync_parse, text, size);
	free(text);
	return 0;
}
