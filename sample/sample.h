/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample: the sampling design of `--estimate --sample` and its interval,
 * pure (no I/O, no threads).  See docs/sampling.md.
 *
 * Units: a file of one async chunk (512 KiB) or less is one unit; a larger
 * file is cut into 512 KiB units of file offset, the kernel's async chunks,
 * where its failure rule applies.  Files without data are no unit: they
 * predict nothing, exactly.  Units fall into strata by kind (small files
 * by size class, chunks by the size of their file) and, where the current
 * on-disk usage is known, by the file's current compression ratio band.
 * Within a stratum every unit is in the sample with the same probability
 * pi_h, independently (stratified Bernoulli sampling), decided by a hash of
 * (seed, st_dev, st_ino, unit index): the same tree and seed always give
 * the same sample, and a larger pi_h keeps every unit of a smaller one.
 *
 * Each stratum's total is estimated with the ratio estimator X_h * sy/sx
 * (x: a unit's data bytes, y: what it is predicted to use), and its
 * variance as for a simple random sample of the n_h units drawn (which a
 * Bernoulli sample is, given n_h), with a floor for strata with few draws
 * and a Student t quantile on Satterthwaite's degrees of freedom.
 */
#ifndef COMPSIZE_SAMPLE_H
#define COMPSIZE_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* run_delalloc_compressed()'s async chunk: a big file's unit. */
#define SAMPLE_CHUNK		(512u * 1024)
/* Current compression ratio bands (sample_band()): 0 = not known, 1 and 2
 * compressed now, SAMPLE_BAND_RAW stored raw now, which the pre-pass
 * divides by the kind of the file's name, SAMPLE_BAND_KINDS + the kind
 * (sample_band_kind()). */
#define SAMPLE_BAND_RAW		3u
#define SAMPLE_BAND_KINDS	4u
#define SAMPLE_BANDS		8
/* A part of a big file away of which some counts, in the file's away
 * strata, whose own bytes are raw now and not all in extents of one
 * sector (sampleplan_part_bands()): written after NOCOMPRESS, which
 * compress-force= ignores, not the blocks of one sector raw under every
 * setting.  Band 0, which no data of known ratio has otherwise. */
#define SAMPLE_BAND_RAW_RUNS	0u
/* An extent of at most this many bytes is one sector: the kernel never
 * compresses it (the default sector size; a stratum is never wrong, only
 * less useful). */
#define SAMPLE_ONE_SECTOR	4096u
/* Report rows are estimated by band with the raw band whole (its kinds
 * folded back into it: the rows' sums stay as small as before), a
 * stratum's sample_row_band() of SAMPLE_ROW_BANDS. */
#define SAMPLE_ROW_BANDS	SAMPLE_BAND_KINDS
#define SAMPLE_CLASSES		7
/* The first class of big files' parts (sample_stratum()). */
#define SAMPLE_PART_CLASS	5u
/* Files whose parts are strata of their own (sample_own_strata()), at
 * most: each file's parts by band after the classes' strata. */
#define SAMPLE_OWN_FILES	8
/* A file's band with this bit: more than half of its data is met first
 * through other files (a snapshot's or reflinked copy's): little or
 * nothing of it counts in the same layout, and its units have the classes'
 * strata again, after the own files' (sample_stratum()), apart from those
 * that count. */
#define SAMPLE_AWAY		8u
/* ... and this one too: some of it counts in the same layout (the share
 * of its data no file before it references, or inline items kept with
 * every file), and its units have the classes' strata a third time, apart
 * from the copies that count nothing (sample_stratum()): drawn at the
 * share that counts of their own, not of the copies' (sample_pop.W). */
#define SAMPLE_AWAY_OWN		16u
#define SAMPLE_STRATA		((3 * SAMPLE_CLASSES + SAMPLE_OWN_FILES) * \
				 SAMPLE_BANDS)
/* A part's entry in a file's bands (sample_unit_stratum()): its band in
 * the low bits, above them 1 + the file's own slot (0: none). */
