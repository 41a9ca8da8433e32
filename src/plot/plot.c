/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plot: bin a .prv into pixel cells and write the SVG. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicfile.h"
#include "util/mapfile.h"
#include "util/strbuf.h"
#include "plot/labels.h"
#include "plot/palette.h"
#include "plot/plot.h"
#include "plot/types.h"
#include "prv/prvread.h"

#define NS_MAX 1024 /* distinct states (or values) told apart; more share the last */
#define LINE_SLOTS 8192 /* a power of two, more than twice PLOT_MAX_LINES */
_Static_assert(LINE_SLOTS >= 2 * PLOT_MAX_LINES && (LINE_SLOTS & (LINE_SLOTS - 1)) == 0, "line slots");

struct cell {
	uint64_t t[3];
	uint16_t s[3]; /* state index + 1; 0 = empty slot */
};

struct line {
	int x1, y1, x2, y2;
};

struct plot {
	uint64_t ftime;
	int width, nbins, rh;
	uint32_t nrows;
	struct cell *cells;       /* nbins x width */
	uint64_t *total;          /* nbins x NS_MAX: time per state */
	int64_t value[NS_MAX];    /* state index -> value */
	int nvalues;
	int32_t slot[2 * NS_MAX]; /* open addressing: value -> index, -1 empty */
	struct line *lines;
	int nlines;
	uint64_t *line_keys; /* LINE_SLOTS slots, 0 empty: the lines kept */
	uint64_t comms;
	uint64_t nnew, stride; /* lines of new pixels seen; every stride-th is kept */
	struct palette pal;
};

static int bin_of(const struct plot *p, uint32_t row)
{
	return (int) ((uint64_t) row * (uint64_t) p->nbins / p->nrows);
}

static int index_of(struct plot *p, int64_t v)
{
	uint32_t h = (uint32_t) (((uint64_t) v * 0x9e3779b97f4a7c15ull) >> 40) & (2 * NS_MAX - 1);
	for (;; h = (h + 1) & (2 * NS_MAX - 1)) {
		if (p->slot[h] < 0)
			break;
		if (p->value[p->slot[h]] == v)
			return p->slot[h];
	}
	if (p->nvalues == NS_MAX - 1) /* the last index holds every further value */
		return NS_MAX - 1;
	p->slot[h] = p->nvalues;
	p->value[p->nvalues] = v;
	return p->nvalues++;
}

static void cell_add(struct cell *c, uint16_t s, uint64_t dt)
{
	int low = 0;
	for (int i = 0; i < 3; i++) {
		if (c->s[i] == s) {
			c->t[i] += dt;
			return;
		}
		if (c->s[i] == 0) {
			c->s[i] = s;
			c->t[i] = dt;
			return;
		}
		if (c->t[i] < c->t[low])
			low = i;
	}
	/* full: the smallest gives way to a bigger share */
	if (dt > c->t[low]) {
		c->s[low] = s;
		c->t[low] = dt;
	}
}

static uint64_t col_start(const struct plot *p, int x)
{
	return (uint64_t) ((unsigned __int128) x * p->ftime / (unsigned) p->width);
}

/* Time [a, b) of value v on row `row`. */
static void interval(struct plot *p, uint32_t row, uint64_t a, uint64_t b, int64_t v)
{
	if (b > p->ftime)
		b = p->ftime;
	if (a >= b)
		return;
	int idx = index_of(p, v);
	int bin = bin_of(p, row);
	p->total[(size_t) bin * NS_MAX + (size_t) idx] += b - a;
	int x0 = (int) ((unsigned __int128) a * (unsigned) p->width / p->ftime);
	int x1 = (int) ((unsigned __int128) (b - 1) * (unsigned) p->width / p->ftime);
	if (x1 >= p->width)
		x1 = p->width - 1;
	struct cell *c = &p->cells[(size_t) bin * (size_t) p->width];
	for (int x = x0; x <= x1; x++) {
		uint64_t cs = col_start(p, x), ce = col_start(p, x + 1);
		uint64_t lo = a > cs ? a : cs, hi = b < ce ? b : ce;
		if (hi > lo)
			cell_add(&c[x], (uint16_t) (idx + 1), hi - lo);
	}
}

static int row_y(const struct plot *p, int bin);

