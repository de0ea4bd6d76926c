/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exclusive space: what deleting a set of files S would free, in two
 * parts.
 *
 *   exclusive_data(S) = disk bytes of the data extents that no reference
 *                       from outside S reaches
 *
 * "Outside S" is every other file of every subvolume and snapshot,
 * mounted or not (a reflink or snapshot elsewhere keeps an extent; a file
 * with a hard link outside S is outside S too); orphans (deleted, still
 * open) have no path and are outside S.  It equals Disk(every file with
 * data extents) - Disk(every such file outside S), Disk as compsize 1.5
 * counts it, and what Data used drops by when S is deleted.
 *
 *   exclusive_metadata(S) = the inline data of S's inodes (once each) that
 *                           lies in leaves of their subvolume's tree no
 *                           other tree reaches (qgroup.h)
 *
 * A leaf a snapshot shares is freed by nothing deleted in S.  It is bytes
 * of inline data, not of leaves: deleting files rarely frees whole leaves.
 *
 * How it is used, by the usage scan or by any other caller that wants the
 * exclusive bytes of a set of files (e.g. what rewriting them would free):
 *
 *   sh = sharing_create();
 *   usage_set_sharing(scan, sh);          every file the scan accounts
 *                                        from now on is in S (scan.h)
 *   ... usage_file() / fastscan_dir() the files of S; the scan calls
 *       sharing_file() and sharing_extent() itself ...
 *   sharing_resolve(sh, tick, arg);      one look at the rest of the
 *                                        filesystem(s)
 *   sharing_total(sh, &res);             exclusive bytes, per type
 *
 * Rows: every row the scan opens (usage_sink_push(), --depth/--per-file/
 * --subvolumes) is a subset of S; sharing_row_exclusive() gives each its
 * own exclusive bytes against the whole filesystem, all from one scan:
 * an extent referenced only from inside S is exclusive to the innermost
 * row holding every reference to it, and to that row's ancestors.
 *
 * Memory: one entry per distinct extent of S (sharing_memory()), one per
 * file of S in a subvolume not wholly in S, one per row, one per inline
 * extent of S (32 bytes), and while the inline data is decided, one
 * qgroup pass's (qgroup.h) of its filesystem.
 */
#ifndef COMPSIZE_SHARING_H
#define COMPSIZE_SHARING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "scan/extent.h"

struct sharing;

/* Returns NULL when out of memory. */
struct sharing *sharing_create(void);
void sharing_free(struct sharing *sh);

/*
 * Filesystem fs_idx (as in struct usage_fs) has files in S; fd is any open
 * file or directory on it, duplicated here for sharing_resolve().  Calling
 * it again for a known fs_idx does nothing.  fd -1: nothing of it is read
 * (tests feed sharing_read_items() instead).  Returns 0 or -errno.
 */
int sharing_add_fs(struct sharing *sh, size_t fs_idx, int fd);

/*
 * The whole tree of subvolume root (every path in it, nested subvolumes
 * apart) is in S.  Returns 0 or -ENOMEM.
 */
int sharing_whole_root(struct sharing *sh, size_t fs_idx, uint64_t root);

/*
 * A regular file of S: inode ino of subvolume root, nlink links, names of
 * which are paths in S (1 per path visited; a file may be announced more
 * than once).  Its extents follow through sharing_extent().  A file with a
 * link outside S (fewer names in S than nlink) is a file outside S too:
 * its extents are shared.  Returns 0 or -ENOMEM.
 */
int sharing_file(struct sharing *sh, size_t fs_idx, uint64_t root,
		 uint64_t ino, uint32_t nlink, uint32_t names);

/*
 * The same for the file open on fd found by a path walk (one name),
 * learning its subvolume from fd once per st_dev.  Returns 0, -ENOMEM, or
 * -errno if its subvolume can't be told.
 */
int sharing_walk_file(struct sharing *sh, size_t fs_idx, int fd,
		      const struct stat *st);

/*
 * An extent item of the file announced last, in the innermost open row.
 * Holes are ignored; inline data waits for the leaves.  Returns 0 or -ENOMEM.
 */
int sharing_extent(struct sharing *sh, size_t fs_idx,
		   const struct extent_info *ei);

