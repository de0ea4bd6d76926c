/* SPDX-License-Identifier: GPL-2.0 */
/*
 * estimate: predict what regular files would use on disk if written afresh
 * to btrfs with a given compress= / compress-force= mount option, by running
 * the real file data through the btrfs write path (fs/btrfs/inode.c
 * compress_file_range() and friends) and the same codecs with the same
 * parameters and framing as the kernel. See docs/estimate.md.
 *
 * This header is the boundary between the program and the estimator
 * plugin: the settings (parsed on the program side, estimate/setting.c), the
 * results, and the one table of functions the plugin exports.
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

/*
 * Whether a sample must follow each big file drawn from its start under
 * setting s to know where NOCOMPRESS gets set (est_ops.nocompress_at()),
 * not only from a drawn part that sets it: compress= with a codec without
 * an entropy stage (lzo), where the pieces that fail are few and
 * scattered (docs/sampling.md).
 */
bool est_follow_nocompress(const struct est_setting *s);

struct est_result {
	uint64_t input;		/* apparent size (st_size) of the files */
	uint64_t disk;		/* predicted disk bytes, compsize's "Disk Usage" */
	uint64_t uncompressed;	/* predicted ram bytes, compsize's "Uncompressed" */
	double compress_mbps;	/* codec input bytes / codec CPU seconds / 1e6 */
	double decompress_mbps;	/* decompressed bytes / CPU seconds / 1e6 */
	uint64_t files;		/* regular files fed in */
};

/*
 * The estimator proper lives in compsize-estimate.so (the estimate/
 * folder), reached only through this table: est_plugin_load() and
 * est_plugin_ops() (estimate/plugin.h) hand it out, the same table whether the
 * plugin was loaded or linked in (the unit tests).
 *
 * One est_ctx is used by one thread at a time and shares nothing with other
 * contexts: for -j N, give each thread its own est_ctx with the same
 * settings, feed each its share of the files and merge() them at the
 * end. The speed figures stay single-thread figures (bytes over the CPU
 * time of all threads).
 */
struct est_ctx;

/* One write of a file's history (est_ops.writes()): [start, end) of the
 * file, its data as it is now, part of write group group. */
struct est_write {
	uint64_t start, end;
	/* where the write started: [start, end) is part of it, its chunks
	 * and pieces on the grid that started there; the parts of one
	 * write share its compress= decision, taken on its first part
	 * (when that starts at grid) */
	uint64_t grid;
	uint32_t group;
	uint32_t flags;		/* EST_WRITE_* */
};

/* Stored raw now by a write whose context is partly gone (overwritten
 * since): raw under compress= settings, whose heuristic is the same for
 * every algorithm; compress-force= settings estimate its data. */
#define EST_WRITE_RAW_UNFORCED	1u
/* Ends where a later write cut its extent: its last piece is shorter than
 * when it was written, so that piece failing to compress does not set
 * NOCOMPRESS for the writes after it. */
#define EST_WRITE_CUT_END	2u
/* A lower bound, not a prediction: each piece of [start, end) compressed
 * on its own (compress-force semantics, no heuristic, a piece that does
 * not shrink costs its own sectors and nothing more), the inode's state
 * neither used nor changed: disk is what the data of [start, end) costs
 * at least wherever it lands in the kernel's pieces (layout.h, bounds).
 * Its uncompressed value counts only the pieces that compress='s
 * heuristic (btrfs_compress_heuristic() on the piece) lets through. */
#define EST_WRITE_INDEP		4u
/* The first part of a write: when it does not start where the write
 * began (its start was overwritten since), the dirty range's compress=
 * decision is taken on it, which is all that is left to take it on. */
#define EST_WRITE_BEGIN		8u

/* Where est_ops.files()' delta holds a file's values as written. */
#define EST_WRITTEN(n)		(3 * (n))

/*
 * --levels: a level as a bit of a mask, bit (level - EST_LEVEL_MIN): zstd
 * -15..15 (0 is not a level: the kernel takes it for 3), zlib 1..9.
 */
#define EST_LEVEL_MIN		(-15)
#define EST_LEVEL_MAX		15
#define EST_LEVEL_BIT(l)	(1ull << ((l) - EST_LEVEL_MIN))

struct est_lvl;

/* Bump when struct est_ops or the meaning of a function changes. */
#define EST_OPS_ABI		10

struct est_ops {
	uint32_t abi;			/* EST_OPS_ABI */
	uint32_t result_size;		/* sizeof(struct est_result) */
	const char *version;		/* COMPSIZE_VERSION */

