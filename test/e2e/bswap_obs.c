/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bswap_obs: write a copy of a stream.obs in the other byte order.
 *
 *   bswap_obs IN OUT
 *
 * The input's order is taken from its version word (doc/formats/ovni.md
 * §2.5). Swapped: the version word, every clock, jumbo length words, and the
 * payload fields of the ovni-model events that carry integers (their
 * signatures below). An event with a payload this table does not know is an
 * error, so a converted stream never keeps bytes in the wrong order by
 * accident. Exit 0 on success, 1 with a message otherwise.
 * Test helper for test/e2e/run.sh; standalone C11, no weft code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sig {
	const char *mcv;
	const char *fields; /* one digit per field: its size in bytes */
};

static const struct sig sigs[] = {
	{"OHx", "448"}, /* i32 cpu, i32 creator, u64 tag */
	{"OHC", "48"},  /* i32 cpu, u64 tag */
	{"OAs", "4"},   /* i32 cpu */
	{"OAr", "44"},  /* i32 cpu, i32 tid */
	{"OCn", "4"},   /* i32 ncpus */
	{"OM[", "84"},  /* i64 value, i32 type */
	{"OM]", "84"},
	{"OM=", "84"},
};

static void swap_n(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint8_t t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

static uint32_t rd32(const uint8_t *p, int big)
{
	return big ? (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3]
		   : (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16 | (uint32_t) p[1] << 8 | p[0];
}

static const struct sig *find_sig(const uint8_t *mcv)
{
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (memcmp(sigs[i].mcv, mcv, 3) == 0)
			return &sigs[i];
	return NULL;
}

static int fail(const char *path, size_t off, const char *what)
{
	fprintf(stderr, "bswap_obs: %s: byte offset %zu: %s\n", path, off, what);
	return 1;
}

static int convert(uint8_t *d, size_t n, const char *path)
{
	if (n < 8 || memcmp(d, "ovni", 4) != 0)
		return fail(path, 0, "not a stream.obs (magic \"ovni\" expected)");
	int big;
	if (rd32(d + 4, 0) == 1)
		big = 0;
	else if (rd32(d + 4, 1) == 1)
		big = 1;
	else
		return fail(path, 4, "version word is not 1 in either byte order");
	swap_n(d + 4, 4);
	size_t off = 8;
	while (off < n) {
		if (n - off < 12)
			return fail(path, off, "truncated event header");
		uint8_t *p = d + off;
		size_t len, start;
		if (p[0] & 0x10) {
			if (n - off < 16)
				return fail(path, off, "truncated jumbo length word");
			len = rd32(p + 12, big);
			swap_n(p + 12, 4);
			start = 16;
		} else {
			len = (p[0] & 0x0f) ? (size_t) (p[0] & 0x0f) + 1 : 0;
			start = 12;
		}
		if (len > n - off - start)
			return fail(path, off, "truncated event");
		swap_n(p + 4, 8); /* clock */
		if (len) {
			const struct sig *s = find_sig(p + 1);
			char msg[96];
			if (!s) {
				snprintf(msg, sizeof(msg), "event %c%c%c has a payload of unknown layout",
					 p[1], p[2], p[3]);
				return fail(path, off, msg);
			}
			size_t f = 0;
			for (const char *c = s->fields; *c; c++) {
				size_t sz = (size_t) (*c - '0');
				if (f + sz > len)
					break;
				swap_n(p + start + f, sz);
				f += sz;
			}
			if (f != len) {
				snprintf(msg, sizeof(msg), "event %c%c%c: payload of %zu bytes, expected %zu",
					 p[1], p[2], p[3], len, f);
				return fail(path, off, msg);
			}
		}
		off += start + len;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bswap_obs IN OUT\n");
		return 1;
	}
	FILE *in = fopen(argv[1], "rb");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	size_t cap = 1 << 16, n = 0, k;
	uint8_t *d = malloc(cap);
	while (d && (k = fread(d + n, 1, cap - n, in)) > 0) {
		n += k;
		if (n == cap) {
			uint8_t *nd = realloc(d, cap *= 2);
			if (!nd)
				free(d);
			d = nd;
		}
	}
	if (!d || ferror(in)) {
		fprintf(stderr, "bswap_obs: %s: cannot read\n", argv[1]);
		fclose(in);
		free(d);
		return 1;
	}
	fclose(in);
	int rc = convert(d, n, argv[1]);
	if (rc == 0) {
		FILE *out = fopen(argv[2], "wb");
		int bad = !out;
		if (out) {
			bad = fwrite(d, 1, n, out) != n;
			bad |= fclose(out) != 0;
		}
		if (bad) {
			fprintf(stderr, "bswap_obs: %s: cannot write\n", argv[2]);
			rc = 1;
		}
	}
	free(d);
	return rc;
}
