/* charisma: CHARISMA file-system traces (iPSC/860, CM-5) as a source of the
 * file I/O model (legacy-formats.md §7, weft decisions §7.4).
 *
 * The format has no record lengths, so every size comes from a machine
 * profile (scalar sizes, signedness, alignment, string lengths, array sizing,
 * the iPSC RW variant, sentinels, machine-dependent records), given with
 * --charisma-profile NAME|FILE or probed on the header record. Records are
 * laid out as C lays out the structs of charisma-format.h: each field at the
 * next multiple of its alignment (capped by align_max), the record rounded to
 * its largest alignment, variable arrays with the [1] idiom.
 *
 * Records are sorted stably by their first time through a bounded window
 * (a heap of record offsets), then turned into events of model F on one
 * stream per client; the later times of a record (RW end, ASYNCH_END end)
 * wait in a small per-client heap so each stream's clock never decreases. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <uthash.h>

#include "import.h"
#include "mapfile.h"
#include "writer.h"

#define SORT_WINDOW (1u << 18) /* records held back for sorting */
#define PROBE_RECORDS 100

/* ---- scalar types and fields ------------------------------------------------ */

enum ctype {
	T_BYTE, T_CHAR, T_USHORT, T_INT, T_LONG, T_ULONG, T_TIME, T_DOUBLE, T_TS, T_BIGINT,
	T_APPID, T_CLIENTID, T_USERID, T_FILEID, T_FILEDESC, T_ASYNCID, T_NTYPES,
	T_REQ = 100 /* the TraceIORequest struct */
};

static const char *const type_name[T_NTYPES] = {
	"byte", "char", "u_short", "int", "long", "u_long", "time_t", "double", "TimestampType", "BigInt",
	"TraceAppId", "TraceClientId", "TraceUserId", "TraceFileId", "TraceFileDesc", "TraceAsyncId",
};

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

#define RT {"record_type", T_USHORT, 1, K_RT}
#define TS(n) {n, T_TS, 1, K_T1}

static const struct fld f_header[] = {
	RT, {"start_date", T_TIME, 1, K_START}, {"gmt_offset", T_LONG, 1, K_GMT}, TS("timestamp"),
	{"SystemId", T_ULONG, 1, K_NONE}, {"system_type", T_BYTE, 1, K_SYSTYPE},
	{"md_version", T_INT, 1, K_NONE}, {"release_data", T_CHAR, 80, K_RELEASE},
	{"num_processors", T_INT, 1, K_NPROC}, {"memory_per_proc", T_INT, 1, K_MEMPP},
	{"num_disks", T_INT, 1, K_NDISK}, {"num_IO_nodes", T_INT, 1, K_NIO},
	{"memory_per_disk", T_INT, 1, K_MEMPD}, {"timestamp_unit", T_DOUBLE, 1, K_UNIT}, {0}};
static const struct fld f_load[] = {
	RT, TS("timestamp"), {"name", T_CHAR, N_NAME, K_NONE}, {"path", T_CHAR, N_PATH, K_NONE},
	{"user_id", T_USERID, 1, K_NONE}, {"initial_load_size", T_ULONG, 1, K_NONE},
	{"appl_id", T_APPID, 1, K_APP}, {"num_clients", T_USHORT, 1, K_NC},
	{"clients", T_CLIENTID, N_VAR, K_ARR}, {0}};
static const struct fld f_exit[] = {RT, TS("timestamp"), {"appl_id", T_APPID, 1, K_APP}, {0}};
static const struct fld f_join[] = {RT, TS("timestamp"), {"appl_id", T_APPID, 1, K_APP},
				    {"client_id", T_CLIENTID, 1, K_CLIENT}, {0}};
#define OPEN_TAIL                                                                                  \
	{"name", T_CHAR, N_NAME, K_NONE}, {"path", T_CHAR, N_PATH, K_NONE},                        \
		{"file_id", T_FILEID, 1, K_FILE}, {"file_desc", T_FILEDESC, 1, K_FD},              \
		{"file_size", T_BIGINT, 1, K_SIZE}, {"creation_date", T_TIME, 1, K_NONE},          \
		{"open_flags", T_BYTE, 1, K_FLAGS}, {0}
static const struct fld f_appopen[] = {RT, TS("timestamp"), {"appl_id", T_APPID, 1, K_APP}, OPEN_TAIL};
static const struct fld f_clopen[] = {RT, TS("timestamp"), {"client_id", T_CLIENTID, 1, K_CLIENT},
				      OPEN_TAIL};
static const struct fld f_appclose[] = {RT, TS("timestamp"), {"appl_id", T_APPID, 1, K_APP},
					{"file_desc", T_FILEDESC, 1, K_FD}, {"file_size", T_BIGINT, 1, K_SIZE},
					{0}};
static const struct fld f_clclose[] = {RT, TS("timestamp"), {"client_id", T_CLIENTID, 1, K_CLIENT},
				       {"file_desc", T_FILEDESC, 1, K_FD},
				       {"file_size", T_BIGINT, 1, K_SIZE}, {0}};
static const struct fld f_rw[] = {
	RT, TS("starttime"), {"endtime", T_TS, 1, K_T2}, {"file_desc", T_FILEDESC, 1, K_FD},
	{"operation_type", T_BYTE, 1, K_OP}, {"async_id", T_ASYNCID, 1, K_AID},
	{"appl_id", T_APPID, 1, K_APP}, {"num_clients", T_USHORT, 1, K_NC},
	{"requests", T_REQ, N_VAR, K_ARR}, {0}};
static const struct fld f_rw_ipsc[] = {
	RT, TS("starttime"), {"endtime", T_TS, 1, K_T2}, {"file_desc", T_FILEDESC, 1, K_FD},
	{"operation_type", T_BYTE, 1, K_OP}, {"async_id", T_ASYNCID, 1, K_AID},
	{"requests", T_REQ, 1, K_ARR}, {0}};
static const struct fld f_req[] = {{"offset", T_BIGINT, 1, K_OFFSET},
				   {"memory_offset", T_ULONG, 1, K_NONE},
				   {"IO_size", T_BIGINT, 1, K_IOSIZE},
				   {"client_id", T_CLIENTID, 1, K_CLIENT}, {0}};
static const struct fld f_size[] = {RT, TS("timestamp"), {"client_id", T_CLIENTID, 1, K_CLIENT},
				    {"file_id", T_FILEID, 1, K_FILE}, {"original_size", T_BIGINT, 1, K_SIZE},
				    {"new_size", T_BIGINT, 1, K_SIZE2}, {0}};
static const struct fld f_link[] = {RT, TS("timestamp"), {"client_id", T_CLIENTID, 1, K_CLIENT},
				    {"file_id", T_FILEID, 1, K_FILE},
				    {"new_link_count", T_USHORT, 1, K_LINKS}, {0}};
