// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: usage_file() (search_run()'s batching loop, the item
 * iterator, extent parsing and accounting) against a simulated kernel.
 * search.o's ioctl() calls are answered by the simulated kernel
 * (sim-kernel.c) from one inode's sorted EXTENT_DATA items built from the
 * input.  Checked: every item reaches the callback exactly once, in
 * order, and every new batch starts past the previous one (a search that
 * doesn't make progress would spin forever on a real kernel).
 *
 * Input: byte 0: which ioctl call fails (0: none); byte 1: its errno;
 * then 10 bytes per item: u16 offset step, u16 length (bit 15: a 53-byte
 * regular item), type, compression, u16 disk page, u8 pages, u8 disk pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "scan/extent.h"
#include "ioctl.h"
#include "report/format.h"
#include "report/report.h"
#include "scan/usage.h"
#include "scan/search.h"
#include "sim-kernel.h"

#define INO		257
#define MAX_ITEMS	8192
#define MAX_ITEM_LEN	16283	/* BTRFS_LEAF_DATA_SIZE of 16K nodes - item */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sim {
	struct simk_item *items;
	size_t n;
	size_t next_cb;		/* index the next callback must see */
	unsigned calls, fail_at;
	int fail_errno;
	uint64_t last_start;
};

/* check_item() has no other way to reach the simulation. */
static struct sim *sim;

/* Before each search: the injected failure, and the checks. */
static int before(const struct btrfs_ioctl_search_key *key, void *arg)
{
	(void)arg;
	if (++sim->calls == sim->fail_at)
		return sim->fail_errno;
	if (key->min_objectid != INO || key->min_type != BTRFS_EXTENT_DATA_KEY)
		abort();
	if (sim->calls > 1 && key->min_offset <= sim->last_start)
		abort();
	sim->last_start = key->min_offset;
	if (sim->calls > sim->n + 2)
		abort();
	return 0;
}

static int check_item(const struct search_item *item, void *arg)
{
	const struct simk_item *want;

	(void)arg;
	if (sim->next_cb >= sim->n)
		abort();
	want = &sim->items[sim->next_cb++];
	if (item->objectid != INO || item->type != BTRFS_EXTENT_DATA_KEY ||
	    item->offset != want->offset || item->len != want->len ||
	    memcmp(item->data, want->data, want->len))
		abort();
	return 0;
}

static const int errnos[] = { EINTR, ENOMEM, EPERM, ENOTTY, EIO, EFAULT };

/* Build the simulated items; returns the arena to free, NULL if none. */
static uint8_t *build(const uint8_t *data, size_t size, struct sim *s)
{
	size_t i, total = 0, off = 0;
	uint64_t offset = 0;
	uint8_t *arena;

	s->n = size / 10 < MAX_ITEMS ? size / 10 : MAX_ITEMS;
	s->items = calloc(s->n ? s->n : 1, sizeof(*s->items));
	if (!s->items)
		abort();
	for (i = 0; i < s->n; i++) {
		const uint8_t *p = data + 10 * i;
		uint16_t len = (uint16_t)(p[2] | p[3] << 8);

		offset += (uint64_t)(p[0] | p[1] << 8) + (i ? 1 : 0);
		s->items[i].offset = offset;
		s->items[i].len = len & 0x8000 ? FE_REG_SIZE
					       : len % (MAX_ITEM_LEN + 1);
		total += s->items[i].len;
	}
	arena = calloc(total ? total : 1, 1);
	if (!arena)
		abort();
	for (i = 0; i < s->n; i++) {
		const uint8_t *p = data + 10 * i;
		uint8_t *d = arena + off;
		uint32_t len = s->items[i].len;

		s->items[i].tree = BTRFS_FS_TREE_OBJECTID;
		s->items[i].objectid = INO;
		s->items[i].type = BTRFS_EXTENT_DATA_KEY;

		s->items[i].data = d;
		off += len;
		if (len >= FE_INLINE_HEADER_SIZE) {
			put_le64(d + FE_RAM_BYTES, ((uint64_t)p[8] + 1) << 12);
			d[FE_COMPRESSION] = p[5];
			d[FE_TYPE] = p[4];
		}
		if (len >= FE_REG_SIZE) {
			put_le64(d + FE_DISK_BYTENR,
				 (uint64_t)(p[6] | p[7] << 8) << 12);
			put_le64(d + FE_DISK_NUM_BYTES,
				 ((uint64_t)(p[9] & 31) + 1) << 12);
			put_le64(d + FE_OFFSET, (uint64_t)(p[9] >> 5) << 12);
			put_le64(d + FE_NUM_BYTES, ((uint64_t)p[8] + 1) << 12);
		}
	}
	return arena;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct simk k = { .default_tree = BTRFS_FS_TREE_OBJECTID,
			  .before = before };
	struct sim s = { 0 };
	struct usage_ctx *ctx;
	struct search_ctx *search;
	struct stat st = { .st_ino = INO, .st_mode = S_IFREG | 0644 };
	uint8_t *arena;
	FILE *null;
	int ret;

	if (size < 2)
		return 0;
	s.fail_at = data[0];
	s.fail_errno = errnos[data[1] % (sizeof(errnos) / sizeof(errnos[0]))];
	arena = build(data + 2, size - 2, &s);
	sim = &s;
	k.items = s.items;
	k.n = s.n;
	simk_set(&k);

	/* The iterator alone: every item, in order, once. */
	search = search_create(0);
	if (!search)
		abort();
	ret = search_file_extents(search, -1, INO, 16384, check_item, NULL);
	if (ret == 0 && s.next_cb != s.n)
		abort();
	if (ret && (!s.fail_at || ret != -s.fail_errno))
		abort();
	search_free(search);

	/* The whole per-file path, as compsize runs it. */
	s.calls = 0;
	s.last_start = 0;
	ctx = usage_create();
	null = fopen("/dev/null", "w");
	if (!ctx || !null)
		abort();
	ret = usage_file(ctx, -1, &st);
	if (ret && ret != -EUCLEAN && ret != -s.fail_errno)
		abort();
	/* fsids[0]: the filesystem of files on a device never probed. */
	if (ctx->stats.nextents != seen_count(ctx->fsids[0].seen))
		abort();
	report_table(null, null, &ctx->stats, data[1] & 0x80);
	fclose(null);
	usage_free(ctx);
	simk_set(NULL);
	sim = NULL;
	free(arena);
	free(s.items);
	return 0;
}
