/* SPDX-License-Identifier: GPL-3.0-or-later */
/* onexit: the exit handlers (see onexit.h). */
#include <stdlib.h>

#include "util/onexit.h"

struct handler {
	void (*fn)(void *);
	void *arg;
};

static struct handler slot[ONEXIT_MAX];
static int nslot, hooked;

static void run_all(void)
{
	while (nslot > 0) {
		nslot--;
		slot[nslot].fn(slot[nslot].arg);
	}
}

void onexit_add(void (*fn)(void *), void *arg)
{
	if (!hooked)
		hooked = atexit(run_all) == 0;
	if (nslot < ONEXIT_MAX)
		slot[nslot++] = (struct handler){fn, arg};
}

void onexit_remove(void *arg)
{
	for (int i = nslot; i-- > 0;)
		if (slot[i].arg == arg) {
			for (int k = i; k + 1 < nslot; k++)
				slot[k] = slot[k + 1];
			nslot--;
			return;
		}
}