#define SAMPLE_PB_BAND		7u
#define SAMPLE_PB_SLOT		3
#define SAMPLE_PB_SLOTS		15u	/* the slot, shifted down */
/* Slots past the own files' for a part of a file away of which some
 * counts (SAMPLE_AWAY_OWN), by what of the part counts: all of it or
 * most (the part of a write of the file's own: the strata of the files
 * that count), or none of it (a copy's: the away strata without
 * SAMPLE_AWAY_OWN).  A part that counts in part keeps its file's. */
#define SAMPLE_PB_COUNTS	15u
#define SAMPLE_PB_COPY		14u
/* A part with no data (SEEK_DATA found none in it): no unit.  Its stratum
 * is SAMPLE_NO_STRATUM, in no population and never drawn, as a file
 * without data is (a sparse file's holes exactly known as nothing). */
#define SAMPLE_PB_EMPTY		0x80u
#define SAMPLE_NO_STRATUM	SAMPLE_STRATA
/* Expected draws a stratum gets at least (when it has that many units). */
#define SAMPLE_MIN_DRAWS	16
/* ... where no current ratio is known and the strata are by the kinds
 * names tell (sample_kind()), and in the raw band's strata divided by them
 * (sample_band_kind()): the classes' strata, and a file's own, which mix
 * more (docs/sampling.md). */
#define SAMPLE_MIN_DRAWS_KIND	24
#define SAMPLE_MIN_DRAWS_KIND_OWN	32
/* ... times this in the away strata of files of 2 to 4 KiB (a class of
 * sample_stratum()): in the same layout each counts in full or not at
 * all, by whether the setting stores it inline (counted with every file)
 * or in an extent (counted once, with the first file): a copy of a file
 * that leaves inline counts nothing, one that goes inline all.  Those
 * that jump are often few yet decide the stratum's total, and a few dozen
 * draws that see none of them claim it exact (a tree beside many
 * snapshots of small headers under compress=lzo); the jumps n draws may
 * not see are in the same layout's variance: estimate(). */
#define SAMPLE_JUMP_DRAWS	8

/* The population: units and data bytes of each stratum, and their
 * current disk bytes where known (sample_pop_cur(): 0 elsewhere). */
struct sample_pop {
	uint64_t N[SAMPLE_STRATA];
	uint64_t X[SAMPLE_STRATA];
	uint64_t C[SAMPLE_STRATA];
	/* of X in an away stratum (SAMPLE_AWAY), the bytes known to count
	 * in the estimate asked (sample_pop_add_counted()): the plan draws
	 * the stratum at that share of the others' rate */
	uint64_t W[SAMPLE_STRATA];
};

/* A current ratio in SAMPLE_Q_ONEths (0: not known): disk over
 * uncompressed bytes, at most 1 (sample_ratio_q()), or a small file's disk
 * bytes over its data bytes, up to 4 (sample_file_q(): 3 KiB in a sector
 * of 4). */
#define SAMPLE_Q_ONE		16384u

/* A file's current ratios: the file's, and each part's of a big file
 * (pq, or NULL: q for all).  A unit's current disk bytes c are its data
 * bytes times its ratio (sample_unit_cur()): the auxiliary of the
 * estimator besides the data bytes (docs/sampling.md). */
struct sample_cur {
	uint16_t q;
	const uint16_t *pq;
};

/*
 * What names each device in the draws (sample_in()) in place of its st_dev,
 * which a mount numbers anew: the id of the filesystem it holds (statfs's
 * f_fsid: from its UUID, and on btrfs a subvolume's from its id too), so
 * that the same tree and seed draw the same units after a remount or a
 * reboot.  A table of SAMPLE_DEVS slots, made at the first name and named
 * three quarters full at most (a subvolume is a device: a tree of
 * thousands of snapshots).  One thread adds (sample_devs_add()), any
 * reads: a slot's id is written before its key, and never moves.
 */
#define SAMPLE_DEVS	4096u
struct sample_devs {
	unsigned n;		/* devices named */
	struct sample_dev {
		uint64_t key;	/* st_dev + 1; 0: a free slot */
		uint64_t id;
	} *d;
};

