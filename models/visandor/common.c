/* SPDX-License-Identifier: GPL-3.0-or-later */
/* visandor/common: VisAndOr events shared by the and-fork and or-branch
 * models (see common.h). */
#include <stdio.h>
#include <string.h>

#include "util/macros.h"
#include "visandor/common.h"

int vao_agent_name(const struct emu *e, const struct emu_thread *t, char *buf, int n)
{
	(void) e;
	snprintf(buf, (size_t) n, "agent %lld", (long long) t->sys->tid - 1);
	return 1;
}

int vao_check(struct emu *e, struct weft_err *err, struct vao_common *c, const char *model, const char *fmt,
	      ...)
{
	char what[1024];
	WEFT_VFORMAT(what, fmt);
	if (e->o.strict)
		return emu_model_error(e, err, "%s (--strict)", what);
	c->nwarn++;
	if (e->o.quiet)
		return 0;
	if (c->nwarn <= VAO_MAX_WARN)
		weft_warn("%s: agent %lld at %llu ns: %s", model, (long long) e->sys.th[e->run.ev->stream->index].sys->tid - 1,
			  (unsigned long long) e->run.now, what);
	else if (c->nwarn == VAO_MAX_WARN + 1)
		weft_warn("%s: more check warnings follow; only the count is reported", model);
	return 0;
}

void vao_check_count(const struct emu *e, const struct vao_common *c, const char *model)
{
	if (c->nwarn && !e->o.quiet)
		weft_warn("%s: %llu check warnings (errors with --strict)", model, (unsigned long long) c->nwarn);
}

int *vao_cpu_rows(const struct emu *e)
{
	int *r = weft_xmalloc(((size_t) e->sys.nth + 1) * sizeof(int));
	for (int i = 0; i <= e->sys.nth; i++)
		r[i] = -1;
	return r;
}

int vao_agent_cpus(struct emu *e, char model, int *cpu_row, int sc_agent)
{
	/* no Paraver output: the caller still sets every agent's first state
	 * (weft stats counts it), so this says yes and writes nothing */
	if (!e->out.writing)
		return 1;
	for (int i = 0; i < e->sys.nth; i++) {
		struct emu_thread *t = &e->sys.th[i];
		if (!t->sys->req[mcv_index(model)])
			continue;
		struct weft_cpu *cpu;
		int64_t phy = t->sys->tid - 1;
		HASH_FIND(hh, t->sys->proc->loom->cpu_by_phyid, &phy, sizeof(int64_t), cpu);
		if (cpu) {
			prv_cpu(&e->out.prv[EMU_THREAD_FILE], t->row, (uint32_t) cpu->gindex + 1);
			cpu_row[i] = cpu->gindex;
			emu_out(e, EMU_CPU_FILE, cpu->gindex, sc_agent, t->sys->tid);
		}
	}
	return 1;
}

void vao_activity(struct emu *e, const struct vao_common *c, const struct weft_ev *ev,
		  const struct evinfo *in)
{
	int row = e->sys.th[ev->stream->index].row;
	emu_out(e, EMU_THREAD_FILE, row, c->s_active, ev->val == '[' ? 1 : 2);
	emu_out(e, EMU_THREAD_FILE, row, c->s_nact, ev_field(in, 1, ev));
}

void vao_wam(struct emu *e, const struct vao_common *c, const struct weft_ev *ev,
	     const struct evinfo *in)
{
	emu_out(e, EMU_THREAD_FILE, e->sys.th[ev->stream->index].row, c->s_wam, ev_field(in, 0, ev));
}

void vao_note_code(struct vao_common *c, int32_t code)
{
	if (c->ncode < 0)
		return;
	for (int i = 0; i < c->ncode; i++)
		if (c->code[i] == code)
			return;
	if (c->ncode == 64)
		c->ncode = -1;
	else
		c->code[c->ncode++] = code;
}

static const char *code_name(int32_t code)
{
	switch (code) {
	case 7:
		return "AGENT_BUSY";
	case 8:
		return "AGENT_IDLE";
	case 9:
		return "CREATE_WAM";
	case 10:
		return "CREATE_AGENT";
	default:
		return "unknown code";
	}
}

void vao_label_codes(struct emu *e, const struct vao_common *c)
{
	for (int i = 0; i < c->ncode; i++)
		emu_slot_label(e, EMU_THREAD_FILE, c->s_other, c->code[i], code_name(c->code[i]));
}

/* v in decimal at p; returns the length. */
static size_t put_dec(char *p, uint64_t v)
{
	char t[20];
	size_t n = 0;
	do {
		t[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t k = 0; k < n; k++)
		p[k] = t[n - 1 - k];
	return n;
}

/* v in lower-case hex at p; returns the length. */
static size_t put_hex(char *p, uint64_t v)
{
	size_t n = 1;
	while (n < 16 && v >> (4 * n))
		n++;
	for (size_t k = 0; k < n; k++)
		p[k] = "0123456789abcdef"[(v >> (4 * (n - 1 - k))) & 15];
	return n;
}

char *vao_label_nodes(struct emu *e, int slot, int cslot, const uint64_t *raw, int n, const char *what)
{
	if (n <= 0)
		return NULL;
	size_t wl = strnlen(what, 32), each = wl + 1 + 16 + 2 + 20 + 1;
	char *buf = weft_xmalloc((size_t) n * each), *p = buf;
	for (int i = 0; i < n; i++) {
		char *l = p;
		memcpy(p, what, wl);
		p += wl;
		*p++ = ' ';
		p += put_hex(p, raw[i]);
		*p++ = ' ';
		*p++ = '#';
		p += put_dec(p, (uint64_t) i + 1);
		*p++ = '\0';
		emu_slot_label(e, EMU_THREAD_FILE, slot, (int64_t) i + 1, l);
		emu_slot_label(e, EMU_CPU_FILE, cslot, (int64_t) i + 1, l);
	}
	return buf;
}

void vao_declare_agent(struct emu *e, struct vao_common *c, const char *model)
{
	static const struct sink_label activity[] = {
		{.value = 1, .label = "Busy (AGENT_BUSY)"},
		{.value = 2, .label = "Looking for work (AGENT_IDLE)"},
	};
	static const char *const what[4] = {"agent activity", "AGENT_BUSY/IDLE field 4", "WAM id", "other event code"};
	static const char *const key[4] = {"active", "nact", "wam", "other"};
	int *slot[4] = {&c->s_active, &c->s_nact, &c->s_wam, &c->s_other};
	for (int k = 0; k < 4; k++) {
		snprintf(c->title[k], sizeof(c->title[k]), "%s: %s", model, what[k]);
		*slot[k] = emu_slot(e, EMU_THREAD_FILE, c->title[k]);
		struct emu_slot_decl d = {.key = key[k], .kind = SINK_VALUE};
		if (k == 0) {
			d.labels = activity;
			d.nlabels = (int) ARRAY_SIZE(activity);
		}
		emu_slot_declare(e, EMU_THREAD_FILE, *slot[k], &d);
	}
}

void vao_slot(struct emu *e, int file, int *slot, const char *key, const char *title)
{
	*slot = emu_slot(e, file, title);
	emu_slot_declare(e, file, *slot, &(struct emu_slot_decl){.key = key, .kind = SINK_VALUE});
}
