/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of models/modelfile.c: what a model file compiles into, and the
 * place and text of each kind of error (cases as a table). */
#include <check.h>
#include <string.h>

#include "engine/engine.h"
#include "modelfile.h"
#include "require.h"
#include "suites.h"
#include "util/macros.h"

#define HEAD "weft-model 1\nmodel Q qq 1.2.3\n"

START_TEST(compiles_tables)
{
	const char *text = HEAD "# comment\n"
				"guard active\n"
				"channel sub stack   # trailing comment\n"
				"  thread 20 \"Sub \\\"x\\\" of the ACTIVE thread\" active\n"
				"  cpu 20 \"Sub of the RUNNING thread\"\n"
				"  value 1 \"One\"\n  value 0x10 \"Sixteen\"\n"
				"  dup emit\n  same ignore\n  labels dynamic\n  lint no\n"
				"channel n single\n  dup skip-null\n  zero\n"
				"event Qa[ \"i32 v, u64 w\" \"enters %{v}\"\n  push sub $v\n  set n 5\n"
				"event Qa] jumbo \"i32 v\" \"leaves\"\n  pop sub $v\n  call off_cpu 0\n"
				"event Qx. \"\" \"not yet\"\n  todo\n"
				"event Qy. \"\" \"nothing\"\n";
	struct weft_err err = {0};
	struct mf_model *m = mf_compile("q.model", text, &err);
	ck_assert_msg(m != NULL, "%s", err.msg);
	ck_assert_int_eq(m->def.id, 'Q');
	ck_assert_str_eq(m->def.name, "qq");
	ck_assert_str_eq(m->def.version, "1.2.3");
	ck_assert_int_eq(m->guard, MF_GUARD_ACTIVE);
	ck_assert_int_eq(m->nchans, 2);
	const struct mf_chan *c = &m->chans[0];
	ck_assert_int_eq(c->stack, 1);
	ck_assert_int_eq(m->prv.thread[0], 20);
	ck_assert_str_eq(c->tlabel, "Sub \"x\" of the ACTIVE thread");
	ck_assert_int_eq(c->show, MF_SHOW_ACTIVE);
	ck_assert_int_eq(m->prv.cpu[0], 20);
	ck_assert_int_eq(c->nlabels, 2);
	ck_assert_str_eq(mf_label(c, 16), "Sixteen");
	ck_assert_ptr_null(mf_label(c, 2));
	ck_assert_int_eq(c->dup, MF_DUP_EMIT);
	ck_assert_int_eq(c->same, MF_SAME_IGNORE);
	ck_assert_int_eq(c->dynamic, 1);
	ck_assert_int_eq(c->nolint, 1);
	ck_assert_int_eq(m->chans[1].nolint, 0);
	ck_assert_int_eq(c->zero, 0);
	ck_assert_int_eq(m->chans[1].dup, MF_DUP_SKIP_NULL);
	ck_assert_int_eq(m->chans[1].zero, 1);
	ck_assert_int_eq(m->prv.thread[1], -1);
	ck_assert_int_eq(m->prv.cpu[1], -1);
	ck_assert_ptr_null(m->chans[1].tlabel);
	ck_assert_ptr_null(m->chans[1].clabel);
	ck_assert_int_eq(m->def.nevents, 4);
	ck_assert_str_eq(m->decls[0].mcv, "Qa[");
	ck_assert_str_eq(m->decls[0].sig, "i32 v, u64 w");
	ck_assert_int_eq(m->decls[1].jumbo, 1);
	ck_assert_ptr_eq(m->decls[0].handler, engine_event);
	ck_assert_ptr_null(m->decls[2].handler); /* todo */
	ck_assert_ptr_eq(m->decls[3].handler, engine_event);
	ck_assert_int_eq(m->evs[0].nact, 2);
	ck_assert_int_eq(m->evs[0].act[0].op, MF_PUSH);
	ck_assert_int_eq(m->evs[0].act[0].v.field, 0);
	ck_assert_int_eq(m->evs[0].act[1].op, MF_SET);
	ck_assert_int_eq(m->evs[0].act[1].chan, 1);
	ck_assert_int_eq(m->evs[0].act[1].v.field, -1);
	ck_assert_int_eq(m->evs[0].act[1].v.k, 5);
	ck_assert_int_eq(m->evs[1].act[1].op, MF_CALL);
	ck_assert_str_eq(m->evs[1].act[1].prim->name, "off_cpu");
	ck_assert_int_eq(m->evs[3].nact, 0);
	ck_assert_ptr_eq(m->def.hooks, &engine_hooks);
	ck_assert_ptr_eq(engine_file(&m->def), m);
	mf_free(m);
}
END_TEST

