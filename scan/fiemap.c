// SPDX-License-Identifier: GPL-2.0
/* A file's extents from FS_IOC_FIEMAP (fiemap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include "lib/array.h"
#include "ioctl.h"
#include "scan/fiemap.h"

/* Extents asked for per ioctl. */
#define FIEMAP_BATCH	512u

void fiemap_list_free(struct fiemap_list *l)
{
	if (!l)
		return;
	free(l->ext);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

/* One extent the kernel reported, as an extent_info in l. */
static int add_extent(struct fiemap_list *l, const struct fiemap_extent *fe,
		      const struct stat *st, uint8_t compress_type,
		      uint8_t shift)
{
	struct extent_info *ei;
	uint64_t len = fe->fe_length;

	if (fe->fe_flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN))
		return 0;
	ei = array_grow(l->ext, &l->cap, l->n, sizeof(*l->ext));
	if (!ei)
		return -ENOMEM;
	l->ext = ei;
	ei = &l->ext[l->n++];
	memset(ei, 0, sizeof(*ei));
	ei->file_pos = fe->fe_logical;
	if (fe->fe_flags & FIEMAP_EXTENT_DATA_INLINE) {
		/* reported a sector long: the data ends at the file's end */
		if (st->st_size >= 0 && fe->fe_logical + len > (uint64_t)st->st_size)
			len = (uint64_t)st->st_size > fe->fe_logical ?
			      (uint64_t)st->st_size - fe->fe_logical : 0;
		ei->type = BTRFS_FILE_EXTENT_INLINE;
		ei->ram_bytes = ei->inline_len = len;
		if (fe->fe_flags & FIEMAP_EXTENT_ENCODED) {
			ei->compression = compress_type;
			ei->inline_len = 0;
		}
		return 0;
	}
	ei->type = fe->fe_flags & FIEMAP_EXTENT_UNWRITTEN ?
		   BTRFS_FILE_EXTENT_PREALLOC : BTRFS_FILE_EXTENT_REG;
	ei->disk_bytenr = fe->fe_physical;
	ei->ram_bytes = ei->num_bytes = len;
	if (ei->type == BTRFS_FILE_EXTENT_REG &&
	    (fe->fe_flags & FIEMAP_EXTENT_ENCODED))
		ei->compression = compress_type;
	else
		ei->disk_num_bytes = len;
	if (!ei->compression)
		ei->sector_shift = shift;
	return 0;
}

int fiemap_read(int fd, const struct stat *st, uint8_t compress_type,
		uint32_t sectorsize, struct fiemap_list *l)
{
	const uint8_t shift = (uint8_t)__builtin_ctz(sectorsize ? sectorsize
								 : 4096);
	const size_t size = sizeof(struct fiemap) +
			    FIEMAP_BATCH * sizeof(struct fiemap_extent);
	struct fiemap *fm;
	uint64_t start = 0;
	unsigned i;
	int ret, last = 0;

	l->n = 0;
	if (!l->buf) {
		l->buf = malloc(size);
		if (!l->buf)
			return -ENOMEM;
	}
	fm = l->buf;
	while (!last) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm))
			return -errno;
		if (!fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			const struct fiemap_extent *fe = &fm->fm_extents[i];

			ret = add_extent(l, fe, st, compress_type, shift);
			if (ret)
				return ret;
			start = fe->fe_logical + fe->fe_length;
			if (fe->fe_flags & FIEMAP_EXTENT_LAST)
				last = 1;
		}
		if (fm->fm_mapped_extents < FIEMAP_BATCH)
			break;
	}
	return 0;
}
