// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: search_batch_file_extents() against a simulated kernel
 * (sim-kernel.c).  The tree holds the items of a run of inodes of every
 * type an fs tree has (inode items, refs, xattrs, file extents, some as
 * large as a leaf allows); the files are asked for in the input's order,
 * in two subvolumes (st_dev) that share the tree.  Checked: each answer is
 * exactly the file's EXTENT_DATA items in key order, as
 * search_file_extents() gives them (a callback that stops after one gets
 * its value back); a failing ioctl's errno comes back, and the files
 * asked after it are answered right; no question costs more searches than
 * a search of the file alone would, plus one; a file made after the
 * questions, past the last inode, is found.
 *
 * Input: byte 0: which ioctl call fails (0: none); byte 1: its errno;
 * bytes 2-3: the number of items; 4 bytes per item: inode step (low 2
 * bits), type (next 3), u16 length; then 2 bytes per question: the
 * subvolume (bit 15), a callback that stops after the first item (bit
 * 14), the inode (the rest, modulo the inodes' span).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ioctl.h"
#include "scan/search.h"
#include "sim-kernel.h"

#define FIRST_INO	256
#define MAX_ITEMS	4096
#define MAX_ITEM_LEN	16283	/* BTRFS_LEAF_DATA_SIZE of 16K nodes - item */
#define NODESIZE	16384
#define STOP		99

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sim {
	struct simk_item *items;
	size_t n;
	unsigned calls, fail_at;
	int fail_errno;
	/* the question being answered */
	uint64_t ino;
	size_t next;		/* index of the item the callback must see */
	size_t seen;
	int stop;
};

static struct sim *sim;

static int before(const struct btrfs_ioctl_search_key *key, void *arg)
{
	(void)arg;
	(void)key;
	if (++sim->calls == sim->fail_at)
		return sim->fail_errno;
	return 0;
}

/* The index of the next EXTENT_DATA item of ino from i, or n. */
static size_t next_extent(size_t i, uint64_t ino)
{
	for (; i < sim->n; i++)
		if (sim->items[i].objectid == ino &&
		    sim->items[i].type == BTRFS_EXTENT_DATA_KEY)
			return i;
	return sim->n;
}

static int check_item(const struct search_item *item, void *arg)
{
	const struct simk_item *want;

	(void)arg;
	sim->next = next_extent(sim->next, sim->ino);
	if (sim->next >= sim->n)
		abort();
	want = &sim->items[sim->next++];
	if (item->objectid != sim->ino ||
	    item->type != BTRFS_EXTENT_DATA_KEY ||
	    item->offset != want->offset || item->len != want->len ||
	    (want->len && memcmp(item->data, want->data, want->len)))
		abort();
	sim->seen++;
	return sim->stop ? STOP : 0;
}

static const int errnos[] = { EINTR, ENOMEM, EPERM, ENOTTY, EIO, EFAULT };
static const uint32_t types[] = {
	BTRFS_INODE_ITEM_KEY, BTRFS_INODE_REF_KEY, BTRFS_XATTR_ITEM_KEY,
	BTRFS_DIR_ITEM_KEY, BTRFS_DIR_INDEX_KEY, BTRFS_EXTENT_DATA_KEY,
	BTRFS_EXTENT_DATA_KEY, BTRFS_EXTENT_DATA_KEY,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct simk k = { .default_tree = BTRFS_FS_TREE_OBJECTID,
			  .before = before };
	struct sim s = { 0 };
	struct search_batch *b;
	uint64_t ino = FIRST_INO, offset = 0, span;
	size_t i, n, off = 0, total = 0, q;
	uint8_t *arena;

	if (size < 4)
		return 0;
	s.fail_at = data[0];
	s.fail_errno = errnos[data[1] % (sizeof(errnos) / sizeof(errnos[0]))];
	n = (size_t)(data[2] | data[3] << 8);
	data += 4;
	size -= 4;
	if (n > size / 4)
		n = size / 4;
	if (n > MAX_ITEMS)
		n = MAX_ITEMS;
	s.items = calloc(n ? n : 1, sizeof(*s.items));
	if (!s.items)
		abort();
	for (i = 0; i < n; i++) {
		const uint8_t *p = data + 4 * i;
		uint32_t type = types[(p[0] >> 2) & 7];
		uint64_t step = p[0] & 3;

		if (step) {
			ino += step;
			offset = 0;
		}
		/* keys strictly increasing: an offset per item */
		s.items[i].tree = BTRFS_FS_TREE_OBJECTID;
		s.items[i].objectid = ino;
		s.items[i].type = type;
		s.items[i].offset = offset++;
		s.items[i].len = (uint32_t)(p[2] | p[3] << 8) %
				 (MAX_ITEM_LEN + 1);
		total += s.items[i].len;
	}
	qsort(s.items, n, sizeof(*s.items), simk_item_cmp);
	arena = malloc(total ? total : 1);
	if (!arena)
		abort();
	for (i = 0; i < n; i++) {
		uint8_t *d = arena + off;

		/* bytes that tell items apart */
		memset(d, (int)(i * 131 + 7), s.items[i].len);
		if (s.items[i].len >= 8)
			memcpy(d, &i, sizeof(i));
		s.items[i].data = d;
		off += s.items[i].len;
	}
	span = ino - FIRST_INO + 8;
	data += 4 * n;
	size -= 4 * n;

	s.n = n;
	sim = &s;
	k.items = s.items;
	k.n = s.n;
	simk_set(&k);
	b = search_batch_create();
	if (!b)
		abort();
	for (q = 0; q + 1 < size; q += 2) {
		uint16_t v = (uint16_t)(data[q] | data[q + 1] << 8);
		unsigned calls = s.calls, failed, nitems = 0;
		int ret;

		s.ino = FIRST_INO + (v & 0x3fff) % span;
		s.stop = (v >> 14) & 1;
		s.next = 0;
		s.seen = 0;
		for (i = next_extent(0, s.ino); i < n;
		     i = next_extent(i + 1, s.ino))
			nitems++;
		ret = search_batch_file_extents(b, -1, v >> 15, s.ino,
						NODESIZE, check_item, NULL);
		failed = s.fail_at > calls && s.fail_at <= s.calls;
		if (failed) {
			if (ret != -s.fail_errno)
				abort();
		} else if (s.stop && nitems) {
			if (ret != STOP || s.seen != 1)
				abort();
		} else if (ret || s.seen != nitems) {
			abort();
		}
		/* one search of the file alone: nitems + 1 at most (each
		 * batch takes at least one item), and one batch before it */
		if (s.calls - calls > nitems + 2)
			abort();
	}
	/* A file made after the searches, past the last inode and every
	 * inode asked for: its items are found, not taken as none from a
	 * batch that ran past it. */
	if (s.n < MAX_ITEMS) {
		struct simk_item *it = realloc(s.items,
					       (s.n + 1) * sizeof(*it));
		int ret;

		if (!it)
			abort();
		s.items = it;
		it += s.n++;
		memset(it, 0, sizeof(*it));
		it->tree = BTRFS_FS_TREE_OBJECTID;
		it->objectid = FIRST_INO + span;
		it->type = BTRFS_EXTENT_DATA_KEY;
		it->data = arena;
		k.items = s.items;
		k.n = s.n;
		s.fail_at = 0;
		s.ino = FIRST_INO + span;
		s.stop = 0;
		s.next = 0;
		s.seen = 0;
		ret = search_batch_file_extents(b, -1, 0, s.ino, NODESIZE,
						check_item, NULL);
		if (ret || s.seen != 1)
			abort();
	}
	search_batch_free(b);
	simk_set(NULL);
	sim = NULL;
	free(arena);
	free(s.items);
	return 0;
}
