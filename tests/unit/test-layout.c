// SPDX-License-Identifier: GPL-2.0
/* What each file's estimate counts: fresh copy and same layout. */
#include <string.h>
#include "unit.h"
#include "ioctl.h"
#include "estimate/layout.h"

static struct extent_info reg(uint64_t bytenr, uint64_t ram, uint64_t off,
			      uint64_t num)
{
	struct extent_info e = {
		.type = BTRFS_FILE_EXTENT_REG,
		.ram_bytes = ram,
		.disk_bytenr = bytenr,
		.disk_num_bytes = ram,
		.offset = off,
		.num_bytes = num,
	};
	return e;
}

/* Plan and resolve one file with a one-setting estimate of disk d. */
static void one(struct layout *l, ino_t ino, const struct extent_info *ext,
		size_t n, uint64_t d, uint64_t *rows, size_t *nrows)
{
	struct layout_file f = {
		.dev = 5, .ino = ino, .have_extents = 1, .fs_idx = 1,
		.sectorsize = 4096, .ext = ext, .next = n,
	};
	/* the same as a copy and as written */
	uint64_t delta[6] = { d, 2 * d, 3 * d, d, 2 * d, 3 * d };
	size_t ticket, user;
	int skip;

	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 7, &ticket, &skip), 0);
	CU_ASSERT_NOT_EQUAL(ticket, 0);
	layout_resolve(l, ticket, skip ? NULL : delta, NULL, rows, nrows, &user);
	CU_ASSERT_EQUAL(user, 7);
}

static void test_hardlinks_reflinks(void)
{
	struct layout *l = layout_create(1, 1);
	struct extent_info a[2] = { reg(1 << 20, 131072, 0, 131072),
				    reg(2 << 20, 65536, 0, 65536) };
	struct layout_total t;
	size_t nrows;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	one(l, 257, a, 2, 1000, NULL, &nrows);	/* the file */
	one(l, 257, a, 2, 1000, NULL, &nrows);	/* a hard link to it */
	one(l, 300, a, 2, 1000, NULL, &nrows);	/* a reflinked copy */
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 1000);		/* each extent once */
	CU_ASSERT_EQUAL(t.uncomp, 2000);
	CU_ASSERT_EQUAL(t.fresh_disk, 2000);	/* the inode once */
	CU_ASSERT_EQUAL(t.fresh_input, 6000);
	CU_ASSERT_EQUAL(t.est_disk, 2000);	/* the link was not read */
	layout_free(l);
}

static void test_bookend_and_partial(void)
{
	struct layout *l = layout_create(1, 1);
	/* a 1 MiB extent referenced at both ends, 256 KiB each, and a new
	 * extent of 512 KiB in the middle */
	struct extent_info a[3] = { reg(1 << 20, 1 << 20, 0, 262144),
				    reg(8 << 20, 524288, 0, 524288),
				    reg(1 << 20, 1 << 20, 786432, 262144) };
	struct layout_total t;
	size_t nrows;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	/* whole extents over referenced data: (1 MiB + 512 KiB) / 1 MiB */
	one(l, 257, a, 3, 1000, NULL, &nrows);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 1500);
	/* another file sharing only the middle extent: it adds nothing,
	 * a third one half new, half shared */
	one(l, 258, &a[1], 1, 400, NULL, &nrows);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 1500);
	{
		struct extent_info b[2] = { reg(8 << 20, 524288, 0, 524288),
					    reg(16 << 20, 524288, 0, 524288) };

		one(l, 259, b, 2, 800, NULL, &nrows);
	}
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 1900);
	/* weighted by what each part takes on disk now: a new compressed
	 * extent (32 KiB for 128 KiB) beside the shared raw 512 KiB one */
	{
		struct extent_info b[2] = { reg(24 << 20, 131072, 0, 131072),
					    reg(8 << 20, 524288, 0, 524288) };

		b[0].disk_num_bytes = 32768;
		one(l, 260, b, 2, 1110, NULL, &nrows);
	}
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 1900 + 1110 * 32768 / (32768 + 524288));
	CU_ASSERT_EQUAL(layout_scale(3, 1, 2), 2);	/* rounded */
	CU_ASSERT_EQUAL(layout_scale(UINT64_MAX, 7, 7), UINT64_MAX);
	layout_free(l);
}

