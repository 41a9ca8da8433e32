/* SPDX-License-Identifier: GPL-3.0-or-later */
/* drvbench: time weft serve with analysers that only read (the paper's
 * "degenerated mediator": a program that reads the trace data and drops
 * it), or time a command alone, in CPU seconds (this machine is shared:
 * wall time measures the neighbours too).
 *
 *   drvbench serve WEFT TRACE "SERVE OPTS" -- PATTERNS... [-- PATTERNS...]...
 *       one analyser per "--" group (its patterns: one argument each); an
 *       empty group is an analyser without patterns. Prints
 *       "CPU WALL MSGS BYTES": the server's user+sys seconds, the seconds
 *       from the first go to the last end, the event messages and bytes
 *       the analysers got in all.
 *   drvbench run CMD ARGS...
 *       CMD with its output dropped; prints "CPU WALL".
 * Build: cc -O2 -o drvbench test/bench/drvbench.c */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static double cpu_of(const struct rusage *ru)
{
	return (double) ru->ru_utime.tv_sec + (double) ru->ru_utime.tv_usec / 1e6 + (double) ru->ru_stime.tv_sec +
		(double) ru->ru_stime.tv_usec / 1e6;
}

static pid_t spawn(char **argv, int quiet)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		if (quiet)
			dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int finish(pid_t pid, double *cpu)
{
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0)
		return -1;
	*cpu = cpu_of(&ru);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void send_all(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0) {
			perror("drvbench: write");
			exit(1);
		}
		s += w;
		n -= (size_t) w;
	}
}

/* A JSON string of s (patterns hold quotes). */
static void json_str(char *dst, size_t cap, const char *s)
{
	size_t k = 0;
	dst[k++] = '"';
	for (; *s && k + 3 < cap; s++) {
		if (*s == '"' || *s == '\\')
			dst[k++] = '\\';
		dst[k++] = *s;
	}
	dst[k++] = '"';
	dst[k] = '\0';
}

struct ana {
	int fd;
	char buf[1 << 16];
	size_t len;
	int ended;
	unsigned long long msgs, bytes;
};

/* Count event lines ({"labels"...) of what came; the end line ends it. */
static void take(struct ana *a, const char *p, size_t n)
{
	a->bytes += n;
	for (size_t i = 0; i < n; i++) {
		if (a->len < sizeof(a->buf))
			a->buf[a->len++] = p[i];
		if (p[i] != '\n')
			continue;
		if (a->len > 10 && memcmp(a->buf, "{\"labels\"", 9) == 0)
			a->msgs++;
		else if (a->len > 7 && memcmp(a->buf, "{\"end\"", 6) == 0)
			a->ended = 1;
		a->len = 0;
	}
}

static int cmd_serve(int argc, char **argv)
{
	/* drvbench serve WEFT TRACE OPTS -- P... -- P... */
	if (argc < 5)
		return 2;
	char dir[] = "/tmp/drvbench-XXXXXX";
	if (!mkdtemp(dir))
		return 3;
	char sock[128];
	snprintf(sock, sizeof(sock), "%s/s", dir);
	char *sargv[64];
	int k = 0;
	sargv[k++] = argv[1];
	sargv[k++] = "serve";
	sargv[k++] = "--socket";
	sargv[k++] = sock;
	char *opts = strdup(argv[3]);
	for (char *t = strtok(opts, " "); t && k < 60; t = strtok(NULL, " "))
		sargv[k++] = t;
	int nana = 0;
	for (int i = 4; i < argc; i++)
		nana += strcmp(argv[i], "--") == 0;
	char wait[32];
	snprintf(wait, sizeof(wait), "%d", nana);
	sargv[k++] = "--wait";
	sargv[k++] = wait;
	sargv[k++] = argv[2];
	sargv[k] = NULL;
	pid_t srv = spawn(sargv, 0);
	struct stat st;
	for (int i = 0; i < 6000 && stat(sock, &st) != 0; i++)
		usleep(10000);
	struct ana *a = calloc((size_t) nana, sizeof(*a));
	int cur = -1;
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			cur++;
			a[cur].fd = socket(AF_UNIX, SOCK_STREAM, 0);
			struct sockaddr_un ad = {.sun_family = AF_UNIX};
			strcpy(ad.sun_path, sock);
			if (connect(a[cur].fd, (struct sockaddr *) &ad, sizeof(ad)) != 0) {
				perror("drvbench: connect");
				return 1;
			}
			continue;
		}
		char req[8192], js[8000];
		json_str(js, sizeof(js), argv[i]);
		snprintf(req, sizeof(req), "{\"add\":%s}\n", js);
		send_all(a[cur].fd, req);
	}
	double t0 = now();
	for (int i = 0; i < nana; i++)
		send_all(a[i].fd, "{\"go\":true}\n");
	struct pollfd *p = calloc((size_t) nana, sizeof(*p));
	int open_n = nana;
	static char buf[1 << 20];
	while (open_n > 0) {
		for (int i = 0; i < nana; i++)
			p[i] = (struct pollfd){.fd = a[i].ended ? -1 : a[i].fd, .events = POLLIN};
		if (poll(p, (nfds_t) nana, -1) < 0 && errno != EINTR)
			return 3;
		for (int i = 0; i < nana; i++) {
			if (!p[i].revents)
				continue;
			ssize_t r = read(a[i].fd, buf, sizeof(buf));
			if (r <= 0) {
				a[i].ended = 1;
			} else {
				take(&a[i], buf, (size_t) r);
			}
			if (a[i].ended)
				open_n--;
		}
	}
	double t1 = now();
	double cpu;
	int rc = finish(srv, &cpu);
	unsigned long long msgs = 0, bytes = 0;
	for (int i = 0; i < nana; i++) {
		msgs += a[i].msgs;
		bytes += a[i].bytes;
		close(a[i].fd);
	}
	rmdir(dir);
	printf("%.3f %.3f %llu %llu\n", cpu, t1 - t0, msgs, bytes);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return cmd_serve(argc - 1, argv + 1);
	if (argc >= 3 && strcmp(argv[1], "run") == 0) {
		double t0 = now(), cpu;
		pid_t pid = spawn(argv + 2, 0);
		int rc = finish(pid, &cpu);
		printf("%.3f %.3f\n", cpu, now() - t0);
		return rc ? 1 : 0;
	}
	fprintf(stderr, "usage: drvbench serve WEFT TRACE OPTS -- PATTERN... | drvbench run CMD...\n");
	return 2;
}
