/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampleplan: the pre-pass of --sample.  Lists the files under the paths,
 * a file with several links once, then plans sample.c's design for the
 * budget.  A directory the caller lists whole (opts.dir: on btrfs as root,
 * the fast scan, which streams every file's inode and extent items) comes
 * with its files' current ratio bands at no cost per file; the rest is
 * walked with fstatat() (walk_opts.stat_files: none opened) and, where
 * btrfs metadata can be read (root), one tree search per file on its
 * subvolume's descriptor for its band.  See docs/sampling.md.
 */
#ifndef COMPSIZE_SAMPLEPLAN_H
#define COMPSIZE_SAMPLEPLAN_H

#include <stdint.h>
#include "scan/extent.h"
#include "sample/sample.h"
#include "seen.h"
#include "walk/walk.h"

struct sampleplan;

struct sampleplan_opts {
	uint64_t bytes;		/* data to read, or 0 for ... */
	double frac;		/* ... this fraction of all of it */
	uint64_t seed;
	int bands;		/* read the current ratio bands (root) */
	int sharers;		/* and tell the sharers (sampleplan_run()) */
	/* draw the files that share more than half their data with files
	 * met before (SAMPLE_AWAY) at the share of it that counts in the
	 * same layout (sample_pop.W); else all of it counts: for the same
	 * layout's estimate, not for a rewrite's or a fresh copy's */
	int weigh_away;
	size_t kept_max;	/* extent items kept at most (0: 1 Mi of 40
				 * bytes, the rest searched by the walk;
				 * tests set it) */
	/*
	 * NULL, or a directory about to be walked (as walk_ops.dir): the
	 * caller may list its whole subtree itself, adding every regular
	 * file with sampleplan_add(), and return WALK_SKIP; or WALK_ENTER
	 * to have it walked; or a negative errno to abort.
	 */
	int (*dir)(void *arg, struct sampleplan *p, int fd, const char *path,
		   const struct stat *st, int depth);
	void *arg;
};

/*
 * A file listed by opts.dir: key its sample_key() (files with nlink > 1
 * are counted once by key), size its st_size, x its data bytes
 * (sample_data_bytes()), band its current ratio band and q its current
 * ratio (sample_file_q()) (0: not known; kept when the plan keeps bands),
 * kind the kind of its name that divides a raw band (sample_band_kind(),
 * sampleplan_name_kind(); -1: not divided), f NULL or what its inode
 * item says (kept with the bands:
 * sample_bands_facts()).  The references given with sampleplan_ref()
 * since the last file are its own.  Returns 0 or -ENOMEM.
 */
int sampleplan_add(struct sampleplan *p, uint64_t key, uint32_t nlink,
		   uint64_t size, uint64_t x, unsigned band, uint16_t q,
		   int kind, const struct sample_facts *f);

/*
 * The kind sampleplan_add() takes for a file named name with nlink links
 * (its raw band divided by it, sample_band_kind()): 0 for several links
 * (the fast scan's pre-pass knows the first name only, the walk's the
 * path it met: both must draw the same sample), else sample_kind(name).
 */
int sampleplan_name_kind(uint64_t nlink, const char *name);

/*
 * The files with references sampleplan_add() has had, in the order it
 * had them: sampleplan_reorder() puts those from since on in the walk's.
 */
size_t sampleplan_files(const struct sampleplan *p);

/*
 * The files sampleplan_add() had from since (sampleplan_files()) on, all
 * listed by one fast scan, in the order the walk meets them instead
 * (walkorder.h: r[0..n) by sample_key()): which of the files that share
 * an extent counts it follows that order.  Left as they are when a file
 * is not in r (a tree listed, not streamed) or memory is short; a
 * sample is unbiased either way, only less tight (docs/sampling.md).
 */
struct walkorder_rank;
void sampleplan_reorder(struct sampleplan *p, size_t since,
			const struct walkorder_rank *r, size_t n);

/*
 * A file extent item (ei, parsed from item[0..len)) of the next file
 * sampleplan_add() gets, for the sharers of sampleplan_run().  Returns 0
 * (out of memory only makes every file a sharer).
 */
int sampleplan_ref(struct sampleplan *p, const struct extent_info *ei,
		   const uint8_t *item, size_t len);

/*
 * Walk paths[0..n) as wo says (stat_files forced) and plan the design
 * into *d.  *sampling is 0 when the budget covers all the data (read
 * everything), else 1; *bands is NULL or the bands found (free with
 * sample_bands_free()); *sharers NULL (not known: any file may share)
 * or the sample_key()s of the files that reference an extent (or an
 * inline item of the same bytes) another file listed references too, or
 * that hold preallocated space or part of an extent: where the
 * same-layout model needs to know which file meets a shared extent first
 * (layout.h), what a file keeps as it is and whose writes it follows,
 * drawn or not, only these matter.  With sharers, *kept holds
 * the extent items the pre-pass met of them (NULL when none could be
 * kept; free with sampleplan_kept_free()), and a sharer whose items are
 * all there has a value in *sharers that says which (seen_value(),
 * sampleplan_kept_count()): the walk need not search them again.  Paths
 * that can't be read are left to the real walk to report.  Returns 0 or
 * -ENOMEM.
 */
struct sampleplan_kept;
int sampleplan_run(char *const *paths, int n, const struct walk_opts *wo,
		   const struct sampleplan_opts *o, struct sample_design *d,
		   int *sampling, struct sample_bands **bands,
		   struct seen_set **sharers, struct sampleplan_kept **kept);

/* How many extent items a sharer's value stands for (0: none kept). */
size_t sampleplan_kept_count(uint64_t v);

/*
 * A sharer's value's items into ei[0..sampleplan_kept_count(v)), as
 * extent_parse() gave them with file_pos set, in key order; an inline
 * item's extent_inline_key() into *inline_key (the last one's).
 */
void sampleplan_kept_get(const struct sampleplan_kept *k, uint64_t v,
			 struct extent_info *ei, uint64_t *inline_key);

void sampleplan_kept_free(struct sampleplan_kept *k);
#endif
