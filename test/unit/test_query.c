/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/query/: the pattern parser (every operator, precedence,
 * lists, ranges, units, the exact text of each parse error), evaluation on
 * hand-made events over a small fake system, the MCV prefilter and the
 * actions. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "query/query.h"
#include "testutil.h"
#include "suites.h"
#include "trace/trace.h"
#include "util/macros.h"

/* ---- a fake system: two looms, one process and one thread each ------------ */

static struct weft_loom loom[2];
static struct weft_loom *loomp[2];
static struct weft_proc proc[2];
static struct weft_thread thr[2];
static struct weft_stream strm[2];
static struct weft_trace tr;
static char rel0[] = "loom.node00/proc.100/thread.1000";
static char rel1[] = "loom.node01/proc.200/thread.2000";
static char name0[] = "node00", name1[] = "node01";

static void fake_system(void)
{
	memset(loom, 0, sizeof(loom));
	memset(proc, 0, sizeof(proc));
	memset(thr, 0, sizeof(thr));
	memset(strm, 0, sizeof(strm));
	memset(&tr, 0, sizeof(tr));
	loom[0].name = name0;
	loom[1].name = name1;
	for (int i = 0; i < 2; i++) {
		loom[i].gindex = i;
		loomp[i] = &loom[i];
		proc[i].pid = 100 * (i + 1);
		proc[i].loom = &loom[i];
		proc[i].has_app_id = 1;
		proc[i].app_id = 7;
		thr[i].tid = 1000 * (i + 1);
		thr[i].proc = &proc[i];
		strm[i].index = i;
		strm[i].thread = &thr[i];
	}
	proc[0].has_rank = 1;
	proc[0].rank = 3;
	strm[0].rel = rel0;
	strm[1].rel = rel1;
	tr.sys.looms = loomp;
	tr.sys.nlooms = 2;
	tr.streams = strm;
	tr.nstreams = 2;
}

/* An event of stream s at time t (t0 is 1000). */
static struct weft_ev mkev(const char *mcv, int s, uint64_t t, const void *payload, uint32_t len)
{
	struct weft_ev ev;
	memset(&ev, 0, sizeof(ev));
	ev.model = (uint8_t) mcv[0];
	ev.cat = (uint8_t) mcv[1];
	ev.val = (uint8_t) mcv[2];
	ev.clock = t + 5;
	ev.time = 1000 + t;
	ev.payload = payload;
	ev.payload_len = len;
	ev.stream = &strm[s];
	return ev;
}

/* OM[ / OM] / OM= payload: i64 value, i32 type; a few live at once */
static uint8_t markpl[8][12];
static int nmark;

static struct weft_ev mark(const char *mcv, int s, uint64_t t, int64_t value, int32_t type)
{
	uint8_t *pl = markpl[nmark++ % 8];
	memcpy(pl, &value, 8);
	memcpy(pl + 8, &type, 4);
	return mkev(mcv, s, t, pl, 12);
}

static struct query *Q;

static void setup(void)
{
	fake_system();
	Q = calloc(1, sizeof(*Q));
	ck_assert_ptr_nonnull(Q);
	struct weft_err e = {0};
	ck_assert_msg(query_init(Q, tu_models(), &e) == 0, "%s", e.msg);
}

static void teardown(void)
{
	query_free(Q);
	free(Q);
	Q = NULL;
}

static void add(const char *text)
{
	struct weft_err e = {0};
	ck_assert_msg(query_add(Q, text, "pattern 1", &e) == 0, "%s: %s", text, e.msg);
}

static void bind(void)
{
	struct weft_err e = {0};
	ck_assert_msg(query_bind(Q, &tr, NULL, &e) == 0, "%s", e.msg);
	query_start(Q, 1000);
}

/* Truth of the expression EXPR for event ev (a fresh query each time). */
static int truth(const char *expr, const struct weft_ev *ev)
{
	query_free(Q);
	struct weft_err e = {0};
	ck_assert(query_init(Q, tu_models(), &e) == 0);
	char text[1024];
	snprintf(text, sizeof(text), "t: when %s do count", expr);
	add(text);
	bind();
	int direct = query_eval(Q, 0, ev, 0);
	/* the prefilter must agree with the full evaluation */
	uint64_t m = query_match(Q, ev);
	ck_assert_msg((m != 0) == (direct != 0), "prefilter and evaluation disagree on %s", expr);
	return direct;
}

/* The error message of a pattern that must not parse. */
static const char *perr(const char *text)
{
	static struct weft_err e;
	memset(&e, 0, sizeof(e));
	ck_assert_msg(query_add(Q, text, "pattern 1", &e) != 0, "parsed: %s", text);
	ck_assert_int_eq(e.code, WEFT_EUSAGE);
	return e.msg;
}

#define T(expr, ev) ck_assert_msg(truth(expr, ev), "expected true: %s", expr)
#define F(expr, ev) ck_assert_msg(!truth(expr, ev), "expected false: %s", expr)

/* ---- operators --------------------------------------------------------- */

START_TEST(int_operators)
{
	struct weft_ev ev = mkev("OHp", 0, 500, NULL, 0); /* tid 1000 */
	T("tid = 1000", &ev);
	F("tid = 999", &ev);
	T("tid \\= 999", &ev);
	T("tid != 999", &ev);
	F("tid != 1000", &ev);
	T("tid < 1001", &ev);
	F("tid < 1000", &ev);
	T("tid > 999", &ev);
	F("tid > 1000", &ev);
	T("tid =< 1000", &ev);
	T("tid <= 1000", &ev);
	F("tid <= 999", &ev);
	T("tid >= 1000", &ev);
	F("tid >= 1001", &ev);
	T("tid in [1, 1000, 3]", &ev);
	F("tid in [1, 2]", &ev);
	T("tid notin [1, 2]", &ev);
	F("tid notin [1000]", &ev);
	T("pid = 100 and app = 7 and rank = 3", &ev);
	T("chrono = 0", &ev);
	T("time = 500 and clock = 505", &ev);
	T("tid = 0x3e8", &ev);
	T("tid > -5", &ev);
}
END_TEST

