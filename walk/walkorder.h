/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walkorder: where the walk meets each regular file of a directory the
 * fast scan lists.  The fast scan lists a tree's files in inode order and
 * the subvolumes nested in it after them; the walk reads each directory
 * in DIR_INDEX order (readdir), depth first, and meets a nested
 * subvolume where its entry is.  The pre-pass of --sample decides which
 * of the files that share an extent counts it from their order, and the
 * walk's same layout gives it to the first it meets, so the two must
 * agree (docs/sampling.md).  From the entries of every directory (their
 * DIR_INDEX items, or in a tree listed through its names its INODE_REF
 * items, and each nested subvolume's ROOT_REF), the files in the walk's
 * order.
 */
#ifndef COMPSIZE_WALKORDER_H
#define COMPSIZE_WALKORDER_H

#include <stddef.h>
#include <stdint.h>

struct walkorder;

/* NULL when out of memory. */
struct walkorder *walkorder_create(void);
void walkorder_free(struct walkorder *o);

/* A directory's entry: index index of directory dir of tree tree_id is
 * child, of kind WALKORDER_FILE (an inode of the same tree),
 * WALKORDER_DIR (a directory of the same tree) or WALKORDER_SUBVOL (the
 * root directory of subvolume child).  Returns 0 or -ENOMEM. */
enum { WALKORDER_FILE, WALKORDER_DIR, WALKORDER_SUBVOL };
int walkorder_entry(struct walkorder *o, uint64_t tree_id, uint64_t dir,
		    uint64_t index, uint64_t child, int kind);

/* A file's place: key(arg, tree_id, ino) of a file the walk meets, and
 * how many files it meets before it there (a file with several names:
 * where it meets the first). */
struct walkorder_rank {
	uint64_t key, rank;
};

/*
 * The walk from directory root of tree tree_id: each regular file it
 * meets through the entries given, by key (sorted; a file with several
 * names once, at the first), into *out (free()), *n of them.  A file no
 * entry given leads to is not there.  When order_listed is not NULL and
 * the walk meets the files in the order the fast scan lists them (the
 * trees as their entries came, each one's inodes in order: a tree
 * copied with cp -a or tar, no subvolume nested before its files), it is
 * set to 1 and nothing is given (*n 0).  Returns 0 or -ENOMEM.
 */
int walkorder_ranks(struct walkorder *o, uint64_t tree_id, uint64_t root,
		    uint64_t (*key)(void *arg, uint64_t tree_id, uint64_t ino),
		    void *arg, struct walkorder_rank **out, size_t *n,
		    int *order_listed);

/* Any pairs v[0..n) by key, stable (a radix sort, radix.h), through
 * tmp[0..n): the one of the two that holds them, or NULL when out of
 * memory. */
struct walkorder_rank *walkorder_sort(struct walkorder_rank *v,
				      struct walkorder_rank *tmp, size_t n);

#endif
