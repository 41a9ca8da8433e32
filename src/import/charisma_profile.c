/* SPDX-License-Identifier: GPL-3.0-or-later */
/* charisma_profile: machine profiles and record layouts (see charisma_profile.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "import/charisma_profile.h"
#include "import/charisma_fields.h"
#include "util/mapfile.h"

const char *const chp_type_name[T_NTYPES] = {
	"byte", "char", "u_short", "int", "long", "u_long", "time_t", "double", "TimestampType", "BigInt",
	"TraceAppId", "TraceClientId", "TraceUserId", "TraceFileId", "TraceFileDesc", "TraceAsyncId",
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
const struct fld chp_f_req[] = {{"offset", T_BIGINT, 1, K_OFFSET},
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

const char *const chp_rec_name[R_NBUILTIN] = {
	"HEADER", "APP_LOAD", "APP_EXIT", "CLIENT_JOIN", "APP_CLIENT_LEAVE", "APP_OPEN", "CLIENT_OPEN",
	"APP_CLOSE", "CLIENT_CLOSE", "RW", "EXTEND", "TRUNCATE", "LINK", "UNLINK", "ASYNCH_END", "FCNTL",
};

static const struct fld *const rec_fields[R_NBUILTIN] = {
	f_header, f_load, f_exit, f_join, f_join, f_appopen, f_clopen, f_appclose, f_clclose, f_rw,
	f_size, f_size, f_link, f_link, f_aend, f_fcntl,
};

/* ---- machine profiles ---------------------------------------------------------- */

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
} builtins[CHP_NBUILTINS] = {
	{"charisma-default", ""},
	{"charisma-packed", "align_max = 1\n"},
	{"charisma-align4", "align_max = 4\n"},
};

const char *const chp_builtin_names[CHP_NBUILTINS] = {"charisma-default", "charisma-packed", "charisma-align4"};

static int parse_profile(struct profile *p, const char *text, const char *src, struct weft_err *e);

static int perr(struct weft_err *e, const char *src, int line, const char *fmt, const char *a,
		const char *b)
{
	return weft_fail(e, WEFT_EINPUT, "%s:%d: machine profile: %s '%s'%s", src, line, fmt, a, b);
}

static int type_by_name(const char *s)
{
	for (int i = 0; i < T_NTYPES; i++)
		if (strcmp(chp_type_name[i], s) == 0)
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
			for (int b = 0; b < CHP_NBUILTINS; b++)
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
	layout(p, chp_f_req, &p->req);
	for (int r = 0; r < R_NBUILTIN; r++)
		layout(p, r == R_RW && !p->rw_app_fields ? f_rw_ipsc : rec_fields[r], &p->lay[r]);
	for (int i = 0; i < p->nx; i++)
		layout(p, p->x[i].f, &p->x[i].lay);
	return 0;
}

int chp_load(struct profile *p, const char *spec, struct weft_err *e)
{
	memset(p, 0, sizeof(*p));
	int rc = parse_profile(p, builtin_default, "charisma-default", e);
	for (int b = 0; b < CHP_NBUILTINS && rc == 0; b++)
		if (strcmp(builtins[b].name, spec) == 0) {
			snprintf(p->name, sizeof(p->name), "%s", spec);
			rc = parse_profile(p, builtins[b].extra, spec, e);
			return rc ? rc : profile_finish(p);
		}
	if (rc)
		return rc;
	struct mapfile m;
	struct stat st; /* stat, not open: a FIFO must not block here */
	if (!strchr(spec, '/') && !strchr(spec, '.') && stat(spec, &st) != 0)
		return weft_fail(e, WEFT_EUSAGE,
				 "unknown CHARISMA machine profile '%s' (built-in: charisma-default, "
				 "charisma-packed, charisma-align4; or a file of 'key = value' lines)",
				 spec);
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

void chp_free(struct profile *p)
{
	free(p->x);
	p->x = NULL;
}

const char *chp_rname(int rt, const struct profile *p, char *buf, size_t n)
{
	if (rt >= 0 && rt < R_NBUILTIN)
		snprintf(buf, n, "%s (%d)", chp_rec_name[rt], rt);
	else {
		snprintf(buf, n, "type %d", rt);
		for (int i = 0; i < p->nx; i++)
			if (p->x[i].code == rt)
				snprintf(buf, n, "%s (%d)", p->x[i].name, rt);
	}
	return buf;
}

const struct layout *chp_lay_of(const struct profile *p, int rt)
{
	if (rt > 0 && rt < R_NBUILTIN)
		return &p->lay[rt];
	for (int i = 0; i < p->nx; i++)
		if (p->x[i].code == rt)
			return &p->x[i].lay;
	return NULL;
}

size_t chp_rec_size(const struct profile *p, const struct layout *l, uint64_t n)
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

void chp_field_at(const struct profile *p, const struct layout *l, size_t pos, char *buf, size_t n)
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
						sub = chp_f_req[j].name;
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


static struct fget fget_of(const struct profile *p, int be, int off, int type)
{
	if (off < 0 || type < 0 || type >= T_NTYPES) /* absent, or an array of structs (K_ARR of RW) */
		return (struct fget){0, 0, 0};
	const struct scalar *s = &p->t[type];
	int bits = 8 * s->size;
	return (struct fget){be ? off + s->size - 8 : off, bits == 64 ? ~0ull : (1ull << bits) - 1,
			     s->sgn && bits < 64 ? 1ull << (bits - 1) : 0};
}

int chp_fast_layouts(const struct profile *p, int be, struct flay fl[R_NBUILTIN])
{
	int most = 0;
	for (int r = 1; r < R_NBUILTIN; r++) {
		const struct layout *l = &p->lay[r];
		struct flay *f = &fl[r];
		for (int k = 0; k < K_NKEYS; k++)
			f->k[k] = fget_of(p, be, l->at[k], l->tp[k]);
		f->k[K_T1] = fget_of(p, be, l->at[K_T1], T_TS);
		f->k[K_T2] = fget_of(p, be, l->at[K_T2], T_TS);
		f->rt = fget_of(p, be, 0, T_USHORT);
		f->el_client = fget_of(p, be, 0, T_CLIENTID);
		f->rq_client = fget_of(p, be, l->rq[K_CLIENT], T_CLIENTID);
		f->rq_iosize = fget_of(p, be, l->rq[K_IOSIZE], T_BIGINT);
		f->rq_offset = fget_of(p, be, l->rq[K_OFFSET], T_BIGINT);
		f->arr = l->at[K_ARR];
		f->esize = l->esize;
		f->size1 = l->size1;
		f->var = l->var >= 0 && l->at[K_NC] >= 0;
		if (l->size1 > most)
			most = l->size1;
	}
	return most;
}
