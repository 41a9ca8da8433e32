/* ranks: weft emu --mpi (ranks.h). Without MPI (no WEFT_MPI), stubs that
 * say so. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/engine.h"
#include "emu/jobs.h"
#include "emu/jobs_impl.h"
#include "emu/ranks.h"
#include "util/strbuf.h"

#ifndef WEFT_MPI

int ranks_init(int *argc, char ***argv, struct weft_err *err)
{
	(void) argc;
	(void) argv;
	return weft_fail(err, WEFT_EUSAGE, "--mpi: this weft was built without MPI (install Open MPI, "
			 "e.g. 'make deps', then rebuild: configure finds mpicc)");
}

int ranks_rank(void)
{
	return 0;
}

int emu_run_ranks(struct emu *e, struct weft_err *err)
{
	return emu_run(e, err);
}

int ranks_end(int rc)
{
	return rc;
}

int ranks_meet(int rc)
{
	return rc ? 0 : -1;
}

#else

#include <mpi.h>

static int rank_of(void)
{
	int r = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	return r;
}

int ranks_init(int *argc, char ***argv, struct weft_err *err)
{
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return weft_fail(err, WEFT_EINTERNAL, "--mpi: MPI_Init failed");
	return 0;
}

int ranks_rank(void)
{
	return rank_of();
}

int ranks_meet(int rc)
{
	int size = 1, me = rank_of(), low;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int mine = rc ? me : size;
	MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return low < size ? low : -1;
}

int ranks_end(int rc)
{
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return rc;
}

/* What a rank tells rank 0 when its looms are done. */
struct outcome {
	int rc, failed_model, code, fail_stream;
	uint64_t fail_time, nevents, now;
	uint64_t skipped[MCV_NCHARS];
	char msg[sizeof(((struct weft_err *) 0)->msg)];
};

/* The ring's chunks into the rank's op file, as they are published. */
struct drain {
	struct prv_pipe *ring;
	int fd;
	int err; /* errno of a failed write, 0 */
};

static void *drain_main(void *arg)
{
	struct drain *d = arg;
	uint32_t n;
	const struct prv_op *ops;
	while ((ops = prv_ring_take(d->ring, &n)) != NULL) {
		const char *p = (const char *) ops;
		size_t left = (size_t) n * sizeof(*ops);
		while (left && !d->err) {
			ssize_t w = write(d->fd, p, left);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				d->err = w < 0 ? errno : EIO;
			else
				p += w, left -= (size_t) w;
		}
		prv_ring_give(d->ring);
	}
	return NULL;
}

static char *part_path(const char *dir, int r, const char *ext)
{
	return weft_xasprintf("%s/%d.%s", dir, r, ext);
}

static int write_all(const char *path, const char *s, size_t n, struct weft_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	size_t done = 0;
	while (fd >= 0 && done < n) {
		ssize_t w = write(fd, s + done, n - done);
		if (w <= 0)
			break;
		done += (size_t) w;
	}
	int er = errno;
	if (fd >= 0 && close(fd) != 0 && done == n)
		done = n + 1;
	if (fd < 0 || done != n)
		return weft_fail(err, weft_io_code(er), "%s: cannot write: %s", path, strerror(er));
	return 0;
}

