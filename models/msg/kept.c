/* SPDX-License-Identifier: GPL-3.0-or-later */
/* msg model: the records PICL logs carry that the timeline has no place
 * for (doc/formats/legacy.md §2.4, item 9): user records (XU., XUd, XUt),
 * -7 messages (XM.) and subset definitions (XB*), as punctual values whose
 * texts name them in the .pcf, counted for weft stats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/match.h"
#include "msg/msg_int.h"

/* A kept record's punctual value on slot kslot[k]. */
static void kept_out(struct emu *e, struct mstate *m, const struct emu_thread *t, int k, int64_t v)
{
	m->kseen |= 1u << k;
	emu_punct(e, EMU_THREAD_FILE, t->row, m->kslot[k], v);
}

static const char *str_field(const struct evinfo *in, int field, const struct weft_ev *ev)
{
	return (const char *) ev->payload + in->f[field].off;
}

/* The model's text tables, by number (its texts hooks: emu -j numbers
 * texts in one run's order through them, match.h). */
enum { TX_MSGS, TX_UTEXTS, TX_SUBS };

static struct texts *table_of(struct mstate *m, int table)
{
	return table == TX_MSGS ? &m->msgs : table == TX_UTEXTS ? &m->utexts : &m->subs[table - TX_SUBS];
}

int64_t msg_text_value(struct emu *e, int table, const char *s)
{
	return texts_id(table_of(ms(e), table), s);
}

void msg_text_name(struct emu *e, int table, int64_t value, const char *s)
{
	texts_set(table_of(ms(e), table), value, s);
}

/* What one run gathers from every worker: the kept records seen. */
void msg_save(const struct emu *e, struct strbuf *b)
{
	sb_printf(b, "%u", ((const struct mstate *) e->models.state[mcv_index('X')])->kseen);
}

int msg_load(struct emu *e, const char *line)
{
	ms(e)->kseen |= (unsigned) strtoul(line, NULL, 10);
	return 0;
}

/* A kept record's value named by a text of `table`. */
static void kept_text(struct emu *e, struct mstate *m, const struct emu_thread *t, int k, int table, const char *s)
{
	m->kseen |= 1u << k;
	emu_text_punct(e, t, m->kslot[k], 'X', table, s);
}

/* XU., XUd and XUt: the record type (+ 1) and, with data, its first field
 * as a number (XUd) or the data's text as a labelled value (XUt). */
int msg_user(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	struct mthread *x = &m->th[ev->stream->index];
	punctual_reset(e, t, x);
	int64_t rt = ev_field(in, 0, ev);
	out(e, t, x, V_USER, rt + 1);
	punctual_shown(e, x, 1);
	if (ev->val == 'd')
		kept_out(e, m, t, 0, ev_field(in, 2, ev));
	else if (ev->val == 't')
		kept_text(e, m, t, 2, TX_UTEXTS, str_field(in, 2, ev));
	emu_acct_op(e, t, 'X', EMU_OP_MARK, (int32_t) (MSG_OP_USER_REC - (rt > 2000000000 ? 2000000000 : rt)), -1, 0);
	return 0;
}

/* XM.: a -7 message, its text a labelled value. */
int msg_text(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	punctual_reset(e, t, &m->th[ev->stream->index]);
	kept_text(e, m, t, 1, TX_MSGS, str_field(in, 1, ev));
	emu_acct_op(e, t, 'X', EMU_OP_MARK, MSG_OP_MESSAGE, -1, 0);
	return 0;
}

/* XBp, XBq, XBe: a subset defined; value -id, labelled by its members. */
int msg_subset(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err)
{
	(void) err;
	struct mstate *m = ms(e);
	struct emu_thread *t = &e->sys.th[ev->stream->index];
	punctual_reset(e, t, &m->th[ev->stream->index]);
	int kind = ev->val == 'p' ? 0 : ev->val == 'q' ? 1 : 2;
	int64_t id = ev_field(in, 0, ev);
	char *label = weft_xasprintf("subset %lld: %s", (long long) id, str_field(in, 2, ev));
	emu_text_name(e, 'X', TX_SUBS + kind, -id, label);
	free(label);
	msg_stats_subset(m->stats, kind, (int32_t) id, str_field(in, 2, ev));
	kept_out(e, m, t, 3 + kind, -id);
	emu_acct_op(e, t, 'X', EMU_OP_MARK, -201 - kind, -1, 0);
	return 0;
}
