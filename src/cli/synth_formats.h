/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth_formats: `weft synth --format NAME` generators other than ovni's
 * own, one row each: the command reading that format's options
 * (src/cli/synth_NAME.c) over its generator (src/synth/NAME_synth.c). */
#ifndef WEFT_SYNTH_FORMATS_H
#define WEFT_SYNTH_FORMATS_H

struct optcmd;

struct synth_format {
	const char *name;
	const char *what;
	int (*run)(int argc, char **argv); /* argv without --format NAME */
	const struct optcmd *opts; /* its options (weft completion) */
};

/* The table, NULL-terminated. */
extern const struct synth_format *const synth_formats[];

int synth_cmd_visandor(int argc, char **argv);
int synth_cmd_picl(int argc, char **argv);
int synth_cmd_charisma(int argc, char **argv);
extern const struct optcmd visandor_cmdline, picl_cmdline, charisma_cmdline;

#endif
