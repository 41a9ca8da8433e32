/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jline: one line of JSON as a small tree, numbers kept as their text.
 * weft attach reads weft serve's messages with it: cJSON holds numbers as
 * doubles, which would round the raw clocks and 64-bit payload fields it
 * prints. Strings are decoded (\uXXXX as UTF-8; \u0000..\u00ff, which
 * weft writes for single bytes, as those bytes). */
#ifndef WEFT_JLINE_H
#define WEFT_JLINE_H

#include <stddef.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type t;
	char *key; /* a member's name (decoded), or NULL */
	char *s; /* JV_STR: the decoded bytes; JV_NUM, JV_BOOL: the text */
	size_t n; /* bytes of s */
	struct jv *kid; /* JV_ARR, JV_OBJ: members in order */
	int nkid;
};

/* 0 with *v filled (free with jv_free), or -1 (not one JSON value). */
int jv_parse(const char *text, size_t n, struct jv *v);
void jv_free(struct jv *v);
/* The member of an object by name, or NULL. */
const struct jv *jv_get(const struct jv *obj, const char *key);

#endif
