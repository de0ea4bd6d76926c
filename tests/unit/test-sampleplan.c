// SPDX-License-Identifier: GPL-2.0
/* sampleplan: the pre-pass's sharers and the files that go away (their
 * data met first by another file). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <btrfsutil.h>
#include "unit.h"
#include "ioctl.h"
#include "estimate/layout.h"
#include "sample/sample.h"
#include "sample/sampleplan.h"
#include "seen.h"
#include "walk/walkorder.h"

/* More of each kind of reference than a split sort needs. */
#define NF	40020	/* pairs of both kinds complete: a multiple of 60 */

/* Even files hold one extent, odd ones an inline item.  Extents: files
 * 0 and 10 share one, 20 and 30 another, ...; inline items: 1 and 7 have
 * the same bytes, 13 and 19, ...  Each file's size differs. */
static uint64_t extent_of(size_t i)
{
	return i % 10 == 0 ? i / 20 : 1000000 + i;
}

static uint64_t inline_of(size_t i)
{
	return i % 6 == 1 ? i / 12 : 1000000 + i;
}

static int shares(size_t i)
{
	return i % 2 ? i % 6 == 1 : i % 10 == 0;
}

static uint64_t file_key(dev_t dev, size_t i)
{
	return sample_key(dev, 5000 + i);
}

static dev_t g_dev;

static int list_dir(void *arg, struct sampleplan *p, int fd,
		    const char *path, const struct stat *st, int depth)
{
	size_t i;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (i = 0; i < NF; i++) {
		struct extent_info ei = { .file_pos = 0 };
		uint64_t size = 8192 + 4096 * (i % 37), v;
		uint8_t item[40];

		if (i % 2 == 0) {
			ei.type = BTRFS_FILE_EXTENT_REG;
			ei.disk_bytenr = (1ull << 30) +
					 131072 * extent_of(i);
			ei.disk_num_bytes = 4096;
			ei.num_bytes = ei.ram_bytes = size;
			CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, NULL, 0), 0);
		} else {
			ei.type = BTRFS_FILE_EXTENT_INLINE;
			ei.ram_bytes = size = 300;
			memset(item, 0x5a, sizeof(item));
			v = inline_of(i);
			memcpy(item + 21, &v, sizeof(v));
			CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, item,
						       sizeof(item)), 0);
		}
		CU_ASSERT_EQUAL(sampleplan_add(p, file_key(st->st_dev, i), 1,
					       size, size, 1 + i % 3, 100, -1,
					       NULL), 0);
	}
	return WALK_SKIP;
}

/*
 * Files in pairs that share their data (the pair's second file after the
 * first), of these kinds by i / 2 % KEPT_KINDS; every sharer has its
 * items kept as given (sampleplan_kept_get()) but one with a length that
 * does not fit in 32 bits.
 */
enum {
	KEPT_INLINE,		/* an inline item */
	KEPT_REG,		/* a regular extent of 1 or 4096 bytes at 0 */
	KEPT_TWO,		/* an inline item, then a regular extent */
	KEPT_HOLE,		/* a hole, then a regular extent */
	KEPT_OFFSET,		/* an extent's data from offset 4096 */
	KEPT_AT,		/* an extent at 4096 in the file */
	KEPT_PREALLOC,		/* a preallocated extent */
	KEPT_LINKED,		/* an inline item, the file met twice */
	KEPT_HUGE,		/* a hole of 4 GiB, then an extent: none */
	KEPT_KINDS
};
#define NS	(2 * KEPT_KINDS * 50)

static uint8_t g_item[NS / 2][60];

/* Each kind's n items in order: bytes 0 is 1 or 4096 by pair; a hole has
 * no address. */
