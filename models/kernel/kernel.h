/* kernel model (K): context switches the kernel reports for a thread
 * (doc/models/kernel.md). Private to the model folder: the handlers
 * its event table names and its hooks. */
#ifndef WEFT_KERNEL_H
#define WEFT_KERNEL_H

#include "emu.h"

int kernel_out(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);
int kernel_in(struct emu *e, const struct weft_ev *ev, const struct evinfo *in, struct weft_err *err);

extern const struct weft_model_hooks kernel_hooks;

#endif
