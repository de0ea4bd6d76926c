// SPDX-License-Identifier: GPL-2.0
/*
 * read: how the estimator reads a file.  Data runs between holes
 * (SEEK_DATA/SEEK_HOLE), the inode flags that stop compression, and the
 * page-cache policy: compsize reads a whole tree once, so what it reads is
 * dropped behind it, unless the file was all cached before (someone's
 * working set).  Never writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include "estimate/plugin/internal.h"

/* Page cache dropped behind the reads in steps of this much. */
#define EST_DROP_BEHIND (8u * 1024 * 1024)

/*
 * cachestat(2) (Linux 6.5): whether [off, off + len) of fd is all in the
 * page cache.  0 when it is not or can't be told.  The uapi headers here
 * may predate it: the call is made by number, which is the same on every
 * architecture (the unified syscall table).
 */
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif
struct est_cachestat_range {
	uint64_t off, len;
};
struct est_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

bool est_all_cached(struct est_worker *w, int fd, uint64_t len)
{
	struct est_cachestat_range range = { 0, len };
	struct est_cachestat cs;

	if (w->no_cachestat || !len)
		return false;
	if (syscall(SYS_cachestat, fd, &range, &cs, 0)) {
		w->no_cachestat = errno == ENOSYS;
		return false;
	}
	return cs.nr_cache >= (len + EST_PAGE_SIZE - 1) / EST_PAGE_SIZE;
}

uint64_t est_ahead(struct est_worker *w, int fd, uint64_t len, int *cached)
{
	struct est_cachestat_range range = { 0, len };
	struct est_cachestat cs;

	*cached = -1;
	if (w->no_cachestat || !len)
		return 0;
	if (syscall(SYS_cachestat, fd, &range, &cs, 0)) {
		w->no_cachestat = errno == ENOSYS;
		return 0;
	}
	*cached = cs.nr_cache >= (len + EST_PAGE_SIZE - 1) / EST_PAGE_SIZE;
	if (*cached)
		return 0;
	/* Asynchronous: the pages are allocated and the reads submitted
	 * (page_cache_ra_unbounded()), nothing waits for them. */
	if (len > EST_AHEAD_FILE)
		len = EST_AHEAD_FILE;
	posix_fadvise(fd, 0, len, POSIX_FADV_WILLNEED);
	return len;
}

/*
 * Read len bytes of fd at off into buf, the first got of them already
 * there: until all are, or end of file.  Returns the bytes in buf, or
 * -errno.
 */
static ssize_t est_pread(int fd, uint8_t *buf, uint64_t len, uint64_t off,
			 uint64_t got)
{
	ssize_t r;

	while (got < len) {
		r = pread(fd, buf + got, len - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += r;
	}
	return got;
}

/*
 * est_load_fn for the file open on *(const int *)src: what is read is
 * dropped from the page cache again, unless the whole file was cached
 * before (w->keep_cache): then it is someone's working set, and dropping
 * it cost time as well.  Per file, not per chunk: the kernel's readahead
 * for one chunk would make the next look cached.
 */
int est_load_fd(struct est_worker *w, const void *src, uint64_t cs,
		uint64_t ce, uint64_t isize)
{
	uint64_t want = (isize < ce ? isize : ce) - cs;
	int fd = *(const int *)src;
	ssize_t r;

	/* short if the file shrank under us: what was read is estimated */
	r = est_pread(fd, w->chunk, want, cs, 0);
	if (r < 0)
		return (int)r;
	memset(w->chunk + r, 0, ce - cs - r);
	/* Pages just read sit in per-CPU LRU batches where DONTNEED can't
	 * take them: drop what is a few chunks behind, the rest at the end
	 * of the file (est_read_done()). */
	if (!w->keep_cache && cs >= w->drop_from + EST_DROP_BEHIND) {
		posix_fadvise(fd, w->drop_from, cs - w->drop_from,
			      POSIX_FADV_DONTNEED);
		w->drop_from = cs;
	}
	return 0;
}

/*
 * Inode flags that stop compression, read with FS_IOC_GETFLAGS. nodatacow
 * (chattr +C) fails btrfs_inode_can_compress() for every setting;
 * nocompress (chattr +m, BTRFS_INODE_NOCOMPRESS) stops compress= but
 * inode_need_compress() lets compress-force= override it. A filesystem
 * without the ioctl reports nothing, which is fine.
 */
#define EST_NEVER	1
#define EST_NOT_UNFORCED 2

/*
 * Whether the file holds compressed data (FIEMAP's ENCODED flag), looking
 * at its first extents (FIEMAP never starts writeback without
 * FIEMAP_FLAG_SYNC).
 */
static bool est_has_encoded(int fd)
{
	enum { N = 64, ROUNDS = 8 };
	/* struct fiemap ends in a flexible array: room for N after it */
	struct fiemap *fm = malloc(sizeof(*fm) + N * sizeof(fm->fm_extents[0]));
	struct fiemap_extent *fe;
	uint64_t start = 0;
	unsigned r, i;
	bool found = false;

	if (!fm)
		return false;
	fe = fm->fm_extents;
	for (r = 0; r < ROUNDS; r++) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_extent_count = N;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) || !fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++)
			if (fe[i].fe_flags & (FIEMAP_EXTENT_ENCODED |
					      FIEMAP_EXTENT_LAST))
				break;
		if (i < fm->fm_mapped_extents) {
			found = !!(fe[i].fe_flags & FIEMAP_EXTENT_ENCODED);
			break;
		}
		i = fm->fm_mapped_extents - 1;
		start = fe[i].fe_logical + fe[i].fe_length;
	}
	free(fm);
	return found;
}