static void line_key_put(struct plot *p, uint64_t key)
{
	uint32_t h = (uint32_t) ((key * 0x9e3779b97f4a7c15ull) >> 40) & (LINE_SLOTS - 1);
	while (p->line_keys[h] != 0 && p->line_keys[h] != key)
		h = (h + 1) & (LINE_SLOTS - 1);
	p->line_keys[h] = key;
}

static uint64_t line_key(const struct line *l)
{
	return ((uint64_t) l->x1 << 48 ^ (uint64_t) l->y1 << 32 ^ (uint64_t) l->x2 << 16 ^ (uint64_t) l->y2) + 1;
}

/* Full: every other line kept goes (the kept ones stay in time order), and
 * from now on every other new one is taken, so the lines drawn are an even
 * sample of the whole run, not its first part. */
static void lines_halve(struct plot *p)
{
	int k = 0;
	for (int i = 0; i < p->nlines; i += 2)
		p->lines[k++] = p->lines[i];
	p->nlines = k;
	memset(p->line_keys, 0, LINE_SLOTS * sizeof(*p->line_keys));
	for (int i = 0; i < p->nlines; i++)
		line_key_put(p, line_key(&p->lines[i]));
	p->stride *= 2;
}

static void comm(struct plot *p, uint32_t from, uint64_t ts, uint32_t to, uint64_t tr)
{
	p->comms++;
	struct line l = {(int) ((unsigned __int128) (ts < p->ftime ? ts : p->ftime) * (unsigned) p->width / p->ftime),
			 row_y(p, bin_of(p, from)),
			 (int) ((unsigned __int128) (tr < p->ftime ? tr : p->ftime) * (unsigned) p->width / p->ftime),
			 row_y(p, bin_of(p, to))};
	uint64_t key = line_key(&l);
	uint32_t h = (uint32_t) ((key * 0x9e3779b97f4a7c15ull) >> 40) & (LINE_SLOTS - 1);
	for (;; h = (h + 1) & (LINE_SLOTS - 1)) {
		if (p->line_keys[h] == key)
			return; /* the same pixels: drawn already */
		if (p->line_keys[h] == 0)
			break;
	}
	if (p->nnew++ % p->stride != 0)
		return;
	if (p->nlines == PLOT_MAX_LINES)
		lines_halve(p);
	line_key_put(p, key);
	p->lines[p->nlines++] = l;
}

/* ---- layout ---------------------------------------------------------------- */

enum { LM = 170, TM = 48, GAP = 28, BW = 220, RM = 16, AXIS = 36 };

static int row_y(const struct plot *p, int bin)
{
	return TM + bin * p->rh + p->rh / 2;
}

/* The colour wxParaver gives the value (palette.h). */
static void color_of(const struct plot *p, int64_t v, unsigned char rgb[3])
{
	palette_color(&p->pal, v, rgb);
}

/* Text into the SVG: XML's five specials escaped, control characters
 * (which XML 1.0 does not allow) dropped, and bytes that are not UTF-8
 * replaced by U+FFFD, so any label of any trace gives a valid file. */
static void put_escaped(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t n = strlen(s);
	while (n > 0) {
		size_t k = utf8_seq(p, n);
		if (k == 0)
			fputs("\xef\xbf\xbd", f);
		else if (k > 1)
			fwrite(p, 1, k, f);
		else if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else if (*p >= 0x20 && *p != 0x7f)
			fputc(*p, f);
		k = k ? k : 1;
		p += k;
		n -= k;
	}
}

static const char *value_name(const struct plot_labels *lb, int64_t type, int64_t v)
{
	const struct plot_type *t = type >= 0 ? labels_type(lb, type) : NULL;
	const struct plot_label *l = type >= 0 ? (t ? labels_find(t->values, t->nvalues, v) : NULL)
					       : labels_find(lb->states, lb->nstates, v);
	return l && l->text ? l->text : "";
}

