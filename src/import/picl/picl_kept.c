/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_kept: the PICL records weft keeps beside the timeline (doc/formats/
 * legacy.md §2.4, item 9), as jumbo events with a text: user record data,
 * -7 messages, subset definitions; statistics (XS*, XG*); and the records
 * of every processor (processor -1 or below), written on every stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_out.h"
#include "util/strbuf.h"

/* ---- kept records: texts and subsets -------------------------------------- */

static uint8_t *jbuf(struct picl_out *o, size_t n)
{
	if (n > o->cjbuf) {
		o->cjbuf = n + 256;
		o->jbuf = weft_xrealloc(o->jbuf, o->cjbuf);
	}
	return o->jbuf;
}

/* A jumbo event of `fixed` bytes of integers, then the text s (a str). */
static void jumbo_str(struct picl_out *o, struct pstream *s, const char *mcv, uint64_t clk, const void *fixed,
		      size_t nfixed, const char *text, size_t ntext)
{
	if (ntext > PICL_TEXT_MAX) /* the stream's buffer holds any event up to this */
		ntext = PICL_TEXT_MAX;
	uint8_t *b = jbuf(o, nfixed + ntext + 1);
	memcpy(b, fixed, nfixed);
	memcpy(b + nfixed, text, ntext);
	b[nfixed + ntext] = 0;
	ow_jumbo_fixed(&s->w, ow_jumbo_head(mcv), clk, b, (uint32_t) (nfixed + ntext + 1));
}

/* A -7 message (models/msg/events.c XM.). */
void picl_text_ev(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t type, const char *text)
{
	jumbo_str(o, s, "XM.", clk, &type, sizeof(type), text, strlen(text));
}

/* A subset definition (XBp, XBq, XBe): id, member count, members as text. */
void picl_subset_ev(struct picl *p, struct pstream *s, uint64_t clk, int32_t index)
{
	const struct picl_subset *sub = &p->subset[index];
	struct strbuf m = {0};
	for (int k = 0; k < sub->n; k++)
		sb_printf(&m, "%s%lld", k ? " " : "", (long long) sub->m[k]);
	int32_t fixed[2] = {(int32_t) sub->id, sub->n};
	static const char *const mcv[3] = {"XBp", "XBq", "XBe"};
	jumbo_str(p->out, s, mcv[sub->kind], clk, fixed, sizeof(fixed), m.s ? m.s : "", m.len);
	sb_free(&m);
}

/* A user record with data: record type, event type, then (XUd) the first
 * data field in 10^-9 units, or (XUt, when it is no number) nothing, and
 * the data as text. */
static void user_write(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t rt, int32_t ty, int64_t v,
		       const char *text)
{
	uint8_t fixed[16];
	memcpy(fixed, &rt, 4);
	memcpy(fixed + 4, &ty, 4);
	memcpy(fixed + 8, &v, 8);
	int num = v != PICL_NO_VALUE;
	jumbo_str(o, s, num ? "XUd" : "XUt", clk, fixed, num ? 16 : 8, text, strlen(text));
}

/* A user record: XU. without data, XUd or XUt with. */
void picl_user_ev(struct picl_out *o, struct pstream *s, uint64_t clk, int32_t rt, int32_t ty, int sub, int64_t v,
		  const char *text)
{
	if (sub == 'd') {
		user_write(o, s, clk, rt, ty, v, text);
		return;
	}
	int32_t pl[2] = {rt, ty};
	ow_event_mcv(&s->w, "XU.", clk, pl, sizeof(pl));
}

/* A user record's value and text, as picl_new_line stored them. */
void picl_user_data(const struct picl *p, const struct orec *r, int64_t *v, const char **text)
{
	*v = PICL_NO_VALUE;
	*text = "";
	if (r->sub != 'd')
		return;
	const char *d = p->txt + picl_off(r);
	memcpy(v, d, 8);
	*text = d + 8;
}

void picl_glob_ev(struct picl *p, struct pstream *s, uint64_t clk, const struct glob *g)
{
	if (g->kind == K_TEXT)
		picl_text_ev(p->out, s, clk, g->type, g->text);
	else if (g->kind == K_USER)
		picl_user_ev(p->out, s, clk, g->a, g->type, g->sub, g->value, g->text);
	else
		picl_subset_ev(p, s, clk, g->a);
}

/* A global record: on every stream open now, and remembered for those
 * opened later. */
void picl_glob_record(struct picl *p, const struct orec *r, uint64_t clk)
{
	struct picl_out *o = p->out;
	if (o->nglob == o->cglob) {
		o->cglob = o->cglob ? 2 * o->cglob : 8;
		o->glob = weft_xrealloc(o->glob, (size_t) o->cglob * sizeof(*o->glob));
	}
	struct glob *g = &o->glob[o->nglob++];
	g->kind = r->kind;
	g->sub = r->sub;
	g->type = r->type;
	g->a = r->a;
	g->text = r->kind == K_TEXT ? weft_xasprintf("%s", p->txt + picl_off(r)) : NULL;
	if (r->kind == K_USER) {
		const char *text;
		picl_user_data(p, r, &g->value, &text);
		g->text = weft_xstrdup(text);
	}
	for (int pr = 0, k = 0, i; (i = picl_next_slot(p, &pr, &k)) >= 0;)
		if (o->st[i]) {
			picl_glob_ev(p, o->st[i], clk, g);
			o->st[i]->last = clk;
		}
}

/* A statistic (K_STAT): XSt, XSc, XSv on its row; XGt, XGc, XGv when it is
 * stated for several rows (its processor -1 or a subset: r->d, r->process),
 * written on one of them. */
void picl_stat_ev(struct picl *p, struct pstream *s, const struct orec *r, uint64_t clk)
{
	uint8_t pl[24];
	int32_t ty = r->type;
	int64_t v = (int64_t) ((uint64_t) (uint32_t) r->b | (uint64_t) (uint32_t) r->c << 32);
	int16_t ctx = (int16_t) r->a;
	memcpy(pl, &ty, 4);
	memcpy(pl + 4, &v, 8);
	memcpy(pl + 12, &ctx, 2);
	pl[14] = r->digits;
	pl[15] = (uint8_t) p->ts_digits;
	if (r->proc == PICL_ALL) {
		memcpy(pl + 16, &r->d, 4);
		memcpy(pl + 20, &r->process, 4);
		char mcv[4] = {'X', 'G', (char) r->sub, 0};
		ow_jumbo_fixed(&s->w, ow_jumbo_head(mcv), clk, pl, 24);
		return;
	}
	char mcv[4] = {'X', 'S', (char) r->sub, 0};
	ow_event(&s->w, mcv, clk, pl, r->sub == 't' ? 16 : 14);
}

/* A statistic of several rows: on the first stream open (by processor),
 * or, when none is yet, on the first one opened. */
void picl_glob_stat(struct picl *p, const struct orec *r, uint64_t clk)
{
	struct picl_out *o = p->out;
	for (int pr = 0, k = 0, i; (i = picl_next_slot(p, &pr, &k)) >= 0;)
		if (o->st[i]) {
			picl_stat_ev(p, o->st[i], r, clk);
			o->st[i]->last = clk;
			return;
		}
	if (o->npstat == o->cpstat) {
		o->cpstat = o->cpstat ? 2 * o->cpstat : 8;
		o->pstat = weft_xrealloc(o->pstat, (size_t) o->cpstat * sizeof(*o->pstat));
	}
	o->pstat[o->npstat++] = *r;
}
