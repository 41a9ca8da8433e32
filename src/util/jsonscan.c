/* jsonscan: one pass over JSON text (see jsonscan.h). */
#include <cjson/cJSON.h>

#include "util/jsonscan.h"

_Static_assert(JSONSCAN_MAX_DEPTH == CJSON_NESTING_LIMIT, "the limit is cJSON's");

static int fail(size_t at, const char *what, size_t *off, const char **why)
{
	*off = at;
	*why = what;
	return -1;
}

int json_prescan(const char *text, size_t len, size_t *off, const char **why)
{
	int depth = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '\0')
			return fail(i, "a NUL byte (JSON text has none)", off, why);
		if (c == '/' && i + 1 < len && text[i + 1] == '/') {
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < len && text[i + 1] == '*') {
			for (i += 2; i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'); i++)
				;
			i++;
			continue;
		}
		if (c == '[' || c == '{') {
			if (++depth > JSONSCAN_MAX_DEPTH)
				return fail(i,
					    "arrays and objects nested more than 1000 deep (weft's JSON reader "
					    "stops there)",
					    off, why);
			continue;
		}
		if (c == ']' || c == '}') {
			depth -= depth > 0;
			continue;
		}
		if (c != '"')
			continue;
		for (i++; i < len && text[i] != '"'; i++) {
			if (text[i] == '\0')
				return fail(i, "a NUL byte inside a string: names and values cannot hold one", off,
					    why);
			if (text[i] != '\\')
				continue;
			if (i + 5 < len && text[i + 1] == 'u' && text[i + 2] == '0' && text[i + 3] == '0' &&
			    text[i + 4] == '0' && text[i + 5] == '0')
				return fail(i, "\\u0000 inside a string: names and values cannot hold a NUL", off,
					    why);
			i++; /* the escaped character */
		}
	}
	return 0;
}
