/* jsonscan: what cJSON would misread, found before it parses.
 * cJSON stops a string at a NUL (raw or \u0000) without a word, so a name
 * with one is silently cut short, and it calls text nested deeper than its
 * limit "invalid". One pass over the text (strings, escapes and comments
 * followed, since ovni's metadata may carry comments) finds the first such
 * place. */
#ifndef WEFT_JSONSCAN_H
#define WEFT_JSONSCAN_H

#include <stddef.h>

/* The nesting cJSON accepts (its CJSON_NESTING_LIMIT). */
#define JSONSCAN_MAX_DEPTH 1000

/* 0 when the text has no NUL and no nesting beyond the limit; else -1 with
 * *off the byte offset and *why what is there (a static text). */
int json_prescan(const char *text, size_t len, size_t *off, const char **why);

#endif
