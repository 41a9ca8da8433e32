/* picl_synth: `weft synth --format picl` (see picl_synth.c). */
#ifndef WEFT_PICL_SYNTH_H
#define WEFT_PICL_SYNTH_H

#include "formats.h"

int synth_picl(int argc, char **argv);
extern const struct synth_format synth_format_picl;

#endif