START_TEST(text_operators)
{
	struct weft_ev ev = mkev("OHp", 1, 500, NULL, 0); /* node01 */
	T("loom = \"node01\"", &ev);
	T("loom = node01", &ev);
	F("loom = node00", &ev);
	T("loom != node00", &ev);
	T("loom \\= node00", &ev);
	T("loom > node00", &ev);
	F("loom < node00", &ev);
	T("loom >= node01 and loom =< node01 and loom <= node01", &ev);
	T("loom in [node00, node01]", &ev);
	F("loom notin [node01]", &ev);
	T("loom contains \"de0\"", &ev);
	F("loom contains \"xyz\"", &ev);
	T("stream contains \"thread.2000\"", &ev);
	T("mcv = \"OHp\" and model = \"O\" and cat = \"H\" and val = \"p\"", &ev);
	T("mcv = OHp", &ev);
	T("mcv in [\"OHx\", \"OHp\"]", &ev);
	F("mcv notin [\"OHx\", \"OHp\"]", &ev);
	T("mcv contains \"Hp\"", &ev);
	T("mcv > \"OHo\" and mcv < \"OHq\"", &ev);
	/* orderings the prefilter decides from a prefix */
	T("mcv >= \"O\"", &ev);
	F("mcv < \"O\"", &ev);
	F("mcv > \"P\"", &ev);
	T("mcv <= \"OHp\" and mcv >= \"OHp\"", &ev);
	T("mcv > \"KZZ\" and mcv < \"OI\"", &ev);
	T("mcv notin [\"OHx\", \"KCO\"]", &ev);
	F("mcv != OHp", &ev);
	T("model_name = ovni", &ev);
	F("model_name = mpi", &ev);
	T("model_name in [kernel, ovni]", &ev);
	T("model_name contains \"vn\"", &ev);
	/* notcontains: the text lacks the string (an absent attribute: false) */
	F("loom notcontains \"de0\"", &ev);
	T("loom notcontains \"xyz\"", &ev);
	T("mcv notcontains \"Hx\" and not mcv notcontains \"Hp\"", &ev);
	F("model_name notcontains \"\"", &ev);
	T("model_name notcontains mpi", &ev);
	/* isNamed: a text value that is not empty */
	T("isNamed(loom) and isNamed(stream) and isNamed(mcv) and isNamed(model_name)", &ev);
	T("ISNAMED(cat)", &ev);
	struct weft_ev z = mkev("zzz", 1, 500, NULL, 0); /* no model: no model name */
	F("isNamed(model_name)", &z);
	F("has(model_name)", &z);
	T("isNamed(mcv)", &z);
	struct weft_ev nost = mkev("OHp", 0, 500, NULL, 0);
	nost.stream = NULL; /* no stream: no loom */
	F("isNamed(loom)", &nost);
	F("loom notcontains \"x\"", &nost);
}
END_TEST

START_TEST(fields)
{
	struct weft_ev ev = mark("OM[", 0, 10, -42, 5);
	T("value = -42", &ev);
	T("type = 5 and value < 0", &ev);
	T("field.value = -42", &ev);
	T("has(value)", &ev);
	/* a field this event does not have: false, and not(false) is true */
	F("ncpus = 3", &ev);
	F("ncpus != 3", &ev);
	T("not ncpus = 3", &ev);
	F("has(ncpus)", &ev);
	/* cpu is the built-in (the thread's cpu: absent without the emulator);
	 * the payload field is field.cpu */
	int32_t pl[4] = {2, 7, 0, 0}; /* OHx: i32 cpu, i32 creator, u64 tag */
	struct weft_ev x = mkev("OHx", 0, 10, pl, 16);
	F("cpu = 2", &x);
	F("has(cpu)", &x);
	T("field.cpu = 2 and creator = 7 and tag = 0", &x);
	/* a payload that does not match its declaration has no fields */
	struct weft_ev bad = mkev("OM[", 0, 10, markpl[0], 4);
	F("has(value)", &bad);
	F("value = -42", &bad);
	/* rank is missing for the second process */
	struct weft_ev r = mkev("OHp", 1, 10, NULL, 0);
	F("rank = 3", &r);
	F("rank != 3", &r);
	F("has(rank)", &r);
	T("has(app)", &r);
	/* no emulator: no state */
	F("has(state.ovni)", &r);
	/* isNamed and notcontains on a text field: a name, an empty one */
	uint8_t fn[16] = {3, 0, 0, 0, 'a', '.', 't', 'x', 't', 0};
	struct weft_ev named = mkev("FN.", 0, 10, fn, 10);
	named.jumbo = 1; /* declared jumbo: a normal FN. has no fields */
	T("isNamed(name) and name notcontains \"dat\" and name contains \".txt\"", &named);
	uint8_t fe[8] = {3, 0, 0, 0, 0};
	struct weft_ev unnamed = mkev("FN.", 0, 10, fe, 5);
	unnamed.jumbo = 1;
	F("isNamed(name)", &unnamed);
	T("has(name)", &unnamed);
	T("name notcontains \"a\"", &unnamed);
	F("isNamed(name)", &ev); /* OM[ has no name field */
	F("name notcontains \"a\"", &ev);
}
END_TEST


/* ---- precedence, lists, ranges, units ----------------------------------- */

START_TEST(precedence)
{
	struct weft_ev ev = mkev("OHp", 0, 500, NULL, 0);
	/* not > and > or */
	T("true or true and not true", &ev);      /* true or (true and false) */
	F("not true and true", &ev);              /* (not true) and true */
	T("not true or true", &ev);               /* (not true) or true */
	F("(true or true) and not true", &ev);
	T("tid = 1 or tid = 1000 and pid = 100", &ev);
	F("(tid = 1 or tid = 1000) and pid = 1", &ev);
	T("tid = 1000 or tid = 1 and pid = 1", &ev); /* or binds loosest */
	F("not (tid = 1000 or tid = 1)", &ev);
	T("not not true", &ev);
	T("NOT tid = 1 AND TRUE Or tid = 5", &ev); /* keywords in any case */
	T("((((true))))", &ev);
}
END_TEST

