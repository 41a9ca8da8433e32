/* kernel model (K) event table: context switches copied from the kernel
 * (ovni-trace-format.md §10.3). */
#include <stddef.h>

#include "model.h"

static const struct weft_evdecl kernel_events[] = {
	{"KCO", 0, "", "is switched out of its cpu by the kernel", NULL},
	{"KCI", 0, "", "is switched back onto a cpu by the kernel", NULL},
};

const struct weft_model_def model_kernel = {
	'K', "kernel", "1.0.0", kernel_events,
	(int) (sizeof(kernel_events) / sizeof(kernel_events[0])), NULL,
};