/* Name device dev by id in the draws, unless it has a name already.  An id
 * of 0 (none known), or one another device has, leaves it named by dev;
 * a full table, or none for want of memory, leaves it unnamed for good
 * (sample_devs_id(): dev).  No effect when t is NULL. */
void sample_devs_add(struct sample_devs *t, uint64_t dev, uint64_t id);
/* What names device dev in the draws: its id, or dev. */
uint64_t sample_devs_id(const struct sample_devs *t, uint64_t dev);
/* Free the table (t itself is the caller's). */
void sample_devs_free(struct sample_devs *t);

/* The design: each stratum's probability, the seed, and the floors it
 * was planned with (sample_plan(), sample_plan_floors()): the classes'
 * strata's and a file's own, in bands that are ratios and in the raw band
 * divided by kind; and devs, NULL (as planned) or the devices' names in
 * the draws. */
struct sample_design {
	double pi[SAMPLE_STRATA];
	/* each stratum's share of the common rate: 1, or an away
	 * stratum's W / X */
	double w[SAMPLE_STRATA];
	uint64_t seed;
	unsigned min, min_own, raw_min, raw_own;
	const struct sample_devs *devs;
};

/* The sampled units of one quantity (e.g. one setting's disk bytes). */
struct sample_acc {
	uint64_t n[SAMPLE_STRATA];
	unsigned __int128 sx[SAMPLE_STRATA], sy[SAMPLE_STRATA];
	unsigned __int128 sxx[SAMPLE_STRATA], syy[SAMPLE_STRATA];
	unsigned __int128 sxy[SAMPLE_STRATA];
	/* sample_acc_add_share(): the units' own bytes, before scaling */
	unsigned __int128 sx0[SAMPLE_STRATA], sxx0[SAMPLE_STRATA];
	/* sample_acc_add_cur(): the units' current disk bytes c */
	unsigned __int128 sc[SAMPLE_STRATA], scc[SAMPLE_STRATA];
	unsigned __int128 sxc[SAMPLE_STRATA], scy[SAMPLE_STRATA];
};

struct sample_result {
	double total;		/* estimate of the population total of y */
	double half;		/* half-width of its 95% interval */
	double se;		/* its standard error */
	double df;		/* degrees of freedom of the t quantile used */
	uint64_t units;		/* units sampled */
	uint64_t empty;		/* strata with units but no draw */
	double b;		/* the current bytes' slope (0: not used) */
};

/*
 * The ratio band of a file whose data bytes x use disk bytes now (disk and
 * x both known, x > 0): 1 (< 0.5), 2 (< 0.9) or 3.  Returns 0 (unknown)
 * when x is 0 or known is 0.
 */
unsigned sample_band(int known, uint64_t x, uint64_t disk);

/*
 * The band a file's name suggests where its current ratio is not known
 * (off btrfs, or without root): 3 for formats compressed already (.gz,
 * .jpg, .mkv...), 1 for text (.c, .html, .txt...), 2 for binary formats
 * that compress in part (.so, .pyc, .ttf...), 0 for any other.  Only the
 * last component of name counts.  A stratum is never wrong, only more or
 * less useful: a name that lies costs precision, not bias.
 */
unsigned sample_kind(const char *name);

/*
 * A current ratio band divided by kind (sample_kind(), or -1: not
 * divided).  Data stored raw may be what the kernel would not compress
 * (.xz, .jpg) or what nothing asked it to compress (a filesystem mounted
 * without compression, the most common case of all, or data written
 * before compression was set): the raw band tells nothing of which, the
 * kind of the file's name does (SAMPLE_BAND_KINDS + kind).  Any other
 * band, or kind -1, is returned as it is.
 */
unsigned sample_band_kind(unsigned band, int kind);

/* Band bits b (a file's band, or a part's entry: the band in its low
 * bits, flags above) with the raw band's kind folded back into the raw
 * band; any other band as it is. */