START_TEST(lists_ranges_units)
{
	struct weft_ev ev = mkev("OHp", 0, 15000000000ull, NULL, 0); /* time 15 s */
	T("time in 10s..20s", &ev);
	F("time in 16s..20s", &ev);
	T("time notin 16s..20s", &ev);
	T("time = 15s", &ev);
	T("time = 15000ms and time = 15000000us and time = 15000000000ns", &ev);
	T("time in [1, 2, 14s..15s]", &ev);
	F("time in [1, 2, 14s..14999ms]", &ev);
	T("time in 14999999999..15000000000", &ev);
	T("tid in [5..10, 999..1001]", &ev);
	F("tid in [5..10, 1001..1002]", &ev);
	T("tid in 1000..1000", &ev);
	T("tid in [-5..-1, 1000]", &ev);
	T("clock > 14s", &ev);
}
END_TEST

/* ---- parse errors -------------------------------------------------------- */

START_TEST(errors)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"x: when mcv foo 5 do count",
		 "pattern 1, column 13: expected an operator (=, \\=, !=, <, >, =<, <=, >=, in, notin, "
		 "contains, notcontains), found \"foo\""},
		{": when true do count",
		 "pattern 1, column 1: expected a label (letters, digits, '_' or '-') followed by ':', found \":\""},
		{"",
		 "pattern 1, column 1: expected a label (letters, digits, '_' or '-') followed by ':', "
		 "found the end of the pattern"},
		{"x when true do count", "pattern 1, column 3: expected ':' after the label \"x\", found \"when\""},
		{"x: if true do count", "pattern 1, column 4: expected 'when', found \"if\""},
		{"x: when do count",
		 "pattern 1, column 9: expected a condition (an attribute, true, has(...), isNamed(...), not or '('), "
		 "found \"do\""},
		{"x: when true count",
		 "pattern 1, column 14: expected 'do', 'do_synchro' or a connective (and, or), found \"count\""},
		{"x: when true do_sync count",
		 "pattern 1, column 14: expected 'do', 'do_synchro' or a connective (and, or), found \"do_sync\""},
		{"x: when true do",
		 "pattern 1, column 16: expected an action (current, call, count, sum, first, last, "
		 "stop), found the end of the pattern"},
		{"x: when true do cnt",
		 "pattern 1, column 17: expected an action (current, call, count, sum, first, last, stop), found \"cnt\""},
		{"x: when true do call", "pattern 1, column 21: expected '(' after call, found the end of the pattern"},
		{"x: when true do call(5)",
		 "pattern 1, column 22: expected the name of a handler (a word) after call(, found \"5\""},
		{"x: when true do call(f, g)",
		 "pattern 1, column 23: expected ')' after the handler's name, found \",\""},
		{"x: when tid notcontains \"5\" do count",
		 "pattern 1, column 13: notcontains needs a text attribute: tid is a number"},
		{"x: when isNamed(tid) do count",
		 "pattern 1, column 17: isNamed needs a text attribute: tid is a number"},
		{"x: when isNamed(time) do count",
		 "pattern 1, column 17: isNamed needs a text attribute: time is a number"},
		{"x: when isNamed(desc) do count",
		 "pattern 1, column 17: desc (the event's sentence) can be printed or counted, not tested"},
		{"x: when isNamed tid do count", "pattern 1, column 17: expected '(' after isNamed, found \"tid\""},
		{"x: when isNamed(loom = 1) do count",
		 "pattern 1, column 22: expected ')' after the attribute, found \"=\""},
		{"x: when notcontains = 1 do count",
		 "pattern 1, column 9: expected a condition (an attribute, true, has(...), isNamed(...), not or '('), "
		 "found \"notcontains\""},
		{"x: when true do count count",
		 "pattern 1, column 23: expected ',' or the end of the pattern after an action, found \"count\""},
		{"x: when (true do count",
		 "pattern 1, column 15: expected ')' or a connective (and, or), found \"do\""},
		{"x: when tid = do count",
		 "pattern 1, column 15: expected a value (an integer, a \"string\", a word, a [list] or a range a..b), "
		 "found \"do\""},
		{"x: when tid = \"a\" do count",
		 "pattern 1, column 15: tid is a number: expected an integer, found the string \"a\""},
		{"x: when tid = abc do count",
		 "pattern 1, column 15: tid is a number: expected an integer, found \"abc\""},
		{"x: when tid in [1, 2 do count",
		 "pattern 1, column 22: expected ',' or ']' in the list, found \"do\""},
		{"x: when tid in [1, [2]] do count", "pattern 1, column 20: lists cannot be nested"},
		{"x: when tid in 5 do count",
		 "pattern 1, column 16: in needs a list [a, b, ...] or a range a..b, found \"5\""},
		{"x: when tid = [1] do count", "pattern 1, column 15: = needs a single value, found a list (use in)"},
		{"x: when tid = 1..2 do count", "pattern 1, column 15: = needs a single value, found a range (use in)"},
		{"x: when tid in 1.. do count", "pattern 1, column 20: expected an integer after '..', found \"do\""},
		{"x: when tid in 5..1 do count",
		 "pattern 1, column 16: empty range 5..1: the first bound is larger than the second"},
		{"x: when loom in a..b do count", "pattern 1, column 17: a range a..b needs integers at both ends"},
		{"x: when loom in 1..2 do count",
		 "pattern 1, column 17: loom is text: a range a..b needs a number attribute"},
		{"x: when time > 5xs do count", "pattern 1, column 17: unknown unit \"xs\" (expected ns, us, ms or s)"},
		{"x: when tid > 5ms do count",
		 "pattern 1, column 16: a time unit (ms) is only allowed with time or clock, not with tid"},
		{"x: when loom = 5s do count",
		 "pattern 1, column 17: a time unit (s) is only allowed with time or clock, not with loom"},
		{"x: when time > 99999999999s do count",
		 "pattern 1, column 16: 99999999999s is out of range in ns (64-bit signed)"},
		{"x: when tid = 99999999999999999999 do count",
		 "pattern 1, column 15: integer 99999999999999999999 is out of range (64-bit signed)"},
		{"x: when bogus = 1 do count",
		 "pattern 1, column 9: unknown attribute \"bogus\" (expected mcv, model, cat, val, model_name, time, "
		 "clock, chrono, loom, pid, tid, rank, app, cpu, stream, desc, state.<model> or a payload field of "
		 "an event table: see weft models)"},
		{"x: when field.bogus = 1 do count",
		 "pattern 1, column 9: no event table has a payload field \"bogus\" (see weft models)"},
		{"x: when state.foo = 1 do count",
		 "pattern 1, column 9: unknown model \"foo\" in state.foo (models: nanos6, andfork, nodes, fileio, "
		 "kernel, mpi, ovni, openmp, orbranch, tampi, nosv, msg)"},
		{"x: when state.mpi = 1 do count",
		 "pattern 1, column 9: the mpi model has no thread states (state.mpi)"},
		{"x: when state.ovni = Runing do count",
		 "pattern 1, column 22: unknown ovni state \"Runing\" (expected Unknown, Running, Paused, Dead, "
		 "Cooling, Warming or a number)"},
		{"x: when mcv = \"OH\" do count",
		 "pattern 1, column 15: mcv is three characters: expected a 3-character string, found \"OH\""},
		{"x: when model = \"OH\" do count",
		 "pattern 1, column 17: model is one character: expected a 1-character string, found \"OH\""},
		{"x: when model_name = foo do count",
		 "pattern 1, column 22: unknown model \"foo\" (models: nanos6, andfork, nodes, fileio, kernel, mpi, "
		 "ovni, openmp, orbranch, tampi, nosv, msg)"},
		{"x: when tid contains \"5\" do count",
		 "pattern 1, column 13: contains needs a text attribute: tid is a number"},
		{"x: when true do sum(loom)", "pattern 1, column 21: sum needs a number attribute: loom is text"},
		{"x: when true do sum(state.ovni)",
		 "pattern 1, column 21: sum needs a number attribute: state.ovni is a state"},
		{"x: when true do current(tid",
		 "pattern 1, column 28: expected ',' or ')' after an attribute, found the end of the pattern"},
		{"x: when true do current tid", "pattern 1, column 25: expected '(' after current, found \"tid\""},
		{"x: when true do first, last",
		 "pattern 1, column 24: first and last cannot be combined in one pattern"},
		{"x: when desc = 1 do count",
		 "pattern 1, column 9: desc (the event's sentence) can be printed or counted, not tested"},
		{"x: when has(tid do count", "pattern 1, column 17: expected ')' after the attribute, found \"do\""},
		{"x: when has tid do count", "pattern 1, column 13: expected '(' after has, found \"tid\""},
		{"x: when \"abc do count", "pattern 1, column 9: unterminated string: expected a closing '\"'"},
		{"x: when loom = \"a\\qb\" do count",
		 "pattern 1, column 18: unknown escape \"\\q\" in a string (expected \\\", \\\\, \\n or \\t)"},
		{"x: when tid $ 5 do count", "pattern 1, column 13: unexpected character '$'"},
		{"x: when tid ! 5 do count", "pattern 1, column 13: unexpected character '!' (did you mean !=?)"},
		{"x: when tid . 5 do count",
		 "pattern 1, column 13: unexpected character '.' (a range is written a..b)"},
		{"x: when tid = 5 do count(",
		 "pattern 1, column 26: expected an attribute, found the end of the pattern"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_str_eq(perr(cases[i].text), cases[i].msg);
	/* a second pattern with the same label */
	add("x: when true do count");
	struct weft_err e = {0};
	ck_assert(query_add(Q, "x: when true do count", "pattern 2", &e) != 0);
	ck_assert_str_eq(e.msg, "pattern 2, column 1: label \"x\" is already used by another pattern");
	/* labels are unique per owner: another owner may use x, once */
	static const int owner_a = 1;
	ck_assert_msg(query_add_for(Q, &owner_a, "x: when true do count", "pattern 3", &e) == 0, "%s", e.msg);
	ck_assert(query_add_for(Q, &owner_a, "x: when true do count", "pattern 4", &e) != 0);
	ck_assert_int_eq(query_find(Q, &owner_a, "x"), 1);
	ck_assert_int_eq(query_find(Q, NULL, "x"), 0);
	ck_assert_int_eq(query_remove_for(Q, &owner_a, "x"), 0);
	ck_assert_int_eq(query_find(Q, &owner_a, "x"), -1);
	ck_assert_int_eq(query_find(Q, NULL, "x"), 0);
	/* a run without the models refuses the patterns that need them */
	Q->no_models = 1;
	ck_assert(query_add(Q, "st: when state.ovni = Running do count", "pattern 5", &e) != 0);
	ck_assert_str_eq(e.msg, "pattern st needs the models (state.<model>, cpu), which this run does not emulate");
	Q->no_models = 0;
	/* filters */
	ck_assert(query_add_filter(Q, "tid = 1 do", "--filter", &e) != 0);
	ck_assert_str_eq(e.msg, "--filter, column 9: expected a connective (and, or) or the end of the "
				"expression, found \"do\"");
}
END_TEST

