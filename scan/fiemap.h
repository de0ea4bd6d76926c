/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file's extents from FS_IOC_FIEMAP, which any user who may open the
 * file can ask for (the tree searches need CAP_SYS_ADMIN): the usage
 * report without root (docs/rootless.md).  btrfs's fiemap
 * (fs/btrfs/fiemap.c) reports a compressed extent at its disk_bytenr, the
 * same for every reference, flagged ENCODED, with the file range it maps
 * as its length; an uncompressed or preallocated extent at disk_bytenr +
 * offset, merged with the next one where both are contiguous in the file
 * and on disk with the same flags; an inline extent at physical 0 with
 * its length rounded up to a sector.  The compressed length is nowhere:
 * the caller derives it.
 */
#ifndef COMPSIZE_FIEMAP_H
#define COMPSIZE_FIEMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "scan/extent.h"

struct fiemap_list {
	struct extent_info *ext;	/* the file's extents, in file order */
	size_t n, cap;
	void *buf;			/* the ioctl's buffer */
};

/* NULL-safe; frees what fiemap_read() allocated. */
void fiemap_list_free(struct fiemap_list *l);

/*
 * Read the extents of the regular file open on fd (st its fstat()) into
 * l->ext[0..l->n), each as an extent_info: inline (ram_bytes the data's
 * length, inline_len the same: uncompressed payload), regular or prealloc
 * with disk_bytenr the physical address reported, num_bytes and
 * ram_bytes the length, offset 0, and disk_num_bytes the length too but
 * for compressed extents (ENCODED), where it is 0 and compression is
 * compress_type (FIEMAP does not tell the codec); file_pos the logical
 * offset.  An uncompressed or preallocated range has sector_shift set
 * (sectorsize: a power of two), its sectors counted once (extent.h).  Ranges still delayed allocation (not on disk yet, as a tree
 * search does not see them either) are left out.  Writes nothing back
 * (no FIEMAP_FLAG_SYNC).  Returns 0, or -errno of the ioctl (-ENOTTY,
 * -EOPNOTSUPP off a filesystem with fiemap) or -ENOMEM.
 */
int fiemap_read(int fd, const struct stat *st, uint8_t compress_type,
		uint32_t sectorsize, struct fiemap_list *l);

#endif
