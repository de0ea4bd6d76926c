// SPDX-License-Identifier: GPL-2.0
/*
 * estimate: btrfs write-path emulation for `compsize --estimate`.
 *
 * A file is cut the way writeback cuts it (fs/btrfs/inode.c): dirty ranges
 * of at most 128 MiB per data run (btrfs_run_delalloc_range()), 512 KiB
 * async chunks (run_delalloc_compressed()), pieces of at most 128 KiB
 * (compress_file_range()). Each piece goes through the same codec, level,
 * parameters and framing as the kernel's; the kernel's rules then decide
 * what is stored compressed, raw or inline.
 */
#include <errno.h>
#include <string.h>
#include "estimate/plugin/internal.h"

/* est_heuristic() on the loaded chunk (which starts at cs), remembered. */
static bool est_heur(struct est_worker *w, uint64_t cs, uint64_t start,
		     uint64_t end)
{
	struct est_memo *m = w->memo;
	unsigned k;
	bool v;

	for (k = 0; k < m->n; k++)
		if (m->start[k] == start && m->end[k] == end)
			return m->v[k];
	v = est_heuristic(w->data, cs, start, end);
	if (m->n < EST_MEMO) {
		m->start[m->n] = start;
		m->end[m->n] = end;
		m->v[m->n++] = v;
	}
	return v;
}

static uint32_t est_max_inline(uint32_t sectorsize)
{
	return EST_MAX_INLINE < sectorsize ? EST_MAX_INLINE : sectorsize;
}

/*
 * cow_file_range() for [start, end) written raw, end sector aligned:
 * inline if it is the whole file, starts at 0, is smaller than a sector
 * and fits max_inline (can_cow_file_range_inline()); else raw extents.
 */
void est_raw(const struct est_worker *w, uint64_t start, uint64_t end,
	     uint64_t isize, struct est_acct *acct)
{
	if (start == 0 && isize < w->sectorsize &&
	    isize <= est_max_inline(w->sectorsize) && end >= isize) {
		acct->disk += isize;
		acct->ram += isize;
		return;
	}
	acct->disk += end - start;
	acct->ram += end - start;
}

/*
 * EST_WRITE_INDEP: each piece of [cs, ce) compressed on its own, costing
 * the lesser of its compressed and its raw sectors (at least one), as a
 * lower bound of what its data costs in any piece the kernel puts it in;
 * its uncompressed bytes count only when compress=' heuristic would let
 * it through (estimate.h).
 */
static int est_chunk_indep(struct est_worker *w, size_t i, uint64_t cs,
			   uint64_t ce, uint64_t isize, struct est_acct *acct)
{
	const uint32_t ss = w->sectorsize;
	uint64_t actual_end = isize < ce ? isize : ce;
	uint64_t p = cs, len, in_r, out_r, cap;
	long clen;

	while (p < actual_end) {
		len = actual_end - p;
		if (w->gridded && (p - w->grid) % EST_PIECE_MAX &&
		    len > EST_PIECE_MAX - (p - w->grid) % EST_PIECE_MAX)
			len = EST_PIECE_MAX - (p - w->grid) % EST_PIECE_MAX;
		if (len > EST_PIECE_MAX)
			len = EST_PIECE_MAX;
		in_r = est_round_up(len, ss);
		out_r = in_r;
		if (len > ss) {
			cap = est_round_up(ce - p, EST_PAGE_SIZE);
			if (cap > EST_OUT_MAX)
				cap = EST_OUT_MAX;
			clen = est_compress(w, i, w->data + (p - cs), len, cap,
					    acct);
			if (clen < 0)
				return (int)clen;
			if (clen > 0 && est_round_up(clen, ss) < out_r)
				out_r = est_round_up(clen, ss);
		}
		acct->disk += out_r;
		if (w->s[i].force ||
		    est_heur(w, cs, p, (ce < p + EST_PIECE_MAX ? ce :
					p + EST_PIECE_MAX) - 1))
			acct->ram += in_r;
		p += in_r;
	}
	return 0;
}

/*
 * compress_file_range() for one async chunk [cs, ce) (ce sector aligned, at
 * most 512 KiB) of a dirty range of a file of size isize. w->data holds
 * the chunk's bytes, zero padded past EOF up to ce.
 */