START_TEST(comments_and_spacing)
{
	add("  a-1_b :when tid=5 do count # a comment");
	add("b:when(tid=5)or(tid=6)do count,first");
	add("c: when loom = \"a # not a comment\" do current(tid,pid)");
	ck_assert_int_eq(Q->npat, 3);
	ck_assert_str_eq(Q->pat[0]->label, "a-1_b");
	ck_assert(Q->pat[1]->first && Q->pat[1]->count);
	ck_assert_int_eq(Q->pat[2]->ncur, 2);
	ck_assert(Q->pat[2]->prints);
	ck_assert(!Q->pat[0]->prints);
}
END_TEST

/* ---- prefilter and actions ------------------------------------------------- */

START_TEST(prefilter)
{
	add("a: when mcv = \"OHp\" do count");
	add("b: when model = \"O\" and cat = \"M\" and value > 5 do count");
	add("c: when tid = 2000 do count");
	add("d: when not (model_name = ovni) do count");
	bind();
	struct weft_ev p0 = mkev("OHp", 0, 1, NULL, 0);
	struct weft_ev p1 = mkev("OHp", 1, 2, NULL, 0);
	struct weft_ev m6 = mark("OM=", 0, 3, 6, 1);
	struct weft_ev m4 = mark("OM[", 1, 4, 4, 1);
	struct weft_ev k = mkev("KCO", 0, 5, NULL, 0);
	struct weft_ev z = mkev("zzz", 0, 6, NULL, 0);
	ck_assert_uint_eq(query_match(Q, &p0), 0x1);
	ck_assert_uint_eq(query_match(Q, &p1), 0x5);
	ck_assert_uint_eq(query_match(Q, &m6), 0x2);
	ck_assert_uint_eq(query_match(Q, &m4), 0x4);
	ck_assert_uint_eq(query_match(Q, &k), 0x8);
	ck_assert_uint_eq(query_match(Q, &z), 0x8);
	ck_assert_uint_eq(Q->chrono, 6);
	/* only c (any MCV) may match OHx; a and b are rejected by the table */
	ck_assert_uint_eq(Q->classes[query_class(Q, 'O', 'H', 'x')].maybe, 0x4);
	/* without c, MCVs no pattern can match cost one lookup: class 0 */
	ck_assert_int_eq(query_remove(Q, "c"), 0);
	ck_assert_uint_eq(query_class(Q, 'O', 'H', 'x'), 0);
	ck_assert_uint_ne(query_class(Q, 'K', 'C', 'O'), 0);
	/* a decides OHp alone, surely */
	uint32_t c = query_class(Q, 'O', 'H', 'p');
	ck_assert(Q->classes[c].sure & 1);
	ck_assert(!(Q->classes[query_class(Q, 'O', 'M', '[')].sure & 2));
}
END_TEST

