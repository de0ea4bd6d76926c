/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prune: --sample's walk only where a file must be met.  The pre-pass
 * lists a directory's subtree from the fast scan's items, names included
 * (fastscan_listener.entry).  Once the sample is drawn, most files need
 * nothing but what the pre-pass knew of them (not drawn, sharing nothing,
 * one link): they are counted before the walk, which then leaves them
 * out, and leaves out every directory whose subtree holds none of the
 * others (a subvolume nested in it included) without opening it.  One
 * subvolume's tree: the directory the pre-pass listed and what lies below
 * it on its st_dev.  See docs/sampling.md.
 */
#ifndef COMPSIZE_PRUNE_H
#define COMPSIZE_PRUNE_H

#include <stddef.h>
#include <stdint.h>

struct prune;

/* For the subtree of directory root in subvolume tree_id.  NULL when out
 * of memory. */
struct prune *prune_create(uint64_t tree_id, uint64_t root);
void prune_free(struct prune *p);

/* A name in directory dir, as fastscan_listener.entry tells it: kept when
 * it is in tree_id.  Returns 0 or -ENOMEM. */
int prune_entry(struct prune *p, uint64_t tree_id, uint64_t dir,
		uint64_t child, uint8_t loc_type, uint8_t ftype);

/*
 * The names are all in: need(arg, ino) says whether the walk must meet
 * the regular file ino (1), or it may be counted ahead (0; a negative
 * errno aborts the plan where it comes).  A file counted ahead is listed
 * once, however many names it has.  Returns 0 or a negative errno.
 */
int prune_plan(struct prune *p, int (*need)(void *arg, uint64_t ino),
	       void *arg);

/* The files to count ahead (prune_plan()), in the order of their names. */
size_t prune_ahead(const struct prune *p, const uint64_t **inos);

/* Whether the regular file ino was counted ahead. */
int prune_counted(const struct prune *p, uint64_t ino);

/* Whether the walk may leave out the subdirectory ino named in directory
 * dir of the tree: it is one the pre-pass listed, nothing under it must
 * be met, and dir names no subvolume (whose entry's d_ino is the
 * subvolume's id, not an inode of this tree). */
int prune_skip_dir(const struct prune *p, uint64_t dir, uint64_t ino);

#endif
