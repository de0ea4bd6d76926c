// SPDX-License-Identifier: GPL-2.0
/*
 * compsize: how much disk space a set of files on btrfs uses, by
 * compression type, and what it would use under other compression
 * settings.  This file is the command line only: options, usage, exit
 * codes, and the wiring of walk -> scan/estimate -> rows -> report.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "array.h"
#include "decide.h"
#include "est-plugin.h"
#include "estimate.h"
#include "estrun.h"
#include "exitcode.h"
#include "layout.h"
#include "mounts.h"
#include "output.h"
#include "plot.h"
#include "rewrite.h"
#include "report.h"
#include "rows.h"
#include "scan.h"
#include "tree.h"
#include "walk.h"

/* -j: more threads than this is a typo */
#define ESTRUN_MAX_JOBS 1024

struct options {
	int bytes;		/* -b */
	int one_fs;		/* -x */
	int walk;		/* --walk: no fast scan */
	enum report_format format;
	int depth;		/* --depth=N, -1 when not given */
	int per_file;		/* --per-file */
	enum row_sort sort;
	size_t top;		/* --top=N, 0 for all */
	struct est_setting *est;	/* --estimate */
	size_t nest;
	unsigned jobs;		/* -j N; 0: one per online CPU */
	double sample;		/* --sample=PERCENT as a fraction, or 0 */
	uint64_t sample_bytes;	/* --sample=SIZE, or 0 */
	uint64_t seed;		/* --seed=N */
	double dev_write, dev_read;	/* --device-speed, MB/s, or 0 */
	const char *plot;	/* --plot=FILE.svg, or NULL */
	int rewrite;		/* --rewrite */
	/* The settings estimated: est, then with --rewrite the
	 * compress-force twin of each compress= one not asked for already
	 * (defrag -c compresses with force semantics); twin[i] is the index
	 * of setting i's force twin (i itself for a forced one). */
	struct est_setting *est_all;
	size_t nall;
	size_t *twin;
	int exclusive;		/* --exclusive */
};

struct run {
	const struct options *opt;
	struct scan_ctx *scan;
	struct mounts *mounts;	/* NULL until the first directory */
	struct rows *rows;	/* NULL without --depth/--per-file */
	struct estrun *est;	/* NULL until the first file estimated */
	struct layout *layout;	/* with --estimate: what each file counts */
	struct extent_info *ext;	/* the file being planned's extents */
	size_t next, cap_ext;
	uint64_t inline_key;	/* of its inline extent */
	uint64_t *est_rows;	/* layout_resolve()'s per-row shares */
	size_t cap_est_rows;
	struct sharing *sharing;	/* NULL without --exclusive */
	struct rewrite *rewrite;	/* NULL without --rewrite (or root) */
	dev_t top_dev;		/* st_dev of the argument being walked */
	double pps;		/* --sample: estrun_opts.pps, 0 for all */
	int usage;		/* reading the current usage (root) */
	int fast;		/* the fast scan may be used */
	/* With --estimate: the depth of the directory whose usage the fast
	 * scan counts while the walk reads its files for their data; -1
	 * when none.  The scan runs when the walk leaves it (on_leave_dir),
	 * or earlier when estrun's queue is full (est_idle()), on
	 * counted_fd, a copy of its descriptor (-1 once done), with
	 * counted_st its stat and counted_path its path. */
	int counted_depth;
	int counted_fd;
	struct stat counted_st;
	char *counted_path;
	int have_usage;		/* ... and every file was on btrfs */
	uint64_t alloc_bytes;	/* st_blocks of the files, in bytes */
	unsigned long failed;	/* paths that could not be read */
	struct report_error *errors;	/* those of them with memory to keep */
	size_t nerrors, cap_errors;
	int fatal;		/* exit code if the walk was aborted */
	int leave_err;		/* a failure where the walk can't be told
				 * (on_leave_dir, or on_file once estrun has
				 * the descriptor): ends the run at the next
				 * tick or when the walk returns */
};

static volatile sig_atomic_t want_stats;

static void on_sigusr1(int sig)
{
	(void)sig;
	want_stats = 1;
}

static void usage(FILE *f)
{
	fputs("Usage: compsize [options] file-or-dir1 [file-or-dir2 ...]\n"
	      "\n"
	      "Compsize displays total space used by set of files, taking into account\n"
	      "compression, reflinks, partially overwritten extents.\n"
	      "\n"
	      "Options:\n"
	      "    -h, --help              print this help message and exit\n"
	      "    -b, --bytes             display raw bytes instead of human-readable sizes\n"
	      "    -x, --one-file-system   don't cross filesystem boundaries\n"
	      "    -e, --estimate=LIST     also predict usage under other settings, e.g.\n"
	      "                            zstd:1,zstd:3,compress-force=lzo,zlib:1..9,all\n"
	      "    -j, --jobs=N            estimate on N threads (default: one per CPU)\n"
	      "        --sample=PERCENT|SIZE  estimate a random part of the files, e.g.\n"
	      "                            5% or 2G, and extrapolate with a 95% interval\n"
	      "        --seed=N            choose another sample (default 0)\n"
	      "        --device-speed=WRITE[,READ]  with --estimate: the file data\n"
	      "                            each setting moves through a device of\n"
	      "                            that speed (MB/s), the device or the CPUs\n"
	      "                            limiting it\n"
	      "        --plot=FILE.svg     with --estimate: ratio against compress and\n"
	      "                            decompress speed, one series per row\n"
	      "        --rewrite           with --estimate: the filesystem's change if\n"
	      "                            btrfs filesystem defragment -r -c rewrote\n"
	      "                            the files with each setting (root)\n"
	      "        --exclusive         also what deleting the files would free: bytes\n"
	      "                            no file outside them references\n"
	      "        --format=FORMAT     table (default), json or csv\n"
	      "        --depth=N           a row per directory down to depth N\n"
	      "        --per-file          a row per file\n"
	      "        --sort=KEY          order rows by disk, saved, ratio, name or\n"
	      "                            exclusive\n"
	      "        --top=N             only the first N rows (sorted by disk by default)\n"
	      "        --walk              open and search every file, as compsize 1.5 does,\n"
	      "                            instead of reading whole subtrees from metadata\n"
	      "        --version           print the version and exit\n"
	      "\n"
	      "Exit status: 0 success, 1 nothing to report or some path failed,\n"
	      "2 usage error, 3 out of memory or internal error.\n", f);
}