static const struct fld f_aend[] = {RT, TS("call_time"), {"end_time", T_TS, 1, K_T2},
				    {"async_id", T_ASYNCID, 1, K_AID},
				    {"client_id", T_CLIENTID, 1, K_CLIENT}, {"appl_id", T_APPID, 1, K_APP},
				    {0}};
static const struct fld f_fcntl[] = {RT, TS("timestamp"), {"client_id", T_CLIENTID, 1, K_CLIENT},
				     {"file_desc", T_FILEID, 1, K_FD}, {"request", T_INT, 1, K_REQUEST},
				     {"arg", T_INT, 1, K_ARG}, {0}};

enum {
	R_HEADER, R_LOAD, R_EXIT, R_JOIN, R_LEAVE, R_APPOPEN, R_CLOPEN, R_APPCLOSE, R_CLCLOSE, R_RW,
	R_EXTEND, R_TRUNC, R_LINK, R_UNLINK, R_AEND, R_FCNTL, R_NBUILTIN
};

static const char *const rec_name[R_NBUILTIN] = {
	"HEADER", "APP_LOAD", "APP_EXIT", "CLIENT_JOIN", "APP_CLIENT_LEAVE", "APP_OPEN", "CLIENT_OPEN",
	"APP_CLOSE", "CLIENT_CLOSE", "RW", "EXTEND", "TRUNCATE", "LINK", "UNLINK", "ASYNCH_END", "FCNTL",
};

static const struct fld *const rec_fields[R_NBUILTIN] = {
	f_header, f_load, f_exit, f_join, f_join, f_appopen, f_clopen, f_appclose, f_clclose, f_rw,
	f_size, f_size, f_link, f_link, f_aend, f_fcntl,
};

/* ---- machine profiles ---------------------------------------------------------- */

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

static const char builtin_default[] =
	"byte = 1 unsigned 1\nchar = 1 unsigned 1\nu_short = 2 unsigned 2\nint = 4 signed 4\n"
	"long = 4 signed 4\nu_long = 4 unsigned 4\ntime_t = 4 signed 4\ndouble = 8 float 8\n"
	"TimestampType = 8 unsigned 8\nBigInt = 8 signed 8\nTraceAppId = 4 signed 4\n"
	"TraceClientId = 4 signed 4\nTraceUserId = 4 signed 4\nTraceFileId = 4 signed 4\n"
	"TraceFileDesc = 4 signed 4\nTraceAsyncId = 4 signed 4\nname_length = 32\npath_length = 128\n"
	"align_max = 0\ntail_padding = yes\narray_size = one_element\nrw_app_fields = present\n"
	"no_app = all_ones\nno_client = all_ones\nnodes = per_client\n";

static const struct {
	const char *name, *extra;
} builtins[] = {
	{"charisma-default", ""},
	{"charisma-packed", "align_max = 1\n"},
	{"charisma-align4", "align_max = 4\n"},
};
#define NBUILTINS 3

static int parse_profile(struct profile *p, const char *text, const char *src, struct weft_err *e);

static int perr(struct weft_err *e, const char *src, int line, const char *fmt, const char *a,
		const char *b)
{
	return weft_fail(e, WEFT_EINPUT, "%s:%d: machine profile: %s '%s'%s", src, line, fmt, a, b);
}

static int type_by_name(const char *s)
{
	for (int i = 0; i < T_NTYPES; i++)
		if (strcmp(type_name[i], s) == 0)
			return i;
	return -1;
}