static char *read_all(int fd)
{
	static char buf[65536];
	lseek(fd, 0, SEEK_SET);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	ck_assert(n >= 0);
	buf[n] = '\0';
	return buf;
}

/* An output buffer on an unlinked temporary file, read back by read_all. */
static int tmp_out(struct outbuf *o)
{
	char path[] = "/tmp/weft-query-XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	unlink(path);
	ob_init(o, fd, 4096);
	return fd;
}

START_TEST(actions)
{
	struct outbuf o;
	int fd = tmp_out(&o);
	Q->out = &o;
	add("p: when mcv = \"OHp\" do current(tid, loom)");
	add("n: when true do count, count(loom), sum(tid)");
	add("f: when mcv = \"OHp\" do first, current(chrono)");
	add("l: when mcv = \"OHp\" do last, current(chrono, rank)");
	add("s: when tid = 2000 and mcv = \"OHr\" do stop");
	bind();
	struct weft_ev evs[] = {
		mkev("OHp", 0, 1, NULL, 0), mkev("OHr", 0, 2, NULL, 0),
		mkev("OHp", 1, 3, NULL, 0), mkev("OHr", 1, 4, NULL, 0),
	};
	uint64_t n = 0;
	for (size_t i = 0; i < 4 && !Q->stopped; i++) {
		uint64_t m = query_match(Q, &evs[i]);
		if (m)
			query_act(Q, &evs[i], m);
		n++;
	}
	ck_assert_uint_eq(n, 4);
	ck_assert(Q->stopped);
	query_summary(Q, n);
	struct weft_err e = {0};
	ck_assert(ob_flush(&o, &e, "test") == 0);
	ck_assert_str_eq(read_all(fd),
			 "p,n,f: tid=1000 loom=node00 chrono=0\n"
			 "p,n: tid=2000 loom=node01\n"
			 "n,s: chrono=3 time=4 mcv=OHr loom=node01 pid=200 tid=2000 desc=resumes\n"
			 "l: chrono=2 rank=-\n"
			 "n: count 4\n"
			 "n: count(loom) node00 2\n"
			 "n: count(loom) node01 2\n"
			 "n: sum(tid) 6000\n");
	ob_free(&o);
	close(fd);
}
END_TEST

START_TEST(json_lines)
{
	struct outbuf o;
	int fd = tmp_out(&o);
	Q->out = &o;
	Q->json = 1;
	add("p: when true do current(tid, loom, rank, mcv), count(mcv)");
	bind();
	struct weft_ev ev = mkev("OHp", 0, 1, NULL, 0);
	uint64_t m = query_match(Q, &ev);
	query_act(Q, &ev, m);
	struct weft_ev ev2 = mkev("O\"\\", 1, 1, NULL, 0);
	m = query_match(Q, &ev2);
	query_act(Q, &ev2, m);
	query_summary(Q, 2);
	struct weft_err e = {0};
	ck_assert(ob_flush(&o, &e, "test") == 0);
	ck_assert_str_eq(read_all(fd),
			 "{\"labels\":[\"p\"],\"tid\":1000,\"loom\":\"node00\",\"rank\":3,\"mcv\":\"OHp\"}\n"
			 "{\"labels\":[\"p\"],\"tid\":2000,\"loom\":\"node01\",\"rank\":null,\"mcv\":\"O\\\"\\\\\"}\n"
			 "{\"summary\":{\"events\":2,\"patterns\":[{\"label\":\"p\",\"matches\":2,"
			 "\"count(mcv)\":[[\"O\\\"\\\\\",1],[\"OHp\",1]]}]}}\n");
	ob_free(&o);
	close(fd);
}
END_TEST

/* do_synchro, call(NAME) and the lines of weft serve's analysers: a stop
 * says so, and is printed for patterns that only count (with the default
 * attributes). */
