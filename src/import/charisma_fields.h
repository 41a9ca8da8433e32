/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_fields: reading the fields of CHARISMA records fast.
 * Every field of a built-in record type (by key, as in struct layout) is
 * read with one unaligned 8-byte load that ends with the field when the
 * file is big-endian (then byte-swapped) and starts with it when it is
 * little-endian, a mask that keeps the field's bytes and an xor and a
 * subtraction that extend its sign: no switch on the size, no lookup of the
 * type, no branch. The record must have at least 8 readable bytes after it
 * and 8 before it (the importer reads the last records of a file from a
 * padded copy; every record is 8 bytes or more into the file). Gives the
 * same values as reading each field by its size and signedness. */
#ifndef WEFT_CHARISMA_FIELDS_H
#define WEFT_CHARISMA_FIELDS_H

#include <stdint.h>
#include <string.h>

#include "import/charisma_profile.h"

/* A field: where its 8-byte load starts in the record (or in an array
 * element), the mask of its bytes, its sign bit when it is signed and
 * shorter than 8 bytes (else 0). mask 0: the record has no such field. */
struct fget {
	int32_t off;
	uint64_t mask, sbit;
};

/* The fields of one built-in record type. */
struct flay {
	struct fget k[K_NKEYS]; /* by key; K_T1 and K_T2 as TimestampType */
	struct fget rt;         /* record_type (u_short at 0) */
	struct fget el_client;  /* APP_LOAD: clients[i], in its element */
	struct fget rq_client, rq_iosize, rq_offset; /* RW: in requests[i] */
	int32_t arr, esize;     /* offset of element 0, element size */
	int32_t size1;          /* size with one element */
	int var;                /* sized by num_clients (K_NC present) */
};

/* Fill fl[1..R_NBUILTIN-1] from the profile's layouts for a file of byte
 * order `be`; returns the largest size1 (every fixed field of a record lies
 * within it). Defined in charisma_profile.c. */
int chp_fast_layouts(const struct profile *p, int be, struct flay fl[R_NBUILTIN]);

static inline uint64_t chf_load8(const uint8_t *p, int be)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return be ? v : __builtin_bswap64(v);
#else
	return be ? __builtin_bswap64(v) : v;
#endif
}

static inline int chf_has(struct fget f)
{
	return f.mask != 0;
}

/* The value of field f of the record at rec, in a file of byte order `be`
 * (a constant where it is called: the swap is there or not). */
static inline int64_t chf_get(const uint8_t *rec, struct fget f, int be)
{
	uint64_t v = chf_load8(rec + f.off, be) & f.mask;
	return (int64_t) ((v ^ f.sbit) - f.sbit);
}

#endif
