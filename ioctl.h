/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slice of the btrfs ioctl ABI and on-disk format that compsize reads.
 *
 * The ioctl numbers and argument structs come from the kernel's uapi
 * <linux/btrfs.h>.  Items returned by TREE_SEARCH_V2 are raw on-disk bytes,
 * always little-endian and unaligned, so they are decoded by offset here
 * instead of through packed structs.  The search headers that precede them
 * are filled by the kernel in CPU byte order.
 */
#ifndef COMPSIZE_IOCTL_H
#define COMPSIZE_IOCTL_H

#include <stdint.h>
#include <string.h>
#include <endian.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>

#ifndef BTRFS_SUPER_MAGIC
#define BTRFS_SUPER_MAGIC 0x9123683E
#endif

/* struct btrfs_ioctl_search_header: transid, objectid, offset, type, len */
#define SEARCH_HEADER_SIZE		32

/* struct btrfs_file_extent_item, little-endian on disk */
#define FE_GENERATION			0
#define FE_RAM_BYTES			8
#define FE_COMPRESSION			16
#define FE_TYPE				20
#define FE_DISK_BYTENR			21
#define FE_DISK_NUM_BYTES		29
#define FE_OFFSET			37
#define FE_NUM_BYTES			45
#define FE_REG_SIZE			53
/* An inline extent's data starts where disk_bytenr would be. */
#define FE_INLINE_HEADER_SIZE		FE_DISK_BYTENR

/* struct btrfs_inode_item */
#define INODE_GENERATION		0
#define INODE_SIZE_OFF			16
#define INODE_NBYTES			24
#define INODE_NLINK			40
#define INODE_MODE			52
#define INODE_ITEM_SIZE			160

/* struct btrfs_dir_item, followed by the name */
#define DIR_LOCATION_OBJECTID		0
#define DIR_LOCATION_TYPE		8
#define DIR_DATA_LEN			25
#define DIR_NAME_LEN			27
#define DIR_TYPE			29
#define DIR_ITEM_SIZE			30

/* The longest name of a directory entry (BTRFS_NAME_LEN). */
#define BTRFS_NAME_LEN			255

/* struct btrfs_inode_ref and btrfs_inode_extref, each followed by its name;
 * an item holds one or more */
#define INODE_REF_INDEX			0	/* its DIR_INDEX */
#define INODE_REF_NAME_LEN		8
#define INODE_REF_SIZE			10
#define INODE_EXTREF_PARENT		0
#define INODE_EXTREF_INDEX		8
#define INODE_EXTREF_NAME_LEN		16
#define INODE_EXTREF_SIZE		18

/* struct btrfs_root_item: an inode item, then the root node's generation */
#define ROOT_ITEM_GENERATION		160

/* struct btrfs_root_ref, followed by the name */
#define ROOT_REF_DIRID			0
#define ROOT_REF_SEQUENCE		8	/* its DIR_INDEX in dirid */
#define ROOT_ITEM_BYTES_USED		192	/* in struct btrfs_root_item */
#define ROOT_ITEM_LAST_SNAPSHOT		200	/* ... the last snapshot of it */
#define ROOT_REF_NAME_LEN		16
#define ROOT_REF_SIZE			18

/* Inline ref of simple quotas (6.7); older headers lack it.  Full
 * accounting, and every reference walk, skips it. */
#define EXTENT_OWNER_REF		172

/* The largest tree block btrfs allows; no item can be larger. */
#define BTRFS_MAX_NODESIZE		65536

static inline uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint16_t get_le16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

#endif