START_TEST(synchro_and_calls)
{
	struct outbuf o;
	int fd = tmp_out(&o);
	Q->out = &o;
	Q->json = 1;
	add("a: when mcv = \"OHp\" do_synchro current(tid), call(seen), call(again)");
	add("b: when mcv = \"OHp\" and tid = 2000 dosynchro count");
	add("c: when mcv = \"OHp\" do call(other)");
	add("d: when mcv = \"OHr\" do stop");
	ck_assert(Q->pat[0]->sync && Q->pat[1]->sync && !Q->pat[2]->sync && !Q->pat[3]->sync);
	ck_assert_int_eq(Q->pat[0]->ncalls, 2);
	ck_assert_str_eq(Q->pat[0]->calls[1], "again");
	ck_assert(Q->pat[2]->prints); /* call prints, with the defaults */
	bind();
	ck_assert_uint_eq(Q->syncmask, 0xb);
	struct weft_ev p0 = mkev("OHp", 0, 1, NULL, 0);
	struct weft_ev p1 = mkev("OHp", 1, 2, NULL, 0);
	uint64_t m = query_match(Q, &p0);
	ck_assert_uint_eq(m, 0x5);
	query_act_line(Q, &p0, m & 1, 1);
	m = query_match(Q, &p1);
	ck_assert_uint_eq(m, 0x7);
	query_act_line(Q, &p1, m & 2, 1); /* b alone: counts, yet the stop is said */
	query_act_line(Q, &p1, 0, 1); /* a step: no pattern, the defaults */
	query_act(Q, &p1, m & 4);
	struct weft_err e = {0};
	ck_assert(ob_flush(&o, &e, "test") == 0);
	ck_assert_str_eq(
		read_all(fd),
		"{\"labels\":[\"a\"],\"stop\":true,\"calls\":[\"seen\",\"again\"],\"tid\":1000}\n"
		"{\"labels\":[\"b\"],\"stop\":true,\"chrono\":1,\"time\":2,\"mcv\":\"OHp\",\"loom\":\"node01\","
		"\"pid\":200,\"tid\":2000,\"desc\":\"pauses\"}\n"
		"{\"labels\":[],\"stop\":true,\"chrono\":1,\"time\":2,\"mcv\":\"OHp\",\"loom\":\"node01\","
		"\"pid\":200,\"tid\":2000,\"desc\":\"pauses\"}\n"
		"{\"labels\":[\"c\"],\"calls\":[\"other\"],\"chrono\":1,\"time\":2,\"mcv\":\"OHp\","
		"\"loom\":\"node01\",\"pid\":200,\"tid\":2000,\"desc\":\"pauses\"}\n");
	/* text lines name the calls, never the stop */
	Q->json = 0;
	lseek(fd, 0, SEEK_SET);
	ck_assert(ftruncate(fd, 0) == 0);
	query_act_line(Q, &p1, 1, 1);
	ck_assert(ob_flush(&o, &e, "test") == 0);
	ck_assert_str_eq(read_all(fd), "a: calls=seen,again tid=2000\n");
	/* one pattern's summary, and values of an event as one object */
	Q->json = 1;
	lseek(fd, 0, SEEK_SET);
	ck_assert(ftruncate(fd, 0) == 0);
	query_pattern_json(Q, 1, &o);
	struct qattr *a;
	int na = query_parse_attrs(Q, "tid, loom, rank", "current", &a, &e);
	ck_assert_int_eq(na, 3);
	query_put_values(Q, &o, &p1, 1, a, na);
	query_free_attrs(a, na);
	ck_assert(ob_flush(&o, &e, "test") == 0);
	ck_assert_str_eq(read_all(fd),
			 "{\"label\":\"b\",\"matches\":1,\"count\":1}"
			 "{\"tid\":2000,\"loom\":\"node01\",\"rank\":null}");
	ob_free(&o);
	close(fd);
}
END_TEST

START_TEST(attr_lists_and_remove)
{
	struct qattr *a;
	struct weft_err e = {0};
	int n = query_parse_attrs(Q, "time, state.ovni, value", "current", &a, &e);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(a[1].name, "state.ovni");
	query_free_attrs(a, n);
	ck_assert_int_eq(query_parse_attrs(Q, "time tid", "current", &a, &e), -1);
	ck_assert_str_eq(e.msg, "current, column 6: expected ',' or the end of the attribute list, found \"tid\"");
	add("a: when true do count");
	add("b: when state.ovni = Running do count");
	ck_assert(Q->needs_emu);
	ck_assert_int_eq(query_remove(Q, "b"), 0);
	ck_assert(!Q->needs_emu);
	ck_assert_int_eq(query_remove(Q, "b"), -1);
	ck_assert_int_eq(Q->npat, 1);
}
END_TEST

START_TEST(too_many_patterns)
{
	char text[64];
	struct weft_err e = {0};
	for (int i = 0; i < QUERY_MAX_PATTERNS; i++) {
		snprintf(text, sizeof(text), "p%d: when tid = %d do count", i, i);
		add(text);
	}
	ck_assert(query_add(Q, "extra: when true do count", "pattern 65", &e) != 0);
	ck_assert_str_eq(e.msg, "too many patterns: at most 64 at once");
	bind();
	struct weft_ev ev = mkev("OHp", 0, 1, NULL, 0); /* tid 1000: none */
	ck_assert_uint_eq(query_match(Q, &ev), 0);
}
END_TEST

/* ---- time phases and slots ------------------------------------------------ */

/* Each event through query_match must agree with the full evaluation. */
static uint64_t match_checked(const struct weft_ev *ev)
{
	uint64_t act = Q->active;
	uint64_t m = query_match(Q, ev);
	for (int k = 0; k < Q->npat; k++)
		ck_assert_msg(((m >> k) & 1) == (uint64_t) (((act >> k) & 1) && query_eval(Q, k, ev, Q->chrono - 1)),
			      "pattern %s, event at time %llu", Q->pat[k]->label,
			      (unsigned long long) (ev->time - 1000));
	return m;
}

START_TEST(time_thresholds)
{
	add("gt: when time > 5 do count");
	add("ge: when time >= 5 and mcv = \"OHp\" do count");
	add("eq: when time = 5 do count");
	add("in: when time in 3..5 or time = 7 do count");
	add("lt: when time < 5 do count, sum(time)");
	bind();
	static const uint64_t t[] = {3, 4, 5, 5, 6, 7, 7};
	struct weft_ev ev[7];
	for (int i = 0; i < 7; i++)
		ev[i] = mkev("OHp", i & 1, t[i], NULL, 0);
	/* the batch path: the phase changes at the events of times 5, 6 and 8 */
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(query_feed(Q, &ev[i]), 0);
	query_sync(Q);
	ck_assert_uint_eq(Q->pat[0]->matches, 3); /* 6, 7, 7 */
	ck_assert_uint_eq(Q->pat[1]->matches, 5);
	ck_assert_uint_eq(Q->pat[2]->matches, 2);
	ck_assert_uint_eq(Q->pat[3]->matches, 6);
	ck_assert_uint_eq(Q->pat[4]->matches, 2);
	ck_assert_uint_eq(Q->pat[4]->sum[0].sum, 7);
	/* past 5, `time > 5` is folded: the prefilter alone decides gt, ge */
	uint32_t c = query_class(Q, 'O', 'H', 'p');
	ck_assert_uint_eq(Q->classes[c].sure & 0x3, 0x3);
	ck_assert_uint_eq(Q->classes[c].maybe & 0x14, 0); /* eq and lt: false for good */
	ck_assert_int_eq(Q->pat[0]->nlive, 0);
	/* the same through query_match, event by event, then back in time */
	query_start(Q, 1000);
	for (int i = 0; i < 7; i++)
		match_checked(&ev[i]);
	ck_assert_uint_eq(match_checked(&ev[1]), 0x18); /* time 4: in, lt */
	ck_assert_uint_eq(match_checked(&ev[2]), 0x0e); /* time 5 */
	struct weft_ev late = mkev("OHr", 0, 9, NULL, 0);
	ck_assert_uint_eq(match_checked(&late), 0x1);
}
END_TEST

