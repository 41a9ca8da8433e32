/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen: weft's differential trace generator (test/diff/README in
 * doc/dev/testing.md).
 *   gen plan SEED              a valid plan on stdout
 *   gen mutate SEED [PLAN]     PLAN (or stdin) with one mutation on stdout,
 *                              what was done on stderr
 *   gen write DIR [PLAN]       PLAN written through libovni into DIR/ovni
 *   gen trace SEED DIR [MSEED] plan (and mutate with MSEED) and write:
 *                              DIR/plan.txt, DIR/ovni, DIR/mutation.txt
 * Exit: 0 ok, 1 bad plan or libovni refused, 2 usage, 3 internal. */
#include "plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int usage(void)
{
	fprintf(stderr,
		"usage: gen plan SEED | gen mutate SEED [PLAN] | gen write DIR [PLAN] |\n"
		"       gen trace SEED DIR [MUTATION-SEED]\n");
	return 2;
}

static int parse_seed(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == 0 && end != s && *end == '\0';
}

static int load(struct plan *p, const char *path)
{
	FILE *f = path ? fopen(path, "r") : stdin;
	if (f == NULL) {
		fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = plan_read(p, f, path ? path : "stdin");
	if (path)
		fclose(f);
	return rc;
}

static int save(const struct plan *p, const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (p)
		plan_write(p, f);
	else
		fprintf(f, "%s\n", text);
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct plan p;
	uint64_t seed, mseed;
	char what[256];
	plan_init(&p);
	if (argc == 3 && !strcmp(argv[1], "plan")) {
		if (!parse_seed(argv[2], &seed))
			return usage();
		plan_generate(&p, seed);
		plan_write(&p, stdout);
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "mutate")) {
		if (!parse_seed(argv[2], &seed))
			return usage();
		if (load(&p, argc == 4 ? argv[3] : NULL) != 0)
			return 1;
		if (plan_mutate(&p, seed, what, sizeof(what)) != 0) {
			fprintf(stderr, "gen: no event to mutate\n");
			return 1;
		}
		fprintf(stderr, "%s\n", what);
		plan_write(&p, stdout);
		return 0;
	}
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "write")) {
		if (load(&p, argc == 4 ? argv[3] : NULL) != 0)
			return 1;
		return plan_play(&p, argv[2]) == 0 ? 0 : 1;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "trace")) {
		if (!parse_seed(argv[2], &seed) || (argc == 5 && !parse_seed(argv[4], &mseed)))
			return usage();
		plan_generate(&p, seed);
		if (mkdir(argv[3], 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "gen: mkdir %s: %s\n", argv[3], strerror(errno));
			return 1;
		}
		if (argc == 5) {
			if (plan_mutate(&p, mseed, what, sizeof(what)) != 0)
				return 1;
			if (save(NULL, argv[3], "mutation.txt", what) != 0)
				return 1;
		}
		if (save(&p, argv[3], "plan.txt", NULL) != 0)
			return 1;
		return plan_play(&p, argv[3]) == 0 ? 0 : 1;
	}
	return usage();
}
