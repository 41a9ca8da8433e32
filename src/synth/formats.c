/* formats: the table of synthetic log generators (one row per format). */
#include <stddef.h>

#include "formats.h"

const struct synth_format *const synth_formats[] = {
	NULL,
};
