#include "cli.h"
int cmd_synth(int argc, char **argv) { (void) argc; (void) argv; return 3; }
