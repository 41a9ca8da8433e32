/* formats: the table of synthetic log generators (one row per format). */
#include <stddef.h>

#include "formats.h"

extern const struct synth_format synth_format_visandor;
extern const struct synth_format synth_format_picl;

const struct synth_format *const synth_formats[] = {
	&synth_format_visandor,
	&synth_format_picl,
	NULL,
};
