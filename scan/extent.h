/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File extent items: decoding one EXTENT_DATA item and adding it to the
 * per-type statistics, counting each shared extent's disk bytes once.
 */
#ifndef COMPSIZE_EXTENT_H
#define COMPSIZE_EXTENT_H

#include <stdint.h>
#include "seen.h"

/* Rows 0..255 are the compression byte (none, zlib, lzo, zstd, unknown);
 * preallocated extents get a row of their own after them. */
#define CS_TYPE_PREALLOC	256
#define CS_NTYPES		257

/*
 * --histogram: the extents by type and size class.  An extent's class is
 * its uncompressed length (ram_bytes: the whole extent as written, not
 * the part a file references, and not its compressed disk length, which
 * says how well the data compressed, not how it was written): class k
 * holds lengths of at most 4 KiB << k (k = 0: every inline extent and
 * the 4 KiB ones).  Each regular or prealloc extent is counted once, the
 * first time the grand total meets it; inline extents each time, as the
 * report counts them.  The bytes of a type's classes add up to its row
 * of the report.
 */
#define CS_HIST_CLASSES		40

struct cs_hist_cell {
	uint64_t extents;	/* regular and prealloc extents */
	uint64_t ninline;	/* inline extents */
	uint64_t disk;		/* their bytes on disk */
	uint64_t uncomp;	/* and uncompressed */
};

struct cs_hist {
	struct cs_hist_cell cell[CS_NTYPES][CS_HIST_CLASSES];
};

/* The class of an extent of ram_bytes uncompressed bytes. */
unsigned extent_hist_class(uint64_t ram_bytes);

/* The largest length class k holds: 4 KiB << k. */
static inline uint64_t extent_hist_max(unsigned k)
{
	return (uint64_t)4096 << k;
}

struct cs_stats {
	uint64_t disk[CS_NTYPES];	/* bytes on disk */
	uint64_t uncomp[CS_NTYPES];	/* bytes before compression */
	uint64_t refd[CS_NTYPES];	/* bytes the files reference */
	uint64_t nfiles;
	uint64_t nextents;		/* distinct regular extents */
	uint64_t nrefs;			/* references to regular extents */
	uint64_t ninline;
	uint64_t nfrag;			/* runs of physically contiguous data */
	uint64_t fragend;		/* disk end of the last extent seen */
	uint32_t share_row;		/* a sink's sharing row id (sharing.h) */
	uint32_t waste_row;		/* ... and its waste row id (waste.h) */
	/* --histogram, the grand total's only; else NULL */
	struct cs_hist *hist;
};

struct extent_info {
	uint8_t type;		/* BTRFS_FILE_EXTENT_{INLINE,REG,PREALLOC} */
	uint8_t compression;
	/* the transaction that wrote the extent: a bookend left by a later
	 * overwrite keeps it (btrfs_drop_extents() splits the item) */
	uint64_t generation;
	/* where the item maps the data in the file (its key's offset): set
	 * by callers that have the key, else 0 */
	uint64_t file_pos;
	uint64_t ram_bytes;
	/* inline: payload bytes stored in the item; others: 0 */
	uint64_t inline_len;
	/* regular and prealloc only */
	uint64_t disk_bytenr;	/* 0 for a hole */
	uint64_t disk_num_bytes;
	uint64_t offset;
	uint64_t num_bytes;
	/* 0 for an extent item; log2 of the sector size for a range FIEMAP
	 * reported (scan/fiemap.h) of uncompressed or preallocated data,
	 * [disk_bytenr, + num_bytes): FIEMAP merges neighbours, so two
	 * files' ranges of the same extents may start apart and overlap,
	 * and such a range counts the sectors no range counted before */
	uint8_t sector_shift;
};

/* The keys of a seen set that stand for 64 sectors from sector 64 * N
 * (their value: which of them are counted), apart from the extents'
 * disk addresses, which are below 2^63. */
#define EXTENT_SECTORS_KEY	(1ull << 63)

/* Reasons extent_parse() rejects an item, for error messages. */
enum extent_error {
	EXTENT_OK = 0,
	EXTENT_SHORT_INLINE,	/* shorter than the 21-byte inline header */
	EXTENT_BAD_SIZE,	/* regular/prealloc item not 53 bytes */
	EXTENT_BAD_TYPE,	/* extent type not inline/regular/prealloc */
	EXTENT_MISALIGNED,	/* disk_bytenr not a sector multiple */
	EXTENT_SHORT_INODE,	/* an inode item too short (fast scan) */
};

/*
 * Decode the EXTENT_DATA item of len bytes at data.  sectorsize (a power of
 * two, or 0 to skip the check) is what disk_bytenr must be aligned to.
 * Returns EXTENT_OK with *ei filled, or the reason the item is malformed.
 */
enum extent_error extent_parse(const uint8_t *data, uint32_t len,
			       uint32_t sectorsize, struct extent_info *ei);

/* Text for an extent_error, e.g. "regular extent item is not 53 bytes". */
const char *extent_strerror(enum extent_error err);

/* Start a new file: counts it and resets fragment tracking. */
void extent_begin_file(struct cs_stats *st);

/*
 * Add a decoded extent to st.  Holes add nothing; a regular or prealloc
 * extent adds its disk and uncompressed bytes only the first time its
 * disk_bytenr enters seen, and its referenced bytes every time; a range
 * with sector_shift, its sectors not in seen yet (counted as an extent
 * when there are some); st->hist, when there is one, by the extent's
 * size class.
 * Returns 0, or -ENOMEM if seen could not grow (nothing is added).
 */
int extent_account(struct cs_stats *st, struct seen_set *seen,
		   const struct extent_info *ei);

/*
 * Whether the regular or prealloc extent item ei references only part of
 * its extent (a bookend: a later write took the rest from this file, or
 * a clone took only part of it).
 */
static inline int extent_partial(const struct extent_info *ei)
{
	return ei->offset || ei->num_bytes != ei->ram_bytes;
}

/*
 * What ei adds to a file's current stored bytes (*disk: an inline item's
 * payload, a regular extent's whole disk_num_bytes) and their uncompressed
 * size (*ram); holes and prealloc add nothing.  The current ratio
 * *disk / *ram is --sample's stratification variable (sample_band()).
 */
void extent_current(const struct extent_info *ei, uint64_t *disk,
		    uint64_t *ram);

/* Row index of an extent in struct cs_stats. */
unsigned extent_row(const struct extent_info *ei);

/* A hash of an inline file extent item (header and data): a snapshot's or
 * a reflinked copy's inline file has the same item as the original.  63
 * bits: the pre-pass of --sample tells it from an extent's address by the
 * top bit (sampleplan.c). */
uint64_t extent_inline_key(const uint8_t *item, size_t len);

#endif
