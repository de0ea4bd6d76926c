/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the estimator plugin, shared by the files of estimate/ and
 * the unit tests; the program sees only estimate.h's struct est_ops.
 *
 *   ctx.c        the est_ctx: files in (small ones batched), totals out,
 *                and the struct est_ops table the plugin exports
 *   writepath.c  the btrfs write path: ranges, chunks, pieces, and what is
 *                stored compressed, raw or inline (pure: bytes in, bytes
 *                predicted out)
 *   read.c       reading files: holes, inode flags, page-cache policy
 *   measure.c    codec timing and the decompress-and-compare check
 *   worker.c     one thread's codec workspaces and buffers
 *   heuristic.c  btrfs_compress_heuristic()
 *   zstd.c lzo.c zlib.c   the codecs, framed as the kernel frames them
 *   levels.c     --levels: the level that wrote an extent
 */
#ifndef COMPSIZE_EST_INTERNAL_H
#define COMPSIZE_EST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include "estimate/estimate.h"

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

/* A zstd workspace's level, changed (levels.c tries one workspace at
 * every level; it is sized for the level it was created with and grows
 * itself where a level needs more). */
void est_zstd_ws_level(void *ws, int level);

/* est_zlib_ops.compress() that gives up (0) as soon as its output is not
 * the first bytes of expect (elen bytes): levels.c's comparison. */
long est_zlib_compress_as(void *ws, const uint8_t *in, size_t len,
			  uint8_t *out, size_t cap, const uint8_t *expect,
			  size_t elen);

const struct est_codec_ops *est_codec(enum est_alg alg);

/*
 * btrfs_compress_heuristic() on file range [start, end] (end inclusive, as
 * the kernel passes it). buf holds the file from offset buf_off (page
 * aligned) through the end of the page containing end, zero padded past EOF.
 * Returns true for "compress".
 */
bool est_heuristic(const uint8_t *buf, uint64_t buf_off, uint64_t start,
		   uint64_t end);

/* What one setting predicts for a run of data.  The codec's bytes and
 * times are weighed (est_worker.weight): a sample's units count as the
 * share of the files they stand for. */
struct est_acct {
	uint64_t disk;
	uint64_t ram;
	double comp_in;		/* bytes given to the codec */
	double comp_ns;
	double dec_out;		/* bytes decompressed back */
	double dec_ns;
};

#define EST_MEMO 8

/* Heuristic answers for one chunk: every compress= setting asks the
 * same questions of the same bytes. */
struct est_memo {
	unsigned n;
	uint64_t start[EST_MEMO], end[EST_MEMO];
	bool v[EST_MEMO];
};

/* Per file and setting: the sticky BTRFS_INODE_NOCOMPRESS flag. */
struct est_fstate {
	bool nocompress;
	uint64_t nocomp_at, nocomp_end;	/* the piece that set it */
	bool raw;		/* whole current dirty range written raw */
};

/* Compressed pieces kept to decompress and check (measure.c). */
#define EST_DBATCH_MAX 32
struct est_dbatch {
	uint8_t *in;			/* their inputs, back to back */
	uint8_t *out;			/* their compressed bytes */
	size_t in_used, out_used;
	unsigned n;
	uint32_t len[EST_DBATCH_MAX], clen[EST_DBATCH_MAX];
	double wt[EST_DBATCH_MAX];	/* each one's weight in the figure */
};

/* Per-thread state: one codec workspace per setting plus buffers. */
struct est_worker {
	size_t n;
	const struct est_setting *s;	/* the owning ctx's copy */
	uint32_t sectorsize;
	void **ws;			/* one codec workspace per setting */
	uint8_t *chunk;			/* one async chunk, sector padded */
	uint8_t *out;			/* one compressed piece */
	/* the write path: the chunk being estimated (chunk, or a file of
	 * a batch) and its heuristic answers */
	const uint8_t *data;
	struct est_memo *memo;
	/* est_writes(): the part of a write being estimated lies on the
	 * range, chunk and piece grid of a write that started at grid
	 * (parts of it overwritten since): chunks and pieces end on that
	 * grid, and only a range that starts on it decides compress= */
	bool gridded;
	uint64_t grid;
	/* est_writes(): EST_WRITE_INDEP, each piece on its own */
	bool indep;
	/* est_writes(): EST_WRITE_BEGIN, the range decision is taken at
	 * the first chunk even off the grid */
	bool begin;
	struct est_memo memo_own;	/* chunk's */
	/* measure.c: codec time in the chunk being estimated, and the
	 * pieces kept to check */
	uint8_t *back;			/* one piece decompressed back */
	uint32_t *verify;		/* per setting: pieces until the next check */
	uint64_t *vfirst;		/* per setting: bytes kept, every piece */
	struct est_dbatch *dbatch;	/* per setting: pieces kept to check */
	double *cwall;			/* per setting: compress ns, weighed */
	/* what the codec work of the data being estimated counts for in
	 * the speed figures: 1, a sampled unit's 1 / its probability, 0
	 * for data read only to follow a file's state (nocompress_at()) */
	double weight;
	bool timing;			/* a codec ran: the clocks below are set */
	uint64_t t_cpu0, t_wall0;
	/* read.c: the page-cache policy of the file being read */
	bool keep_cache;		/* the file was all cached before */
	uint64_t drop_from;		/* file offset not yet dropped */
	bool no_cachestat;		/* the kernel has no cachestat() */
	bool no_nowait;			/* preadv2(RWF_NOWAIT) refused */
	/* est_file_runs(): a block of zeros was read (EST_AS_WRITTEN of a
	 * file not est_dense()); the copy's scan buffer (EST_COPY_RUNS) */
	bool zeros;
	uint8_t *scan;
	/* est_compress(): per setting, what a piece of EST_PIECE_MAX zeros
	 * compresses to (0: not known yet); a copy of a preallocated file
	 * is mostly such pieces */
	long *zclen;
};

