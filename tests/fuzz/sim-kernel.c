// SPDX-License-Identifier: GPL-2.0
/* The simulated TREE_SEARCH_V2 of the fuzz harnesses: see sim-kernel.h. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include "sim-kernel.h"

/* The wrapped ioctl() has no other way to reach the simulation. */
static const struct simk *simk;

void simk_set(const struct simk *k)
{
	simk = k;
}

int simk_key_cmp(uint64_t oa, uint32_t ta, uint64_t fa, uint64_t ob,
		 uint32_t tb, uint64_t fb)
{
	if (oa != ob)
		return oa < ob ? -1 : 1;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	if (fa != fb)
		return fa < fb ? -1 : 1;
	return 0;
}

int simk_item_cmp(const void *a, const void *b)
{
	const struct simk_item *x = a, *y = b;

	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	return simk_key_cmp(x->objectid, x->type, x->offset, y->objectid,
			    y->type, y->offset);
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct btrfs_ioctl_search_args_v2 *args;
	struct btrfs_ioctl_search_key *key;
	struct btrfs_ioctl_search_header sh;
	uint64_t tree, count = 0;
	size_t i, pos = 0;
	va_list ap;
	void *p;
	int err;

	(void)fd;
	va_start(ap, req);
	p = va_arg(ap, void *);
	va_end(ap);
	if (simk && req != BTRFS_IOC_TREE_SEARCH_V2 && simk->other)
		return simk->other(req, p, simk->arg);
	if (req != BTRFS_IOC_TREE_SEARCH_V2 || !simk) {
		errno = ENOTTY;
		return -1;
	}
	args = p;
	key = &args->key;
	if (simk->before) {
		err = simk->before(key, simk->arg);
		if (err) {
			errno = err;
			return -1;
		}
	}
	tree = key->tree_id ? key->tree_id : simk->default_tree;
	for (i = 0; i < simk->n && count < key->nr_items; i++) {
		const struct simk_item *it = &simk->items[i];

		if (it->tree != tree ||
		    simk_key_cmp(it->objectid, it->type, it->offset,
				 key->min_objectid, key->min_type,
				 key->min_offset) < 0)
			continue;
		if (simk_key_cmp(it->objectid, it->type, it->offset,
				 key->max_objectid, key->max_type,
				 key->max_offset) > 0)
			break;
		if (pos + sizeof(sh) + it->len > args->buf_size) {
			if (!count) {
				args->buf_size = sizeof(sh) + it->len;
				errno = EOVERFLOW;
				return -1;
			}
			break;
		}
		sh.transid = 1;
		sh.objectid = it->objectid;
		sh.offset = it->offset;
		sh.type = it->type;
		sh.len = it->len;
		memcpy((uint8_t *)args->buf + pos, &sh, sizeof(sh));
		memcpy((uint8_t *)args->buf + pos + sizeof(sh), it->data,
		       it->len);
		pos += sizeof(sh) + it->len;
		count++;
	}
	key->nr_items = count;
	return 0;
}
