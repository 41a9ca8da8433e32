/* SPDX-License-Identifier: GPL-3.0-or-later */
/* shift_obs: copy a little-endian ovni stream.obs, adding a signed number of
 * nanoseconds to the clock of every event (a skewed node for the clock
 * offset tests of emu.sh).
 *
 *   shift_obs IN OUT DELTA
 *
 * Checks the 8-byte header ("ovni", version 1 little-endian), walks the
 * events (12-byte header; normal: size code s > 0 adds s + 1 payload bytes;
 * jumbo, flag 0x10: a u32 length L after the header, 16 + L bytes in all)
 * and adds DELTA to the u64 clock at byte 4 of each event. Fails (exit 1)
 * on a bad header, a truncated event or a clock that would wrap. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t get_u64le(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_u64le(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char) (v & 255);
}

static uint32_t get_u32le(const unsigned char *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "shift_obs: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			unsigned char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (!buf || ferror(f)) {
		fprintf(stderr, "shift_obs: %s: cannot read\n", path);
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: shift_obs IN OUT DELTA_NS\n");
		return 2;
	}
	char *end;
	errno = 0;
	long long delta = strtoll(argv[3], &end, 10);
	if (end == argv[3] || *end || errno) {
		fprintf(stderr, "shift_obs: DELTA_NS: expected a signed integer, found '%s'\n", argv[3]);
		return 2;
	}
	size_t len;
	unsigned char *buf = slurp(argv[1], &len);
	if (!buf)
		return 1;
	if (len < 8 || memcmp(buf, "ovni", 4) != 0 || get_u32le(buf + 4) != 1) {
		fprintf(stderr, "shift_obs: %s: not a little-endian ovni stream (version 1)\n", argv[1]);
		free(buf);
		return 1;
	}
	size_t pos = 8;
	unsigned long long nev = 0;
	while (pos < len) {
		if (len - pos < 12) {
			fprintf(stderr, "shift_obs: %s: truncated event header at byte %zu\n", argv[1], pos);
			free(buf);
			return 1;
		}
		unsigned flags = buf[pos];
		size_t size;
		if (flags & 0x10) {
			if (len - pos < 16) {
				fprintf(stderr, "shift_obs: %s: truncated jumbo header at byte %zu\n", argv[1], pos);
				free(buf);
				return 1;
			}
			size = 16 + (size_t) get_u32le(buf + pos + 12);
		} else {
			unsigned s = flags & 0x0f;
			size = 12 + (s ? s + 1 : 0);
		}
		if (len - pos < size) {
			fprintf(stderr, "shift_obs: %s: truncated event at byte %zu\n", argv[1], pos);
			free(buf);
			return 1;
		}
		uint64_t clock = get_u64le(buf + pos + 4);
		uint64_t shifted = clock + (uint64_t) delta;
		if ((delta > 0 && shifted < clock) || (delta < 0 && shifted > clock)) {
			fprintf(stderr, "shift_obs: %s: clock %llu at byte %zu wraps when shifted by %lld\n",
				argv[1], (unsigned long long) clock, pos, delta);
			free(buf);
			return 1;
		}
		put_u64le(buf + pos + 4, shifted);
		pos += size;
		nev++;
	}
	FILE *out = fopen(argv[2], "wb");
	int bad = !out;
	if (out) {
		bad = fwrite(buf, 1, len, out) != len;
		bad |= fclose(out) != 0;
	}
	if (bad) {
		fprintf(stderr, "shift_obs: %s: cannot write\n", argv[2]);
		free(buf);
		return 1;
	}
	free(buf);
	fprintf(stderr, "shift_obs: %s: %llu events shifted by %lld ns\n", argv[1], nev, delta);
	return 0;
}