static const struct {
	const char *text, *msg;
} bad[] = {
	{"", "f:1:1: expected 'weft-model 2', found the end of the file"},
	{"model Q q 1.0.0\n", "f:1:1: expected 'weft-model 2' (the format version) as the first line, found 'model'"},
	{"weft-model 3\n", "f:1:12: expected format version 1 to 2, found 3"},
	{"weft-model 0\n", "f:1:12: expected format version 1 to 2, found 0"},
	{"weft-model 1 x\n", "f:1:14: expected the end of the line, found 'x'"},
	{"weft-model 1\nchannel a stack\n",
	 "f:2:1: expected 'model CHAR NAME VERSION' after the format line, found 'channel'"},
	{"weft-model 1\nmodel QQ q 1.0.0\n",
	 "f:2:7: expected the model character (one printable character), found 'QQ'"},
	{"weft-model 1\nmodel Q q\n", "f:2:10: expected the model version (MAJOR.MINOR.PATCH), found end of line"},
	{HEAD, "f:3:1: expected at least one 'event', found the end of the file"},
	{HEAD "bogus\n", "f:3:1: expected 'guard', 'channel', 'event', 'breakdown' or 'paraver', found 'bogus'"},
	{HEAD "guard idle\n", "f:3:7: expected 'running' or 'active', found 'idle'"},
	{HEAD "channel a list\n", "f:3:11: expected 'stack' or 'single', found 'list'"},
	{HEAD "channel a stack\nchannel a single\n", "f:4:9: expected a new channel name, found 'a' declared before"},
	{HEAD "channel a stack\n thread x \"l\"\n",
	 "f:4:9: expected a Paraver event type (1 to 2147483647), found 'x'"},
	{HEAD "channel a stack\n thread 0 \"l\"\n",
	 "f:4:9: expected a Paraver event type (1 to 2147483647), found '0'"},
	{HEAD "channel a stack\n thread 5 l\n", "f:4:11: expected the type's label in quotes, found 'l'"},
	{HEAD "channel a stack\n thread 5 \"l\" sometimes\n",
	 "f:4:15: expected 'any', 'running' or 'active', found 'sometimes'"},
	{HEAD "channel a stack\n thread 5 \"l\"\n thread 6 \"m\"\n",
	 "f:5:1: expected one 'thread' line per channel, found a second"},
	{HEAD "channel a stack\n value 1 \"x\"\n value 1 \"y\"\n",
	 "f:5:8: expected a value not labelled yet, found 1 again"},
	{HEAD "channel a stack\n value 1 \"x\n", "f:4:10: expected a closing '\"', found the end of the line"},
	{HEAD "channel a stack\n value 1 \"x\\n\"\n", "f:4:12: expected \\\" or \\\\ in a string, found '\\n'"},
	{HEAD "channel a stack\n value 1 \"x\"y\n", "f:4:13: expected a blank after a string, found 'y'"},
	{HEAD "channel a stack\n value 08 \"x\"\n", "f:4:8: expected a value, found '08'"},
	{HEAD "channel a stack\n frobnicate\n",
	 "f:4:2: expected a channel line (thread, cpu, value, labels, same, initial, cpu-none, dup, zero, lint, each), 'channel' or 'event', found 'frobnicate'"},
	{HEAD "channel a stack\n lint maybe\n", "f:4:7: expected 'yes' or 'no', found 'maybe'"},
	{HEAD "event Rab \"\" \"x\"\n", "f:3:7: expected an MCV of model Q, found 'Rab'"},
	{HEAD "event Qab \"\" \"x\"\nevent Qab \"\" \"y\"\n", "f:4:7: expected a new MCV, found Qab declared before"},
	{HEAD "event Qab \"i33 v\" \"x\"\n",
	 "f:3:11: expected a valid signature and sentence: model Q: event Qab: bad signature \"i33 v\" at \"i33\""},
	{HEAD "event Qab \"\" \"x %{v}\"\n",
	 "f:3:11: expected a valid signature and sentence: model Q: event Qab: template names unknown field v"},
	{HEAD "event Qab \"\"\n", "f:3:13: expected the event's sentence in quotes, found end of line"},
	{HEAD "event Qab \"\" \"x\"\n push a 1\n", "f:4:7: expected a declared channel, found 'a'"},
	{HEAD "channel a single\nevent Qab \"\" \"x\"\n push a 1\n",
	 "f:5:7: expected a stack channel for 'push', found single channel 'a'"},
	{HEAD "channel a stack\nevent Qab \"\" \"x\"\n set a 1\n",
	 "f:5:6: expected a single channel for 'set', found stack channel 'a'"},
	{HEAD "channel a stack\nevent Qab \"i32 v\" \"x\"\n push a $w\n",
	 "f:5:9: expected a payload field of the event's signature, found '$w'"},
	{HEAD "channel a stack\nevent Qab \"str s\" \"x\"\n push a $s\n",
	 "f:5:9: expected an integer payload field, found '$s' (a str)"},
	{HEAD "channel a stack\nevent Qab \"\" \"x\"\n push a 1 2\n",
	 "f:5:11: expected the end of the line, found '2'"},
	{HEAD "channel a stack\nevent Qab \"\" \"x\"\n check a = 1 \"m\"\n",
	 "f:5:10: expected '==' or '!=', found '='"},
	{HEAD "channel a stack\nevent Qab \"\" \"x\"\n check a == 1\n",
	 "f:5:14: expected the error message in quotes, found end of line"},
	{HEAD "event Qab \"\" \"x\"\n call nosuch\n",
	 "f:4:7: expected a primitive's name (see doc/dev/models.md), found 'nosuch'"},
	{HEAD "event Qab \"\" \"x\"\n call off_cpu\n", "f:4:14: expected 1 to 1 arguments for 'off_cpu', found 0"},
	{HEAD "event Qab \"\" \"x\"\n todo\n call off_cpu 1\n", "f:5:1: expected no action after 'todo', found 'call'"},
	{HEAD "channel a stack\nevent Qab \"\" \"x\"\n push a 1\n todo\n",
	 "f:6:1: expected 'todo' alone (an event weft does not emulate), found it after actions"},
	{HEAD "event Qab \"\" \"x\"\n dance\n",
	 "f:4:2: expected an action (push, pop, set, setall, unset, punct, check, label, call, todo), 'event' or 'channel', found 'dance'"},
	{HEAD "channel a single\n labels dynamic\nevent Qab \"u32 v\" \"x\"\n label a 1 $v\n",
	 "f:6:12: expected a str payload field, found '$v' (an integer)"},
	{HEAD "channel a single\n labels dynamic\nevent Qab \"u32 v\" \"x\"\n label a 1 x\n",
	 "f:6:12: expected a str payload field ($name), found 'x'"},
	{HEAD "model Q q 1.0.0\n", "f:3:1: expected one 'model' line, found a second"},
	/* channel groups */
	{HEAD "channel a stack\n each x.y name\n",
	 "f:4:1: expected 'each' on a single channel, found it on stack channel 'a'"},
	{HEAD "channel a single\n each x.y\n",
	 "f:4:10: expected the entries' label field (e.g. name), found end of line"},
	{HEAD "channel a single\n each x.y name\n each x.z name\n",
	 "f:5:1: expected one 'each' line per channel, found a second"},
	{HEAD "channel a single\nevent Qab \"\" \"x\"\n setall a\n",
	 "f:5:9: expected a channel with an 'each' line, found 'a'"},
	/* breakdown views */
#define BDC "channel s stack\n cpu 5 \"S\"\nchannel h single\n thread 6 \"H\"\n"
#define EV1 "event Qab \"\" \"x\"\n"
	{HEAD BDC "breakdown 0 \"B\"\n", "f:7:11: expected a Paraver event type (1 to 2147483647), found '0'"},
	{HEAD BDC "breakdown 9 B\n", "f:7:13: expected the view's label in quotes, found 'B'"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o s\n pick s\nbreakdown 10 \"C\"\n",
	 "f:10:1: expected one 'breakdown' per model, found a second"},
	{HEAD BDC "breakdown 9 \"B\"\n" EV1, "f:7:1: expected at least one 'mux' in the breakdown, found none"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o s\n" EV1,
	 "f:7:1: expected at least one 'pick' for mux 'o' of the breakdown, found none"},
	{HEAD BDC "breakdown 9 \"B\"\n pick s\n", "f:8:1: expected a 'mux' line before its 'pick' lines, found 'pick'"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o h\n",
	 "f:8:8: expected a channel shown on CPU rows (with a 'cpu' line), found 'h'"},
	{HEAD BDC "breakdown 9 \"B\"\n mux s s\n", "f:8:6: expected a new name for the mux, found 's' declared before"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o s\n pick o\n",
	 "f:9:7: expected a declared channel or an earlier mux, found 'o'"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o s default x\n", "f:8:18: expected the default value, found 'x'"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o s\n pick s if s == 1\n",
	 "f:9:9: expected 'when' or the end of the line, found 'if'"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o s\n pick s when s = 1\n", "f:9:16: expected '==' or '!=', found '='"},
	{HEAD BDC "breakdown 9 \"B\"\n mux o s\n pick s when s == 1 or s == 2\n",
	 "f:9:21: expected 'and' or the end of the line, found 'or'"},
	{HEAD BDC "breakdown 9 \"B\"\n labels s nope\n", "f:8:11: expected a declared channel, found 'nope'"},
	{HEAD BDC "breakdown 9 \"B\"\n require a.b\n require c.d\n",
	 "f:9:1: expected one 'require' line, found a second"},
	{HEAD BDC "breakdown 9 \"B\"\n frob\n",
	 "f:8:2: expected a breakdown line (labels, require, mux, pick), 'channel' or 'event', found 'frob'"},
	{HEAD "weft-model 1\n", "f:3:1: expected one 'weft-model' line, found a second"},
	{HEAD "channel a stack\n thread 5 \"l\"\nparaver\n a thread 5\n",
	 "f:5:1: expected a 'paraver' block in a format 2 file only (weft-model 2), found it in format 1, where the types are inline"},
/* format 2: the Paraver types in a paraver block */
#define HEAD2 "weft-model 2\nmodel Q qq 1.2.3\n"
	{HEAD2 "channel a stack\n thread 5 \"l\"\n",
	 "f:4:9: expected the channel's title on these rows in quotes, found '5'"},
	{HEAD2 "channel a stack\n thread \"l\" sometimes\n",
	 "f:4:13: expected 'any', 'running' or 'active', found 'sometimes'"},
	{HEAD2 "channel a stack\n cpu \"l\"\n cpu \"m\"\n",
	 "f:5:1: expected one 'cpu' line per channel, found a second"},
	{HEAD2 "paraver\n b thread 7\n", "f:4:1: expected a channel declared before the paraver block, found 'b'"},
	{HEAD2 "channel a stack\n thread \"l\"\nparaver\n a row 7\n", "f:6:4: expected 'thread' or 'cpu', found 'row'"},
	{HEAD2 "channel a stack\n thread \"l\"\nparaver\n a cpu 7\n",
	 "f:6:4: expected a row the channel is shown on, found 'cpu' (channel 'a' has no 'cpu' line)"},
	{HEAD2 "channel a stack\n thread \"l\"\nparaver\n a thread 0\n",
	 "f:6:11: expected a Paraver event type (1 to 2147483647), found '0'"},
	{HEAD2 "channel a stack\n thread \"l\"\nparaver\n a thread 7\n a thread 8\n",
	 "f:7:1: expected one type for thread rows of channel 'a', found a second"},
	{HEAD2 "channel a stack\n thread \"l\"\nparaver\n a thread 7 x\n",
	 "f:6:13: expected the end of the line, found 'x'"},
	{HEAD2 "paraver\n breakdown 9\n", "f:4:1: expected a 'breakdown' view declared before its type, found none"},
	{HEAD2 "channel s stack\n cpu \"S\"\nbreakdown \"B\"\n mux o s\n pick s\n" EV1 "paraver\n s cpu 5\n",
	 "f:5:1: expected a Paraver type for the breakdown view ('breakdown TYPE' in the paraver block), found none"},
	{HEAD2 "channel s stack\n cpu \"S\"\nbreakdown \"B\"\n mux o s\n pick s\n" EV1
	       "paraver\n s cpu 5\n breakdown 9\n breakdown 10\n",
	 "f:12:1: expected one type for the breakdown view, found a second"},
};

START_TEST(errors)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct weft_err err = {0};
		struct mf_model *m = mf_compile("f", bad[i].text, &err);
		ck_assert_msg(m == NULL, "case %zu compiled", i);
		ck_assert_int_eq(err.code, WEFT_EINPUT);
		ck_assert_str_eq(err.msg, bad[i].msg);
	}
}
END_TEST

