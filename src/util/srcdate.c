/* SPDX-License-Identifier: GPL-3.0-or-later */
/* srcdate: SOURCE_DATE_EPOCH, read strictly (digits only, no sign, no
 * blanks): a malformed value is an error, never silently the wall clock. */
#include <stdlib.h>

#include "util/srcdate.h"

int source_date_epoch(int64_t *t, struct weft_err *e)
{
	const char *v = getenv("SOURCE_DATE_EPOCH");
	if (!v || !*v)
		return 0;
	int64_t x = 0;
	const char *p = v;
	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (*p - '0');
		if (x > SRCDATE_MAX)
			break;
	}
	if (*p || x > SRCDATE_MAX)
		return weft_fail(e, WEFT_EINPUT,
				 "SOURCE_DATE_EPOCH: expected a decimal count of seconds since 1970-01-01 00:00 "
				 "UTC (at most %lld), found '%.100s'",
				 SRCDATE_MAX, v);
	*t = x;
	return 1;
}
