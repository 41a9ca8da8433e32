/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_read: the decoder of a CHARISMA trace (charisma_read.h): byte
 * order, machine profile, header record, record sizes and times. The
 * format has no record lengths, so every size comes from the profile
 * (charisma_profile.c lays the records out). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/charisma_read.h"
#include "import/import.h"

#define PROBE_RECORDS 100

static double rd_double(const struct rdr *r, size_t off)
{
	uint64_t v = raw(r, off, 8);
	double d;
	memcpy(&d, &v, 8);
	return d;
}

int64_t chr_record_size(const struct rdr *r, size_t off, int rt, struct weft_err *e)
{
	const struct profile *p = r->p;
	char nb[96], fb[96];
	const struct layout *l = chp_lay_of(p, rt);
	if (!l) {
		if (rt == R_HEADER)
			return weft_fail(e, WEFT_EINPUT,
					 "%s: byte offset %zu: record HEADER (0), field record_type: a second "
					 "header record (only the first record may be a header)",
					 r->path, off);
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset %zu: record type %d, field record_type: unknown record "
				 "type (CHARISMA defines 0..15; declare machine-dependent records in the "
				 "profile as record.%d = NAME: TYPE FIELD, ...)",
				 r->path, off, rt, rt);
	}
	size_t left = r->len - off;
	uint64_t n = 1;
	int c = l->at[K_NC];
	if (l->var >= 0 && c >= 0) {
		if ((size_t) c + (size_t) p->t[T_USHORT].size > left) {
			chp_field_at(p, l, left, fb, sizeof(fb));
			return weft_fail(e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field %s: the record runs past the end "
					 "of the file (it needs at least %d bytes, %zu are left)",
					 r->path, off, chp_rname(rt, p, nb, sizeof(nb)), fb, l->size1, left);
		}
		n = (uint64_t) rd(r, off + (size_t) c, l->tp[K_NC]);
	}
	size_t sz = chp_rec_size(p, l, n);
	if (sz <= left)
		return (int64_t) sz;
	if (n > 1 && chp_rec_size(p, l, 1) <= left)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field num_clients: %llu %s run past the "
				 "end of the file (the record needs %zu bytes, %zu are left)",
				 r->path, off, chp_rname(rt, p, nb, sizeof(nb)), (unsigned long long) n,
				 l->f[l->var].name, sz, left);
	chp_field_at(p, l, left, fb, sizeof(fb));
	return weft_fail(e, WEFT_EINPUT,
			 "%s: byte offset %zu: record %s, field %s: the record runs past the end of the "
			 "file (it needs %zu bytes, %zu are left)",
			 r->path, off, chp_rname(rt, p, nb, sizeof(nb)), fb, sz, left);
}

static const double pow10neg[] = {1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};