unsigned sample_band_fold(unsigned b);

/* The row band of stratum h (SAMPLE_ROW_BANDS): its band, the raw band's
 * kinds folded back into it. */
unsigned sample_row_band(unsigned h);

/* Units of a file of size bytes (st_size) holding x data bytes: 0 when x is
 * 0, 1 up to SAMPLE_CHUNK, else one per SAMPLE_CHUNK of size. */
uint64_t sample_units(uint64_t size, uint64_t x);

/* The stratum of a file's units (all of a file's units share it). */
unsigned sample_stratum(uint64_t size, uint64_t x, unsigned band);

/*
 * Unit k's file range [*off, *off + *len) and its data bytes (the return
 * value): its share of x, rounded so that a file's units add up to x
 * exactly (a sparse file's holes spread evenly).
 */
uint64_t sample_unit(uint64_t size, uint64_t x, uint64_t k, uint64_t *off,
		     uint64_t *len);

/* Add a file's units to the population. */
void sample_pop_add(struct sample_pop *p, uint64_t size, uint64_t x,
		    unsigned band);

/* Take back a file sample_pop_add() added (it could not be read). */
void sample_pop_remove(struct sample_pop *p, uint64_t size, uint64_t x,
		       unsigned band);

/*
 * The stratum of unit k of a file: where pb is given (a file larger than
 * a unit, pb[k] the current ratio band of each of its parts:
 * sample_parts_bands()), by its part's band, and by the file's own slot
 * where it has one (SAMPLE_PB_SLOT), or by what of the part counts
 * (SAMPLE_PB_COUNTS, SAMPLE_PB_COPY), or SAMPLE_NO_STRATUM for a part
 * without data (SAMPLE_PB_EMPTY); else by the file's band.
 */
unsigned sample_unit_stratum(uint64_t size, uint64_t x, unsigned band,
			     const uint8_t *pb, uint64_t k);

/*
 * Whether a big file of n parts, in a tree whose big files have all_parts
 * parts, has strata of its own: at least 64 parts and an eighth of them
 * (so at most SAMPLE_OWN_FILES files).  Under compress= the parts of a
 * file after the one that sets NOCOMPRESS are raw whatever they hold: in a
 * file that holds much of the tree, that is a file's matter, which its
 * own strata keep from looking like a rare event among other files' parts.
 */
int sample_own_strata(uint64_t n, uint64_t all_parts);

/* Whether stratum h is one of a file's own (sample_own_strata()). */
int sample_stratum_own(unsigned h);

/* sample_pop_add() and sample_pop_remove() by sample_unit_stratum(). */
void sample_pop_add_parts(struct sample_pop *p, uint64_t size, uint64_t x,
			  unsigned band, const uint8_t *pb);
void sample_pop_remove_parts(struct sample_pop *p, uint64_t size, uint64_t x,
			     unsigned band, const uint8_t *pb);

/*
 * A big file's parts' current ratios, from its extent items: each part's
 * referenced bytes and their share of their extents' disk bytes.  Zeroed,
 * it is empty; sample_parts_reset() empties it for the next file.
 */
struct sample_parts {
	uint32_t *v;		/* ram, disk of part k at 2k, 2k + 1 */
	uint64_t n, cap;
};
void sample_parts_reset(struct sample_parts *p);
void sample_parts_free(struct sample_parts *p);
/* A reference to len bytes at file offset pos of an extent of ram bytes
 * stored in disk bytes.  Returns 0 or -ENOMEM. */
int sample_parts_extent(struct sample_parts *p, uint64_t pos, uint64_t len,
			uint64_t disk, uint64_t ram);
/* The bands of parts 0..n-1 into pb (0 for a part without data), a raw
 * one's divided by kind, its file's, or not (-1: sample_band_kind()). */
void sample_parts_bands(const struct sample_parts *p, uint64_t n, int kind,
			uint8_t *pb);
/* Their ratios (sample_ratio_q()) into pq. */
void sample_parts_ratios(const struct sample_parts *p, uint64_t n,
			 uint16_t *pq);