static void test_inline_and_prealloc(void)
{
	struct layout *l = layout_create(1, 1);
	struct extent_info in = {
		.type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 1000,
		.inline_len = 400,
	};
	struct extent_info pre = reg(4 << 20, 1 << 20, 0, 1 << 20);
	struct layout_file f = {
		.dev = 5, .ino = 400, .have_extents = 1, .fs_idx = 1,
		.sectorsize = 4096, .ext = &in, .next = 1, .inline_key = 99,
	};
	uint64_t inl[6] = { 300, 1000, 1000, 300, 1000, 1000 },
		 reg4k[6] = { 4096, 4096, 1000, 4096, 4096, 1000 };
	struct layout_total t;
	size_t ticket, user, nrows;
	int skip;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	/* inline now and under the setting: with every file (a snapshot's
	 * copy has another st_dev) */
	CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	layout_resolve(l, ticket, inl, NULL, NULL, &nrows, &user);
	f.dev = 6;
	CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	layout_resolve(l, ticket, inl, NULL, NULL, &nrows, &user);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 600);
	/* in an extent under the setting: the same content once */
	f.dev = 7;
	CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	layout_resolve(l, ticket, reg4k, NULL, NULL, &nrows, &user);
	f.dev = 8;
	CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	layout_resolve(l, ticket, reg4k, NULL, NULL, &nrows, &user);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 600);	/* content 99 was met at dev 5 */
	/* prealloc stays as it is, once */
	pre.type = BTRFS_FILE_EXTENT_PREALLOC;
	f.ext = &pre;
	f.ino = 401;
	CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	layout_resolve(l, ticket, NULL, NULL, NULL, &nrows, &user);
	f.ino = 402;
	CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	layout_resolve(l, ticket, NULL, NULL, NULL, &nrows, &user);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 600 + (1 << 20));
	layout_free(l);
}

/* A sampled file's factors (layout_factors()) and what is known of its
 * share before it is read (layout_known_share()). */
