/* SPDX-License-Identifier: GPL-3.0-or-later */
/* completion: `weft completion bash|zsh` prints a shell completion script
 * written from the command table and each command's option table, so the
 * completion knows exactly the options --help shows. What an option's
 * value completes to comes from its row: --format the formats, an
 * argument spelled as choices ("and|or") those words, a DIR directories,
 * anything else file names. `make install` installs both scripts. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/opts.h"
#include "cli/synth_formats.h"
#include "import/import.h"
#include "model.h"
#include "registry.h"

struct completion_cmd {
	int first;
};

static const struct opt completion_opts[] = {
	OPT_HELPROW,
	OPT_ENDROW,
};

const struct optcmd completion_cmdline = {
	.name = "completion",
	.synopsis = "bash|zsh",
	.about = "Print the completion script of a shell for weft's commands, options and their\n"
		 "values, written from the same tables as --help. For the running shell:\n"
		 "  source <(weft completion bash)\n"
		 "'make install' installs both (bash-completion's and zsh's folders).\n",
	.opts = completion_opts,
};

/* The values an option's argument completes to. */
enum vkind { V_FILE, V_DIR, V_WORDS };

/* An argument spelled as its choices: lower-case words split by '|'
 * ("and|or", or "none" alone). */
static int choices(const char *arg)
{
	for (const char *s = arg; *s; s++)
		if (*s != '|' && *s != '-' && !islower((unsigned char) *s) && !isdigit((unsigned char) *s))
			return 0;
	return 1;
}

/* The format names --format takes in this command (synth: ovni and its
 * generators; elsewhere the legacy formats weft imports), space-separated. */
static void formats(FILE *f, const char *cmd)
{
	if (strcmp(cmd, "synth") == 0) {
		fputs("ovni", f);
		for (int k = 0; synth_formats[k]; k++)
			fprintf(f, " %s", synth_formats[k]->name);
		return;
	}
	const struct weft_import_fmt *const *fmt;
	int n = import_formats(&fmt);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", fmt[i]->name);
}

/* A row completed with a value in the next word: not one whose value is
 * optional and attached (-z1), offered as a flag. */
static int valued(const struct opt *o)
{
	return o->arg && o->kind != OPT_FNOPT;
}

static enum vkind kind_of(const struct opt *o)
{
	if (strcmp(o->name, "format") == 0 || choices(o->arg))
		return V_WORDS;
	size_t n = strlen(o->arg);
	return n >= 3 && strcmp(o->arg + n - 3, "DIR") == 0 ? V_DIR : V_FILE;
}

/* The value words of a V_WORDS row. */
static void words(FILE *f, const char *cmd, const struct opt *o)
{
	if (strcmp(o->name, "format") == 0) {
		formats(f, cmd);
		return;
	}
	for (const char *s = o->arg; *s; s++)
		fputc(*s == '|' ? ' ' : *s, f);
}

/* Each table with its key: the commands, and synth's per format. */
struct table {
	char key[32];
	const char *cmd;
	const struct optcmd *c;
};

static int tables(struct table *t, int max)
{
	int n = 0;
	for (const struct cli_command *c = cli_commands; c->name && n < max; c++) {
		snprintf(t[n].key, sizeof(t[n].key), "%s", c->name);
		t[n].cmd = c->name;
		t[n++].c = c->opts;
	}
	for (int k = 0; synth_formats[k] && n < max; k++) {
		snprintf(t[n].key, sizeof(t[n].key), "synth:%s", synth_formats[k]->name);
		t[n].cmd = "synth";
		t[n++].c = synth_formats[k]->opts;
	}
	return n;
}

/* What a command's positional arguments complete to (models: the model
 * names; help: the commands; completion: the shells); NULL: file names. */
static void positional(FILE *f, const char *cmd, int *any)
{
	*any = 1;
	if (strcmp(cmd, "models") == 0) {
		/* weft's own models (a --model file's is not known here) */
		struct model_registry *r = model_registry_new();
		struct model_set set = model_registry_set(r);
		for (int i = 0; i < set.n; i++)
			fprintf(f, "%s%s", i ? " " : "", set.all[i]->name);
		model_registry_free(r);
	} else if (strcmp(cmd, "completion") == 0) {
		fputs("bash zsh", f);
	} else {
		*any = 0;
	}
}

static void command_names(FILE *f)
{
	for (const struct cli_command *c = cli_commands; c->name; c++)
		fprintf(f, "%s%s", c == cli_commands ? "" : " ", c->name);
}

#define NTABLES 32

