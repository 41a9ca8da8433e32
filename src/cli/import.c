/* import: convert a legacy log into an ovni trace directory. The streams are
 * written in a temporary directory beside DIR and renamed when complete. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "import/import.h"

/* What the command line asked for. */
struct import_cmd {
	struct import_opts io;
	const char *out;
	int first; /* argv[first]: FORMAT, then FILE */
};

/* The formats, after the options. */
static void list_formats(FILE *f)
{
	const struct weft_import_fmt *const *fmt;
	int n = import_formats(&fmt);
	fprintf(f, "\nFormats:\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", fmt[i]->name, fmt[i]->what);
	if (n == 0)
		fprintf(f, "  (none yet)\n");
}

#define K struct import_cmd
static const struct opt import_opts_table[] = {
	OPT_STRING("output", 'o', "DIR", K, out, "where to write the trace (required)"),
	OPT_FLAG("quiet", 'q', K, io.quiet, "no warnings, no notes (errors only)"),
	OPT_STRING("time-unit", 0, "ns|us|ms|s", K, io.time_unit, "time unit of a VisAndOr log"),
	OPT_STRING("charisma-profile", 0, "P", K, io.profile, "machine profile of a CHARISMA log (name or file)"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd import_cmdline = {
	.name = "import",
	.synopsis = "FORMAT FILE -o DIR [-q] [--time-unit U] [--charisma-profile P]",
	.about = "Convert the legacy log FILE into an ovni trace directory DIR (which must not\n"
		 "exist or be empty): one stream per thread, events of weft's own models. Any\n"
		 "ovni tool reads the result, and weft reads it back to the same Paraver trace\n"
		 "as the log itself. FORMAT is one of the formats listed below.\n",
	.opts = import_opts_table,
	.list = list_formats,
};

int cmd_import(int argc, char **argv)
{
	struct import_cmd k = {0};
	int rc = opts_parse(&import_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	if (argc - k.first != 2)
		return cli_usage_error("import", "expected FORMAT and FILE, found %d arguments", argc - k.first);
	k.io.format = argv[k.first];
	const char *file = argv[k.first + 1];
	if (!import_by_name(k.io.format))
		return cli_usage_error("import", "unknown format '%s' (see 'weft import --help')", k.io.format);
	if (!k.out)
		return cli_usage_error("import", "missing -o DIR");
	struct weft_err e = {0};
	struct stat st;
	if (stat(k.out, &st) == 0 && (!S_ISDIR(st.st_mode) || rmdir(k.out) != 0)) {
		weft_fail(&e, WEFT_EUSAGE, "%s: already exists and is not an empty directory", k.out);
		return cli_report(&e);
	}
	char *tmp = weft_xasprintf("%s.tmp-XXXXXX", k.out);
	if (!mkdtemp(tmp)) {
		rc = weft_fail(&e, WEFT_EINTERNAL, "%s: cannot create a temporary directory: %s", tmp,
			       strerror(errno));
	} else {
		rc = import_to_dir(file, &k.io, tmp, &e);
		if (rc == 0 && rename(tmp, k.out) != 0)
			rc = weft_fail(&e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", tmp, k.out,
				       strerror(errno));
		if (rc)
			remove_tree(tmp);
	}
	free(tmp);
	return rc ? cli_report(&e) : 0;
}