static const struct kept_kind {
	unsigned n;
	struct kept_item {
		uint8_t type, hole;
		uint16_t pos, offset, bytes;
	} it[2];
} kept_kinds[KEPT_KINDS] = {
	[KEPT_INLINE] = { 1, { { BTRFS_FILE_EXTENT_INLINE, 0, 0, 0, 300 } } },
	[KEPT_REG] = { 1, { { BTRFS_FILE_EXTENT_REG, 0, 0, 0, 0 } } },
	[KEPT_TWO] = { 2, { { BTRFS_FILE_EXTENT_INLINE, 0, 0, 0, 300 },
			    { BTRFS_FILE_EXTENT_REG, 0, 4096, 0, 4096 } } },
	[KEPT_HOLE] = { 2, { { BTRFS_FILE_EXTENT_REG, 1, 0, 0, 4096 },
			     { BTRFS_FILE_EXTENT_REG, 0, 4096, 0, 4096 } } },
	[KEPT_OFFSET] = { 1, { { BTRFS_FILE_EXTENT_REG, 0, 0, 4096, 0 } } },
	[KEPT_AT] = { 1, { { BTRFS_FILE_EXTENT_REG, 0, 4096, 0, 0 } } },
	[KEPT_PREALLOC] = { 1, { { BTRFS_FILE_EXTENT_PREALLOC, 0, 0, 0,
				   0 } } },
	[KEPT_LINKED] = { 1, { { BTRFS_FILE_EXTENT_INLINE, 0, 0, 0, 300 } } },
	[KEPT_HUGE] = { 2, { { BTRFS_FILE_EXTENT_REG, 1, 0, 0, 0 },
			     { BTRFS_FILE_EXTENT_REG, 0, 0, 0, 4096 } } },
};

/* File i's item it as parsed: both files of a pair the same; the inline
 * item's bytes into g_item. */
static struct extent_info kept_ei(size_t i, const struct kept_item *it)
{
	const unsigned kind = i / 2 % KEPT_KINDS;
	uint64_t bytes = it->bytes ? it->bytes : 1 + 4095 * (i / 2 % 2);
	struct extent_info ei = {
		.type = it->type,
		.compression = (uint8_t)(i % 3),
		.generation = 7 + i / 2,
		.file_pos = it->pos,
		.offset = it->offset,
		.num_bytes = bytes,
		.ram_bytes = bytes,
		.disk_num_bytes = 4096,
	};

	/* a hole's length or what it says it holds past 32 bits, or the
	 * extent's generation, or an inline item's length past 16 */
	if (kind == KEPT_HUGE && it->hole && i / 2 / KEPT_KINDS % 4 == 0)
		ei.num_bytes = 1ull << 32;
	else if (kind == KEPT_HUGE && it->hole && i / 2 / KEPT_KINDS % 4 == 1)
		ei.ram_bytes = 1ull << 32;
	else if (kind == KEPT_HUGE && !it->hole &&
		 i / 2 / KEPT_KINDS % 4 == 2)
		ei.generation = 1ull << 32;
	else if (kind == KEPT_HUGE && !it->hole)
		ei.inline_len = 1u << 16;
	if (kind == KEPT_HUGE && !it->hole)
		ei.file_pos = 1ull << 32;
	if (it->type == BTRFS_FILE_EXTENT_INLINE) {
		ei.inline_len = 40 + i / 2 % 7;
		memset(g_item[i / 2], 0x11, sizeof(g_item[0]));
		memcpy(g_item[i / 2] + 21, &i, sizeof(i));
		g_item[i / 2][21] &= ~1;
	} else if (!it->hole) {
		ei.disk_bytenr = (1ull << 30) + 65536 * (i / 2);
	}
	return ei;
}

static void kept_ref(struct sampleplan *p, size_t i,
		     const struct kept_item *it)
{
	struct extent_info ei = kept_ei(i, it);

	CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, g_item[i / 2],
				       it->type == BTRFS_FILE_EXTENT_INLINE ?
				       sizeof(g_item[0]) : 0), 0);
}

static int list_kept(void *arg, struct sampleplan *p, int fd,
		     const char *path, const struct stat *st, int depth)
{
	size_t i, k, m;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (i = 0; i < NS; i++) {
		unsigned kind = i / 2 % KEPT_KINDS;
		uint32_t met = kind == KEPT_LINKED ? 2 : 1;

		for (k = 0; k < met; k++) {
			for (m = 0; m < kept_kinds[kind].n; m++)
				kept_ref(p, i, &kept_kinds[kind].it[m]);
			CU_ASSERT_EQUAL(sampleplan_add(p, file_key(g_dev, i),
						       met, 8192, 8192, 1, 100, -1,
						       NULL), 0);
		}
	}
	return WALK_SKIP;
}

