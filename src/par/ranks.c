/* SPDX-License-Identifier: GPL-3.0-or-later */
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

#include "engine/engine.h"
#include "par/jobs.h"
#include "par/jobs_impl.h"
#include "emu/paraver_out.h"
#include "emu/share.h"
#include "emu/sinks.h"
#include "par/ranks.h"
#include "par/slices.h"
#include "util/outset.h"
#include "util/strbuf.h"

#ifndef WEFT_MPI

int ranks_init(int *argc, char ***argv, struct weft_err *err)
{
	(void) argc;
	(void) argv;
	return weft_fail(err, WEFT_EUSAGE,
			 "--mpi: this weft was built without MPI (install Open MPI, "
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
	/* FUNNELED: each rank's other threads (emulation, its op file) never
	 * call MPI */
	int got = 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &got) != MPI_SUCCESS)
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

/* What a rank tells rank 0 when its looms are done (its op file is then
 * complete: nops ops). */
struct outcome {
	int rc, failed_model, code, fail_stream;
	uint64_t fail_time, nevents, nerrors, now, nops;
	uint64_t skipped[MCV_NCHARS];
	char msg[sizeof(((struct weft_err *) 0)->msg)];
};

enum { TAG_OUTCOME = 17, SRC_OPS = 4096 };

static char *part_path(const char *dir, int r, const char *ext)
{
	return weft_xasprintf("%s/%d.%s", dir, r, ext);
}

static void outcome_of(const struct job *j, uint64_t nops, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->rc = j->rc;
	o->failed_model = j->failed_model;
	o->code = j->err.code;
	o->fail_time = j->fail_time;
	o->fail_stream = j->fail_stream;
	o->nevents = j->e.count.nevents;
	o->nerrors = j->e.count.nerrors;
	o->now = j->e.run.now;
	o->nops = nops;
	memcpy(o->skipped, j->e.count.skipped, sizeof(o->skipped));
	memcpy(o->msg, j->err.msg, sizeof(o->msg));
}

/* The rank's outcome as its job's, for jobs_error. */
static void take_outcome(struct job *j, const struct outcome *o)
{
	j->rc = o->rc;
	j->failed_model = o->failed_model;
	j->fail_time = o->fail_time;
	j->fail_stream = o->fail_stream;
	j->err.code = o->code;
	memcpy(j->err.msg, o->msg, sizeof(j->err.msg));
}

/* ---- a rank other than 0: its ops into a file, as they come -------------------- */

struct drain {
	struct prv_pipe *ring;
	int fd;
	int err; /* errno of a failed write, 0 */
	uint64_t nops; /* written */
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
		if (!d->err)
			d->nops += n;
		prv_ring_give(d->ring);
	}
	return NULL;
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
		return weft_out_fail(err, er, "%s: cannot write", path);
	return 0;
}

/* Its task type labels (R.labels) and its models' state (R.state). */
static void save_labels(struct job *j, const char *dir, int r)
{
	char *lab = part_path(dir, r, "labels"), *st = part_path(dir, r, "state");
	struct strbuf b = {0}, m = {0};
	engine_labels_save(&j->e, &b);
	jobs_state_save(&j->e, &m);
	if (write_all(lab, b.s ? b.s : "", b.len, &j->err) || write_all(st, m.s ? m.s : "", m.len, &j->err))
		j->rc = -3;
	sb_free(&b);
	sb_free(&m);
	free(lab);
	free(st);
}

/* This rank's looms: emulated, ops to R.ops while they come, labels to
 * R.labels, then its outcome to rank 0. */
