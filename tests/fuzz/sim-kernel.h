/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A simulated btrfs TREE_SEARCH_V2 for the fuzz harnesses (search.c,
 * tree.c): the code under test calls ioctl(), the linker sends it here
 * (-Wl,--wrap=ioctl), and it is answered from a sorted array of items as
 * btrfs_ioctl_tree_search_v2(), search_ioctl() and copy_to_sk() would:
 * the items of one tree whose keys lie in the compound range [min, max],
 * as many as nr_items and the buffer allow, EOVERFLOW with the size
 * needed when not even the first one fits.
 */
#ifndef COMPSIZE_FUZZ_SIM_KERNEL_H
#define COMPSIZE_FUZZ_SIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "ioctl.h"

struct simk_item {
	uint64_t tree, objectid, offset;
	uint32_t type, len;
	const uint8_t *data;
};

struct simk {
	/* sorted by simk_item_cmp(), no two keys equal in a tree */
	const struct simk_item *items;
	size_t n;
	uint64_t default_tree;		/* the tree of tree_id 0 */
	/*
	 * NULL, or called with each search's key before it is answered: a
	 * harness's checks and failures; returns 0, or an errno the ioctl
	 * fails with.
	 */
	int (*before)(const struct btrfs_ioctl_search_key *key, void *arg);
	/*
	 * NULL, or the answer to any other ioctl request (p its argument):
	 * 0, or -1 with errno set, as ioctl() returns; ENOTTY when NULL.
	 */
	int (*other)(unsigned long req, void *p, void *arg);
	void *arg;
};

int __wrap_ioctl(int fd, unsigned long req, ...);

/* The kernel the wrapped ioctl() answers from (NULL: none, ENOTTY). */
void simk_set(const struct simk *k);

/* Key order, as btrfs_comp_cpu_keys(). */
int simk_key_cmp(uint64_t oa, uint32_t ta, uint64_t fa, uint64_t ob,
		 uint32_t tb, uint64_t fb);

/* qsort() order of struct simk_item: tree, then key. */
int simk_item_cmp(const void *a, const void *b);

#endif
