/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fast scan: a directory's whole subtree accounted from btrfs metadata
 * alone, with the path walk's semantics (regular files only, once per path
 * to them, nested subvolumes crossed unless one_fs) but no open, fstat or
 * readdir per file.
 *
 * A subvolume root streams every INODE_ITEM, DIR_ITEM and EXTENT_DATA
 * item of its tree in large TREE_SEARCH_V2 batches; a file counts once per
 * link (nlink), since every link of an inode is inside its subvolume.  Any
 * other directory is listed through its DIR_ITEM items (its current names:
 * the DIR_INDEX items may lag until the next commit), then the extents of
 * the regular files found are fetched for runs of nearby inode numbers in
 * one search each; a file counts once per name found.  Nested subvolumes
 * are streamed whole.  A subvolume that may have changes not yet committed
 * (pending.h), whose nlink counts may then be stale, is streamed too, but
 * a file counts once per name its INODE_REF and INODE_EXTREF items hold
 * (changed at once), and not at all when it has an ORPHAN item (inserted
 * at once when its last name goes: that INODE_REF may stay until the
 * commit while the file is open).
 *
 * The caller must make sure no mount point lies beneath the directory
 * (mounts.h): metadata can't see mounts.
 */
#ifndef COMPSIZE_FASTSCAN_H
#define COMPSIZE_FASTSCAN_H

#include <stdint.h>
#include <sys/stat.h>
#include "scan/usage.h"

/*
 * Account the subtree of the btrfs directory open on fd (st its stat) into
 * ctx.  tick is called between batches; its non-zero return aborts with
 * that value.  A nested subvolume deleted once the scan found it (its tree
 * can no longer be searched) is left out, what was read of it aside, and
 * the rest is read on: its path from the directory goes to ctx->gone.
 * Returns 0; 1 when nothing was accounted and the caller should walk the
 * directory instead (e.g. a snapshot's stand-in for a nested subvolume);
 * -ENOENT when the directory's own subvolume was deleted (what was read
 * of it stays counted); -EPERM without CAP_SYS_ADMIN; -ENOMEM; -EUCLEAN
 * when malformed items were skipped (ctx->bad_item tells the first); or
 * another -errno from a search, after which part of the subtree may be
 * counted.
 */
int fastscan_dir(struct usage_ctx *ctx, int fd, const struct stat *st,
		  int one_fs, int (*tick)(void *), void *tick_arg);

/* A regular file met by fastscan_list(). */
struct fastscan_file {
	uint64_t tree_id;	/* its subvolume */
	uint64_t ino;
	uint64_t size;		/* st_size */
	uint64_t nbytes;	/* st_blocks * 512, less any delalloc */
	uint32_t nlink;
	/* size, nbytes and nlink may lag behind: its subvolume has changes
	 * not yet committed, whose inode updates wait for the commit
	 * (pending.h); its extents are current */
	int stale;
	/* where the walk meets it is told from INODE_REF items, not
	 * DIR_INDEX items (a directory below a subvolume's root, listed
	 * through its names in batches, or a subvolume with changes not
	 * yet committed): ranked, not taken in inode order */
	int by_names;
	uint64_t disk, ram;	/* extent_current() over its extents */
	uint64_t generation;	/* its inode's, for a handle (pending_open()) */
	/* the name its first INODE_REF item holds, NUL-terminated (name_len
	 * bytes before the NUL; "" when none or not asked for: the
	 * listener's names): one of its names, the one where it has one
	 * link */
	const char *name;
	uint32_t name_len;
	uint64_t parent;	/* the directory that holds name (0: none) */
};

struct fastscan_listener {
	/* Non-zero aborts the scan with that value. */
	int (*file)(void *arg, const struct fastscan_file *f);
	/* NULL, or each file extent item of the file file() tells of next
	 * (parsed into ei, its file_pos set), before it, with the item's
	 * len bytes when it is inline (NULL and 0 otherwise: ei holds all
	 * of it); non-zero aborts the scan. */
	int (*ref)(void *arg, const struct extent_info *ei,
		   const uint8_t *item, size_t len);
	/* NULL, or each name in a directory dir of subvolume tree_id: the
	 * entry's location objectid (child: an inode, or a subvolume's id
	 * when loc_type is BTRFS_ROOT_ITEM_KEY) and its BTRFS_FT_* type.
	 * The directories are those the scan lists or streams: a
	 * subvolume's whole tree, or the subtree listed.  Non-zero aborts
	 * the scan. */
	int (*entry)(void *arg, uint64_t tree_id, uint64_t dir, uint64_t child,
		     uint8_t loc_type, uint8_t ftype);
	/* NULL, or where the walk meets what the scan lists
	 * (walkorder.h): entry index of directory dir of subvolume tree_id
	 * is child, a regular file or a directory of the same tree
	 * (WALKORDER_FILE, _DIR) or the subvolume child nested there
	 * (WALKORDER_SUBVOL).  Told for the subvolumes streamed whole
	 * (their DIR_INDEX items; with changes not yet committed, the
	 * INODE_REF items of their directories and files, which change
	 * at once), for a subtree listed through its names (the same
	 * INODE_REF items) and for each nested subvolume (its ROOT_REF).
	 * Non-zero aborts the scan. */
	int (*place)(void *arg, uint64_t tree_id, uint64_t dir,
		     uint64_t index, uint64_t child, int kind);
	void *arg;
	int names;	/* file() is told each file's first name */
};

/*
 * fastscan_dir() that also tells ls about each regular file it counts,
 * from the items it streams anyway (--sample's pre-pass: its candidates
 * and their current ratio without a search per file).  A file comes once
 * per subvolume streamed or per batch of a listed subtree: one with
 * several links may come more than once.  Returns as fastscan_dir().
 */
int fastscan_list(struct usage_ctx *ctx, int fd, const struct stat *st,
		  int one_fs, int (*tick)(void *), void *tick_arg,
		  const struct fastscan_listener *ls);

/*
 * Account every file of the tree of subvolume id on the filesystem of fd
 * (st its stat), mounted or not, nested subvolumes apart, into ctx: what
 * compsize -x would count for that subvolume's root.  Returns as
 * fastscan_dir() (never 1); -ENOENT when the subvolume is gone (what was
 * read of it stays counted).
 */
int fastscan_root(struct usage_ctx *ctx, int fd, const struct stat *st,
		  uint64_t id, int (*tick)(void *), void *tick_arg);

/*
 * Whether subvolume id (0: the one the directory open on fd is in) of the
 * filesystem of fd was deleted: 1 when its tree can no longer be searched
 * (btrfs_get_fs_root() refuses a root whose refs dropped to 0, from the
 * moment it is deleted until the cleaner has dropped its tree, and after),
 * 0 when it can or when that can't be told (no CAP_SYS_ADMIN).  One or
 * two ioctls.
 */
int fastscan_gone(struct usage_ctx *ctx, int fd, uint64_t id);

/*
 * Whether fastscan_dir() would scan the directory open on fd: 0 (and
 * its subvolume's id in *id), 1 when it would return 1, or -EPERM or
 * -ENOMEM as it would.  One ioctl, nothing read.
 */
int fastscan_probe(int fd, uint64_t *id);

#endif
