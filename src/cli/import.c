/* import: convert a legacy log into an ovni trace directory. The streams are
 * written in a temporary directory beside DIR and renamed when complete. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "import/import.h"

static void help(void)
{
	const struct weft_import_fmt *const *f;
	int n = import_formats(&f);
	printf("Usage: weft import FORMAT FILE -o DIR [-q] [--time-unit U] [--charisma-profile P]\n"
	       "\n"
	       "Convert the legacy log FILE into an ovni trace directory DIR (which must not\n"
	       "exist or be empty): one stream per thread, events of weft's own models. Any\n"
	       "ovni tool reads the result, and weft reads it back to the same Paraver trace\n"
	       "as the log itself. FORMAT is one of:\n");
	for (int i = 0; i < n; i++)
		printf("  %-10s %s\n", f[i]->name, f[i]->what);
	if (n == 0)
		printf("  (none yet)\n");
	printf("\nOptions:\n"
	       "  -o, --output DIR          where to write the trace (required)\n"
	       "  -q, --quiet               no warnings, no notes (errors only)\n"
	       "      --time-unit U         time unit of a VisAndOr log (ns, us, ms, s)\n"
	       "      --charisma-profile P  machine profile of a CHARISMA log (name or file)\n"
	       "  -h, --help                show this help\n");
}

int cmd_import(int argc, char **argv)
{
	enum { O_TIME_UNIT = 256, O_PROFILE };
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{"quiet", no_argument, 0, 'q'},
		{"time-unit", required_argument, 0, O_TIME_UNIT},
		{"charisma-profile", required_argument, 0, O_PROFILE},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct import_opts io = {0};
	const char *out = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			io.quiet = 1;
			break;
		case O_TIME_UNIT:
			io.time_unit = optarg;
			break;
		case O_PROFILE:
			io.profile = optarg;
			break;
		case 'h':
			help();
			return 0;
		default:
			return cli_bad_option("import", c, optopt, argv, optind);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("import", "expected FORMAT and FILE, found %d arguments", argc - optind);
	io.format = argv[optind];
	const char *file = argv[optind + 1];
	if (!import_by_name(io.format))
		return cli_usage_error("import", "unknown format '%s' (see 'weft import --help')", io.format);
	if (!out)
		return cli_usage_error("import", "missing -o DIR");
	struct weft_err e = {0};
	struct stat st;
	if (stat(out, &st) == 0 && (!S_ISDIR(st.st_mode) || rmdir(out) != 0)) {
		weft_fail(&e, WEFT_EUSAGE, "%s: already exists and is not an empty directory", out);
		return cli_report(&e);
	}
	char *tmp = weft_xasprintf("%s.tmp-XXXXXX", out);
	if (!mkdtemp(tmp)) {
		weft_fail(&e, WEFT_EINTERNAL, "%s: cannot create a temporary directory: %s", tmp,
			  strerror(errno));
		free(tmp);
		return cli_report(&e);
	}
	int rc = import_to_dir(file, &io, tmp, &e);
	if (rc == 0 && rename(tmp, out) != 0)
		rc = weft_fail(&e, WEFT_EINTERNAL, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
	if (rc)
		remove_tree(tmp);
	free(tmp);
	return rc ? cli_report(&e) : 0;
}
