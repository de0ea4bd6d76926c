/* SPDX-License-Identifier: GPL-2.0 */
/* Hand-built TREE_SEARCH_V2 result buffers for the unit tests. */
#ifndef COMPSIZE_UNIT_ITEMS_H
#define COMPSIZE_UNIT_ITEMS_H

#include <string.h>
#include "ioctl.h"

/* Append one item (header, then len bytes of data) at pos; returns the
 * position after it. */
static inline size_t put_item(uint8_t *buf, size_t pos, uint64_t objectid,
			      uint32_t type, uint64_t offset,
			      const void *data, uint32_t len)
{
	struct btrfs_ioctl_search_header sh = {
		.transid = 7, .objectid = objectid, .offset = offset,
		.type = type, .len = len,
	};

	memcpy(buf + pos, &sh, sizeof(sh));
	memcpy(buf + pos + sizeof(sh), data, len);
	return pos + sizeof(sh) + len;
}

#endif
