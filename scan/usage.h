/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measuring what files use now: for each regular file, its EXTENT_DATA items
 * from TREE_SEARCH_V2, decoded and accounted into one struct cs_stats with
 * one set of extents already counted.
 */
#ifndef COMPSIZE_USAGE_H
#define COMPSIZE_USAGE_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "scan/extent.h"
#include "scan/search.h"
#include "seen.h"
#include "scan/sharing.h"
#include "scan/waste.h"

/* A subvolume (st_dev) met so far, and its filesystem. */
struct usage_fs {
	dev_t dev;
	uint32_t nodesize;
	uint32_t sectorsize;
	/* Index of its filesystem in fsids: disk addresses are only unique
	 * within one (compsize 1.5 merged equal addresses of two). */
	size_t fs_idx;
};

struct usage_fsid {
	uint8_t fsid[BTRFS_FSID_SIZE];
	struct seen_set *seen;	/* extents counted in the grand total */
};

/*
 * Where extents are counted besides the grand total: one per open report
 * row (a directory down to --depth, a file with --per-file), each with its
 * own sets of counted extents, one per filesystem, made on first use.
 */
struct usage_sink {
	struct cs_stats stats;
	struct seen_set **seen;
	size_t nseen;
};

struct usage_ctx {
	struct cs_stats stats;		/* the grand total */
	struct search_ctx *search;
	struct usage_fs *fs;
	size_t nfs;
	/* fsids[0] stands for files on a device never probed. */
	struct usage_fsid *fsids;
	size_t nfsids;
	struct usage_sink *sinks;
	size_t nsinks, cap_sinks;
	/* The first malformed item of the file being scanned. */
	enum extent_error bad_item;
	uint64_t bad_offset;
	int nomem;
	/* The nested subvolumes the last fastscan_dir() or fastscan_list()
	 * found deleted after it had met them: each one's path from the
	 * directory scanned, NUL-terminated, one after the other in
	 * gone[0..gone_len) (fastscan.h) */
	char *gone;
	size_t gone_len, gone_cap;
	/* With --exclusive: everything accounted is in its set S. */
	struct sharing *sharing;
	/* With --waste or a waste predicate: every extent accounted. */
	struct waste *waste;
	/* The grand total's referenced bytes so far, and what
	 * usage_progress() reads from another thread: the files and those
	 * bytes as of the last file begun. */
	uint64_t refd_sum;
	uint64_t prog_files, prog_bytes;
};

/* Returns NULL when out of memory. */
struct usage_ctx *usage_create(void);

/* For a progress line, from any thread: the files begun so far and the
 * bytes they reference (the last file's not yet). */
void usage_progress(const struct usage_ctx *ctx, uint64_t *files,
		    uint64_t *bytes);
void usage_free(struct usage_ctx *ctx);

/*
 * Is the open file or directory fd on btrfs?  If so, learn its geometry
 * (BTRFS_IOC_FS_INFO) for later usage_file() calls on st->st_dev.
 * Returns 1 for btrfs, 0 for another filesystem, -EPERM if reading its
 * metadata needs a capability we lack, or another -errno.
 */
int usage_probe_fs(struct usage_ctx *ctx, int fd, const struct stat *st);

/* Every file accounted from now on is in the set S of sh (NULL: none);
 * call before the first usage_probe_fs(). */
void usage_set_sharing(struct usage_ctx *ctx, struct sharing *sh);

/* Every extent accounted from now on goes to w too (NULL: none); call
 * before the first usage_probe_fs(). */
void usage_set_waste(struct usage_ctx *ctx, struct waste *w);

/* Open a sink: every extent accounted from now on is also added to it.
 * Returns 0 or -ENOMEM. */
int usage_sink_push(struct usage_ctx *ctx);

/* Close the innermost sink, copying its statistics to *out. */
void usage_sink_pop(struct usage_ctx *ctx, struct cs_stats *out);

/* A new file starts: counted in the total and every open sink. */
void usage_begin_file(struct usage_ctx *ctx);

/* Account ei of a file on filesystem fs_idx in the total and every open
 * sink.  Returns 0 or -ENOMEM. */
int usage_account(struct usage_ctx *ctx, size_t fs_idx,
		 const struct extent_info *ei);

/* The geometry learnt by usage_probe_fs() for dev, or NULL. */
const struct usage_fs *usage_fs_of(const struct usage_ctx *ctx, dev_t dev);

/*
 * Account every extent of the regular file open on fd.  Returns 0;
 * -EUCLEAN when some items were malformed (they are skipped, the rest is
 * counted; ctx->bad_item and ctx->bad_offset tell the first);
 * -EPERM without CAP_SYS_ADMIN; -ENOTTY if fd is not on btrfs; -ENOMEM;
 * or another -errno from the search ioctl.
 */
int usage_file(struct usage_ctx *ctx, int fd, const struct stat *st);

#endif
