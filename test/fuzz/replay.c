/* SPDX-License-Identifier: GPL-3.0-or-later */
/* replay: run a fuzz target's LLVMFuzzerTestOneInput() over saved inputs
 * without libFuzzer, so the corpus is a regression test under any compiler
 * (plain, or with sanitizers).
 *
 *   fuzz_replay_TARGET PATH...
 *
 * A PATH that is a file is one input; a directory contributes every regular
 * file below it (subdirectories too, in name order; hidden entries skipped).
 * Each input is passed in a heap buffer of exactly its size. Prints
 * "TARGET: replayed N inputs" at the end; exits 2 when a path cannot be read.
 * A crash or a sanitizer report ends the process, which is the failure. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		fprintf(stderr, "replay: out of memory\n");
		return -1;
	}
	for (;;) {
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				fclose(f);
				fprintf(stderr, "replay: out of memory\n");
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		fprintf(stderr, "replay: %s: read error\n", path);
		return -1;
	}
	/* exactly-sized copy: reading one byte past the input must be caught */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		fprintf(stderr, "replay: out of memory\n");
		return -1;
	}
	if (n)
		memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	replayed++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static int replay_path(const char *path);

static int replay_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: cannot open directory: %s\n", path, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
		}
		size_t len = strlen(path) + strlen(de->d_name) + 2;
		names[n] = malloc(len);
		if (!names[n]) {
			rc = -1;
			break;
		}
		snprintf(names[n], len, "%s/%s", path, de->d_name);
		n++;
	}
	closedir(d);
	if (rc)
		fprintf(stderr, "replay: out of memory\n");
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && replay_path(names[i]))
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

static int replay_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return replay_dir(path);
	if (S_ISREG(st.st_mode))
		return replay_file(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i]))
			rc = 2;
	const char *name = strrchr(argv[0], '/');
	name = name ? name + 1 : argv[0];
	printf("%s: replayed %lu inputs\n", name, replayed);
	return rc;
}