int chr_read_header(const struct rdr *r, struct header *h, int check, char *why, size_t n)
{
	const struct layout *l = &r->p->lay[R_HEADER];
	size_t off = 8;
	if (off + (size_t) l->size1 > r->len) {
		char fb[96];
		chp_field_at(r->p, l, r->len - off, fb, sizeof(fb));
		snprintf(why, n, "field %s: the record runs past the end of the file (it needs %d bytes, %zu are left)",
			 fb, l->size1, r->len - off);
		return -1;
	}
	int64_t rt = rd(r, off, T_USHORT);
	if (rt != 0) {
		snprintf(why, n, "field record_type: expected 0 (HEADER), found %lld", (long long) rt);
		return -1;
	}
	h->start_date = rd(r, off + (size_t) l->at[K_START], T_TIME);
	h->gmt = rd(r, off + (size_t) l->at[K_GMT], T_LONG);
	h->ts = (uint64_t) rd(r, off + (size_t) l->at[K_T1], T_TS);
	h->unit = rd_double(r, off + (size_t) l->at[K_UNIT]);
	h->size = (size_t) l->size1;
	if (!(isfinite(h->unit) && h->unit > 0)) {
		snprintf(why, n, "field timestamp_unit: expected a positive number of seconds per tick, found %g", h->unit);
		return -1;
	}
	if (!check)
		return 0;
	/* the seed lists 1..8 and "etc.": more machines exist, and every
	 * one is numbered from 1 */
	int64_t st = rd(r, off + (size_t) l->at[K_SYSTYPE], T_BYTE);
	if (st < 1) {
		snprintf(why, n, "field system_type: expected a machine type, 1 or more, found %lld", (long long) st);
		return -1;
	}
	const uint8_t *rel = r->d + off + l->at[K_RELEASE];
	int nul = 0;
	for (int i = 0; i < 80; i++) {
		if (rel[i] == 0)
			nul = 1;
		else if (nul || !isprint(rel[i])) {
			snprintf(why, n, "field release_data: expected printable text padded with NULs, found byte 0x%02x at %d", rel[i], i);
			return -1;
		}
	}
	static const int keys[] = {K_NPROC, K_MEMPP, K_NDISK, K_NIO};
	static const char *const kn[] = {"num_processors", "memory_per_proc", "num_disks", "num_IO_nodes"};
	for (int k = 0; k < 4; k++) {
		int64_t v = rd(r, off + (size_t) l->at[keys[k]], T_INT);
		if (v < 0 || v > 65536) {
			snprintf(why, n, "field %s: expected 0..65536, found %lld", kn[k], (long long) v);
			return -1;
		}
	}
	if (!(h->unit >= 1e-9 && h->unit <= 1)) {
		snprintf(why, n, "field timestamp_unit: expected 1e-9..1 s, found %g", h->unit);
		return -1;
	}
	if (h->start_date < 631152000 || h->start_date >= 946684800) {
		snprintf(why, n, "field start_date: expected 1990..1999, found %lld", (long long) h->start_date);
		return -1;
	}
	if (h->gmt % 900 || h->gmt < -50400 || h->gmt > 50400) {
		snprintf(why, n, "field gmt_offset: expected a multiple of 900 s within 14 h, found %lld", (long long) h->gmt);
		return -1;
	}
	return 0;
}

void chr_record_times(const struct rdr *r, const struct layout *l, size_t off, uint64_t *t1, uint64_t *t2)
{
	*t1 = l->at[K_T1] >= 0 ? (uint64_t) rd(r, off + (size_t) l->at[K_T1], T_TS) : 0;
	*t2 = l->at[K_T2] >= 0 ? (uint64_t) rd(r, off + (size_t) l->at[K_T2], T_TS) : *t1;
}

/* Is the file plausible with profile r->p? Else `why` says why not. */
static int probe_one(struct rdr *r, char *why, size_t n)
{
	struct header h;
	if (chr_read_header(r, &h, 1, why, n))
		return -1;
	size_t off = 8 + h.size;
	struct weft_err e;
	for (int k = 0; k < PROBE_RECORDS && off < r->len; k++) {
		if (r->len - off < (size_t) r->p->t[T_USHORT].size) {
			snprintf(why, n, "byte offset %zu: a truncated record_type", off);
			return -1;
		}
		int rt = (int) rd(r, off, T_USHORT);
		int64_t sz = chr_record_size(r, off, rt, &e);
		if (sz < 0) {
			snprintf(why, n, "%.400s", strstr(e.msg, "byte offset") ? strstr(e.msg, "byte offset") : e.msg);
			return -1;
		}
		const struct layout *l = chp_lay_of(r->p, rt);
		if (l->at[K_T1] >= 0 && r->p->t[T_TS].sgn) {
			uint64_t t1, t2;
			chr_record_times(r, l, off, &t1, &t2);
			if ((int64_t) t1 < 0 || (int64_t) t2 < 0) {
				snprintf(why, n, "byte offset %zu: a negative time", off);
				return -1;
			}
		}
		off += (size_t) sz;
	}
	return 0;
}