START_TEST(many_thresholds)
{
	/* more thresholds than phases are worth: time is tested per event */
	char text[1024] = "odd: when time in [";
	for (int i = 1; i < 80; i += 2)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%d", i > 1 ? ", " : "", i);
	strcat(text, "] do count");
	add(text);
	add("late: when time >= 40 do count");
	bind();
	ck_assert(!Q->tphased);
	for (uint64_t t = 0; t < 80; t++) {
		struct weft_ev ev = mkev("OHp", 0, t, NULL, 0);
		query_feed(Q, &ev);
	}
	query_sync(Q);
	ck_assert_uint_eq(Q->pat[0]->matches, 40);
	ck_assert_uint_eq(Q->pat[1]->matches, 40);
}
END_TEST

/* The output of a run over a few OHp events of both streams, through the
 * batch path (feed) or match + act, with at most `cap` slots; `all`: more
 * patterns than n. */
static const char *slot_run(int feed, int cap, int all)
{
	static char out[4096];
	struct outbuf o;
	int fd = tmp_out(&o);
	query_free(Q);
	struct weft_err e = {0};
	ck_assert(query_init(Q, tu_models(), &e) == 0);
	Q->out = &o;
	Q->slot_cap = cap;
	add("n: when mcv = \"OHp\" do count(tid), count(loom), count(rank), sum(pid), sum(time), "
	    "sum(clock), sum(chrono)");
	if (all) {
		add("b: when mcv = \"OHp\" and tid = 2000 do count");
		add("p: when mcv = \"OHp\" and loom = node00 and time > 2 do current(tid)");
		add("f: when tid = 2000 do first, count(tid)");
	}
	bind();
	struct weft_ev ev[] = {
		mkev("OHp", 0, 1, NULL, 0), mkev("OHp", 1, 2, NULL, 0), mkev("OHr", 0, 3, NULL, 0),
		mkev("OHp", 0, 4, NULL, 0), mkev("OHp", 1, 5, NULL, 0), mkev("OHp", 0, 6, NULL, 0),
	};
	for (size_t i = 0; i < ARRAY_SIZE(ev); i++) {
		if (feed) {
			ck_assert_int_eq(query_feed(Q, &ev[i]), 0);
			continue;
		}
		uint64_t m = query_match(Q, &ev[i]);
		if (m)
			query_act(Q, &ev[i], m);
	}
	query_summary(Q, Q->chrono);
	ck_assert(ob_flush(&o, &e, "test") == 0);
	snprintf(out, sizeof(out), "%s", read_all(fd));
	ob_free(&o);
	close(fd);
	return out;
}

START_TEST(slot_counts)
{
	static const char n_lines[] =
		"n: count(tid) 1000 3\n"
		"n: count(tid) 2000 2\n"
		"n: count(loom) node00 3\n"
		"n: count(loom) node01 2\n"
		"n: count(rank) 3 3\n"
		"n: count(rank) - 2\n"
		"n: sum(pid) 700\n"
		"n: sum(time) 18\n"
		"n: sum(clock) 43\n"
		"n: sum(chrono) 13\n";
	static const char all_lines[] =
		"n,p: tid=1000\n"
		"n,p: tid=1000\n"
		"%s"
		"b: count 2\n"
		"f: count(tid) 2000 1\n";
	char want[2048];
	snprintf(want, sizeof(want), all_lines, n_lines);
	ck_assert_str_eq(slot_run(0, 1 << 16, 1), want);
	/* the batch path counts n and b in slots, and names them on p's lines */
	ck_assert_str_eq(slot_run(1, 1 << 16, 1), want);
	ck_assert_int_eq(Q->nsclass, 3); /* the two streams, and no stream */
	ck_assert_uint_eq(Q->sfast[query_class(Q, 'O', 'H', 'p') + Q->soff[1]], 0x3);
	ck_assert_str_eq(slot_run(1, 1, 1), want);
	/* n alone: streams differ by the values counted only */
	ck_assert_str_eq(slot_run(0, 1 << 16, 0), n_lines);
	ck_assert_str_eq(slot_run(1, 1 << 16, 0), n_lines);
	ck_assert_int_eq(Q->nsclass, 3);
	ck_assert_int_eq(Q->nclasses, 2);
	/* too many slots: stream classes by masks alone (n goes per event) */
	ck_assert_str_eq(slot_run(1, 4, 0), n_lines);
	ck_assert_int_eq(Q->nsclass, 1);
	ck_assert(Q->scl[0].exact);
	ck_assert_uint_eq(Q->sfast[query_class(Q, 'O', 'H', 'p')], 0);
	/* still too many: one class that knows no stream */
	ck_assert_str_eq(slot_run(1, 1, 0), n_lines);
	ck_assert_int_eq(Q->nsclass, 1);
	ck_assert(!Q->scl[0].exact);
}
END_TEST

START_TEST(class0_skip)
{
	/* the batch path skips class 0 while nearly all events are of it, and
	 * bumps its slot when they mix; counts are right either way */
	add("a: when mcv = \"OHp\" do count, sum(time)");
	bind();
	uint64_t t = 0, n = 0, sum = 0;
	for (int i = 0; i < 40000; i++, t++) {
		struct weft_ev ev = mkev(i % 100 ? "OHx" : "OHp", i & 1, t, NULL, 0);
		n += i % 100 == 0;
		sum += i % 100 ? 0 : t;
		query_feed(Q, &ev);
	}
	ck_assert_uint_eq(Q->cmin, 1);
	for (int i = 0; i < 150000; i++, t++) { /* a checkpoint every 65536 or so */
		struct weft_ev ev = mkev(i % 2 ? "OHx" : "OHp", i & 1, t, NULL, 0);
		n += i % 2 == 0;
		sum += i % 2 ? 0 : t;
		query_feed(Q, &ev);
	}
	ck_assert_uint_eq(Q->cmin, 0);
	query_sync(Q);
	ck_assert_uint_eq(Q->pat[0]->matches, n);
	ck_assert_uint_eq(Q->pat[0]->sum[0].sum, sum);
}
END_TEST