/* Whether len bytes at p are all zero. */
static inline bool est_all_zero(const uint8_t *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

static inline uint64_t est_round_up(uint64_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* ---- levels.c: est_ops.lvl_create(), lvl_free(), lvl_match() ---- */

struct est_lvl *est_lvl_create(uint32_t sectorsize);
void est_lvl_free(struct est_lvl *lv);
int est_lvl_match(struct est_lvl *lv, enum est_alg alg, const uint8_t *enc,
		  size_t n, uint64_t ulen, uint64_t *mask);
const char *est_lvl_codec(enum est_alg alg);

/* ---- worker.c ---- */

/* Returns NULL on ENOMEM or an unknown algorithm. */
struct est_worker *est_worker_create(const struct est_setting *s, size_t n,
				     uint32_t sectorsize);
void est_worker_free(struct est_worker *w);

/* ---- writepath.c ---- */

/*
 * Fill w->chunk with file bytes [cs, min(ce, isize)) from src, zero padded
 * to ce. Returns 0 or -errno.
 */
typedef int est_load_fn(struct est_worker *w, const void *src, uint64_t cs,
			uint64_t ce, uint64_t isize);

/*
 * Account data run [start, end) (end is the hole start or EOF) of a file
 * of isize bytes for every setting, its chunks loaded with load(src):
 * settings with raw (NULL, or n flags) set are charged raw. fst and acct
 * hold n entries. Returns 0 or -errno.
 */
int est_run(struct est_worker *w, est_load_fn *load, const void *src,
	    uint64_t start, uint64_t end, uint64_t isize,
	    struct est_fstate *fst, const bool *raw, struct est_acct *acct);

/*
 * The pieces of est_run(), for a caller that walks the chunks itself
 * (ctx.c's parts of a file).  est_load_chunk() loads chunk [cs, ce) with
 * load(src) as est_run() does; est_range_begin() starts dirty range
 * [rs, re) under setting i (its compress= decision); est_chunk() is
 * compress_file_range() on the loaded chunk; est_raw() charges [start,
 * end) written raw.  Return 0 or -errno.
 */
int est_load_chunk(struct est_worker *w, est_load_fn *load, const void *src,
		   uint64_t cs, uint64_t ce, uint64_t isize);
void est_range_begin(struct est_worker *w, size_t i, struct est_fstate *fst,
		     uint64_t rs, uint64_t re);
int est_chunk(struct est_worker *w, size_t i, struct est_fstate *fst,
	      uint64_t cs, uint64_t ce, uint64_t isize, struct est_acct *acct);
void est_raw(const struct est_worker *w, uint64_t start, uint64_t end,
	     uint64_t isize, struct est_acct *acct);

/*
 * A whole file of one chunk or less (isize bytes at data, zero padded to
 * a sector, no holes, no inode flags: est_files() batches no other)
 * under setting i alone, its heuristic answers in memo. Returns 0 or
 * -errno.
 */
int est_small(struct est_worker *w, size_t i, const uint8_t *data,
	      struct est_memo *memo, uint64_t isize,
	      struct est_fstate *fst, struct est_acct *acct);

/*
 * Account a whole file held in memory (no holes, no inode flags) under
 * setting i, adding to *acct. For tests and the fuzzer. Returns 0 or
 * -errno.
 */
int est_buffer(struct est_worker *w, size_t i, const uint8_t *data,
	       uint64_t size, struct est_acct *acct);

/* ---- measure.c ---- */

/*
 * Setting i's codec on len bytes at in, into w->out (cap bytes): as
 * est_codec_ops.compress(), timed, its input counted in acct (setting
 * i's), and one piece in so many kept to be decompressed and compared
 * later. Returns the compressed length, 0, or -errno.
 */
long est_compress(struct est_worker *w, size_t i, const uint8_t *in,
		  size_t len, size_t cap, struct est_acct *acct);

/* The codec time of the chunk just estimated, as CPU time, into acct
 * (one per setting). */
void est_measure_end(struct est_worker *w, struct est_acct *acct);

/*
 * Decompress and compare every setting's kept pieces, into acct (one per
 * setting), and settle the time. Returns 0, -EIO if a piece came back
 * different, or a codec's error.
 */
int est_check_kept(struct est_worker *w, struct est_acct *acct);

/* ---- read.c ---- */

/* raw[i] (n flags): setting i stores the file raw whatever it holds,
 * from the inode flags. */
void est_raw_flags(const struct est_worker *w, int fd, bool *raw);

/* Whether the first len bytes of fd are all in the page cache (false
 * when it can't be told). */
bool est_all_cached(struct est_worker *w, int fd, uint64_t len);

/*
 * Before a file is read: whether its first len bytes are all in the page
 * cache (1), not (0), or it can't be told (-1: no cachestat()); when not,
 * the kernel is asked to start reading up to EST_AHEAD_FILE of them
 * (POSIX_FADV_WILLNEED), so that the reads of the files after the one
 * being estimated are in flight meanwhile.  Returns the bytes asked for.
 */
uint64_t est_ahead(struct est_worker *w, int fd, uint64_t len, int *cached);

/* The most est_ahead() asks for of one file, and of the files ahead. */
#define EST_AHEAD_FILE		(2u * 1024 * 1024)
#define EST_AHEAD_MAX		(16u * 1024 * 1024)
#define EST_AHEAD_FILES		256

/*
 * Read a file of one chunk or less (isize bytes) whole into buf; sets
 * *keep_cache, to cached when that is 0 or 1 (est_ahead()'s answer),
 * else by looking. Returns 1 when it is one data run [0, isize), 0 when
 * the caller must look for holes (est_file_runs()), or -errno.
 */
int est_preload(struct est_worker *w, int fd, uint64_t isize, uint8_t *buf,
		int cached, bool *keep_cache);

/* How est_file_runs() reads a file: as written, or as cp writes a copy. */
enum est_runs {
	/* its data runs (SEEK_HOLE, SEEK_DATA), each a dirty range */
	EST_AS_WRITTEN,
	/* one run [0, isize), holes and preallocated ranges read as zeros:
	 * cp of an est_dense() file */
	EST_COPY_WHOLE,
	/* its data runs, each cut where a block of a sector is all zeros
	 * (counted from the run's start, the last one up to EOF included),
	 * which cp leaves a hole too: cp (coreutils 9.1, copy.c
	 * sparse_copy() under --sparse=auto) of a file that is not */
	EST_COPY_RUNS,
};

/*
 * Account file fd of isize bytes (more than 0) into acct (n), read chunk
 * by chunk as how says; under EST_AS_WRITTEN, *holes (NULL or) is set
 * when its runs are not [0, isize) alone, and when not est_dense(st)
 * w->zeros when a block of a sector read is all zeros.  w->keep_cache
 * must be set. Returns 0 or -errno.
 */
int est_file_runs(struct est_worker *w, int fd, const struct stat *st,
		  enum est_runs how, struct est_fstate *fst, const bool *raw,
		  struct est_acct *acct, bool *holes);

/*
 * Whether cp writes the file whole, its holes and preallocated extents as
 * zeros, rather than one data run at a time: cp -a looks for holes
 * (SEEK_DATA, SEEK_HOLE) only in a file with fewer blocks than its size
 * needs (coreutils copy.c, infer_scantype()), and preallocated extents
 * count as blocks.
 */
static inline bool est_dense(const struct stat *st)
{
	return (uint64_t)st->st_blocks >= (uint64_t)st->st_size / 512;
}

/* est_load_fn for a file held in memory at src. */
int est_load_mem(struct est_worker *w, const void *src, uint64_t cs,
		 uint64_t ce, uint64_t isize);

/* est_load_fn for the file open on *(const int *)src. */
int est_load_fd(struct est_worker *w, const void *src, uint64_t cs,
		uint64_t ce, uint64_t isize);

/*
 * est_file_runs() for [off, end) of the file alone: each run of data in
 * it (SEEK_DATA/SEEK_HOLE) as a dirty range of its own. Returns 0 or
 * -errno.
 */
int est_runs_between(struct est_worker *w, int fd, uint64_t off,
		     uint64_t end, uint64_t isize, struct est_fstate *fst,
		     const bool *raw, struct est_acct *acct);

/* The file has been estimated: drop its pages unless keep_cache. */
void est_read_done(int fd, bool keep_cache);

/* [off, off + len) of the file has been read: drop those pages unless
 * keep_cache. */
void est_read_done_range(int fd, bool keep_cache, uint64_t off, uint64_t len);

#endif
