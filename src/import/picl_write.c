/* picl_write: the records, stable-sorted by (time, line), as one ovni stream
 * per processor (loom picl.P, one CPU, pid = tid = P + 1; the host is loom
 * picl.host) of the msg model, with user events as ovni marks too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "picl_int.h"
#include "strbuf.h"
#include "writer.h"

/* ---- writing ---------------------------------------------------------------- */

static int cmp_orec(const void *a, const void *b)
{
	const struct orec *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct pstream {
	struct ovni_writer w;
	int open;
	uint64_t last;
	int32_t *sys, *usr; /* open entries (types) */
	int nsys, csys, nusr, cusr;
};

static void push(int32_t **v, int *n, int *cap, int32_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = weft_xrealloc(*v, (size_t) *cap * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

static void xev(struct pstream *s, const char *mcv, uint64_t clk, int32_t type, int32_t a, int32_t b, int32_t c)
{
	int32_t pl[4] = {type, a, b, c};
	ow_event(&s->w, mcv, clk, pl, sizeof(pl));
}

static int64_t mark_value(int32_t type)
{
	return type >= 0 ? (int64_t) type + 1 : type; /* old collective blocks: -1..-4 */
}

static void mark_ev(struct pstream *s, const char *mcv, uint64_t clk, int32_t type)
{
	uint8_t pl[12];
	int64_t v = mark_value(type);
	int32_t ty = 0;
	memcpy(pl, &v, 8);
	memcpy(pl + 8, &ty, 4);
	ow_event(&s->w, mcv, clk, pl, sizeof(pl));
}

static void json_str(struct strbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_printf(b, "\\%c", *s);
		else if ((unsigned char) *s < 32)
			sb_printf(b, "\\u%04x", (unsigned char) *s);
		else
			sb_printf(b, "%c", *s);
	}
	sb_printf(b, "\"");
}

int picl_write_streams(struct picl *p, const char *outdir)
{
	struct weft_err *err = p->err;
	size_t sorted = 1;
	while (sorted < p->n && cmp_orec(&p->r[sorted - 1], &p->r[sorted]) <= 0)
		sorted++;
	if (sorted < p->n) /* logs are usually sorted already */
		qsort(p->r, p->n, sizeof(*p->r), cmp_orec);
	picl_files_pair(p);
	int64_t t0 = p->n ? p->r[0].t : 0;
	struct pstream **st = weft_xcalloc(NPROC_IDS, sizeof(*st));
	/* mark labels: -5 labels, defaults for the user types used */
	for (size_t i = 0; i < p->n; i++)
		if (p->r[i].kind == K_UBEGIN) {
			int64_t v = mark_value(p->r[i].type);
			int found = 0;
			for (int k = 0; k < p->nlab && !found; k++)
				found = p->lab[k].value == v;
			if (!found) {
				static const char *const coll[] = {"barrier", "broadcast (-2)", "broadcast (-3)",
								   "global op"};
				char buf[64];
				if (p->r[i].type >= 0)
					snprintf(buf, sizeof(buf), "user event %d", p->r[i].type);
				else
					snprintf(buf, sizeof(buf), "%s",
						 p->r[i].type >= -4 ? coll[-p->r[i].type - 1] : "block");
				picl_add_label(p, v, buf, strlen(buf));
			}
		}
	struct strbuf labels = {0};
	for (int k = 0; k < p->nlab; k++) {
		sb_printf(&labels, "%s\"%lld\": ", k ? ", " : "", (long long) p->lab[k].value);
		json_str(&labels, p->lab[k].text);
	}
	int rc = 0;
	size_t nbad = 0;
	for (size_t i = 0; i < p->n && rc == 0; i++) {
		const struct orec *r = &p->r[i];
		uint64_t clk = (uint64_t) (r->t - t0) + 1;
		struct pstream *s = st[r->proc];
		if (!s) {
			s = st[r->proc] = weft_xcalloc(1, sizeof(*s));
			char loom[32];
			if (r->proc == HOST)
				snprintf(loom, sizeof(loom), "picl.host");
			else
				snprintf(loom, sizeof(loom), "picl.%d", r->proc);
			long long id = (long long) r->proc + 1;
			char *dir = weft_xasprintf("%s/loom.%s/proc.%lld/thread.%lld", outdir, loom, id, id);
			struct strbuf j = {0};
			sb_printf(&j,
				  "{\n  \"version\": 3,\n  \"ovni\": {\n    \"lib\": {\"version\": \"1.14.0\", "
				  "\"commit\": \"weft-import-picl\"},\n    \"part\": \"thread\",\n    \"tid\": %lld,\n"
				  "    \"pid\": %lld,\n    \"loom\": \"%s\",\n    \"app_id\": 1,\n"
				  "    \"require\": {\"ovni\": \"1.1.0\", \"msg\": \"1.0.0\"%s},\n"
				  "    \"mark\": {\"0\": {\"title\": \"PICL user block\", \"chan_type\": \"stack\", "
				  "\"labels\": {%s}}},\n"
				  "    \"loom_cpus\": [{\"index\": 0, \"phyid\": 0}],\n    \"finished\": 1\n  }\n}\n",
				  id, id, loom, p->has_files ? ", \"fileio\": \"1.0.0\"" : "", labels.s ? labels.s : "");
			rc = ow_open(&s->w, dir, 1u << 16, err);
			if (rc == 0) {
				s->open = 1;
				rc = ow_write_json(dir, j.s, err);
			}
			sb_free(&j);
			free(dir);
			if (rc)
				break;
			uint8_t pl[16] = {0};
			int32_t cpu = 0, creator = -1;
			memcpy(pl, &cpu, 4);
			memcpy(pl + 4, &creator, 4);
			ow_event(&s->w, "OHx", clk, pl, 16);
		}
		s->last = clk;
		switch (r->kind) {
		case K_ENTRY:
			push(&s->sys, &s->nsys, &s->csys, r->type);
			if (picl_is_file(r->type))
				picl_file_event(&s->w, r, clk);
			else
				xev(s, "XE[", clk, r->type, r->a, r->b, r->c);
			break;
		case K_EXIT: {
			int k = s->nsys - 1;
			while (k >= 0 && s->sys[k] != r->type)
				k--;
			if (k < 0) {
				nbad++;
				picl_warn(p, r->line, "exit with no open entry of its event type: skipped", NULL);
				break;
			}
			memmove(&s->sys[k], &s->sys[k + 1], (size_t) (s->nsys - k - 1) * sizeof(*s->sys));
			s->nsys--;
			if (picl_is_file(r->type))
				picl_file_event(&s->w, r, clk);
			else
				xev(s, "XE]", clk, r->type, r->a, r->b, r->c);
			break;
		}
		case K_MARK:
			if (picl_is_file(r->type))
				picl_file_event(&s->w, r, clk);
			else
				xev(s, "XE.", clk, r->type, r->a, r->b, r->c);
			break;
		case K_USER: {
			int32_t pl[2] = {r->a, r->type};
			ow_event(&s->w, "XU.", clk, pl, sizeof(pl));
			break;
		}
		case K_UBEGIN:
			push(&s->usr, &s->nusr, &s->cusr, r->type);
			mark_ev(s, "OM[", clk, r->type);
			if (r->type >= 0) /* a PICL user event: the msg model profiles it */
				xev(s, "XE[", clk, r->type, r->a, r->b, r->c);
			break;
		case K_UEND: {
			int k = s->nusr - 1;
			while (k >= 0 && s->usr[k] != r->type)
				k--;
			if (k < 0) {
				nbad++;
				picl_warn(p, r->line, "end of a user block that is not open: skipped", NULL);
				break;
			}
			/* close the inner blocks, this one, and reopen the inner ones */
			for (int j = s->nusr - 1; j >= k; j--)
				mark_ev(s, "OM]", clk, s->usr[j]);
			for (int j = k + 1; j < s->nusr; j++)
				mark_ev(s, "OM[", clk, s->usr[j]);
			memmove(&s->usr[k], &s->usr[k + 1], (size_t) (s->nusr - k - 1) * sizeof(*s->usr));
			s->nusr--;
			if (r->type >= 0)
				xev(s, "XE]", clk, r->type, r->a, r->b, r->c);
			break;
		}
		case K_STAT: {
			uint8_t pl[16];
			int32_t ty = r->type;
			int64_t v = (int64_t) ((uint64_t) (uint32_t) r->b | (uint64_t) (uint32_t) r->c << 32);
			int16_t ctx = (int16_t) r->a;
			memcpy(pl, &ty, 4);
			memcpy(pl + 4, &v, 8);
			memcpy(pl + 12, &ctx, 2);
			pl[14] = r->digits;
			pl[15] = (uint8_t) p->ts_digits;
			char mcv[4] = {'X', 'S', (char) r->sub, 0};
			ow_event(&s->w, mcv, clk, pl, r->sub == 't' ? 16 : 14);
			break;
		}
		}
	}
	for (int pr = 0; pr < NPROC_IDS; pr++) {
		struct pstream *s = st[pr];
		if (!s)
			continue;
		if (rc == 0 && (s->nsys || s->nusr)) {
			char what[96];
			snprintf(what, sizeof(what), "processor %d: %d entries still open at its last record, closed there",
				 pr == HOST ? -1 : pr, s->nsys + s->nusr);
			picl_warn(p, 0, what, NULL);
		}
		if (rc == 0) {
			while (s->nusr) {
				int32_t ty = s->usr[--s->nusr];
				mark_ev(s, "OM]", s->last, ty);
				if (ty >= 0)
					xev(s, "XE]", s->last, ty, -1, -1, -1);
			}
			while (s->nsys) {
				int32_t ty = s->sys[--s->nsys];
				if (picl_is_file(ty))
					picl_file_close(&s->w, ty, s->last);
				else
					xev(s, "XE]", s->last, ty, -1, -1, -1);
			}
			ow_event(&s->w, "OHe", s->last, NULL, 0);
		}
		if (s->open && ow_close(&s->w, err) && rc == 0)
			rc = -1;
		free(s->sys);
		free(s->usr);
		free(s);
	}
	free(st);
	sb_free(&labels);
	(void) nbad;
	return rc;
}
