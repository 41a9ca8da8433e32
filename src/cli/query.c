/* SPDX-License-Identifier: GPL-3.0-or-later */
/* query: event patterns over the merged trace, in one pass (doc/man/weft-query.1).
 *
 * Every pattern is checked on every event. Without state.<model> or cpu the
 * events come straight from the merge (clock offsets applied as weft emu
 * does); with them the emulator runs, with no Paraver output, and calls back
 * before each event reaches the models, so states are those before the
 * event. -i opens the interactive toplevel; it always runs the emulator, and
 * its prompt runs inside that callback while the run is paused. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "util/mapfile.h"
#include "emu/emu.h"
#include "emu/merge.h"
#include "clock/clocksetup.h"
#include "util/outbuf.h"
#include "query/query.h"
#include "trace/trace.h"

/* What the command line asked for (copied into the session). */
struct query_cmd {
	const char **files; /* -f FILE, in order: room for argc */
	int nfiles, json, interactive, keep_going, salvage;
	const char *clock_file;
	struct import_opts imp;
	int first; /* argv[first]: TRACE, then the patterns */
};

static int opt_file(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	struct query_cmd *k = dst;
	(void) cmd, (void) row;
	k->files[k->nfiles++] = arg;
	return 0;
}

#define K struct query_cmd
static const struct opt query_opts[] = {
	OPT_WHOLE("file", 'f', "FILE", opt_file, "read patterns from FILE, one per line ('#' comments)"),
	OPT_FLAG("interactive", 'i', K, interactive,
		 "the toplevel: add, remove, reset, go, step, current,\n"
		 "list, summary, rewind, help, quit (commands from\n"
		 "stdin; PATTERNs given are there from the start)"),
	OPT_FLAG("json", 0, K, json, "one JSON object per line, and a final summary object"),
	OPT_STRING("clock", 'c', "FILE", K, clock_file, "clock offset table (default TRACE/clock-offsets.txt)"),
	OPT_FLAG("keep-going", 'k', K, keep_going, "with the emulator: model errors become warnings"),
	OPT_FLAG("salvage", 0, K, salvage,
		 "read a stream cut mid-event up to its last whole event\n"
		 "and say on stderr what is dropped (as weft emu --salvage)"),
	OPT_IMPORT_ROWS(K, imp),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd query_cmdline = {
	.name = "query",
	.synopsis = "[--json] [-f FILE] [-c CLOCKFILE] [-k] [--salvage] [--format NAME] TRACE PATTERN...\n"
		    "-i [--json] [-f FILE] [-c CLOCKFILE] [-k] [--salvage] TRACE [PATTERN...]\n",
	.about = "Check event patterns against every event of TRACE in merged time order, in\n"
		 "one pass. A pattern is\n"
		 "  LABEL: when EXPR do ACTION, ...\n"
		 "EXPR combines conditions ATTR OP VALUE, true, has(ATTR) and isNamed(ATTR) with\n"
		 "not, and, or and parentheses (not > and > or). OP: = \\= != < > =< <= >= in\n"
		 "notin contains notcontains. do_synchro instead of do: the analyser resumes the\n"
		 "replay (weft serve; -i: a stop; here the same as do).\n"
		 "VALUE: 12, 10ms (time units ns us ms s), \"text\", word, [a, b, 3..9], 1s..2s.\n"
		 "ATTR: mcv model cat val model_name time clock chrono loom pid tid rank app cpu\n"
		 "stream state.ovni, or a payload field by its event-table name (field.NAME when\n"
		 "a built-in has the same name); desc (the event's sentence) can be printed.\n"
		 "ACTION: current(ATTR, ...) call(NAME) count count(ATTR) sum(ATTR) first last\n"
		 "stop.\n"
		 "Each matching event prints one line led by the labels of every pattern it\n"
		 "matched; counts and sums are printed at the end. See weft-query(1).\n",
	.opts = query_opts,
	.in_order = 1, /* a pattern may start with '-' */
};

static const char repl_help[] = "commands:\n"
				"  add LABEL: when EXPR do ACTIONS   add a pattern (checked from the next event)\n"
				"  remove LABEL                      remove a pattern\n"
				"  list                              show the patterns\n"
				"  go                                run to the next match of a pattern with stop\n"
				"                                    or do_synchro (or to the end of the trace)\n"
				"  step                              move to the next event\n"
				"  current [(ATTR, ...)]             attributes of the current event (states are\n"
				"                                    those before it)\n"
				"  summary                           counts and sums so far\n"
				"  reset                             remove every pattern\n"
				"  rewind                            back to the start of the trace, counts cleared\n"
				"  help                              this list\n"
				"  quit                              leave\n";

enum { MODE_GO, MODE_STEP };
enum { WANT_NONE, WANT_QUIT, WANT_REWIND };
enum { AT_START, AT_EVENT, AT_END };

struct qsession {
	struct query q;
	struct cli_models models; /* weft's own: query has no --model */
	struct outbuf out;
	const char *trace;
	const char *clock_file;
	struct import_opts imp;
	int keep_going, interactive, tty, use_emu;
	/* --salvage, and whether its report was printed (once: a rewind
	 * opens the trace again) */
	int salvage, said_salvage;
	/* the source */
	int open;
	struct emu emu;
	struct weft_trace tr;
	struct weft_merge m;
	/* interactive */
	int mode, want, where;
	const struct weft_ev *cur;
	uint64_t cur_chrono;
	struct weft_err err;
	int failed;
};

/* ---- sources ------------------------------------------------------------- */

/* The clocks of weft emu, for the plain merge. */
static int plain_offsets(struct weft_trace *t, const char *clock_file, struct weft_err *e)
{
	struct clock_opts co = {.file = clock_file, .quiet = 1, .sync_file = 1, .say = 1};
	return clock_setup(t, &co, e);
}

static int on_event(void *arg, const struct weft_ev *ev);

/* A pattern names a loom or an MCV the trace lacks. */
static void say_missing(void *arg, const char *text)
{
	(void) arg;
	fprintf(stderr, "weft: warning: %s\n", text);
}

/* --salvage: what the open trace t dropped, on stderr, the first time */
static void salvage_say(struct qsession *s, const struct weft_trace *t)
{
	if (!s->salvage || s->said_salvage)
		return;
	cli_salvage_report("query", t);
	s->said_salvage = 1;
}

static int source_open(struct qsession *s, struct weft_err *e)
{
	s->open = 1;
	if (s->use_emu) {
		struct emu_opts o = {0};
		o.clock_file = s->clock_file;
		o.sinks.n = 0;
		cli_registry(&o, &s->models);
		o.keep_going = s->keep_going;
		o.quiet = 1;
		o.salvage = s->salvage;
		o.imp = s->imp;
		if (emu_open(&s->emu, s->trace, &o, e))
			return -1;
		salvage_say(s, &s->emu.tr);
		s->emu.obs.on_event = on_event;
		s->emu.obs.arg = s;
		if (query_bind(&s->q, &s->emu.tr, &s->emu, e))
			return -1;
		query_check_names(&s->q, say_missing, NULL);
		query_start(&s->q, query_merge_t0(&s->emu.merge));
		return 0;
	}
	struct trace_opts to = {.mode = STREAM_ORDERED, .import = &s->imp, .salvage = s->salvage};
	cli_trace_models(&to, &s->models);
	if (trace_open(&s->tr, s->trace, &to, e)) {
		s->open = 0;
		return -1;
	}
	salvage_say(s, &s->tr);
	if (plain_offsets(&s->tr, s->clock_file, e))
		return -1;
	if (merge_init(&s->m, s->tr.streams, s->tr.nstreams, e))
		return -1;
	if (query_bind(&s->q, &s->tr, NULL, e))
		return -1;
	query_check_names(&s->q, say_missing, NULL);
	query_start(&s->q, query_merge_t0(&s->m));
	return 0;
}

static void source_close(struct qsession *s)
{
	if (!s->open)
		return;
	if (s->use_emu) {
		emu_free(&s->emu);
	} else {
		merge_free(&s->m);
		trace_close(&s->tr);
	}
	s->open = 0;
}

/* Run to the end or until stopped; 0 or -1. */
static int source_run(struct qsession *s, struct weft_err *e)
{
	if (s->use_emu)
		return emu_run(&s->emu, e);
	struct query *q = &s->q;
	struct weft_ev *ev;
	int r;
	if (s->interactive) {
		while ((r = merge_next(&s->m, &ev, e)) > 0)
			if (on_event(s, ev))
				break;
		return r < 0 ? -1 : 0;
	}
	while ((r = merge_next(&s->m, &ev, e)) > 0)
		if (query_feed(q, ev))
			break;
	return r < 0 ? -1 : 0;
}

/* ---- interactive toplevel ------------------------------------------------- */

static void say(struct qsession *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct qsession *s, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ob_str(&s->out, buf);
}

static void flush_out(struct qsession *s)
{
	ob_drain(&s->out);
}

static void show_event(struct qsession *s, const char *label, const struct qattr *attrs, int n)
{
	const char *labels[1] = {label};
	query_print_event(&s->q, s->cur, s->cur_chrono, labels, 1, attrs, n);
}

static void cmd_current(struct qsession *s, const char *rest)
{
	if (s->where != AT_EVENT) {
		say(s, "error: no current event (%s)\n",
		    s->where == AT_START ? "at the start of the trace: step or go first" : "at the end of the trace");
		return;
	}
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (!*rest) {
		const struct qattr *def;
		int n = query_default_attrs(&s->q, 1, &def);
		show_event(s, "current", def, n);
		return;
	}
	char *text = weft_xstrdup(rest);
	size_t n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t'))
		text[--n] = '\0';
	/* current(a, b) or current a, b */
	char *body = text;
	if (*body == '(') {
		if (n < 2 || text[n - 1] != ')') {
			say(s, "error: current: expected ')' at the end of \"%s\"\n", text);
			free(text);
			return;
		}
		text[n - 1] = '\0';
		body++;
	}
	struct qattr *attrs;
	struct weft_err e = {0};
	int na = query_parse_attrs(&s->q, body, "current", &attrs, &e);
	if (na < 0) {
		say(s, "error: %s\n", e.msg);
	} else {
		show_event(s, "current", attrs, na);
		query_free_attrs(attrs, na);
	}
	free(text);
}

/* Read commands until one moves the run (go, step), resets or quits. */
static void repl(struct qsession *s)
{
	char *line = NULL;
	size_t cap = 0;
	for (;;) {
		if (s->tty)
			ob_str(&s->out, "weft> ");
		flush_out(s);
		ssize_t n = getline(&line, &cap, stdin);
		if (n < 0) {
			if (s->tty)
				say(s, "\n");
			s->want = WANT_QUIT;
			break;
		}
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' ||
				 line[n - 1] == '\t'))
			line[--n] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		size_t w = 0;
		while (p[w] && p[w] != ' ' && p[w] != '\t' && p[w] != '(')
			w++;
		char *rest = p + w;
		while (*rest == ' ' || *rest == '\t')
			rest++;
#define IS(word) (w == strlen(word) && strncasecmp(p, word, w) == 0)
		if (IS("quit") || IS("exit") || IS("q")) {
			s->want = WANT_QUIT;
			break;
		} else if (IS("help") || IS("?")) {
			ob_str(&s->out, repl_help);
		} else if (IS("add")) {
			struct weft_err e = {0};
			if (query_add(&s->q, rest, "pattern", &e) == 0)
				say(s, "added %s\n", s->q.pat[s->q.npat - 1]->label);
			else
				say(s, "error: %s\n", e.msg);
		} else if (IS("remove")) {
			if (!*rest)
				say(s, "error: remove: expected a LABEL\n");
			else if (query_remove(&s->q, rest) == 0)
				say(s, "removed %s\n", rest);
			else
				say(s, "error: remove: no pattern is labelled \"%s\"\n", rest);
		} else if (IS("list")) {
			if (!s->q.npat)
				say(s, "no patterns\n");
			for (int k = 0; k < s->q.npat; k++)
				say(s, "%s\n", s->q.pat[k]->text);
		} else if (IS("reset")) {
			if (*rest) {
				say(s, "error: reset takes no argument\n");
				continue;
			}
			int np = s->q.npat;
			while (s->q.npat)
				query_remove(&s->q, s->q.pat[0]->label);
			say(s, "reset: removed %d pattern%s\n", np, np == 1 ? "" : "s");
		} else if (IS("rewind")) {
			s->want = WANT_REWIND;
			break;
		} else if (IS("go") || IS("step")) {
			if (*rest) {
				say(s, "error: %.*s takes no argument\n", (int) w, p);
				continue;
			}
			if (s->where == AT_END) {
				say(s, "end of trace (rewind goes back to the start)\n");
				continue;
			}
			s->mode = IS("go") ? MODE_GO : MODE_STEP;
			break;
		} else if (IS("current")) {
			cmd_current(s, rest);
		} else if (IS("summary")) {
			query_summary(&s->q, s->q.chrono);
		} else {
			say(s, "error: unknown command \"%.*s\" (help lists the commands)\n", (int) w, p);
		}
#undef IS
	}
	free(line);
	flush_out(s);
}

