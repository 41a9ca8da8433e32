/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_profile: CHARISMA machine profiles and record layouts
 * (doc/formats/legacy.md §7.4). A profile gives every scalar type's size,
 * signedness and alignment, the string lengths, the alignment rule, how
 * variable arrays are sized, the iPSC RW variant, sentinels, the node mapping
 * and machine-dependent records; the built-in ones are charisma-default,
 * charisma-packed and charisma-align4. From a profile, every record type gets
 * a layout laid out as C lays out the structs of charisma-format.h: each
 * field at the next multiple of its alignment (capped by align_max), the
 * record rounded to its largest alignment, variable arrays with the [1]
 * idiom. Shared by the importer (reading) and `weft synth` (writing). */
#ifndef WEFT_CHARISMA_PROFILE_H
#define WEFT_CHARISMA_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/macros.h"

enum ctype {
	T_BYTE, T_CHAR, T_USHORT, T_INT, T_LONG, T_ULONG, T_TIME, T_DOUBLE, T_TS, T_BIGINT,
	T_APPID, T_CLIENTID, T_USERID, T_FILEID, T_FILEDESC, T_ASYNCID, T_NTYPES,
	T_REQ = 100 /* the TraceIORequest struct */
};

extern const char *const chp_type_name[T_NTYPES];

/* What a field means to the importer (its offset is looked up by key). */
enum fkey {
	K_NONE, K_RT, K_T1, K_T2, K_APP, K_CLIENT, K_FD, K_FILE, K_SIZE, K_SIZE2, K_OP, K_AID, K_NC,
	K_ARR, K_FLAGS, K_LINKS, K_REQUEST, K_ARG, K_START, K_GMT, K_SYSTYPE, K_RELEASE, K_NPROC,
	K_MEMPP, K_NDISK, K_NIO, K_MEMPD, K_UNIT, K_OFFSET, K_IOSIZE, K_NKEYS
};

#define N_NAME (-1) /* char[TRACE_NAME_LENGTH] */
#define N_PATH (-2) /* char[TRACE_PATH_LENGTH] */
#define N_VAR (-3)  /* [num_clients], the [1] idiom */

struct fld {
	const char *name;
	int type;
	int count; /* 1, a fixed length, N_NAME, N_PATH or N_VAR */
	int key;
};

enum {
	R_HEADER, R_LOAD, R_EXIT, R_JOIN, R_LEAVE, R_APPOPEN, R_CLOPEN, R_APPCLOSE, R_CLCLOSE, R_RW,
	R_EXTEND, R_TRUNC, R_LINK, R_UNLINK, R_AEND, R_FCNTL, R_NBUILTIN
};

extern const char *const chp_rec_name[R_NBUILTIN];
extern const struct fld chp_f_req[];

struct scalar {
	int size, sgn, align, isfloat;
};

#define MAX_FIELDS 40

struct layout {
	const struct fld *f;
	int n;
	int off[MAX_FIELDS];
	int len[MAX_FIELDS]; /* bytes of the field (one element for arrays) */
	int at[K_NKEYS];     /* offset by key, -1 if absent */
	int tp[K_NKEYS];     /* type by key */
	int align, size1;    /* record alignment; size with one array element */
	int var;             /* index of the variable array, -1 if none */
	int esize;           /* array element size */
	int rq[K_NKEYS];     /* TraceIORequest: offsets inside one element */
	int rqtp[K_NKEYS];
};

struct xrec { /* a machine-dependent record declared in the profile */
	int code;
	char name[48];
	struct fld f[MAX_FIELDS];
	char fname[MAX_FIELDS][48];
	struct layout lay;
};

struct profile {
	char name[256];
	struct scalar t[T_NTYPES];
	int name_len, path_len;
	int align_max;        /* 0: natural alignment */
	int tail_pad;
	int array_exact;      /* 0: the [1] idiom */
	int rw_app_fields;    /* 0: the iPSC variant */
	int no_app_all, no_client_all; /* sentinel = all bits set */
	int64_t no_app, no_client;
	int nodes;            /* 0 one node per client, -1 one node, K>0 client / K */
	struct xrec *x;
	int nx;
	struct layout lay[R_NBUILTIN];
	struct layout req;    /* TraceIORequest */
};

#define CHP_NBUILTINS 3
extern const char *const chp_builtin_names[CHP_NBUILTINS];

/* Load a profile by built-in name or from a file of `key = value` lines. */
WEFT_MUST_CHECK int chp_load(struct profile *p, const char *spec, struct weft_err *e);
void chp_free(struct profile *p);
/* The layout of record type rt (1..15 or a declared code), or NULL. */
const struct layout *chp_lay_of(const struct profile *p, int rt);
/* Size of a record with n elements in its variable array. */
size_t chp_rec_size(const struct profile *p, const struct layout *l, uint64_t n);
/* The name of the field holding byte `pos` of a record laid out by `l`. */
void chp_field_at(const struct profile *p, const struct layout *l, size_t pos, char *buf, size_t n);
/* "RW (9)", "type 77" or a declared record's name. */
const char *chp_rname(int rt, const struct profile *p, char *buf, size_t n);

#endif
