/* charisma_synth: `weft synth --format charisma` (see charisma_synth.c). */
#ifndef WEFT_CHARISMA_SYNTH_H
#define WEFT_CHARISMA_SYNTH_H

#include "formats.h"

int synth_charisma(int argc, char **argv);
extern const struct synth_format synth_format_charisma;

#endif
