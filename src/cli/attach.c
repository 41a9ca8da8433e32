/* SPDX-License-Identifier: GPL-3.0-or-later */
/* attach: weft query -i's toplevel over a weft serve socket (weft-attach(1)).
 *
 * One analyser: the commands become requests of doc/driver.md, the
 * server's JSON lines are printed as weft query prints text. At the prompt
 * the replay waits for this analyser (at the start, or stopped at one of
 * its do_synchro patterns, stop patterns or steps); go and step resume
 * it and print the messages up to the next stop or the end. Attached to a
 * replay already running, the prompt does not hold it: go then only waits
 * for the next stop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/jline.h"
#include "cli/opts.h"
#include "query/query.h"
#include "util/outbuf.h"
#include "util/usock.h"

static const struct opt attach_opts[] = {
	OPT_HELPROW,
	OPT_ENDROW,
};

const struct optcmd attach_cmdline = {
	.name = "attach",
	.synopsis = "SOCKET\n",
	.about = "Connect to a weft serve socket as one analyser and read commands from\n"
		 "standard input, as weft query -i does: add, remove, reset, list, go, step,\n"
		 "current, summary, help, quit. The events of its patterns are printed as weft\n"
		 "query prints them; at a stop (a do_synchro or stop pattern, or a step) the\n"
		 "replay waits for the next go or step. Quitting counts as go. See\n"
		 "weft-attach(1).\n",
	.opts = attach_opts,
};

static const char help_text[] =
	"commands:\n"
	"  add LABEL: when EXPR do ACTIONS   add a pattern (checked from the next event;\n"
	"                                    do_synchro: the replay stops at its matches)\n"
	"  remove LABEL                      remove a pattern\n"
	"  reset                             remove every pattern\n"
	"  list                              show the patterns\n"
	"  go                                let the replay run to your next stop (or the end)\n"
	"  step                              stop at the next event\n"
	"  current [(ATTR, ...)]             attributes of the event the replay stopped at\n"
	"  summary                           counts and sums so far\n"
	"  help                              this list\n"
	"  quit                              leave (the replay goes on without you)\n";

struct attach {
	int fd;
	char *buf; /* what the socket gave, from pos to len */
	size_t pos, len, cap;
	struct outbuf out;
	int stopped; /* the replay waits for us */
	int stepping; /* the stop to come is a step's */
	int ended;
	int failed; /* the connection broke: exit 1 */
	struct jv summary; /* the end's summary, printed after the end line */
};

/* ---- the socket --------------------------------------------------------------- */

/* The next line from the server into *v: 0, or -1 at its end or an error. */
static int next_msg(struct attach *a, struct jv *v)
{
	for (;;) {
		char *nl = a->len > a->pos ? memchr(a->buf + a->pos, '\n', a->len - a->pos) : NULL;
		if (nl) {
			size_t n = (size_t) (nl - (a->buf + a->pos));
			int r = jv_parse(a->buf + a->pos, n, v);
			a->pos += n + 1;
			if (r == 0 && v->t == JV_OBJ)
				return 0;
			if (r == 0)
				jv_free(v);
			continue; /* not ours to read: skipped */
		}
		if (a->pos > 0) {
			memmove(a->buf, a->buf + a->pos, a->len - a->pos);
			a->len -= a->pos;
			a->pos = 0;
		}
		if (a->len == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 65536;
			a->buf = weft_xrealloc(a->buf, a->cap);
		}
		ssize_t r = read(a->fd, a->buf + a->len, a->cap - a->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		a->len += (size_t) r;
	}
}

static int send_line(struct attach *a, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = send(a->fd, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t) w;
	}
	return 0;
}

/* ---- printing ----------------------------------------------------------------- */

static void put_value(struct outbuf *o, const struct jv *v)
{
	if (v->t == JV_STR)
		query_put_text(o, v->s, v->n);
	else if (v->t == JV_NULL)
		ob_str(o, "-");
	else if (v->s)
		ob_strn(o, v->s, v->n);
}