static void report(struct run *run, const char *path, const char *cause)
{
	struct report_error *e;

	estrun_clear_progress(run->est);
	fprintf(stderr, "compsize: %s: %s\n", path, cause);
	run->failed++;
	e = array_grow(run->errors, &run->cap_errors, run->nerrors,
		       sizeof(*e));
	if (!e)
		return;	/* still counted: the exit status is 1 */
	run->errors = e;
	e = &run->errors[run->nerrors];
	e->path = strdup(path);
	e->error = strdup(cause);
	if (e->path && e->error) {
		run->nerrors++;
	} else {
		free(e->path);
		free(e->error);
	}
}

static void on_error(void *arg, const char *path, int err)
{
	report(arg, path, strerror(err));
}

static void fill_report(struct run *run, struct report *r)
{
	memset(r, 0, sizeof(*r));
	r->format = run->opt->format;
	r->bytes = run->opt->bytes;
	r->total = &run->scan->stats;
	r->have_usage = run->have_usage;
	r->alloc_bytes = run->alloc_bytes;
	r->errors = run->errors;
	r->nerrors = run->nerrors;
}

static int on_tick(void *arg)
{
	struct run *run = arg;
	struct report r;

	if (run->leave_err)
		return run->leave_err;
	if (want_stats) {
		/* Partial statistics, as compsize 1.5 prints them; on stderr
		 * when stdout is JSON or CSV, which must stay whole. */
		FILE *out = run->opt->format == REPORT_TABLE ? stdout : stderr;

		want_stats = 0;
		fill_report(run, &r);
		r.format = REPORT_TABLE;
		report_print(out, stderr, &r);
		fflush(out);
	}
	return 0;
}

/* Report what scan_file() or tree_scan_dir() returned for path; returns 0
 * to go on or a negative errno to abort the walk. */
static int scan_result(struct run *run, const char *path, int ret)
{
	struct scan_ctx *scan = run->scan;
	char msg[128];

	switch (ret) {
	case 0:
		return 0;
	case -ENOMEM:
		return ret;
	case -EPERM:
		/* Every other file would fail the same way. */
		fprintf(stderr, "compsize: %s: reading btrfs metadata needs root (CAP_SYS_ADMIN)\n",
			path);
		run->fatal = CS_EXIT_ERROR;
		return ret;
	case -EUCLEAN:
		snprintf(msg, sizeof(msg), "%s at file offset %llu",
			 extent_strerror(scan->bad_item),
			 (unsigned long long)scan->bad_offset);
		report(run, path, msg);
		return 0;
	case -ENOTTY:
		report(run, path, "not on a btrfs filesystem");
		return 0;
	default:
		snprintf(msg, sizeof(msg), "SEARCH_V2: %s", strerror(-ret));
		report(run, path, msg);
		return 0;
	}
}

static int on_enter_fs(void *arg, int fd, const char *path,
		       const struct stat *st, int top)
{
	struct run *run = arg;
	int ret;

	if (top)
		run->top_dev = st->st_dev;
	ret = scan_probe_fs(run->scan, fd, st);
	if (ret == -ENOMEM)
		return ret;
	if (!run->usage && ret != 0) {
		/* --estimate without root: btrfs, its usage unreadable */
		run->have_usage = 0;
		return WALK_ENTER;
	}
	if (ret == 1)
		return WALK_ENTER;
	if (ret == -EPERM)
		return scan_result(run, path, ret);
	if (ret == 0 && top && run->opt->nest) {
		/* Estimating an argument off btrfs: its data is read, with
		 * no current usage.  Below an argument the estimate follows
		 * the usage report's tree: other filesystems (procfs,
		 * tmpfs...) are skipped with its warning. */
		run->have_usage = 0;
		return WALK_ENTER;
	}
	if (ret < 0) {
		report(run, path, strerror(-ret));
	} else if (top) {
		report(run, path, "not on a btrfs filesystem");
	} else {
		/* 1.5 dies here; a tmpfs or ext4 mount inside the tree is
		 * simply not part of what compsize measures. */
		fprintf(stderr, "compsize: %s: skipped: not a btrfs filesystem\n",
			path);
	}
	return WALK_SKIP;
}

/* A file's estimate is back (token: its layout ticket): its error, or
 * its shares of the totals and of the rows open when it was found. */
static int on_est_done(void *arg, const char *path, int err, size_t token,
		       const uint64_t *delta)
{
	struct run *run = arg;
	size_t nrows, rows_token;

	layout_resolve(run->layout, token, err ? NULL : delta, run->est_rows,
		       &nrows, &rows_token);
	if (err == -ENOMEM)
		return err;
	if (err) {
		report(run, path, strerror(-err));
		return 0;
	}
	if (run->rows)
		rows_add_est_each(run->rows, rows_token, run->est_rows, nrows);
	return 0;
}