static int est_inode_flags(int fd)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return 0;
	if (flags & FS_NOCOW_FL)
		return EST_NEVER;
	/* BTRFS_INODE_NOCOMPRESS is also what the kernel sets by itself when
	 * a piece fails to compress (inode.c mark_incompressible()): a file
	 * with compressed data got it while it was written, after that
	 * data, and the write path emulated from the start sets it where
	 * each setting would.  Without: set before it was written
	 * (chattr +m), or at its first piece; written raw either way. */
	if ((flags & FS_NOCOMP_FL) && !est_has_encoded(fd))
		return EST_NOT_UNFORCED;
	return 0;
}

/*
 * Read a file of one chunk or less whole into buf (isize bytes).  Unless
 * est_ahead() already told (cached 0 or 1), try first without waiting
 * (RWF_NOWAIT): if all of it comes back that way it was all in the page
 * cache, which sets *keep_cache as est_all_cached() would, without that
 * system call.  Then look for holes in what was read
 * instead of asking: a hole reads as zeros, so when no sector of the file
 * is all zeros it has none and is one data run [0, isize), without the
 * SEEK_HOLE (each a tree search; most files of a tree are small).
 * Returns 1 then; 0 when the caller must look for holes itself
 * (*keep_cache set either way); or -errno.
 *
 * Short of the whole file, the file counts as not all cached, and that is
 * not always so: NOWAIT also stops at a cached folio that carries the
 * readahead mark (seen on about one file in a hundred just read by cat),
 * and those get dropped.  cachestat() after the short read can't tell either:
 * the refused read has already started readahead of the rest.
 */
int est_preload(struct est_worker *w, int fd, uint64_t isize, uint8_t *buf,
		int cached, bool *keep_cache)
{
	const uint32_t ss = w->sectorsize;
	uint64_t got = 0, off;
	ssize_t r;

	*keep_cache = cached == 1;
	if (cached < 0 && !w->no_nowait) {
		struct iovec iov = { buf, isize };

		r = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
		if (r >= 0)
			got = r;
		else if (errno == EOPNOTSUPP || errno == EINVAL ||
			 errno == ENOSYS)
			w->no_nowait = true;
		else if (errno != EAGAIN && errno != EINTR)
			return -errno;
		*keep_cache = got == isize;
	}
	if (cached < 0 && w->no_nowait)
		*keep_cache = est_all_cached(w, fd, isize);
	r = est_pread(fd, buf, isize, 0, got);
	if (r < 0)
		return (int)r;
	/* shrunk under us: the hole check decides */
	if ((uint64_t)r < isize)
		return 0;
	for (off = 0; off < isize; off += ss)
		if (est_all_zero(buf + off,
				 isize - off < ss ? isize - off : ss))
			return 0;
	return 1;
}

/*
 * The first data run: [0, hole) if one SEEK_HOLE says the file starts with
 * data (*data = 0), which for a file without holes is the only run.  The
 * same answer as SEEK_DATA then SEEK_HOLE from 0, with one system call
 * (each is a tree search on btrfs).  Returns 0 when the caller
 * must look with SEEK_DATA (a hole at 0, or an error to be told apart).
 */
static uint64_t est_first_run(int fd, uint64_t isize)
{
	off_t h = lseek(fd, 0, SEEK_HOLE);

	if (h <= 0)
		return 0;
	return (uint64_t)h < isize ? (uint64_t)h : isize;
}

/* The length of the next block of a sector at off in buf (len bytes). */
static size_t est_block(const struct est_worker *w, uint64_t off,
			uint64_t len)
{
	return len - off < w->sectorsize ? len - off : w->sectorsize;
}

/* est_load_fd(), and w->zeros set when a block of a sector it read is
 * all zeros (chunks start on a sector). */
static int est_load_fd_zeros(struct est_worker *w, const void *src,
			     uint64_t cs, uint64_t ce, uint64_t isize)
{
	uint64_t len = (isize < ce ? isize : ce) - cs, off;
	int ret = est_load_fd(w, src, cs, ce, isize);

	for (off = 0; !ret && !w->zeros && off < len; off += w->sectorsize)
		w->zeros = est_all_zero(w->chunk + off, est_block(w, off, len));
	return ret;
}

/*
 * est_run() for each stretch of the data run [data, hole) between blocks
 * of zeros (EST_COPY_RUNS), looked at a chunk at a time in w->scan, which
 * est_run() does not touch.
 */
