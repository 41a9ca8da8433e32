/* visandor_synth: `weft synth --format visandor` (see visandor_synth.c). */
#ifndef WEFT_VISANDOR_SYNTH_H
#define WEFT_VISANDOR_SYNTH_H

#include "formats.h"

int synth_visandor(int argc, char **argv);
extern const struct synth_format synth_format_visandor;

#endif
