/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Waste: the disk bytes of extents a set of files S references that no
 * reference anywhere in the filesystem reaches (bookends: a later write
 * or a clone took part of an extent, and the extent stays whole on disk
 * while any part of it is referenced).
 *
 *   waste(extent) = disk_num_bytes * (ram_bytes - covered) / ram_bytes
 *
 * where covered is the length of the union of the ranges [offset,
 * offset + num_bytes) that every file extent item pointing at the extent
 * maps, in any subvolume or snapshot: for an uncompressed extent the
 * bytes outside that union, for a compressed one the share of its disk
 * bytes that the unreferenced part of its uncompressed range is.
 *
 * An extent whose references from S already cover it whole wastes
 * nothing, whatever else references it: nothing more is read.  For the
 * others, its extent item is read (in runs of extents): when its back
 * references are all keyed (root, inode) ones, of roots no snapshot was
 * taken of since the extent was written, and count no more items than S
 * has, S holds every reference and its ranges are the union.  Else the
 * kernel's backref walk (LOGICAL_INO_V2) lists every (root, inode, file
 * position) referencing the extent and each such item is read for its
 * range.
 *
 * Rows (--depth, --per-file): a row counts the whole waste of each extent
 * one of its files references, once, as Disk Usage counts the extent;
 * the total counts each extent's waste once.
 *
 * Memory: 56 bytes per reference of S to a regular or prealloc extent,
 * and 16 bytes per row, until waste_free().
 */
#ifndef COMPSIZE_WASTE_H
#define COMPSIZE_WASTE_H

#include <stddef.h>
#include <stdint.h>
#include "scan/extent.h"

struct waste;

/* Returns NULL when out of memory. */
struct waste *waste_create(void);
void waste_free(struct waste *w);

/* Filesystem fs_idx (struct usage_fs) has files in S; fd is any open file
 * or directory on it, duplicated here for waste_resolve().  Known fs_idx:
 * nothing.  Returns 0 or -errno. */
int waste_add_fs(struct waste *w, size_t fs_idx, int fd);

/* Rows: open one inside the open ones (its id, 1, 2, ...; 0 when out of
 * memory: waste_resolve() then fails with -ENOMEM), close the innermost. */
uint32_t waste_row_push(struct waste *w);
void waste_row_pop(struct waste *w);

/* An extent item of a file of S, in the innermost open row: regular and
 * prealloc items are kept, holes and inline data ignored.  Returns 0 or
 * -ENOMEM. */
int waste_extent(struct waste *w, size_t fs_idx,
		 const struct extent_info *ei);

/* For the tests: every extent S covers in part through the backref walk,
 * none from its extent item alone. */
void waste_walk_only(struct waste *w);

/*
 * Decide each extent's waste.  tick (may be NULL) is called between
 * extents; its non-zero return aborts with that value.  An extent the
 * backref walk does not know (written since the last commit) counts the
 * references of S alone.  Needs CAP_SYS_ADMIN.  Returns 0, -ENOMEM, or
 * -errno of a failed ioctl.
 */
int waste_resolve(struct waste *w, int (*tick)(void *), void *arg);

/* After waste_resolve(): the waste of S, each extent once, and of row id
 * (0 is S). */
uint64_t waste_total(const struct waste *w);
uint64_t waste_row(const struct waste *w, uint32_t id);
/* ... and of S's extents of type (a row of struct cs_stats, the type
 * the first reference met gave it) */
uint64_t waste_type(const struct waste *w, unsigned type);

/* Extents of S that needed the backref walk, and those with waste. */
void waste_counts(const struct waste *w, uint64_t *walked,
		  uint64_t *wasting);

#endif