	/*
	 * Create an estimator for n settings (copied) on a filesystem with
	 * the given sector size (0 means 4096; must be a power of two,
	 * 4096..65536). Returns NULL with errno set (EINVAL, ENOMEM).
	 */
	struct est_ctx *(*create)(const struct est_setting *s, size_t n,
				  uint32_t sectorsize);
	/* NULL is fine. */
	void (*free)(struct est_ctx *ctx);

	/*
	 * Read the regular files open on fd[0..nf) (st[f] their fstat())
	 * once each and account them under every setting; file f's result
	 * in err[f]: 0, -EINVAL if st[f] is not a regular file, -EIO if a
	 * codec fails to decompress its own output, -ENOMEM or the -errno
	 * of a failed read or lseek (the totals then leave the file out).
	 * Holes (SEEK_DATA/SEEK_HOLE) are skipped. Files flagged nodatacow
	 * (chattr +C) are predicted raw under every setting, nocompress
	 * (chattr +m) ones under compress= only, as the kernel does (as
	 * written; see delta below).
	 * Whether a file was ever fallocated (which also stops
	 * compression) is not looked at. A file's pages are dropped from
	 * the page cache behind the reads and at the end
	 * (POSIX_FADV_DONTNEED), unless the whole file was cached before
	 * (cachestat, Linux 6.5+, or a read that did not have to wait).
	 * cached: NULL, or what ahead() said of file f.
	 * Never writes. delta is NULL, or delta[f] is NULL or 6n values:
	 * setting i's disk, uncompressed and input for file f alone at 3i,
	 * 3i + 1 and 3i + 2 (as in est_result), as a copy would write it
	 * (the fresh copy: the totals); at EST_WRITTEN(n) + 3i and + 3i + 1
	 * disk and uncompressed as the file is written now (the same
	 * layout), and at + 3i + 2 disk as written in one go (what
	 * defragment writes: the same but for inl below).  They differ only where
	 * a copy is not the file written again: a copy is a new inode,
	 * without the file's inode flags (est_raw_flags()), and cp writes a
	 * file with as many blocks as its size needs (preallocated extents
	 * count) whole, its holes and preallocated ranges as zeros
	 * (coreutils copy.c, infer_scantype()), another without its holes
	 * and its blocks of zeros (enum est_runs, estimate/internal.h);
	 * such a file is read twice.  inl: NULL, or per file 0 or the
	 * length (at most a sector, less than its size) of an inline extent
	 * the file holds at offset 0: written when the file was that long
	 * and kept since the file grew (a fallocate or writes past the first
	 * sector; a truncate that grows a file converts the extent), so as
	 * written that part is estimated as a file of its own (inline where
	 * the setting allows), the rest of its data runs past the first
	 * sector after it.  Files of 512 KiB or less
	 * are estimated together, each setting over all of them in turn,
	 * which keeps one codec's tables in the caches at a time. Returns
	 * 0, or -ENOMEM when it stopped (err[f] of the files not done is
	 * -ENOMEM too).
	 *
	 * Some compressed pieces are kept to be decompressed later,
	 * together (the decompress figure); merge() and get_result()
	 * decompress what is left, on the calling thread.
	 *
	 * weight: NULL (1 each), or per file what its codec bytes and time
	 * count for in the speed figures (a sampled unit's 1 / its
	 * probability, so that a sample's figures are the files' it
	 * stands for; 0: none; less than 0 or NaN: err[f] -EINVAL).  The
	 * sizes never depend on it.
	 */
	int (*files)(struct est_ctx *ctx, size_t nf, const int *fd,
		     const struct stat *st, const signed char *cached,
		     const uint32_t *inl, const double *weight, int *err,
		     uint64_t *const *delta);

	/*
	 * Before the file open on fd is handed to files(), on any thread
	 * with a ctx of its own: whether its first len bytes are all in the
	 * page cache (1), not (0: then up to 2 MiB of them are asked for,
	 * POSIX_FADV_WILLNEED, nothing waits; *asked says how much), or it
	 * can't be told (-1: no cachestat(); nothing started).  files()
	 * takes the answer in cached[f] (NULL, or -1 for a file not asked
	 * about: it finds out itself) for its page-cache policy, which the
	 * read started here would otherwise fool.
	 */
	int (*ahead)(struct est_ctx *ctx, int fd, uint64_t len,
		     uint64_t *asked);

