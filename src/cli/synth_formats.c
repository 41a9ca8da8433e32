/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth_formats: the table of synthetic log generators (one row per format). */
#include <stddef.h>

#include "cli/opts.h"
#include "cli/synth_formats.h"

static const struct synth_format visandor = {
	"visandor",
	"VisAndOr logs (--kind and|or, --agents N, -n EVENTS)",
	synth_cmd_visandor,
	&visandor_cmdline,
};
static const struct synth_format picl = {
	"picl",
	"PICL logs (--procs P, --traffic ring|all|random, clock offsets and drifts)",
	synth_cmd_picl,
	&picl_cmdline,
};
static const struct synth_format charisma = {
	"charisma",
	"CHARISMA traces (--profile NAME|FILE, --byte-order le|be, --size BYTES, --apps A, --clients C)",
	synth_cmd_charisma,
	&charisma_cmdline,
};

const struct synth_format *const synth_formats[] = {&visandor, &picl, &charisma, NULL};