/* "k=v k=v" of an object's members (but the skipped ones), each after a space. */
static void put_members(struct outbuf *o, const struct jv *obj, int skip_meta)
{
	for (int i = 0; i < obj->nkid; i++) {
		const struct jv *m = &obj->kid[i];
		if (skip_meta && (!strcmp(m->key, "labels") || !strcmp(m->key, "stop") || !strcmp(m->key, "calls")))
			continue;
		ob_str(o, " ");
		ob_str(o, m->key);
		ob_str(o, "=");
		put_value(o, m);
	}
}

/* An event line as weft query's text: "l1,l2: calls=f a=v ...". */
static void print_event(struct attach *a, const struct jv *ev)
{
	const struct jv *labels = jv_get(ev, "labels"), *calls = jv_get(ev, "calls");
	if (!labels || labels->nkid == 0)
		return; /* a step's own line: shown by show_stop */
	for (int i = 0; i < labels->nkid; i++) {
		if (i)
			ob_str(&a->out, ",");
		put_value(&a->out, &labels->kid[i]);
	}
	ob_str(&a->out, ":");
	if (calls && calls->nkid) {
		ob_str(&a->out, " calls=");
		for (int i = 0; i < calls->nkid; i++) {
			if (i)
				ob_str(&a->out, ",");
			put_value(&a->out, &calls->kid[i]);
		}
	}
	put_members(&a->out, ev, 1);
	ob_str(&a->out, "\n");
}

/* The summary object's patterns as weft query's end lines. */
static void print_summary(struct attach *a, const struct jv *sum)
{
	const struct jv *pats = jv_get(sum, "patterns");
	for (int i = 0; pats && i < pats->nkid; i++) {
		const struct jv *p = &pats->kid[i], *label = jv_get(p, "label");
		for (int j = 0; label && j < p->nkid; j++) {
			const struct jv *m = &p->kid[j];
			int grouped = strncmp(m->key, "count(", 6) == 0;
			if (strcmp(m->key, "count") && !grouped && strncmp(m->key, "sum(", 4))
				continue;
			for (int g = 0; g < (grouped ? m->nkid : 1); g++) {
				put_value(&a->out, label);
				ob_str(&a->out, ": ");
				ob_str(&a->out, m->key);
				ob_str(&a->out, " ");
				if (grouped && m->kid[g].nkid == 2) {
					put_value(&a->out, &m->kid[g].kid[0]);
					ob_str(&a->out, " ");
					put_value(&a->out, &m->kid[g].kid[1]);
				} else if (!grouped) {
					put_value(&a->out, m);
				}
				ob_str(&a->out, "\n");
			}
		}
	}
}

static void say(struct attach *a, const char *pre, const char *s)
{
	ob_str(&a->out, pre);
	ob_str(&a->out, s);
	ob_str(&a->out, "\n");
}

/* ---- messages ----------------------------------------------------------------- */

/* A message that is no reply: print it, note stops and the end (a summary
 * is taken: *m is left empty). */
static void notice(struct attach *a, struct jv *m)
{
	const struct jv *x;
	if (jv_get(m, "labels")) {
		print_event(a, m);
		if ((x = jv_get(m, "stop")) && x->t == JV_BOOL && x->s[0] == 't')
			a->stopped = 1;
	} else if ((x = jv_get(m, "summary"))) {
		jv_free(&a->summary);
		a->summary = *m;
		memset(m, 0, sizeof(*m));
	} else if ((x = jv_get(m, "end"))) {
		const struct jv *n = jv_get(x, "events"), *err = jv_get(x, "error");
		ob_str(&a->out, "end of trace after ");
		if (n)
			put_value(&a->out, n);
		ob_str(&a->out, " events\n");
		if (err && err->t == JV_STR)
			say(a, "error: the replay failed: ", err->s);
		const struct jv *s = jv_get(&a->summary, "summary");
		if (s)
			print_summary(a, s);
		a->ended = 1;
	}
}

/* Send a request and print what comes until its reply, returned in *r
 * (0), or -1 when the connection ends first. */
