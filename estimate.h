/* SPDX-License-Identifier: GPL-2.0 */
/*
 * estimate: predict what regular files would use on disk if written afresh
 * to btrfs with a given compress= / compress-force= mount option, by running
 * the real file data through the btrfs write path (fs/btrfs/inode.c
 * compress_file_range() and friends) and the same codecs with the same
 * parameters and framing as the kernel. See docs/estimate.md.
 */
#ifndef COMPSIZE_ESTIMATE_H
#define COMPSIZE_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Values are btrfs's on-disk compression type bytes. */
enum est_alg { EST_ZLIB = 1, EST_LZO = 2, EST_ZSTD = 3 };

struct est_setting {
	enum est_alg alg;
	int level;		/* zstd -15..15 (never 0), zlib 1..9, lzo 0 */
	bool force;		/* compress-force= rather than compress= */
};

/*
 * Parse a comma separated list such as "zstd:3,compress-force=lzo,zstd:1..15,
 * all" into a new array (*out, free() it) of *n settings, exact duplicates
 * dropped. Item syntax: [compress=|compress-force=]ALG[:LEVEL|:LO..HI] or
 * [compress=|compress-force=]all. Returns 0, -EINVAL with a one-line message
 * naming the bad item in err, or -ENOMEM. *out and *n are untouched on error.
 */
int est_parse_list(const char *list, struct est_setting **out, size_t *n,
		   char *err, size_t errlen);

/* Canonical name: "compress=zstd:3", "compress-force=lzo", "compress=zlib:9". */
void est_setting_name(const struct est_setting *s, char *buf, size_t len);

struct est_result {
	uint64_t input;		/* apparent size (st_size) of the files */
	uint64_t disk;		/* predicted disk bytes, compsize's "Disk Usage" */
	uint64_t uncompressed;	/* predicted ram bytes, compsize's "Uncompressed" */
	double compress_mbps;	/* codec input bytes / codec CPU seconds / 1e6 */
	double decompress_mbps;	/* decompressed bytes / CPU seconds / 1e6 */
	uint64_t files;		/* regular files fed in */
};

/*
 * One est_ctx is used by one thread at a time and shares nothing with other
 * contexts: for -j N, give each thread its own est_ctx with the same
 * settings, feed each its share of the files and est_merge() them at the
 * end. The speed figures stay single-thread figures (bytes over the CPU
 * time of all threads).
 */
struct est_ctx;

/*
 * Create an estimator for n settings (copied) on a filesystem with the given
 * sector size (0 means 4096; must be a power of two, 4096..65536). Returns
 * NULL with errno set (EINVAL, ENOMEM).
 */
struct est_ctx *est_create(const struct est_setting *s, size_t n,
			   uint32_t sectorsize);
void est_free(struct est_ctx *ctx);

/*
 * Read the regular file open on fd once and account it under every setting.
 * st is its fstat(). Holes (SEEK_DATA/SEEK_HOLE) are skipped. Files flagged
 * nodatacow (chattr +C) are predicted raw under every setting, nocompress
 * (chattr +m) ones under compress= only, as the kernel does. Whether a file
 * was ever fallocated (which also stops compression) is not looked at.
 * The file's pages are dropped from the page cache behind the reads and
 * at the end (POSIX_FADV_DONTNEED), unless the whole file was cached
 * before (cachestat, Linux 6.5+; older kernels always drop). Never
 * writes. delta is NULL or 3n values: on success, setting i's disk,
 * uncompressed and input for this file alone at 3i, 3i + 1 and 3i + 2 (as
 * in est_result). Returns 0, -EINVAL if st is not a regular file, -EIO if
 * a codec fails to decompress its own output, -ENOMEM or the -errno of a
 * failed read or lseek. On error the totals are left as before the call.
 *
 * Some compressed pieces are kept to be decompressed later, together (the
 * decompress figure); est_merge() and est_get_result() decompress what is
 * left, on the calling thread.
 */
int est_file(struct est_ctx *ctx, int fd, const struct stat *st,
	     uint64_t *delta);

/*
 * est_file() for nf files at once (fd[f], st[f]; delta NULL or delta[f]
 * NULL or 3n values), each file's result in err[f].  Files of 512 KiB or
 * less are estimated together, each setting over all of them in turn,
 * which keeps one codec's tables in the caches at a time.  Returns 0, or
 * -ENOMEM when it stopped (err[f] of the files not done is -ENOMEM too).
 */
int est_files(struct est_ctx *ctx, size_t nf, const int *fd,
	      const struct stat *st, int *err, uint64_t *const *delta);

/*
 * Estimate one part of a large file alone, as the kernel writes it as
 * part of the whole file: [off, off + len) with off a multiple of 512 KiB
 * (an async chunk of the dirty range that starts at the 128 MiB boundary
 * below off; compress= decides that range from its first 128 KiB, which
 * is read too when off is not that boundary) and len at most 512 KiB.
 * Assumes no earlier part of the file set the inode's NOCOMPRESS flag
 * (compress= only; est_nocompress_at() finds where one does).  Holes:
 * each run of data in the part starts a range of its own.  delta as for
 * est_file(), input being the part's length; added to the totals (the
 * speeds), not counted as a file.  nocomp: NULL or n flags, set for the
 * settings under which this part sets NOCOMPRESS.  Returns 0, -EINVAL
 * (not a regular file, a bad part), or as est_file().
 */
int est_part(struct est_ctx *ctx, int fd, const struct stat *st, uint64_t off,
	     uint64_t len, uint64_t *delta, bool *nocomp);

/*
 * Where the file's NOCOMPRESS flag gets set: for each compress= setting
 * i, at[i] is the offset of the first 512 KiB chunk of the file, written
 * from its start, in which a piece passes the heuristic and fails to
 * compress (the rest of the file is then raw), searched in [0, limit[i])
 * (0: setting i not searched); UINT64_MAX when none there, and always for
 * compress-force= settings, files flagged nodatacow or nocompress, and
 * sparse files (not followed).  Reads and compresses only under the
 * settings searched and not yet decided, and stops when all are.  Nothing
 * is added to the totals but codec time.  Returns 0, -EINVAL (not a
 * regular file) or as est_file().
 */
int est_nocompress_at(struct est_ctx *ctx, int fd, const struct stat *st,
		      const uint64_t *limit, uint64_t *at);

/*
 * Whether a sample must follow each big file drawn from its start under
 * setting s to know where NOCOMPRESS gets set (est_nocompress_at()), not
 * only from a drawn part that sets it: compress= with a codec without an
 * entropy stage (lzo), where the pieces that fail are few and scattered
 * (docs/sampling.md).
 */
bool est_follow_nocompress(const struct est_setting *s);

/*
 * Add the totals of src to dst, after decompressing what src kept. Returns
 * 0, -EINVAL if the two were not created with the same settings and sector
 * size, or -EIO if a piece src kept did not decompress to its input.
 */
int est_merge(struct est_ctx *dst, struct est_ctx *src);

/*
 * Copy out the totals of setting i (0 <= i < n), after decompressing what
 * ctx kept; zeros if i is out of range.
 */
void est_get_result(struct est_ctx *ctx, size_t i, struct est_result *out);

#endif