/*
 * The same with each unit's bytes x scaled by a (a file's known share of
 * the same layout, layout_known_share(): the auxiliary of the same
 * layout's own estimate, docs/sampling.md); a unit drawn then counts
 * sample_share_x(a, x) bytes, rounded alike.
 */
void sample_pop_add_share(struct sample_pop *p, uint64_t size, uint64_t x,
			  unsigned band, const uint8_t *pb, double a);
void sample_pop_remove_share(struct sample_pop *p, uint64_t size, uint64_t x,
			     unsigned band, const uint8_t *pb, double a);
uint64_t sample_share_x(double a, uint64_t x);

/* ram bytes stored in disk bytes as a ratio (0 when ram is 0). */
uint16_t sample_ratio_q(uint64_t ram, uint64_t disk);
/*
 * The current ratio of a file of size bytes holding x data bytes whose
 * extents store ram bytes in disk bytes (0 when ram is 0): a big file's
 * sample_ratio_q(), the ratio of its parts without their own; a file of
 * one unit (up to SAMPLE_CHUNK) its disk bytes over x, so that its
 * current disk bytes (sample_unit_cur()) are what it takes now, whole
 * sectors and inline items as they are (a 3 KiB file that did not
 * compress takes 4 KiB, and would again).
 */
uint16_t sample_file_q(uint64_t size, uint64_t x, uint64_t ram,
		       uint64_t disk);
/* x bytes at ratio q: their current disk bytes. */
uint64_t sample_cur_bytes(uint64_t x, uint16_t q);
/* Unit k's current disk bytes (0 where c is NULL or knows none). */
uint64_t sample_unit_cur(const struct sample_cur *c, uint64_t size,
			 uint64_t x, uint64_t k);
/* Add (sign 1) or take back (-1) a file's units by sample_unit_stratum(),
 * their bytes scaled by a (as sample_pop_add_share(); 1: as they are),
 * with their current disk bytes (c, scaled alike) in C. */
void sample_pop_cur(struct sample_pop *p, uint64_t size, uint64_t x,
		    unsigned band, const uint8_t *pb, double a,
		    const struct sample_cur *c, int sign);

/* Of a file's units in their away strata (band has SAMPLE_AWAY), the
 * share a the same layout is known to count, into W. */
void sample_pop_add_counted(struct sample_pop *p, uint64_t size, uint64_t x,
			    unsigned band, const uint8_t *pb, double a);

/* sample_pop_cur() and sample_pop_add_counted() with a share for each of
 * a big file's parts (ak[k]) instead of one for all. */
void sample_pop_cur_parts(struct sample_pop *p, uint64_t size, uint64_t x,
			  unsigned band, const uint8_t *pb, const double *ak,
			  const struct sample_cur *c, int sign);
void sample_pop_add_counted_parts(struct sample_pop *p, uint64_t size,
				  uint64_t x, unsigned band,
				  const uint8_t *pb, const double *ak);

/* Units and data bytes of the whole population. */
uint64_t sample_pop_units(const struct sample_pop *p);
uint64_t sample_pop_bytes(const struct sample_pop *p);

/*
 * Plan the design: pi_h = min(1, max(c w_h, SAMPLE_MIN_DRAWS / N_h)), with
 * w_h 1 (an away stratum's W_h / X_h) and c
 * such that the expected data bytes read, sum(pi_h X_h), is budget (when
 * the minimum draws alone need more, they get it).  The raw band's strata
 * divided by the names' kinds (sample_band_kind()) have the floors of
 * strata by kind (SAMPLE_MIN_DRAWS_KIND, SAMPLE_MIN_DRAWS_KIND_OWN).
 * Returns the expected data bytes read.
 */
double sample_plan(struct sample_design *d, const struct sample_pop *p,
		   uint64_t budget, uint64_t seed);
/* The same with min expected draws in the classes' strata and min_own in
 * the files' own strata, every band alike (strata by kind alone). */