static char *trim(char *s)
{
	while (isspace((unsigned char) *s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char) s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int parse_int(const char *s, long long *v)
{
	char *end;
	errno = 0;
	*v = strtoll(s, &end, 0);
	return errno || end == s || *trim(end) ? -1 : 0;
}

/* "record.CODE = name: type field, char[N] field, ..." */
static int parse_xrec(struct profile *p, long long code, char *v, const char *src, int line,
		      struct weft_err *e)
{
	if (code < R_NBUILTIN || code > 65535)
		return perr(e, src, line, "record codes 16..65535 may be declared, found", v, "");
	p->x = weft_xrealloc(p->x, (size_t) (p->nx + 1) * sizeof(*p->x));
	struct xrec *x = &p->x[p->nx++];
	memset(x, 0, sizeof(*x));
	x->code = (int) code;
	char *colon = strchr(v, ':');
	if (!colon)
		return perr(e, src, line, "expected 'name: type field, ...', found", v, "");
	*colon = '\0';
	snprintf(x->name, sizeof(x->name), "%s", trim(v));
	x->f[0] = (struct fld) RT;
	int n = 1;
	char *save = NULL;
	for (char *tok = strtok_r(colon + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		char tname[64], fname[48];
		int cnt = 1;
		if (n >= MAX_FIELDS - 1)
			return perr(e, src, line, "too many fields in record", x->name, "");
		if (sscanf(tok, "%63[A-Za-z_][%d] %47s", tname, &cnt, fname) == 3 ||
		    (cnt = 1, sscanf(tok, "%63s %47s", tname, fname) == 2)) {
			int t = type_by_name(tname);
			if (t < 0 || cnt < 1)
				return perr(e, src, line, "unknown field type in", tok, "");
			snprintf(x->fname[n], sizeof(x->fname[n]), "%s", fname);
			x->f[n] = (struct fld){x->fname[n], t, cnt, K_NONE};
			n++;
		} else {
			return perr(e, src, line, "expected 'type name' or 'type[N] name', found", tok, "");
		}
	}
	return 0;
}

static int parse_profile(struct profile *p, const char *text, const char *src, struct weft_err *e)
{
	char *copy = weft_xstrdup(text), *save = NULL;
	int line = 0, rc = 0;
	for (char *l = strtok_r(copy, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
		line++; /* blank lines are skipped by strtok: counts are of non-empty lines */
		char *hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		l = trim(l);
		if (!*l)
			continue;
		char *eq = strchr(l, '=');
		if (!eq) {
			rc = perr(e, src, line, "expected 'key = value', found", l, "");
			break;
		}
		*eq = '\0';
		char *k = trim(l), *v = trim(eq + 1);
		long long n;
		int t = type_by_name(k);
		if (t >= 0) {
			char sg[32];
			int size, align;
			if (sscanf(v, "%d %31s %d", &size, sg, &align) != 3 ||
			    (size != 1 && size != 2 && size != 4 && size != 8) || align < 1 ||
			    (align & (align - 1)) ||
			    (strcmp(sg, "signed") && strcmp(sg, "unsigned") && strcmp(sg, "float")))
				rc = perr(e, src, line, "expected 'SIZE signed|unsigned|float ALIGN' (size 1, 2, 4 or 8) for", k, "");
			else if ((t == T_DOUBLE) != (strcmp(sg, "float") == 0) || (t == T_DOUBLE && size != 8))
				rc = perr(e, src, line, "only double is 'float' (8 bytes); found for", k, "");
			else
				p->t[t] = (struct scalar){size, strcmp(sg, "signed") == 0, align, t == T_DOUBLE};
		} else if (strcmp(k, "base") == 0) {
			int found = 0;
			for (int b = 0; b < NBUILTINS; b++)
				if (strcmp(builtins[b].name, v) == 0) {
					found = 1;
					rc = parse_profile(p, builtin_default, builtins[b].name, e);
					if (!rc)
						rc = parse_profile(p, builtins[b].extra, builtins[b].name, e);
				}
			if (!found)
				rc = perr(e, src, line, "base must be a built-in profile, found", v, "");
		} else if (strcmp(k, "name") == 0) {
			snprintf(p->name, sizeof(p->name), "%s", v);
		} else if (strcmp(k, "name_length") == 0 || strcmp(k, "path_length") == 0 ||
			   strcmp(k, "align_max") == 0) {
			if (parse_int(v, &n) || n < 0 || n > 65536)
				rc = perr(e, src, line, "expected an integer in 0..65536 for", k, "");
			else if (k[0] == 'n')
				p->name_len = (int) n;
			else if (k[0] == 'p')
				p->path_len = (int) n;
			else
				p->align_max = (int) n;
		} else if (strcmp(k, "tail_padding") == 0) {
			p->tail_pad = strcmp(v, "yes") == 0;
			if (strcmp(v, "yes") && strcmp(v, "no"))
				rc = perr(e, src, line, "expected yes or no for", k, "");
		} else if (strcmp(k, "array_size") == 0) {
			p->array_exact = strcmp(v, "exact") == 0;
			if (strcmp(v, "exact") && strcmp(v, "one_element"))
				rc = perr(e, src, line, "expected one_element or exact for", k, "");
		} else if (strcmp(k, "rw_app_fields") == 0) {
			p->rw_app_fields = strcmp(v, "present") == 0;
			if (strcmp(v, "present") && strcmp(v, "absent"))
				rc = perr(e, src, line, "expected present or absent for", k, "");
		} else if (strcmp(k, "no_app") == 0 || strcmp(k, "no_client") == 0) {
			int all = strcmp(v, "all_ones") == 0;
			if (!all && parse_int(v, &n))
				rc = perr(e, src, line, "expected all_ones or an integer for", k, "");
			else if (k[3] == 'a')
				p->no_app_all = all, p->no_app = all ? 0 : n;
			else
				p->no_client_all = all, p->no_client = all ? 0 : n;
		} else if (strcmp(k, "nodes") == 0) {
			if (strcmp(v, "per_client") == 0)
				p->nodes = 0;
			else if (strcmp(v, "one") == 0)
				p->nodes = -1;
			else if (strncmp(v, "div ", 4) == 0 && !parse_int(v + 4, &n) && n > 0 && n < 1 << 30)
				p->nodes = (int) n;
			else
				rc = perr(e, src, line, "expected per_client, one or 'div K' for", k, "");
		} else if (strncmp(k, "record.", 7) == 0) {
			if (parse_int(k + 7, &n))
				rc = perr(e, src, line, "expected record.CODE, found", k, "");
			else
				rc = parse_xrec(p, n, v, src, line, e);
		} else {
			rc = perr(e, src, line, "unknown key", k, "");
		}
	}
	free(copy);
	return rc;
}

static int falign(const struct profile *p, int type)
{
	int a = p->t[type].align;
	return p->align_max && a > p->align_max ? p->align_max : a;
}

static int roundup(int v, int a)
{
	return (v + a - 1) / a * a;
}

static void layout(const struct profile *p, const struct fld *f, struct layout *l)
{
	memset(l, 0, sizeof(*l));
	for (int k = 0; k < K_NKEYS; k++)
		l->at[k] = l->rq[k] = -1;
	l->f = f;
	l->var = -1;
	l->align = 1;
	int off = 0;
	for (int i = 0; f[i].name; i++) {
		int a, sz;
		if (f[i].type == T_REQ) {
			a = p->req.align;
			sz = p->req.size1;
			memcpy(l->rq, p->req.at, sizeof(l->rq));
			memcpy(l->rqtp, p->req.tp, sizeof(l->rqtp));
		} else {
			a = falign(p, f[i].type);
			sz = p->t[f[i].type].size;
		}
		off = roundup(off, a);
		if (a > l->align)
			l->align = a;
		int cnt = f[i].count == N_NAME ? p->name_len
			  : f[i].count == N_PATH ? p->path_len
			  : f[i].count == N_VAR  ? 1
						 : f[i].count;
		l->off[i] = off;
		l->len[i] = sz;
		if (f[i].count == N_VAR) {
			l->var = i;
			l->esize = sz;
		}
		if (f[i].key) {
			l->at[f[i].key] = off;
			l->tp[f[i].key] = f[i].type;
		}
		off += sz * cnt;
		l->n = i + 1;
	}
	l->size1 = p->tail_pad ? roundup(off, l->align) : off;
}

static int profile_finish(struct profile *p)
{
	layout(p, f_req, &p->req);
	for (int r = 0; r < R_NBUILTIN; r++)
		layout(p, r == R_RW && !p->rw_app_fields ? f_rw_ipsc : rec_fields[r], &p->lay[r]);
	for (int i = 0; i < p->nx; i++)
		layout(p, p->x[i].f, &p->x[i].lay);
	return 0;
}

static int profile_load(struct profile *p, const char *spec, struct weft_err *e)
{
	memset(p, 0, sizeof(*p));
	int rc = parse_profile(p, builtin_default, "charisma-default", e);
	for (int b = 0; b < NBUILTINS && rc == 0; b++)
		if (strcmp(builtins[b].name, spec) == 0) {
			snprintf(p->name, sizeof(p->name), "%s", spec);
			rc = parse_profile(p, builtins[b].extra, spec, e);
			return rc ? rc : profile_finish(p);
		}
	if (rc)
		return rc;
	struct mapfile m;
	if (!strchr(spec, '/') && !strchr(spec, '.')) {
		FILE *f = fopen(spec, "r");
		if (!f)
			return weft_fail(e, WEFT_EUSAGE,
					 "unknown CHARISMA machine profile '%s' (built-in: charisma-default, "
					 "charisma-packed, charisma-align4; or a file of 'key = value' lines)",
					 spec);
		fclose(f);
	}
	if (map_open(&m, spec, e))
		return -1;
	char *text = weft_xmalloc(m.size + 1);
	if (m.size)
		memcpy(text, m.data, m.size);
	text[m.size] = '\0';
	map_close(&m);
	snprintf(p->name, sizeof(p->name), "%s", spec);
	rc = parse_profile(p, text, spec, e);
	free(text);
	return rc ? rc : profile_finish(p);
}

static void profile_free(struct profile *p)
{
	free(p->x);
	p->x = NULL;
}

/* ---- reading -------------------------------------------------------------------------- */

struct rdr {
	const char *path;
	const uint8_t *d;
	size_t len;
	int be;
	const struct profile *p;
	double unit;
	uint64_t mul; /* ns per tick when the unit is a power of ten, else 0 */
};

static uint64_t raw(const struct rdr *r, size_t off, int size)
{
	const uint8_t *b = r->d + off;
	uint64_t v = 0;
	if (r->be)
		for (int i = 0; i < size; i++)
			v = v << 8 | b[i];
	else
		for (int i = size - 1; i >= 0; i--)
			v = v << 8 | b[i];
	return v;
}

static int64_t rd(const struct rdr *r, size_t off, int type)
{
	const struct scalar *s = &r->p->t[type];
	uint64_t v = raw(r, off, s->size);
	if (s->sgn && s->size < 8 && (v >> (s->size * 8 - 1)) & 1)
		v |= ~0ull << (s->size * 8);
	return (int64_t) v;
}

static double rd_double(const struct rdr *r, size_t off)
{
	uint64_t v = raw(r, off, 8);
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static int is_sentinel(const struct rdr *r, int64_t v, int type, int all, int64_t val)
{
	if (!all)
		return v == val;
	int sz = r->p->t[type].size;
	uint64_t mask = sz == 8 ? ~0ull : (1ull << (sz * 8)) - 1;
	return ((uint64_t) v & mask) == mask;
}

static const char *rname(int rt, const struct profile *p, char *buf, size_t n)
{
	if (rt >= 0 && rt < R_NBUILTIN)
		snprintf(buf, n, "%s (%d)", rec_name[rt], rt);
	else {
		snprintf(buf, n, "type %d", rt);
		for (int i = 0; i < p->nx; i++)
			if (p->x[i].code == rt)
				snprintf(buf, n, "%s (%d)", p->x[i].name, rt);
	}
	return buf;
}

static const struct layout *lay_of(const struct profile *p, int rt)
{
	if (rt > 0 && rt < R_NBUILTIN)
		return &p->lay[rt];
	for (int i = 0; i < p->nx; i++)
		if (p->x[i].code == rt)
			return &p->x[i].lay;
	return NULL;
}

static size_t rec_size(const struct profile *p, const struct layout *l, uint64_t n)
{
	if (l->var < 0 || n <= 1)
		return p->array_exact && l->var >= 0 && n == 0 ? (size_t) roundup(l->off[l->var], p->tail_pad ? l->align : 1)
							       : (size_t) l->size1;
	if (p->array_exact) {
		size_t s = (size_t) l->off[l->var] + n * (size_t) l->esize;
		return p->tail_pad ? (s + (size_t) l->align - 1) / (size_t) l->align * (size_t) l->align : s;
	}
	return (size_t) l->size1 + (n - 1) * (size_t) l->esize;
}

/* The name of the field holding byte `pos` of a record laid out by `l`. */
static void field_at(const struct profile *p, const struct layout *l, size_t pos, char *buf, size_t n)
{
	snprintf(buf, n, "(tail padding)");
	for (int i = l->n - 1; i >= 0; i--) {
		if ((size_t) l->off[i] > pos)
			continue;
		const struct fld *f = &l->f[i];
		if (f->count == N_VAR || (f->type == T_REQ)) {
			size_t k = (pos - (size_t) l->off[i]) / (size_t) l->esize;
			if (f->type != T_REQ) {
				snprintf(buf, n, "%s[%zu]", f->name, k);
				return;
			}
			size_t in = (pos - (size_t) l->off[i]) % (size_t) (l->esize ? l->esize : p->req.size1);
			const char *sub = "(padding)";
			for (int j = p->req.n - 1; j >= 0; j--)
				if ((size_t) p->req.off[j] <= in) {
					if (in < (size_t) (p->req.off[j] + p->req.len[j]))
						sub = f_req[j].name;
					break;
				}
			snprintf(buf, n, "%s[%zu].%s", f->name, k, sub);
			return;
		}
		int cnt = f->count == N_NAME ? p->name_len : f->count == N_PATH ? p->path_len : f->count;
		if (pos < (size_t) l->off[i] + (size_t) l->len[i] * (size_t) cnt)
			snprintf(buf, n, "%s", f->name);
		else
			snprintf(buf, n, "(padding after %s)", f->name);
		return;
	}
}

/* Size of the record at `off` (its type `rt` is known), or -1 with the error. */
static int64_t record_size(const struct rdr *r, size_t off, int rt, struct weft_err *e)
{
	const struct profile *p = r->p;
	char nb[96], fb[96];
	const struct layout *l = lay_of(p, rt);
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
			field_at(p, l, left, fb, sizeof(fb));
			return weft_fail(e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field %s: the record runs past the end "
					 "of the file (it needs at least %d bytes, %zu are left)",
					 r->path, off, rname(rt, p, nb, sizeof(nb)), fb, l->size1, left);
		}
		n = (uint64_t) rd(r, off + (size_t) c, l->tp[K_NC]);
	}
	size_t sz = rec_size(p, l, n);
	if (sz <= left)
		return (int64_t) sz;
	if (n > 1 && rec_size(p, l, 1) <= left)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field num_clients: %llu %s run past the "
				 "end of the file (the record needs %zu bytes, %zu are left)",
				 r->path, off, rname(rt, p, nb, sizeof(nb)), (unsigned long long) n,
				 l->f[l->var].name, sz, left);
	field_at(p, l, left, fb, sizeof(fb));
	return weft_fail(e, WEFT_EINPUT,
			 "%s: byte offset %zu: record %s, field %s: the record runs past the end of the "
			 "file (it needs %zu bytes, %zu are left)",
			 r->path, off, rname(rt, p, nb, sizeof(nb)), fb, sz, left);
}

/* ---- the header and the profile probe ------------------------------------------------------ */

struct header {
	int64_t start_date, gmt;
	uint64_t ts;
	double unit;
	size_t size;
};

static const double pow10neg[] = {1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};

/* Read the header record at byte 8; `why` gets the first implausible field
 * when `check` (the probe's rules). Returns 0, or -1 with `why` filled. */
static int read_header(const struct rdr *r, struct header *h, int check, char *why, size_t n)
{
	const struct layout *l = &r->p->lay[R_HEADER];
	size_t off = 8;
	if (off + (size_t) l->size1 > r->len) {
		char fb[96];
		field_at(r->p, l, r->len - off, fb, sizeof(fb));
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
	int64_t st = rd(r, off + (size_t) l->at[K_SYSTYPE], T_BYTE);
	if (st < 1 || st > 8) {
		snprintf(why, n, "field system_type: expected 1..8, found %lld", (long long) st);
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

/* The first times of a record (its sort key and its end time). */
static void record_times(const struct rdr *r, const struct layout *l, size_t off, uint64_t *t1, uint64_t *t2)
{
	*t1 = l->at[K_T1] >= 0 ? (uint64_t) rd(r, off + (size_t) l->at[K_T1], T_TS) : 0;
	*t2 = l->at[K_T2] >= 0 ? (uint64_t) rd(r, off + (size_t) l->at[K_T2], T_TS) : *t1;
}

static int probe_one(struct rdr *r, char *why, size_t n)
{
	struct header h;
	if (read_header(r, &h, 1, why, n))
		return -1;
	size_t off = 8 + h.size;
	struct weft_err e;
	for (int k = 0; k < PROBE_RECORDS && off < r->len; k++) {
		if (r->len - off < (size_t) r->p->t[T_USHORT].size) {
			snprintf(why, n, "byte offset %zu: a truncated record_type", off);
			return -1;
		}
		int rt = (int) rd(r, off, T_USHORT);
		int64_t sz = record_size(r, off, rt, &e);
		if (sz < 0) {
			snprintf(why, n, "%.400s", strstr(e.msg, "byte offset") ? strstr(e.msg, "byte offset") : e.msg);
			return -1;
		}
		const struct layout *l = lay_of(r->p, rt);
		if (l->at[K_T1] >= 0 && r->p->t[T_TS].sgn) {
			uint64_t t1, t2;
			record_times(r, l, off, &t1, &t2);
			if ((int64_t) t1 < 0 || (int64_t) t2 < 0) {
				snprintf(why, n, "byte offset %zu: a negative time", off);
				return -1;
			}
		}
		off += (size_t) sz;
	}
	return 0;
}

static int choose_profile(struct rdr *r, const struct import_opts *o, struct profile *p, struct weft_err *e)
{
	if (o->profile) {
		if (profile_load(p, o->profile, e))
			return -1;
		r->p = p;
		return 0;
	}
	struct profile cand[NBUILTINS];
	char why[NBUILTINS][512];
	int ok[NBUILTINS], nok = 0, pick = -1;
	for (int b = 0; b < NBUILTINS; b++) {
		struct weft_err pe;
		if (profile_load(&cand[b], builtins[b].name, &pe))
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
		fprintf(stderr, "weft: %s: CHARISMA machine profile %s (probed on the header record)\n",
			r->path, p->name);
		return 0;
	}
	char list[2048] = "";
	for (int b = 0; b < NBUILTINS; b++)
		if (nok ? ok[b] : 1)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s%s%s",
				 list[0] ? (nok ? ", " : "; ") : "", builtins[b].name, nok ? "" : ": ",
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

/* ---- output: one stream per client ---------------------------------------------------------- */

struct pend {
	uint64_t t, seq;
	char mcv[4];
	int32_t arg;
	int len;
};

struct app {
	int64_t id;
	int index;      /* Paraver application, 1.. in order of appearance */
	int64_t *mem;   /* clients currently in it */
	int nmem, cap;
	UT_hash_handle hh;
};

struct client {
	int64_t id;
	struct app *app;
	int opened;
	struct ovni_writer w;
	char *dir;
	int64_t loom;
	uint64_t last;
	struct pend *pq;  /* min-heap by (t, seq) */
	int npq, cappq;
	UT_hash_handle hh;
};

struct akey {
	int64_t kind; /* 0 client, 1 application (64 bits: the key has no padding) */
	int64_t who, id;
};

struct async_req {
	struct akey k;
	int64_t *cl;
	int ncl;
	size_t off;
	UT_hash_handle hh;
};

struct rec {
	uint64_t t, seq;
	size_t off;
};

struct conv {
	struct rdr r;
	const char *outdir;
	struct app *apps;
	int napps;
	struct client *clients;
	struct async_req *async;
	uint64_t seq;
	struct rec *heap;
	int nheap;
	uint64_t emitted_t; /* first time of the last record handled */
	int any_emitted;
	size_t bufsize;
	struct weft_err *e;
	int failed;
};

static int pend_less(const struct pend *a, const struct pend *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void pend_push(struct client *c, struct pend x)
{
	if (c->npq == c->cappq) {
		c->cappq = c->cappq ? 2 * c->cappq : 8;
		c->pq = weft_xrealloc(c->pq, (size_t) c->cappq * sizeof(*c->pq));
	}
	int i = c->npq++;
	while (i > 0 && pend_less(&x, &c->pq[(i - 1) / 2])) {
		c->pq[i] = c->pq[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	c->pq[i] = x;
}

static struct pend pend_pop(struct client *c)
{
	struct pend top = c->pq[0], x = c->pq[--c->npq];
	int i = 0;
	for (;;) {
		int k = 2 * i + 1;
		if (k >= c->npq)
			break;
		if (k + 1 < c->npq && pend_less(&c->pq[k + 1], &c->pq[k]))
			k++;
		if (!pend_less(&c->pq[k], &x))
			break;
		c->pq[i] = c->pq[k];
		i = k;
	}
	if (c->npq)
		c->pq[i] = x;
	return top;
}

static uint64_t to_ns(const struct rdr *r, uint64_t ticks)
{
	if (r->mul)
		return ticks * r->mul;
	return (uint64_t) llroundl((long double) ticks * (long double) r->unit * 1e9L);
}

static void raw_event(struct client *c, uint64_t t, const char *mcv, const void *pl, size_t len)
{
	ow_event(&c->w, mcv, t, pl, len);
	c->last = t;
}

static void flush_pend(struct client *c, uint64_t upto)
{
	while (c->npq && c->pq[0].t <= upto) {
		struct pend x = pend_pop(c);
		raw_event(c, x.t, x.mcv, &x.arg, (size_t) x.len);
	}
}

/* An event on client c at tick time t (pending ends up to t go first). */
static void ev(struct conv *cv, struct client *c, uint64_t t, const char *mcv, const void *pl, size_t len)
{
	uint64_t ns = to_ns(&cv->r, t);
	flush_pend(c, ns);
	raw_event(c, ns, mcv, pl, len);
}

static void ev_later(struct conv *cv, struct client *c, uint64_t t, const char *mcv, int32_t arg, int len)
{
	struct pend x = {to_ns(&cv->r, t), cv->seq++, {mcv[0], mcv[1], mcv[2], 0}, arg, len};
	pend_push(c, x);
}

static int64_t loom_of(const struct profile *p, int64_t client)
{
	if (p->nodes < 0)
		return 0;
	if (p->nodes > 0)
		return client >= 0 ? client / p->nodes : -1 - (-1 - client) / p->nodes;
	return client;
}

static struct client *get_client(struct conv *cv, int64_t id)
{
	struct client *c;
	HASH_FIND(hh, cv->clients, &id, sizeof(id), c);
	return c;
}

static int open_stream(struct conv *cv, struct client *c)
{
	c->loom = loom_of(cv->r.p, c->id);
	c->dir = weft_xasprintf("%s/loom.node%lld/proc.%lld/thread.%lld", cv->outdir, (long long) c->loom,
				(long long) c->app->id + 1, (long long) c->id + 1);
	if (ow_open(&c->w, c->dir, cv->bufsize, cv->e))
		return -1;
	c->opened = 1;
	return 0;
}

/* Bind a client to an application (APP_LOAD's list, CLIENT_JOIN). */
static int bind(struct conv *cv, size_t off, const char *rn, struct app *a, int64_t id, uint64_t t)
{
	struct client *c = get_client(cv, id);
	if (c && c->app != a)
		return weft_fail(cv->e, WEFT_EINPUT,
				 "%s: byte offset %zu: record %s, field client_id: client %lld already "
				 "belongs to application %lld: expected application ids to stay with a client",
				 cv->r.path, off, rn, (long long) id, (long long) c->app->id);
	if (!c) {
		c = weft_xcalloc(1, sizeof(*c));
		c->id = id;
		c->app = a;
		HASH_ADD(hh, cv->clients, id, sizeof(c->id), c);
		if (open_stream(cv, c))
			return -1;
	}
	for (int i = 0; i < a->nmem; i++)
		if (a->mem[i] == id)
			return 0;
	if (a->nmem == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 8;
		a->mem = weft_xrealloc(a->mem, (size_t) a->cap * sizeof(*a->mem));
	}
	a->mem[a->nmem++] = id;
	ev(cv, c, t, "FP+", NULL, 0);
	return 0;
}

static struct app *get_app(struct conv *cv, int64_t id, int create)
{
	struct app *a;
	HASH_FIND(hh, cv->apps, &id, sizeof(id), a);
	if (!a && create) {
		a = weft_xcalloc(1, sizeof(*a));
		a->id = id;
		a->index = ++cv->napps;
		HASH_ADD(hh, cv->apps, id, sizeof(a->id), a);
	}
	return a;
}

static struct client *need_client(struct conv *cv, size_t off, const char *rn, const char *field, int64_t id)
{
	struct client *c = get_client(cv, id);
	if (!c)
		weft_fail(cv->e, WEFT_EINPUT,
			  "%s: byte offset %zu: record %s, field %s: client %lld is in no application "
			  "(expected an earlier APP_LOAD or CLIENT_JOIN naming it)",
			  cv->r.path, off, rn, field, (long long) id);
	return c;
}

static struct app *need_app(struct conv *cv, size_t off, const char *rn, int64_t id)
{
	struct app *a = get_app(cv, id, 0);
	if (!a)
		weft_fail(cv->e, WEFT_EINPUT,
			  "%s: byte offset %zu: record %s, field appl_id: application %lld was never "
			  "loaded (expected an earlier APP_LOAD or CLIENT_JOIN)",
			  cv->r.path, off, rn, (long long) id);
	return a;
}

struct pl {
	uint8_t b[16];
	size_t n;
};

static void put32(struct pl *p, int64_t v)
{
	int32_t x = (int32_t) v;
	memcpy(p->b + p->n, &x, 4);
	p->n += 4;
}

static void put64(struct pl *p, int64_t v)
{
	memcpy(p->b + p->n, &v, 8);
	p->n += 8;
}

/* Turn one record into events. */
static int handle(struct conv *cv, size_t off)
{
	const struct rdr *r = &cv->r;
	const struct profile *p = r->p;
	int rt = (int) rd(r, off, T_USHORT);
	const struct layout *l = lay_of(p, rt);
	if (rt >= R_NBUILTIN)
		return 0; /* a machine-dependent record: sized and skipped */
	char rn[64];
	rname(rt, p, rn, sizeof(rn));
#define F(k) rd(r, off + (size_t) l->at[k], l->tp[k])
	uint64_t t1, t2;
	record_times(r, l, off, &t1, &t2);
	struct client *c;
	struct app *a;
	struct pl pl = {{0}, 0};
	switch (rt) {
	case R_LOAD: {
		a = get_app(cv, F(K_APP), 1);
		int64_t n = F(K_NC);
		for (int64_t i = 0; i < n; i++)
			if (bind(cv, off, rn, a, rd(r, off + (size_t) l->at[K_ARR] + (size_t) (i * l->esize), T_CLIENTID), t1))
				return -1;
		return 0;
	}
	case R_JOIN:
		return bind(cv, off, rn, get_app(cv, F(K_APP), 1), F(K_CLIENT), t1);
	case R_EXIT:
	case R_LEAVE: {
		if (!(a = need_app(cv, off, rn, F(K_APP))))
			return -1;
		int64_t only = rt == R_LEAVE ? F(K_CLIENT) : 0;
		for (int i = 0; i < a->nmem; i++) {
			if (rt == R_LEAVE && a->mem[i] != only)
				continue;
			ev(cv, get_client(cv, a->mem[i]), t1, "FP-", NULL, 0);
			a->mem[i--] = a->mem[--a->nmem];
		}
		return 0;
	}
	case R_APPOPEN:
	case R_CLOPEN:
	case R_APPCLOSE:
	case R_CLCLOSE: {
		int open = rt == R_APPOPEN || rt == R_CLOPEN;
		int appw = rt == R_APPOPEN || rt == R_APPCLOSE;
		put32(&pl, F(K_FD));
		if (open) {
			put32(&pl, F(K_FILE));
			put32(&pl, F(K_FLAGS));
		} else {
			put64(&pl, F(K_SIZE));
		}
		const char *mcv = open ? (appw ? "FOa" : "FO.") : (appw ? "FCa" : "FC.");
		if (!appw) {
			if (!(c = need_client(cv, off, rn, "client_id", F(K_CLIENT))))
				return -1;
			ev(cv, c, t1, mcv, pl.b, pl.n);
			return 0;
		}
		if (!(a = need_app(cv, off, rn, F(K_APP))))
			return -1;
		for (int i = 0; i < a->nmem; i++)
			ev(cv, get_client(cv, a->mem[i]), t1, mcv, pl.b, pl.n);
		return 0;
	}
	case R_RW: {
		int op = (int) F(K_OP);
		int async = op & 1, wr = op & 2;
		int64_t n = l->at[K_NC] >= 0 ? F(K_NC) : 1;
		int64_t aid = F(K_AID);
		if (!async && t2 < t1)
			return weft_fail(cv->e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field endtime: %llu ticks is before "
					 "starttime %llu: expected a request to end after it starts",
					 r->path, off, rn, (unsigned long long) t2, (unsigned long long) t1);
		struct async_req *q = NULL;
		if (async) {
			q = weft_xcalloc(1, sizeof(*q));
			int clientreq = (op & 4) || l->at[K_APP] < 0;
			q->k.kind = clientreq ? 0 : 1;
			q->k.who = clientreq ? rd(r, off + (size_t) l->at[K_ARR] + (size_t) l->rq[K_CLIENT], T_CLIENTID)
					     : F(K_APP);
			q->k.id = aid;
			q->off = off;
			struct async_req *old;
			HASH_FIND(hh, cv->async, &q->k, sizeof(q->k), old);
			if (old) {
				free(q);
				return weft_fail(cv->e, WEFT_EINPUT,
						 "%s: byte offset %zu: record %s, field async_id: asynchronous "
						 "request %lld of %s %lld is already in flight (issued by the RW "
						 "record at byte offset %zu): expected an ASYNCH_END first",
						 r->path, off, rn, (long long) aid, old->k.kind ? "application" : "client",
						 (long long) old->k.who, old->off);
			}
			q->cl = weft_xcalloc((size_t) n + 1, sizeof(*q->cl));
			HASH_ADD(hh, cv->async, k, sizeof(q->k), q);
		}
		for (int64_t i = 0; i < n; i++) {
			size_t eo = off + (size_t) l->at[K_ARR] + (size_t) (i * (l->esize ? l->esize : 0));
			int64_t cid = rd(r, eo + (size_t) l->rq[K_CLIENT], T_CLIENTID);
			char fn[64];
			snprintf(fn, sizeof(fn), "requests[%lld].client_id", (long long) i);
			if (!(c = need_client(cv, off, rn, fn, cid)))
				return -1;
			struct pl d = {{0}, 0};
			put32(&d, F(K_FD));
			put32(&d, aid);
			ev(cv, c, t1, "FD.", d.b, d.n);
			struct pl s = {{0}, 0};
			put64(&s, rd(r, eo + (size_t) l->rq[K_IOSIZE], T_BIGINT));
			put64(&s, rd(r, eo + (size_t) l->rq[K_OFFSET], T_BIGINT));
			if (async) {
				ev(cv, c, t1, wr ? "FWa" : "FRa", s.b, s.n);
				q->cl[q->ncl++] = cid;
			} else {
				ev(cv, c, t1, wr ? "FW[" : "FR[", s.b, s.n);
				ev_later(cv, c, t2, wr ? "FW]" : "FR]", 0, 0);
			}
		}
		return 0;
	}
	case R_AEND: {
		int64_t cid = F(K_CLIENT), aid = F(K_AID), appl = F(K_APP);
		struct akey k = {0, cid, aid};
		int noc = is_sentinel(r, cid, T_CLIENTID, p->no_client_all, p->no_client);
		if (noc)
			k = (struct akey){1, appl, aid};
		struct async_req *q;
		HASH_FIND(hh, cv->async, &k, sizeof(k), q);
		if (!q)
			return weft_fail(cv->e, WEFT_EINPUT,
					 "%s: byte offset %zu: record %s, field async_id: no asynchronous "
					 "request %lld of %s %lld is in flight (expected an earlier asynchronous RW)",
					 r->path, off, rn, (long long) aid, noc ? "application" : "client",
					 (long long) (noc ? appl : cid));
		uint64_t end = t2 > t1 ? t2 : t1;
		for (int i = 0; i < q->ncl; i++) {
			c = get_client(cv, q->cl[i]);
			ev(cv, c, t1, "FA[", &(int32_t){(int32_t) aid}, 4);
			ev_later(cv, c, end, "FA]", (int32_t) aid, 4);
		}
		HASH_DEL(cv->async, q);
		free(q->cl);
		free(q);
		return 0;
	}
	case R_EXTEND:
	case R_TRUNC:
	case R_LINK:
	case R_UNLINK:
	case R_FCNTL: {
		if (!(c = need_client(cv, off, rn, "client_id", F(K_CLIENT))))
			return -1;
		const char *mcv = rt == R_EXTEND ? "FE." : rt == R_TRUNC ? "FT." : rt == R_LINK ? "FL." : rt == R_UNLINK ? "FU." : "FF.";
		if (rt == R_FCNTL) {
			put32(&pl, F(K_FD));
			put32(&pl, F(K_REQUEST));
			put32(&pl, F(K_ARG));
		} else if (rt == R_LINK || rt == R_UNLINK) {
			put32(&pl, F(K_FILE));
			put32(&pl, F(K_LINKS));
		} else {
			put32(&pl, F(K_FILE));
			put64(&pl, F(K_SIZE2));
		}
		ev(cv, c, t1, mcv, pl.b, pl.n);
		return 0;
	}
	}
#undef F
	return 0;
}

/* ---- the sorting window ------------------------------------------------------------------------- */

static int rec_less(const struct rec *a, const struct rec *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void heap_push(struct conv *cv, struct rec x)
{
	int i = cv->nheap++;
	while (i > 0 && rec_less(&x, &cv->heap[(i - 1) / 2])) {
		cv->heap[i] = cv->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	cv->heap[i] = x;
}

static struct rec heap_pop(struct conv *cv)
{
	struct rec top = cv->heap[0], x = cv->heap[--cv->nheap];
	int i = 0, n = cv->nheap;
	for (;;) {
		int k = 2 * i + 1;
		if (k >= n)
			break;
		if (k + 1 < n && rec_less(&cv->heap[k + 1], &cv->heap[k]))
			k++;
		if (!rec_less(&cv->heap[k], &x))
			break;
		cv->heap[i] = cv->heap[k];
		i = k;
	}
	if (n)
		cv->heap[i] = x;
	return top;
}

static int pop_one(struct conv *cv)
{
	struct rec x = heap_pop(cv);
	cv->emitted_t = x.t;
	cv->any_emitted = 1;
	return handle(cv, x.off);
}

/* ---- the driver ------------------------------------------------------------------------------------ */

static int finish_streams(struct conv *cv, const struct header *h)
{
	int rc = 0;
	struct client *c, *tmp;
	HASH_ITER(hh, cv->clients, c, tmp) {
		if (!c->opened)
			continue;
		flush_pend(c, UINT64_MAX);
		if (ow_close(&c->w, cv->e))
			rc = -1;
		c->opened = 0;
		if (rc)
			continue;
		char *json = weft_xasprintf(
			"{\n  \"version\": 3,\n  \"ovni\": {\n"
			"    \"lib\": {\"version\": \"1.14.0\", \"commit\": \"weft-import-charisma\"},\n"
			"    \"part\": \"thread\",\n    \"tid\": %lld,\n    \"pid\": %lld,\n"
			"    \"loom\": \"node%lld\",\n    \"app_id\": %d,\n"
			"    \"require\": {\"fileio\": \"1.0.0\"},\n"
			"    \"loom_cpus\": [{\"index\": 0, \"phyid\": 0}],\n    \"finished\": 1\n  }\n}\n",
			(long long) c->id + 1, (long long) c->app->id + 1, (long long) c->loom, c->app->index);
		rc = ow_write_json(c->dir, json, cv->e);
		free(json);
		/* the Paraver header date is the oldest stream's: the trace's start_date */
		char *obs = weft_xasprintf("%s/stream.obs", c->dir);
		struct timeval tv[2] = {{(time_t) h->start_date, 0}, {(time_t) h->start_date, 0}};
		if (h->start_date > 0)
			utimes(obs, tv);
		free(obs);
	}
	return rc;
}

static void conv_free(struct conv *cv)
{
	struct client *c, *ct;
	HASH_ITER(hh, cv->clients, c, ct) {
		HASH_DEL(cv->clients, c);
		if (c->opened) {
			struct weft_err ig;
			ow_close(&c->w, &ig);
		}
		free(c->pq);
		free(c->dir);
		free(c);
	}
	struct app *a, *at;
	HASH_ITER(hh, cv->apps, a, at) {
		HASH_DEL(cv->apps, a);
		free(a->mem);
		free(a);
	}
	struct async_req *q, *qt;
	HASH_ITER(hh, cv->async, q, qt) {
		HASH_DEL(cv->async, q);
		free(q->cl);
		free(q);
	}
	free(cv->heap);
}

static int charisma_detect(const uint8_t *d, size_t len)
{
	if (len < 8)
		return 0;
	static const uint8_t le[4] = {0x67, 0x45, 0x23, 0x01}, be[4] = {0x01, 0x23, 0x45, 0x67};
	return memcmp(d, le, 4) == 0 || memcmp(d, be, 4) == 0;
}

static int charisma_convert(const char *path, const uint8_t *data, size_t len, const struct import_opts *o,
			    const char *outdir, struct weft_err *e)
{
	struct conv cv = {0};
	cv.r.path = path;
	cv.r.d = data;
	cv.r.len = len;
	cv.outdir = outdir;
	cv.e = e;
	if (len < 4 || !charisma_detect(data, len < 8 ? 8 : len)) {
		char found[32] = "";
		for (size_t i = 0; i < 4 && i < len; i++)
			snprintf(found + strlen(found), sizeof(found) - strlen(found), "%s%02x", i ? " " : "", data[i]);
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 0: field MAGIC: expected 67 45 23 01 (little-endian) or "
				 "01 23 45 67 (big-endian), found %s%s: not a CHARISMA trace",
				 path, len ? found : "nothing", len && len < 4 ? " (the file ends)" : "");
	}
	cv.r.be = data[0] == 0x01;
	if (len < 8)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 4: field FORMAT_VERSION: the file ends after %zu bytes", path, len);
	uint64_t ver = cv.r.be ? (uint64_t) data[4] << 24 | data[5] << 16 | data[6] << 8 | data[7]
			       : (uint64_t) data[7] << 24 | data[6] << 16 | data[5] << 8 | data[4];
	if (ver != 1)
		return weft_fail(e, WEFT_EINPUT,
				 "%s: byte offset 4: field FORMAT_VERSION: expected 1, found %llu", path,
				 (unsigned long long) ver);
	struct profile prof;
	memset(&prof, 0, sizeof(prof));
	if (choose_profile(&cv.r, o, &prof, e)) {
		profile_free(&prof);
		return -1;
	}
	struct header h;
	char why[512];
	if (read_header(&cv.r, &h, 0, why, sizeof(why))) {
		profile_free(&prof);
		return weft_fail(e, WEFT_EINPUT, "%s: byte offset 8: record HEADER (0), %s (profile %s)", path,
				 why, prof.name);
	}
	cv.r.unit = h.unit;
	for (int k = 0; k < 10; k++)
		if (h.unit == pow10neg[k]) {
			cv.r.mul = 1;
			for (int j = k; j < 9; j++)
				cv.r.mul *= 10;
		}
	cv.bufsize = 64u << 10;
	cv.heap = weft_xmalloc(SORT_WINDOW * sizeof(*cv.heap));
	int rc = 0;
	size_t off = 8 + h.size;
	char rn[64];
	while (off < len && rc == 0) {
		if (len - off < (size_t) prof.t[T_USHORT].size) {
			rc = weft_fail(e, WEFT_EINPUT,
				       "%s: byte offset %zu: field record_type: the record runs past the end "
				       "of the file (%zu bytes are left)",
				       path, off, len - off);
			break;
		}
		int rt = (int) rd(&cv.r, off, T_USHORT);
		int64_t sz = record_size(&cv.r, off, rt, e);
		if (sz < 0) {
			rc = -1;
			break;
		}
		const struct layout *l = lay_of(&prof, rt);
		if (rt < R_NBUILTIN) {
			uint64_t t1, t2;
			record_times(&cv.r, l, off, &t1, &t2);
			if (prof.t[T_TS].sgn && ((int64_t) t1 < 0 || (int64_t) t2 < 0)) {
				rc = weft_fail(e, WEFT_EINPUT, "%s: byte offset %zu: record %s, field %s: a negative time",
					       path, off, rname(rt, &prof, rn, sizeof(rn)), l->f[1].name);
				break;
			}
			if (cv.r.mul && t1 > UINT64_MAX / cv.r.mul) {
				rc = weft_fail(e, WEFT_EINPUT, "%s: byte offset %zu: record %s, field %s: %llu ticks overflow 64-bit nanoseconds",
					       path, off, rname(rt, &prof, rn, sizeof(rn)), l->f[1].name, (unsigned long long) t1);
				break;
			}
			if (cv.any_emitted && t1 < cv.emitted_t) {
				rc = weft_fail(e, WEFT_EINPUT,
					       "%s: byte offset %zu: record %s, field %s: %llu ticks is earlier than a "
					       "record already emitted (%llu ticks): the records are out of order by more "
					       "than weft's sort window of %u records",
					       path, off, rname(rt, &prof, rn, sizeof(rn)), l->f[1].name,
					       (unsigned long long) t1, (unsigned long long) cv.emitted_t, SORT_WINDOW);
				break;
			}
			if (cv.nheap == (int) SORT_WINDOW)
				rc = pop_one(&cv);
			heap_push(&cv, (struct rec){t1, cv.seq++, off});
		}
		off += (size_t) sz;
	}
	while (rc == 0 && cv.nheap)
		rc = pop_one(&cv);
	if (rc == 0) {
		struct async_req *q, *qt;
		HASH_ITER(hh, cv.async, q, qt)
			weft_warn("%s: the asynchronous RW at byte offset %zu (async id %lld) has no ASYNCH_END",
				  path, q->off, (long long) q->k.id);
		if (!cv.clients)
			rc = weft_fail(e, WEFT_EINPUT, "%s: no client in the trace (no APP_LOAD or CLIENT_JOIN record)", path);
	}
	if (rc == 0)
		rc = finish_streams(&cv, &h);
	/* the header's timestamp is start_date: the absolute origin of the clocks */
	if (rc == 0 && h.start_date > 0)
		rc = import_write_origin(outdir, "charisma", 1,
					 h.start_date * 1000000000ll - (int64_t) to_ns(&cv.r, h.ts), e);
	conv_free(&cv);
	profile_free(&prof);
	return rc;
}

const struct weft_import_fmt import_charisma = {
	"charisma",
	"CHARISMA file-system traces (iPSC/860, CM-5; binary, either byte order)",
	charisma_detect,
	charisma_convert,
};
