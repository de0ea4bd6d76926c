// SPDX-License-Identifier: GPL-2.0
/* Per-type accounting of file extent items. */
#include <errno.h>
#include <string.h>
#include "scan/extent.h"
#include "ioctl.h"

enum extent_error extent_parse(const uint8_t *data, uint32_t len,
			       uint32_t sectorsize, struct extent_info *ei)
{
	if (len < FE_INLINE_HEADER_SIZE)
		return EXTENT_SHORT_INLINE;
	ei->type = data[FE_TYPE];
	ei->compression = data[FE_COMPRESSION];
	ei->generation = get_le64(data + FE_GENERATION);
	ei->file_pos = 0;
	ei->ram_bytes = get_le64(data + FE_RAM_BYTES);
	ei->inline_len = 0;
	ei->disk_bytenr = ei->disk_num_bytes = ei->offset = ei->num_bytes = 0;
	ei->sector_shift = 0;

	if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
		/* The payload, compressed or not, fills the rest of the item. */
		ei->inline_len = len - FE_INLINE_HEADER_SIZE;
		return EXTENT_OK;
	}
	if (ei->type != BTRFS_FILE_EXTENT_REG &&
	    ei->type != BTRFS_FILE_EXTENT_PREALLOC)
		return EXTENT_BAD_TYPE;
	if (len != FE_REG_SIZE)
		return EXTENT_BAD_SIZE;
	ei->disk_bytenr = get_le64(data + FE_DISK_BYTENR);
	ei->disk_num_bytes = get_le64(data + FE_DISK_NUM_BYTES);
	ei->offset = get_le64(data + FE_OFFSET);
	ei->num_bytes = get_le64(data + FE_NUM_BYTES);
	if (sectorsize && (ei->disk_bytenr & (sectorsize - 1)))
		return EXTENT_MISALIGNED;
	return EXTENT_OK;
}

const char *extent_strerror(enum extent_error err)
{
	switch (err) {
	case EXTENT_OK:
		return "no error";
	case EXTENT_SHORT_INLINE:
		return "extent item shorter than its header";
	case EXTENT_BAD_SIZE:
		return "regular extent item is not 53 bytes";
	case EXTENT_BAD_TYPE:
		return "unknown extent type";
	case EXTENT_MISALIGNED:
		return "extent not aligned to the sector size";
	case EXTENT_SHORT_INODE:
		return "inode item shorter than 160 bytes";
	}
	return "unknown error";
}

unsigned extent_row(const struct extent_info *ei)
{
	return ei->type == BTRFS_FILE_EXTENT_PREALLOC ? CS_TYPE_PREALLOC
						      : ei->compression;
}

unsigned extent_hist_class(uint64_t ram_bytes)
{
	unsigned k = 0;

	while (k < CS_HIST_CLASSES - 1 && ram_bytes > extent_hist_max(k))
		k++;
	return k;
}

/* The extent's bytes into its type's size class of hist. */
static void hist_add(struct cs_hist *hist, unsigned row,
		     const struct extent_info *ei, uint64_t disk)
{
	struct cs_hist_cell *c;

	if (!hist)
		return;
	c = &hist->cell[row][extent_hist_class(ei->ram_bytes)];
	if (ei->type == BTRFS_FILE_EXTENT_INLINE)
		c->ninline++;
	else
		c->extents++;
	c->disk += disk;
	c->uncomp += ei->ram_bytes;
}

void extent_begin_file(struct cs_stats *st)
{
	st->nfiles++;
	st->fragend = UINT64_MAX;
}

/* The bytes of the sectors of ei's range not in seen yet, added to it
 * (*added); returns 0 or -ENOMEM (some may be added). */
static int new_sectors(struct seen_set *seen, const struct extent_info *ei,
		       uint64_t *added)
{
	const unsigned shift = ei->sector_shift;
	uint64_t s = ei->disk_bytenr >> shift;
	uint64_t e = (ei->disk_bytenr + ei->num_bytes + (1ull << shift) - 1) >>
		     shift;
	uint64_t lo, n, mask, old, key;
	int ret;

	*added = 0;
	for (; s < e; s += n) {
		lo = s & 63;
		n = e - s < 64 - lo ? e - s : 64 - lo;
		mask = (n == 64 ? ~0ull : (1ull << n) - 1) << lo;
		key = EXTENT_SECTORS_KEY | s >> 6;
		old = seen_value(seen, key);
		if (!(mask & ~old))
			continue;
		ret = seen_put(seen, key, old | mask);
		if (ret < 0)
			return ret;
		*added += (uint64_t)__builtin_popcountll(mask & ~old) << shift;
	}
	return 0;
}

int extent_account(struct cs_stats *st, struct seen_set *seen,
		   const struct extent_info *ei)
{
	unsigned row = extent_row(ei);
	uint64_t added;
	int ret;

	if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
		st->disk[row] += ei->inline_len;
		st->uncomp[row] += ei->ram_bytes;
		st->refd[row] += ei->ram_bytes;
		st->ninline++;
		hist_add(st->hist, row, ei, ei->inline_len);
		st->nfrag++;
		st->fragend = UINT64_MAX;
		return 0;
	}
	if (!ei->disk_bytenr)
		return 0;	/* a hole */

	if (ei->sector_shift) {
		ret = new_sectors(seen, ei, &added);
		if (ret < 0)
			return ret;
		if (added) {
			st->disk[row] += added;
			st->uncomp[row] += added;
			st->nextents++;
		}
		ret = 0;
	} else {
		ret = seen_insert(seen, ei->disk_bytenr);
	}
	if (ret < 0)
		return ret;
	if (ret) {
		st->disk[row] += ei->disk_num_bytes;
		st->uncomp[row] += ei->ram_bytes;
		st->nextents++;
		hist_add(st->hist, row, ei, ei->disk_num_bytes);
	}
	st->refd[row] += ei->num_bytes;
	st->nrefs++;
	if (ei->disk_bytenr != st->fragend)
		st->nfrag++;
	st->fragend = ei->disk_bytenr + ei->disk_num_bytes;
	return 0;
}

void extent_current(const struct extent_info *ei, uint64_t *disk,
		    uint64_t *ram)
{
	if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
		*disk += ei->inline_len;
		*ram += ei->ram_bytes;
	} else if (ei->type == BTRFS_FILE_EXTENT_REG && ei->disk_bytenr) {
		*disk += ei->disk_num_bytes;
		*ram += ei->ram_bytes;
	}
}

uint64_t extent_inline_key(const uint8_t *item, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (len * 0x9e3779b97f4a7c15ull);
	uint64_t w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, item + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	for (w = 0; i < len; i++)
		w = w << 8 | item[i];
	h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	return (h ^ (h >> 29)) >> 1;
}