double sample_plan_floors(struct sample_design *d, const struct sample_pop *p,
			  uint64_t budget, uint64_t seed, unsigned min,
			  unsigned min_own);
/* The design of another budget with d's seed, floors, weights and devs. */
double sample_replan(struct sample_design *at, const struct sample_pop *p,
		     uint64_t budget, const struct sample_design *d);

/* Whether unit k of file (dev, ino) in stratum h is in the sample: dev is
 * its st_dev, named as d->devs says. */
int sample_in(const struct sample_design *d, unsigned h, uint64_t dev,
	      uint64_t ino, uint64_t k);

/* Whether any unit of a file (as for sample_pop_add()) is in the sample. */
int sample_file_in(const struct sample_design *d, uint64_t dev, uint64_t ino,
		   uint64_t size, uint64_t x, unsigned band);
/* The same, by sample_unit_stratum(). */
int sample_file_in_parts(const struct sample_design *d, uint64_t dev,
			 uint64_t ino, uint64_t size, uint64_t x, unsigned band,
			 const uint8_t *pb);

/* Add a sampled unit of stratum h with x data bytes predicted to use y. */
void sample_acc_add(struct sample_acc *a, unsigned h, uint64_t x,
		    uint64_t y);

/* The same for a same layout's unit (sample_pop_add_share()): x is its
 * bytes scaled by its file's share, x0 its bytes. */
void sample_acc_add_share(struct sample_acc *a, unsigned h, uint64_t x0,
			  uint64_t x, uint64_t y);

/* The same with the unit's current disk bytes c (scaled as x is, for a
 * same layout's: sample_acc_add_share()). */
void sample_acc_add_cur(struct sample_acc *a, unsigned h, uint64_t x,
			uint64_t c, uint64_t y);
void sample_acc_add_share_cur(struct sample_acc *a, unsigned h, uint64_t x0,
			      uint64_t x, uint64_t c, uint64_t y);

/* Add the sums of src to dst (exact: the order does not matter). */
void sample_acc_merge(struct sample_acc *dst, const struct sample_acc *src);

/* A key for a file (st_dev, st_ino) in a set of u64 (seen.h). */
uint64_t sample_key(uint64_t dev, uint64_t ino);

/*
 * What stands for st_dev in the keys of the files of subvolume tree_id
 * nested below a directory on dev that the pre-pass listed with the fast
 * scan: their st_dev is not known there, and the walk maps their st_dev
 * to this when it enters the subvolume.
 */
uint64_t sample_subvol_dev(uint64_t dev, uint64_t tree_id);

/*
 * Each file's current ratio band (sample_band()), by sample_key(): files
 * not in it are band 0; and, for the files the fast scan listed, their
 * sample_facts.  An open-addressing table of 33 bytes a slot.
 */
struct sample_bands;

/* Returns NULL when out of memory. */
struct sample_bands *sample_bands_create(void);
void sample_bands_free(struct sample_bands *b);

/* Remember band (1..3; 0 is not stored) for key.  Returns 0 or -ENOMEM. */
int sample_bands_put(struct sample_bands *b, uint64_t key, unsigned band);

/* The band of key, 0 when unknown (or b is NULL). */
unsigned sample_bands_get(const struct sample_bands *b, uint64_t key);

/* What the pre-pass read of a file in its inode item (the fast scan): what
 * fstatat() would tell the walk of it, without the system call. */
struct sample_facts {
	uint64_t size;		/* st_size */
	uint64_t nbytes;	/* st_blocks * 512 (a committed inode) */
	uint32_t nlink;
};

/* Remember for key, in one look-up, band as sample_bands_put() does, its
 * current ratio q (sample_ratio_q(); 0 is not stored) and f (when not
 * NULL; its band, if any, is kept).  Returns 0 or -ENOMEM. */
int sample_bands_put_file(struct sample_bands *b, uint64_t key,
			  unsigned band, uint16_t q,
			  const struct sample_facts *f);

/* 1 and *f when key's facts are known, else 0 (or b is NULL). */
int sample_bands_facts(const struct sample_bands *b, uint64_t key,
		       struct sample_facts *f);