/* A report row opens or closes: the rows and the estimates' levels. */
static int row_open(struct run *run, const char *path)
{
	int ret = rows_open(run->rows, run->scan, path);
	uint64_t *p;
	size_t need;

	if (ret || !run->layout)
		return ret;
	ret = layout_push(run->layout);
	if (ret) {
		rows_close(run->rows, run->scan);
		return ret;
	}
	/* layout_resolve() fills 6 values a setting for each open row */
	need = rows_open_count(run->rows) * 6 * run->opt->nall;
	if (need > run->cap_est_rows) {
		p = realloc(run->est_rows, need * sizeof(*p));
		if (!p)
			return -ENOMEM;
		run->est_rows = p;
		run->cap_est_rows = need;
	}
	return 0;
}

static int row_close(struct run *run)
{
	if (run->layout)
		layout_pop(run->layout);
	return rows_close(run->rows, run->scan);
}

/*
 * Estimating: the walk reads every file under dir for its data, and the
 * fast scan counts its usage later (scan_deferred()): the first time
 * estrun's queue is full (est_idle()), or when the walk leaves dir.  So
 * the estimate's workers get files from the start and the scan runs while
 * they have plenty queued: on the same cores, but with none idle.  No
 * file under it is searched again.
 */
static int defer_scan(struct run *run, int fd, const char *path,
		      const struct stat *st, int depth)
{
	uint64_t id;
	int ret;

	ret = tree_scan_probe(fd, &id);
	if (ret == 1)
		return WALK_ENTER;
	run->counted_depth = depth;
	if (!ret) {
		run->counted_path = strdup(path);
		run->counted_fd = run->counted_path ?
			fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (run->counted_fd >= 0) {
			run->counted_st = *st;
			return WALK_ENTER;
		}
		free(run->counted_path);
		run->counted_path = NULL;
		/* No descriptor or memory to spare: count it now. */
		ret = tree_scan_dir(run->scan, fd, st, run->opt->one_fs,
				    on_tick, run);
	}
	ret = scan_result(run, path, ret);
	return ret < 0 ? ret : WALK_ENTER;
}

/* The deferred scan of the directory being read (defer_scan()). */
static int scan_deferred(struct run *run)
{
	int fd = run->counted_fd;
	int ret;

	run->counted_fd = -1;
	ret = tree_scan_dir(run->scan, fd, &run->counted_st,
			    run->opt->one_fs, on_tick, run);
	close(fd);
	/* It was probed: 1 means it changed under us, as any failed
	 * search would. */
	if (ret == 1)
		ret = -ENOENT;
	ret = scan_result(run, run->counted_path, ret);
	free(run->counted_path);
	run->counted_path = NULL;
	return ret;
}

/*
 * estrun's queue is full: the workers have plenty to do, so count the
 * usage of the directory being read now rather than when the walk leaves
 * it, where the last directory's scan would run with the workers done
 * and idle (23 ms of the bench's 1.93 s).  The rows open now are those
 * of the directory and above it (defer_scan() is not used below a row),
 * which is where its usage goes either way.
 */
static int est_idle(void *arg)
{
	struct run *run = arg;
	int ret;

	if (run->counted_fd < 0)
		return 0;
	ret = scan_deferred(run);
	return ret < 0 ? ret : 1;
}

/* -j default: one worker per online CPU.  Asked only when estimating:
 * sysconf() parses /sys, which costs a scan resident pages of libc. */
static unsigned default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > ESTRUN_MAX_JOBS ? ESTRUN_MAX_JOBS : (unsigned)n;
}

static int collect_extent(const struct search_item *item, void *arg)
{
	struct run *run = arg;
	struct extent_info *e;

	if (item->type != BTRFS_EXTENT_DATA_KEY)
		return 0;
	e = array_grow(run->ext, &run->cap_ext, run->next, sizeof(*e));
	if (!e)
		return -ENOMEM;
	run->ext = e;
	/* malformed items are the usage report's to tell */
	if (extent_parse(item->data, item->len, 0, &run->ext[run->next]))
		return 0;
	if (run->ext[run->next].type == BTRFS_FILE_EXTENT_INLINE)
		run->inline_key = layout_inline_key(item->data, item->len);
	run->next++;
	return 0;
}

/*
 * What the estimate counts of the file (layout.h): its inode once, its
 * extents once, at every level.  The extents come from one search of its
 * items (btrfs and root); otherwise it counts as all new.  Sets *ticket,
 * and *skip when nothing of it counts anywhere.
 */
static int plan_file(struct run *run, int fd, const struct stat *st,
		     size_t *ticket, int *skip)
{
	const struct scan_fs *fs = scan_fs_of(run->scan, st->st_dev);
	struct layout_file f = {
		.dev = st->st_dev,
		.ino = st->st_ino,
	};
	int ret;

	if (run->usage && fs) {
		run->next = 0;
		ret = search_file_extents(run->scan->search, fd, st->st_ino,
					  fs->nodesize, collect_extent, run);
		if (ret == -ENOMEM)
			return ret;
		f.have_extents = !ret;
		f.fs_idx = fs->fs_idx;
		f.ext = run->ext;
		f.next = run->next;
		f.sectorsize = fs->sectorsize;
		f.inline_key = run->inline_key;
		/* defragment -r walks with FTW_MOUNT: nothing beyond the
		 * argument's st_dev (nested subvolumes, mounts) */
		if (run->rewrite && f.have_extents &&
		    st->st_dev == run->top_dev) {
			ret = rewrite_file(run->rewrite, fs->fs_idx, fd, st,
					   run->ext, run->next);
			if (ret == -ENOMEM)
				return ret;
			/* a subvolume that can't be told: not rewritten */
			f.rewrite = ret == 1;
		}
	}
	return layout_plan(run->layout, &f,
			   run->rows ? rows_est_token(run->rows) : 0, ticket,
			   skip);
}

