/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rewrite in place (issue #15): what `btrfs filesystem defragment -r
 * -c<alg>[:level]` on the paths would change in the whole filesystem's
 * Disk Usage.  Defrag with compression (fs/btrfs/defrag.c
 * defrag_collect_targets(), btrfs_defrag_file()) rewrites every regular
 * extent of a file, compressed or not, with compress-force semantics
 * (inode.c inode_need_compress() answers yes for an inode being defragged
 * with compression, before the NOCOMPRESS flag and the heuristic), at the
 * algorithm's default level unless one is passed (BTRFS_DEFRAG_RANGE_
 * COMPRESS_LEVEL, Linux 6.15+; btrfs-progs 6.2 passes none); it leaves
 * holes and prealloc extents as they are, rewrites inline extents too
 * (with the default max_inline: see rewrite.c target()), and fails on
 * files of read-only subvolumes (snapshots); `defragment -r` walks with
 * nftw(FTW_MOUNT) and never reaches nested subvolumes (the caller passes
 * only files on the argument's st_dev).
 *
 *     change = new extents of the rewritten files
 *              - old extents that only the rewritten files referenced
 *
 * The new extents are each rewritten inode's fresh-copy prediction under
 * compress-force with that algorithm and level (layout.h, once per
 * inode: defragging a hard link again frees what the first pass wrote;
 * inline data once per name, as compsize counts it).
 * The old extents freed are the exclusive space of the rewritten files'
 * regular extents (sharing.h): a snapshot, a reflink or a file outside the
 * paths keeps them, and so does an item the rewrite leaves in place (a
 * prealloc range of an extent written in part; the last extent item of
 * a file where defrag stops early, rewrite.c defrag_stop(), whose new
 * extents are then those of the data before that point only); the
 * inline data of a rewritten file is freed whole, at each of its names.
 * This module decides which files are rewritten and feeds their old
 * extents to a sharing set.
 */
#ifndef COMPSIZE_REWRITE_H
#define COMPSIZE_REWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "scan/extent.h"

struct rewrite;

/* Returns NULL when out of memory. */
struct rewrite *rewrite_create(void);
void rewrite_free(struct rewrite *rw);

/*
 * A file the walk found, open on fd, on filesystem fs_idx, with its extent
 * items ext[0..n) (in file order, file_pos set).  Returns 1 if defrag
 * would rewrite it (a regular extent in a writable subvolume; its old
 * extents are now in the set, once per inode), 0 if not, or -errno
 * (-ENOMEM; the subvolume could not be told).  *stop: where defrag stops
 * rewriting it (rewrite.c defrag_stop(): the rest keeps its old extent),
 * 0 when it rewrites it to its end, and whenever it returns other than
 * 1.
 */
int rewrite_file(struct rewrite *rw, size_t fs_idx, int fd,
		 const struct stat *st, const struct extent_info *ext,
		 size_t n, uint64_t *stop);

/*
 * Which old extents a file outside the set references: one look at the
 * rest of each filesystem (sharing_resolve()).  Needs CAP_SYS_ADMIN.
 * Returns 0 or -errno.
 */
int rewrite_resolve(struct rewrite *rw, int (*tick)(void *), void *arg);

/* After rewrite_resolve(): the bytes of old extents the rewrite frees. */
uint64_t rewrite_freed(const struct rewrite *rw);

#endif
