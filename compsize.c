// SPDX-License-Identifier: GPL-2.0
/*
 * compsize: how much disk space a set of files on btrfs uses, by
 * compression type, and what it would use under other compression
 * settings.  This file is the command line only: options, usage, exit
 * codes, and main(), which fills a struct options and hands it to the
 * run (run.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include "report/compare.h"
#include "report/decide.h"
#include "estimate/plugin.h"
#include "estimate/estimate.h"
#include "lib/exitcode.h"
#include "report/format.h"
#include "report/find.h"
#include "report/ncdu.h"
#include "lib/optval.h"
#include "run/autosample.h"
#include "run/run.h"

/* SIGUSR1: the run prints the statistics so far at its next tick.  The
 * one static: a signal handler has nowhere else to write. */
static volatile sig_atomic_t want_stats;

static void on_sigusr1(int sig)
{
	(void)sig;
	want_stats = 1;
}

/* What was printed reached standard output: CS_EXIT_OK, else
 * CS_EXIT_ERROR after a line saying why (a full disk, a closed pipe):
 * err, the errno of a write already seen to fail, or the flush's. */
static int stdout_written(int err)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return CS_EXIT_OK;
	if (!err)
		err = errno ? errno : EIO;
	fprintf(stderr, "compsize: standard output: %s\n", strerror(err));
	return CS_EXIT_ERROR;
}