static void plan_kept(size_t kept_max,
		      int (*list)(void *, struct sampleplan *, int,
				  const char *, const struct stat *, int),
		      struct sample_design *d, struct sample_bands **bands,
		      struct seen_set **sharers, struct sampleplan_kept **kept)
{
	char dir[] = "/tmp/compsize-unit-sampleplan.XXXXXX";
	char *paths[1] = { dir };
	const struct walk_opts wo = { .one_fs = 0 };
	const struct sampleplan_opts so = {
		.frac = 0.01,
		.seed = 7,
		.bands = 1,
		.sharers = 1,
		.weigh_away = 1,
		.kept_max = kept_max,
		.dir = list,
	};
	int sampling = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT_EQUAL(sampleplan_run(paths, 1, &wo, &so, d, &sampling,
				       bands, sharers, kept), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	CU_ASSERT_EQUAL(sampling, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*bands);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*sharers);
}

static void plan_with(int (*list)(void *, struct sampleplan *, int,
				  const char *, const struct stat *, int),
		      struct sample_design *d, struct sample_bands **bands,
		      struct seen_set **sharers)
{
	struct sampleplan_kept *kept = NULL;

	plan_kept(0, list, d, bands, sharers, &kept);
	sampleplan_kept_free(kept);
}

static void plan(struct sample_design *d, struct sample_bands **bands,
		 struct seen_set **sharers)
{
	plan_with(list_dir, d, bands, sharers);
}

