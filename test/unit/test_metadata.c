/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests of src/trace/metadata.c: stream.json (version 3) parsing. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/metadata.h"
#include "suites.h"
#include "testutil.h"
#include "util/macros.h"

#define P "t/stream.json"

/* The members of a valid "ovni" object, one key each. */
static const char *const base_keys[] = {
	"\"lib\":{\"version\":\"1.14.0\",\"commit\":\"abc\"}",
	"\"part\":\"thread\"",
	"\"tid\":11",
	"\"pid\":22",
	"\"loom\":\"node.x\"",
	"\"app_id\":3",
	"\"require\":{\"ovni\":\"1.1.0\"}",
	"\"loom_cpus\":[{\"index\":0,\"phyid\":0},{\"index\":1,\"phyid\":5}]",
	"\"finished\":1",
};

#define NKEYS (ARRAY_SIZE(base_keys))

/* {"version":3,"ovni":{...}} with key `skip` left out (NULL: none) and
 * `extra` members appended (NULL: none). Returns a static buffer. */
static const char *doc(const char *skip, const char *extra)
{
	static char buf[4096];
	size_t n = (size_t) snprintf(buf, sizeof(buf), "{\"version\":3,\"ovni\":{");
	int first = 1;
	for (size_t i = 0; i < NKEYS; i++) {
		if (skip) {
			char pre[64];
			snprintf(pre, sizeof(pre), "\"%s\":", skip);
			if (strncmp(base_keys[i], pre, strlen(pre)) == 0)
				continue;
		}
		n += (size_t) snprintf(buf + n, sizeof(buf) - n, "%s%s", first ? "" : ",", base_keys[i]);
		first = 0;
	}
	if (extra)
		n += (size_t) snprintf(buf + n, sizeof(buf) - n, "%s%s", first ? "" : ",", extra);
	snprintf(buf + n, sizeof(buf) - n, "}}");
	return buf;
}

static int parse(const char *text, struct weft_meta *m, struct weft_err *e)
{
	memset(e, 0, sizeof(*e));
	return meta_parse(m, text, strlen(text), P, e);
}

/* The text must be rejected with exactly `msg` (and leave m empty). */
static void expect_err(const char *text, const char *msg)
{
	struct weft_meta m;
	struct weft_err e;
	int rc = parse(text, &m, &e);
	ck_assert_msg(rc == -1, "accepted: %s", text);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_str_eq(e.msg, msg);
	ck_assert_ptr_null(m.loom);
	ck_assert_ptr_null(m.cpus);
	ck_assert_ptr_null(m.req);
	ck_assert_ptr_null(m.marks);
}

static void expect_ok(const char *text, struct weft_meta *m)
{
	struct weft_err e;
	int rc = parse(text, m, &e);
	ck_assert_msg(rc == 0, "rejected: %s: %s", text, e.msg);
}

/* ---- valid documents ------------------------------------------------------ */