/* Returns 0, or the errno of a failed write. */
static int usage(FILE *f)
{
	return fputs("Usage: compsize [options] file-or-dir1 [file-or-dir2 ...]\n"
	      "\n"
	      "Compsize displays total space used by set of files, taking into account\n"
	      "compression, reflinks, partially overwritten extents.\n"
	      "\n"
	      "Options:\n"
	      "    -h, --help              print this help message and exit\n"
	      "    -b, --bytes             display raw bytes instead of human-readable sizes\n"
	      "        --raw               raw bytes, as -b; this and the next seven as\n"
	      "                            in btrfs filesystem du (JSON, CSV: bytes)\n"
	      "        --human-readable    sizes such as 1.23GiB, base 1024\n"
	      "        --iec               base 1024: KiB, MiB, GiB, TiB\n"
	      "        --si                base 1000: kB, MB, GB, TB\n"
	      "        --kbytes            sizes in KiB (kB with --si)\n"
	      "        --mbytes            sizes in MiB (MB with --si)\n"
	      "        --gbytes            sizes in GiB (GB with --si)\n"
	      "        --tbytes            sizes in TiB (TB with --si)\n"
	      "    -x, --one-file-system   don't cross filesystem boundaries\n"
	      "    -e, --estimate=LIST     also predict usage under other settings, e.g.\n"
	      "                            zstd:1,zstd:3,compress-force=lzo,zlib:1..9,all\n"
	      "        --assume=SETTING    without root: compressed extents were written\n"
	      "                            with SETTING (default: each file's property,\n"
	      "                            else the mount option), e.g. zstd:3\n"
	      "    -j, --jobs=N            estimate on N threads (default: one per CPU)\n"
	      "        --sample=PERCENT|SIZE  estimate from a random part of the data,\n"
	      "                            e.g. 5% or 2G, with a 95% interval\n"
	      "        --sample=auto       sample in rounds until the 95% interval is\n"
	      "                            at most 2% of the estimate either side\n"
	      "        --precision=P%      with --sample=auto: that width instead\n"
	      "        --no-sample         the full estimate even where it would take\n"
	      "                            more than a minute (else: --sample=auto)\n"
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
	      "        --exclusive         also what deleting the files would free: data\n"
	      "                            nothing outside them references, inline data\n"
	      "                            in leaves no snapshot shares\n"
	      "        --waste             also the disk bytes of the files' extents that\n"
	      "                            no reference anywhere reaches (bookends)\n"
	      "        --find=PREDICATES   print the paths of the files for which all of\n"
	      "                            the comma-separated KEY OP VALUE hold, e.g.\n"
	      "                            type=none,size>1M; keys: type, ratio, size,\n"
	      "                            disk, extents, avg-extent, shared, exclusive,\n"
	      "                            waste, gain (with --estimate); OP: = != < >\n"
	      "                            <= >=\n"
	      "    -0, --null              with --find: a NUL after each path, not a newline\n"
	      "        --levels            also the level of each zstd and zlib extent,\n"
	      "                            found by compressing its data again at each\n"
	      "                            level (root): a row per set of levels\n"
	      "        --format=FORMAT     table (default), json, csv, ncdu (the tree\n"
	      "                            for ncdu -f) or prometheus (node_exporter)\n"
	      "        --histogram         also the extents by type and size class\n"
	      "                            (uncompressed length, 4K, 8K, ... 128M)\n"
	      "        --compare=OLD.json  also each row's and type's change since the\n"
	      "                            report OLD.json (--format=json) was saved\n"
	      "        --depth=N           a row per directory down to depth N\n"
	      "        --per-file          a row per file\n"
	      "        --subvolumes        a row per subvolume and snapshot of the whole\n"
	      "                            filesystem, with its path from the top level\n"
	      "                            (not from the argument), id, read-only flag\n"
	      "                            and what deleting it frees: the kernel's\n"
	      "                            qgroup excl, without quotas (implies\n"
	      "                            --exclusive)\n"
	      "        --sort=KEY          order rows by disk, saved, ratio, name,\n"
	      "                            exclusive, waste, delta (with --compare:\n"
	      "                            the largest change first) or walk (the\n"
	      "                            default)\n"
	      "        --top=N             only the first N rows (sorted by disk by default)\n"
	      "        --progress          show progress on standard error even when it is\n"
	      "                            not a terminal (a line every 10 seconds)\n"
	      "        --no-progress       never show progress\n"
	      "        --walk              open and search every file, as compsize 1.5 does,\n"
	      "                            instead of reading whole subtrees from metadata\n"
	      "        --version           print the version and exit\n"
	      "\n"
	      "Exit status: 0 success, 1 nothing to report, some path failed or\n"
	      "stdout could not be written, 2 usage error, 3 out of memory or\n"
	      "internal error.\n", f) == EOF ? errno : 0;
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

/*
 * Are we in the initial user namespace?  Capabilities held in another one
 * (unshare -r, a rootless container) don't reach the tree search ioctl,
 * which asks capable(CAP_SYS_ADMIN) of the initial one.  1 if we can't
 * tell.
 */
static int init_user_ns(void)
{
	unsigned long inside, outside, count;
	FILE *f = fopen("/proc/self/uid_map", "re");
	int n;

	if (!f)
		return 1;
	n = fscanf(f, "%lu %lu %lu", &inside, &outside, &count);
	fclose(f);
	return n != 3 || (!inside && !outside && count == 4294967295ul);
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
	OPT_PRECISION,
	OPT_NO_SAMPLE,
	OPT_DEVICE_SPEED,
	OPT_PLOT,
	OPT_REWRITE,
	OPT_EXCLUSIVE,
	OPT_SUBVOLUMES,
	OPT_LEVELS,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_FIND,
	OPT_WASTE,
	OPT_HISTOGRAM,
	OPT_COMPARE,
	OPT_ASSUME,
	/* btrfs-progs' unit options: OPT_UNITS + enum fmt_unit_opt */
	OPT_UNITS = 512,
};

static int bad_value(const char *opt, const char *value, const char *want)
{
	fprintf(stderr, "compsize: invalid %s '", opt);
	fmt_table_path(stderr, value);
	fprintf(stderr, "': %s\n", want);
	return CS_EXIT_USAGE;
}

/*
 * Nothing can be read without CAP_SYS_ADMIN (or with it in a user
 * namespace, which the search ioctl doesn't take): with --format=json,
 * the report anyway, empty, with the cause for every argument in its
 * errors, so that a script reads why; Prometheus' metrics count them as
 * read errors, ncdu's tree marks each argument.  (CSV has no place for
 * errors: nothing.)  Returns 0 or -ENOMEM.
 */
static int print_refused(const struct options *opt, char *const *paths,
			 int n)
{
	static const char cause[] =
		"reading btrfs metadata needs root (CAP_SYS_ADMIN)";
	struct report_error *errs;
	struct ncdu *tree = NULL;
	struct cs_stats none = { 0 };
	struct report r = { .format = opt->format, .units = opt->units,
			    .total = &none, .have_usage = 1 };
	int i, ret;

	if (opt->format != REPORT_JSON && opt->format != REPORT_PROMETHEUS &&
	    opt->format != REPORT_NCDU)
		return 0;
	errs = calloc(n, sizeof(*errs));
	if (!errs)
		return -ENOMEM;
	ret = -ENOMEM;
	if (opt->format == REPORT_NCDU) {
		tree = ncdu_create();
		if (!tree)
			goto out;
	}
	for (i = 0; i < n; i++) {
		errs[i].path = paths[i];
		errs[i].error = (char *)cause;
		if (tree && ncdu_error(tree, paths[i]))
			goto out;
	}
	r.errors = errs;
	r.nerrors = n;
	r.tree = tree;
	r.timestamp = (int64_t)time(NULL);
	ret = report_print(stdout, stderr, &r);
out:
	ncdu_free(tree);
	free(errs);
	return ret < 0 ? ret : 0;
}

/*
 * Negative zstd levels are the kernel's since Linux 6.15 (zstd.c's
 * ZSTD_BTRFS_MIN_LEVEL): an older one can't mount with them, so the
 * estimate is of a setting this machine can't use.  One note on stderr.
 */
static void note_old_kernel(const struct options *opt)
{
	struct utsname u;
	unsigned major = 0, minor = 0;
	size_t i;

	for (i = 0; i < opt->nest; i++)
		if (opt->est[i].alg == EST_ZSTD && opt->est[i].level < 0)
			break;
	if (i == opt->nest || uname(&u) ||
	    sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return;
	if (major > 6 || (major == 6 && minor >= 15))
		return;
	fputs("compsize: note: negative zstd levels need Linux 6.15 or later; this kernel is ",
	      stderr);
	fmt_table_path(stderr, u.release);
	fputc('\n', stderr);
}

/* --find=PREDICATES into opt->find: -1 to go on, or the exit code. */
static int parse_find(const char *arg, struct options *opt)
{
	const char *why;
	char *bad;
	int ret;

	find_free(opt->find);
	opt->find = NULL;
	ret = find_parse(arg, &opt->find, &bad, &why);
	if (ret == -ENOMEM) {
		fputs("compsize: out of memory\n", stderr);
		return CS_EXIT_FATAL;
	}
	if (ret) {
		ret = bad_value("--find predicate", bad, why);
		free(bad);
		return ret;
	}
	return -1;
}

/* --find, -0 and --waste against the rest: -1 to go on, or the exit
 * code.  --find makes a row per file, which it keeps or not. */
static int check_find(struct options *opt)
{
	if (opt->find_nul && !opt->find) {
		fputs("compsize: -0/--null goes with --find\n", stderr);
		return CS_EXIT_USAGE;
	}
	if (opt->waste && opt->subvolumes) {
		fputs("compsize: --waste is of the files' extents: not with --subvolumes\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if (!opt->find)
		return -1;
	if (opt->depth >= 0 || opt->subvolumes ||
	    opt->format == REPORT_NCDU || opt->format == REPORT_PROMETHEUS) {
		fputs("compsize: --find lists files: not with --depth, --subvolumes, --format=ncdu or --format=prometheus\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if ((find_needs(opt->find) & FIND_NEED_ESTIMATE) && !opt->nest)
		return bad_value("--find predicate",
				 find_text(opt->find, FIND_NEED_ESTIMATE),
				 "gain needs --estimate");
	opt->per_file = 1;
	return -1;
}

/* Fills *opt; returns -1 to go on, or the exit code to exit with. */
static int parse_options(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{ "bytes", no_argument, NULL, 'b' },
		{ "one-file-system", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "estimate", required_argument, NULL, 'e' },
		{ "assume", required_argument, NULL, OPT_ASSUME },
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
		{ "precision", required_argument, NULL, OPT_PRECISION },
		{ "no-sample", no_argument, NULL, OPT_NO_SAMPLE },
		{ "device-speed", required_argument, NULL, OPT_DEVICE_SPEED },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "rewrite", no_argument, NULL, OPT_REWRITE },
		{ "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
		{ "levels", no_argument, NULL, OPT_LEVELS },
		{ "subvolumes", no_argument, NULL, OPT_SUBVOLUMES },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "find", required_argument, NULL, OPT_FIND },
		{ "null", no_argument, NULL, '0' },
		{ "waste", no_argument, NULL, OPT_WASTE },
		{ "histogram", no_argument, NULL, OPT_HISTOGRAM },
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "raw", no_argument, NULL, OPT_UNITS + FMT_OPT_RAW },
		{ "human-readable", no_argument, NULL, OPT_UNITS + FMT_OPT_HUMAN },
		{ "iec", no_argument, NULL, OPT_UNITS + FMT_OPT_IEC },
		{ "si", no_argument, NULL, OPT_UNITS + FMT_OPT_SI },
		{ "kbytes", no_argument, NULL, OPT_UNITS + FMT_OPT_KBYTES },
		{ "mbytes", no_argument, NULL, OPT_UNITS + FMT_OPT_MBYTES },
		{ "gbytes", no_argument, NULL, OPT_UNITS + FMT_OPT_GBYTES },
		{ "tbytes", no_argument, NULL, OPT_UNITS + FMT_OPT_TBYTES },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const formats[] = { "table", "json", "csv", "ncdu",
					       "prometheus" };
	static const char *const sorts[] = { "walk", "disk", "saved", "ratio",
					     "name", "exclusive", "waste",
					     "delta" };
	char err[256];
	long long v;
	int c, sort_given = 0, sample_given = 0, need_est = 0;
	int fixed_sample = 0, no_sample = 0, ret;
	uint64_t v64;

	while ((c = getopt_long(argc, argv, "bxhe:j:0", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			fmt_units_apply(&opt->units, FMT_OPT_RAW);
			break;
		case OPT_UNITS + FMT_OPT_RAW:
		case OPT_UNITS + FMT_OPT_HUMAN:
		case OPT_UNITS + FMT_OPT_IEC:
		case OPT_UNITS + FMT_OPT_SI:
		case OPT_UNITS + FMT_OPT_KBYTES:
		case OPT_UNITS + FMT_OPT_MBYTES:
		case OPT_UNITS + FMT_OPT_GBYTES:
		case OPT_UNITS + FMT_OPT_TBYTES:
			fmt_units_apply(&opt->units,
					(enum fmt_unit_opt)(c - OPT_UNITS));
			break;
		case OPT_PROGRESS:
			opt->progress = 1;
			break;
		case OPT_NO_PROGRESS:
			opt->progress = 0;
			break;
		case 'x':
			opt->one_fs = 1;
			break;
		case 'h':
			return stdout_written(usage(stdout));
		case 'e':
			free(opt->est);
			opt->est = NULL;
			if (est_parse_list(optarg, &opt->est, &opt->nest, err,
					   sizeof(err))) {
				fprintf(stderr, "compsize: %s\n", err);
				return CS_EXIT_USAGE;
			}
			break;
		case OPT_ASSUME: {
			struct est_setting *s = NULL;
			size_t n = 0;

			if (est_parse_list(optarg, &s, &n, err, sizeof(err)) ||
			    n != 1) {
				free(s);
				return bad_value("--assume", optarg,
						 "use one setting, e.g. zstd:3");
			}
			free(opt->assume);
			opt->assume = s;
			break;
		}
		case OPT_FORMAT:
			c = optval_choice(optarg, formats, 5);
			if (c < 0)
				return bad_value("--format", optarg,
						 "use table, json, csv, ncdu or prometheus");
			opt->format = (enum report_format)c;
			break;
		case OPT_DEPTH:
			if (optval_count(optarg, INT_MAX, &v))
				return bad_value("--depth", optarg,
						 "use a whole number, 0 or more");
			opt->depth = (int)v;
			break;
		case OPT_PER_FILE:
			opt->per_file = 1;
			break;
		case OPT_SORT:
			c = optval_choice(optarg, sorts,
					  sizeof(sorts) / sizeof(sorts[0]));
			if (c < 0)
				return bad_value("--sort", optarg,
						 "use disk, saved, ratio, name, exclusive, waste, delta or walk");
			if (c == ROW_SORT_EXCLUSIVE)
				opt->exclusive = 1;
			if (c == ROW_SORT_WASTE)
				opt->waste = 1;
			opt->sort = (enum row_sort)c;
			sort_given = 1;
			break;
		case OPT_TOP:
			if (optval_count(optarg, LLONG_MAX, &v) || !v)
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
		case OPT_LEVELS:
			opt->levels = 1;
			break;
		case OPT_SUBVOLUMES:
			opt->subvolumes = 1;
			opt->exclusive = 1;
			break;
		case OPT_HISTOGRAM:
			opt->histogram = 1;
			break;
		case OPT_COMPARE:
			compare_free(opt->compare);
			opt->compare = NULL;
			opt->compare_path = optarg;
			break;
		case 'j':
			if (optval_count(optarg, RUN_MAX_JOBS, &v) || !v)
				return bad_value("--jobs", optarg,
						 "use a whole number, 1 to 1024");
			opt->jobs = (unsigned)v;
			break;
		case OPT_SAMPLE:
			if (!strcmp(optarg, "auto")) {
				if (!opt->precision)
					opt->precision = AUTOSAMPLE_PRECISION;
				opt->sample = 0;
				opt->sample_bytes = 0;
			} else if (optval_sample(optarg, &opt->sample,
						 &opt->sample_bytes)) {
				return bad_value("--sample", optarg,
						 "use auto, a percentage such as 5% or a size such as 500M or 2G");
			} else {
				fixed_sample = 1;
			}
			sample_given = 1;
			break;
		case OPT_NO_SAMPLE:
			no_sample = 1;
			break;
		case OPT_PRECISION:
			if (optval_sample(optarg, &opt->precision, &v64) ||
			    v64 || opt->precision >= 1)
				return bad_value("--precision", optarg,
						 "use a percentage under 100%, such as 2% or 0.5%");
			sample_given = 1;
			break;
		case OPT_SEED:
			if (optval_count(optarg, LLONG_MAX, &v))
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
		case OPT_FIND:
			ret = parse_find(optarg, opt);
			if (ret >= 0)
				return ret;
			break;
		case '0':
			opt->find_nul = 1;
			break;
		case OPT_WASTE:
			opt->waste = 1;
			break;
		case OPT_VERSION:
			return stdout_written(printf("compsize %s\n",
						     COMPSIZE_VERSION) < 0 ?
					      errno : 0);
		default:
			return CS_EXIT_USAGE;
		}
	}
	/* --walk does not apply: a subvolume that is not mounted can only
	 * be read from metadata. */
	if (opt->subvolumes && (opt->depth >= 0 || opt->per_file ||
				opt->nest)) {
		fputs("compsize: --subvolumes reads whole subvolumes: not with --depth, --per-file or --estimate\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	ret = check_find(opt);
	if (ret >= 0)
		return ret;
	if (opt->levels && (opt->subvolumes || opt->format == REPORT_CSV ||
			    opt->format == REPORT_NCDU ||
			    opt->format == REPORT_PROMETHEUS)) {
		fputs("compsize: --levels reads the files' extents into the table or JSON: not with --subvolumes or --format=csv, ncdu or prometheus\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if ((opt->sort != ROW_SORT_WALK || opt->top) && opt->depth < 0 &&
	    !opt->per_file && !opt->subvolumes) {
		fputs("compsize: --sort and --top need --depth, --per-file or --subvolumes\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if (opt->top && !sort_given)
		opt->sort = ROW_SORT_DISK;
	if (opt->format == REPORT_NCDU) {
		/* the tree has every file; nothing else fits in it */
		if (opt->depth >= 0 || sort_given || opt->top || opt->nest ||
		    opt->exclusive) {
			fputs("compsize: --format=ncdu takes no --depth, --sort, --top, --estimate, --exclusive or --subvolumes\n",
			      stderr);
			return CS_EXIT_USAGE;
		}
		opt->per_file = 0;
	}
	if (opt->sort == ROW_SORT_DELTA && !opt->compare_path) {
		fputs("compsize: --sort=delta needs --compare\n", stderr);
		return CS_EXIT_USAGE;
	}
	if (opt->compare_path && (opt->nest || opt->format == REPORT_NCDU ||
				  opt->format == REPORT_PROMETHEUS)) {
		fputs("compsize: --compare goes with --format=table, json or csv, without --estimate\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if (opt->histogram && (opt->format == REPORT_NCDU ||
			       opt->format == REPORT_PROMETHEUS)) {
		fputs("compsize: --histogram goes with --format=table, json or csv\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	/* Prometheus' series are per path: a row per argument at least */
	if (opt->format == REPORT_PROMETHEUS && opt->depth < 0 &&
	    !opt->per_file && !opt->subvolumes)
		opt->depth = 0;
	if (sample_given && !opt->nest) {
		fputs("compsize: --sample, --seed and --precision need --estimate\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	if (no_sample && (sample_given || !opt->nest)) {
		fputs("compsize: --no-sample goes with --estimate, without --sample, --seed or --precision\n",
		      stderr);
		return CS_EXIT_USAGE;
	}
	/* A full estimate that would take more than a minute samples
	 * instead, unless asked not to (run_too_big()) */
	if (opt->nest && !sample_given && !no_sample)
		opt->auto_after = AUTOSAMPLE_AFTER;
	if (fixed_sample && opt->precision) {
		fputs("compsize: --precision goes with --sample=auto, not a sample of a given size\n",
		      stderr);
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
	if (opt->compare_path) {
		/* read before anything else: a bad file costs no scan */
		ret = compare_load(opt->compare_path, &opt->compare, err,
				   sizeof(err));
		if (ret == -ENOMEM) {
			fputs("compsize: out of memory\n", stderr);
			return CS_EXIT_FATAL;
		}
		if (ret) {
			fputs("compsize: ", stderr);
			fmt_table_path(stderr, opt->compare_path);
			fprintf(stderr, ": %s\n", err);
			return CS_EXIT_USAGE;
		}
	}
	return -1;
}

/*
 * --plot's file is written after the whole run: that its directory takes
 * a new file is checked before anything is read.  0, or CS_EXIT_USAGE
 * after one line naming the directory and the cause.
 */
static int check_plot_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ret = 0;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, slash - path);
	if (!dir) {
		fputs("compsize: out of memory\n", stderr);
		return CS_EXIT_FATAL;
	}
	if (access(dir, W_OK | X_OK)) {
		fputs("compsize: --plot: ", stderr);
		fmt_table_path(stderr, dir);
		fprintf(stderr, ": %s\n", strerror(errno));
		ret = CS_EXIT_USAGE;
	}
	free(dir);
	return ret;
}

int main(int argc, char **argv)
{
	struct options opt = { .depth = -1, .progress = -1 };
	struct run_env env = { .want_stats = &want_stats };
	struct run *run = NULL;
	char *const *paths;
	char err[512];
	int ret, code, npaths;
	uint64_t big;

	code = parse_options(argc, argv, &opt);
	if (code >= 0)
		goto out;
	/* Before any work: the default action would end the run (--sample's
	 * first pass included) instead of printing the statistics. */
	signal(SIGUSR1, on_sigusr1);
	if (opt.plot) {
		code = check_plot_dir(opt.plot);
		if (code)
			goto out;
	}
	paths = argv + optind;
	npaths = argc - optind;
	/* Every tree search needs CAP_SYS_ADMIN. */
	env.usage = have_cap(CAP_SYS_ADMIN) && init_user_ns();
	/* The fast scan sees every file; the walk only those it may open.
	 * They agree when no permission check can stop the walk. */
	env.fast = have_cap(CAP_DAC_READ_SEARCH) || have_cap(CAP_DAC_OVERRIDE);
	/* Without it, the usage from FIEMAP (docs/rootless.md); what the
	 * rest of the filesystem shares, what no file references and the
	 * extents' own sizes need the searches. */
	env.fiemap = !env.usage;
	if (!env.usage && (opt.exclusive || opt.find || opt.waste ||
			   opt.histogram || opt.levels)) {
		fprintf(stderr, "compsize: %s: reading btrfs metadata needs root (CAP_SYS_ADMIN)\n",
			opt.subvolumes ? "--subvolumes" :
			opt.exclusive ? "--exclusive" :
			opt.find ? "--find" :
			opt.waste ? "--waste" :
			opt.histogram ? "--histogram" : "--levels");
		code = print_refused(&opt, paths, npaths) ? CS_EXIT_FATAL
							  : CS_EXIT_ERROR;
		goto out;
	}
	if (opt.nest)
		note_old_kernel(&opt);

	code = CS_EXIT_FATAL;
	if ((opt.nest || env.fiemap || opt.levels) &&
	    est_plugin_load(err, sizeof(err))) {
		fprintf(stderr, "compsize: %s: %s\n",
			opt.nest ? "--estimate" :
			opt.levels ? "--levels" : "not root", err);
		goto out;
	}
	raise_fd_limit();
	if (opt.precision) {
		ret = autosample_rounds(&opt, &env, paths, npaths, &run);
	} else {
		run = run_create(&opt, &env);
		if (!run)
			goto nomem;
		if (opt.sample || opt.sample_bytes) {
			ret = run_sample(run, paths, npaths);
			if (ret == -ENOMEM)
				goto nomem;
		}
		ret = run_paths(run, paths, npaths);
		if (ret == -ECANCELED && run_too_big(run, &big))
			ret = autosample_instead(&opt, &env, paths, npaths,
						 &run);
	}
	if (ret == -ENOMEM)
		goto nomem;
	if (ret) {
		code = run_needs_root(run) ? CS_EXIT_ERROR : CS_EXIT_FATAL;
		/* capabilities that don't reach the filesystem (a user
		 * namespace): as without them */
		if (run_needs_root(run) && print_refused(&opt, paths, npaths))
			goto nomem;
		goto out;
	}
	ret = run_report(run, stdout, stderr);
	if (ret == -EXDEV) {
		code = CS_EXIT_USAGE;
		goto out;
	}
	if (ret < 0)
		goto nomem;
	/* the report is lost: an I/O failure, not an internal one */
	if (stdout_written(0) != CS_EXIT_OK) {
		code = CS_EXIT_ERROR;
		goto out;
	}
	code = ret || run_failed(run) ? CS_EXIT_ERROR : CS_EXIT_OK;
	if (opt.plot) {
		ret = run_plot(run, opt.plot);
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
	run_free(run);
	compare_free(opt.compare);
	free(opt.est);
	find_free(opt.find);
	free(opt.assume);
	return code;
}
