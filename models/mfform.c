/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mfform: the compiled form's lookup (mfform.h). */
#include <stddef.h>

#include "mfform.h"

const char *mf_label(const struct mf_chan *c, int64_t v)
{
	for (int i = 0; i < c->nlabels; i++)
		if (c->labels[i].value == v)
			return c->labels[i].label;
	return NULL;
}