static void test_factors(void)
{
	struct layout *l = layout_create(1, 0);
	struct extent_info a[2] = { reg(1 << 20, 131072, 0, 131072),
				    reg(2 << 20, 131072, 0, 131072) };
	struct extent_info in = {
		.type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 1000,
		.inline_len = 400,
	};
	struct extent_info small = reg(4 << 20, 4096, 0, 3000);
	struct layout_file f = {
		.dev = 5, .ino = 257, .have_extents = 1, .fs_idx = 1,
		.sectorsize = 4096, .ext = a, .next = 2,
	};
	uint64_t raw[2] = { 1000, 3000 }, d[6] = { 1000, 3000, 5000,
							1000, 3000, 5000 };
	uint64_t inl[2] = { 300, 1000 }, ext4k[2] = { 4096, 4096 }, before;
	struct layout_total t;
	size_t ticket, user, nrows;
	double fa[2];
	int skip;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	/* a file as written: all of it, known before */
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 1, 1e-12);
	layout_factors(l, ticket, raw, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(fa[1], 1, 1e-12);
	layout_resolve(l, ticket, d, NULL, NULL, &nrows, &user);
	/* a reflinked copy: nothing, for sure; a hard link: nothing */
	f.ino = 258;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), -1, 1e-12);
	layout_factors(l, ticket, raw, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 0, 1e-12);
	layout_resolve(l, ticket, d, NULL, NULL, &nrows, &user);
	f.ino = 257;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), -1, 1e-12);
	layout_drop(l, ticket);
	/* half shared: half of it, known and sampled alike */
	{
		struct extent_info b[2] = { a[0], reg(3 << 20, 131072, 0,
						      131072) };

		f.ino = 259;
		f.ext = b;
		CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip),
				      0);
		CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 0.5,
				       1e-12);
		layout_factors(l, ticket, raw, NULL, fa);
		CU_ASSERT_DOUBLE_EQUAL(fa[0], 0.5, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(fa[1], 0.5, 1e-12);
		layout_resolve(l, ticket, d, NULL, NULL, &nrows, &user);
	}
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 1000 + 500);
	/* a file of a sector or less, inline now: counts again when it is
	 * inline under the setting, not when it is in an extent */
	f.ext = &in;
	f.next = 1;
	f.inline_key = 42;
	f.ino = 300;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	layout_resolve(l, ticket, d, NULL, NULL, &nrows, &user);
	f.ino = 301;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 1, 1e-12);
	layout_factors(l, ticket, ext4k, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 0, 1e-12);
	layout_factors(l, ticket, inl, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 1, 1e-12);
	/* resolved over its probability (1%): still inline, by its own */
	{
		uint64_t scaled[6] = { 30000, 100000, 100000,
				       30000, 100000, 100000 };

		layout_total(l, 0, &t);
		before = t.disk;
		layout_resolve(l, ticket, scaled, NULL, NULL, &nrows, &user);
		layout_total(l, 0, &t);
		CU_ASSERT_EQUAL(t.disk, before + 30000);
	}
	/* a sector's extent met before, the file longer than a sector (a
	 * hole after it): no setting stores it inline, so 0, and 0 whatever
	 * its estimate */
	f.ext = &small;
	f.size = 4097;
	f.ino = 302;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 1, 1e-12);
	layout_drop(l, ticket);
	f.ino = 303;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 0, 1e-12);
	layout_factors(l, ticket, ext4k, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 0, 1e-12);
	layout_drop(l, ticket);
	/* a sector or less (a reflinked sector of text, a reflink
	 * truncated): a compressing setting may store it inline, each file
	 * its own, so all of it, as its factor says then; a share of 0
	 * would drop those bytes from a sample */
	f.size = 4096;
	f.ino = 305;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 1, 1e-12);
	layout_factors(l, ticket, inl, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 1, 1e-12);
	layout_factors(l, ticket, ext4k, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 0, 1e-12);
	layout_drop(l, ticket);
	f.size = 0;
	/* extents not read: all of it */
	f.have_extents = 0;
	f.ino = 304;
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 1, 1e-12);
	layout_factors(l, ticket, raw, NULL, fa);
	CU_ASSERT_DOUBLE_EQUAL(fa[0], 1, 1e-12);
	layout_drop(l, ticket);
	layout_free(l);
}

/* Rows count as if alone: a link in two rows counts in each. */
static void test_rows(void)
{
	struct layout *l = layout_create(2, 1);
	struct extent_info a = reg(1 << 20, 131072, 0, 131072);
	struct layout_file f = {
		.dev = 5, .ino = 257, .have_extents = 1, .fs_idx = 1,
		.sectorsize = 4096, .ext = &a, .next = 1,
	};
	/* a copy differs from the file as written (an inode flag, holes) */
	uint64_t delta[12] = { 12, 22, 30, 13, 23, 31,
			       10, 20, 30, 11, 21, 31 }, out[2 * 12];
	struct layout_total t;
	size_t ticket, user, nrows;
	int skip;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL(layout_push(l), 0);	/* row A */
	CU_ASSERT_EQUAL(layout_plan(l, &f, 1, &ticket, &skip), 0);
	layout_resolve(l, ticket, delta, NULL, out, &nrows, &user);
	CU_ASSERT_EQUAL(nrows, 1);
	CU_ASSERT_EQUAL(out[0], 10);
	CU_ASSERT_EQUAL(out[3], 11);
	CU_ASSERT_EQUAL(out[6], 12);	/* fresh copy, setting 0 */
	CU_ASSERT_EQUAL(out[9], 13);	/* fresh copy, setting 1 */
	layout_pop(l);
	CU_ASSERT_EQUAL(layout_push(l), 0);	/* row B */
	CU_ASSERT_EQUAL(layout_push(l), 0);	/* row B/C */
	CU_ASSERT_EQUAL(layout_rows(l), 2);
	CU_ASSERT_EQUAL(layout_plan(l, &f, 2, &ticket, &skip), 0);
	CU_ASSERT_EQUAL(skip, 0);
	memset(out, 0xff, sizeof(out));
	layout_resolve(l, ticket, delta, NULL, out, &nrows, &user);
	CU_ASSERT_EQUAL(nrows, 2);
	CU_ASSERT_EQUAL(out[0], 10);	/* C */
	CU_ASSERT_EQUAL(out[12], 10);	/* B */
	layout_pop(l);
	layout_pop(l);
	/* the total met it twice: once */
	layout_total(l, 1, &t);
	CU_ASSERT_EQUAL(t.disk, 11);
	CU_ASSERT_EQUAL(t.fresh_disk, 13);
	/* and a third time at the total only: not read */
	CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
	CU_ASSERT_EQUAL(skip, 1);
	layout_drop(l, ticket);
	layout_free(l);
}

