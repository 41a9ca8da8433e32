/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_labels: the value labels of model-file channels — the file's own
 * and those added while the run goes (`label` actions, primitives, a -j
 * worker's, gathered by the merging run, each also handed to the layout's
 * slot: emu_slot_label), values named for messages, and the value lines
 * of the breakdown views' .pcf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/engine_int.h"
#include "util/strbuf.h"

const char *eng_label_of(const struct eng_chan *ch, int64_t v)
{
	const char *l = mf_label(ch->c, v);
	for (int i = 0; !l && i < ch->ndyn; i++)
		if (ch->dyn[i].value == v)
			l = ch->dyn[i].label;
	return l;
}

const char *eng_vstr(const struct eng_chan *ch, int64_t v, char *buf, size_t n)
{
	const char *l = eng_label_of(ch, v);
	if (l)
		snprintf(buf, n, "%lld (%s)", (long long) v, l);
	else
		snprintf(buf, n, "%lld", (long long) v);
	return buf;
}

void eng_label_add(struct emu *e, struct eng_chan *ch, int64_t v, const char *label, size_t len)
{
	for (int i = 0; i < ch->ndyn; i++)
		if (ch->dyn[i].value == v)
			return;
	if (ch->ndyn == ch->capdyn) {
		ch->capdyn = ch->capdyn ? 2 * ch->capdyn : 16;
		ch->dyn = weft_xrealloc(ch->dyn, (size_t) ch->capdyn * sizeof(*ch->dyn));
	}
	char *s = weft_xmalloc(len + 1);
	memcpy(s, label, len);
	s[len] = '\0';
	/* a label is one line of the .pcf */
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\n' || s[i] == '\r')
			s[i] = ' ';
	ch->dyn[ch->ndyn].value = v;
	ch->dyn[ch->ndyn++].label = s;
	/* and the layout's, for the sinks (a label of the file first) */
	if (!mf_label(ch->c, v)) {
		emu_slot_label(e, EMU_THREAD_FILE, ch->tslot, v, s);
		emu_slot_label(e, EMU_CPU_FILE, ch->cslot, v, s);
	}
}

int engine_label_add(struct emu *e, char model, const char *chan, int64_t v, const char *label)
{
	struct engine *g = e->eng.s;
	if (!g)
		return -1;
	for (int k = 0; k < g->nch; k++) {
		struct eng_chan *ch = &g->ch[k];
		if (ch->m->def.id != model || strcmp(ch->c->name, chan) != 0)
			continue;
		if (!ch->c->dynamic)
			return -1;
		eng_label_add(e, ch, v, label, strlen(label));
		return 0;
	}
	return -1;
}

void engine_labels_save(const struct emu *e, struct strbuf *b)
{
	const struct engine *g = e->eng.s;
	for (int k = 0; g && k < g->nch; k++)
		for (int i = 0; i < g->ch[k].ndyn; i++) {
			sb_printf(b, "%d %lld ", k, (long long) g->ch[k].dyn[i].value);
			sb_text(b, g->ch[k].dyn[i].label);
			sb_printf(b, "\n");
		}
}

int engine_labels_load(struct emu *e, const char *text, size_t n, const char *what, struct weft_err *err)
{
	struct engine *g = e->eng.s;
	const char *p = text, *end = text + n;
	for (int line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		int k, used = 0;
		long long v;
		if (!nl || !g || sscanf(p, "%d %lld %n", &k, &v, &used) != 2 || used == 0 || k < 0 || k >= g->nch)
			return weft_fail(err, WEFT_EINTERNAL,
					 "%s:%d: expected 'CHANNEL VALUE LABEL' of a channel "
					 "below %d",
					 what, line, g ? g->nch : 0);
		eng_label_add(e, &g->ch[k], v, p + used, (size_t) (nl - p - used));
		p = nl + 1;
	}
	return 0;
}

void engine_value_lines(struct emu *e, const struct mf_model *m, int chan, struct strbuf *b)
{
	struct engine *g = e->eng.s;
	const struct eng_chan *ch = &g->ch[g->base[mcv_index(m->def.id)] + chan];
	const struct mf_chan *c = ch->c;
	for (int i = 0; i < c->nlabels; i++) {
		sb_printf(b, "%lld ", (long long) c->labels[i].value);
		sb_text(b, c->labels[i].label);
		sb_printf(b, "\n");
	}
	for (int i = 0; i < ch->ndyn; i++)
		if (!mf_label(c, ch->dyn[i].value)) {
			sb_printf(b, "%lld ", (long long) ch->dyn[i].value);
			sb_text(b, ch->dyn[i].label); /* labels from events: one line each */
			sb_printf(b, "\n");
		}
}
