/* kernel model (K) event table: context switches copied from the kernel
 * (doc/models/kernel.md); the handlers are in model.c. */
#include <stddef.h>

#include "kernel.h"

static const struct weft_evdecl kernel_events[] = {
	{"KCO", 0, "", "is switched out of its cpu by the kernel", kernel_out},
	{"KCI", 0, "", "is switched back onto a cpu by the kernel", kernel_in},
};

const struct weft_model_def model_kernel = {
	'K', "kernel", "1.0.0", kernel_events,
	(int) (sizeof(kernel_events) / sizeof(kernel_events[0])), &kernel_hooks,
};
