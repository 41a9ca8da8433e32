/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cfgview: read and adjust the lines of a view file that say what it shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prv/cfgview.h"
#include "util/strbuf.h"
#include "util/macros.h"

static int starts(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);
	return (size_t) (end - s) >= n && memcmp(s, word, n) == 0;
}

static int contains(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);
	for (; (size_t) (end - s) >= n; s++)
		if (memcmp(s, word, n) == 0)
			return 1;
	return 0;
}

static const struct {
	const char *word;
	enum cfgview_color color;
} colors[] = {
	{"window_in_code_mode", CFGVIEW_COLOR_CODE},
	{"window_in_gradient_mode", CFGVIEW_COLOR_GRADIENT},
	{"window_in_null_gradient_mode", CFGVIEW_COLOR_GRADIENT},
	{"window_in_alternative_gradient_mode", CFGVIEW_COLOR_GRADIENT},
	{"window_in_punctual_mode", CFGVIEW_COLOR_OTHER},
	{"window_in_functionline_mode", CFGVIEW_COLOR_OTHER},
	{"window_in_fusedlines_mode", CFGVIEW_COLOR_OTHER},
};

int cfgview_parse(const char *text, size_t len, struct cfgview *v, char *msg, size_t msglen)
{
	memset(v, 0, sizeof(*v));
	const char *p = text, *end = text + len;
	for (int line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t) (end - p));
		const char *le = nl ? nl : end;
		char buf[512];
		size_t n = (size_t) (le - p) < sizeof(buf) - 1 ? (size_t) (le - p) : sizeof(buf) - 1;
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (starts(p, le, "< NEW DISPLAYING WINDOW"))
			v->nwindows++;
		else if (starts(p, le, "window_selected_functions")) {
			v->states |= contains(p, le, "{thread, State As Is}");
			v->events |= contains(p, le, "{thread, Last Evt Val}") || contains(p, le, "{thread, Next Evt Val}") ||
				     contains(p, le, "{thread, Last Evt Val w/o Bursts}");
		} else if (starts(p, le, "window_color_mode ")) {
			const char *w = buf + strlen("window_color_mode ");
			v->color = CFGVIEW_COLOR_OTHER;
			for (size_t i = 0; i < ARRAY_SIZE(colors); i++)
				if (strcmp(w, colors[i].word) == 0)
					v->color = colors[i].color;
		} else if (starts(p, le, "window_minimum_y ") || starts(p, le, "window_maximum_y ")) {
			char *e;
			double d = strtod(buf + strlen("window_minimum_y "), &e);
			if (e == buf + strlen("window_minimum_y ") || *e) {
				snprintf(msg, msglen, "line %d: expected a number after %.16s, found \"%s\"", line, buf,
					 buf + 17);
				return -1;
			}
			if (buf[7] == 'm' && buf[8] == 'i') {
				v->has_min = 1;
				v->min = d;
			} else {
				v->has_max = 1;
				v->max = d;
			}
		} else if (starts(p, le, "window_compute_y_max")) {
			v->compute_y = strcmp(buf, "window_compute_y_max true") == 0 ||
				strcmp(buf, "window_compute_y_max") == 0;
		} else if (starts(p, le, "window_filter_module evt_type ")) {
			const char *s = buf + strlen("window_filter_module evt_type ");
			char *e;
			long cnt = strtol(s, &e, 10);
			if (e == s || cnt < 1 || cnt > CFGVIEW_MAX_TYPES) {
				snprintf(msg, msglen, "line %d: expected a type count 1-%d after evt_type, found \"%s\"",
					 line, CFGVIEW_MAX_TYPES, s);
				return -1;
			}
			for (long i = 0; i < cnt; i++) {
				s = e;
				long t = strtol(s, &e, 10);
				if (e == s) {
					snprintf(msg, msglen, "line %d: evt_type names %ld types, found %ld", line, cnt, i);
					return -1;
				}
				v->types[v->ntypes++] = (int32_t) t;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static const struct {
	const char *dir;
	int file;
} files[] = {
	{"thread/", 0},
	{"cpu/", 1},
};

int cfgview_file(const char *rel, char *model, size_t modellen)
{
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		size_t n = strlen(files[i].dir);
		if (strncmp(rel, files[i].dir, n) != 0)
			continue;
		const char *m = rel + n, *slash = strchr(m, '/');
		size_t len = strlen(rel);
		if (!slash || slash == m || strchr(slash + 1, '/') || len < 4 || strcmp(rel + len - 4, ".cfg") ||
		    slash + 1 == rel + len - 4)
			return -1;
		if (model)
			snprintf(model, modellen, "%.*s", (int) (slash - m), m);
		if (files[i].file == 1 && strncmp(slash + 1, "breakdown", 9) == 0)
			return CFGVIEW_BREAKDOWN;
		return files[i].file;
	}
	return -1;
}

char *cfgview_rewrite(const char *text, int64_t max, int32_t type, const char *suffix)
{
	struct strbuf b = {0};
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *le = nl ? nl : p + strlen(p);
		if (starts(p, le, "window_maximum_y "))
			sb_printf(&b, "window_maximum_y %lld.000000000000", (long long) max);
		else if (type >= 0 && starts(p, le, "window_filter_module evt_type "))
			sb_printf(&b, "window_filter_module evt_type 1 %d", (int) type);
		else if (type >= 0 && starts(p, le, "window_name ")) {
			/* the suffix names a mark from the trace: kept to the line */
			sb_printf(&b, "%.*s", (int) (le - p), p);
			sb_text(&b, suffix);
		} else if (type >= 0 && starts(p, le, "< NEW DISPLAYING WINDOW ") && le - p > 2) {
			sb_printf(&b, "%.*s", (int) (le - p - 2), p);
			sb_text(&b, suffix);
			sb_printf(&b, " >");
		} else
			sb_append(&b, p, (size_t) (le - p));
		if (nl)
			sb_append(&b, "\n", 1);
		p = nl ? nl + 1 : le;
	}
	return b.s ? b.s : calloc(1, 1);
}
