// SPDX-License-Identifier: GPL-2.0
/*
 * compsize: how much disk space a set of files on btrfs uses, by
 * compression type.  This file is the command line only: options, usage,
 * exit codes, and the wiring of walk -> scan -> output.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "exitcode.h"
#include "mounts.h"
#include "output.h"
#include "scan.h"
#include "tree.h"
#include "walk.h"

struct options {
	int bytes;		/* -b */
	int one_fs;		/* -x */
	int walk;		/* --walk: no fast scan */
};

struct run {
	const struct options *opt;
	struct scan_ctx *scan;
	struct mounts *mounts;	/* NULL until the first directory */
	unsigned long errors;	/* paths that could not be read */
	int fatal;		/* exit code if the walk was aborted */
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
	      "        --walk              open and search every file, as compsize 1.5 does,\n"
	      "                            instead of reading whole subtrees from metadata\n"
	      "        --version           print the version and exit\n"
	      "\n"
	      "Exit status: 0 success, 1 nothing to report or some path failed,\n"
	      "2 usage error, 3 out of memory or internal error.\n", f);
}

static int scan_result(struct run *run, const char *path, int ret);

static void report(struct run *run, const char *path, const char *cause)
{
	fprintf(stderr, "compsize: %s: %s\n", path, cause);
	run->errors++;
}

static void on_error(void *arg, const char *path, int err)
{
	report(arg, path, strerror(err));
}

static int on_tick(void *arg)
{
	struct run *run = arg;

	if (want_stats) {
		want_stats = 0;
		out_table(stdout, stderr, &run->scan->stats, run->opt->bytes);
		fflush(stdout);
	}
	return 0;
}

static int on_enter_fs(void *arg, int fd, const char *path,
		       const struct stat *st, int top)
{
	struct run *run = arg;
	int ret = scan_probe_fs(run->scan, fd, st);

	if (ret == 1)
		return WALK_ENTER;
	if (ret == -ENOMEM || ret == -EPERM)
		return scan_result(run, path, ret);
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

static int on_file(void *arg, int fd, const char *path, const struct stat *st)
{
	struct run *run = arg;

	return scan_result(run, path, scan_file(run->scan, fd, st));
}

/* A directory with no mount point beneath it is read from metadata whole. */
static int on_dir(void *arg, int fd, const char *path, const struct stat *st)
{
	struct run *run = arg;
	int ret;

	if (run->opt->walk)
		return WALK_ENTER;
	if (!run->mounts) {
		run->mounts = mounts_create();
		if (!run->mounts)
			return -ENOMEM;
	}
	if (mounts_beneath(run->mounts, st))
		return WALK_ENTER;
	ret = tree_scan_dir(run->scan, fd, st, run->opt->one_fs, on_tick, run);
	if (ret == 1)
		return WALK_ENTER;
	ret = scan_result(run, path, ret);
	return ret < 0 ? ret : WALK_SKIP;
}

/* Do we hold CAP_SYS_ADMIN, which every tree search needs? */
static int have_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return 1;	/* can't tell: let the searches decide */
	return !!(data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &
		  CAP_TO_MASK(CAP_SYS_ADMIN));
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	/* The walk holds one descriptor per directory level. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

enum { OPT_VERSION = 256, OPT_WALK };

/* Fills *opt; returns -1 to go on, or the exit code to exit with. */
static int parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{ "bytes", no_argument, NULL, 'b' },
		{ "one-file-system", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "walk", no_argument, NULL, OPT_WALK },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "bxh", longopts, NULL)) != -1) {
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
		case OPT_WALK:
			opt->walk = 1;
			break;
		case OPT_VERSION:
			printf("compsize %s\n", COMPSIZE_VERSION);
			return CS_EXIT_OK;
		default:
			return CS_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CS_EXIT_USAGE;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct options opt = { 0 };
	struct run run = { .opt = &opt };
	struct walk_opts wopts;
	const struct walk_ops ops = {
		.file = on_file,
		.enter_fs = on_enter_fs,
		.dir = on_dir,
		.tick = on_tick,
		.error = on_error,
	};
	int ret, code;

	code = parse_options(argc, argv, &opt);
	if (code >= 0)
		return code;
	wopts.one_fs = opt.one_fs;
	if (!have_sys_admin()) {
		fputs("compsize: reading btrfs metadata needs root (CAP_SYS_ADMIN)\n",
		      stderr);
		return CS_EXIT_ERROR;
	}

	run.scan = scan_create();
	if (!run.scan) {
		fputs("compsize: out of memory\n", stderr);
		return CS_EXIT_FATAL;
	}
	raise_fd_limit();
	signal(SIGUSR1, on_sigusr1);

	for (ret = 0; optind < argc && !ret; optind++)
		ret = walk_path(argv[optind], &wopts, &ops, &run);

	if (ret == -ENOMEM) {
		fputs("compsize: out of memory\n", stderr);
		code = CS_EXIT_FATAL;
	} else if (ret) {
		code = run.fatal ? run.fatal : CS_EXIT_FATAL;
	} else if (out_table(stdout, stderr, &run.scan->stats, opt.bytes)) {
		code = CS_EXIT_ERROR;
	} else {
		code = run.errors ? CS_EXIT_ERROR : CS_EXIT_OK;
	}
	scan_free(run.scan);
	mounts_free(run.mounts);
	return code;
}
