/* SPDX-License-Identifier: GPL-3.0-or-later */
/* texts: the distinct texts a model shows as Paraver values (PICL -7
 * messages, user record data that is no number, subset members): each text
 * gets a value (1, 2, ... in order of first appearance, or one the caller
 * gives) and the .pcf names the values by their texts. Memory grows with
 * the distinct texts, not with the events. Used by models/msg (messages,
 * user data, subsets) and models/fileio (file names). */
#ifndef WEFT_TEXTS_H
#define WEFT_TEXTS_H

#include <stdint.h>


struct text_ent;

struct texts {
	struct text_ent *by_text; /* uthash by text */
	struct text_ent *by_value; /* uthash by value */
	struct text_ent **order;  /* in order of first appearance */
	int n, cap;
	int64_t next;             /* the next value texts_id gives */
};

/* The value of text s (new ones get the next value). */
int64_t texts_id(struct texts *t, const char *s);
/* Has `value` a text? */
int texts_has(const struct texts *t, int64_t value);
/* Name `value` by s (a later call for the same value renames it). */
void texts_set(struct texts *t, int64_t value, const char *s);
/* The i-th text in order of first appearance (0 <= i < t->n), its value
 * in *value; valid until the text is renamed or the set freed. */
const char *texts_nth(const struct texts *t, int i, int64_t *value);
void texts_free(struct texts *t);

#endif