static int on_event(void *arg, const struct weft_ev *ev)
{
	struct qsession *s = arg;
	struct query *q = &s->q;
	if (!s->interactive)
		return query_feed(q, ev);
	uint64_t mk = query_match(q, ev);
	if (mk)
		query_act(q, ev, mk);
	int stop = q->stopped || (mk & q->syncmask);
	q->stopped = 0;
	if (s->mode != MODE_STEP && !stop)
		return 0;
	s->cur = ev;
	s->cur_chrono = q->chrono - 1;
	s->where = AT_EVENT;
	const struct qattr *def;
	int n = query_default_attrs(q, 0, &def);
	show_event(s, s->mode == MODE_STEP ? "step" : "stop", def, n);
	repl(s);
	s->cur = NULL;
	return s->want != WANT_NONE;
}

static int run_interactive(struct qsession *s)
{
	for (;;) {
		struct weft_err e = {0};
		if (source_open(s, &e)) {
			source_close(s);
			WEFT_IGNORED(ob_flush(&s->out, &e, "standard output")); /* the first error is reported */
			return cli_report(&e);
		}
		s->want = WANT_NONE;
		s->where = AT_START;
		if (s->tty)
			say(s, "weft query: %s, %d patterns (help lists the commands)\n", s->trace, s->q.npat);
		repl(s);
		if (s->want == WANT_NONE) {
			if (source_run(s, &e)) {
				source_close(s);
				struct weft_err we = {0};
				WEFT_IGNORED(ob_flush(&s->out, &we, "standard output"));
				return cli_report(&e);
			}
			if (s->want == WANT_NONE) {
				s->where = AT_END;
				say(s, "end of trace after %llu events\n", (unsigned long long) s->q.chrono);
				query_summary(&s->q, s->q.chrono);
				repl(s);
			}
		}
		source_close(s);
		if (s->want == WANT_QUIT)
			break;
	}
	struct weft_err e = {0};
	if (ob_flush(&s->out, &e, "standard output"))
		return cli_report(&e);
	return 0;
}