/* A file partly overwritten after its first write (generation 10): the
 * bookend of that write, the overwrite (20), an extent left whole. */
static void live_file(struct extent_info e[3])
{
	e[0] = reg(1 << 20, 131072, 0, 65536);
	e[1] = reg(3 << 20, 65536, 0, 65536);
	e[2] = reg(2 << 20, 131072, 0, 131072);
	e[0].generation = e[2].generation = 10;
	e[1].generation = 20;
	e[0].compression = e[2].compression = 3;	/* zstd */
	e[0].file_pos = 0;
	e[1].file_pos = 65536;
	e[2].file_pos = 131072;
}

/* The live file's writes' estimates (plan_live()). */
static void live_writes(uint64_t gdelta[3 * 13])
{
	memset(gdelta, 0, 3 * 13 * sizeof(*gdelta));
	gdelta[3 * 1] = 300;
	gdelta[3 * 2] = 500;
	gdelta[3 * 6] = 250;
	gdelta[3 * 7] = 200;
	gdelta[3 * 8] = 250;
	gdelta[3 * 8 + 1] = 131072;
}

/* Plan the live file, check its writes, resolve it with group estimates
 * 500 (its first write's remains) and 300 (the overwrite), and as lower
 * bounds 450 and 250 (each piece alone: two pieces of the first write,
 * 200 and 250, the second heuristic-approved). */
static void plan_live(struct layout *l)
{
	struct extent_info e[3];
	struct layout_file f = {
		.dev = 5, .ino = 400, .have_extents = 1, .fs_idx = 1,
		.sectorsize = 4096, .ext = e, .next = 3,
	};
	uint64_t delta[6] = { 900, 1000, 262144, 900, 1000, 262144 };
	uint64_t gdelta[3 * 13] = { 0 };
	const struct est_write *w;
	size_t ticket, user, nrows, nw;
	int skip;

	live_file(e);
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 7, &ticket, &skip), 0);
	/* two groups; the first write's one async chunk holds gone data
	 * (its bookend's rest): buckets for each group before and after
	 * it, the cell, and the same as lower bounds, the cell in four
	 * pieces */
	CU_ASSERT_EQUAL_FATAL(layout_writes(l, ticket, &w, &nw), 13);
	CU_ASSERT_EQUAL_FATAL(nw, 6);
	/* oldest first, on the grid of its start; the bookend's part ends
	 * where the overwrite cut it */
	CU_ASSERT(w[0].group == 2 && w[0].start == 0 && w[0].end == 65536 &&
		  w[0].grid == 0 && w[0].flags == EST_WRITE_CUT_END);
	CU_ASSERT(w[1].group == 2 && w[1].start == 131072 &&
		  w[1].end == 262144 && w[1].grid == 0 && !w[1].flags);
	CU_ASSERT(w[2].group == 1 && w[2].start == 65536 &&
		  w[2].end == 131072 && w[2].grid == 65536);
	/* the lower bounds: the cell's pieces 0 and 1, the overwrite */
	CU_ASSERT(w[3].group == 7 && w[3].flags == EST_WRITE_INDEP &&
		  w[3].start == 0 && w[3].end == 65536);
	CU_ASSERT(w[4].group == 8 && w[4].start == 131072 &&
		  w[4].end == 262144);
	CU_ASSERT(w[5].group == 6 && w[5].start == 65536);
	live_writes(gdelta);
	layout_resolve(l, ticket, delta, gdelta, NULL, &nrows, &user);
	CU_ASSERT_EQUAL(nrows, 0);	/* kept until settled */
}