/* The example of doc/formats/ovni.md §3.1. */
START_TEST(doc_example)
{
	const char *text =
		"{\n"
		"  \"version\": 3,\n"
		"  \"ovni\": {\n"
		"    \"lib\": { \"version\": \"1.14.0\", \"commit\": \"cf025e2\" },\n"
		"    \"part\": \"thread\",\n"
		"    \"tid\": 101000,\n"
		"    \"pid\": 101000,\n"
		"    \"loom\": \"node00\",\n"
		"    \"app_id\": 1,\n"
		"    \"rank\": 1,\n"
		"    \"nranks\": 4,\n"
		"    \"require\": { \"ovni\": \"1.1.0\", \"nosv\": \"2.7.0\" },\n"
		"    \"mark\": {\n"
		"      \"1\": { \"title\": \"Gen phase\", \"chan_type\": \"single\",\n"
		"             \"labels\": { \"1\": \"init\", \"2\": \"compute\" } },\n"
		"      \"2\": { \"title\": \"Gen region\", \"chan_type\": \"stack\" }\n"
		"    },\n"
		"    \"loom_cpus\": [\n"
		"      { \"index\": 0, \"phyid\": 0 }, { \"index\": 1, \"phyid\": 1 },\n"
		"      { \"index\": 2, \"phyid\": 2 }, { \"index\": 3, \"phyid\": 3 }\n"
		"    ],\n"
		"    \"finished\": 1\n"
		"  },\n"
		"  \"nosv\": { \"can_breakdown\": true }\n"
		"}\n";
	struct weft_meta m;
	expect_ok(text, &m);
	ck_assert_str_eq(m.loom, "node00");
	ck_assert_int_eq(m.pid, 101000);
	ck_assert_int_eq(m.tid, 101000);
	ck_assert_int_eq(m.has_app_id, 1);
	ck_assert_int_eq(m.app_id, 1);
	ck_assert_int_eq(m.has_rank, 1);
	ck_assert_int_eq(m.rank, 1);
	ck_assert_int_eq(m.nranks, 4);
	ck_assert_str_eq(m.lib_version, "1.14.0");
	ck_assert_str_eq(m.lib_commit, "cf025e2");
	ck_assert_int_eq(m.ncpus, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(m.cpus[i].index, i);
		ck_assert_int_eq(m.cpus[i].phyid, i);
	}
	ck_assert_int_eq(m.nreq, 2);
	ck_assert_str_eq(m.req[0].model, "ovni");
	ck_assert_str_eq(m.req[0].version, "1.1.0");
	ck_assert_str_eq(m.req[1].model, "nosv");
	ck_assert_str_eq(m.req[1].version, "2.7.0");
	ck_assert_int_eq(m.nmarks, 2);
	ck_assert_int_eq(m.marks[0].type, 1);
	ck_assert_str_eq(m.marks[0].title, "Gen phase");
	ck_assert_int_eq(m.marks[0].stack, 0);
	ck_assert_int_eq(m.marks[0].nlabels, 2);
	ck_assert_int_eq(m.marks[0].labels[0].value, 1);
	ck_assert_str_eq(m.marks[0].labels[0].label, "init");
	ck_assert_int_eq(m.marks[0].labels[1].value, 2);
	ck_assert_str_eq(m.marks[0].labels[1].label, "compute");
	ck_assert_int_eq(m.marks[1].type, 2);
	ck_assert_str_eq(m.marks[1].title, "Gen region");
	ck_assert_int_eq(m.marks[1].stack, 1);
	ck_assert_int_eq(m.marks[1].nlabels, 0);
	meta_free(&m);
	ck_assert_ptr_null(m.loom);
	ck_assert_int_eq(m.ncpus, 0);
}
END_TEST

START_TEST(minimal_without_optional_keys)
{
	/* app_id and loom_cpus are per-process / per-loom: a thread may omit them */
	struct weft_meta m;
	char text[4096];
	snprintf(text, sizeof(text), "%s", doc("app_id", NULL));
	const char *no_cpus = doc("loom_cpus", NULL);
	expect_ok(text, &m);
	ck_assert_int_eq(m.has_app_id, 0);
	ck_assert_int_eq(m.has_rank, 0);
	ck_assert_int_eq(m.ncpus, 2);
	ck_assert_int_eq(m.cpus[1].index, 1);
	ck_assert_int_eq(m.cpus[1].phyid, 5);
	ck_assert_int_eq(m.tid, 11);
	ck_assert_int_eq(m.pid, 22);
	ck_assert_str_eq(m.loom, "node.x");
	meta_free(&m);
	expect_ok(no_cpus, &m);
	ck_assert_int_eq(m.ncpus, 0);
	ck_assert_ptr_null(m.cpus);
	ck_assert_int_eq(m.has_app_id, 1);
	ck_assert_int_eq(m.app_id, 3);
	ck_assert_int_eq(m.nmarks, 0);
	meta_free(&m);
}
END_TEST

