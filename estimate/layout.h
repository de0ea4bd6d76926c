/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What part of each file's data an estimate counts, for the two answers of
 * --estimate (issue #15):
 *
 * - fresh copy: what `cp -a` of the set to a new filesystem would use.
 *   Hard links are kept by cp -a and rsync -H, so an inode counts once
 *   (by st_dev and st_ino); reflinks and snapshots are no longer shared.
 * - same layout: the set's data as it is laid out now, each extent once,
 *   had it been written under the other setting.  A file's share is what
 *   the extents first met through it take on disk now (whole extents: a
 *   partly referenced bookend stays on disk whole) over what the data it
 *   references takes (each reference its part of its extent's stored
 *   bytes), applied to its fresh-copy prediction.  That is exact for the
 *   files whose extents are all new and whole (a file as written) and for
 *   those whose extents were all met before (a reflinked copy, a
 *   snapshot's file, a second hard link: nothing); for a file that shares
 *   part of its extents it assumes the setting compresses its parts in
 *   the proportions they are stored in now.  Inline extents are counted with every file, as the usage report
 *   counts them, so a file of a sector or less counts with every file
 *   when the setting stores it inline, and once per extent (an inline
 *   one by its content: a snapshot's or a reflink's copy holds the same
 *   bytes) when it stores it in an extent.  Prealloc extents stay as
 *   they are (raw, never read).
 *
 * Each report row counts as if it were reported alone (its own inodes and
 * extents), like the usage rows: levels mirror the rows open along the
 * walk, level 0 being the grand total.
 *
 * A file is planned when the walk finds it (layout_plan(), main thread) and
 * resolved when its estimate comes back (layout_resolve()).
 */
#ifndef COMPSIZE_LAYOUT_H
#define COMPSIZE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "estimate/estimate.h"
#include "scan/extent.h"

struct layout;

/* nest settings; follow_writes: files written in steps are estimated as
 * written (layout_writes(); 0 for tests: in one go).  Returns NULL when
 * out of memory. */
struct layout *layout_create(size_t nest, int follow_writes);
void layout_free(struct layout *l);

/* Setting i is compress-force= (its bounds differ: layout_total). */
void layout_set_force(struct layout *l, size_t i, int force);

/* Setting i is the one the data on disk is taken to have been written
 * with (the filesystem is mounted with it): what is left of overwritten
 * extents is predicted relative to it, so that under it the same layout
 * is the usage now (docs/estimate.md).  -1 (the default): none. */
void layout_set_anchor(struct layout *l, long i);

/* A report row opens: a level with its own inodes and extents.  Returns 0
 * or -ENOMEM. */
int layout_push(struct layout *l);
/* The innermost row closes. */
void layout_pop(struct layout *l);

/* One file as the walk finds it. */
struct layout_file {
	dev_t dev;
	ino_t ino;
	/* Its extent items (holes included), when they could be read: the
	 * same-layout share needs them; without (not btrfs, not root, or not
	 * written back yet) the file counts as all new, like a fresh copy. */
	int have_extents;
	size_t fs_idx;		/* the filesystem, for the extents' addresses */
	uint32_t sectorsize;	/* its sector size */
	uint64_t size;		/* st_size */
	uint64_t inline_key;	/* extent_inline_key() of its inline item */
	/* defrag -c would rewrite it (rewrite.h): 0, or its names
	 * (st_nlink): its estimate counts in layout_total.rewrite_disk once
	 * per inode, or once per name where it is inline (compsize counts
	 * inline data per path) */
	uint32_t rewrite;
	/* met once, whatever the levels (one link, one path): its inode
	 * need not be remembered */
	int once;
	const struct extent_info *ext;
	size_t next;
};

/*
 * Plan a file at every level open now.  *ticket (non-zero) goes back to
 * layout_resolve() with the file's estimate; user is kept with it.
 * *skip is 1 when no level counts anything of it (a hard link met before
 * at every level): it need not be read, and is resolved with a zero
 * estimate or dropped with layout_drop().  Returns 0 or -ENOMEM.
 */
int layout_plan(struct layout *l, const struct layout_file *f, size_t user,
		size_t *ticket, int *skip);

/*
 * A file whose extents were written in several transactions (extent
 * generations: a file partly overwritten after a snapshot or a reflink,
 * or appended to later; not one only written front to back, as a large
 * copy is) is estimated as written: its extents grouped by
 * generation, oldest first, each group's parts of the file (what its
 * extents hold now) a write of its own, the inode's NOCOMPRESS flag
 * carried from one to the next (est_ops.writes()).  Each group's
 * prediction is then scaled from what its data takes on disk now to what
 * its extents new at a level take (whole).  Returns the number of groups
 * (0: the file is estimated in one go) and sets *w and *nw to the writes,
 * valid until the ticket is resolved or dropped.
 */
size_t layout_writes(const struct layout *l, size_t ticket,
		     const struct est_write **w, size_t *nw);

/*
 * The length of the inline extent at offset 0 of ticket's file when the
 * file has grown past it since (a fallocate or writes past the first
 * sector: the kernel keeps it inline), else 0: est_ops.files()' inl, so
 * that the same layout writes that part as the small file it was.
 */
uint32_t layout_inline(const struct layout *l, size_t ticket);

/* Forget a ticket whose file will never be resolved. */
void layout_drop(struct layout *l, size_t ticket);

/*
 * What is known of a planned file's share of the grand total's same
 * layout without its estimate: -1 when nothing of it can count whatever
 * its estimate (a hard link met before, a file whose every extent was met
 * before), 0 for a file of a sector or less in an extent met before (it
 * counts only if the setting stores it inline), 1 for one met first or
 * stored inline now (likely inline again: counted with every file) and
 * for a file whose extents were not read, else num / den (what its
 * extents first met here take over what its data takes).
 */
double layout_known_share(const struct layout *l, size_t ticket);

/*
 * By how much a sampled file's predictions count in the grand total's
 * same layout, before layout_resolve(): raw holds 2 values a setting
 * (disk, uncompressed), what the units drawn from it predict (not over
 * their probability: a file of a sector or less is stored inline or not
 * by its own size); f gets, for each, the same layout's share of it
 * (prealloc extents apart: layout_total.prealloc_disk).  raw also decides
 * the inline rule when layout_resolve() is given its estimate over its
 * probability (its rows' shares).  gdelta: NULL, or for a file read
 * whole est_ops.writes()' values for the groups of layout_writes(), whose
 * share is then theirs as layout_resolve() counts it (each write as it
 * was written, over raw: the file in one go).  A tentative file's
 * (layout_tentative()) are asked after layout_settle_claims().  Each
 * unit's prediction times its file's factor is then a sample of the same
 * layout itself, whose spread goes into its interval (docs/sampling.md).
 */
void layout_factors(struct layout *l, size_t ticket, const uint64_t *raw,
		    const uint64_t *gdelta, double *f);

/*
 * By how much each part of a file written in steps and read in parts (the
 * n parts of 512 KiB, sample.h's units, of a file of size bytes) counts
 * in the grand total's same layout: its bytes in each write group
 * (layout_writes()), each group scaled as layout_resolve() scales its
 * prediction (what its extents new here take over what its data takes
 * now), into f[k]; -1 for a part no group's data reaches.  A write of the
 * file's own then counts in the parts that hold it, in full, and a
 * copy's write nowhere, where the file's factor (layout_factors(): the
 * file in one go) spreads the write's share over the file by what each
 * part takes now: under another setting a part of text and a raw part
 * don't keep that proportion.  tmp: room for n values.  Returns 1, or 0
 * where the file's factor stands for every part (not written in steps,
 * a small file).  A tentative file's are asked after
 * layout_settle_claims().  O(writes + n).
 */
int layout_part_factors(const struct layout *l, size_t ticket,
			uint64_t size, uint64_t n, double *f, double *tmp);

/*
 * The scale layout_part_factors() gives the writes of each of the nb
 * buckets (est_write.group) of ticket's file, into s[b]: -1 for a bucket
 * whose group's data no file references now (left out, as there).
 * Returns 0 where the file's factor stands for every part (as
 * layout_part_factors()), else 1.
 */
int layout_bucket_scales(const struct layout *l, size_t ticket, size_t nb,
			 double *s);

/*
 * Whether ticket's file, planned and not yet resolved, has tentative
 * groups (layout_writes()): what of its extents counts is known once
 * every file is planned and layout_settle_claims() has run, so its
 * layout_factors() wait for that.
 */
int layout_tentative(const struct layout *l, size_t ticket);

/*
 * Every file is planned: the extents of the tentative groups no file
 * holding them as written claimed are their first tentative file's
 * (layout_settle()'s first step), so that layout_factors() can be asked
 * of those files before layout_settle() resolves them.
 */
void layout_settle_claims(struct layout *l);

/* What layout_plan() was given as user for ticket, planned and not yet
 * resolved. */
size_t layout_user(const struct layout *l, size_t ticket);

/* Whether ticket's file, planned and not yet resolved, counts in
 * layout_total.rewrite_disk (layout_file.rewrite, and met first). */
int layout_rewritten(const struct layout *l, size_t ticket);

/*
 * The estimate of ticket's file is back: delta is 6 * nest values as
 * the estimator's files() gives them (3 a setting: disk, uncompressed,
 * input; the fresh copy's, then as written at EST_WRITTEN(nest): disk,
 * uncompressed, disk in one go, which the same layout and the rewrite
 * take), or NULL for nothing; gdelta NULL, or est_ops.writes()' values for the
 * groups of layout_writes() (then the same layout counts each group as
 * estimated as written).  Adds the file's shares to the grand totals and fills out
 * (when not NULL) with the per-row shares, innermost row first: row k
 * (k < *nrows, the rows that were open at layout_plan()) gets 6 * nest
 * values from out[k * 6 * nest]: for each setting i the same-layout disk,
 * uncompressed and input at 3i, 3i + 1, 3i + 2, then the fresh copy's at
 * 3 * nest + 3i...  out must hold that for every row open at
 * layout_plan().  *user is what was
 * given to layout_plan().  The ticket is freed.
 */
void layout_resolve(struct layout *l, size_t ticket, const uint64_t *delta,
		    const uint64_t *gdelta, uint64_t *out, size_t *nrows,
		    size_t *user);

/*
 * Once every estimate is back (before layout_total()): the files whose
 * write history hides part of their extents (bookends of an overwritten
 * write) were kept by layout_resolve(), their shares undecided while a
 * file holding those extents as written (a snapshot's copy, the source of
 * a reflink) could still come and claim them, for a better estimate of
 * their data.  Their shares go to the totals now, and each one's rows to
 * emit() (as layout_resolve()'s out and *nrows), with its user.  Returns
 * 0 or -ENOMEM.
 */
int layout_settle(struct layout *l,
		  void (*emit)(void *arg, size_t user, const uint64_t *out,
			       size_t nrows),
		  void *arg);

/* Rows open now (the levels above the grand total). */
size_t layout_rows(const struct layout *l);

/* The grand totals of setting i: sums over the files resolved. */
struct layout_total {
	uint64_t est_disk, est_uncomp;	/* of the estimates as written */
	uint64_t disk, uncomp;		/* same layout */
	uint64_t fresh_disk, fresh_uncomp;	/* fresh copy */
	uint64_t input, fresh_input;	/* same layout's, fresh copy's */
	uint64_t rewrite_disk;	/* of the files to rewrite (rewrite.h) */
	/* of disk: what writes partly overwritten since predict for their
	 * extents when no file holds them as written (layout_settle()):
	 * extrapolated from the part still referenced */
	uint64_t extrap_disk;
	/* bounds of disk: the kernel uses at least disk - extrap_lo and at
	 * most disk + extrap_hi, whatever the data that is gone was
	 * (layout.c file_bounds(), docs/estimate.md); 0 when nothing is
	 * extrapolated */
	uint64_t extrap_lo, extrap_hi;
	/* of disk and uncomp: prealloc extents, as they are */
	uint64_t prealloc_disk, prealloc_uncomp;
};
void layout_total(const struct layout *l, size_t i, struct layout_total *t);

/*
 * One file's share of an estimate (pure, for tests): the estimate of its
 * data, d, scaled by num / den (rounded to the nearest byte; exact when
 * num == den).
 */
uint64_t layout_scale(uint64_t d, uint64_t num, uint64_t den);

#endif