/* Queue the file on *fd; estrun takes the descriptor (*fd = -1) when it
 * reads the file. */
static int estimate_file(struct run *run, int *fd, const char *path,
			 const struct stat *st)
{
	size_t ticket;
	int ret, skip;

	ret = plan_file(run, *fd, st, &ticket, &skip);
	if (ret)
		return ret;
	if (skip) {
		/* a hard link met before at every level: cp -a keeps it */
		layout_drop(run->layout, ticket);
		return 0;
	}
	if (!run->est) {
		const struct scan_fs *fs = scan_fs_of(run->scan, st->st_dev);
		struct estrun_opts eo = {
			.s = run->opt->est_all,
			.n = run->opt->nall,
			.jobs = run->opt->jobs ? run->opt->jobs : default_jobs(),
			.pps = run->pps,
			.seed = run->opt->seed,
			/* only for a person watching, never for scripts */
			.progress_fd = isatty(STDERR_FILENO) ? STDERR_FILENO : -1,
			/* The first filesystem read decides the sector size. */
			.sectorsize = fs ? fs->sectorsize : 4096,
			.idle = est_idle,
		};

		run->est = estrun_create(&eo, on_est_done, run);
		if (!run->est) {
			layout_drop(run->layout, ticket);
			return -errno;
		}
	}
	/* Its estimate goes to the rows open now, whenever it comes back:
	 * rows close without waiting for it, so the workers never run dry
	 * at a row's end (--depth, --per-file).  A failure ends the run:
	 * the ticket, resolved or not, goes with the layout. */
	return estrun_submit(run->est, fd, path, st, ticket);
}

static int on_file(void *arg, int fd, const char *path, const struct stat *st,
		   int depth)
{
	struct run *run = arg;
	int row = run->rows && (run->opt->per_file || depth == 0);
	int ret = 0, kept = fd;

	if (row) {
		ret = row_open(run, path);
		if (ret)
			return ret;
	}
	if (run->counted_depth >= 0) {
		/* its usage came with its directory's fast scan */
	} else if (run->usage && (!run->opt->nest ||
				  scan_fs_of(run->scan, st->st_dev))) {
		ret = scan_result(run, path, scan_file(run->scan, fd, st));
	} else {
		/* Estimating without root, or on another filesystem: no
		 * usage to read, and no error either; the file is counted
		 * with nothing known of its extents. */
		scan_begin_file(run->scan);
	}
	run->alloc_bytes += (uint64_t)st->st_blocks * 512;
	if (!ret && run->opt->nest)
		ret = estimate_file(run, &kept, path, st);
	if (row && !ret)
		ret = row_close(run);
	if (kept >= 0)
		return ret;
	/* estrun closes fd: the walker must not, and learns of a failure
	 * at the next tick or when it returns (main()) */
	if (ret && !run->leave_err)
		run->leave_err = ret;
	return WALK_KEPT;
}

/* Whether dir gets a row, and whether it must be walked entry by entry. */
static int on_dir(void *arg, int fd, const char *path, const struct stat *st,
		  int depth)
{
	struct run *run = arg;
	int row = run->rows && !run->opt->per_file && depth <= run->opt->depth;
	int ret;

	if (row) {
		ret = row_open(run, path);
		if (ret)
			return ret;
	}
	/* The fast scan can't tell rows apart below it: not above the
	 * deepest row, nor with a row per file; and once a directory is
	 * counted, nothing under it is counted again. */
	if (run->opt->walk || !run->usage || !run->fast ||
	    run->counted_depth >= 0 ||
	    (run->rows && (run->opt->per_file || depth < run->opt->depth)))
		return WALK_ENTER;
	if (!run->mounts) {
		run->mounts = mounts_create();
		if (!run->mounts)
			return -ENOMEM;
	}
	if (mounts_beneath(run->mounts, st))
		return WALK_ENTER;
	if (run->opt->nest)
		return defer_scan(run, fd, path, st, depth);
	ret = tree_scan_dir(run->scan, fd, st, run->opt->one_fs, on_tick, run);
	if (ret == 1)
		return WALK_ENTER;
	ret = scan_result(run, path, ret);
	if (ret < 0)
		return ret;
	if (row)
		ret = row_close(run);
	return ret < 0 ? ret : WALK_SKIP;
}

static void on_leave_dir(void *arg, const char *path, int depth)
{
	struct run *run = arg;
	int ret = 0;

	(void)path;
	if (depth == run->counted_depth) {
		run->counted_depth = -1;
		if (run->counted_fd >= 0)
			ret = scan_deferred(run);
	}
	/* Out of memory here leaves the row out; rows_close reports it.
	 * A failed scan ends the run at the next tick or when the walk
	 * returns (main()). */
	if (run->rows && !run->opt->per_file && depth <= run->opt->depth)
		row_close(run);
	if (ret && !run->leave_err)
		run->leave_err = ret;
}