START_TEST(unknown_keys_ignored)
{
	struct weft_meta m;
	expect_ok(doc(NULL, "\"whatever\":[1,2,{\"x\":null}]"), &m);
	ck_assert_int_eq(m.tid, 11);
	meta_free(&m);
	expect_ok("{\"version\":3,\"nosv\":{\"can_breakdown\":false},\"ovni\":{\"lib\":{\"version\":\"1\","
		  "\"commit\":\"c\"},\"part\":\"thread\",\"tid\":-4,\"pid\":9,\"loom\":\"l\","
		  "\"require\":{},\"finished\":1.0}}",
		  &m);
	ck_assert_int_eq(m.tid, -4);
	ck_assert_int_eq(m.nreq, 0);
	meta_free(&m);
}
END_TEST

/* Keys of other models are kept, flattened, in file order (breakdown.c
 * reads nosv.can_breakdown; the hardware counters nosv.hwc.N.name). */
START_TEST(model_keys_kept)
{
	struct weft_meta m;
	expect_ok("{\"version\":3,\"nosv\":{\"can_breakdown\":true,\"hwc\":{\"0\":{\"name\":\"PAPI_TOT_INS\"},"
		  "\"1\":{\"name\":\"PAPI_TOT_CYC\"}},\"n\":-3,\"f\":1.5,\"a\":[1]},\"x\":null,"
		  "\"ovni\":{\"lib\":{\"version\":\"1\",\"commit\":\"c\"},\"part\":\"thread\",\"tid\":4,\"pid\":9,"
		  "\"loom\":\"l\",\"require\":{},\"finished\":1}}",
		  &m);
	static const struct {
		const char *key;
		int kind;
		int64_t i;
		const char *s;
	} want[] = {
		{"nosv", WEFT_KV_OBJECT, 0, NULL},
		{"nosv.can_breakdown", WEFT_KV_BOOL, 1, NULL},
		{"nosv.hwc", WEFT_KV_OBJECT, 0, NULL},
		{"nosv.hwc.0", WEFT_KV_OBJECT, 0, NULL},
		{"nosv.hwc.0.name", WEFT_KV_STR, 0, "PAPI_TOT_INS"},
		{"nosv.hwc.1", WEFT_KV_OBJECT, 0, NULL},
		{"nosv.hwc.1.name", WEFT_KV_STR, 0, "PAPI_TOT_CYC"},
		{"nosv.n", WEFT_KV_INT, -3, NULL},
		{"nosv.f", WEFT_KV_OTHER, 0, NULL},
		{"nosv.a", WEFT_KV_OTHER, 0, NULL},
		{"x", WEFT_KV_OTHER, 0, NULL},
	};
	ck_assert_int_eq(m.nkv, (int) (ARRAY_SIZE(want)));
	for (int i = 0; i < m.nkv; i++) {
		ck_assert_str_eq(m.kv[i].key, want[i].key);
		ck_assert_int_eq(m.kv[i].kind, want[i].kind);
		ck_assert_int_eq(m.kv[i].i, want[i].i);
		if (want[i].s)
			ck_assert_str_eq(m.kv[i].s, want[i].s);
	}
	ck_assert_ptr_eq(meta_kv_find(m.kv, m.nkv, "nosv.hwc.1.name"), &m.kv[6]);
	ck_assert_ptr_null(meta_kv_find(m.kv, m.nkv, "nosv.hwc.2.name"));
	ck_assert_ptr_null(meta_kv_find(m.kv, m.nkv, "ovni.tid")); /* ovni's own keys are parsed, not kept */
	meta_free(&m);
}
END_TEST

START_TEST(comments_tolerated)
{
	const char *text = "/* written by libovni */\n"
			   "{\"version\": 3, // the metadata version\n"
			   " \"ovni\": {\"lib\": {\"version\": \"1.14.0\", \"commit\": \"a//b\"},\n"
			   "  \"part\": \"thread\", /* only kind */ \"tid\": 7, \"pid\": 8,\n"
			   "  \"loom\": \"l/*x*/\" /* names may not hold a slash */,\n"
			   "  \"require\": {\"ovni\": \"1.1.0\"}, \"finished\": 1}}\n"
			   "// trailing\n";
	struct weft_meta m;
	struct weft_err e;
	/* the loom name keeps its comment-like text and is then refused for '/' */
	ck_assert_int_eq(parse(text, &m, &e), -1);
	ck_assert_str_eq(e.msg, P ": key 'ovni.loom': expected a non-empty name without '/', "
				  "found \"l/*x*/\"");
	const char *ok = "{\"version\": 3, // v\n"
			 " \"ovni\": {\"lib\": {\"version\": \"1.14.0\", \"commit\": \"a//b\"},\n"
			 "  /* thread part */ \"part\": \"thread\", \"tid\": 7, \"pid\": 8,\n"
			 "  \"loom\": \"n\", \"require\": {\"ovni\": \"1.1.0\"}, \"finished\": 1}}\n";
	expect_ok(ok, &m);
	ck_assert_str_eq(m.lib_commit, "a//b");
	ck_assert_str_eq(m.loom, "n");
	ck_assert_int_eq(m.tid, 7);
	meta_free(&m);
}
END_TEST