static void bash(FILE *f)
{
	struct table t[NTABLES];
	int n = tables(t, NTABLES);
	fprintf(f,
		"# bash completion for weft %s, written by 'weft completion bash' from weft's\n"
		"# option tables. Source it, or install it as\n"
		"# /usr/share/bash-completion/completions/weft (make install does).\n\n",
		WEFT_VERSION);
	fputs("# _weft_table KEY: _weft_opts (every option), _weft_args (those taking a value)\n"
	      "_weft_table() {\n\tcase $1 in\n",
	      f);
	for (int i = 0; i < n; i++) {
		fprintf(f, "\t%s)\n\t\t_weft_opts='", t[i].key);
		int first = 1;
		for (const struct opt *o = t[i].c->opts; o->name; o++) {
			if (o->ch)
				fprintf(f, "%s-%c", first ? "" : " ", o->ch), first = 0;
			fprintf(f, "%s--%s", first ? "" : " ", o->name), first = 0;
		}
		fputs(" --version'\n\t\t_weft_args='", f);
		first = 1;
		for (const struct opt *o = t[i].c->opts; o->name; o++) {
			if (!valued(o))
				continue;
			if (o->ch)
				fprintf(f, "%s-%c", first ? "" : " ", o->ch), first = 0;
			fprintf(f, "%s--%s", first ? "" : " ", o->name), first = 0;
		}
		fputs("'\n\t\t;;\n", f);
	}
	fputs("\t*) _weft_opts= _weft_args= ;;\n\tesac\n}\n\n", f);
	fputs("# _weft_value KEY OPTION: COMPREPLY for the option's value\n"
	      "_weft_value() {\n\tcase $1:$2 in\n",
	      f);
	for (int i = 0; i < n; i++)
		for (const struct opt *o = t[i].c->opts; o->name; o++) {
			if (!valued(o) || kind_of(o) == V_FILE)
				continue;
			fprintf(f, "\t%s:--%s", t[i].key, o->name);
			if (o->ch)
				fprintf(f, " | %s:-%c", t[i].key, o->ch);
			if (kind_of(o) == V_DIR) {
				fputs(") COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n", f);
				continue;
			}
			fputs(") COMPREPLY=($(compgen -W '", f);
			words(f, t[i].cmd, o);
			fputs("' -- \"$cur\")) ;;\n", f);
		}
	fputs("\t*) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n\tesac\n}\n\n", f);
	fputs("# _weft_positional CMD: COMPREPLY for an argument that is no option\n"
	      "_weft_positional() {\n\tcase $1 in\n",
	      f);
	fputs("\thelp) COMPREPLY=($(compgen -W '", f);
	command_names(f);
	fputs("' -- \"$cur\")) ;;\n", f);
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		int any;
		char buf[4096];
		FILE *m = fmemopen(buf, sizeof(buf), "w");
		if (!m)
			continue;
		positional(m, c->name, &any);
		fclose(m);
		if (any)
			fprintf(f, "\t%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")) ;;\n", c->name, buf);
	}
	fputs("\t*) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n\tesac\n}\n\n", f);
	fputs("_weft() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} key i\n"
	      "\tCOMPREPLY=()\n"
	      "\t# --opt=value: bash splits at '='\n"
	      "\tif [ \"$cur\" = = ]; then\n\t\tprev=${COMP_WORDS[COMP_CWORD-1]} cur=\n"
	      "\telif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 3 ]; then\n"
	      "\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n\tfi\n"
	      "\tif [ \"$COMP_CWORD\" -le 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '",
	      f);
	command_names(f);
	fputs(" help --help --version' -- \"$cur\"))\n\t\treturn 0\n\tfi\n"
	      "\tkey=${COMP_WORDS[1]}\n"
	      "\tif [ \"$key\" = help ]; then\n"
	      "\t\t[ \"$COMP_CWORD\" -eq 2 ] && _weft_positional help\n\t\treturn 0\n\tfi\n"
	      "\tif [ \"$key\" = synth ]; then\n"
	      "\t\t# after --format NAME, that generator's options\n"
	      "\t\tfor ((i = 2; i < COMP_CWORD - 1; i++)); do\n"
	      "\t\t\t[ \"${COMP_WORDS[i]}\" = --format ] && key=synth:${COMP_WORDS[i+1]}\n"
	      "\t\tdone\n"
	      "\t\t[ \"$key\" = synth:ovni ] && key=synth\n"
	      "\tfi\n"
	      "\t_weft_table \"$key\"\n"
	      "\tcase \" $_weft_args \" in\n"
	      "\t*\" $prev \"*)\n\t\t_weft_value \"$key\" \"$prev\"\n\t\treturn 0 ;;\n"
	      "\tesac\n"
	      "\tcase $cur in\n"
	      "\t-*) COMPREPLY=($(compgen -W \"$_weft_opts\" -- \"$cur\")) ;;\n"
	      "\t*) _weft_positional \"${COMP_WORDS[1]}\" ;;\n"
	      "\tesac\n"
	      "\treturn 0\n"
	      "}\n\n"
	      "complete -o filenames -o bashdefault -o default -F _weft weft\n",
	      f);
}