/* The axis unit and a step of 1, 2 or 5 x 10^k giving at most 10 ticks. */
static void axis(uint64_t ftime, const char **unit, double *div, uint64_t *step)
{
	static const struct {
		const char *name;
		double div;
		uint64_t below;
	} units[] = {{"ns", 1, 10000}, {"us", 1e3, 10000000}, {"ms", 1e6, 10000000000ull}, {"s", 1e9, UINT64_MAX}};
	int u = 0;
	while (ftime >= units[u].below)
		u++;
	*unit = units[u].name;
	*div = units[u].div;
	uint64_t s = 1;
	for (;;) {
		if (ftime / s <= 10)
			break;
		if (ftime / (2 * s) <= 10) {
			s *= 2;
			break;
		}
		if (ftime / (5 * s) <= 10) {
			s *= 5;
			break;
		}
		s *= 10;
	}
	*step = s;
}

/* Indices in value order (insertion sort: at most NS_MAX, once). */
static void sort_by_value(const struct plot *p, int *order, int n)
{
	for (int i = 1; i < n; i++) {
		int k = order[i], j = i;
		for (; j > 0 && p->value[order[j - 1]] > p->value[k]; j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
}

/* The time grid and axis under the rows. */
static void svg_axis(FILE *f, const struct plot *p, int W, int H, const char *unit, double div, uint64_t step)
{
	/* time grid and axis */
	fprintf(f, "<g>\n");
	for (uint64_t t = 0; t <= p->ftime; t += step) {
		double x = LM + (double) t * W / (double) p->ftime;
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, TM, x, TM + H);
		fprintf(f, "<line class=\"ax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, TM + H, x, TM + H + 5);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.6g</text>\n", x, TM + H + 17,
			(double) t / div);
		if (t > UINT64_MAX - step)
			break;
	}
	fprintf(f, "<line class=\"ax\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", LM, TM + H, LM + W, TM + H);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (%s)</text>\n</g>\n", LM + W / 2,
		TM + H + 32, unit);
}

