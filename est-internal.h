/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the estimate module shared by estimate.c, the codec files
 * (est-zstd.c, est-lzo.c, est-zlib.c), est-heuristic.c and the unit tests.
 * Not part of the public API in estimate.h.
 */
#ifndef COMPSIZE_EST_INTERNAL_H
#define COMPSIZE_EST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "estimate.h"

#define EST_PAGE_SIZE		4096u
/* BTRFS_MAX_UNCOMPRESSED and BTRFS_MAX_COMPRESSED: one piece, one extent. */
#define EST_PIECE_MAX		(128u * 1024)
#define EST_OUT_MAX		(128u * 1024)
/* run_delalloc_compressed(): async chunk size. */
#define EST_CHUNK_SIZE		(512u * 1024)
/* find_lock_delalloc_range(): BTRFS_MAX_EXTENT_SIZE caps one dirty range. */
#define EST_RANGE_MAX		(128ull * 1024 * 1024)
/* BTRFS_DEFAULT_MAX_INLINE */
#define EST_MAX_INLINE		2048u
/* heuristic_collect_sample(): at most 16 bytes per 256 of 128 KiB. */
#define EST_SAMPLE_MAX		(EST_PIECE_MAX / 256 * 16 + 512)

/*
 * One codec, as the kernel drives it. compress() returns the number of bytes
 * the kernel would store (framing included), 0 when the kernel gives up on
 * the piece (-E2BIG: too big, or growing past the codec's early check), or
 * -errno. decompress() must reproduce exactly len bytes; returns 0 or -EIO.
 * A workspace belongs to one thread and one level.
 */
struct est_codec_ops {
	enum est_alg alg;
	void *(*ws_create)(int level);
	void (*ws_free)(void *ws);
	long (*compress)(void *ws, uint32_t sectorsize, const uint8_t *in,
			 size_t len, uint8_t *out, size_t cap);
	int (*decompress)(void *ws, uint32_t sectorsize, const uint8_t *in,
			  size_t clen, uint8_t *out, size_t len);
};

extern const struct est_codec_ops est_zstd_ops;
extern const struct est_codec_ops est_lzo_ops;
extern const struct est_codec_ops est_zlib_ops;

const struct est_codec_ops *est_codec(enum est_alg alg);

/*
 * btrfs_compress_heuristic() on file range [start, end] (end inclusive, as
 * the kernel passes it). buf holds the file from offset buf_off (page
 * aligned) through the end of the page containing end, zero padded past EOF.
 * Returns true for "compress".
 */
bool est_heuristic(const uint8_t *buf, uint64_t buf_off, uint64_t start,
		   uint64_t end);

/* What one setting predicts for a run of data. */
struct est_acct {
	uint64_t disk;
	uint64_t ram;
	uint64_t comp_in;	/* bytes given to the codec */
	uint64_t comp_ns;
	uint64_t dec_out;	/* bytes decompressed back */
	uint64_t dec_ns;
};

/* Per-thread state: one codec workspace per setting plus buffers. */
struct est_worker;

struct est_worker *est_worker_create(const struct est_setting *s, size_t n,
				     uint32_t sectorsize);
void est_worker_free(struct est_worker *w);

/*
 * Account a whole file held in memory (no holes, no inode flags) under
 * setting i, adding to *acct. For tests and future sampling. Returns 0 or
 * -errno.
 */
int est_buffer(struct est_worker *w, size_t i, const uint8_t *data,
	       uint64_t size, struct est_acct *acct);

#endif