/* Format 2: the model's channels by title, their Paraver types apart. */
START_TEST(compiles_format2)
{
	const char *text = HEAD2 "channel sub stack\n"
				 "  thread \"Sub of the ACTIVE thread\" active\n"
				 "  cpu \"Sub of the RUNNING thread\"\n"
				 "channel n single\n"
				 "channel c single\n  cpu \"C\"\n"
				 "breakdown \"CPU: B\"\n mux o c\n  pick c\n"
				 "event Qab \"\" \"x\"\n"
				 "paraver\n  sub thread 20\n  sub cpu 21\n  c cpu 22\n  breakdown 23\n";
	struct weft_err err = {0};
	struct mf_model *m = mf_compile("q.model", text, &err);
	ck_assert_msg(m != NULL, "%s", err.msg);
	ck_assert_int_eq(m->nchans, 3);
	ck_assert_str_eq(m->chans[0].tlabel, "Sub of the ACTIVE thread");
	ck_assert_str_eq(m->chans[0].clabel, "Sub of the RUNNING thread");
	ck_assert_int_eq(m->chans[0].show, MF_SHOW_ACTIVE);
	ck_assert_int_eq(m->prv.thread[0], 20);
	ck_assert_int_eq(m->prv.cpu[0], 21);
	ck_assert_int_eq(m->prv.thread[1], -1);
	ck_assert_int_eq(m->prv.cpu[1], -1);
	ck_assert_int_eq(m->prv.thread[2], -1);
	ck_assert_int_eq(m->prv.cpu[2], 22);
	ck_assert_int_eq(m->prv.breakdown, 23);
	ck_assert_str_eq(m->bd->label, "CPU: B");
	/* the table the Paraver sink reads: by channel name, then the view */
	ck_assert_int_eq(m->def.nparaver, 4);
	ck_assert_str_eq(m->def.paraver[1].chan, "sub");
	ck_assert_int_eq(m->def.paraver[1].set, 1);
	ck_assert_int_eq(m->def.paraver[1].type, 21);
	ck_assert_str_eq(m->def.paraver[3].chan, "breakdown");
	ck_assert_int_eq(m->def.paraver[3].set, 2);
	mf_free(m);
	/* a channel may have no type: the Paraver output numbers it */
	m = mf_compile("q.model", HEAD2 "channel a single\n thread \"A\"\nevent Qab \"\" \"x\"\n", &err);
	ck_assert_msg(m != NULL, "%s", err.msg);
	ck_assert_int_eq(m->def.nparaver, 0);
	mf_free(m);
}
END_TEST

