/* picl_wsplit: the streams of odd processor ids written on a second thread
 * while a log is written in batches (picl_write.c): each batch is posted
 * to the thread and written by both, each its processors (streams are
 * separate files; what spans streams, the order of first use of the user
 * block values, is noted before the posting). The posted array stays with
 * the thread until the next batch: picl_wsplit_swap gives the caller the
 * one it filled before. Private to the PICL importer. */
#ifndef WEFT_PICL_WSPLIT_H
#define WEFT_PICL_WSPLIT_H

#include "picl_int.h"

struct picl_wsplit;

/* NULL if the thread could not be started (write on one thread then). */
struct picl_wsplit *picl_wsplit_start(struct picl *p, const char *outdir);
/* Waits for the batch posted last; -1 (its error copied to err) if the
 * thread failed. */
int picl_wsplit_wait(struct picl_wsplit *w, struct weft_err *err);
/* After picl_wsplit_wait: the thread writes r[0..n) of odd processors. */
void picl_wsplit_post(struct picl_wsplit *w, const struct orec *r, size_t n, uint64_t at0);
/* The caller's record array for the array the thread had before. */
void picl_wsplit_swap(struct picl_wsplit *w, struct orec **r, size_t *cap);
/* The warnings of the thread's writing (after picl_wsplit_wait). */
struct picl_laters *picl_wsplit_later(struct picl_wsplit *w);
/* Waits, stops the thread and frees; -1 with err if it failed. */
int picl_wsplit_end(struct picl_wsplit *w, struct weft_err *err);

#endif
