/* SPDX-License-Identifier: GPL-3.0-or-later */
/* common: error and usage reporting shared by the commands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "util/mapfile.h"

void cli_version(FILE *f)
{
	fputs("weft " WEFT_VERSION "\n"
	      "License GPL-3.0-or-later: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
	      "This is free software: you are free to change and redistribute it.\n"
	      "There is NO WARRANTY, to the extent permitted by law.\n",
	      f);
}

int cli_report(const struct weft_err *e)
{
	/* an input that shrank under its map reads as zeros past its new end:
	 * whatever error they made up, the cause is the change */
	struct weft_err ch;
	if (map_inputs_check(&ch))
		e = &ch;
	fprintf(stderr, "weft: error: %s\n", e->msg);
	return e->code ? e->code : WEFT_EINTERNAL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "weft %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'weft %s --help'.\n", cmd);
	return WEFT_EUSAGE;
}

int cli_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || s[0] == '-')
		return -1;
	uint64_t mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (*end != '\0' || v > max / mul)
		return -1;
	*out = v * mul;
	return 0;
}