/* Is capability cap in our effective set?  1 if we can't tell. */
static int have_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return 1;
	return !!(data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap));
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	/* The walk holds a bounded number of directories open, but the
	 * estimator and libraries want some room too. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

enum {
	OPT_VERSION = 256,
	OPT_WALK,
	OPT_FORMAT,
	OPT_DEPTH,
	OPT_PER_FILE,
	OPT_SORT,
	OPT_TOP,
	OPT_SAMPLE,
	OPT_SEED,
	OPT_DEVICE_SPEED,
	OPT_PLOT,
	OPT_REWRITE,
	OPT_EXCLUSIVE,
};

/* A whole non-negative decimal number no larger than max, or -1. */
static long long parse_count(const char *s, long long max)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	return v;
}

static int bad_value(const char *opt, const char *value, const char *want)
{
	fprintf(stderr, "compsize: invalid %s '%s': %s\n", opt, value, want);
	return CS_EXIT_USAGE;
}

static int parse_choice(const char *value, const char *const *names,
			int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(value, names[i]))
			return i;
	return -1;
}


/*
 * --sample: "N%" (0 < N <= 100, decimals allowed) into *frac, or a size
 * "N[KMGTP][B|iB]" (binary units, either case, N > 0) into *bytes.
 * Returns 0 or -1.
 */
static int parse_sample(const char *s, double *frac, uint64_t *bytes)
{
	static const char units[] = "KMGTP";
	const char *u;
	char *end;
	double v;
	int shift;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	if (!strcmp(end, "%")) {
		if (v > 100)
			return -1;
		*frac = v / 100;
		*bytes = 0;
		return 0;
	}
	shift = 0;
	if (*end) {
		u = strchr(units, *end & ~0x20);	/* k or K */
		if (!u || !*u || (end[1] && strcmp(end + 1, "iB") &&
				  strcmp(end + 1, "B")))
			return -1;
		shift = 10 * (int)(u - units + 1);
	}
	v = ldexp(v, shift);
	if (v < 1 || v > 1.8e19)
		return -1;
	*bytes = (uint64_t)v;
	*frac = 0;
	return 0;
}