/* ---- command ------------------------------------------------------------- */

static int add_file(struct qsession *s, const char *path, int *num, struct weft_err *e)
{
	/* read whole, as every input: a regular file, bounded (never
	 * /dev/zero or a FIFO); a pattern file is part of the command */
	size_t len;
	char *text = input_slurp(path, INPUT_TEXT_MAX, "a pattern file", &len, e);
	if (!text) {
		e->code = WEFT_EUSAGE;
		return -1;
	}
	int lineno = 0, rc = 0;
	for (char *line = text; line < text + len && rc == 0;) {
		char *nl = memchr(line, '\n', (size_t) (text + len - line));
		size_t n = nl ? (size_t) (nl - line) : (size_t) (text + len - line);
		char *next = nl ? nl + 1 : text + len;
		lineno++;
		line[n] = '\0';
		while (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		if (memchr(line, '\0', n)) {
			rc = weft_fail(e, WEFT_EUSAGE, "%s line %d: a NUL byte in a pattern", path, lineno);
			break;
		}
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p && *p != '#') {
			char where[4200];
			snprintf(where, sizeof(where), "pattern %d (%s line %d)", ++*num, path, lineno);
			if (query_add(&s->q, line, where, e))
				rc = -1;
		}
		line = next;
	}
	free(text);
	return rc;
}