static void test_sharers(void)
{
	struct sample_design d1, d2;
	struct sample_bands *b1 = NULL, *b2 = NULL;
	struct seen_set *s1 = NULL, *s2 = NULL;
	size_t i, nshare = 0, bad = 0, away = 0;

	plan(&d1, &b1, &s1);
	plan(&d2, &b2, &s2);
	for (i = 0; i < NF; i++) {
		uint64_t key = file_key(g_dev, i);
		unsigned band = sample_bands_get(b2, key);

		nshare += shares(i);
		bad += seen_contains(s1, key) != shares(i);
		bad += seen_contains(s2, key) != shares(i);
		bad += sample_bands_get(b1, key) != band;
		/* the second file of an extent or of an inline item goes
		 * away, the first stays */
		if (i % 2 == 0 && i % 10 == 0)
			bad += !!(band & SAMPLE_AWAY) != (i % 20 == 10);
		else if (i % 2 && i % 6 == 1)
			bad += !!(band & SAMPLE_AWAY) != (i % 12 == 7);
		else
			bad += !!(band & SAMPLE_AWAY);
		away += !!(band & SAMPLE_AWAY);
		/* what of it counts in the same layout: nothing of an
		 * extent met before, all of an inline item (the setting
		 * may keep it inline, with every file) */
		if (band & SAMPLE_AWAY)
			bad += d2.w[sample_stratum(i % 2 ? 300 : 8192 +
						   4096 * (i % 37), 0, band)] !=
			       (i % 2 ? 1 : 0);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(seen_count(s1), nshare);
	CU_ASSERT_EQUAL(seen_count(s2), nshare);
	CU_ASSERT_EQUAL(away, NF / 20 + NF / 12);
	CU_ASSERT_EQUAL(memcmp(&d1, &d2, sizeof(d1)), 0);
	sample_bands_free(b1);
	sample_bands_free(b2);
	seen_free(s1);
	seen_free(s2);
}

/* Whether file i's kept items are those it was listed with; *n their
 * count. */
static int kept_same(const struct sampleplan_kept *kept, uint64_t v,
		     size_t i, size_t *n)
{
	const struct kept_kind *kk = &kept_kinds[i / 2 % KEPT_KINDS];
	struct extent_info ei[2];
	uint64_t key = 0, want_key = 0;
	size_t m;
	int bad = 0;

	*n = sampleplan_kept_count(v);
	if (*n != kk->n)
		return 0;
	sampleplan_kept_get(kept, v, ei, &key);
	for (m = 0; m < kk->n; m++) {
		struct extent_info want = kept_ei(i, &kk->it[m]);

		if (want.type == BTRFS_FILE_EXTENT_INLINE)
			want_key = extent_inline_key(g_item[i / 2],
						     sizeof(g_item[0]));
		bad += ei[m].type != want.type ||
		       ei[m].compression != want.compression ||
		       ei[m].generation != want.generation ||
		       ei[m].file_pos != want.file_pos ||
		       ei[m].ram_bytes != want.ram_bytes ||
		       ei[m].inline_len != want.inline_len ||
		       ei[m].disk_bytenr != want.disk_bytenr ||
		       ei[m].disk_num_bytes != want.disk_num_bytes ||
		       ei[m].offset != want.offset ||
		       ei[m].num_bytes != want.num_bytes;
	}
	return !bad && key == want_key;
}

static void test_kept(void)
{
	struct sample_design d;
	struct sample_bands *b = NULL;
	struct seen_set *s = NULL;
	struct sampleplan_kept *kept = NULL;
	size_t i, n, bad = 0, with = 0;

	plan_kept(0, list_kept, &d, &b, &s, &kept);
	CU_ASSERT_EQUAL(seen_count(s), NS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
	for (i = 0; i < NS; i++) {
		uint64_t v = seen_value(s, file_key(g_dev, i));

		bad += !seen_contains(s, file_key(g_dev, i));
		if (i / 2 % KEPT_KINDS == KEPT_HUGE) {
			bad += v != 0;
			continue;
		}
		bad += !kept_same(kept, v, i, &n);
		with += n > 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(with, NS - NS / KEPT_KINDS);
	CU_ASSERT_EQUAL(sampleplan_kept_count(0), 0);
	sample_bands_free(b);
	seen_free(s);
	sampleplan_kept_free(kept);
}

/* With room for some of the items only: the files all of whose items
 * came before it is full keep them, the one it filled up in and those
 * after keep none, and each is still a sharer. */
static void test_kept_full(void)
{
	const size_t room = 301;
	struct sample_design d;
	struct sample_bands *b = NULL;
	struct seen_set *s = NULL;
	struct sampleplan_kept *kept = NULL;
	size_t i, k, n, items = 0, bad = 0, with = 0, expect = 0;

	plan_kept(room, list_kept, &d, &b, &s, &kept);
	CU_ASSERT_EQUAL(seen_count(s), NS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
	for (i = 0; i < NS; i++) {
		uint64_t v = seen_value(s, file_key(g_dev, i));
		unsigned kind = i / 2 % KEPT_KINDS;

		k = kept_kinds[kind].n;
		if (kind == KEPT_HUGE) {
			/* not kept, nor room taken */
			bad += v != 0;
			continue;
		}
		if (items + k <= room) {
			expect++;
			bad += !kept_same(kept, v, i, &n);
			with += n > 0;
		} else {
			bad += v != 0;
		}
		items += k;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(with, expect);
	CU_ASSERT(expect > 10 && expect < NS / 2);
	sample_bands_free(b);
	seen_free(s);
	sampleplan_kept_free(kept);
}

/*
 * Files of several extents, some met before through another file: a file
 * goes away when more than half of its bytes (by reference) are in such
 * extents, and stays at half or less; its own extent met twice is still
 * its own.  Groups of HALF_FILES files, in walk order (bytes per
 * reference; E1..E6 extents, E5 twice in file 3):
 *   0: E1 100, E2 100              its own            stays
 *   1: E1 100, E3 100              half away          stays
 *   2: E2 101, E4 100              101 of 201 away    goes away
 *   3: E5 100, E5 100, E1 150      150 of 350 away    stays
 *   4: E5 100, E6 99               100 of 199 away    goes away
 *   5: E6 99 (after 4)             all away           goes away
 */
#define HALF_FILES	6
#define HALF_GROUPS	700

static const struct half_ref {
	uint8_t file, extent;
	uint16_t bytes;
} half_refs[] = {
	{ 0, 1, 100 }, { 0, 2, 100 },
	{ 1, 1, 100 }, { 1, 3, 100 },
	{ 2, 2, 101 }, { 2, 4, 100 },
	{ 3, 5, 100 }, { 3, 5, 100 }, { 3, 1, 150 },
	{ 4, 5, 100 }, { 4, 6, 99 },
	{ 5, 6, 99 },
};

static int half_away(size_t f)
{
	return f == 2 || f == 4 || f == 5;
}

/* What is wrong with file f's band: its kind's (1 + f % 3), away as
 * half_away() says, and apart from the copies that count nothing (file 5)
 * where some of it is its own (2 and 4). */
static size_t half_band_bad(unsigned band, size_t f)
{
	return ((band & SAMPLE_PB_BAND) != 1 + f % 3) +
	       (!!(band & SAMPLE_AWAY) != half_away(f)) +
	       (!!(band & SAMPLE_AWAY_OWN) != (f == 2 || f == 4));
}

/* File f of group g, its references first. */
static void half_file(struct sampleplan *p, size_t g, size_t f)
{
	uint64_t pos = 0;
	size_t i;

	for (i = 0; i < sizeof(half_refs) / sizeof(*half_refs); i++) {
		const struct half_ref *r = &half_refs[i];
		struct extent_info ei = {
			.type = BTRFS_FILE_EXTENT_REG,
			.file_pos = pos,
			.disk_bytenr = (1ull << 30) +
				       (8 * g + r->extent) * 131072,
			.disk_num_bytes = 4096,
			.num_bytes = r->bytes,
			.ram_bytes = 131072,
		};

		if (r->file != f)
			continue;
		pos += r->bytes;
		CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, NULL, 0), 0);
	}
	CU_ASSERT_EQUAL(sampleplan_add(p, file_key(g_dev, HALF_FILES * g + f),
				       1, pos, pos, 1 + f % 3, 100, -1, NULL),
			0);
}

static int list_half(void *arg, struct sampleplan *p, int fd,
		     const char *path, const struct stat *st, int depth)
{
	size_t g, f;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (g = 0; g < HALF_GROUPS; g++)
		for (f = 0; f < HALF_FILES; f++)
			half_file(p, g, f);
	return WALK_SKIP;
}

/* list_half()'s files listed last first, then put back in the walk's
 * order (sampleplan_reorder()): all of them, or (g_drop) all but one,
 * when the order given can't be used. */
static int g_drop;

static int rank_key_cmp(const void *a, const void *b)
{
	const struct walkorder_rank *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int list_half_reordered(void *arg, struct sampleplan *p, int fd,
			       const char *path, const struct stat *st,
			       int depth)
{
	const size_t nf = HALF_FILES * HALF_GROUPS;
	size_t since = sampleplan_files(p), g, f, i, n = 0;
	struct walkorder_rank *r = malloc(nf * sizeof(*r));

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	g_dev = st->st_dev;
	for (g = HALF_GROUPS; g-- > 0;)
		for (f = HALF_FILES; f-- > 0;)
			half_file(p, g, f);
	/* the walk's order: by i, as list_half() lists them */
	for (i = 0; i < nf; i++)
		if (!g_drop || i != nf / 2)
			r[n++] = (struct walkorder_rank){
				file_key(g_dev, i), i * 3 + 11
			};
	qsort(r, n, sizeof(*r), rank_key_cmp);
	sampleplan_reorder(p, since, r, n);
	free(r);
	return WALK_SKIP;
}

/* The half files planned as list lists them: how many go away where
 * half_band_bad() says they should not, or stay where they should go;
 * every file shares an extent with another. */
static size_t plan_half(int (*list)(void *, struct sampleplan *, int,
				    const char *, const struct stat *, int))
{
	struct sample_design d;
	struct sample_bands *b = NULL;
	struct seen_set *s = NULL;
	size_t i, bad = 0;

	plan_with(list, &d, &b, &s);
	for (i = 0; i < HALF_FILES * HALF_GROUPS; i++) {
		unsigned band = sample_bands_get(b, file_key(g_dev, i));

		bad += half_band_bad(band, i % HALF_FILES);
	}
	CU_ASSERT_EQUAL(seen_count(s), HALF_FILES * HALF_GROUPS);
	sample_bands_free(b);
	seen_free(s);
	return bad;
}

/* Files listed in another order than the walk's, put back in it: the
 * same files go away as when listed in it (test_half()); with one file's
 * place not known, the order is left as listed, where others go away. */
static void test_reorder(void)
{
	for (g_drop = 0; g_drop <= 1; g_drop++) {
		size_t bad = plan_half(list_half_reordered);

		CU_ASSERT(g_drop ? bad > 0 : bad == 0);
	}
	g_drop = 0;
}

/* Both pre-passes' rule: "other" for several links, else the name's. */
static void test_name_kind(void)
{
	CU_ASSERT_EQUAL(sampleplan_name_kind(2, "a.txt"), 0);
	CU_ASSERT_EQUAL(sampleplan_name_kind(1, "d/a.txt"),
			(int)sample_kind("a.txt"));
	CU_ASSERT_EQUAL(sampleplan_name_kind(1, "a.gz"), 3);
	CU_ASSERT_EQUAL(sampleplan_name_kind(1, ""), 0);
}

/* Files of 8 KiB: the first g_raw of every 10 stored raw, the others
 * compressed; names of text. */
#define RAW_FILES 2000
static unsigned g_raw;

static int list_raw(void *arg, struct sampleplan *p, int fd,
		    const char *path, const struct stat *st, int depth)
{
	size_t i;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (i = 0; i < RAW_FILES; i++) {
		int raw = i % 10 < g_raw;

		CU_ASSERT_EQUAL(sampleplan_add(p, file_key(g_dev, i), 1, 8192,
					       8192, raw ? SAMPLE_BAND_RAW : 1,
					       raw ? SAMPLE_Q_ONE : SAMPLE_Q_ONE / 3,
					       sampleplan_name_kind(1, "a.c"),
					       NULL), 0);
	}
	return WALK_SKIP;
}

/* The raw band divided by the names' kinds, whatever share of the data
 * is stored raw (a tenth, under and over half, all): in the bands the
 * walk takes the strata from. */
static void test_raw_kinds(void)
{
	static const unsigned raws[] = { 1, 4, 5, 6, 10 };
	size_t r, i, bad;

	for (r = 0; r < sizeof(raws) / sizeof(*raws); r++) {
		struct sample_design d;
		struct sample_bands *b = NULL;
		struct seen_set *s = NULL;
		const unsigned want =
			sample_band_kind(SAMPLE_BAND_RAW, (int)sample_kind("a.c"));

		g_raw = raws[r];
		plan_with(list_raw, &d, &b, &s);
		for (i = 0, bad = 0; i < RAW_FILES; i++)
			bad += sample_bands_get(b, file_key(g_dev, i)) !=
			       (i % 10 < g_raw ? want : 1);
		CU_ASSERT_EQUAL(bad, 0);
		sample_bands_free(b);
		seen_free(s);
	}
}

static void test_half(void)
{
	CU_ASSERT_EQUAL(plan_half(list_half), 0);
}

/*
 * Big files away of which a write of their own counts: each part by what
 * of it counts.  Groups of three files of four parts, in walk order
 * (E0..E5 extents; K = 512 KiB, a part):
 *   0: E0, E1, E2, E3 (one a part)          its own       stays
 *   1: E0, E1, E4, E3 (E4 written anew)     a quarter     parts: copy,
 *                                                         copy, counts, copy
 *   2: E0, E1, E2, 3/4 of E3 and E5         a sixteenth   copy, copy, copy,
 *                                                         its file's strata
 * E5 is raw now: its band in file 2's strata is SAMPLE_BAND_RAW_RUNS (text
 * written after NOCOMPRESS), or with g_sectors the raw band, E5 then one
 * extent of a sector each per 4 KiB (blocks raw under every setting).
 */
#define PART_GROUPS	200
#define PART_K		(512u * 1024)
#define PART_SECTOR	4096u

static int g_sectors;

static const struct part_ref {
	uint8_t file, extent;
	uint32_t pos, bytes;
} part_refs[] = {
	{ 0, 0, 0, PART_K }, { 0, 1, PART_K, PART_K },
	{ 0, 2, 2 * PART_K, PART_K }, { 0, 3, 3 * PART_K, PART_K },
	{ 1, 0, 0, PART_K }, { 1, 1, PART_K, PART_K },
	{ 1, 4, 2 * PART_K, PART_K }, { 1, 3, 3 * PART_K, PART_K },
	{ 2, 0, 0, PART_K }, { 2, 1, PART_K, PART_K },
	{ 2, 2, 2 * PART_K, PART_K }, { 2, 3, 3 * PART_K, 3 * PART_K / 4 },
	{ 2, 5, 3 * PART_K + 3 * PART_K / 4, PART_K / 4 },
};

/* Extent e as extents of one sector each, raw. */
static void list_sectors(struct sampleplan *p, const struct extent_info *e)
{
	uint64_t o;

	for (o = 0; o < e->num_bytes; o += PART_SECTOR) {
		struct extent_info ei = *e;

		ei.file_pos += o;
		ei.disk_bytenr += o;
		ei.disk_num_bytes = ei.num_bytes = ei.ram_bytes = PART_SECTOR;
		CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, NULL, 0), 0);
	}
}

static int list_parts(void *arg, struct sampleplan *p, int fd,
		      const char *path, const struct stat *st, int depth)
{
	size_t g, f, i;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (g = 0; g < PART_GROUPS; g++)
		for (f = 0; f < 3; f++) {
			for (i = 0; i < sizeof(part_refs) / sizeof(*part_refs);
			     i++) {
				const struct part_ref *r = &part_refs[i];
				struct extent_info ei = {
					.type = BTRFS_FILE_EXTENT_REG,
					.file_pos = r->pos,
					.disk_bytenr = (1ull << 32) +
						       (8 * g + r->extent) *
							       (1ull << 20),
					.disk_num_bytes = PART_K / 2,
					.num_bytes = r->bytes,
					.ram_bytes = PART_K,
				};

				if (r->file != f)
					continue;
				if (g_sectors && r->extent == 5) {
					list_sectors(p, &ei);
					continue;
				}
				CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, NULL, 0),
						0);
			}
			CU_ASSERT_EQUAL(sampleplan_add(p,
						       file_key(g_dev, 3 * g + f),
						       1, 4 * PART_K, 4 * PART_K,
						       1, 100, -1, NULL),
					0);
		}
	return WALK_SKIP;
}