/* Fills *opt; returns -1 to go on, or the exit code to exit with. */
static int parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{ "bytes", no_argument, NULL, 'b' },
		{ "one-file-system", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "estimate", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "depth", required_argument, NULL, OPT_DEPTH },
		{ "per-file", no_argument, NULL, OPT_PER_FILE },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "walk", no_argument, NULL, OPT_WALK },
		{ "jobs", required_argument, NULL, 'j' },
		{ "sample", required_argument, NULL, OPT_SAMPLE },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "device-speed", required_argument, NULL, OPT_DEVICE_SPEED },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "rewrite", no_argument, NULL, OPT_REWRITE },
		{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { "table", "json", "csv" };
	static const char *const sorts[] = { "walk", "disk", "saved", "ratio",
					     "name", "exclusive" };
	char err[256];
	long long v;
	int c, sort_given = 0, sample_given = 0, need_est = 0;

	while ((c = getopt_long(argc, argv, "bxhe:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			opt->bytes = 1;
			break;
		case 'x':
			opt->one_fs = 1;
			break;
		case 'h':
			usage(stdout);
			return CS_EXIT_OK;
		case 'e':
			free(opt->est);
			opt->est = NULL;
			if (est_parse_list(optarg, &opt->est, &opt->nest, err,
					   sizeof(err))) {
				fprintf(stderr, "compsize: %s\n", err);
				return CS_EXIT_USAGE;
			}
			break;
		case OPT_FORMAT:
			c = parse_choice(optarg, formats, 3);
			if (c < 0)
				return bad_value("--format", optarg,
						 "use table, json or csv");
			opt->format = (enum report_format)c;
			break;
		case OPT_DEPTH:
			v = parse_count(optarg, INT_MAX);
			if (v < 0)
				return bad_value("--depth", optarg,
						 "use a whole number, 0 or more");
			opt->depth = (int)v;
			break;
		case OPT_PER_FILE:
			opt->per_file = 1;
			break;
		case OPT_SORT:
			c = parse_choice(optarg, sorts, 6);
			if (c < 0)
				return bad_value("--sort", optarg,
						 "use disk, saved, ratio, name or exclusive");
			if (c == ROW_SORT_EXCLUSIVE)
				opt->exclusive = 1;
			opt->sort = (enum row_sort)c;
			sort_given = 1;
			break;
		case OPT_TOP:
			v = parse_count(optarg, LLONG_MAX);
			if (v <= 0)
				return bad_value("--top", optarg,
						 "use a whole number, 1 or more");
			opt->top = (size_t)v;
			break;
		case OPT_WALK:
			opt->walk = 1;
			break;
		case OPT_EXCLUSIVE:
			opt->exclusive = 1;
			break;
		case 'j':
			v = parse_count(optarg, ESTRUN_MAX_JOBS);
			if (v <= 0)
				return bad_value("--jobs", optarg,
						 "use a whole number, 1 to 1024");
			opt->jobs = (unsigned)v;
			break;
		case OPT_SAMPLE:
			if (parse_sample(optarg, &opt->sample,
					 &opt->sample_bytes))
				return bad_value("--sample", optarg,
						 "use a percentage such as 5% or a size such as 500M or 2G");
			sample_given = 1;
			break;
		case OPT_SEED:
			v = parse_count(optarg, LLONG_MAX);
			if (v < 0)
				return bad_value("--seed", optarg,
						 "use a whole number, 0 or more");
			opt->seed = (uint64_t)v;
			sample_given = 1;
			break;
		case OPT_DEVICE_SPEED:
			if (decide_parse_speed(optarg, &opt->dev_write,
					       &opt->dev_read))
				return bad_value("--device-speed", optarg,
						 "use WRITE[,READ] in MB/s, such as 150 or 500,2000");
			need_est = 1;
			break;
		case OPT_REWRITE:
			opt->rewrite = 1;
			need_est = 1;
			break;
		case OPT_PLOT:
			if (!*optarg)
				return bad_value("--plot", optarg,
						 "use a file name such as plot.svg");
			opt->plot = optarg;
			need_est = 1;
			break;
		case OPT_VERSION:
			printf("compsize %s\n", COMPSIZE_VERSION);
			return CS_EXIT_OK;
		default:
			return CS_EXIT_USAGE;
		}
	}
	if ((opt->sort != ROW_SORT_WALK || opt->top) && opt->depth < 0 &&
	    !opt->per_file) {
		fputs("compsize: --sort and --top need --depth or --per-file\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if (opt->top && !sort_given)
		opt->sort = ROW_SORT_DISK;
	if (sample_given && !opt->nest) {
		fputs("compsize: --sample and --seed need --estimate\n", stderr);
		return CS_EXIT_USAGE;
	}
	if (need_est && !opt->nest) {
		fputs("compsize: --device-speed, --plot and --rewrite need --estimate\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if (optind >= argc) {
		usage(stderr);
		return CS_EXIT_USAGE;
	}
	return -1;
}

/* --sample: a first walk lists the files' data sizes, reading no data. */
struct sizes {
	uint64_t *x;
	size_t n, cap;
};

static int size_file(void *arg, int fd, const char *path,
		     const struct stat *st, int depth)
{
	struct sizes *sz = arg;
	uint64_t *x;

	(void)fd;
	(void)path;
	(void)depth;
	x = array_grow(sz->x, &sz->cap, sz->n, sizeof(*x));
	if (!x)
		return -ENOMEM;
	sz->x = x;
	sz->x[sz->n++] = estrun_data_bytes(st);
	return 0;
}

static int size_enter_fs(void *arg, int fd, const char *path,
			 const struct stat *st, int top)
{
	(void)arg;
	(void)fd;
	(void)path;
	(void)st;
	(void)top;
	return WALK_ENTER;
}

static int size_tick(void *arg)
{
	(void)arg;
	return 0;
}

static void size_error(void *arg, const char *path, int err)
{
	/* the real walk reports it */
	(void)arg;
	(void)path;
	(void)err;
}

/*
 * Plan the sample of the files under argv[optind..]: bytes of data, or
 * the fraction frac of all of it when bytes is 0.  Sets *pps (0: read
 * everything; estrun_plan()).  Returns 0 or -ENOMEM.
 */
static int sample_plan(int argc, char **argv, const struct walk_opts *wo,
		       uint64_t bytes, double frac, double *pps)
{
	const struct walk_ops ops = {
		.file = size_file,
		.enter_fs = size_enter_fs,
		.tick = size_tick,
		.error = size_error,
	};
	struct sizes sz = { 0 };
	uint64_t total = 0;
	size_t k;
	int i, ret = 0;

	for (i = optind; i < argc && !ret; i++)
		ret = walk_path(argv[i], wo, &ops, &sz);
	if (ret)
		goto out;
	for (k = 0; k < sz.n; k++)
		total += sz.x[k];
	if (!bytes)
		bytes = (uint64_t)(frac * total);
	*pps = estrun_plan(sz.x, sz.n, bytes);
out:
	free(sz.x);
	return ret;
}

/*
 * opt->est_all: the settings asked for, then with --rewrite the
 * compress-force twin of each compress= one (defrag -c compresses with
 * force semantics).  Returns 0 or -ENOMEM.
 */
static int plan_settings(struct options *opt)
{
	size_t i, j;

	opt->est_all = opt->est;
	opt->nall = opt->nest;
	if (!opt->rewrite || !opt->nest)
		return 0;
	opt->est_all = calloc(2 * opt->nest, sizeof(*opt->est_all));
	opt->twin = calloc(opt->nest, sizeof(*opt->twin));
	if (!opt->est_all || !opt->twin)
		return -ENOMEM;
	memcpy(opt->est_all, opt->est, opt->nest * sizeof(*opt->est));
	for (i = 0; i < opt->nest; i++) {
		struct est_setting f = opt->est[i];

		f.force = true;
		for (j = 0; j < opt->nall; j++)
			if (opt->est_all[j].alg == f.alg &&
			    opt->est_all[j].level == f.level &&
			    opt->est_all[j].force)
				break;
		if (j == opt->nall)
			opt->est_all[opt->nall++] = f;
		opt->twin[i] = j;
	}
	return 0;
}

/* Which of the settings the filesystem of path is mounted with now: its
 * index, or -1. */
static long current_setting(const struct options *opt, const char *path)
{
	char buf[64], err[128];
	struct est_setting *cur = NULL;
	size_t n = 0, i;
	long found = -1;

	if (mounts_compress_option(path, buf, sizeof(buf)) != 1 ||
	    est_parse_list(buf, &cur, &n, err, sizeof(err)))
		return -1;
	for (i = 0; n == 1 && i < opt->nest; i++)
		if (opt->est[i].alg == cur->alg &&
		    opt->est[i].level == cur->level &&
		    opt->est[i].force == cur->force)
			found = (long)i;
	free(cur);
	return found;
}

/* The estimates of the whole run, for the report. */
static struct report_est *collect_estimates(struct run *run,
					    const char *first_path,
					    unsigned cpus)
{
	struct report_est *re = calloc(run->opt->nest, sizeof(*re));
	long cur = current_setting(run->opt, first_path);
	struct estrun_result res;
	size_t i;

	if (!re)
		return NULL;
	for (i = 0; i < run->opt->nest; i++) {
		struct decide_in din = {
			.cpus = cpus,
			.dev_write_mbps = run->opt->dev_write,
			.dev_read_mbps = run->opt->dev_read,
		};

		re[i].current = (long)i == cur;
		est_setting_name(&run->opt->est[i], re[i].setting,
				 sizeof(re[i].setting));
		if (run->est) {
			struct layout_total t;

			estrun_get_result(run->est, i, &res);
			layout_total(run->layout, i, &t);
			re[i].input = res.est.input;
			re[i].compress_mbps = res.est.compress_mbps;
			re[i].decompress_mbps = res.est.decompress_mbps;
			re[i].sampled = res.sampled;
			re[i].same_layout = run->have_usage;
			if (!res.sampled) {
				re[i].disk_fresh = t.fresh_disk;
				re[i].uncompressed_fresh = t.fresh_uncomp;
				re[i].disk_same = t.disk;
				re[i].uncompressed_same = t.uncomp;
				re[i].disk_ci95 = 0;
			} else {
				/* extrapolated: each model's share of the
				 * sampled files' estimates */
				re[i].disk_fresh = layout_scale(res.est.disk,
					t.fresh_disk, t.est_disk);
				re[i].uncompressed_fresh = layout_scale(
					res.est.uncompressed, t.fresh_uncomp,
					t.est_uncomp);
				re[i].disk_same = layout_scale(res.est.disk,
					t.disk, t.est_disk);
				re[i].uncompressed_same = layout_scale(
					res.est.uncompressed, t.uncomp,
					t.est_uncomp);
				re[i].disk_ci95 = res.disk_ci95;
			}
			if (re[i].same_layout) {
				re[i].disk = re[i].disk_same;
				re[i].uncompressed = re[i].uncompressed_same;
				if (res.sampled && t.est_disk)
					re[i].disk_ci95 *= (double)t.disk /
							   t.est_disk;
			} else {
				re[i].disk = re[i].disk_fresh;
				re[i].uncompressed = re[i].uncompressed_fresh;
				if (res.sampled && t.est_disk)
					re[i].disk_ci95 *=
						(double)t.fresh_disk /
						t.est_disk;
			}
		}
		if (run->rewrite && run->have_usage && run->est) {
			struct layout_total tw;
			struct estrun_result rt;
			uint64_t new_disk;

			estrun_get_result(run->est, run->opt->twin[i], &rt);
			layout_total(run->layout, run->opt->twin[i], &tw);
			new_disk = rt.sampled ? layout_scale(rt.est.disk,
					tw.rewrite_disk, tw.est_disk)
					      : tw.rewrite_disk;
			re[i].have_rewrite = 1;
			re[i].rewrite_change = (int64_t)new_disk -
				(int64_t)rewrite_freed(run->rewrite);
		}
		din.disk = re[i].disk;
		din.uncompressed = re[i].uncompressed;
		din.compress_mbps = re[i].compress_mbps;
		din.decompress_mbps = re[i].decompress_mbps;
		decide(&din, &re[i].dec);
	}
	return re;
}

/*
 * --plot: the SVG into path, whole or not at all: written to a temporary
 * file beside it and renamed.  Returns 0, -ENOMEM, or -1 after reporting
 * the failure on stderr.
 */
static int write_plot(const char *path, const struct report *r,
		      const char *title)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	FILE *f;
	int ret;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 16, "%s.%ld.tmp", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		ret = -errno;
		goto fail;
	}
	ret = report_plot(f, r, title);
	if (ret == -EINVAL) {
		fclose(f);
		unlink(tmp);
		free(tmp);
		fputs("compsize: --plot: no estimate with a speed to plot\n",
		      stderr);
		return -1;
	}
	if (fflush(f) || ferror(f))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (!ret) {
		free(tmp);
		return 0;
	}
	unlink(tmp);
	if (ret == -ENOMEM) {
		free(tmp);
		return ret;
	}
fail:
	free(tmp);
	{
		char msg[64];

		snprintf(msg, sizeof(msg), "%s", strerror(-ret));
		fprintf(stderr, "compsize: %s: %s\n", path, msg);
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct options opt = { .depth = -1 };
	struct run run = { .opt = &opt, .counted_depth = -1, .counted_fd = -1 };
	struct report_est *est = NULL;
	struct sharing_result excl;
	struct walk_opts wopts;
	struct report r;
	const struct walk_ops ops = {
		.file = on_file,
		.enter_fs = on_enter_fs,
		.dir = on_dir,
		.leave_dir = on_leave_dir,
		.tick = on_tick,
		.error = on_error,
	};
	char err[512];
	size_t i;
	int ret, code, first_arg = 0;

	code = parse_options(argc, argv, &opt);
	if (code >= 0)
		goto out;
	wopts.one_fs = opt.one_fs;
	/* Every tree search needs CAP_SYS_ADMIN. */
	run.usage = have_cap(CAP_SYS_ADMIN);
	/* The fast scan sees every file; the walk only those it may open.
	 * They agree when no permission check can stop the walk. */
	run.fast = have_cap(CAP_DAC_READ_SEARCH) || have_cap(CAP_DAC_OVERRIDE);
	run.have_usage = run.usage;
	if (!run.usage && (!opt.nest || opt.exclusive)) {
		fputs("compsize: reading btrfs metadata needs root (CAP_SYS_ADMIN)\n",
		      stderr);
		code = CS_EXIT_ERROR;
		goto out;
	}

	code = CS_EXIT_FATAL;
	if (opt.nest && est_plugin_load(err, sizeof(err))) {
		fprintf(stderr, "compsize: --estimate: %s\n", err);
		goto out;
	}
	run.scan = scan_create();
	if (!run.scan)
		goto nomem;
	if (plan_settings(&opt))
		goto nomem;
	if (opt.rewrite && run.usage) {
		run.rewrite = rewrite_create();
		if (!run.rewrite)
			goto nomem;
	}
	if (opt.nest) {
		run.layout = layout_create(opt.nall);
		if (!run.layout)
			goto nomem;
	}
	if (opt.exclusive) {
		run.sharing = sharing_create();
		if (!run.sharing)
			goto nomem;
		scan_set_sharing(run.scan, run.sharing);
	}
	if (opt.depth >= 0 || opt.per_file) {
		/* with estimates, each row holds both models (layout.h) */
		run.rows = rows_create(opt.sort, opt.top, 2 * opt.nall);
		if (!run.rows)
			goto nomem;
	}
	raise_fd_limit();
	if (opt.sample || opt.sample_bytes) {
		ret = sample_plan(argc, argv, &wopts, opt.sample_bytes,
				  opt.sample, &run.pps);
		if (ret == -ENOMEM)
			goto nomem;
	}
	signal(SIGUSR1, on_sigusr1);
	first_arg = optind;

	for (ret = 0; optind < argc && !ret; optind++) {
		ret = walk_path(argv[optind], &wopts, &ops, &run);
		if (!ret)
			ret = run.leave_err;
	}
	if (!ret && run.est) {
		ret = estrun_finish(run.est);
		/* -EIO: a piece kept to check did not decompress back */
		if (ret == -EIO)
			fputs("compsize: --estimate: a codec did not decompress its own output\n",
			      stderr);
		else if (ret && ret != -ENOMEM)
			fprintf(stderr, "compsize: --estimate: %s\n",
				strerror(-ret));
	}

	if (!ret && opt.rewrite && !run.have_usage) {
		fputs("compsize: --rewrite: needs the current usage (btrfs and root): not computed\n",
		      stderr);
		run.failed++;
	}
	if (!ret && run.rewrite && run.have_usage) {
		/* the old extents the rewrite frees: one look at the rest
		 * of the filesystem, as for --exclusive */
		ret = rewrite_resolve(run.rewrite, on_tick, &run);
		if (ret && ret != -ENOMEM)
			fprintf(stderr, "compsize: --rewrite: %s\n",
				strerror(-ret));
	}
	if (!ret && run.sharing) {
		ret = sharing_resolve(run.sharing, on_tick, &run);
		if (ret && ret != -ENOMEM)
			fprintf(stderr, "compsize: --exclusive: %s\n",
				strerror(-ret));
		if (ret == -EPERM)
			run.fatal = CS_EXIT_ERROR;
	}

	if (ret == -ENOMEM)
		goto nomem;
	if (ret) {
		code = run.fatal ? run.fatal : CS_EXIT_FATAL;
		goto out;
	}
	fill_report(&run, &r);
	if (run.sharing) {
		sharing_total(run.sharing, &excl);
		r.excl = &excl;
		if (run.rows)
			rows_set_exclusive(run.rows, run.sharing);
	}
	if (run.rows)
		r.rows = rows_result(run.rows, &r.nrows);
	if (opt.nest) {
		r.cpus = default_jobs();
		est = collect_estimates(&run, argv[first_arg], r.cpus);
		if (!est)
			goto nomem;
		r.est = est;
		r.nest = opt.nest;
		r.est_stride = opt.nall;
		r.dev_write_mbps = opt.dev_write;
		r.dev_read_mbps = opt.dev_read;
	}
	ret = report_print(stdout, stderr, &r);
	if (ret < 0)
		goto nomem;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "compsize: standard output: %s\n",
			strerror(errno));
		code = CS_EXIT_FATAL;
		goto out;
	}
	code = ret || run.failed ? CS_EXIT_ERROR : CS_EXIT_OK;
	if (opt.plot) {
		ret = write_plot(opt.plot, &r, argv[first_arg]);
		if (ret == -ENOMEM)
			goto nomem;
		if (ret)
			code = CS_EXIT_ERROR;
	}
	goto out;
nomem:
	fputs("compsize: out of memory\n", stderr);
	code = CS_EXIT_FATAL;
out:
	for (i = 0; i < run.nerrors; i++) {
		free(run.errors[i].path);
		free(run.errors[i].error);
	}
	free(run.errors);
	if (run.counted_fd >= 0)
		close(run.counted_fd);
	free(run.counted_path);
	free(est);
	estrun_free(run.est);
	layout_free(run.layout);
	rewrite_free(run.rewrite);
	if (opt.est_all != opt.est)
		free(opt.est_all);
	free(opt.twin);
	free(run.ext);
	free(run.est_rows);
	rows_free(run.rows);
	scan_free(run.scan);
	sharing_free(run.sharing);
	mounts_free(run.mounts);
	free(opt.est);
	return code;
}