START_TEST(length_is_honoured)
{
	/* meta_parse reads exactly len bytes: trailing garbage is outside */
	const char *d = doc(NULL, NULL);
	size_t n = strlen(d);
	char *buf = malloc(n + 8);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, d, n);
	memcpy(buf + n, "garbage", 8);
	struct weft_meta m;
	struct weft_err e = {0};
	ck_assert_int_eq(meta_parse(&m, buf, n, P, &e), 0);
	ck_assert_int_eq(m.tid, 11);
	meta_free(&m);
	free(buf);
}
END_TEST

START_TEST(require_versions)
{
	static const char *const good[] = {"1.1.0", "0.0.0", "10.200.3000", "1.1.0-rc1", "2.7.0-dev.3"};
	static const char *const bad[] = {"1.1", "1", "", "1.1.0.0", "1..0", ".1.0", "1.1.",
					  "a.b.c", "v1.1.0", "1.1.0 ", "-1.1.0", "1.-1.0", "1.1-x.0"};
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		char ex[128];
		snprintf(ex, sizeof(ex), "\"require\":{\"ovni\":\"%s\"}", good[i]);
		struct weft_meta m;
		expect_ok(doc("require", ex), &m);
		ck_assert_int_eq(m.nreq, 1);
		ck_assert_str_eq(m.req[0].version, good[i]);
		meta_free(&m);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char ex[128], msg[256];
		snprintf(ex, sizeof(ex), "\"require\":{\"nosv\":\"%s\"}", bad[i]);
		snprintf(msg, sizeof(msg),
			 P ": key 'ovni.require.nosv': expected a version \"major.minor.patch\", "
			   "found \"%s\"",
			 bad[i]);
		expect_err(doc("require", ex), msg);
	}
	expect_err(doc("require", "\"require\":{\"ovni\":\"1.1.0\",\"nosv\":2}"),
		   P ": key 'ovni.require.nosv': expected a version string \"major.minor.patch\", "
		     "found a number");
	expect_err(doc("require", "\"require\":[\"ovni\"]"),
		   P ": key 'ovni.require': expected an object model -> version, found an array");
}
END_TEST

/* ---- missing keys ------------------------------------------------------------- */