	/*
	 * Estimate one part of a large file alone, as the kernel writes it
	 * as part of the whole file: [off, off + len) with off a multiple of
	 * 512 KiB (an async chunk of the dirty range that starts at the
	 * 128 MiB boundary below off; compress= decides that range from its
	 * first 128 KiB, which is read too when off is not that boundary)
	 * and len at most 512 KiB.  Assumes no earlier part of the file set
	 * the inode's NOCOMPRESS flag (compress= only; nocompress_at() finds
	 * where one does).  Holes: each run of data in the part starts a
	 * range of its own.  delta: 3n values as the first half of files()'
	 * but as the file is written now (its inode flags kept), input being
	 * the part's length; added to the totals (the speeds), not counted as a file.
	 * weight: as files()' for the part (at least 0).
	 * nocomp: NULL or n flags, set for the settings under which this
	 * part sets NOCOMPRESS.  Returns 0, -EINVAL (not a regular file, a
	 * bad part or weight), or a file's error as for files().
	 */
	int (*part)(struct est_ctx *ctx, int fd, const struct stat *st,
		    uint64_t off, uint64_t len, double weight, uint64_t *delta,
		    bool *nocomp);

	/*
	 * Where the file's NOCOMPRESS flag gets set: for each compress=
	 * setting i, at[i] is the offset of the first 512 KiB chunk of the
	 * file, written from its start, in which a piece passes the
	 * heuristic and fails to compress (the rest of the file is then
	 * raw), searched in [0, limit[i]) (0: setting i not searched);
	 * UINT64_MAX when none there, and always for compress-force=
	 * settings, files flagged nodatacow or nocompress, and sparse files
	 * (not followed).  Reads and compresses only under the settings
	 * searched and not yet decided, and stops when all are.  Nothing is
	 * added to the totals, the speed figures included (weight 0: no
	 * unit's data).  Returns 0, -EINVAL (not a regular file) or a file's
	 * error as for files().
	 */
	int (*nocompress_at)(struct est_ctx *ctx, int fd,
			     const struct stat *st, const uint64_t *limit,
			     uint64_t *at);

	/*
	 * Estimate a file as written in steps: the nw writes w[] in the
	 * order given, each [start, end) (clipped to the file's size) a
	 * dirty range of its own (holes in it split it, as in files()),
	 * the inode's NOCOMPRESS flag carried from one write to the next
	 * as the kernel carries it (compress= only).  gdelta holds 3n values
	 * per group (ng groups): group g's setting i disk, uncompressed and
	 * input at 3n * g + 3i...  Nothing is added to the totals but codec
	 * time.  w[] may be some of a file's writes (a sample's part): of
	 * the page cache only what they span is dropped, where the file was
	 * not all cached.  Returns 0, -EINVAL (not a regular file, a group
	 * out of range) or a file's error as for files().
	 */
	int (*writes)(struct est_ctx *ctx, int fd, const struct stat *st,
		      const struct est_write *w, size_t nw, size_t ng,
		      uint64_t *gdelta);

	/*
	 * Add the totals of src to dst, after decompressing what src kept.
	 * Returns 0, -EINVAL if the two were not created with the same
	 * settings and sector size, or -EIO if a piece src kept did not
	 * decompress to its input.
	 */
	int (*merge)(struct est_ctx *dst, struct est_ctx *src);

	/*
	 * Copy out the totals of setting i (0 <= i < n), after decompressing
	 * what ctx kept; zeros if i is out of range.
	 */
	void (*get_result)(struct est_ctx *ctx, size_t i,
			   struct est_result *out);

	/*
	 * --levels: a context (one thread's) that tells which levels wrote a
	 * compressed extent, by compressing its data again at each level as
	 * the kernel does and comparing the bytes.  sectorsize as create()'s.
	 * NULL with errno.
	 */
	struct est_lvl *(*lvl_create)(uint32_t sectorsize);
	void (*lvl_free)(struct est_lvl *lv);

	/*
	 * The extent's bytes as stored, enc (n bytes, as
	 * BTRFS_IOC_ENCODED_READ returns them: sector padded), of algorithm
	 * alg (EST_ZSTD or EST_ZLIB) and unencoded length ulen: *mask gets
	 * EST_LEVEL_BIT(l) for each level l whose output is the stored
	 * bytes (every level is tried: several may write the same bytes), 0 when none is (a codec version other than the kernel's:
	 * never a guess).  Returns 0, -EIO when enc does not decompress (to
	 * at most ulen bytes), -EINVAL (alg), -ENOMEM.
	 */
	int (*lvl_match)(struct est_lvl *lv, enum est_alg alg,
			 const uint8_t *enc, size_t n, uint64_t ulen,
			 uint64_t *mask);

	/* The library and version that compresses for lvl_match() under
	 * alg ("libzstd 1.5.4", "zlib 1.2.13"), for what the program says
	 * of extents no level reproduced. */
	const char *(*lvl_codec)(enum est_alg alg);
};

#endif
