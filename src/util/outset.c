/* outset: temporaries, checks, then renames (see outset.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outbuf.h"
#include "util/outset.h"

void outset_init(struct outset *s, const char *dir)
{
	memset(s, 0, sizeof(*s));
	s->dir = weft_xstrdup(dir);
}

static char *hidden(const struct outset *s, const char *name, const char *what)
{
	char *flat = weft_xstrdup(name);
	for (char *c = flat; *c; c++)
		if (*c == '/')
			*c = '+';
	char *p = weft_xasprintf("%s/.%s.weft-%s-%ld", s->dir, flat, what, (long) getpid());
	free(flat);
	return p;
}

static struct outset_item *push(struct outset *s, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->it = weft_xrealloc(s->it, (size_t) s->cap * sizeof(*s->it));
	}
	struct outset_item *it = &s->it[s->n++];
	memset(it, 0, sizeof(*it));
	it->final = weft_xasprintf("%s/%s", s->dir, name);
	it->old = hidden(s, name, "old");
	return it;
}

const char *outset_add(struct outset *s, const char *name)
{
	struct outset_item *it = push(s, name);
	it->tmp = hidden(s, name, "tmp");
	return it->tmp;
}

void outset_adopt(struct outset *s, const char *tmp, const char *name)
{
	push(s, name)->tmp = weft_xstrdup(tmp);
}

int outset_write(struct outset *s, const char *name, const char *text, size_t len,
		 struct weft_err *e)
{
	const char *tmp = outset_add(s, name);
	const char *final = s->it[s->n - 1].final;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return weft_fail(e, weft_io_code(errno), "%s: cannot create: %s", final, strerror(errno));
	struct outbuf o = {.buf = (char *) text, .len = len, .cap = len, .fd = fd};
	ob_drain(&o);
	int er = o.failed;
	if (close(fd) != 0 && !er)
		er = errno;
	if (er)
		return weft_fail(e, weft_io_code(er), "%s: write failed: %s", final, strerror(er));
	return 0;
}

/* Each directory between s->dir and `final`, in turn: with `made` NULL,
 * checked to be one or absent; else created when missing, and recorded in
 * *made (deepest last) so that a failed commit can remove them. */
static int parents(const struct outset *s, const char *final, char ***made, int *nmade, struct weft_err *e)
{
	char *p = weft_xstrdup(final);
	size_t base = strlen(s->dir);
	int rc = 0;
	for (char *c = p + base + 1; *c && rc == 0; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		struct stat st;
		if (!made) {
			if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode))
				rc = weft_fail(e, WEFT_EUSAGE, "%s: not a directory, but weft writes %s in it", p,
					       final);
		} else if (mkdir(p, 0777) == 0) {
			*made = weft_xrealloc(*made, (size_t) (*nmade + 1) * sizeof(**made));
			(*made)[(*nmade)++] = weft_xstrdup(p);
		} else if (errno != EEXIST) {
			rc = weft_fail(e, weft_io_code(errno), "%s: cannot create directory: %s", p,
				       strerror(errno));
		}
		*c = '/';
	}
	free(p);
	return rc;
}

int outset_check(const struct outset *s, struct weft_err *e)
{
	for (int i = 0; i < s->n; i++) {
		const char *f = s->it[i].final;
		if (parents(s, f, NULL, NULL, e))
			return -1;
		struct stat st;
		if (lstat(f, &st) == 0 && S_ISDIR(st.st_mode))
			return weft_fail(e, WEFT_EUSAGE,
					 "%s: is a directory; weft writes a file of that name and will not "
					 "replace a directory",
					 f);
	}
	return 0;
}

static void release(struct outset *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->it[i].tmp);
		free(s->it[i].final);
		free(s->it[i].old);
	}
	free(s->it);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

void outset_abort(struct outset *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->it[i].tmp)
			unlink(s->it[i].tmp);
	release(s);
}

int outset_commit(struct outset *s, struct weft_err *e)
{
	if (outset_check(s, e)) {
		outset_abort(s);
		return -1;
	}
	char **made = NULL;
	int nmade = 0, rc = 0, done = 0;
	for (int i = 0; i < s->n && rc == 0; i++)
		rc = parents(s, s->it[i].final, &made, &nmade, e);
	/* keep the previous versions until every rename succeeded */
	for (int i = 0; i < s->n && rc == 0; i++) {
		unlink(s->it[i].old);
		s->it[i].has_old = link(s->it[i].final, s->it[i].old) == 0;
	}
	for (; done < s->n && rc == 0; done++)
		if (rename(s->it[done].tmp, s->it[done].final) != 0)
			rc = weft_fail(e, weft_io_code(errno), "cannot rename %s to %s: %s", s->it[done].tmp,
				       s->it[done].final, strerror(errno));
	if (rc) {
		for (int i = 0; i < done - 1; i++) {
			if (s->it[i].has_old)
				rename(s->it[i].old, s->it[i].final);
			else
				unlink(s->it[i].final);
		}
		for (int i = nmade; i-- > 0;)
			rmdir(made[i]);
	}
	for (int i = 0; i < s->n; i++) {
		if (s->it[i].has_old)
			unlink(s->it[i].old);
		if (rc && i >= done - 1)
			unlink(s->it[i].tmp);
	}
	for (int i = 0; i < nmade; i++)
		free(made[i]);
	free(made);
	release(s);
	return rc;
}

/* ".NAME.weft-tmp-PID" or ".NAME.weft-old-PID": the PID, else 0. */
static long left_pid(const char *name)
{
	if (name[0] != '.')
		return 0;
	const char *d = NULL;
	if (strncmp(name, RANKS_DIR, strlen(RANKS_DIR)) == 0) {
		d = name + strlen(RANKS_DIR);
	} else {
		const char *m = strstr(name, ".weft-tmp-");
		if (!m)
			m = strstr(name, ".weft-old-");
		if (!m)
			return 0;
		d = m + strlen(".weft-tmp-");
	}
	if (!*d)
		return 0;
	long pid = 0;
	for (; *d; d++) {
		if (*d < '0' || *d > '9' || pid > 100000000)
			return 0;
		pid = pid * 10 + (*d - '0');
	}
	return pid;
}

/* A killed --mpi run's part directory (its files only: ranks.c makes no
 * subdirectory), then the directory itself. */
static int sweep_ranks(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			char *p = weft_xasprintf("%s/%s", path, de->d_name);
			unlink(p);
			free(p);
		}
	closedir(d);
	return rmdir(path);
}

int outset_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		long pid = left_pid(de->d_name);
		if (pid <= 0 || pid == (long) getpid())
			continue;
		/* alive (or someone else's: EPERM) means the run may still go on */
		if (kill((pid_t) pid, 0) == 0 || errno != ESRCH)
			continue;
		char *p = weft_xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				n += unlink(p) == 0;
			else if (strncmp(de->d_name, RANKS_DIR, strlen(RANKS_DIR)) == 0)
				n += sweep_ranks(p) == 0;
		}
		free(p);
	}
	closedir(d);
	return n;
}
