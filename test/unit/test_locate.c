/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of import_locate (src/import/import.h): asked about an event
 * of a converted stream, the importer names the record that wrote it. A
 * CHARISMA log laid out by hand (charisma-default: little-endian, C struct
 * layout, the offsets below from doc/models/fileio.md's profile) whose
 * client 3 joins with the APP_LOAD at byte 152, reads 64 bytes in the RW
 * at 352 (its end, FR], is written later, when the client's clock gets
 * there: it still names 352) and leaves with the APP_EXIT at 432; a
 * VisAndOr log (lines); an unsorted PICL log, which is read twice
 * (lines of the second reading). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "suites.h"
#include "testutil.h"
#include "trace/obs.h"

static void put(uint8_t *d, size_t at, uint64_t v, int n)
{
	for (int k = 0; k < n; k++)
		d[at + (size_t) k] = (uint8_t) (v >> (8 * k));
}

/* The 456 bytes of the CHARISMA log: magic and version, HEADER at 8 (144
 * bytes), APP_LOAD at 152 (200), RW at 352 (80), APP_EXIT at 432 (24). */
static size_t charisma_log(uint8_t *d)
{
	memset(d, 0, 456);
	put(d, 0, 0x01234567, 4);
	put(d, 4, 1, 4);
	size_t h = 8; /* HEADER */
	put(d, h + 4, 700000000, 4); /* start_date */
	put(d, h + 24, 2164392708u, 4); /* SystemId */
	put(d, h + 28, 1, 1); /* system_type */
	put(d, h + 32, 1, 4); /* md_version */
	memcpy(d + h + 36, "NX/2 R3.3", 9);
	put(d, h + 116, 128, 4); /* num_processors .. memory_per_disk */
	put(d, h + 120, 8, 4);
	put(d, h + 124, 4, 4);
	put(d, h + 128, 4, 4);
	put(d, h + 132, 16, 4);
	put(d, h + 136, 0x3eb0c6f7a0b5ed8dull, 8); /* 1e-6 s per tick */
	size_t l = 152; /* APP_LOAD */
	put(d, l, 1, 2);
	put(d, l + 8, 100, 8); /* timestamp */
	memcpy(d + l + 16, "ocean", 5);
	put(d, l + 176, 501, 4); /* user_id, initial_load_size */
	put(d, l + 180, 65536, 4);
	put(d, l + 184, 7, 4); /* appl_id */
	put(d, l + 188, 1, 2); /* num_clients */
	put(d, l + 192, 3, 4); /* clients[0] */
	size_t r = 352; /* RW */
	put(d, r, 9, 2);
	put(d, r + 8, 140, 8); /* starttime, endtime */
	put(d, r + 16, 145, 8);
	put(d, r + 24, 2, 4); /* file_desc */
	put(d, r + 28, 4, 1); /* operation_type: client, sync read */
	put(d, r + 36, 7, 4); /* appl_id */
	put(d, r + 40, 1, 2); /* num_clients */
	put(d, r + 64, 64, 8); /* requests[0]: IO_size, client_id */
	put(d, r + 72, 3, 4);
	size_t x = 432; /* APP_EXIT */
	put(d, x, 2, 2);
	put(d, x + 8, 200, 8);
	put(d, x + 16, 7, 4);
	return 456;
}

/* For every event of stream `rel` of the conversion of `log` with `o`: the
 * record import_locate names for it, by MCV, checked against want[] (MCV,
 * position; an MCV not listed is not checked). Returns how many events
 * were checked. */
struct want {
	const char *mcv;
	uint64_t pos;
};

