/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli: one function per weft command; each reads its options from its
 * table (opts.h) and returns the process exit code (0 ok, 1 bad input, 2 usage, 3 internal). */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "util/err.h"
#include "util/macros.h"

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
struct emu_opts;
/* The model registry handed to the emulator (emu.h: emu_opts.models):
 * every model, with the --model files loaded; after the options. */
void cli_registry(struct emu_opts *o);
/* The same registry for a command that opens a trace without the
 * emulator: ovni.require resolved against it (*set lives while the trace
 * is opened). */
struct trace_opts;
struct model_set;
void cli_trace_models(struct trace_opts *to, struct model_set *set);

void cli_salvage_report(const char *cmd, const struct weft_trace *t);

#endif