int chr_choose_profile(struct rdr *r, const struct import_opts *o, struct profile *p, struct weft_err *e)
{
	if (o->profile) {
		if (chp_load(p, o->profile, e))
			return -1;
		r->p = p;
		return 0;
	}
	struct profile cand[CHP_NBUILTINS];
	char why[CHP_NBUILTINS][512];
	int ok[CHP_NBUILTINS], nok = 0, pick = -1;
	for (int b = 0; b < CHP_NBUILTINS; b++) {
		struct weft_err pe;
		if (chp_load(&cand[b], chp_builtin_names[b], &pe))
			return weft_fail(e, WEFT_EINTERNAL, "built-in profile: %s", pe.msg);
		r->p = &cand[b];
		ok[b] = probe_one(r, why[b], sizeof(why[b])) == 0;
		if (ok[b])
			nok++, pick = pick < 0 ? b : pick;
	}
	r->p = NULL;
	if (nok == 1) {
		*p = cand[pick];
		r->p = p;
		if (!o || !o->quiet)
			fprintf(stderr, "weft: %s: CHARISMA machine profile %s (probed on the header record)\n",
				r->path, p->name);
		return 0;
	}
	char list[2048] = "";
	for (int b = 0; b < CHP_NBUILTINS; b++)
		if (nok ? ok[b] : 1)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s%s%s",
				 list[0] ? (nok ? ", " : "; ") : "", chp_builtin_names[b], nok ? "" : ": ",
				 nok ? "" : why[b]);
	if (nok)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 8: record HEADER (0): the header and the records after it "
				 "are plausible with several machine profiles (%s): pass --charisma-profile NAME|FILE",
				 r->path, list);
	return weft_fail(e, WEFT_EINPUT,
			 "%s: byte offset 8: record HEADER (0): no built-in machine profile reads a "
			 "plausible header (%s): pass --charisma-profile NAME|FILE",
			 r->path, list);
}

static uint64_t ticks_max(const struct rdr *r)
{
	if (r->mul)
		return UINT64_MAX / r->mul;
	long double m = (long double) INT64_MAX / ((long double) r->unit * 1e9L);
	return m >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t) m;
}

int chr_detect(const uint8_t *d, size_t len)
{
	if (len < 8)
		return 0;
	static const uint8_t le[4] = {0x67, 0x45, 0x23, 0x01}, be[4] = {0x01, 0x23, 0x45, 0x67};
	return memcmp(d, le, 4) == 0 || memcmp(d, be, 4) == 0;
}

int chr_origin_ns(const struct rdr *r, const struct header *h, int64_t *out)
{
	int64_t sd, ts;
	if (__builtin_mul_overflow(h->start_date, 1000000000ll, &sd))
		return -1;
	if (r->mul) {
		if (__builtin_mul_overflow(h->ts, r->mul, &ts))
			return -1;
	} else {
		long double v = (long double) h->ts * (long double) r->unit * 1e9L;
		if (!(v < 9.2e18L))
			return -1;
		ts = (int64_t) llroundl(v);
	}
	return __builtin_sub_overflow(sd, ts, out) ? -1 : 0;
}

int chr_open(struct rdr *r, const char *path, const uint8_t *data, size_t len, struct weft_err *e)
{
	r->path = path;
	r->d = data;
	r->len = len;
	if (len < 4 || !chr_detect(data, len < 8 ? 8 : len)) {
		char found[32] = "";
		for (size_t i = 0; i < 4 && i < len; i++)
			snprintf(found + strlen(found), sizeof(found) - strlen(found), "%s%02x", i ? " " : "", data[i]);
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 0: field MAGIC: expected 67 45 23 01 (little-endian) or "
				 "01 23 45 67 (big-endian), found %s%s: not a CHARISMA trace",
				 path, len ? found : "nothing", len && len < 4 ? " (the file ends)" : "");
	}
	r->be = data[0] == 0x01;
	const uint16_t one = 1;
	r->swap = r->be != (*(const uint8_t *) &one == 0);
	if (len < 8)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 4: field FORMAT_VERSION: the file ends after %zu bytes", path, len);
	uint64_t ver = r->be ? (uint64_t) data[4] << 24 | data[5] << 16 | data[6] << 8 | data[7]
			     : (uint64_t) data[7] << 24 | data[6] << 16 | data[5] << 8 | data[4];
	if (ver != 1)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 4: field FORMAT_VERSION: expected 1, found %llu", path,
				 (unsigned long long) ver);
	return 0;
}

void chr_set_unit(struct rdr *r, double unit)
{
	r->unit = unit;
	for (int k = 0; k < 10; k++)
		if (unit == pow10neg[k]) {
			r->mul = 1;
			for (int j = k; j < 9; j++)
				r->mul *= 10;
		}
	r->tmax = ticks_max(r);
}