START_TEST(missing_required_keys)
{
	static const struct {
		const char *key, *msg;
	} cases[] = {
		{"lib", P ": missing key 'ovni.lib' (expected an object {version, commit})"},
		{"part", P ": missing key 'ovni.part' (expected the string \"thread\")"},
		{"tid", P ": missing key 'ovni.tid' (expected a non-zero integer)"},
		{"pid", P ": missing key 'ovni.pid' (expected a non-zero integer)"},
		{"loom", P ": missing key 'ovni.loom' (expected a string)"},
		{"require", P ": missing key 'ovni.require' (expected an object model -> version)"},
		{"finished", P ": missing key 'ovni.finished': the thread never finished (libovni "
			       "writes finished=1 when the thread is freed; it probably crashed)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		expect_err(doc(cases[i].key, NULL), cases[i].msg);
}
END_TEST

START_TEST(missing_lib_members)
{
	expect_err(doc("lib", "\"lib\":{\"commit\":\"c\"}"),
		   P ": missing key 'ovni.lib.version' (expected a string)");
	expect_err(doc("lib", "\"lib\":{\"version\":\"1.14.0\"}"),
		   P ": missing key 'ovni.lib.commit' (expected a string)");
}
END_TEST

START_TEST(missing_version_and_ovni)
{
	expect_err("{\"ovni\":{}}", P ": missing key 'version' (expected 3)");
	expect_err("{\"version\":3}", P ": missing key 'ovni' (expected an object)");
	expect_err("{\"version\":3,\"ovni\":[]}", P ": key 'ovni': expected an object, found an array");
	/* keys are case-sensitive */
	expect_err("{\"Version\":3,\"ovni\":{}}", P ": missing key 'version' (expected 3)");
}
END_TEST

/* ---- wrong types and values ----------------------------------------------------- */

START_TEST(wrong_types)
{
	static const struct {
		const char *key, *repl, *msg;
	} cases[] = {
		{"tid", "\"tid\":\"11\"", P ": key 'ovni.tid': expected a non-zero integer, found a string"},
		{"tid", "\"tid\":1.5", P ": key 'ovni.tid': expected a non-zero integer, found 1.5"},
		{"tid", "\"tid\":null", P ": key 'ovni.tid': expected a non-zero integer, found null"},
		{"pid", "\"pid\":true", P ": key 'ovni.pid': expected a non-zero integer, found a boolean"},
		{"pid", "\"pid\":{}", P ": key 'ovni.pid': expected a non-zero integer, found an object"},
		{"loom", "\"loom\":3", P ": key 'ovni.loom': expected a string, found a number"},
		{"part", "\"part\":1", P ": key 'ovni.part': expected the string \"thread\", found a number"},
		{"part", "\"part\":\"process\"",
		 P ": key 'ovni.part': expected \"thread\" (the only stream part ovni defines), found "
		   "\"process\""},
		{"lib", "\"lib\":\"1.14.0\"",
		 P ": key 'ovni.lib': expected an object {version, commit}, found a string"},
		{"lib", "\"lib\":{\"version\":1,\"commit\":\"c\"}",
		 P ": key 'ovni.lib.version': expected a string, found a number"},
		{"app_id", "\"app_id\":0", P ": key 'ovni.app_id': expected an integer > 0, found 0"},
		{"app_id", "\"app_id\":-2", P ": key 'ovni.app_id': expected an integer > 0, found -2"},
		{"app_id", "\"app_id\":\"1\"",
		 P ": key 'ovni.app_id': expected an integer > 0, found a string"},
		{"app_id", "\"app_id\":2147483648",
		 P ": key 'ovni.app_id': expected an integer > 0, found 2147483648"},
		{"loom_cpus", "\"loom_cpus\":{}",
		 P ": key 'ovni.loom_cpus': expected an array of {index, phyid}, found an object"},
		{"loom_cpus", "\"loom_cpus\":[]",
		 P ": key 'ovni.loom_cpus': expected at least one CPU, found an empty array"},
		{"loom_cpus", "\"loom_cpus\":[{\"index\":0,\"phyid\":0},7]",
		 P ": key 'ovni.loom_cpus[1]': expected an object {index, phyid}, found a number"},
		{"loom_cpus", "\"loom_cpus\":[{\"index\":-1,\"phyid\":0}]",
		 P ": key 'ovni.loom_cpus[0].index': expected an integer >= 0, found -1"},
		{"loom_cpus", "\"loom_cpus\":[{\"index\":0,\"phyid\":0},{\"index\":1}]",
		 P ": missing key 'ovni.loom_cpus[1].phyid' (expected an integer >= 0)"},
		{"loom_cpus", "\"loom_cpus\":[{\"index\":0,\"phyid\":0.5}]",
		 P ": key 'ovni.loom_cpus[0].phyid': expected an integer >= 0, found 0.5"},
		{"loom_cpus", "\"loom_cpus\":[{\"index\":\"0\",\"phyid\":0}]",
		 P ": key 'ovni.loom_cpus[0].index': expected an integer >= 0, found a string"},
		{"finished", "\"finished\":0", P ": key 'ovni.finished': expected 1, found 0"},
		{"finished", "\"finished\":2", P ": key 'ovni.finished': expected 1, found 2"},
		{"finished", "\"finished\":true", P ": key 'ovni.finished': expected 1, found a boolean"},
		{"finished", "\"finished\":\"1\"", P ": key 'ovni.finished': expected 1, found a string"},
		{"mark", "\"mark\":[]", P ": key 'ovni.mark': expected an object type -> definition, "
					  "found an array"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		expect_err(doc(cases[i].key, cases[i].repl), cases[i].msg);
}
END_TEST

START_TEST(version_checks)
{
	expect_err("{\"version\":2,\"ovni\":{}}",
		   P ": key 'version': expected metadata version 3 (libovni >= 1.11), found 2");
	expect_err("{\"version\":4}",
		   P ": key 'version': expected metadata version 3 (libovni >= 1.11), found 4");
	expect_err("{\"version\":\"3\"}", P ": key 'version': expected 3, found a string");
	expect_err("{\"version\":3.5}", P ": key 'version': expected 3, found 3.5");
	/* 3.0 is the number 3 */
	struct weft_meta m;
	char text[4096];
	snprintf(text, sizeof(text), "%s", doc(NULL, NULL));
	char *v = strstr(text, "\"version\":3");
	ck_assert_ptr_nonnull(v);
	memmove(v + 13, v + 11, strlen(v + 11) + 1);
	memcpy(v + 11, ".0", 2);
	ck_assert_ptr_nonnull(strstr(text, "{\"version\":3.0,\"ovni\""));
	expect_ok(text, &m);
	meta_free(&m);
}
END_TEST

START_TEST(not_an_object)
{
	expect_err("[1,2]", P ": expected a JSON object at the top, found an array");
	expect_err("3", P ": expected a JSON object at the top, found a number");
	expect_err("\"x\"", P ": expected a JSON object at the top, found a string");
	expect_err("null", P ": expected a JSON object at the top, found null");
	expect_err("true", P ": expected a JSON object at the top, found a boolean");
}
END_TEST

START_TEST(invalid_json)
{
	struct weft_meta m;
	struct weft_err e;
	/* each with the byte offset of its error and what is there (the
	 * strict scan finds them before cJSON) */
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"", P ": byte offset 0: the text ends where a value was expected"},
		{"{", P ": byte offset 0: an object that never ends (no '}')"},
		{"{\"version\":3,}", P ": byte offset 13: a ',' before '}' (JSON has no trailing comma)"},
		{"{\"version\" 3}", P ": byte offset 11: expected ':' after the key"},
		{"}{", P ": byte offset 0: expected a value (an object, array, string, number, true, false or null)"},
		{"{\"a\":\"unterminated}", P ": byte offset 5: a string that never ends (no closing \")"},
		{"{'a':1}", P ": byte offset 1: expected a key (a string in double quotes), found '\''"},
		{"{\"version\":3 \"ovni\":{}}", P ": byte offset 13: expected ',' or '}'"},
		{"{\"a\": [1, 2,, 3]}",
		 P ": byte offset 12: expected a value (an object, array, string, number, true, false or null)"},
		/* a broken document with a comment still reports the first error */
		{"{\"a\": /* c */ nul}",
		 P ": byte offset 14: expected a value (an object, array, string, number, true, false or null)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(parse(bad[i].text, &m, &e), -1);
		ck_assert_int_eq(e.code, WEFT_EINPUT);
		ck_assert_str_eq(e.msg, bad[i].msg);
	}
}
END_TEST

START_TEST(ids_and_loom)
{
	expect_err(doc("tid", "\"tid\":0"), P ": key 'ovni.tid': expected a non-zero integer, found 0");
	expect_err(doc("pid", "\"pid\":0"), P ": key 'ovni.pid': expected a non-zero integer, found 0");
	expect_err(doc("loom", "\"loom\":\"a/b\""),
		   P ": key 'ovni.loom': expected a non-empty name without '/', found \"a/b\"");
	expect_err(doc("loom", "\"loom\":\"\""),
		   P ": key 'ovni.loom': expected a non-empty name without '/', found \"\"");
	/* 2^63 does not fit an int64_t: it must be refused, not wrapped */
	expect_err(doc("tid", "\"tid\":9223372036854775808"),
		   P ": key 'ovni.tid': expected a non-zero integer, found 9.2233720368547758e+18");
	expect_err(doc("pid", "\"pid\":1e300"),
		   P ": key 'ovni.pid': expected a non-zero integer, found 1.0000000000000001e+300");
	struct weft_meta m;
	expect_ok(doc("tid", "\"tid\":4611686018427387904"), &m);
	ck_assert(m.tid == 4611686018427387904ll);
	meta_free(&m);
	expect_ok(doc("pid", "\"pid\":-2147483648"), &m);
	ck_assert_int_eq(m.pid, -2147483648ll);
	meta_free(&m);
	expect_err(doc("pid", "\"pid\":-2147483649"),
		   P ": key 'ovni.pid': expected a non-zero integer, found -2147483649");
}
END_TEST

START_TEST(rank_rules)
{
	expect_err(doc(NULL, "\"rank\":0"),
		   P ": key 'ovni.nranks' is missing but 'ovni.rank' is present (expected both)");
	expect_err(doc(NULL, "\"rank\":4,\"nranks\":4"),
		   P ": key 'ovni.rank': expected a rank below nranks 4, found 4");
	expect_err(doc(NULL, "\"rank\":9,\"nranks\":4"),
		   P ": key 'ovni.rank': expected a rank below nranks 4, found 9");
	expect_err(doc(NULL, "\"rank\":-1,\"nranks\":4"),
		   P ": key 'ovni.rank': expected an integer >= 0, found -1");
	expect_err(doc(NULL, "\"rank\":0,\"nranks\":0"),
		   P ": key 'ovni.nranks': expected an integer > 0, found 0");
	expect_err(doc(NULL, "\"rank\":\"0\",\"nranks\":1"),
		   P ": key 'ovni.rank': expected an integer >= 0, found a string");
	struct weft_meta m;
	expect_ok(doc(NULL, "\"rank\":3,\"nranks\":4"), &m);
	ck_assert_int_eq(m.has_rank, 1);
	ck_assert_int_eq(m.rank, 3);
	ck_assert_int_eq(m.nranks, 4);
	meta_free(&m);
	/* nranks alone is ignored */
	expect_ok(doc(NULL, "\"nranks\":4"), &m);
	ck_assert_int_eq(m.has_rank, 0);
	meta_free(&m);
}
END_TEST

/* ---- marks ---------------------------------------------------------------------- */

START_TEST(mark_types)
{
	static const char *const bad[] = {"100", "-1", "x", "", "1.5", "99999999999999999999"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char ex[256], msg[256];
		snprintf(ex, sizeof(ex), "\"mark\":{\"%s\":{\"title\":\"t\",\"chan_type\":\"single\"}}",
			 bad[i]);
		snprintf(msg, sizeof(msg),
			 P ": key 'ovni.mark.%s': expected a decimal integer in 0..99, found \"%s\"",
			 bad[i], bad[i]);
		expect_err(doc(NULL, ex), msg);
	}
	struct weft_meta m;
	expect_ok(doc(NULL, "\"mark\":{\"0\":{\"title\":\"zero\",\"chan_type\":\"stack\"},"
			    "\"99\":{\"title\":\"last\",\"chan_type\":\"single\","
			    "\"labels\":{\"-5\":\"neg\",\"9223372036854775807\":\"max\"}}}"),
		  &m);
	ck_assert_int_eq(m.nmarks, 2);
	ck_assert_int_eq(m.marks[0].type, 0);
	ck_assert_int_eq(m.marks[0].stack, 1);
	ck_assert_int_eq(m.marks[1].type, 99);
	ck_assert_str_eq(m.marks[1].title, "last");
	ck_assert_int_eq(m.marks[1].nlabels, 2);
	ck_assert_int_eq(m.marks[1].labels[0].value, -5);
	ck_assert_str_eq(m.marks[1].labels[0].label, "neg");
	ck_assert(m.marks[1].labels[1].value == INT64_MAX);
	meta_free(&m);
}
END_TEST

START_TEST(mark_members)
{
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"queue\"}}"),
		   P ": key 'ovni.mark.1.chan_type': expected \"single\" or \"stack\", found \"queue\"");
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"Stack\"}}"),
		   P ": key 'ovni.mark.1.chan_type': expected \"single\" or \"stack\", found \"Stack\"");
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\"}}"),
		   P ": missing key 'ovni.mark.1.chan_type' (expected \"single\" or \"stack\")");
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":1}}"),
		   P ": key 'ovni.mark.1.chan_type': expected \"single\" or \"stack\", found a number");
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"chan_type\":\"single\"}}"),
		   P ": missing key 'ovni.mark.1.title' (expected a string)");
	expect_err(doc(NULL, "\"mark\":{\"7\":\"x\"}"),
		   P ": key 'ovni.mark.7': expected an object {title, chan_type, labels}, found a string");
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"single\",\"labels\":[]}}"),
		   P ": key 'ovni.mark.1.labels': expected an object value -> label, found an array");
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"single\","
			     "\"labels\":{\"1\":\"a\",\"x\":\"b\"}}}"),
		   P ": key 'ovni.mark.1.labels.x': expected a decimal integer in "
		     "-9223372036854775808..9223372036854775807, found \"x\"");
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"single\","
			     "\"labels\":{\"1\":2}}}"),
		   P ": key 'ovni.mark.1.labels.1': expected a string, found a number");
	/* a later bad mark after a good one: everything is released */
	expect_err(doc(NULL, "\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"single\","
			     "\"labels\":{\"1\":\"a\"}},\"2\":{\"title\":\"u\",\"chan_type\":\"x\"}}"),
		   P ": key 'ovni.mark.2.chan_type': expected \"single\" or \"stack\", found \"x\"");
}
END_TEST