/* A help text's first line, made safe inside '...[HELP]...' of _arguments. */
static void zsh_help(FILE *f, const char *h)
{
	for (; *h && *h != '\n'; h++) {
		if (*h == '\'')
			fputs("'\\''", f);
		else if (*h == '[' || *h == ']' || *h == ':' || *h == '\\')
			fputc(*h == '[' ? '(' : *h == ']' ? ')' : *h == ':' ? ';' : '/', f);
		else
			fputc(*h, f);
	}
}

static void zsh_action(FILE *f, const char *cmd, const struct opt *o)
{
	enum vkind k = kind_of(o);
	fprintf(f, ":%s:", o->arg);
	if (k == V_DIR)
		fputs("_files -/", f);
	else if (k == V_FILE)
		fputs("_files", f);
	else {
		fputc('(', f);
		words(f, cmd, o);
		fputc(')', f);
	}
}

static void zsh_table(FILE *f, const char *cmd, const struct optcmd *c)
{
	fputs("_arguments -s -S", f);
	for (const struct opt *o = c->opts; o->name; o++) {
		fputs(" \\\n\t\t\t", f);
		if (o->ch)
			fprintf(f, "'(-%c --%s)'{-%c%s,--%s%s}'[", o->ch, o->name, o->ch, valued(o) ? "+" : "", o->name,
				valued(o) ? "=" : "");
		else
			fprintf(f, "'--%s%s[", o->name, valued(o) ? "=" : "");
		zsh_help(f, o->help);
		fputc(']', f);
		if (valued(o))
			zsh_action(f, cmd, o);
		fputc('\'', f);
	}
	fputs(" \\\n\t\t\t'--version[show weft'\\''s version and licence]'", f);
	int any;
	char buf[4096];
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	if (m) {
		positional(m, cmd, &any);
		fclose(m);
		if (any)
			fprintf(f, " \\\n\t\t\t'1:argument:(%s)'", buf);
		else
			fputs(" \\\n\t\t\t'*:file:_files'", f);
	}
	fputs(" ;;\n", f);
}

static void zsh(FILE *f)
{
	fprintf(f,
		"#compdef weft\n# zsh completion for weft %s, written by 'weft completion zsh' from weft's\n"
		"# option tables. Install it as _weft in a folder of $fpath (make install\n"
		"# puts it in PREFIX/share/zsh/site-functions).\n\n",
		WEFT_VERSION);
	fputs("_weft() {\n\tlocal -a cmds\n\tcmds=(\n", f);
	for (const struct cli_command *c = cli_commands; c->name; c++) {
		fprintf(f, "\t\t'%s:", c->name);
		zsh_help(f, c->what);
		fputs("'\n", f);
	}
	fputs("\t\t'help:describe a command'\n\t)\n"
	      "\tif (( CURRENT == 2 )); then\n\t\t_describe -t commands 'weft command' cmds\n\t\treturn\n\tfi\n"
	      "\tlocal key=${words[2]} i\n"
	      "\tif [[ $key == synth ]]; then\n"
	      "\t\ti=${words[(I)--format]}\n"
	      "\t\t(( i > 0 && i + 1 < CURRENT )) && key=synth:${words[i+1]}\n"
	      "\t\t[[ $key == synth:ovni ]] && key=synth\n"
	      "\tfi\n"
	      "\tshift words\n\t(( CURRENT-- ))\n"
	      "\tcase $key in\n"
	      "\thelp) _describe -t commands 'weft command' cmds ;;\n",
	      f);
	struct table t[NTABLES];
	int n = tables(t, NTABLES);
	for (int i = 0; i < n; i++) {
		fprintf(f, "\t%s) ", t[i].key);
		zsh_table(f, t[i].cmd, t[i].c);
	}
	fputs("\tesac\n}\n\n_weft \"$@\"\n", f);
}

int cmd_completion(int argc, char **argv)
{
	struct completion_cmd k = {0};
	int rc = opts_parse(&completion_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (argc - k.first != 1)
		return cli_usage_error("completion", "expected one shell, bash or zsh");
	if (strcmp(argv[k.first], "bash") == 0)
		bash(stdout);
	else if (strcmp(argv[k.first], "zsh") == 0)
		zsh(stdout);
	else
		return cli_usage_error("completion", "expected bash or zsh, found '%s'", argv[k.first]);
	return fflush(stdout) == 0 ? 0 : 3;
}