static void emulate_to_files(struct emu *e, const char *dir, int r, int lo, int hi, struct outcome *o)
{
	struct job j = {0};
	j.main = e;
	j.lo = lo;
	j.hi = hi;
	j.ring = prv_ring_new();
	j.opened = 1;
	char *ops = part_path(dir, r, "ops");
	struct drain d = {j.ring, -1, 0, 0};
	pthread_t th;
	int er;
	if (!j.ring) {
		weft_fail(&j.err, WEFT_EINPUT, "rank %d: %s%s", r, strerror(ENOMEM), weft_sys_hint(ENOMEM));
		j.rc = -3;
	} else if ((d.fd = open(ops, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		weft_out_fail(&j.err, errno, "rank %d: %s: cannot create", r, ops);
		j.rc = -3;
	} else if ((er = pthread_create(&th, NULL, drain_main, &d)) != 0) {
		weft_fail(&j.err, WEFT_EINPUT, "rank %d: cannot start its writer thread: %s%s", r, strerror(er),
			  weft_sys_hint(er));
		j.rc = -3;
	} else {
		if (job_open(&j))
			prv_ring_end(j.ring);
		else
			job_run(&j);
		pthread_join(th, NULL);
		if (d.err && j.rc == 0) {
			weft_out_fail(&j.err, d.err, "rank %d: %s: cannot write", r, ops);
			j.rc = -3;
		}
	}
	if (d.fd >= 0 && close(d.fd) != 0 && j.rc == 0) {
		weft_out_fail(&j.err, errno, "rank %d: %s: cannot write", r, ops);
		j.rc = -3;
	}
	if (j.rc == 0)
		save_labels(&j, dir, r);
	outcome_of(&j, d.nops, o);
	job_free(&j);
	free(ops);
}

/* A rank other than 0 of a run rank 0 merges as it goes: its looms, then
 * its outcome to rank 0. */
static void run_peer(struct emu *e, const char *dir, int r, int lo, int hi)
{
	struct outcome o;
	emulate_to_files(e, dir, r, lo, hi, &o);
	MPI_Send(&o, (int) sizeof(o), MPI_BYTE, 0, TAG_OUTCOME, MPI_COMM_WORLD);
}

/* ---- rank 0: its own looms in a thread, every rank's ops merged as they come ---------- */

struct src {
	char *path;
	int fd;
	MPI_Request req;
	int got; /* its outcome came: the file is whole */
	struct outcome out;
	uint64_t nread; /* whole ops read */
	unsigned char tail[sizeof(struct prv_op)];
	size_t ntail; /* bytes of an op cut by a read */
	struct prv_op buf[SRC_OPS];
};

/* The next ops of a rank's file: what is there, else wait for more or for
 * the rank's outcome (then the file is whole). */
static int refill(struct job *j)
{
	struct src *r = j->src;
	for (;;) {
		if (!r->got)
			MPI_Test(&r->req, &r->got, MPI_STATUS_IGNORE);
		int whole = r->got;
		if (r->fd < 0 && (r->fd = open(r->path, O_RDONLY | O_CLOEXEC)) < 0 && errno != ENOENT) {
			weft_out_fail(&j->err, errno, "%s: cannot read", r->path);
			j->rc = -3;
			return -1;
		}
		ssize_t n = 0;
		if (r->fd >= 0) {
			char *b = (char *) r->buf;
			memcpy(b, r->tail, r->ntail);
			do
				n = read(r->fd, b + r->ntail, sizeof(r->buf) - r->ntail);
			while (n < 0 && errno == EINTR);
			if (n < 0) {
				weft_out_fail(&j->err, errno, "%s: cannot read", r->path);
				j->rc = -3;
				return -1;
			}
			size_t have = r->ntail + (size_t) n, k = have / sizeof(struct prv_op);
			r->ntail = have % sizeof(struct prv_op);
			memcpy(r->tail, b + k * sizeof(struct prv_op), r->ntail);
			if (k) {
				j->op = r->buf;
				j->end = r->buf + k;
				r->nread += k;
				return 1;
			}
		}
		if (whole && n == 0) {
			if (r->nread != r->out.nops || r->ntail) {
				weft_fail(&j->err, WEFT_EINTERNAL, "%s: %llu ops read, the rank wrote %llu", r->path,
					  (unsigned long long) r->nread, (unsigned long long) r->out.nops);
				j->rc = -3;
				return -1;
			}
			return 0;
		}
		if (n == 0)
			usleep(200); /* the rank is still at it */
	}
}

static void *work0(void *arg)
{
	struct job *j = arg;
	if (job_open(j))
		prv_ring_end(j->ring);
	else
		job_run(j);
	return NULL;
}

/* A rank's labels (R.labels) and models' state (R.state) added to e. */
static int read_part(struct emu *e, const char *dir, int k, const char *ext, struct weft_err *err)
{
	char *path = part_path(dir, k, ext);
	FILE *f = fopen(path, "re");
	if (!f) {
		int rc = weft_out_fail(err, errno, "%s: cannot read", path);
		free(path);
		return rc;
	}
	struct strbuf b = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_append(&b, buf, n);
	fclose(f);
	int rc = ext[0] == 'l' ? engine_labels_load(e, b.s ? b.s : "", b.len, path, err)
			       : jobs_state_load(e, b.s ? b.s : "", b.len, err);
	sb_free(&b);
	free(path);
	return rc;
}

/* What one run would have at its end: counts, the last time, the labels. */
static int gather_end(struct emu *e, const char *dir, struct job *jobs, struct src *srcs, int n, struct weft_err *err)
{
	int rc = 0, first = 0;
	if (jobs) { /* rank 0's own looms: in its memory */
		struct strbuf b = {0}, st = {0};
		engine_labels_save(&jobs[0].e, &b);
		jobs_state_save(&jobs[0].e, &st);
		rc = engine_labels_load(e, b.s ? b.s : "", b.len, "rank 0", err);
		if (rc == 0)
			rc = jobs_state_load(e, st.s ? st.s : "", st.len, err);
		sb_free(&b);
		sb_free(&st);
		e->count.nevents += jobs[0].e.count.nevents;
		e->count.nerrors += jobs[0].e.count.nerrors;
		e->run.now = jobs[0].e.run.now;
		for (int m = 0; m < MCV_NCHARS; m++)
			e->count.skipped[m] += jobs[0].e.count.skipped[m];
		first = 1;
	}
	for (int k = first; k < n && rc == 0; k++) {
		rc = read_part(e, dir, k, "labels", err);
		if (rc == 0)
			rc = read_part(e, dir, k, "state", err);
		const struct outcome *o = &srcs[k].out;
		e->count.nevents += o->nevents;
		e->count.nerrors += o->nerrors;
		e->run.now = o->now > e->run.now ? o->now : e->run.now;
		for (int m = 0; m < MCV_NCHARS; m++)
			e->count.skipped[m] += o->skipped[m];
	}
	return rc;
}

static int run_root(struct emu *e, const char *dir, const int *cut, int n, struct weft_err *err)
{
	struct job *jobs = weft_xcalloc((size_t) n, sizeof(*jobs));
	struct src *srcs = weft_xcalloc((size_t) n, sizeof(*srcs));
	for (int k = 1; k < n; k++) {
		srcs[k].path = part_path(dir, k, "ops");
		srcs[k].fd = -1;
		MPI_Irecv(&srcs[k].out, (int) sizeof(srcs[k].out), MPI_BYTE, k, TAG_OUTCOME, MPI_COMM_WORLD,
			  &srcs[k].req);
		jobs[k].lo = cut[k];
		jobs[k].hi = cut[k + 1];
		jobs[k].refill = refill;
		jobs[k].src = &srcs[k];
	}
	struct job *j0 = &jobs[0];
	j0->main = e;
	j0->lo = cut[0];
	j0->hi = cut[1];
	j0->ring = prv_ring_new();
	j0->opened = 1;
	int rc = 0;
	int er = j0->ring ? pthread_create(&j0->th, NULL, work0, j0) : ENOMEM;
	if (er) {
		rc = weft_fail(err, WEFT_EINPUT, "rank 0: cannot start its emulation thread: %s%s", strerror(er),
			       weft_sys_hint(er));
		if (j0->ring) {
			prv_ring_end(j0->ring); /* the merge sees it ended */
			j0->opened = 0;
		}
	}
	struct prv_pipe *out = emu_share_handover(e); /* the ranks flush the rows' first states */
	struct jobs_sink sink = jobs_pipe_sink(out);
	struct jobs_pairs *pairs = jobs_pairs_begin(e, out, &sink, n);
	int split = jobs_writers(e) > 1 && emu_sinks_writers(e, 1) == 0;
	int mrc = jobs_merge(jobs, n, &sink, NULL, NULL, rc ? &(struct weft_err){0} : err);
	if (split)
		emu_sinks_writers(e, 0);
	if (rc == 0)
		rc = mrc;
	if (j0->opened)
		pthread_join(j0->th, NULL);
	for (int k = 1; k < n; k++) {
		if (!srcs[k].got)
			MPI_Wait(&srcs[k].req, MPI_STATUS_IGNORE);
		if (jobs[k].rc == 0) /* a read failure of its file stays */
			take_outcome(&jobs[k], &srcs[k].out);
	}
	int any = 0;
	for (int k = 0; k < n; k++)
		any |= jobs[k].rc == -1 || jobs[k].rc == -3;
	int main_model = -1;
	struct weft_err main_err = {0};
	if (rc == 0 && !any) {
		rc = gather_end(e, dir, jobs, srcs, n, err);
		if (rc == 0)
			main_model = jobs_main_end(e, &main_err);
	}
	if (rc == 0)
		rc = jobs_error(jobs, n, main_model, &main_err, err);
	jobs_pairs_end(e, pairs);
	for (int k = 0; k < n; k++) {
		if (k && srcs[k].fd >= 0)
			close(srcs[k].fd);
		free(srcs[k].path);
		jobs[k].ring = k ? NULL : jobs[k].ring;
		job_free(&jobs[k]);
	}
	free(srcs);
	free(jobs);
	return rc;
}

static void remove_dir(const char *dir, int n)
{
	static const char *const ext[] = {"ops", "labels", "state", "thread.part", "cpu.part", "slice"};
	for (int k = 0; k < n; k++)
		for (int x = 0; x < 6; x++) {
			char *p = part_path(dir, k, ext[x]);
			unlink(p);
			free(p);
		}
	rmdir(dir);
}

/* ---- slices: every rank writes one time slice of the bodies ----------------------------- */

/* Every rank's looms into files, every outcome to every rank; then each
 * rank writes its slice of the bodies from all the files, and rank 0 joins
 * the slices (slices.h). */
static int run_sliced(struct emu *e, const char *dir, const int *cut, int n, int size, int r, struct weft_err *err)
{
	struct outcome mine;
	memset(&mine, 0, sizeof(mine));
	if (r < n)
		emulate_to_files(e, dir, r, cut[r], cut[r + 1], &mine);
	struct src *srcs = weft_xcalloc((size_t) size + 1, sizeof(*srcs));
	struct outcome *all = weft_xcalloc((size_t) size + 1, sizeof(*all));
	MPI_Allgather(&mine, (int) sizeof(mine), MPI_BYTE, all, (int) sizeof(mine), MPI_BYTE, MPI_COMM_WORLD);
	struct job *jobs = weft_xcalloc((size_t) n + 1, sizeof(*jobs));
	int any = 0, rc = 0;
	uint64_t tmax = 0;
	for (int k = 0; k < n; k++) {
		srcs[k].out = all[k];
		srcs[k].got = 1;
		srcs[k].fd = -1;
		srcs[k].path = part_path(dir, k, "ops");
		jobs[k].refill = refill;
		jobs[k].src = &srcs[k];
		take_outcome(&jobs[k], &all[k]);
		any |= all[k].rc != 0;
		tmax = all[k].now > tmax ? all[k].now : tmax;
	}
	/* the slices: each rank writes one, from every rank's ops */
	int wrote = 0;
	if (!any) {
		char *parts[2] = {part_path(dir, r, "thread.part"), part_path(dir, r, "cpu.part")};
		char *info = part_path(dir, r, "slice");
		struct weft_err serr = {0};
		wrote = slice_write(e, jobs, n, slice_start(tmax, r, size), slice_start(tmax, r + 1, size),
				    (const char *const *) parts, info, &serr) == 0;
		if (!wrote && !e->o.quiet)
			fprintf(stderr, "weft: rank %d: error: %s\n", r, serr.msg);
		free(parts[0]);
		free(parts[1]);
		free(info);
	}
	int allwrote = 0;
	MPI_Allreduce(&wrote, &allwrote, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (r == 0) {
		int main_model = -1;
		struct weft_err main_err = {0};
		if (!any && !allwrote)
			rc = weft_fail(err, WEFT_EINTERNAL,
				       "--mpi: a rank could not write its slice (its error is above)");
		if (!any && allwrote) {
			char **tp = weft_xcalloc((size_t) size + 1, sizeof(char *)),
			     **cp = weft_xcalloc((size_t) size + 1, sizeof(char *));
			char **ip = weft_xcalloc((size_t) size + 1, sizeof(char *));
			for (int k = 0; k < size; k++) {
				tp[k] = part_path(dir, k, "thread.part");
				cp[k] = part_path(dir, k, "cpu.part");
				ip[k] = part_path(dir, k, "slice");
			}
			emu_share_handover(e); /* the ranks flushed the rows' first states */
			rc = slices_join(e, (const char *const *) tp, (const char *const *) cp,
					 (const char *const *) ip, size, tmax, err);
			for (int k = 0; k < size; k++) {
				free(tp[k]);
				free(cp[k]);
				free(ip[k]);
			}
			free(tp);
			free(cp);
			free(ip);
			if (rc == 0)
				rc = gather_end(e, dir, NULL, srcs, n, err);
			if (rc == 0)
				main_model = jobs_main_end(e, &main_err);
		}
		if (rc == 0)
			rc = jobs_error(jobs, n, main_model, &main_err, err);
	}
	for (int k = 0; k < n; k++) {
		if (srcs[k].fd >= 0)
			close(srcs[k].fd);
		free(srcs[k].path);
	}
	free(srcs);
	free(all);
	free(jobs);
	return rc;
}

int emu_run_ranks(struct emu *e, struct weft_err *err)
{
	int r = rank_of(), size = 1;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* rank 0 decides whether the run splits, and where the parts go */
	char why_buf[160], dir[4096] = "";
	int split = 0;
	if (r == 0) {
		const char *why = emu_share_why_not(e, why_buf, sizeof(why_buf));
		if (size > 1 && why && !e->o.quiet)
			fprintf(stderr, "weft: --mpi: rank 0 alone: %s\n", why);
		split = size > 1 && !why;
		if (split) {
			/* in DIR/.weft: what a killed run leaves there goes with the next run */
			snprintf(dir, sizeof(dir), "%s/" OUTSET_RANKS "%ld", e->out.par->out.hidden, (long) getpid());
			if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
				weft_out_fail(err, errno, "%s: cannot create the ranks' folder", dir);
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
	int n = emu_share_split(e, size, cut); /* the same on every rank: the same trace */
	if (r == 0)
		emu_share_say(e, "--mpi", "ranks", cut, n);
	emu_share_prime(e);
	int rc = 0, sliced = e->o.slices && slices_ok(e);
	if (r == 0 && e->o.slices && !sliced && !e->o.quiet)
		fprintf(stderr,
			"weft: --slices: rank 0 writes alone (a window, -b, or messages paired by one merger)\n");
	if (sliced) {
		rc = run_sliced(e, dir, cut, n, size, r, err);
		MPI_Barrier(MPI_COMM_WORLD); /* every rank done with the folder */
		if (r == 0)
			remove_dir(dir, size);
	} else if (r == 0) {
		rc = run_root(e, dir, cut, n, err);
		remove_dir(dir, n);
	} else if (r < n) {
		run_peer(e, dir, r, cut[r], cut[r + 1]);
	}
	free(cut);
	return rc;
}

#endif