/* ---- meta_load ------------------------------------------------------------------ */

START_TEST(load_files)
{
	char *dir = tu_mkdtemp();
	char *ok = tu_join(dir, "ok.json");
	char *empty = tu_join(dir, "empty.json");
	char *missing = tu_join(dir, "missing.json");
	tu_write_str(ok, doc(NULL, NULL));
	tu_write(empty, "", 0);
	struct weft_meta m;
	struct weft_err e = {0};
	ck_assert_int_eq(meta_load(&m, ok, &e), 0);
	ck_assert_int_eq(m.tid, 11);
	meta_free(&m);
	char want[512];
	ck_assert_int_eq(meta_load(&m, empty, &e), -1);
	snprintf(want, sizeof(want), "%s: empty file, expected a JSON object", empty);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(e.code, WEFT_EINPUT);
	ck_assert_int_eq(meta_load(&m, missing, &e), -1);
	snprintf(want, sizeof(want), "%s: cannot open for reading: No such file or directory", missing);
	ck_assert_str_eq(e.msg, want);
	ck_assert_int_eq(meta_load(&m, dir, &e), -1);
	snprintf(want, sizeof(want), "%s: a directory, not a regular file", dir);
	ck_assert_str_eq(e.msg, want);
	free(ok);
	free(empty);
	free(missing);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *metadata_suite(void)
{
	Suite *s = suite_create("metadata");
	TCase *tc = tcase_create("valid");
	tcase_add_test(tc, doc_example);
	tcase_add_test(tc, minimal_without_optional_keys);
	tcase_add_test(tc, unknown_keys_ignored);
	tcase_add_test(tc, model_keys_kept);
	tcase_add_test(tc, comments_tolerated);
	tcase_add_test(tc, length_is_honoured);
	tcase_add_test(tc, require_versions);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, missing_required_keys);
	tcase_add_test(tc, missing_lib_members);
	tcase_add_test(tc, missing_version_and_ovni);
	tcase_add_test(tc, wrong_types);
	tcase_add_test(tc, version_checks);
	tcase_add_test(tc, not_an_object);
	tcase_add_test(tc, invalid_json);
	tcase_add_test(tc, ids_and_loom);
	tcase_add_test(tc, rank_rules);
	tcase_add_test(tc, mark_types);
	tcase_add_test(tc, mark_members);
	tcase_add_test(tc, load_files);
	suite_add_tcase(s, tc);
	return s;
}
