// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim of test 119: deletes a subvolume from inside compsize at
 * a fixed point of its reading, so that the race of issue #56 (a snapshot
 * pruned while compsize reads the tree) happens the same way on every run.
 * Each ioctl() compsize makes comes here first; the one chosen deletes the
 * subvolume (BTRFS_IOC_SNAP_DESTROY, as btrfs subvolume delete does), then
 * goes on to the kernel.
 *
 *   VANISH_PATH  the subvolume, an absolute path
 *   VANISH_ID    its id
 *   VANISH_DEV   its st_dev
 *   VANISH_AT    the how-manieth search that reads it deletes it (default
 *                1): a TREE_SEARCH(_V2) of its tree, by its id or through
 *                a descriptor inside it (tree_id 0)
 *   VANISH_ON    "info": count instead the searches of the root tree from
 *                its id (libbtrfsutil's look-up of its ROOT_ITEM when a
 *                listing met it), and wait until the cleaner has dropped
 *                it: its root item is gone too
 *
 * What goes wrong is said on stderr ("vanish: ..."), which the test
 * checks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>

typedef int (*ioctl_fn)(int, unsigned long, ...);

static ioctl_fn real_ioctl;
static int done;
static unsigned long count;

/* Is the ROOT_ITEM of subvolume id still in the root tree? */
static int root_item_left(int fd, uint64_t id)
{
	struct btrfs_ioctl_search_args args;

	memset(&args, 0, sizeof(args));
	args.key.tree_id = BTRFS_ROOT_TREE_OBJECTID;
	args.key.min_objectid = args.key.max_objectid = id;
	args.key.min_type = args.key.max_type = BTRFS_ROOT_ITEM_KEY;
	args.key.max_offset = UINT64_MAX;
	args.key.max_transid = UINT64_MAX;
	args.key.nr_items = 1;
	if (real_ioctl(fd, BTRFS_IOC_TREE_SEARCH, &args)) {
		perror("vanish: TREE_SEARCH");
		return 0;
	}
	return args.key.nr_items > 0;
}

static void vanish(uint64_t id, int clean)
{
	const char *path = getenv("VANISH_PATH");
	struct btrfs_ioctl_vol_args va;
	const char *slash = strrchr(path, '/');
	char *parent = strndup(path, slash - path);
	int i, fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	done = 1;
	memset(&va, 0, sizeof(va));
	strncpy(va.name, slash + 1, sizeof(va.name) - 1);
	if (fd < 0 || real_ioctl(fd, BTRFS_IOC_SNAP_DESTROY, &va)) {
		fprintf(stderr, "vanish: deleting %s: %m\n", path);
		goto out;
	}
	/* A commit wakes the cleaner, which drops the deleted tree. */
	for (i = 0; clean && root_item_left(fd, id); i++) {
		if (i == 300) {
			fprintf(stderr, "vanish: %s not cleaned after 30 s\n",
				path);
			break;
		}
		real_ioctl(fd, BTRFS_IOC_SYNC, NULL);
		usleep(100000);
	}
out:
	if (fd >= 0)
		close(fd);
	free(parent);
}

/* Does the search of key through fd read the subvolume? */
static int reads_it(int fd, const struct btrfs_ioctl_search_key *key,
		    uint64_t id, int info)
{
	struct stat st;

	if (info)
		return key->tree_id == BTRFS_ROOT_TREE_OBJECTID &&
		       key->min_objectid == id;
	if (key->tree_id)
		return key->tree_id == id;
	return !fstat(fd, &st) &&
	       st.st_dev == (dev_t)strtoull(getenv("VANISH_DEV"), NULL, 10);
}

int ioctl(int fd, unsigned long req, ...)
{
	const struct btrfs_ioctl_search_key *key = NULL;
	const char *at = getenv("VANISH_AT");
	const char *on = getenv("VANISH_ON");
	int info = on && !strcmp(on, "info");
	uint64_t id;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl)
		real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	if (req == BTRFS_IOC_TREE_SEARCH_V2)
		key = &((struct btrfs_ioctl_search_args_v2 *)arg)->key;
	else if (req == BTRFS_IOC_TREE_SEARCH)
		key = &((struct btrfs_ioctl_search_args *)arg)->key;
	if (key && !done && getenv("VANISH_PATH")) {
		id = strtoull(getenv("VANISH_ID"), NULL, 10);
		if (reads_it(fd, key, id, info) &&
		    ++count >= strtoul(at ? at : "1", NULL, 10))
			vanish(id, info);
	}
	return real_ioctl(fd, req, arg);
}