static int est_run_copy(struct est_worker *w, int fd, uint64_t data,
			uint64_t hole, uint64_t isize, struct est_fstate *fst,
			const bool *raw, struct est_acct *acct)
{
	uint64_t pos, at = UINT64_MAX, win, off;
	ssize_t r;
	int ret;

	if (!w->scan && !(w->scan = malloc(EST_CHUNK_SIZE)))
		return -ENOMEM;
	for (pos = data; pos < hole; pos += win) {
		win = hole - pos < EST_CHUNK_SIZE ? hole - pos : EST_CHUNK_SIZE;
		r = est_pread(fd, w->scan, win, pos, 0);
		if (r < 0)
			return (int)r;
		if ((uint64_t)r < win)
			hole = pos + r;		/* shrunk under us */
		for (off = 0; off < (uint64_t)r; off += w->sectorsize) {
			if (!est_all_zero(w->scan + off, est_block(w, off, r))) {
				if (at == UINT64_MAX)
					at = pos + off;
				continue;
			}
			if (at == UINT64_MAX)
				continue;
			ret = est_run(w, est_load_fd, &fd, at, pos + off, isize,
				      fst, raw, acct);
			if (ret)
				return ret;
			at = UINT64_MAX;
		}
	}
	if (at == UINT64_MAX)
		return 0;
	return est_run(w, est_load_fd, &fd, at, hole, isize, fst, raw, acct);
}

/* One data run [data, hole) of est_file_runs(). */
static int est_file_run(struct est_worker *w, int fd, enum est_runs how,
			uint64_t data, uint64_t hole, uint64_t isize,
			struct est_fstate *fst, const bool *raw,
			struct est_acct *acct, bool zeros)
{
	if (how == EST_COPY_RUNS)
		return est_run_copy(w, fd, data, hole, isize, fst, raw, acct);
	return est_run(w, zeros ? est_load_fd_zeros : est_load_fd, &fd, data,
		       hole, isize, fst, raw, acct);
}

int est_file_runs(struct est_worker *w, int fd, const struct stat *st,
		  enum est_runs how, struct est_fstate *fst, const bool *raw,
		  struct est_acct *acct, bool *holes)
{
	const uint64_t isize = st->st_size;
	const bool zeros = how == EST_AS_WRITTEN && !est_dense(st);
	uint64_t pos = 0, data, hole;
	int ret;

	w->drop_from = 0;
	w->zeros = false;
	if (how == EST_COPY_WHOLE)
		return est_run(w, est_load_fd, &fd, 0, isize, isize, fst, raw,
			       acct);
	hole = est_first_run(fd, isize);
	if (holes)
		*holes = hole < isize;
	if (hole) {
		ret = est_file_run(w, fd, how, 0, hole, isize, fst, raw, acct,
				   zeros);
		if (ret)
			return ret;
		pos = est_round_up(hole, w->sectorsize);
	}
	while (pos < isize) {
		off_t d = lseek(fd, pos, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break;		/* only a hole up to EOF */
		if (d < 0 && pos == 0) {
			/* no SEEK_DATA here: treat the file as all data */
			data = 0;
			hole = isize;
		} else if (d < 0) {
			return -errno;
		} else {
			h = lseek(fd, d, SEEK_HOLE);
			if (h < 0)
				return -errno;
			data = d;
			hole = (uint64_t)h < isize ? (uint64_t)h : isize;
		}
		if (data >= isize)
			break;
		/* holes are sector aligned on the target; be safe anyway */
		data -= data % w->sectorsize;
		ret = est_file_run(w, fd, how, data, hole, isize, fst, raw,
				   acct, zeros);
		if (ret)
			return ret;
		pos = est_round_up(hole, w->sectorsize);
	}
	return 0;
}

void est_raw_flags(const struct est_worker *w, int fd, bool *raw)
{
	int flags = est_inode_flags(fd);
	size_t i;

	for (i = 0; i < w->n; i++)
		raw[i] = flags == EST_NEVER ||
			 (flags == EST_NOT_UNFORCED && !w->s[i].force);
}

void est_read_done(int fd, bool keep_cache)
{
	if (!keep_cache)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

void est_read_done_range(int fd, bool keep_cache, uint64_t off, uint64_t len)
{
	if (!keep_cache)
		posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
}

int est_runs_between(struct est_worker *w, int fd, uint64_t off,
		     uint64_t end, uint64_t isize, struct est_fstate *fst,
		     const bool *raw, struct est_acct *acct)
{
	const uint32_t ss = w->sectorsize;
	uint64_t pos, data, hole;
	int ret;

	for (pos = off; pos < end; pos = est_round_up(hole, ss)) {
		off_t d = lseek(fd, pos, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break;
		if (d < 0)
			return -errno;
		if ((uint64_t)d >= end)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0)
			return -errno;
		data = d - d % ss;
		hole = (uint64_t)h < end ? (uint64_t)h : end;
		ret = est_run(w, est_load_fd, &fd, data, hole, isize, fst, raw,
			      acct);
		if (ret)
			return ret;
	}
	return 0;
}