START_TEST(breakdown_tables)
{
	const char *text = HEAD "channel ss stack\n cpu 5 \"S\"\nchannel tt single\n cpu 6 \"T\"\n"
			   "channel idle single\n cpu 7 \"I\"\n"
			   "breakdown 41 \"CPU: breakdown\"\n labels ss idle tt\n require q.can\n"
			   " mux tr ss default 2\n  pick tt when ss == 1 and tt != 0\n  pick ss when ss != 0\n"
			   " mux out idle\n  pick tr when idle == 100\n  pick idle\n"
			   "event Qab \"\" \"x\"\n";
	struct weft_err err = {0};
	struct mf_model *m = mf_compile("q.model", text, &err);
	ck_assert_msg(m != NULL, "%s", err.msg);
	const struct mf_breakdown *b = m->bd;
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(m->prv.breakdown, 41);
	ck_assert_str_eq(b->label, "CPU: breakdown");
	ck_assert_int_eq(b->nlabels, 3);
	ck_assert_int_eq(b->labels[0], 0);
	ck_assert_int_eq(b->labels[1], 2);
	ck_assert_int_eq(b->labels[2], 1);
	ck_assert_str_eq(b->require, "q.can");
	ck_assert_int_eq(b->nmux, 2);
	ck_assert_str_eq(b->mux[0].name, "tr");
	ck_assert_int_eq(b->mux[0].sel, 0);
	ck_assert_int_eq(b->mux[0].def, 2);
	ck_assert_int_eq(b->mux[0].npicks, 2);
	ck_assert_int_eq(b->mux[0].picks[0].src, 1);
	ck_assert_int_eq(b->mux[0].picks[0].ncond, 2);
	ck_assert_int_eq(b->mux[0].picks[0].cond[0].src, 0);
	ck_assert_int_eq(b->mux[0].picks[0].cond[0].ne, 0);
	ck_assert_int_eq(b->mux[0].picks[0].cond[0].k, 1);
	ck_assert_int_eq(b->mux[0].picks[0].cond[1].ne, 1);
	ck_assert_int_eq(b->mux[1].sel, 2);
	ck_assert_int_eq(b->mux[1].def, 0);
	ck_assert_int_eq(b->mux[1].picks[0].src, -1); /* mux tr */
	ck_assert_int_eq(b->mux[1].picks[1].ncond, 0);
	mf_free(m);
}
END_TEST