/* The rows (runs of one dominant value a pixel) and their names. */
static void svg_rows(FILE *f, const struct plot *p, const struct plot_labels *lb, int W)
{
	/* rows: runs of one dominant value */
	fputs("<g shape-rendering=\"crispEdges\">\n", f);
	for (int b = 0; b < p->nbins; b++) {
		const struct cell *c = &p->cells[(size_t) b * (size_t) W];
		int run = 0, start = 0;
		for (int x = 0; x <= W; x++) {
			int dom = 0;
			if (x < W) {
				uint64_t best = 0;
				for (int i = 0; i < 3; i++)
					if (c[x].s[i] && c[x].t[i] > best) {
						best = c[x].t[i];
						dom = c[x].s[i];
					}
			}
			if (dom == run)
				continue;
			if (run)
				fprintf(f, "<rect class=\"s%d\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", run - 1,
					LM + start, TM + b * p->rh, x - start, p->rh);
			run = dom;
			start = x;
		}
	}
	fputs("</g>\n", f);
	/* row names */
	int every = p->rh >= 10 ? 1 : (12 + p->rh - 1) / p->rh;
	fprintf(f, "<g font-size=\"%d\" text-anchor=\"end\">\n", p->rh >= 14 ? 11 : 9);
	for (int b = 0; b < p->nbins; b += every) {
		uint32_t r0 = (uint32_t) (((uint64_t) b * p->nrows + (uint64_t) p->nbins - 1) / (uint64_t) p->nbins);
		uint32_t r1 = (uint32_t) (((uint64_t) (b + 1) * p->nrows + (uint64_t) p->nbins - 1) / (uint64_t) p->nbins);
		fprintf(f, "<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\">", LM - 6, row_y(p, b));
		if (r1 - r0 <= 1 && r0 < (uint32_t) lb->nrows)
			put_escaped(f, lb->rows[r0]);
		else if (r1 - r0 <= 1)
			fprintf(f, "row %u", r0 + 1);
		else
			fprintf(f, "rows %u-%u", r0 + 1, r1);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

/* Time per state per row: stacked bars, a full bar = the whole trace; the
 * frames of the bars and of the rows. */
static void svg_bars(FILE *f, const struct plot *p, const int *order, int nord, int by_type, int W, int H)
{
	/* time per state per row: stacked bars, a full bar = the whole trace */
	int bx = LM + W + GAP;
	fprintf(f, "<text x=\"%d\" y=\"%d\">time per %s per row</text>\n<g shape-rendering=\"crispEdges\">\n", bx,
		TM - 6, by_type ? "value" : "state");
	for (int b = 0; b < p->nbins; b++) {
		/* rows r with bin_of(r) == b: ceil(b R / B) .. ceil((b + 1) R / B) - 1 */
		uint64_t r0 = ((uint64_t) b * p->nrows + (uint64_t) p->nbins - 1) / (uint64_t) p->nbins;
		uint64_t r1 = ((uint64_t) (b + 1) * p->nrows + (uint64_t) p->nbins - 1) / (uint64_t) p->nbins;
		uint64_t nr = r1 - r0;
		double cap = (double) p->ftime * (nr ? nr : 1), x = bx;
		for (int k = 0; k < nord; k++) {
			uint64_t t = p->total[(size_t) b * NS_MAX + (size_t) order[k]];
			if (!t)
				continue;
			double w = BW * (double) t / cap;
			fprintf(f, "<rect class=\"s%d\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"/>\n", order[k], x,
				TM + b * p->rh, w, p->rh > 2 ? p->rh - 1 : p->rh);
			x += w;
		}
	}
	fprintf(f, "</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", bx,
		TM, BW, H);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", LM, TM, W,
		H);
}

/* The legend: each value drawn, its color and its share of all time. */
static void svg_legend(FILE *f, const struct plot *p, const struct plot_labels *lb, const int *order, int nord,
		       int64_t type, const uint64_t *per, uint64_t all, int legend_cols, int legend_y)
{
	/* legend */
	fprintf(f, "<text x=\"16\" y=\"%d\" font-weight=\"bold\">%s (share of all rows' time)</text>\n", legend_y + 4,
		type >= 0 ? "Values" : "States");
	for (int k = 0; k < nord; k++) {
		int col = k % legend_cols, rowi = k / legend_cols;
		int x = 16 + col * 230, y = legend_y + 16 + rowi * 18;
		fprintf(f, "<rect class=\"s%d\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" stroke=\"#444\"/>", order[k],
			x, y);
		fprintf(f, "<text x=\"%d\" y=\"%d\">%lld ", x + 17, y + 10, (long long) p->value[order[k]]);
		if (order[k] == NS_MAX - 1)
			fputs("and further values", f);
		else
			put_escaped(f, value_name(lb, type, p->value[order[k]]));
		fprintf(f, " (%.1f%%)</text>\n", all ? 100.0 * (double) per[order[k]] / (double) all : 0.0);
	}
}

static void write_svg(FILE *f, struct plot *p, const struct plot_labels *lb, int64_t type, const char *name)
{
	int by_type = type >= 0;
	int W = p->width, H = p->nbins * p->rh;
	/* the values drawn, in value order, with their share of all time */
	int order[NS_MAX], nord = 0;
	uint64_t all = 0, per[NS_MAX];
	memset(per, 0, sizeof(per));
	for (int b = 0; b < p->nbins; b++)
		for (int i = 0; i < p->nvalues; i++)
			per[i] += p->total[(size_t) b * NS_MAX + (size_t) i];
	for (int i = 0; i < p->nvalues; i++) {
		all += per[i];
		if (per[i])
			order[nord++] = i;
	}
	sort_by_value(p, order, nord);
	int legend_cols = (LM + W + GAP + BW + RM - 2 * 16) / 230;
	if (legend_cols < 1)
		legend_cols = 1;
	int legend_y = TM + H + AXIS + 20;
	int legend_rows = (nord + legend_cols - 1) / legend_cols;
	int total_w = LM + W + GAP + BW + RM;
	int total_h = legend_y + 22 + legend_rows * 18 + 30;
	const char *unit;
	double div;
	uint64_t step;
	axis(p->ftime, &unit, &div, &step);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "font-family=\"sans-serif\" font-size=\"11\">\n",
		total_w, total_h, total_w, total_h);
	fputs("<style>text{fill:#222}.ax{stroke:#444;stroke-width:1}.grid{stroke:#ddd;stroke-width:1}"
	      ".c{stroke:#000;stroke-width:0.7;stroke-opacity:0.55}", f);
	for (int k = 0; k < nord; k++) {
		unsigned char rgb[3];
		color_of(p, p->value[order[k]], rgb);
		fprintf(f, ".s%d{fill:#%02x%02x%02x}", order[k], rgb[0], rgb[1], rgb[2]);
	}
	fputs("</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", f);
	fputs("<text x=\"16\" y=\"22\" font-size=\"14\" font-weight=\"bold\">", f);
	put_escaped(f, name);
	fprintf(f, "</text>\n<text x=\"16\" y=\"38\">%u rows%s, %.6g %s, %s</text>\n", p->nrows,
		(uint32_t) p->nbins < p->nrows ? " (summarised: each drawn row is a group of rows, each pixel its "
						 "state with the most time)"
						: "",
		(double) p->ftime / div, unit, by_type ? "values of event type" : "states");
	if (by_type) {
		const struct plot_type *t = labels_type(lb, type);
		fprintf(f, "<text x=\"%d\" y=\"38\">%lld ", LM + W - 300, (long long) type);
		put_escaped(f, t ? t->name : "");
		fputs("</text>\n", f);
	}
	svg_axis(f, p, W, H, unit, div, step);
	svg_rows(f, p, lb, W);
	/* communication lines */
	if (p->nlines) {
		fputs("<g>\n", f);
		for (int i = 0; i < p->nlines; i++)
			fprintf(f, "<line class=\"c\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", LM + p->lines[i].x1,
				p->lines[i].y1, LM + p->lines[i].x2, p->lines[i].y2);
		fputs("</g>\n", f);
	}
	svg_bars(f, p, order, nord, by_type, W, H);
	svg_legend(f, p, lb, order, nord, type, per, all, legend_cols, legend_y);
	int ny = legend_y + 22 + legend_rows * 18 + 6;
	if (p->comms)
		fprintf(f,
			"<text x=\"16\" y=\"%d\">%llu communications, %d lines drawn (one per pixel path; "
			"beyond %d, an even sample over the whole run)</text>\n",
			ny, (unsigned long long) p->comms, p->nlines, PLOT_MAX_LINES);
	fputs("</svg>\n", f);
}

