/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jsonscan: what cJSON would misread or let through, found before it
 * parses. cJSON stops a string at a NUL (raw or \u0000) without a word, so
 * a name with one is silently cut short; it calls text nested deeper than
 * its limit "invalid"; and it accepts what JSON (RFC 8259) does not:
 * content after the top value, numbers with leading zeros, raw control
 * characters (a newline) inside strings, a key given twice in one object
 * (the first wins, silently). One strict pass over the grammar (comments
 * allowed, as ovni's metadata may carry them) finds the first such place,
 * its byte offset and what is there. */
#ifndef WEFT_JSONSCAN_H
#define WEFT_JSONSCAN_H

#include <stddef.h>

/* The nesting cJSON accepts (its CJSON_NESTING_LIMIT). */
#define JSONSCAN_MAX_DEPTH 1000

/* 0 when the text is one JSON value (blanks and comments around it), with
 * no NUL, no nesting beyond the limit and no key twice in an object; else
 * -1 with *off the byte offset and why[whylen] what is there. */
int json_prescan(const char *text, size_t len, size_t *off, char *why, size_t whylen);

#endif