START_TEST(versions)
{
	static const struct {
		const char *want, *have;
		int ok;
	} v[] = {
		{"1.0.0", "1.0.0", 1}, {"1.0.9", "1.0.0", 1}, {"1.0.0", "1.3.0", 1}, {"1.4.0", "1.3.0", 0},
		{"2.0.0", "1.0.0", 0}, {"0.9.0", "1.0.0", 0}, {"1.0.0-rc1", "1.0.0", 1}, {"1.0", "1.0.0", 0},
		{"x.0.0", "1.0.0", 0}, {"1.0.0x", "1.0.0", 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		ck_assert_msg(model_version_ok(v[i].want, v[i].have) == v[i].ok, "want %s have %s", v[i].want,
			      v[i].have);
}
END_TEST

/* ovni.require against a set handed in: the set's models only */
START_TEST(require_in_set)
{
	static const struct weft_model_def a = {.id = 'Q', .name = "qmodel", .version = "1.2.0"},
					   b = {.id = 'W', .name = "wmodel", .version = ""};
	static const struct weft_model_def *const all[] = {&a, &b};
	static const struct model_set set = {all, 2}, none = {all, 0};
	static const struct {
		const struct model_set *set;
		const char *model, *version;
		int id;
		const char *msg;
	} c[] = {
		{&set, "qmodel", "1.1.0", 'Q', NULL},
		{&set, "qmodel", NULL, 'Q', NULL},
		{&set, "wmodel", "9.0.0", 'W', NULL}, /* no version of its own: any */
		{&set, "zmodel", "1.0.0", 0, NULL}, /* not known: ignored */
		{&none, "qmodel", "1.1.0", 0, NULL}, /* not in this set */
		{&set, "qmodel", "1.3.0", -1,
		 "s.json: key 'ovni.require': unsupported qmodel model version (want 1.3.0, have 1.2.0): "
		 "expected major 1 and a minor not above weft's"},
		{&set, "qmodel", "2.0.0", -1, NULL},
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct weft_err e = {0};
		int id = model_require(c[i].set, "s.json", c[i].model, c[i].version, &e);
		ck_assert_msg(id == c[i].id, "case %zu: %s %s: %d, expected %d", i, c[i].model,
			      c[i].version ? c[i].version : "-", id, c[i].id);
		ck_assert_int_eq(e.code, id < 0 ? WEFT_EINPUT : 0);
		if (c[i].msg)
			ck_assert_str_eq(e.msg, c[i].msg);
	}
}
END_TEST

Suite *modelfile_suite(void)
{
	Suite *s = suite_create("modelfile");
	TCase *tc = tcase_create("modelfile");
	tcase_add_test(tc, compiles_tables);
	tcase_add_test(tc, compiles_format2);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, breakdown_tables);
	tcase_add_test(tc, versions);
	tcase_add_test(tc, require_in_set);
	suite_add_tcase(s, tc);
	return s;
}
