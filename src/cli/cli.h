/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli: one function per weft command; each reads its options from its
 * table (opts.h) and returns the process exit code (0 ok, 1 bad input, 2 usage, 3 internal). */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "util/macros.h"
#include "require.h"

int cmd_dump(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_emu(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_sync(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/* "weft VERSION", the licence and the warranty, as `weft --version` prints them. */
void cli_version(FILE *f);
/* Print "weft: error: MSG" and return the error's exit code. */
WEFT_MUST_CHECK int cli_report(const struct weft_err *e);
/* A count with an optional suffix k, M or G (10^3, 10^6, 10^9), at most
 * max: 0, or -1 if it is not one. */
int cli_parse_count(const char *s, uint64_t max, uint64_t *out);
/* Print "weft CMD: MSG" plus a hint to --help, return 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct weft_trace;
/* --salvage: on stderr, for each stream of t cut mid-event, its file, where
 * its last whole event ends, the bytes dropped and the event cut (as far as
 * its bytes tell); then how many streams were cut. */
/* The models of one command (models/registry.h): weft's own and the
 * --model files given, kept while the options are read and loaded after
 * them (so --help does not load one, wherever it stands); the command
 * hands `set` to every layer below and frees it all at its end. */
struct cli_models {
	const char **files;
	int nfiles;
	struct model_registry *reg;
	struct model_set set;
};
/* --model FILE: kept for cli_models_make. */
void cli_models_add(struct cli_models *m, const char *file);
/* The registry made and the files loaded in order: 0, or -1 (err names the
 * file, line and column). */
WEFT_MUST_CHECK int cli_models_make(struct cli_models *m, struct weft_err *err);
void cli_models_free(struct cli_models *m);

struct emu_opts;
/* The registry handed to the emulator (emu.h: emu_opts.models). */
void cli_registry(struct emu_opts *o, const struct cli_models *m);
/* The same for a command that opens a trace without the emulator:
 * ovni.require resolved against it. */
struct trace_opts;
void cli_trace_models(struct trace_opts *to, const struct cli_models *m);

void cli_salvage_report(const char *cmd, const struct weft_trace *t);

#endif
