/* formats: `weft synth --format NAME` generators other than ovni's own.
 * Each is a small command of its own (it parses the options it needs), listed
 * in one table; ovni traces are the default format. */
#ifndef WEFT_SYNTH_FORMATS_H
#define WEFT_SYNTH_FORMATS_H

struct synth_format {
	const char *name;
	const char *what;
	int (*run)(int argc, char **argv); /* argv without --format NAME */
};

/* The table, NULL-terminated. */
extern const struct synth_format *const synth_formats[];

#endif
