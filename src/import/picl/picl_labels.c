/* SPDX-License-Identifier: GPL-3.0-or-later */
/* picl_labels: -5 event label records in their scope (seed §2.3.4: "naming
 * an event type occurring in a given process and processor. By use of
 * wildcard (or subset) values, this record type can also be used to label
 * all instances of an event type, independent of the process and
 * processor, or to label a process or processor independent of the event
 * type"). A label names user event type T on a row when its event type
 * field takes T in (T itself, or a subset: Table 5's, a -203 one) and its
 * processor and process fields take the row in; the newest such record
 * (in file order) wins, as with -6 aliases. A label of event type -1 names
 * the rows in its scope. When every label is global, user block values are
 * T + 1 and the labels those of the newest global records, as always;
 * once one is scoped (scoped_labels: the log is held whole, so that every
 * label is known before any value is written), the first text T gets (in
 * order of use) has value T + 1 and each other one the next value above
 * every T + 1 of the log (M + 2, M + 3, ... for M the largest user event
 * type), so that each text has a value of its own in the .pcf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/picl/picl_int.h"

void picl_label_rec(struct picl *p, int64_t et, int64_t proc, int64_t process, const char *s, size_t n)
{
	if (et < -1 && et > -1001)
		return; /* a system event type: weft keeps its own names */
	if (et >= 0 && proc == -1 && process == -1)
		picl_add_label(p, et + 1, s, n); /* global: every row */
	else
		p->scoped_labels = 1;
	if (p->nlrec == p->clrec) {
		p->clrec = p->clrec ? 2 * p->clrec : 8;
		p->lrec = weft_xrealloc(p->lrec, (size_t) p->clrec * sizeof(*p->lrec));
	}
	struct picl_lrec *r = &p->lrec[p->nlrec++];
	r->et = et, r->proc = proc, r->process = process;
	r->text = weft_xasprintf("%.*s", (int) n, s);
}

/* Does label record r take in processor proc, process `process` (-1: a
 * row holding the processor's every process, any process)? */
static int on_row(const struct picl *p, const struct picl_lrec *r, int32_t proc, int32_t process)
{
	return picl_in_scope(p, 0, r->proc, proc) && (process < 0 || picl_in_scope(p, 1, r->process, process));
}

const char *picl_label_of(const struct picl *p, int32_t type, int32_t proc, int32_t process)
{
	for (int i = p->nlrec - 1; i >= 0; i--) {
		const struct picl_lrec *r = &p->lrec[i];
		if (r->et != -1 && picl_in_scope(p, 2, r->et, type) && on_row(p, r, proc, process))
			return r->text;
	}
	return NULL;
}

const char *picl_row_label(const struct picl *p, int32_t proc, int32_t process)
{
	for (int i = p->nlrec - 1; i >= 0; i--)
		if (p->lrec[i].et == -1 && on_row(p, &p->lrec[i], proc, process))
			return p->lrec[i].text;
	return NULL;
}

int64_t picl_label_value(struct picl *p, int32_t type, int32_t proc, int32_t process, const char **text)
{
	if (!p->scoped_labels || type < 0)
		return type >= 0 ? (int64_t) type + 1 : type;
	char def[48];
	const char *t = picl_label_of(p, type, proc, process);
	if (!t) {
		snprintf(def, sizeof(def), "user event %d", type);
		t = def;
	}
	int k = 0;
	for (int i = 0; i < p->nluse; i++)
		if (p->luse[i].type == type) {
			if (strcmp(p->luse[i].text, t) == 0) {
				*text = p->luse[i].text;
				return p->luse[i].value;
			}
			k++;
		}
	if (!p->label_next) { /* above the largest user event type of the log */
		int64_t m = 0;
		for (size_t i = 0; i < p->n; i++)
			if ((p->r[i].kind == K_UBEGIN || p->r[i].kind == K_UEND) && p->r[i].type > m)
				m = p->r[i].type;
		p->label_next = m + 2;
	}
	if (p->nluse == p->cluse) {
		p->cluse = p->cluse ? 2 * p->cluse : 8;
		p->luse = weft_xrealloc(p->luse, (size_t) p->cluse * sizeof(*p->luse));
	}
	struct picl_luse *u = &p->luse[p->nluse++];
	u->type = type;
	u->value = k ? p->label_next++ : (int64_t) type + 1;
	u->text = weft_xstrdup(t);
	picl_add_label(p, u->value, t, strlen(t));
	*text = u->text;
	return u->value;
}

void picl_labels_free(struct picl *p)
{
	for (int i = 0; i < p->nlrec; i++)
		free(p->lrec[i].text);
	free(p->lrec);
	for (int i = 0; i < p->nluse; i++)
		free(p->luse[i].text);
	free(p->luse);
	p->lrec = NULL;
	p->luse = NULL;
	p->nlrec = p->clrec = p->nluse = p->cluse = 0;
	p->scoped_labels = 0;
	p->label_next = 0;
}