static struct plot *plot_new(const struct prvread *r, const struct plot_opts *o, const struct plot_labels *lb)
{
	struct plot *p = weft_xcalloc(1, sizeof(*p));
	memset(p->slot, 0xff, sizeof(p->slot));
	p->ftime = r->ftime ? r->ftime : 1;
	p->width = o->width > 0 ? o->width : 1000;
	p->nrows = r->nrows;
	int maxr = o->max_rows > 0 ? o->max_rows : 400;
	p->nbins = r->nrows < (uint32_t) maxr ? (int) r->nrows : maxr;
	if (p->nbins < 1)
		p->nbins = 1;
	p->rh = p->nbins <= 24 ? 20 : (600 / p->nbins > 20 ? 20 : (600 / p->nbins < 1 ? 1 : 600 / p->nbins));
	p->cells = weft_xcalloc((size_t) p->nbins * (size_t) p->width, sizeof(*p->cells));
	p->total = weft_xcalloc((size_t) p->nbins * NS_MAX, sizeof(*p->total));
	p->lines = weft_xcalloc(PLOT_MAX_LINES, sizeof(*p->lines));
	p->line_keys = weft_xcalloc(LINE_SLOTS, sizeof(*p->line_keys));
	p->stride = 1;
	palette_init(&p->pal);
	for (int i = 0; i < lb->nstates; i++)
		if (lb->states[i].has_rgb)
			palette_set(&p->pal, lb->states[i].value, lb->states[i].rgb);
	return p;
}

static void plot_free(struct plot *p)
{
	if (!p)
		return;
	palette_free(&p->pal);
	free(p->cells);
	free(p->total);
	free(p->lines);
	free(p->line_keys);
	free(p);
}

/* One pass over the trace: the states (type -1) or the values of `type`
 * into a new plot *pp; every type's records counted into tc. */
