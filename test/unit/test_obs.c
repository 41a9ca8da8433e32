/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/trace/obs.c: file header, event decoding, errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/obs.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

/* Decode the whole buffer from a guarded copy (reads past n fault). */
static int decode_guarded(const void *src, size_t n, int swap, struct weft_ev *ev, size_t *size)
{
	const uint8_t *p = tu_guard_copy(src, n);
	int r = obs_decode(p, n, swap, ev, size);
	/* keep the payload pointer meaningful for the caller: rebase it */
	if (r == OBS_EVENT)
		ev->payload = (const uint8_t *) src + (ev->payload - p);
	tu_guard_free(p);
	return r;
}

/* ---- file header ---------------------------------------------------------- */

START_TEST(header_little_endian)
{
	const uint8_t h[8] = {'o', 'v', 'n', 'i', 1, 0, 0, 0};
	struct weft_err e = {0};
	int swap = 77;
	const uint8_t *p = tu_guard_copy(h, 8);
	ck_assert_int_eq(obs_check_header(p, 8, &swap, "s.obs", &e), 0);
	tu_guard_free(p);
	ck_assert_int_eq(swap, tu_host_be() ? 1 : 0);
}
END_TEST

START_TEST(header_big_endian)
{
	const uint8_t h[8] = {'o', 'v', 'n', 'i', 0, 0, 0, 1};
	struct weft_err e = {0};
	int swap = 77;
	ck_assert_int_eq(obs_check_header(h, 8, &swap, "s.obs", &e), 0);
	ck_assert_int_eq(swap, tu_host_be() ? 0 : 1);
}
END_TEST