static int request(struct attach *a, const char *name, const char *arg_json, struct jv *r)
{
	struct outbuf *o = &a->out;
	ob_drain(o);
	char *line = weft_xasprintf("{\"%s\":%s}\n", name, arg_json);
	int rc = send_line(a, line, strlen(line));
	free(line);
	while (rc == 0) {
		if (next_msg(a, r)) {
			rc = -1;
			break;
		}
		if (jv_get(r, "ok") || jv_get(r, "error"))
			return 0;
		notice(a, r);
		jv_free(r);
		if (a->ended)
			rc = -1;
	}
	if (!a->ended)
		a->failed = 1;
	return -1;
}

/* A text as a JSON string (the argument of a request). */
static char *json_string(const char *s)
{
	struct outbuf o;
	ob_init(&o, OB_GROW, 256);
	query_put_json_str(&o, s, strlen(s));
	ob_room(&o, 1);
	o.buf[o.len] = '\0';
	return o.buf; /* freed by the caller */
}

/* Request with a text argument; prints an error reply. 1: ok (reply in *r). */
static int ask(struct attach *a, const char *name, const char *text, struct jv *r)
{
	char *arg = text ? json_string(text) : weft_xstrdup("true");
	int rc = request(a, name, arg, r);
	free(arg);
	if (rc)
		return 0;
	const struct jv *err = jv_get(r, "error");
	if (err) {
		say(a, "error: ", err->t == JV_STR ? err->s : "?");
		jv_free(r);
		return 0;
	}
	return 1;
}

/* After a stop: its line of default attributes, as weft query -i shows it. */
static void show_stop(struct attach *a)
{
	struct jv r;
	if (request(a, "current", "[\"chrono\",\"time\",\"mcv\",\"loom\",\"pid\",\"tid\",\"desc\"]", &r))
		return;
	const struct jv *vals = jv_get(&r, "values");
	if (vals) {
		ob_str(&a->out, a->stepping ? "step:" : "stop:");
		put_members(&a->out, vals, 0);
		ob_str(&a->out, "\n");
	}
	a->stepping = 0;
	jv_free(&r);
}

/* Let the replay run to this analyser's next stop or the end. */
static void run(struct attach *a)
{
	ob_drain(&a->out);
	while (!a->stopped && !a->ended) {
		struct jv m;
		if (next_msg(a, &m)) {
			a->failed = !a->ended;
			return;
		}
		notice(a, &m);
		jv_free(&m);
	}
	if (a->stopped)
		show_stop(a);
}

/* ---- commands ----------------------------------------------------------------- */

static void cmd_current(struct attach *a, char *rest)
{
	size_t n = strlen(rest);
	if (*rest == '(') {
		if (n < 2 || rest[n - 1] != ')') {
			say(a, "error: current: expected ')' at the end of ", rest);
			return;
		}
		rest[n - 1] = '\0';
		rest++;
	}
	struct jv r;
	if (!ask(a, "current", rest, &r))
		return;
	const struct jv *vals = jv_get(&r, "values");
	ob_str(&a->out, "current:");
	if (vals)
		put_members(&a->out, vals, 0);
	ob_str(&a->out, "\n");
	jv_free(&r);
}

