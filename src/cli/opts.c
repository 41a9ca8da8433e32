/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opts: options from a table (see opts.h). */
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"

/* Rows a table may have: getopt's arrays live on the stack. */
#define OPTS_MAX 64
/* Long options return CODE_BASE + row, beyond any short letter; the
 * --version every command takes, CODE_VERSION. */
#define CODE_BASE 256
#define CODE_VERSION (CODE_BASE - 1)
#define VERSION_HELP "show weft's version and licence"

static int row_of(const struct opt *t, int code)
{
	if (code >= CODE_BASE)
		return code - CODE_BASE;
	for (int i = 0; t[i].name; i++)
		if (t[i].ch && t[i].ch == code)
			return i;
	return -1;
}

/* getopt_long's complaint ('?' or ':') as weft's usage error. */
static int bad_option(const struct optcmd *c, int code, char **argv)
{
	const char *given = argv[optind - 1];
	if (code == ':')
		return cli_usage_error(c->name, "option '%s' needs an argument", given);
	if (optopt >= CODE_BASE) /* a known long option given an argument it does not take */
		return cli_usage_error(c->name, "option '--%s' takes no argument", c->opts[optopt - CODE_BASE].name);
	if (optopt)
		return cli_usage_error(c->name, "unknown option '-%c'", optopt);
	return cli_usage_error(c->name, "unknown option '%s'", given);
}

static int apply(const struct optcmd *c, const struct opt *o, void *ctx, const char *arg)
{
	void *dst = (char *) ctx + o->off;
	switch (o->kind) {
	case OPT_SET:
		*(int *) dst = o->val;
		return 0;
	case OPT_STR:
		*(const char **) dst = arg;
		return 0;
	case OPT_FN:
	case OPT_FNOPT:
		return o->fn(c->name, o, dst, arg);
	case OPT_HELP:
		opts_help(c, stdout);
		return -1;
	}
	return 0;
}

int opts_parse(const struct optcmd *c, void *ctx, int argc, char **argv, int *first)
{
	struct option lo[OPTS_MAX + 2];
	char shorts[3 + 3 * OPTS_MAX + 1];
	size_t ns = 0;
	int n = 0;
	if (c->in_order)
		shorts[ns++] = '+';
	shorts[ns++] = ':'; /* a missing argument returns ':', not '?' */
	for (; c->opts[n].name; n++) {
		const struct opt *o = &c->opts[n];
		if (n == OPTS_MAX) {
			fprintf(stderr, "weft: internal error: weft %s has more than %d options\n", c->name, OPTS_MAX);
			return WEFT_EINTERNAL;
		}
		int has = o->kind == OPT_FNOPT ? optional_argument : o->arg ? required_argument : no_argument;
		lo[n] = (struct option){o->name, has, NULL, CODE_BASE + n};
		if (o->ch) {
			shorts[ns++] = o->ch;
			if (o->arg)
				shorts[ns++] = ':';
			if (o->kind == OPT_FNOPT)
				shorts[ns++] = ':'; /* "z::" */
		}
	}
	lo[n] = (struct option){"version", no_argument, NULL, CODE_VERSION};
	lo[n + 1] = (struct option){NULL, 0, NULL, 0};
	shorts[ns] = '\0';
	optind = 1;
	opterr = 0;
	int code;
	while ((code = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (code == CODE_VERSION) {
			cli_version(stdout);
			return 0;
		}
		int row = code == '?' || code == ':' ? -1 : row_of(c->opts, code);
		if (row < 0)
			return bad_option(c, code, argv);
		int rc = apply(c, &c->opts[row], ctx, optarg);
		if (rc)
			return rc < 0 ? 0 : rc; /* -1: the help was printed */
	}
	*first = optind;
	return -1;
}

/* "  -o, --output DIR" or "      --lint": the left column of a row. */
static int left(const struct opt *o, char *buf, size_t n)
{
	int k = o->ch ? snprintf(buf, n, "  -%c, --%s", o->ch, o->name) : snprintf(buf, n, "      --%s", o->name);
	if (o->arg && k >= 0 && (size_t) k < n)
		k += snprintf(buf + k, n - (size_t) k, o->kind == OPT_FNOPT ? "[=%s]" : " %s", o->arg);
	return k;
}

/* One row of the help: its left column, then its help from column col. */
static void put_row(FILE *f, const struct opt *o, int col)
{
	char buf[128];
	int k = left(o, buf, sizeof(buf));
	fputs(buf, f);
	if (k + 2 > col)
		fprintf(f, "\n%*s", col, "");
	else
		fprintf(f, "%*s", col - k, "");
	for (const char *h = o->help; *h; h++) {
		fputc(*h, f);
		if (*h == '\n')
			fprintf(f, "%*s", col, "");
	}
	fputc('\n', f);
}

/* The help column: past the widest left column of a short one (<= 24). */
#define HELP_COL_MAX 24

void opts_help(const struct optcmd *c, FILE *f)
{
	char buf[128];
	int col = 0;
	static const struct opt version = {"version", 0, NULL, OPT_SET, 0, NULL, 0, VERSION_HELP};
	for (const struct opt *o = c->opts; o->name; o++) {
		int k = left(o, buf, sizeof(buf)) + 2;
		if (k <= HELP_COL_MAX && k > col)
			col = k;
	}
	int kv = left(&version, buf, sizeof(buf)) + 2;
	if (kv <= HELP_COL_MAX && kv > col)
		col = kv;
	const char *s = c->synopsis;
	fprintf(f, "Usage: weft %s ", c->name);
	for (; *s; s++) {
		fputc(*s, f);
		if (*s == '\n' && s[1])
			fprintf(f, "       weft %s ", c->name);
	}
	if (s == c->synopsis || s[-1] != '\n')
		fputc('\n', f);
	if (c->about)
		fprintf(f, "\n%s", c->about);
	fputs("\nOptions:\n", f);
	for (const struct opt *o = c->opts; o->name; o++)
		put_row(f, o, col);
	put_row(f, &version, col);
	if (c->more)
		fprintf(f, "\n%s", c->more);
	if (c->list)
		c->list(f);
}

int opt_count1(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	if (cli_parse_count(arg, UINT64_MAX, dst) || *(uint64_t *) dst == 0)
		return cli_usage_error(cmd, "--%s: expected a positive count, found '%s'", row->name, arg);
	return 0;
}

int opt_count0(const char *cmd, const struct opt *row, void *dst, const char *arg)
{
	if (cli_parse_count(arg, UINT64_MAX, dst))
		return cli_usage_error(cmd, "--%s: expected a number, found '%s'", row->name, arg);
	return 0;
}
