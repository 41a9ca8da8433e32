/* SPDX-License-Identifier: GPL-3.0-or-later */
/* measure: run a command, report wall time and peak RSS of the child.
 * Usage: measure [-c] OUTFILE CMD ARGS...  (stdout of CMD goes to OUTFILE)
 * Prints "SECONDS MAXRSS_KIB" on stdout; with -c the seconds are the
 * child's CPU time (user + system) instead of the wall clock's. Used by
 * make bench so the report needs no /usr/bin/time. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int cpu = argc > 1 && argv[1][0] == '-' && argv[1][1] == 'c' && !argv[1][2];
	argc -= cpu;
	argv += cpu;
	if (argc < 3) {
		fprintf(stderr, "usage: measure OUTFILE CMD ARGS...\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0) {
		perror("measure");
		return 3;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (cpu)
		s = (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	printf("%.3f %ld\n", s, ru.ru_maxrss);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "measure: %s failed\n", argv[2]);
		return 1;
	}
	return 0;
}