/*
 * An extent of S (disk_bytenr bytenr on filesystem fs_idx) that a
 * reference from inside S keeps whatever happens to the rest: shared, not
 * exclusive (a rewrite that leaves an item of S in place, rewrite.h).
 * Nothing when bytenr is not an extent of S.  Before sharing_resolve().
 */
void sharing_keep(struct sharing *sh, size_t fs_idx, uint64_t bytenr);

/* Rows: open a row (a subset of S) inside the open ones, and close the
 * innermost.  Returns the row's id (1, 2, ... in opening order), or 0
 * when out of memory (sharing_resolve() then fails with -ENOMEM). */
uint32_t sharing_row_push(struct sharing *sh);
void sharing_row_pop(struct sharing *sh);

/* How sharing_resolve() decides (both exact; tests compare them). */
enum sharing_method {
	SHARING_AUTO,		/* the cheaper, measured as it goes */
	SHARING_READ,		/* read the other subvolumes only */
	SHARING_BACKREF,	/* LOGICAL_INO_V2 for every extent only */
};

void sharing_set_method(struct sharing *sh, enum sharing_method m);

/*
 * Count S's inline data whole, once per path, as exclusive_metadata: what
 * a rewrite of the files replaces where it is (rewrite.h), not what
 * deleting them frees.  Before the first sharing_extent().
 */
void sharing_inline_whole(struct sharing *sh);

/*
 * Decide which extents of S a file outside S references, by two exact
 * means: reading the file extent items of the other subvolumes (nearest
 * relatives of S's subvolumes first: snapshots taken close in time share
 * the most; one read may decide every extent), and the kernel's backref
 * walk (BTRFS_IOC_LOGICAL_INO_V2, every inode and subvolume referencing
 * an extent) for each extent still undecided.  Which is cheaper for the
 * next step is measured as it goes.
 * tick (may be NULL) is called between searches; its non-zero return
 * aborts with that value.  Needs CAP_SYS_ADMIN.  Returns 0, -ENOMEM,
 * -EPERM, or -errno of a failed search or subvolume listing.
 */
int sharing_resolve(struct sharing *sh, int (*tick)(void *), void *arg);

/*
 * What sharing_resolve() does with each batch of a subvolume outside S:
 * buf holds used bytes of TREE_SEARCH_V2 results (INODE_ITEM and
 * EXTENT_DATA items of subvolume root, in key order).  Every extent of S
 * that a regular file with a path outside S references there is shared.
 * Returns 0, 1 once every extent of S is shared, or -EUCLEAN for a
 * malformed buffer.
 */
int sharing_read_items(struct sharing *sh, size_t fs_idx, uint64_t root,
		       const uint8_t *buf, size_t used);

struct sharing_result {
	uint64_t exclusive;		/* bytes deleting S would free: */
	uint64_t exclusive_data;	/* data extents nothing else keeps */
	uint64_t exclusive_metadata;	/* inline data in leaves of its own */
	uint64_t type[CS_NTYPES];	/* of it, per row of struct cs_stats */
	uint64_t type_meta[CS_NTYPES];	/* of that, inline data */
	uint64_t extents;		/* distinct extents of S */
	uint64_t shared_extents;	/* of them referenced from outside S */
};

/* After sharing_resolve(): the totals of S. */
void sharing_total(const struct sharing *sh, struct sharing_result *res);

/* After sharing_resolve(): the exclusive bytes of row id, and of them
 * the inline data (the rest is data extents). */
uint64_t sharing_row_exclusive(const struct sharing *sh, uint32_t id);
uint64_t sharing_row_metadata(const struct sharing *sh, uint32_t id);

/* After sharing_resolve(): 1 when a filesystem had changes not yet
 * committed, whose leaves' sharers only the next commit tells: the inline
 * data in them counted as shared (exclusive_metadata short of it). */
int sharing_inline_unsure(const struct sharing *sh);

/* After sharing_resolve() failed reading a device: its path; else NULL. */
const char *sharing_error_path(const struct sharing *sh);

/* Bytes of memory held, and per distinct extent of S. */
size_t sharing_memory(const struct sharing *sh);

#endif