/* Remember key's n parts' current ratios (copied).  Returns 0 or
 * -ENOMEM. */
int sample_bands_put_parts_q(struct sample_bands *b, uint64_t key,
			     const uint16_t *pq, uint64_t n);
/* Key's current ratio (0: not known), its n parts' (NULL: none, or not
 * for n parts: the file changed since). */
uint16_t sample_bands_q(const struct sample_bands *b, uint64_t key);
const uint16_t *sample_bands_parts_q(const struct sample_bands *b,
				     uint64_t key, uint64_t n);

/* Remember the bands of the n parts of key's file (copied).  Returns 0 or
 * -ENOMEM. */
int sample_bands_put_parts(struct sample_bands *b, uint64_t key,
			   const uint8_t *pb, uint64_t n);

/* The bands of key's n parts, or NULL (none known, not for n parts: the
 * file changed since, or b is NULL). */
const uint8_t *sample_bands_parts(const struct sample_bands *b, uint64_t key,
				  uint64_t n);

/* What sample_bands_get(), sample_bands_q(), sample_bands_parts() and
 * sample_bands_parts_q() tell of key's file of n parts, from one look-up
 * in each table (all 0 and NULL when b is NULL). */
struct sample_file_bands {
	unsigned band;
	uint16_t q;
	const uint8_t *pb;
	const uint16_t *pq;
};
void sample_bands_file(const struct sample_bands *b, uint64_t key,
		       uint64_t n, struct sample_file_bands *out);

/*
 * The estimate of the total of y over the population and its 95%
 * interval.  Certainty strata (pi_h = 1) are exact.  A stratum with one
 * draw, or with residuals that are all alike, gets at least the pooled
 * relative spread of the other strata (shrunk toward it by
 * SAMPLE_PRIOR_DF); one with no draw is estimated by the pooled ratio with
 * a standard error of 100%.
 */
void sample_estimate(const struct sample_pop *p, const struct sample_design *d,
		     const struct sample_acc *a, struct sample_result *r);
/* The same for a same layout (sample_acc_add_share()): where the files'
 * shares differ within a stratum, its draws are worth fewer units, n
 * times the ratio of Kish's effective sizes, (sum x)^2 / sum x^2, of the
 * scaled bytes and of the units' own, in its degrees of freedom, its
 * small-sample correction and its floor (n when the shares are alike). */
void sample_estimate_share(const struct sample_pop *p,
			   const struct sample_design *d,
			   const struct sample_acc *a, struct sample_result *r);

/*
 * The standard error sample_estimate() (share: sample_estimate_share())
 * would give under design at instead of d, each stratum's spread per unit
 * as the draws under d tell it, its draws scaled by at's probability over
 * d's: how large the next round of --sample=auto must be.  A stratum
 * without a draw keeps its 100%; one every unit of which at reads counts
 * nothing.  0 when nothing is sampled.  *now is the estimate under d,
 * sample_estimate()'s (or sample_estimate_share()'s) result.
 */
double sample_predict_se(const struct sample_pop *p,
			 const struct sample_design *d,
			 const struct sample_acc *a,
			 const struct sample_design *at, int share,
			 struct sample_result *now);

/* The current disk bytes' slope the estimate would take in the strata
 * of one row band (sample_row_band(); sample_estimate()'s is common to
 * all): for report rows, estimated band by band. */
double sample_band_slope(const struct sample_pop *p,
			 const struct sample_design *d,
			 const struct sample_acc *a, unsigned band);

/* Student's t 97.5% quantile with df degrees of freedom (df >= 1). */
double sample_t975(double df);

/* The hash deciding membership, as a number in [0, 1). */
double sample_u(uint64_t seed, uint64_t dev, uint64_t ino, uint64_t k);

/* The bytes of data in a file, which the sample is planned and scaled by:
 * st_blocks * 512 (holes cost nothing), at most st_size; st_size when the
 * filesystem reports no blocks. */
uint64_t sample_data_bytes(const struct stat *st);

#endif