/*
 * The live file sampled, read whole (900 bytes in one go): its factors
 * wait until every file is planned (a snapshot's copy may claim its
 * first write), then are its writes' as layout_settle() counts them.
 * Alone, what is known of its share first counts the first write's
 * extents as its own.  Read in parts, each part's factor is its
 * groups' (layout_part_factors()).
 */
static void test_sampled_in_steps(void)
{
	int alone;

	for (alone = 0; alone <= 1; alone++) {
		struct layout *l = layout_create(1, 1);
		struct extent_info e[3], snap[2] = {
			reg(1 << 20, 131072, 0, 131072),
			reg(2 << 20, 131072, 0, 131072)
		};
		struct layout_file f = {
			.dev = 5, .ino = 400, .have_extents = 1, .fs_idx = 1,
			.sectorsize = 4096, .ext = e, .next = 3,
		};
		uint64_t delta[6] = { 900, 1000, 262144, 900, 1000, 262144 };
		const uint64_t raw[2] = { 900, 1000 };
		uint64_t gdelta[3 * 13];
		const uint64_t want = alone ? 667 + 300 : 300;
		struct layout_total t;
		size_t ticket, user, nrows;
		double fa[2], pf[2], tmp[2];
		int skip;

		CU_ASSERT_PTR_NOT_NULL_FATAL(l);
		live_file(e);
		live_writes(gdelta);
		CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 7, &ticket, &skip), 0);
		CU_ASSERT_EQUAL(layout_tentative(l, ticket), 1);
		/* the overwrite's 64 KiB of 256 KiB referenced now */
		CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket), 0.25,
				       1e-12);
		if (!alone) {
			snap[0].generation = snap[1].generation = 10;
			snap[1].file_pos = 131072;
			one(l, 401, snap, 2, 800, NULL, &nrows);
		}
		layout_settle_claims(l);
		/* alone, its first write's 256 KiB whole are its own too */
		CU_ASSERT_DOUBLE_EQUAL(layout_known_share(l, ticket),
				       alone ? 1.25 : 0.25, 1e-12);
		/* read in parts (of 512 KiB, 256 KiB here: one part,
		 * and one past its end): by its groups.  The first write's
		 * bookend counts nothing when the snapshot claims that
		 * write, else its extents whole (256 KiB for the 192 KiB
		 * referenced), the overwrite in full: over the file, what
		 * is known of its share */
		CU_ASSERT_EQUAL(layout_part_factors(l, ticket, 262144, 2, pf,
						    tmp), 1);
		CU_ASSERT_DOUBLE_EQUAL(pf[0], layout_known_share(l, ticket),
				       1e-12);
		CU_ASSERT_DOUBLE_EQUAL(pf[1], -1, 0);
		/* the buckets' scales give the same: each write's bytes
		 * times its bucket's, over the bytes (estsample.c's parts) */
		{
			const struct est_write *wr;
			size_t nw, nb = layout_writes(l, ticket, &wr, &nw), w;
			double s[16], num = 0, den = 0;

			CU_ASSERT_FATAL(nb > 0 && nb <= 16);
			CU_ASSERT_EQUAL(layout_bucket_scales(l, ticket, nb, s),
					1);
			for (w = 0; w < nw; w++) {
				uint64_t end = wr[w].end < 262144 ? wr[w].end :
								  262144;

				if ((wr[w].flags & EST_WRITE_INDEP) ||
				    s[wr[w].group] < 0 || wr[w].start >= end)
					continue;
				num += (double)(end - wr[w].start) *
				       s[wr[w].group];
				den += (double)(end - wr[w].start);
			}
			CU_ASSERT_DOUBLE_EQUAL(num / den, pf[0], 1e-12);
		}
		/* its first 64 KiB alone (the part cut at that size) */
		CU_ASSERT_EQUAL(layout_part_factors(l, ticket, 65536, 1, pf,
						    tmp), 1);
		CU_ASSERT_DOUBLE_EQUAL(pf[0], alone ? 4.0 / 3 : 0, 1e-12);
		layout_factors(l, ticket, raw, gdelta, fa);
		CU_ASSERT_DOUBLE_EQUAL(fa[0] * 900, want, 1e-6);
		/* in one go instead (read in parts): its share of it */
		layout_factors(l, ticket, raw, NULL, fa);
		CU_ASSERT_DOUBLE_EQUAL(fa[0], alone ? 1.25 : 0.25, 1e-12);
		layout_resolve(l, ticket, delta, gdelta, NULL, &nrows, &user);
		CU_ASSERT_EQUAL(layout_settle(l, NULL, NULL), 0);
		layout_total(l, 0, &t);
		CU_ASSERT_EQUAL(t.disk, want + (alone ? 0 : 800));
		layout_free(l);
	}
}