/* The patterns of -f FILEs, then of the arguments, into s->q. */
static int add_patterns(struct qsession *s, const struct query_cmd *k, int argc, char **argv, int first,
			struct weft_err *e)
{
	int num = 0;
	for (int i = 0; i < k->nfiles; i++)
		if (add_file(s, k->files[i], &num, e))
			return -1;
	for (int i = first; i < argc; i++) {
		char where[32];
		snprintf(where, sizeof(where), "pattern %d", ++num);
		if (query_add(&s->q, argv[i], where, e))
			return -1;
	}
	return 0;
}

/* The patterns over the whole trace (not interactive). */
static int run_batch(struct qsession *s)
{
	struct weft_err e = {0};
	int rc = 0;
	s->use_emu = s->q.needs_emu;
	if (source_open(s, &e) || source_run(s, &e))
		rc = -1;
	else
		query_summary(&s->q, s->q.chrono);
	struct weft_err we = {0};
	if (ob_flush(&s->out, &we, "standard output") && rc == 0) {
		e = we;
		rc = -1;
	}
	source_close(s);
	return rc ? cli_report(&e) : 0;
}

int cmd_query(int argc, char **argv)
{
	struct query_cmd k = {.files = weft_xcalloc((size_t) argc + 1, sizeof(char *))};
	struct qsession *s = NULL;
	struct weft_err e = {0};
	int rc = opts_parse(&query_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		goto out;
	if (k.first >= argc) {
		rc = cli_usage_error("query", "expected a TRACE directory");
		goto out;
	}
	if (!k.interactive && k.first + 1 >= argc && k.nfiles == 0) {
		rc = cli_usage_error("query", "expected at least one PATTERN after TRACE (or -f FILE)");
		goto out;
	}
	s = weft_xcalloc(1, sizeof(*s));
	s->trace = argv[k.first];
	s->clock_file = k.clock_file;
	s->imp = k.imp;
	s->keep_going = k.keep_going;
	s->salvage = k.salvage;
	s->interactive = k.interactive;
	if (cli_models_make(&s->models, &e) || query_init(&s->q, &s->models.set, &e)) {
		rc = cli_report(&e);
		cli_models_free(&s->models);
		free(s);
		s = NULL;
		goto out;
	}
	s->q.json = k.json;
	if (add_patterns(s, &k, argc, argv, k.first + 1, &e)) {
		rc = cli_report(&e);
		goto out;
	}
	ob_init(&s->out, STDOUT_FILENO, 1 << 20);
	s->q.out = &s->out;
	if (s->interactive) {
		s->tty = isatty(STDIN_FILENO);
		s->use_emu = 1;
		rc = run_interactive(s);
	} else {
		rc = run_batch(s);
	}
	ob_free(&s->out);
out:
	if (s) {
		query_free(&s->q);
		cli_models_free(&s->models);
	}
	free(s);
	free(k.files);
	return rc;
}