static int check_stream(const char *log, const struct import_opts *o, const char *rel, const struct want *want,
			int nwant, int text)
{
	char *dir = tu_mkdtemp();
	struct weft_err e = {0};
	ck_assert_msg(import_to_dir(log, o, dir, &e) == 0, "%s", e.msg);
	char *sd = tu_join(dir, rel);
	char *obs = tu_join(sd, "stream.obs");
	size_t n;
	uint8_t *d = (uint8_t *) tu_read(obs, &n);
	int checked = 0;
	for (size_t off = OBS_HEADER_SIZE; off < n;) {
		struct weft_ev ev;
		size_t sz;
		ck_assert_int_eq(obs_decode(d + off, n - off, 0, &ev, &sz), OBS_EVENT);
		char mcv[4] = {(char) ev.model, (char) ev.cat, (char) ev.val, 0};
		for (int k = 0; k < nwant; k++)
			if (strcmp(want[k].mcv, mcv) == 0) {
				struct import_locate l = {rel, off, 0, 0, 0, 0};
				ck_assert_msg(import_locate(log, o, &l), "%s at %zu: not found", mcv, off);
				ck_assert_int_eq(l.text, text);
				ck_assert_int_eq(l.has_pos, 1);
				ck_assert_msg(l.pos == want[k].pos, "%s at %zu: record %llu, expected %llu", mcv, off,
					      (unsigned long long) l.pos, (unsigned long long) want[k].pos);
				checked++;
			}
		off += sz;
	}
	free(d);
	free(obs);
	free(sd);
	tu_rmtree(dir);
	free(dir);
	return checked;
}

START_TEST(charisma_byte_offsets)
{
	char *dir = tu_mkdtemp();
	char *log = tu_join(dir, "t.bin");
	uint8_t d[456];
	tu_write(log, d, charisma_log(d));
	struct import_opts o = {0};
	o.profile = "charisma-default";
	o.quiet = 1;
	static const struct want want[] = {{"FP+", 152}, {"FRd", 352}, {"FR]", 352}, {"FP-", 432}};
	ck_assert_int_eq(check_stream(log, &o, "loom.node3/proc.8/thread.4", want, 4, 0), 4);
	free(log);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(visandor_lines)
{
	char *dir = tu_mkdtemp();
	char *log = tu_join(dir, "t.vao");
	/* agent 1 starts task 1 (line 5) and finishes it (line 7) */
	tu_write_str(log,
		     "0\n0 5 0 0 0 0\n10 1 A 2 0 0\n20 2 A 0 0 0\n30 2 A 1 1 1\n80 3 A 0 0 0\n90 3 A 1 1 1\n"
		     "95 4 A 2 1 1\n100 6 0 0 1 1\n");
	struct import_opts o = {0};
	o.quiet = 1;
	static const struct want want[] = {{"AG[", 5}, {"AG]", 7}, {"AJ.", 8}, {"AT]", 9}};
	ck_assert_int_eq(check_stream(log, &o, "loom.visandor/proc.1/thread.2", want, 4, 1), 4);
	free(log);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(picl_unsorted_lines)
{
	char *dir = tu_mkdtemp();
	char *log = tu_join(dir, "t.trf");
	/* processor 1's lines first: out of time order, held and sorted */
	tu_write_str(log,
		     "-3 -901 0.0 1 0 0\n-3 -52 0.1 1 0 1 2 4\n-4 -52 0.3 1 0 3 2 8 4 0\n-4 -901 0.4 1 0 0\n"
		     "-3 -901 0.0 0 0 0\n-3 -21 0.2 0 0 3 2 8 4 1\n-4 -21 0.25 0 0 0\n-4 -901 0.4 0 0 0\n");
	struct import_opts o = {0};
	o.quiet = 1;
	static const struct want want1[] = {{"XR[", 2}, {"XR]", 3}};
	ck_assert_int_eq(check_stream(log, &o, "loom.picl.1/proc.2/thread.2", want1, 2, 1), 2);
	static const struct want want0[] = {{"XS[", 6}};
	ck_assert_int_eq(check_stream(log, &o, "loom.picl.0/proc.1/thread.1", want0, 1, 1), 1);
	free(log);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *locate_suite(void)
{
	Suite *s = suite_create("locate");
	TCase *tc = tcase_create("records");
	tcase_add_test(tc, charisma_byte_offsets);
	tcase_add_test(tc, visandor_lines);
	tcase_add_test(tc, picl_unsorted_lines);
	suite_add_tcase(s, tc);
	return s;
}
