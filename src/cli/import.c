/* SPDX-License-Identifier: GPL-3.0-or-later */
/* import: convert a legacy log into an ovni trace directory. The streams are
 * written in a temporary directory beside DIR and renamed when complete. */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "import/import.h"
#include "util/atomicfile.h"
#include "util/mapfile.h"

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
	OPT_STRING("format", 0, "NAME", K, io.format, "the log's format (default: detected from its bytes)"),
	OPT_FLAG("quiet", 'q', K, io.quiet, "no warnings, no notes (errors only)"),
	OPT_STRING("time-unit", 0, "ns|us|ms|s", K, io.time_unit, "time unit of a VisAndOr log"),
	OPT_STRING("charisma-profile", 0, "P", K, io.profile, "machine profile of a CHARISMA log (name or file)"),
	OPT_HELPROW,
	OPT_ENDROW,
};
#undef K

const struct optcmd import_cmdline = {
	.name = "import",
	.synopsis = "[FORMAT] FILE -o DIR [-q] [--format NAME] [--time-unit U] [--charisma-profile P]",
	.about = "Convert the legacy log FILE into an ovni trace directory DIR (which must not\n"
		 "exist or be empty): one stream per thread, events of weft's own models. Any\n"
		 "ovni tool reads the result, and weft reads it back to the same Paraver trace\n"
		 "as the log itself. The format is detected from the log's bytes, as every\n"
		 "command does; FORMAT (or --format) names one of those listed below instead.\n"
		 "Prints 'wrote N streams of L looms (B bytes) to DIR'.\n",
	.opts = import_opts_table,
	.list = list_formats,
};

/* What an import wrote: streams, looms, bytes. */
struct wrote {
	uint64_t streams, looms, bytes;
};

/* Add up the tree at dir, `level` folders below the trace (loom.* at 1). */
static void count(const char *dir, int level, struct wrote *w)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *path = weft_xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && level < 4) {
			w->looms += level == 0 && strncmp(de->d_name, "loom.", 5) == 0;
			count(path, level + 1, w);
		} else if (S_ISREG(st.st_mode)) {
			w->bytes += (uint64_t) st.st_size;
			w->streams += strcmp(de->d_name, "stream.obs") == 0;
		}
		free(path);
	}
	closedir(d);
}

int cmd_import(int argc, char **argv)
{
	struct import_cmd k = {0};
	int rc = opts_parse(&import_cmdline, &k, argc, argv, &k.first);
	if (rc >= 0)
		return rc;
	int n = argc - k.first;
	if (n < 1 || n > 2)
		return cli_usage_error("import", "expected [FORMAT] FILE, found %d arguments", n);
	if (n == 2) {
		const char *f = argv[k.first];
		if (k.io.format && strcmp(k.io.format, f) != 0)
			return cli_usage_error("import", "FORMAT %s and --format %s differ", f, k.io.format);
		k.io.format = f;
	}
	const char *file = argv[k.first + n - 1];
	if (k.io.format && !import_by_name(k.io.format))
		return cli_usage_error("import", "unknown format '%s' (see 'weft import --help')", k.io.format);
	if (!k.out)
		return cli_usage_error("import", "missing -o DIR");
	struct weft_err e = {0};
	char *tmp;
	rc = atomic_dir_open(k.out, &tmp, &e);
	if (rc == 0) {
		rc = import_to_dir(file, &k.io, tmp, &e);
		if (rc == 0)
			rc = map_inputs_check(&e); /* the log changed under the reader */
		rc = atomic_dir_commit(tmp, k.out, rc, &e);
	}
	if (rc)
		return cli_report(&e);
	struct wrote wrote = {0};
	count(k.out, 0, &wrote);
	if (!k.io.quiet)
		printf("wrote %llu streams of %llu looms (%llu bytes) to %s\n", (unsigned long long) wrote.streams,
		       (unsigned long long) wrote.looms, (unsigned long long) wrote.bytes, k.out);
	return 0;
}