/* One command; 1 when it quits. */
static int command(struct attach *a, char *p)
{
	size_t w = 0;
	while (p[w] && p[w] != ' ' && p[w] != '\t' && p[w] != '(')
		w++;
	char *rest = p + w;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	struct jv r;
#define IS(word) (w == strlen(word) && strncasecmp(p, word, w) == 0)
	if (IS("quit") || IS("exit") || IS("q"))
		return 1;
	if (IS("help") || IS("?")) {
		ob_str(&a->out, help_text);
	} else if (IS("add") || IS("remove")) {
		int add = IS("add");
		if (ask(a, add ? "add" : "remove", rest, &r)) {
			const struct jv *l = jv_get(&r, "label");
			say(a, add ? "added " : "removed ", l && l->t == JV_STR ? l->s : "?");
			jv_free(&r);
		}
	} else if (IS("reset")) {
		if (ask(a, "reset", NULL, &r)) {
			const struct jv *n = jv_get(&r, "removed");
			ob_str(&a->out, "reset: removed ");
			if (n)
				put_value(&a->out, n);
			ob_str(&a->out, n && n->n == 1 && n->s[0] == '1' ? " pattern\n" : " patterns\n");
			jv_free(&r);
		}
	} else if (IS("list")) {
		if (ask(a, "list", NULL, &r)) {
			const struct jv *ps = jv_get(&r, "patterns");
			if (!ps || !ps->nkid)
				say(a, "", "no patterns");
			for (int i = 0; ps && i < ps->nkid; i++) {
				const struct jv *t = jv_get(&ps->kid[i], "pattern");
				if (t && t->t == JV_STR)
					say(a, "", t->s);
			}
			jv_free(&r);
		}
	} else if (IS("go") || IS("step")) {
		int step = IS("step");
		if (*rest) {
			say(a, "error: ", step ? "step takes no argument" : "go takes no argument");
		} else if (step || a->stopped) {
			if (ask(a, step ? "step" : "go", NULL, &r)) {
				a->stopped = 0;
				a->stepping = step;
				jv_free(&r);
				run(a);
			}
		} else {
			run(a);
		}
	} else if (IS("current")) {
		cmd_current(a, rest);
	} else if (IS("summary")) {
		if (ask(a, "summary", NULL, &r)) {
			const struct jv *s = jv_get(&r, "summary");
			if (s)
				print_summary(a, s);
			jv_free(&r);
		}
	} else {
		char word[64];
		snprintf(word, sizeof(word), "%.*s", (int) (w < 40 ? w : 40), p);
		ob_str(&a->out, "error: unknown command \"");
		ob_str(&a->out, word);
		ob_str(&a->out, "\" (help lists the commands)\n");
	}
#undef IS
	return a->ended || a->failed;
}

static void repl(struct attach *a, int tty)
{
	char *line = NULL;
	size_t cap = 0;
	while (!a->ended && !a->failed) {
		if (tty)
			ob_str(&a->out, "weft> ");
		ob_drain(&a->out);
		ssize_t n = getline(&line, &cap, stdin);
		if (n < 0)
			break;
		while (n > 0 &&
		       (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (command(a, p))
			break;
	}
	free(line);
}

int cmd_attach(int argc, char **argv)
{
	int first;
	int rc = opts_parse(&attach_cmdline, NULL, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (first >= argc)
		return cli_usage_error("attach", "expected the SOCKET of a weft serve");
	if (first + 1 < argc)
		return cli_usage_error("attach", "expected one SOCKET, found also '%s'", argv[first + 1]);
	struct weft_err e = {0};
	struct attach a = {0};
	a.fd = usock_connect(argv[first], &e);
	if (a.fd < 0)
		return cli_report(&e);
	ob_init(&a.out, STDOUT_FILENO, 1 << 16);
	struct jv hello;
	const struct jv *h = NULL, *at = NULL;
	if (next_msg(&a, &hello) == 0)
		h = jv_get(&hello, "hello");
	if (!h || !(at = jv_get(h, "at")) || at->t != JV_STR) {
		weft_fail(&e, WEFT_EINPUT, "%s: no weft serve there (no hello)", argv[first]);
		rc = cli_report(&e);
	} else {
		a.stopped = strcmp(at->s, "start") == 0;
		int tty = isatty(STDIN_FILENO);
		if (tty) {
			const struct jv *t = jv_get(h, "trace");
			ob_str(&a.out, "weft attach: ");
			ob_str(&a.out, t && t->t == JV_STR ? t->s : "?");
			ob_str(&a.out, a.stopped ? ", at the start" : ", running");
			ob_str(&a.out, " (help lists the commands)\n");
		}
		repl(&a, tty);
		rc = 0;
		if (a.failed) {
			weft_fail(&e, WEFT_EINPUT, "%s: the server closed the connection", argv[first]);
			ob_drain(&a.out);
			rc = cli_report(&e);
		}
	}
	jv_free(&hello);
	jv_free(&a.summary);
	close(a.fd);
	/* standard output refused (a full disk, a closed pipe): said, and
	 * exit 1, unless an error was already reported */
	if (ob_flush(&a.out, &e, "standard output") && rc == 0)
		rc = cli_report(&e);
	ob_free(&a.out);
	free(a.buf);
	return rc;
}