static int plot_pass(const struct plot_opts *o, const struct plot_labels *lb, int64_t type, struct plot **pp,
		     struct type_counts *tc, struct plot_stats *st, struct weft_err *err)
{
	struct prvread r;
	*pp = NULL;
	if (prvread_open(&r, o->prv, err)) {
		prvread_close(&r);
		return -1;
	}
	struct plot *p = *pp = plot_new(&r, o, lb);
	types_init(tc);
	/* --type: each row's last value and since when */
	int64_t *last_v = NULL;
	uint64_t *last_t = NULL;
	if (type >= 0) {
		last_v = weft_xcalloc((size_t) r.nrows + 1, sizeof(*last_v));
		last_t = weft_xcalloc((size_t) r.nrows + 1, sizeof(*last_t));
	}
	memset(st, 0, sizeof(*st));
	st->type = type;
	struct prvrec rec;
	int rc;
	while ((rc = prvread_next(&r, &rec, err)) == 1) {
		st->records++;
		if (rec.kind == 1 && type < 0 && rec.state != 0) {
			interval(p, rec.row, rec.t0, rec.t1, rec.state);
			st->intervals++;
		} else if (rec.kind == 2) {
			for (int i = 0; i < rec.npairs; i++) {
				if (rec.value[i] != 0)
					types_count(tc, rec.type[i]);
				if (rec.type[i] != type)
					continue;
				if (last_v[rec.row] != 0) {
					interval(p, rec.row, last_t[rec.row], rec.t0, last_v[rec.row]);
					st->intervals++;
				}
				last_v[rec.row] = rec.value[i];
				last_t[rec.row] = rec.t0;
			}
		} else if (rec.kind == 3) {
			comm(p, rec.row, rec.t0, rec.row2, rec.t1);
		}
	}
	if (rc == 0 && type >= 0)
		for (uint32_t row = 0; row < r.nrows; row++)
			if (last_v[row] != 0)
				interval(p, row, last_t[row], p->ftime, last_v[row]);
	st->rows = r.nrows;
	st->bins = (uint32_t) p->nbins;
	st->comms = p->comms;
	st->lines = (uint64_t) p->nlines;
	st->ftime = r.ftime;
	prvread_close(&r);
	free(last_v);
	free(last_t);
	return rc;
}

static int write_file(const struct plot_opts *o, struct plot *p, const struct plot_labels *lb, int64_t type,
		      struct weft_err *err)
{
	char *tmp;
	int fd = atomic_open(o->out, &tmp, err);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	if (!f)
		return atomic_commit(fd, tmp, o->out, weft_out_fail(err, errno, "%s: cannot write", o->out), err);
	const char *name = strrchr(o->prv, '/') ? strrchr(o->prv, '/') + 1 : o->prv;
	errno = 0;
	write_svg(f, p, lb, type, name);
	int bad = fflush(f) != 0 || ferror(f) || fsync(fd) != 0;
	int er = errno ? errno : EIO;
	int wrc = bad ? weft_out_fail(err, er, "%s: write failed", o->out) : 0;
	if (fclose(f) != 0 && !wrc)
		wrc = weft_out_fail(err, errno, "%s: write failed", o->out);
	return atomic_commit(-1, tmp, o->out, wrc, err);
}

int plot_svg(const struct plot_opts *o, struct plot_stats *st, struct weft_err *err)
{
	struct plot_labels lb;
	int rc = labels_load(&lb, o->prv, err);
	int64_t type = o->type;
	if (rc == 0 && o->type_label)
		rc = types_resolve(&lb, o->prv, o->type_label, &type, err);
	struct plot *p = NULL;
	struct type_counts *tc = weft_xmalloc(sizeof(*tc));
	if (rc == 0)
		rc = plot_pass(o, &lb, type, &p, tc, st, err);
	if (rc == 0 && type >= 0 && types_records(tc, type) == 0) {
		char list[2048];
		types_list(tc, &lb, list, sizeof(list));
		const struct plot_type *t = labels_type(&lb, type);
		rc = weft_fail(err, WEFT_EUSAGE, "--type %lld%s%s%s: %s has no record of it; %s%s", (long long) type,
			       t ? " (" : "", t ? t->name : "", t ? ")" : "", o->prv,
			       tc->ntypes ? "the types with records: " : "it has no event records",
			       tc->ntypes ? list : "");
	}
	if (rc == 0 && type < 0 && st->intervals == 0 && (type = types_main(tc)) >= 0) {
		/* no states (cpu.prv): the main type, in a second pass */
		plot_free(p);
		rc = plot_pass(o, &lb, type, &p, tc, st, err);
		st->chosen = 1;
	}
	if (rc == 0)
		rc = map_inputs_check(err); /* the trace shrank while read: no picture of it */
	if (rc == 0)
		rc = write_file(o, p, &lb, st->type, err);
	free(tc);
	plot_free(p);
	labels_free(&lb);
	return rc;
}