/* This rank's looms: emulated, ops to R.ops, labels to R.labels. */
static void run_mine(struct emu *e, const char *dir, int r, int lo, int hi, struct outcome *out)
{
	struct job j = {0};
	j.main = e;
	j.lo = lo;
	j.hi = hi;
	j.ring = prv_ring_new();
	j.opened = 1;
	char *ops = part_path(dir, r, "ops"), *lab = part_path(dir, r, "labels");
	struct drain d = {j.ring, -1, 0};
	pthread_t th;
	int started = 0;
	if (!j.ring) {
		weft_fail(&j.err, WEFT_EINTERNAL, "rank %d: out of memory", r);
		j.rc = -3;
	} else if ((d.fd = open(ops, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		weft_fail(&j.err, weft_io_code(errno), "rank %d: %s: cannot create: %s", r, ops, strerror(errno));
		j.rc = -3;
	} else if (pthread_create(&th, NULL, drain_main, &d) != 0) {
		weft_fail(&j.err, WEFT_EINTERNAL, "rank %d: cannot start its writer thread", r);
		j.rc = -3;
	} else {
		started = 1;
		if (job_open(&j))
			prv_ring_end(j.ring);
		else
			job_run(&j);
		pthread_join(th, NULL);
		if (d.err && j.rc == 0) {
			weft_fail(&j.err, weft_io_code(d.err), "rank %d: %s: cannot write: %s", r, ops, strerror(d.err));
			j.rc = -3;
		}
	}
	if (d.fd >= 0 && close(d.fd) != 0 && j.rc == 0) {
		weft_fail(&j.err, weft_io_code(errno), "rank %d: %s: cannot write: %s", r, ops, strerror(errno));
		j.rc = -3;
	}
	if (j.rc == 0) {
		struct strbuf b = {0};
		engine_labels_save(&j.e, &b);
		if (write_all(lab, b.s ? b.s : "", b.len, &j.err))
			j.rc = -3;
		sb_free(&b);
	}
	(void) started;
	out->rc = j.rc;
	out->failed_model = j.failed_model;
	out->code = j.err.code;
	out->fail_time = j.fail_time;
	out->fail_stream = j.fail_stream;
	out->nevents = j.e.nevents;
	out->now = j.e.now;
	memcpy(out->skipped, j.e.skipped, sizeof(out->skipped));
	memcpy(out->msg, j.err.msg, sizeof(out->msg));
	job_free(&j);
	free(ops);
	free(lab);
}

static int map_ops(struct job *j, const char *path, void **map, size_t *len, struct weft_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int er = errno;
		if (fd >= 0)
			close(fd);
		return weft_fail(err, weft_io_code(er), "%s: cannot read a rank's ops: %s", path, strerror(er));
	}
	*len = (size_t) st.st_size;
	*map = *len ? mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (*len && *map == MAP_FAILED) {
		*map = NULL;
		return weft_fail(err, WEFT_EINTERNAL, "%s: cannot map a rank's ops: %s", path, strerror(errno));
	}
	if (*len % sizeof(struct prv_op))
		return weft_fail(err, WEFT_EINTERNAL, "%s: %zu bytes: expected whole ops of %zu", path, *len,
				 sizeof(struct prv_op));
	j->op = *map;
	j->end = j->op + *len / sizeof(struct prv_op);
	return 0;
}

static int read_labels(struct emu *e, const char *path, struct weft_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return weft_fail(err, weft_io_code(errno), "%s: cannot read a rank's labels: %s", path, strerror(errno));
	struct strbuf b = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_append(&b, buf, n);
	fclose(f);
	int rc = engine_labels_load(e, b.s ? b.s : "", b.len, path, err);
	sb_free(&b);
	return rc;
}

/* Rank 0: the run's error, or the merge of every rank's ops. */
static int finish_root(struct emu *e, const char *dir, const struct outcome *all, int n, struct weft_err *err)
{
	struct job *jobs = weft_xcalloc((size_t) n, sizeof(*jobs));
	void **maps = weft_xcalloc((size_t) n, sizeof(*maps));
	size_t *lens = weft_xcalloc((size_t) n, sizeof(*lens));
	int any = 0, rc = 0;
	for (int k = 0; k < n; k++) {
		jobs[k].rc = all[k].rc;
		jobs[k].failed_model = all[k].failed_model;
		jobs[k].fail_time = all[k].fail_time;
		jobs[k].fail_stream = all[k].fail_stream;
		jobs[k].err.code = all[k].code;
		memcpy(jobs[k].err.msg, all[k].msg, sizeof(jobs[k].err.msg));
		any |= all[k].rc == -1 || all[k].rc == -3;
	}
	int main_model = -1;
	struct weft_err main_err = {0};
	if (!any) {
		prv_pipe_drain(e->pipe);
		for (int k = 0; k < n && rc == 0; k++) {
			char *p = part_path(dir, k, "ops");
			rc = map_ops(&jobs[k], p, &maps[k], &lens[k], err);
			free(p);
		}
		if (rc == 0)
			rc = jobs_merge(jobs, n, e->pipe, err);
		for (int k = 0; k < n && rc == 0; k++) {
			char *p = part_path(dir, k, "labels");
			rc = read_labels(e, p, err);
			free(p);
			e->nevents += all[k].nevents;
			e->now = all[k].now > e->now ? all[k].now : e->now;
			for (int m = 0; m < MCV_NCHARS; m++)
				e->skipped[m] += all[k].skipped[m];
		}
		if (rc == 0) {
			e->th_lo = e->th_hi = 0; /* the main run's end: reports, no thread of its own */
			if (emu_run_end(e, &main_model, &main_err) == 0)
				main_model = -1;
		}
	}
	if (rc == 0)
		rc = jobs_error(jobs, n, main_model, &main_err, err);
	for (int k = 0; k < n; k++)
		if (maps[k])
			munmap(maps[k], lens[k]);
	free(maps);
	free(lens);
	free(jobs);
	return rc;
}

static void remove_dir(const char *dir, int n)
{
	static const char *const ext[] = {"ops", "labels"};
	for (int k = 0; k < n; k++)
		for (int x = 0; x < 2; x++) {
			char *p = part_path(dir, k, ext[x]);
			unlink(p);
			free(p);
		}
	rmdir(dir);
}

int emu_run_ranks(struct emu *e, struct weft_err *err)
{
	int r = rank_of(), size = 1;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* rank 0 decides whether the run splits, and where the parts go */
	char why_buf[160], dir[4096] = "";
	int split = 0;
	if (r == 0) {
		const char *why = jobs_serial_why(e, why_buf, sizeof(why_buf));
		if (size > 1 && why && !e->o.quiet)
			fprintf(stderr, "weft: --mpi: rank 0 alone: %s\n", why);
		split = size > 1 && !why;
		if (split) {
			snprintf(dir, sizeof(dir), "%s/.weft-ranks-%ld", e->o.outdir, (long) getpid());
			if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
				weft_fail(err, weft_io_code(errno), "%s: cannot create the ranks' folder: %s", dir,
					  strerror(errno));
				split = -1;
			}
		}
	}
	MPI_Bcast(&split, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (split <= 0) {
		if (r == 0)
			return split < 0 ? -1 : emu_run(e, err);
		return 0; /* nothing for this rank */
	}
	MPI_Bcast(dir, (int) sizeof(dir), MPI_CHAR, 0, MPI_COMM_WORLD);
	int *cut = weft_xcalloc((size_t) size + 2, sizeof(int));
	int n = jobs_split(e, size, cut); /* the same on every rank: the same trace */
	e->t0 = merge_peek_time(&e->merge);
	for (int i = 0; i < e->nth; i++)
		map_release_now(&e->tr.streams[i].map, e->tr.streams[i].map.size);
	struct outcome mine;
	memset(&mine, 0, sizeof(mine));
	if (r < n)
		run_mine(e, dir, r, cut[r], cut[r + 1], &mine);
	struct outcome *all = r == 0 ? weft_xcalloc((size_t) size, sizeof(*all)) : NULL;
	MPI_Gather(&mine, (int) sizeof(mine), MPI_BYTE, all, (int) sizeof(mine), MPI_BYTE, 0, MPI_COMM_WORLD);
	int rc = 0;
	if (r == 0) {
		rc = finish_root(e, dir, all, n, err);
		remove_dir(dir, n);
	}
	free(all);
	free(cut);
	return rc;
}

#endif