static void test_part_shares(void)
{
	static const unsigned want[3][4] = {
		{ 0, 0, 0, 0 },
		{ SAMPLE_PB_COPY, SAMPLE_PB_COPY, SAMPLE_PB_COUNTS,
		  SAMPLE_PB_COPY },
		{ SAMPLE_PB_COPY, SAMPLE_PB_COPY, SAMPLE_PB_COPY, 0 },
	};
	unsigned part_away[SAMPLE_PB_SLOTS + 1] = {
		[0] = SAMPLE_AWAY | SAMPLE_AWAY_OWN,
		[SAMPLE_PB_COPY] = SAMPLE_AWAY,
	};
	const uint64_t size = 4 * PART_K;
	struct sample_design d;
	struct sample_bands *b = NULL;
	struct seen_set *s = NULL;
	size_t g, f, k, bad = 0, runs = 0;

	plan_with(list_parts, &d, &b, &s);
	for (g = 0; g < PART_GROUPS; g++)
		for (f = 0; f < 3; f++) {
			uint64_t key = file_key(g_dev, 3 * g + f);
			unsigned band = sample_bands_get(b, key);
			const uint8_t *pb = sample_bands_parts(b, key, 4);

			bad += !!(band & SAMPLE_AWAY) != (f > 0);
			bad += !!(band & SAMPLE_AWAY_OWN) != (f > 0);
			bad += f && !pb;
			for (k = 0; k < 4; k++) {
				unsigned code = pb ? (pb[k] >> SAMPLE_PB_SLOT) &
							     SAMPLE_PB_SLOTS :
						     0;
				unsigned h = sample_unit_stratum(size, size,
								 band, pb, k);

				bad += code != want[f][k];
				/* a part that counts: the strata of the
				 * files that count; a copy's: the away ones
				 * without SAMPLE_AWAY_OWN */
				if (f && pb)
					bad += h != sample_stratum(
						size, size,
						(pb[k] & SAMPLE_PB_BAND) |
							part_away[code]);
				/* E5's part, in its file's strata */
				if (f == 2 && k == 3 && pb)
					runs += (pb[k] & SAMPLE_PB_BAND) ==
						(g_sectors ? SAMPLE_BAND_RAW :
							     SAMPLE_BAND_RAW_RUNS);
			}
		}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(runs, PART_GROUPS);
	sample_bands_free(b);
	seen_free(s);
}

static void test_part_sectors(void)
{
	g_sectors = 1;
	test_part_shares();
	g_sectors = 0;
}

static CU_TestInfo tests[] = {
	{ "sharers, planned twice", test_sharers },
	{ "sharers' items kept", test_kept },
	{ "sharers' items kept, room for some", test_kept_full },
	{ "away at more than half", test_half },
	{ "a big file away: each part by what of it counts",
	  test_part_shares },
	{ "... its raw own bytes in blocks of a sector: the raw band",
	  test_part_sectors },
	{ "put in the walk's order", test_reorder },
	{ "a name's kind", test_name_kind },
	{ "the raw band divided by kind", test_raw_kinds },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(sampleplan, tests)