START_TEST(header_longer_buffer_ok)
{
	/* a header followed by anything: only the first 8 bytes matter */
	const uint8_t h[12] = {'o', 'v', 'n', 'i', 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
	struct weft_err e = {0};
	int swap = -1;
	ck_assert_int_eq(obs_check_header(h, sizeof(h), &swap, "s.obs", &e), 0);
	ck_assert_int_eq(swap, tu_host_be() ? 1 : 0);
}
END_TEST

START_TEST(header_empty)
{
	struct weft_err e = {0};
	int swap = 5;
	ck_assert_int_eq(obs_check_header(NULL, 0, &swap, "dir/stream.obs", &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, "dir/stream.obs: empty file, expected the 8-byte stream header");
	ck_assert_int_eq(swap, 5);
}
END_TEST

/* Every length from 1 to 7 is an incomplete header (loop over _i). */
START_TEST(header_short)
{
	const uint8_t h[8] = {'o', 'v', 'n', 'i', 1, 0, 0, 0};
	size_t n = (size_t) _i;
	struct weft_err e = {0};
	int swap = 0;
	const uint8_t *p = tu_guard_copy(h, n);
	ck_assert_int_eq(obs_check_header(p, n, &swap, "x.obs", &e), -1);
	tu_guard_free(p);
	char want[128];
	snprintf(want, sizeof(want), "x.obs: incomplete stream header: %zu bytes, expected at least 8",
		 n);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
}
END_TEST

START_TEST(header_bad_magic)
{
	const uint8_t h[8] = {'O', 'V', 'N', 'I', 1, 0, 0, 0};
	struct weft_err e = {0};
	int swap = 0;
	ck_assert_int_eq(obs_check_header(h, 8, &swap, "a/stream.obs", &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, "a/stream.obs: bad magic at byte offset 0: expected \"ovni\" "
				"(6f 76 6e 69), found 4f 56 4e 49");
	const uint8_t z[8] = {0};
	ck_assert_int_eq(obs_check_header(z, 8, &swap, "z", &e), -1);
	ck_assert_str_eq(e.msg, "z: bad magic at byte offset 0: expected \"ovni\" (6f 76 6e 69), "
				"found 00 00 00 00");
}
END_TEST

START_TEST(header_bad_version)
{
	struct weft_err e = {0};
	int swap = 0;
	const uint8_t v2[8] = {'o', 'v', 'n', 'i', 2, 0, 0, 0};
	ck_assert_int_eq(obs_check_header(v2, 8, &swap, "s.obs", &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, "s.obs: unsupported stream format version at byte offset 4: expected "
				"1 (in either byte order), found bytes 02 00 00 00");
	const uint8_t v0[8] = {'o', 'v', 'n', 'i', 0, 0, 0, 0};
	ck_assert_int_eq(obs_check_header(v0, 8, &swap, "s.obs", &e), -1);
	ck_assert_str_eq(e.msg, "s.obs: unsupported stream format version at byte offset 4: expected "
				"1 (in either byte order), found bytes 00 00 00 00");
	/* 1 in both halves is 1 in neither byte order */
	const uint8_t vb[8] = {'o', 'v', 'n', 'i', 1, 0, 0, 1};
	ck_assert_int_eq(obs_check_header(vb, 8, &swap, "s.obs", &e), -1);
	ck_assert_str_eq(e.msg, "s.obs: unsupported stream format version at byte offset 4: expected "
				"1 (in either byte order), found bytes 01 00 00 01");
	const uint8_t vm[8] = {'o', 'v', 'n', 'i', 0, 1, 0, 0};
	ck_assert_int_eq(obs_check_header(vm, 8, &swap, "s.obs", &e), -1);
	ck_assert_str_eq(e.msg, "s.obs: unsupported stream format version at byte offset 4: expected "
				"1 (in either byte order), found bytes 00 01 00 00");
}
END_TEST

/* ---- integer readers -------------------------------------------------------- */

START_TEST(int_readers)
{
	/* unaligned on purpose: the values start at offset 1 */
	const uint8_t b[9] = {0xee, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
	int le_swap = tu_host_be(); /* swap needed to read little-endian bytes */
	int be_swap = !le_swap;
	ck_assert_uint_eq(obs_u16(b + 1, le_swap), 0x0201u);
	ck_assert_uint_eq(obs_u16(b + 1, be_swap), 0x0102u);
	ck_assert_uint_eq(obs_u32(b + 1, le_swap), 0x04030201u);
	ck_assert_uint_eq(obs_u32(b + 1, be_swap), 0x01020304u);
	ck_assert(obs_u64(b + 1, le_swap) == 0x0807060504030201ull);
	ck_assert(obs_u64(b + 1, be_swap) == 0x0102030405060708ull);
	const uint8_t ff[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
	ck_assert(obs_u64(ff, le_swap) == 0xfeffffffffffffffull);
	ck_assert(obs_u64(ff, be_swap) == 0xfffffffffffffffeull);
	ck_assert_uint_eq(obs_u16(ff + 6, le_swap), 0xfeffu);
	ck_assert_uint_eq(obs_u32(ff + 4, be_swap), 0xfffffffeu);
}
END_TEST

/* ---- normal events ---------------------------------------------------------- */

/* Size codes 0..15 (loop over _i): 0 → no payload, c → c+1 bytes. */
START_TEST(size_codes)
{
	unsigned code = (unsigned) _i;
	size_t plen = code ? code + 1 : 0;
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_ev_flags(&b, (uint8_t) code, "Abc", 0x1122334455667788ull);
	ck_assert_uint_eq(b.n, 12 + plen);
	struct weft_ev ev;
	memset(&ev, 0x5a, sizeof(ev));
	size_t size = 0;
	ck_assert_int_eq(decode_guarded(b.d, b.n, 0, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, 12 + plen);
	ck_assert_uint_eq(ev.payload_len, plen);
	ck_assert_int_eq(ev.jumbo, 0);
	ck_assert_int_eq(ev.model, 'A');
	ck_assert_int_eq(ev.cat, 'b');
	ck_assert_int_eq(ev.val, 'c');
	ck_assert(ev.clock == 0x1122334455667788ull);
	ck_assert_ptr_eq(ev.payload, b.d + 12);
	for (size_t i = 0; i < plen; i++)
		ck_assert_uint_eq(ev.payload[i], 0xa0 + i);
	eb_free(&b);
}
END_TEST

/* The reserved bits 5..7 do not change the size (loop over size codes). */
START_TEST(reserved_bits_ignored)
{
	unsigned code = (unsigned) _i;
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_ev_flags(&b, (uint8_t) (0xe0 | code), "OHx", 42);
	struct weft_ev ev;
	size_t size = 0;
	ck_assert_int_eq(decode_guarded(b.d, b.n, 0, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, 12 + (code ? code + 1 : 0));
	ck_assert_int_eq(ev.jumbo, 0);
	ck_assert(ev.clock == 42);
	eb_free(&b);
}
END_TEST

START_TEST(only_first_event_decoded)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	uint8_t pl[4] = {1, 2, 3, 4};
	eb_ev(&b, "OHx", 100, pl, 4);
	eb_ev(&b, "OHe", 200, NULL, 0);
	struct weft_ev ev;
	size_t size = 0;
	ck_assert_int_eq(obs_decode(b.d, b.n, 0, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, 16);
	ck_assert(ev.clock == 100);
	ck_assert_int_eq(obs_decode(b.d + size, b.n - size, 0, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, 12);
	ck_assert(ev.clock == 200);
	ck_assert_int_eq(ev.val, 'e');
	ck_assert_uint_eq(ev.payload_len, 0);
	eb_free(&b);
}
END_TEST

/* The worked example of doc/formats/ovni.md §2.6, byte for byte. */
START_TEST(worked_example)
{
	static const uint8_t ex[] = {
		0x6f, 0x76, 0x6e, 0x69, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x4f, 0x48, 0x78, 0x40, 0x42,
		0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x4f, 0x4d, 0x3d, 0x3a, 0x43,
		0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x00, 0x00, 0x00, 0x13, 0x56, 0x59, 0x63, 0xd0, 0x43, 0x0f, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x69, 0x6f, 0x00, 0x00,
		0x4f, 0x48, 0x65, 0x10, 0x4a, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00};
	ck_assert_uint_eq(sizeof(ex), 95);
	const uint8_t *p = tu_guard_copy(ex, sizeof(ex));
	struct weft_err e = {0};
	int swap = -1;
	ck_assert_int_eq(obs_check_header(p, sizeof(ex), &swap, "ex", &e), 0);
	static const struct {
		size_t off, size;
		const char *mcv;
		uint64_t clock;
		uint32_t plen;
		int jumbo;
	} want[] = {
		{8, 28, "OHx", 1000000, 16, 0},
		{36, 24, "OM=", 1000250, 12, 0},
		{60, 23, "VYc", 1000400, 7, 1},
		{83, 12, "OHe", 1002000, 0, 0},
	};
	size_t off = 8;
	for (int i = 0; i < 4; i++) {
		struct weft_ev ev;
		size_t size = 0;
		ck_assert_uint_eq(off, want[i].off);
		ck_assert_int_eq(obs_decode(p + off, sizeof(ex) - off, swap, &ev, &size), OBS_EVENT);
		ck_assert_uint_eq(size, want[i].size);
		char mcv[4] = {(char) ev.model, (char) ev.cat, (char) ev.val, 0};
		ck_assert_str_eq(mcv, want[i].mcv);
		ck_assert(ev.clock == want[i].clock);
		ck_assert_uint_eq(ev.payload_len, want[i].plen);
		ck_assert_int_eq(ev.jumbo, want[i].jumbo);
		if (i == 0) {
			ck_assert_int_eq((int32_t) obs_u32(ev.payload, swap), 2);
			ck_assert_int_eq((int32_t) obs_u32(ev.payload + 4, swap), -1);
		}
		if (i == 2) {
			ck_assert_uint_eq(obs_u32(ev.payload, swap), 7);
			ck_assert_str_eq((const char *) ev.payload + 4, "io");
		}
		off += size;
	}
	ck_assert_uint_eq(off, sizeof(ex));
	tu_guard_free(p);
}
END_TEST

/* ---- jumbo events ----------------------------------------------------------- */

static void check_jumbo(uint32_t len, uint8_t flags)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	uint8_t *data = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(data);
	for (uint32_t i = 0; i < len; i++)
		data[i] = (uint8_t) (i * 7 + 1);
	eb_jumbo(&b, "VYc", 987654321, data, len);
	b.d[0] = flags;
	struct weft_ev ev;
	size_t size = 0;
	ck_assert_int_eq(decode_guarded(b.d, b.n, 0, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, 16 + (size_t) len);
	ck_assert_uint_eq(ev.payload_len, len);
	ck_assert_int_eq(ev.jumbo, 1);
	ck_assert_ptr_eq(ev.payload, b.d + 16);
	ck_assert(ev.clock == 987654321);
	ck_assert_int_eq(ev.model, 'V');
	if (len)
		ck_assert_mem_eq(ev.payload, data, len);
	free(data);
	eb_free(&b);
}

START_TEST(jumbo_lengths)
{
	check_jumbo(0, 0x13);
	check_jumbo(1, 0x13);
	check_jumbo(7, 0x13);
	check_jumbo(16, 0x13);
	check_jumbo(17, 0x13);
	check_jumbo(4096, 0x13);
	check_jumbo(1u << 20, 0x13);
	check_jumbo(3u << 20, 0x13); /* over libovni's 2 MiB buffer: still fine */
}
END_TEST

START_TEST(jumbo_ignores_size_code)
{
	check_jumbo(5, 0x10);
	check_jumbo(5, 0x1f);
	check_jumbo(40, 0x10);
	check_jumbo(40, 0xf0); /* jumbo bit plus reserved bits */
}
END_TEST

START_TEST(jumbo_huge_length_truncated)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_jumbo(&b, "VYc", 1, "abcd", 4);
	/* claim 2^32-1 data bytes */
	memset(b.d + 12, 0xff, 4);
	struct weft_ev ev;
	size_t size = 12345;
	const uint8_t *p = tu_guard_copy(b.d, b.n);
	ck_assert_int_eq(obs_decode(p, b.n, 0, &ev, &size), OBS_TRUNC);
	ck_assert_uint_eq(size, 12345);
	struct weft_err e = {0};
	ck_assert_int_eq(obs_explain(p, b.n, 0, OBS_TRUNC, "j.obs", 8, &e), -1);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, "j.obs: truncated event VYc at byte offset 8: expected 4294967311 "
				"bytes, found 20 before the end of the file");
	tu_guard_free(p);
	eb_free(&b);
}
END_TEST

/* ---- truncation at every byte ----------------------------------------------- */

/* Every proper prefix of `full` must be OBS_TRUNC, decoded from a guarded
 * copy, and obs_explain() must produce the expected message. */
static void check_prefixes(const uint8_t *full, size_t n, int jumbo)
{
	char mcv[4] = {(char) full[1], (char) full[2], (char) full[3], 0};
	for (size_t k = 0; k < n; k++) {
		const uint8_t *p = tu_guard_copy(full, k);
		struct weft_ev ev;
		size_t size = 999;
		int r = obs_decode(p, k, 0, &ev, &size);
		ck_assert_msg(r == OBS_TRUNC, "prefix of %zu of %zu bytes: got %d", k, n, r);
		ck_assert_uint_eq(size, 999);
		struct weft_err e = {0};
		ck_assert_int_eq(obs_explain(p, k, 0, r, "t.obs", 1000, &e), -1);
		ck_assert_int_eq(e.code, WEFT_EINPUT);
		char want[256];
		if (k < 12)
			snprintf(want, sizeof(want),
				 "t.obs: truncated event at byte offset 1000: expected a 12-byte event "
				 "header, found %zu bytes before the end of the file",
				 k);
		else if (jumbo && k < 16)
			snprintf(want, sizeof(want),
				 "t.obs: truncated jumbo event %s at byte offset 1000: expected a "
				 "16-byte header with its length word, found %zu bytes before the end "
				 "of the file",
				 mcv, k);
		else
			snprintf(want, sizeof(want),
				 "t.obs: truncated event %s at byte offset 1000: expected %zu bytes, "
				 "found %zu before the end of the file",
				 mcv, n, k);
		ck_assert_str_eq(e.msg, want);
		tu_guard_free(p);
	}
	/* and the complete event, ending right at the guard page, decodes */
	const uint8_t *p = tu_guard_copy(full, n);
	struct weft_ev ev;
	size_t size = 0;
	ck_assert_int_eq(obs_decode(p, n, 0, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, n);
	tu_guard_free(p);
}

/* Loop over the 16 size codes. */
START_TEST(truncated_normal_every_byte)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_ev_flags(&b, (uint8_t) _i, "OM=", 77);
	check_prefixes(b.d, b.n, 0);
	eb_free(&b);
}
END_TEST

START_TEST(truncated_jumbo_every_byte)
{
	static const uint32_t lens[] = {0, 1, 5, 31};
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		struct evbuf b;
		eb_init(&b, tu_host_be());
		uint8_t data[31];
		memset(data, 0x33, sizeof(data));
		eb_jumbo(&b, "VYc", 5, data, lens[i]);
		check_prefixes(b.d, b.n, 1);
		eb_free(&b);
	}
}
END_TEST

START_TEST(truncated_unprintable_mcv_shown_as_question_mark)
{
	/* size is checked first: a short event with a bad MCV is truncated */
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_ev_flags(&b, 0x07, "A B", 1);
	b.d[1] = 0x01;
	const uint8_t *p = tu_guard_copy(b.d, 15);
	struct weft_ev ev;
	size_t size;
	ck_assert_int_eq(obs_decode(p, 15, 0, &ev, &size), OBS_TRUNC);
	struct weft_err e = {0};
	ck_assert_int_eq(obs_explain(p, 15, 0, OBS_TRUNC, "q.obs", 8, &e), -1);
	ck_assert_str_eq(e.msg, "q.obs: truncated event ??B at byte offset 8: expected 20 bytes, "
				"found 15 before the end of the file");
	tu_guard_free(p);
	eb_free(&b);
}
END_TEST

/* ---- MCV validity ----------------------------------------------------------- */

START_TEST(mcv_printable_range)
{
	ck_assert_int_eq(obs_mcv_ok(0x00), 0);
	ck_assert_int_eq(obs_mcv_ok(0x20), 0);
	ck_assert_int_eq(obs_mcv_ok(0x21), 1);
	ck_assert_int_eq(obs_mcv_ok('O'), 1);
	ck_assert_int_eq(obs_mcv_ok(0x7e), 1);
	ck_assert_int_eq(obs_mcv_ok(0x7f), 0);
	ck_assert_int_eq(obs_mcv_ok(0x80), 0);
	ck_assert_int_eq(obs_mcv_ok(0xff), 0);
	int n = 0;
	for (int c = 0; c < 256; c++)
		n += obs_mcv_ok((uint8_t) c);
	ck_assert_int_eq(n, 94);
}
END_TEST

START_TEST(bad_mcv_each_position)
{
	static const uint8_t bad[] = {0x00, 0x09, 0x20, 0x7f, 0x80, 0xff};
	for (int pos = 1; pos <= 3; pos++) {
		for (size_t k = 0; k < sizeof(bad); k++) {
			struct evbuf b;
			eb_init(&b, tu_host_be());
			eb_ev_flags(&b, 0x01, "OHx", 9);
			b.d[pos] = bad[k];
			struct weft_ev ev;
			size_t size = 4321;
			const uint8_t *p = tu_guard_copy(b.d, b.n);
			ck_assert_int_eq(obs_decode(p, b.n, 0, &ev, &size), OBS_BADMCV);
			ck_assert_uint_eq(size, 4321);
			struct weft_err e = {0};
			ck_assert_int_eq(obs_explain(p, b.n, 0, OBS_BADMCV, "g.obs", 36, &e), -1);
			ck_assert_int_eq(e.code, WEFT_EINPUT);
			char want[256];
			uint8_t m[4] = {0x01, 'O', 'H', 'x'};
			m[pos] = bad[k];
			snprintf(want, sizeof(want),
				 "g.obs: garbage at byte offset 36: expected an event header with a "
				 "printable MCV, found bytes %02x %02x %02x %02x",
				 m[0], m[1], m[2], m[3]);
			ck_assert_str_eq(e.msg, want);
			tu_guard_free(p);
			eb_free(&b);
		}
	}
}
END_TEST

START_TEST(bad_mcv_jumbo)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_jumbo(&b, "V c", 1, "xy", 2);
	struct weft_ev ev;
	size_t size;
	ck_assert_int_eq(decode_guarded(b.d, b.n, 0, &ev, &size), OBS_BADMCV);
	eb_free(&b);
}
END_TEST

START_TEST(mcv_boundaries_accepted)
{
	struct evbuf b;
	eb_init(&b, tu_host_be());
	eb_ev(&b, "!~!", 3, NULL, 0);
	struct weft_ev ev;
	size_t size;
	ck_assert_int_eq(decode_guarded(b.d, b.n, 0, &ev, &size), OBS_EVENT);
	ck_assert_int_eq(ev.model, '!');
	ck_assert_int_eq(ev.cat, '~');
	ck_assert_int_eq(ev.val, '!');
	eb_free(&b);
}
END_TEST

START_TEST(garbage_zero_bytes)
{
	/* a run of zeros long enough for a header: flags 0, MCV 00 00 00 */
	uint8_t z[32] = {0};
	struct weft_ev ev;
	size_t size;
	ck_assert_int_eq(decode_guarded(z, sizeof(z), 0, &ev, &size), OBS_BADMCV);
	struct weft_err e = {0};
	ck_assert_int_eq(obs_explain(z, sizeof(z), 0, OBS_BADMCV, "zz", 0, &e), -1);
	ck_assert_str_eq(e.msg, "zz: garbage at byte offset 0: expected an event header with a "
				"printable MCV, found bytes 00 00 00 00");
}
END_TEST

/* ---- byte order --------------------------------------------------------------- */

/* The same events written in the other byte order decode identically. */
START_TEST(other_byte_order)
{
	int other = !tu_host_be();
	struct evbuf b;
	eb_init(&b, other);
	eb_header(&b);
	uint8_t pl[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	eb_ev(&b, "OHx", 0x0102030405060708ull, pl, 8);
	eb_jumbo(&b, "VYc", 0x1000, "hello", 5);
	struct weft_err e = {0};
	int swap = -1;
	ck_assert_int_eq(obs_check_header(b.d, b.n, &swap, "be.obs", &e), 0);
	ck_assert_int_eq(swap, 1);
	struct weft_ev ev;
	size_t size = 0;
	ck_assert_int_eq(obs_decode(b.d + 8, b.n - 8, swap, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, 20);
	ck_assert(ev.clock == 0x0102030405060708ull);
	ck_assert_mem_eq(ev.payload, pl, 8);
	ck_assert_int_eq(obs_decode(b.d + 28, b.n - 28, swap, &ev, &size), OBS_EVENT);
	ck_assert_uint_eq(size, 21);
	ck_assert_uint_eq(ev.payload_len, 5);
	ck_assert(ev.clock == 0x1000);
	ck_assert_mem_eq(ev.payload, "hello", 5);
	/* read without the swap, the clock is byte-reversed and the jumbo
	 * length is huge: the event no longer fits */
	ck_assert_int_eq(obs_decode(b.d + 8, b.n - 8, !swap, &ev, &size), OBS_EVENT);
	ck_assert(ev.clock == 0x0807060504030201ull);
	ck_assert_int_eq(obs_decode(b.d + 28, b.n - 28, !swap, &ev, &size), OBS_TRUNC);
	eb_free(&b);
}
END_TEST

START_TEST(explain_jumbo_length_in_stream_order)
{
	/* the "expected N bytes" of a truncated jumbo uses the swapped length */
	int other = !tu_host_be();
	struct evbuf b;
	eb_init(&b, other);
	eb_jumbo(&b, "VYc", 1, "0123456789", 10);
	struct weft_err e = {0};
	ck_assert_int_eq(obs_explain(b.d, 20, 1, OBS_TRUNC, "o.obs", 8, &e), -1);
	ck_assert_str_eq(e.msg, "o.obs: truncated event VYc at byte offset 8: expected 26 bytes, "
				"found 20 before the end of the file");
	eb_free(&b);
}
END_TEST

START_TEST(explain_large_offset)
{
	uint8_t z[4] = {0};
	struct weft_err e = {0};
	ck_assert_int_eq(obs_explain(z, 4, 0, OBS_TRUNC, "big.obs", 18446744073709551615ull, &e), -1);
	ck_assert_str_eq(e.msg, "big.obs: truncated event at byte offset 18446744073709551615: "
				"expected a 12-byte event header, found 4 bytes before the end of "
				"the file");
}
END_TEST

Suite *obs_suite(void)
{
	Suite *s = suite_create("obs");
	TCase *tc = tcase_create("header");
	tcase_add_test(tc, header_little_endian);
	tcase_add_test(tc, header_big_endian);
	tcase_add_test(tc, header_longer_buffer_ok);
	tcase_add_test(tc, header_empty);
	tcase_add_loop_test(tc, header_short, 1, 8);
	tcase_add_test(tc, header_bad_magic);
	tcase_add_test(tc, header_bad_version);
	tcase_add_test(tc, int_readers);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_loop_test(tc, size_codes, 0, 16);
	tcase_add_loop_test(tc, reserved_bits_ignored, 0, 16);
	tcase_add_test(tc, only_first_event_decoded);
	tcase_add_test(tc, worked_example);
	tcase_add_test(tc, jumbo_lengths);
	tcase_add_test(tc, jumbo_ignores_size_code);
	tcase_add_test(tc, jumbo_huge_length_truncated);
	suite_add_tcase(s, tc);

	tc = tcase_create("truncation");
	tcase_add_loop_test(tc, truncated_normal_every_byte, 0, 16);
	tcase_add_test(tc, truncated_jumbo_every_byte);
	tcase_add_test(tc, truncated_unprintable_mcv_shown_as_question_mark);
	suite_add_tcase(s, tc);

	tc = tcase_create("mcv");
	tcase_add_test(tc, mcv_printable_range);
	tcase_add_test(tc, bad_mcv_each_position);
	tcase_add_test(tc, bad_mcv_jumbo);
	tcase_add_test(tc, mcv_boundaries_accepted);
	tcase_add_test(tc, garbage_zero_bytes);
	suite_add_tcase(s, tc);

	tc = tcase_create("byte order");
	tcase_add_test(tc, other_byte_order);
	tcase_add_test(tc, explain_jumbo_length_in_stream_order);
	tcase_add_test(tc, explain_large_offset);
	suite_add_tcase(s, tc);
	return s;
}