START_TEST(live_conjuncts)
{
	/* once time > 2 holds, only the conjuncts that time does not settle
	 * are tested per event; those still depend on the MCV */
	add("x: when not (mcv = \"OM[\" and value > 3) and time > 2 do count");
	add("y: when (mcv = \"OM[\" or value > 3) and time > 2 do count");
	bind();
	struct weft_ev ev[] = {
		mark("OM[", 0, 1, 6, 1), mark("OM[", 0, 5, 6, 1), mark("OM[", 1, 6, 2, 1),
		mark("OM]", 0, 7, 6, 1), mark("OM]", 1, 8, 2, 1),
	};
	for (int feed = 0; feed < 2; feed++) {
		query_start(Q, 1000);
		for (size_t i = 0; i < ARRAY_SIZE(ev); i++)
			if (feed)
				query_feed(Q, &ev[i]);
			else
				match_checked(&ev[i]);
		if (feed) {
			query_sync(Q);
			ck_assert_uint_eq(Q->pat[0]->matches, 3); /* times 6, 7, 8 */
			ck_assert_uint_eq(Q->pat[1]->matches, 3); /* times 5, 6, 7 */
		}
	}
}
END_TEST

/* Events of every table row, its neighbours and a sample of MCVs without
 * rows, with payloads of every size and two cpu values, through
 * match_checked (the prefilter agrees with the full evaluation); returns
 * how many matched some pattern. */
static uint64_t every_mcv(uint64_t *t)
{
	static int32_t lo[4] = {2, 1, 1, 0}, hi[4] = {9, 1, 1, 0};
	uint64_t hits = 0;
	for (int m = 0x21; m <= 0x7e; m++) {
		for (int c = 0x21; c <= 0x7e; c++) {
			for (int v = 0x21; v <= 0x7e; v++) {
				int near = 0;
				for (int dc = -1; dc <= 1; dc++)
					for (int dv = -1; dv <= 1; dv++)
						near |= c + dc >= 0x21 && c + dc <= 0x7e && v + dv >= 0x21 &&
							v + dv <= 0x7e &&
							evtable_find(Q->tab, (uint8_t) m, (uint8_t) (c + dc),
								     (uint8_t) (v + dv)) != NULL;
				if (!near && (c + v + m) % 97 != 0)
					continue;
				char mcv[4] = {(char) m, (char) c, (char) v, 0};
				for (uint32_t len = 0; len <= 16; len += 4) {
					for (int s = 0; s < 2; s++) {
						struct weft_ev ev = mkev(mcv, s, (*t)++, s ? hi : lo, len);
						hits += match_checked(&ev) != 0;
					}
				}
			}
		}
	}
	return hits;
}

/* Payload fields decide the prefilter from the MCV's model and category
 * (no row with the prefix has the field: false), and a model with a row
 * that has the field never shares a block with one without. The pattern d
 * broke an earlier attempt. Each pattern alone (its models walked alike
 * share blocks), then all at once. */
START_TEST(field_prefilter_every_mcv)
{
	static const char *const pats[] = {
		"d: when field.cpu =< 3 do first, current(cpu, state.ovni, field.cpu)",
		"e: when not field.cpu > 3 do count",
		"f: when has(field.cpu) or model = \"K\" do count",
		"g: when field.value > 0 and cat = \"M\" do count",
		"h: when mcv >= \"OM\" and not field.type = 1 do count",
		"i: when field.cpu = 2 or tid = 2000 do count",
		/* walked on every model (cat): the field tells 'O' apart */
		"j: when field.cpu = 2 or cat = \"H\" do count",
		"k: when not (field.cpu = 2 or cat = \"H\") do count",
	};
	const int n = (int) (ARRAY_SIZE(pats));
	uint64_t t = 1;
	for (int i = 0; i <= n; i++) {
		query_free(Q);
		struct weft_err e = {0};
		ck_assert(query_init(Q, tu_models(), &e) == 0);
		for (int k = 0; k < n; k++)
			if (i == n || k == i)
				add(pats[k]);
		bind();
		ck_assert_uint_gt(every_mcv(&t), 0);
	}
	/* rebuilt without d, the others still agree */
	ck_assert_int_eq(query_remove(Q, "d"), 0);
	static int32_t lo[4] = {2, 1, 1, 0}, hi[4] = {9, 1, 1, 0};
	struct weft_ev x = mkev("OHx", 0, t++, lo, 16), y = mkev("OHx", 1, t++, hi, 16);
	ck_assert_uint_eq(match_checked(&x), 0x33); /* e f i j (h: "OHx" < "OM") */
	ck_assert_uint_eq(match_checked(&y), 0x32); /* f i (tid 2000) j (cat H) */
	every_mcv(&t);
}
END_TEST

Suite *query_suite(void)
{
	Suite *s = suite_create("query");
	TCase *tc = tcase_create("query");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, int_operators);
	tcase_add_test(tc, text_operators);
	tcase_add_test(tc, fields);
	tcase_add_test(tc, precedence);
	tcase_add_test(tc, lists_ranges_units);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, comments_and_spacing);
	tcase_add_test(tc, prefilter);
	tcase_add_test(tc, actions);
	tcase_add_test(tc, json_lines);
	tcase_add_test(tc, synchro_and_calls);
	tcase_add_test(tc, attr_lists_and_remove);
	tcase_add_test(tc, too_many_patterns);
	tcase_add_test(tc, time_thresholds);
	tcase_add_test(tc, many_thresholds);
	tcase_add_test(tc, slot_counts);
	tcase_add_test(tc, class0_skip);
	tcase_add_test(tc, live_conjuncts);
	tcase_add_test(tc, field_prefilter_every_mcv);
	suite_add_tcase(s, tc);
	return s;
}