int est_chunk(struct est_worker *w, size_t i, struct est_fstate *fst,
	      uint64_t cs, uint64_t ce, uint64_t isize, struct est_acct *acct)
{
	const struct est_setting *s = &w->s[i];
	const uint32_t ss = w->sectorsize;
	uint64_t actual_end = isize < ce ? isize : ce;
	uint64_t p = cs;
	long clen;

	if (w->indep)
		return est_chunk_indep(w, i, cs, ce, isize, acct);
	if (fst->raw)
		goto raw;
	while (p < ce) {
		const uint8_t *in = w->data + (p - cs);
		/* the rest of a piece whose start was overwritten since */
		const bool rest = w->gridded && (p - w->grid) % EST_PIECE_MAX;
		uint64_t len, in_r, out_r, cap;

		if (actual_end <= p)
			goto raw;
		len = actual_end - p;
		if (w->gridded && (p - w->grid) % EST_PIECE_MAX &&
		    len > EST_PIECE_MAX - (p - w->grid) % EST_PIECE_MAX) {
			/* the rest of a piece whose start was overwritten */
			len = EST_PIECE_MAX - (p - w->grid) % EST_PIECE_MAX;
			if (len <= ss) {
				est_raw(w, p, p + ss, isize, acct);
				p += ss;
				continue;
			}
		}
		/*
		 * compress_file_range(): a piece of one sector or less saves
		 * nothing, so it is written raw, without NOCOMPRESS, unless
		 * it starts the file and reaches disk_i_size, the one case
		 * that can go inline; data after it (even past a hole, which
		 * btrfs_cont_expand() brings into disk_i_size) puts
		 * disk_i_size past it
		 */
		if (len <= ss && (p > 0 || actual_end < isize))
			goto raw;
		if (len > EST_PIECE_MAX)
			len = EST_PIECE_MAX;
		/* inode_need_compress() per piece, against the chunk end */
		if (!s->force &&
		    (fst->nocompress || !est_heur(w, cs, p, ce - 1)))
			goto raw;

		/* output pages: as many as the chunk has left, at most 32 */
		cap = est_round_up(ce - p, EST_PAGE_SIZE);
		if (cap > EST_OUT_MAX)
			cap = EST_OUT_MAX;
		clen = est_compress(w, i, in, len, cap, acct);
		if (clen < 0)
			return (int)clen;
		/* cow_file_range_inline() before the sector rule */
		if (clen > 0 && p == 0 && isize <= ss && len >= isize &&
		    (uint64_t)clen <= est_max_inline(ss)) {
			acct->disk += clen;
			acct->ram += isize;
			return 0;
		}
		in_r = est_round_up(len, ss);
		out_r = est_round_up(clen, ss);
		/* must save at least one sector, else mark_incompressible */
		if (clen == 0 || out_r + ss > in_r) {
			/* a failure sets NOCOMPRESS, but not in the rest of
			 * a piece: shorter than the piece written, what it
			 * does is not what that piece did (as a piece cut at
			 * its end, EST_WRITE_CUT_END) */
			if (!s->force && !fst->nocompress && !rest) {
				fst->nocompress = true;
				fst->nocomp_at = p;
				fst->nocomp_end = p + len;
			}
			goto raw;
		}
		acct->disk += out_r;
		acct->ram += in_r;
		p += in_r;
	}
	return 0;
raw:
	/* cleanup_and_bail_uncompressed: the rest of the chunk goes raw */
	if (p < ce)
		est_raw(w, p, ce, isize, acct);
	return 0;
}

/* Start a dirty range: btrfs_run_delalloc_range()'s compress decision. */
void est_range_begin(struct est_worker *w, size_t i, struct est_fstate *fst,
		     uint64_t rs, uint64_t re)
{
	const struct est_setting *s = &w->s[i];

	fst->raw = false;
	if (s->force)
		return;
	if (fst->nocompress || !est_heur(w, rs, rs, re - 1))
		fst->raw = true;
}

/* est_load_fn for a file held in memory at src. */
int est_load_mem(struct est_worker *w, const void *src, uint64_t cs,
		 uint64_t ce, uint64_t isize)
{
	uint64_t want = (isize < ce ? isize : ce) - cs;

	memcpy(w->chunk, (const uint8_t *)src + cs, want);
	memset(w->chunk + want, 0, ce - cs - want);
	return 0;
}

int est_load_chunk(struct est_worker *w, est_load_fn *load, const void *src,
		   uint64_t cs, uint64_t ce, uint64_t isize)
{
	w->data = w->chunk;
	w->memo = &w->memo_own;
	w->memo->n = 0;
	return load(w, src, cs, ce, isize);
}

int est_run(struct est_worker *w, est_load_fn *load, const void *src,
	    uint64_t start, uint64_t end, uint64_t isize,
	    struct est_fstate *fst, const bool *raw, struct est_acct *acct)
{
	uint64_t rs, re, cs, ce, aend = est_round_up(end, w->sectorsize);
	size_t i;
	int ret;

	for (rs = start; rs < aend; rs = re) {
		re = rs + EST_RANGE_MAX;
		if (w->gridded)
			re -= (rs - w->grid) % EST_RANGE_MAX;
		if (re > aend)
			re = aend;
		for (cs = rs; cs < re; cs = ce) {
			ce = cs + EST_CHUNK_SIZE;
			if (w->gridded)
				ce -= (cs - w->grid) % EST_CHUNK_SIZE;
			if (ce > re)
				ce = re;
			ret = est_load_chunk(w, load, src, cs, ce, isize);
			if (ret)
				return ret;
			for (i = 0; !ret && i < w->n; i++) {
				if (raw && raw[i]) {
					est_raw(w, cs, ce, isize, &acct[i]);
					continue;
				}
				if (cs == rs && (!w->gridded || w->begin ||
						 !((rs - w->grid) % EST_RANGE_MAX)))
					est_range_begin(w, i, &fst[i], rs, re);
				ret = est_chunk(w, i, &fst[i], cs, ce, isize,
						&acct[i]);
			}
			w->begin = false;
			/* settled per chunk, before the next read */
			est_measure_end(w, acct);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int est_small(struct est_worker *w, size_t i, const uint8_t *data,
	      struct est_memo *memo, uint64_t isize,
	      struct est_fstate *fst, struct est_acct *acct)
{
	uint64_t aend = est_round_up(isize, w->sectorsize);

	w->data = data;
	w->memo = memo;
	est_range_begin(w, i, fst, 0, aend);
	return est_chunk(w, i, fst, 0, aend, isize, acct);
}

int est_buffer(struct est_worker *w, size_t i, const uint8_t *data,
	       uint64_t size, struct est_acct *acct)
{
	struct est_worker one = *w;
	struct est_fstate fst = { 0 };
	int ret, r;

	if (i >= w->n)
		return -EINVAL;
	one.n = 1;
	one.s = &w->s[i];
	one.ws = &w->ws[i];
	one.verify = &w->verify[i];
	one.vfirst = &w->vfirst[i];
	one.dbatch = &w->dbatch[i];
	one.cwall = &w->cwall[i];
	ret = est_run(&one, est_load_mem, data, 0, size, size, &fst, NULL, acct);
	r = est_check_kept(&one, acct);
	return ret ? ret : r;
}
