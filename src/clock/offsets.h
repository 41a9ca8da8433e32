/* offsets: ovnisync's clock-offset table (ovni-trace-format.md §6.2).
 * Line 1 is a header and is ignored; each further line is
 * "rank hostname median mean stddev" (ns). weft reads the median as the
 * constant offset of every loom whose host name (loom name up to the first
 * '.') equals the entry's host. Blank lines are skipped (ovniemu stops
 * reading at one). The drift table (header "wallclock host...") is
 * recognised and refused until drift correction exists. */
#ifndef WEFT_OFFSETS_H
#define WEFT_OFFSETS_H

#include <stdint.h>

#include "err.h"

struct clkoff_entry {
	char *host;
	int64_t rank, offset;
	int used;
	int line;
};

struct clkoff {
	char *path;
	struct clkoff_entry *ent;
	int n;
};

int clkoff_load(struct clkoff *t, const char *path, struct weft_err *e);
int clkoff_parse(struct clkoff *t, const char *text, size_t len, const char *path,
		 struct weft_err *e);
/* Offset for a host, or NULL when the table has no entry for it. */
struct clkoff_entry *clkoff_find(struct clkoff *t, const char *host);
void clkoff_free(struct clkoff *t);

#endif
