/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_files: PICL file I/O records (-201 open, -202 close, -221 write,
 * -251 read; seed Table 9) as events of the fileio model (F). File names
 * become file ids (1, 2, ... in order of first appearance in the log),
 * each open naming its file first (FN.);
 * entries and exits are paired per processor before writing, because each
 * end needs data the other has: a read's length and descriptor are on its
 * exit, a close's descriptor on its entry, an open's name on its entry and
 * descriptor on its exit. */
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"
#include "trace/writer.h"
#include "util/macros.h"

int32_t picl_file_id(struct picl *p, const char *s, size_t n)
{
	for (int i = 0; i < p->nfile; i++)
		if (strlen(p->file[i]) == n && memcmp(p->file[i], s, n) == 0)
			return i + 1;
	if (p->nfile == p->cfile) {
		p->cfile = p->cfile ? 2 * p->cfile : 16;
		p->file = weft_xrealloc(p->file, (size_t) p->cfile * sizeof(*p->file));
	}
	p->file[p->nfile++] = weft_xasprintf("%.*s", (int) n, s);
	return p->nfile;
}

void picl_files_pair(struct picl *p)
{
	if (!p->nfile && !p->has_files)
		return;
	/* per row: a processor's, or a (processor, process) one's (picl_rows.c;
	 * records of every process of a split processor pair at its number) */
	int nslots = p->rows.nslots > NPROC_IDS ? p->rows.nslots : NPROC_IDS;
	struct stack {
		uint32_t *v;
		int n, cap;
	} **open = weft_xcalloc((size_t) nslots, sizeof(*open));
	for (size_t i = 0; i < p->n; i++) {
		struct orec *r = &p->r[i];
		if (!picl_is_file(r->type) || (r->kind != K_ENTRY && r->kind != K_EXIT))
			continue;
		int slot = r->process >= 0 ? picl_row_of(p, r->proc, r->process) : r->proc;
		struct stack *s = open[slot];
		if (!s)
			s = open[slot] = weft_xcalloc(1, sizeof(*s));
		if (r->kind == K_ENTRY) {
			if (s->n == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 8;
				s->v = weft_xrealloc(s->v, (size_t) s->cap * sizeof(*s->v));
			}
			s->v[s->n++] = (uint32_t) i;
			continue;
		}
		int k = s->n - 1;
		while (k >= 0 && p->r[s->v[k]].type != r->type)
			k--;
		if (k < 0)
			continue; /* reported when written */
		struct orec *en = &p->r[s->v[k]];
		memmove(&s->v[k], &s->v[k + 1], (size_t) (s->n - k - 1) * sizeof(*s->v));
		s->n--;
		if (r->type == -201)
			r->b = en->a; /* the file of the name opened */
		else if (r->type == -202)
			r->a = en->a; /* the descriptor closed */
		else if (r->type == -251)
			en->a = r->a, en->b = r->b; /* length and descriptor read */
	}
	for (int i = 0; i < nslots; i++)
		if (open[i]) {
			free(open[i]->v);
			free(open[i]);
		}
	free(open);
}

static void ev_desc(struct ovni_writer *w, uint64_t clk, int32_t fd)
{
	int32_t pl[2] = {fd, -1};
	ow_event(w, "FD.", clk, pl, sizeof(pl));
}

static void ev_request(struct ovni_writer *w, const char *mcv, uint64_t clk, int32_t len)
{
	int64_t pl[2] = {len < 0 ? 0 : len, -1}; /* PICL gives no offset */
	ow_event(w, mcv, clk, pl, sizeof(pl));
}

static void ev_open(const struct picl *p, struct ovni_writer *w, uint64_t clk, int32_t fd, int32_t file)
{
	if (file >= 1 && file <= p->nfile) { /* its name first (FN.: file id, name) */
		const char *name = p->file[file - 1];
		size_t n = strlen(name);
		if (n > PICL_TEXT_MAX)
			n = PICL_TEXT_MAX;
		uint8_t b[4 + PICL_TEXT_MAX + 1];
		memcpy(b, &file, 4);
		memcpy(b + 4, name, n);
		b[4 + n] = 0;
		ow_jumbo_fixed(w, ow_jumbo_head("FN."), clk, b, (uint32_t) (4 + n + 1));
	}
	int32_t pl[3] = {fd, file, 0};
	ow_event(w, "FO.", clk, pl, sizeof(pl));
}

static void ev_close(struct ovni_writer *w, uint64_t clk, int32_t fd)
{
	uint8_t pl[12];
	int64_t size = -1; /* unknown */
	memcpy(pl, &fd, 4);
	memcpy(pl + 4, &size, 8);
	ow_event(w, "FC.", clk, pl, sizeof(pl));
}

void picl_file_event(const struct picl *p, struct ovni_writer *w, const struct orec *r, uint64_t clk)
{
	int entry = r->kind == K_ENTRY || r->kind == K_MARK, exit = r->kind == K_EXIT || r->kind == K_MARK;
	switch (r->type) {
	case -201:
		if (r->kind == K_MARK)
			ev_open(p, w, clk, -1, r->a);
		else if (entry)
			ow_event(w, "Fo[", clk, NULL, 0);
		else {
			ev_open(p, w, clk, r->a, r->b);
			ow_event(w, "Fo]", clk, NULL, 0);
		}
		break;
	case -202:
		if (r->kind == K_MARK)
			ev_close(w, clk, r->a);
		else if (entry)
			ow_event(w, "Fc[", clk, NULL, 0);
		else {
			ev_close(w, clk, r->a);
			ow_event(w, "Fc]", clk, NULL, 0);
		}
		break;
	case -221:
	case -251: {
		const char *begin = r->type == -221 ? "FW[" : "FR[", *end = r->type == -221 ? "FW]" : "FR]";
		if (entry) {
			ev_desc(w, clk, r->b);
			ev_request(w, begin, clk, r->a);
		}
		if (exit)
			ow_event(w, end, clk, NULL, 0);
		break;
	}
	default:
		break;
	}
}

/* The end event of a file entry still open at the end of the log. */
void picl_file_close(struct ovni_writer *w, int32_t type, uint64_t clk)
{
	static const struct { int32_t type; const char *mcv; } ends[] = {
		{-201, "Fo]"}, {-202, "Fc]"}, {-221, "FW]"}, {-251, "FR]"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(ends); i++)
		if (ends[i].type == type)
			ow_event(w, ends[i].mcv, clk, NULL, 0);
}