/*
 * Blocks rewritten here and there in one transaction: two of them apart
 * with older data between were two dirty ranges, each on its own grid
 * (its own compress= decision); apart with newer data between, they may
 * have been one range and keep its grid.
 */
static void test_ranges_of_their_own(void)
{
	struct layout *l = layout_create(1, 1);
	struct extent_info e[6] = {
		reg(1 << 20, 131072, 0, 131072),	/* [0, 128K) gen 10 */
		reg(2 << 20, 8192, 0, 8192),		/* [128K, 136K) gen 20 */
		reg(3 << 20, 131072, 0, 131072),	/* [136K, 264K) gen 10 */
		reg(4 << 20, 8192, 0, 8192),		/* [264K, 272K) gen 20 */
		reg(5 << 20, 8192, 0, 8192),		/* [272K, 280K) gen 30 */
		reg(6 << 20, 8192, 0, 8192),		/* [280K, 288K) gen 20 */
	};
	const uint64_t pos[6] = { 0, 131072, 139264, 270336, 278528, 286720 };
	const uint64_t gen[6] = { 10, 20, 10, 20, 30, 20 };
	struct layout_file f = {
		.dev = 5, .ino = 410, .have_extents = 1, .fs_idx = 1,
		.sectorsize = 4096, .ext = e, .next = 6,
	};
	const struct est_write *wr;
	size_t ticket, nw, k, seen = 0;
	int skip;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	for (k = 0; k < 6; k++) {
		e[k].file_pos = pos[k];
		e[k].generation = gen[k];
	}
	CU_ASSERT_EQUAL_FATAL(layout_plan(l, &f, 7, &ticket, &skip), 0);
	CU_ASSERT_EQUAL_FATAL(layout_writes(l, ticket, &wr, &nw), 3);
	for (k = 0; k < nw; k++) {
		/* the first write's second extent: a newer block between */
		if (wr[k].start == 139264) {
			CU_ASSERT_EQUAL(wr[k].grid, 0);
			seen++;
		}
		/* the blocks of generation 20 */
		if (wr[k].start == 131072 || wr[k].start == 270336) {
			CU_ASSERT_EQUAL(wr[k].grid, wr[k].start);
			CU_ASSERT_FALSE(wr[k].flags & EST_WRITE_BEGIN);
			seen++;
		}
		if (wr[k].start == 286720) {
			CU_ASSERT_EQUAL(wr[k].grid, 270336);
			CU_ASSERT_FALSE(wr[k].flags & EST_WRITE_BEGIN);
			seen++;
		}
	}
	CU_ASSERT_EQUAL(seen, 4);
	layout_free(l);
}

