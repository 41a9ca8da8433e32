/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opts: a command's options as one table. The same rows build getopt_long's
 * short string and long options, say where each value goes, and print
 * --help (usage, description, one entry per option). Options may come
 * before or after the positional arguments (GNU order) unless the command
 * asks for them first (query: its patterns may start with '-'). Usage
 * errors print "weft CMD: ..." with a hint to --help and give exit code 2.
 * test/tools/manopts.sh holds the man pages to the same rows. */
#ifndef WEFT_OPTS_H
#define WEFT_OPTS_H

#include <stddef.h>
#include <stdio.h>

struct opt;

/* A value's handler: dst is the command's struct plus the row's offset,
 * arg the option's argument (NULL for an option without one). Returns 0
 * to go on, else the exit status (after its message). */
typedef int (*opt_fn)(const char *cmd, const struct opt *o, void *dst, const char *arg);

enum opt_kind {
	OPT_SET, /* int at off = val */
	OPT_STR, /* const char * at off = the argument */
	OPT_FN, /* fn(cmd, row, struct + off, argument) */
	OPT_FNOPT, /* OPT_FN whose argument is optional, attached (-z1, --gzip=1) or NULL */
	OPT_HELP, /* print the help, exit 0 */
};

struct opt {
	const char *name; /* long name; NULL ends the table */
	char ch;          /* short letter, or 0 */
	const char *arg;  /* the argument's name in the help; NULL: takes none */
	enum opt_kind kind;
	size_t off;       /* offset in the command's struct */
	opt_fn fn;
	int val;          /* OPT_SET's value */
	const char *help; /* lines separated by '\n' */
};

/* Every command also takes --version (weft's version and licence, exit
 * 0): opts_parse and opts_help add it after the table's rows. */

/* Rows. T is the command's struct, F a member (nested ones too: co.imp.format). */
#define OPT_FLAG(name, ch, T, F, help) {name, ch, NULL, OPT_SET, offsetof(T, F), NULL, 1, help}
#define OPT_SETV(name, ch, T, F, v, help) {name, ch, NULL, OPT_SET, offsetof(T, F), NULL, v, help}
#define OPT_STRING(name, ch, arg, T, F, help) {name, ch, arg, OPT_STR, offsetof(T, F), NULL, 0, help}
#define OPT_CALL(name, ch, arg, T, F, fn, help) {name, ch, arg, OPT_FN, offsetof(T, F), fn, 0, help}
/* An optional argument: -xARG or --name=ARG only (help: -x, --name[=ARG]). */
#define OPT_OPTIONAL(name, ch, arg, T, F, fn, help)                   \
	{                                                             \
		name, ch, arg, OPT_FNOPT, offsetof(T, F), fn, 0, help \
	}
/* A handler given the whole struct (dst = the struct itself). */
#define OPT_WHOLE(name, ch, arg, fn, help) {name, ch, arg, OPT_FN, 0, fn, 0, help}
#define OPT_HELPROW {"help", 'h', NULL, OPT_HELP, 0, NULL, 0, "show this help"}
#define OPT_ENDROW {NULL, 0, NULL, OPT_SET, 0, NULL, 0, NULL}

/* The three rows that say how to read a legacy log given as TRACE (F: a
 * struct import_opts member of T). */
#define OPT_IMPORT_ROWS(T, F)                                                                                  \
	OPT_STRING("format", 0, "NAME", T, F.format, "read TRACE as this log format instead of detecting it"), \
		OPT_STRING("time-unit", 0, "ns|us|ms|s", T, F.time_unit, "time unit of a VisAndOr log"),       \
		OPT_STRING("charisma-profile", 0, "NAME|FILE", T, F.profile, "machine profile of a CHARISMA log")

struct optcmd {
	const char *name;     /* "emu": messages say "weft emu: ..." */
	const char *synopsis; /* after "Usage: weft NAME "; '\n' starts another form */
	const char *about;    /* what the command does (ends with '\n'), or NULL */
	const struct opt *opts;
	const char *more;     /* printed after the options (exit status...), or NULL */
	void (*list)(FILE *f); /* printed last (import's, synth's formats), or NULL */
	int in_order;         /* options only before the first positional argument */
};

/* Read argv's options into the struct at ctx. Returns -1 when the command
 * should run, argv[*first..argc) being its positional arguments; else the
 * exit status: 0 after --help, 2 after a usage error, or a handler's. */
int opts_parse(const struct optcmd *c, void *ctx, int argc, char **argv, int *first);
/* The --help text. */
void opts_help(const struct optcmd *c, FILE *f);

/* Row handlers of counts (dst: a uint64_t; suffixes k, M, G as
 * cli_parse_count): opt_count1 wants one or more, opt_count0 any. */
int opt_count1(const char *cmd, const struct opt *row, void *dst, const char *arg);
int opt_count0(const char *cmd, const struct opt *row, void *dst, const char *arg);

#endif
