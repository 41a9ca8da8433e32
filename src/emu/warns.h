/* SPDX-License-Identifier: GPL-3.0-or-later */
/* warns: the models' warnings, printed in one run's order whatever the
 * workers. A model calls emu_warn; one run prints at once (not with -q). A
 * -j worker or an MPI rank keeps them instead, each with its place in one
 * run's order: during the events, the event's time and stream; at the end,
 * the model finishing, then the worker's first stream. The merging run
 * takes every worker's with the jobs' state text (jobs_state_save writes
 * them as "! " lines, jobs_state_load reads them back), prints those of the
 * events before its own end, and those of each model's end right after its
 * own end of that model (emu_run_end). The model errors -k goes past travel
 * the same way. */
#ifndef WEFT_WARNS_H
#define WEFT_WARNS_H

struct emu;
struct strbuf;

void emu_warn(struct emu *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A model error that --keep-going goes past: 1 when this run keeps it for
 * the merger (a worker: kept are its first 21, shown as one run shows
 * them, the first 20 and a line where the 21st came), 0 when the caller
 * prints it. */
int warns_keep_error(struct emu *e, const char *msg);
/* This run is a worker whose first stream is `first`: keep its warnings
 * (when the main run is not quiet). */
void warns_keep(struct emu *e, int first);
/* Its kept warnings as "! " lines (one each). */
void warns_save(const struct emu *e, struct strbuf *b);
/* One such line, without its "! ", into e's (-1: not in shape). */
int warns_load(struct emu *e, const char *line);
/* Print the warnings loaded: of the events (sorted), or of model `id`'s end. */
void warns_print_events(struct emu *e);
void warns_print_end(struct emu *e, char id);
void warns_free(struct emu *e);

#endif