static void test_written_in_steps(void)
{
	struct layout *l = layout_create(1, 1);
	struct extent_info snap[2] = { reg(1 << 20, 131072, 0, 131072),
				       reg(2 << 20, 131072, 0, 131072) };
	struct layout_total t;
	size_t nrows;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	/* a snapshot's copy holds the first write whole: it counts that
	 * write, the live file only its overwrite */
	plan_live(l);
	snap[0].generation = snap[1].generation = 10;
	snap[1].file_pos = 131072;
	one(l, 401, snap, 2, 800, NULL, &nrows);
	CU_ASSERT_EQUAL(layout_settle(l, NULL, NULL), 0);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 800 + 300);
	CU_ASSERT_EQUAL(t.extrap_disk, 0);
	CU_ASSERT_EQUAL(t.extrap_lo, 0);
	CU_ASSERT_EQUAL(t.extrap_hi, 0);
	CU_ASSERT_EQUAL(t.fresh_disk, 900 + 800);
	layout_free(l);

	/* alone: the first write's extents are its own, whole (256 KiB on
	 * disk for 192 KiB still referenced), and extrapolated */
	l = layout_create(1, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	plan_live(l);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 0);
	CU_ASSERT_EQUAL(layout_settle(l, NULL, NULL), 0);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 667 + 300);
	CU_ASSERT_EQUAL(t.extrap_disk, 667);
	/* compress=: at least each piece alone and the overwrite alone
	 * (gone data may have set NOCOMPRESS), at most the write's whole
	 * span raw (its first piece is not all there: the range's
	 * heuristic is not known) and the overwrite raw */
	CU_ASSERT_EQUAL(t.extrap_lo, 967 - (450 + 250));
	CU_ASSERT_EQUAL(t.extrap_hi, 262144 + 65536 - 967);
	layout_free(l);

	/* compress-force=: the overwrite as predicted; the chunk at least
	 * its pieces alone, at most raw from its first piece not all there */
	l = layout_create(1, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	layout_set_force(l, 0, 1);
	plan_live(l);
	CU_ASSERT_EQUAL(layout_settle(l, NULL, NULL), 0);
	layout_total(l, 0, &t);
	CU_ASSERT_EQUAL(t.disk, 667 + 300);
	CU_ASSERT_EQUAL(t.extrap_lo, 967 - (450 + 300));
	CU_ASSERT_EQUAL(t.extrap_hi, 262144 + 300 - 967);
	layout_free(l);

	/* written front to back in two transactions: as in one go */
	l = layout_create(1, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	{
		struct extent_info e[2] = { reg(1 << 20, 131072, 0, 131072),
					    reg(2 << 20, 131072, 0, 131072) };
		struct layout_file f = {
			.dev = 5, .ino = 402, .have_extents = 1, .fs_idx = 1,
			.sectorsize = 4096, .ext = e, .next = 2,
		};
		const struct est_write *w;
		size_t ticket, nw;
		int skip;

		e[0].generation = 10;
		e[1].generation = 11;
		e[1].file_pos = 131072;
		CU_ASSERT_EQUAL(layout_plan(l, &f, 0, &ticket, &skip), 0);
		CU_ASSERT_EQUAL(layout_writes(l, ticket, &w, &nw), 0);
		layout_drop(l, ticket);
	}
	layout_free(l);

	/* without following writes (a sample): as one file */
	l = layout_create(1, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	{
		struct extent_info e[3];

		live_file(e);
		one(l, 400, e, 3, 900, NULL, &nrows);
		CU_ASSERT_EQUAL(nrows, 0);
		layout_total(l, 0, &t);
		CU_ASSERT(t.disk > 0);
	}
	layout_free(l);
}

static CU_TestInfo tests[] = {
	{ "written in steps, history held or not", test_written_in_steps },
	{ "blocks rewritten apart: ranges of their own",
	  test_ranges_of_their_own },
	{ "a sample's file written in steps", test_sampled_in_steps },
	{ "hard links and reflinks", test_hardlinks_reflinks },
	{ "bookends and partly shared files", test_bookend_and_partial },
	{ "inline and prealloc", test_inline_and_prealloc },
	{ "a sampled file's factors", test_factors },
	{ "rows as if alone", test_rows },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(layout, tests)
