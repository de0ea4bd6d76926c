// SPDX-License-Identifier: GPL-2.0
/*
 * --sample in a run (run_internal.h): the pre-pass (run_sample()), which
 * lists the files and their current ratios from the fast scan of each
 * directory it can count whole, and plans the sample and what the walk
 * need not meet (prune.h); then, during the walk, which files are drawn
 * or share, their keys, what is known of a file without a stat, the
 * files opened only when drawn, and the files left out counted when the
 * walk leaves the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "lib/array.h"
#include "report/ncdu.h"
#include "sample/prune.h"
#include "sample/sample.h"
#include "sample/sampleplan.h"
#include "scan/fastscan.h"
#include "scan/pending.h"
#include "scan/usage.h"
#include "seen.h"
#include "walk/mounts.h"
#include "walk/walk.h"
#include "walk/walkorder.h"
#include "run/run.h"
#include "run/run_internal.h"

/*
 * --sample: a subvolume nested below a directory the pre-pass counted:
 * its files' keys use what sample_listed() gave them.  Returns 0 or
 * -ENOMEM.
 */
int run_map_subvol(struct run *run, int fd, const struct stat *st)
{
	struct run_keydev *k;
	uint64_t id;
	size_t i;

	if (fastscan_probe(fd, &id) || id == run->sample.pre_id)
		return 0;
	for (i = 0; i < run->sample.nkeydevs; i++)
		if (run->sample.keydevs[i].dev == st->st_dev)
			return 0;
	k = array_grow(run->sample.keydevs, &run->sample.cap_keydevs,
		       run->sample.nkeydevs, sizeof(*k));
	if (!k)
		return -ENOMEM;
	run->sample.keydevs = k;
	k[run->sample.nkeydevs].dev = st->st_dev;
	k[run->sample.nkeydevs++].key =
		sample_subvol_dev(run->sample.pre_dev, id);
	return 0;
}

/* --sample: name st's device in the draws (struct sample_devs) by its
 * filesystem's id, from fd on it, before any of its files is drawn. */
void run_name_dev(struct run *run, int fd, const struct stat *st)
{
	struct statfs sf;
	uint64_t id = 0;

	if (!fstatfs(fd, &sf))
		id = (uint64_t)(uint32_t)sf.f_fsid.__val[0] << 32 |
		     (uint32_t)sf.f_fsid.__val[1];
	sample_devs_add(&run->sample.devs, st->st_dev, id);
}

/* --sample: the key of the file (dev, ino) in run->bands. */
uint64_t run_sample_key(const struct run *run, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < run->sample.nkeydevs; i++)
		if (run->sample.keydevs[i].dev == dev)
			return sample_key(run->sample.keydevs[i].key, ino);
	return sample_key(dev, ino);
}

/* --sample: whether a unit of file st is drawn. */
int run_drawn(const struct run *run, const struct stat *st)
{
	uint64_t key;

	if (run->sample.left_out)
		return 0;
	key = run_sample_key(run, st->st_dev, st->st_ino);
	return sample_file_in_parts(&run->sample.design, st->st_dev, st->st_ino,
				    st->st_size, sample_data_bytes(st),
				    sample_bands_get(run->sample.bands, key),
				    sample_bands_parts(run->sample.bands, key,
					sample_units(st->st_size,
						     sample_data_bytes(st))));
}

/* --sample: whether file st is one of the pre-pass's sharers (it
 * references an extent or inline bytes another file references too, or
 * holds preallocated space or part of an extent: sampleplan_run()); all
 * are when they are not known. */
int run_sharer(const struct run *run, dev_t dev, ino_t ino)
{
	return !run->sample.left_out &&
	       (!run->sample.sharers ||
		seen_contains(run->sample.sharers,
			      run_sample_key(run, dev, ino)));
}

/*
 * With --sample on the fast scan, the walk lists files without opening
 * them (walk_opts.stat_files): a file is opened only when its usage is
 * read file by file (not under a directory the fast scan counts) or the
 * sample draws a unit of it.  Returns its descriptor, -1 when it need not
 * be opened, or -2 when it could not be (gone: left out, as the walk
 * does; any other cause reported).
 */
int run_open_late(struct run *run, int dirfd, const char *name,
		  const char *path, const struct stat *st)
{
	struct stat now;
	int fd;

	if (run->deferred.depth >= 0 && !run_drawn(run, st))
		return -1;
	fd = openat(dirfd, name, O_RDONLY | O_NOATIME | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && !fstat(fd, &now) && now.st_ino == st->st_ino &&
	    now.st_dev == st->st_dev)
		return fd;
	if (fd >= 0) {
		close(fd);	/* replaced since it was listed */
		errno = ENOENT;
	}
	if (errno != ENOENT)
		run_report_failure(run, path, strerror(errno));
	return -2;
}

/* st_blocks * 512 of a btrfs file whose inode item holds nbytes:
 * btrfs_getattr() rounds them up to a sector (no delalloc counted: a
 * committed inode item has none); nbytes when the sector is not known. */
static uint64_t stat_bytes(uint64_t nbytes, uint32_t sectorsize)
{
	if (sectorsize < 512)
		return nbytes;
	return (nbytes + sectorsize - 1) / sectorsize * sectorsize;
}

/*
 * --sample: a regular file under a directory the pre-pass counted (so
 * nothing is mounted beneath it) is as its inode item said then
 * (sample_bands_facts()): no fstatat().  A file drawn is opened and
 * checked (run_open_late()).
 */
static int known_stat(struct run *run, dev_t dev, ino_t ino, struct stat *st)
{
	const struct usage_fs *fs = usage_fs_of(run->usage, dev);
	struct sample_facts f;

	if (!fs || fs->sectorsize < 512 ||
	    !sample_bands_facts(run->sample.bands,
				run_sample_key(run, dev, ino), &f))
		return 0;
	memset(st, 0, sizeof(*st));
	st->st_dev = dev;
	st->st_ino = ino;
	st->st_mode = S_IFREG;
	st->st_nlink = f.nlink;
	st->st_size = (off_t)f.size;
	st->st_blocks = (blkcnt_t)(stat_bytes(f.nbytes, fs->sectorsize) / 512);
	return 1;
}

/* The walk meets file ino in a directory on dev: 2 when it is left out
 * (run_count_left_out() counts it), else as known_stat(). */
int run_on_known(void *arg, dev_t dev, ino_t ino, struct stat *st)
{
	struct run *run = arg;

	if (run->deferred.depth < 0)
		return 0;
	if (run->sample.prune_state == 3 && dev == run->sample.prune_dev &&
	    prune_counted(run->sample.prune, ino))
		return 2;
	return known_stat(run, dev, ino, st);
}

/* The walk meets subdirectory ino of directory dir_ino on dev: left out
 * when nothing under it is to be met (prune_skip_dir()). */
int run_on_skip_dir(void *arg, dev_t dev, ino_t dir_ino, ino_t ino)
{
	struct run *run = arg;

	return run->sample.prune_state == 3 && run->deferred.depth >= 0 &&
	       dev == run->sample.prune_dev &&
	       prune_skip_dir(run->sample.prune, dir_ino, ino);
}

/*
 * --sample: the walk leaves the directory at path the pre-pass listed,
 * where prune_plan() found the files it need not meet, and which it left
 * out (run_on_known(), run_on_skip_dir()).  Count each now as the walk would
 * (run_one_file(): none is opened, drawn or shared), from what the pre-pass
 * knew of it, while the workers estimate what was drawn.  Only files
 * nothing depends on the order of are counted so: the estimates are the
 * walk's.
 */
int run_count_left_out(struct run *run, const char *path, int depth)
{
	const uint64_t *ino;
	struct stat st;
	size_t i, n = prune_ahead(run->sample.prune, &ino);
	int fd, ret = 0;

	for (i = 0; !ret && i < n; i++) {
		if ((i & 1023) == 1023) {
			ret = run_tick(run);
			if (ret)
				break;
		}
		if (!known_stat(run, run->sample.prune_dev, ino[i], &st))
			continue;
		fd = -1;
		run->sample.left_out = 1;
		ret = run_one_file(run, &fd, -1, NULL, path, &st, depth + 1);
		run->sample.left_out = 0;
	}
	run->sample.prune_state = 4;
	return ret;
}

/* The subvolume a sample_dir() scan started in, whose files' keys are
 * known: their st_dev is the directory's. */
struct sample_scan {
	struct sampleplan *p;
	int fd;			/* the directory's */
	dev_t dev;
	uint64_t id;
	uint32_t sectorsize;	/* the filesystem's (usage_probe_fs()) */
	struct prune *prune;	/* NULL, or the names' */
	struct walkorder *order;	/* NULL, or where the walk meets them */
	int by_names;	/* a file listed not in inode order (by_names) */
	/* the directory a stale file was last stat'ed in (stale_stat()) */
	uint64_t stat_tree, stat_dir;
	dev_t stat_dev;
	int stat_fd;
};

/*
 * The stat of a file whose inode item may lag behind (fastscan_file.stale):
 * by its first name in its directory, opened once for the files that
 * follow in it (alone, about half the cost of a handle opened and closed
 * for each), else through its own handle.  The name must lead to the file
 * itself (its inode number, on its directory's device: not something
 * mounted over it).  0, or -1 when neither finds it a regular file.
 */
static int stale_stat(struct sample_scan *sc, const struct fastscan_file *f,
		      struct stat *st)
{
	int fd, ret;

	if (f->name_len && f->parent) {
		if (sc->stat_fd < 0 || sc->stat_tree != f->tree_id ||
		    sc->stat_dir != f->parent) {
			if (sc->stat_fd >= 0)
				close(sc->stat_fd);
			/* generation 0: any (btrfs_get_dentry()); what is
			 * found there is checked by its inode number */
			sc->stat_fd = pending_open(sc->fd, f->tree_id,
						   f->parent, 0,
						   O_PATH | O_DIRECTORY);
			sc->stat_tree = f->tree_id;
			sc->stat_dir = f->parent;
			if (sc->stat_fd >= 0 && fstat(sc->stat_fd, st)) {
				close(sc->stat_fd);
				sc->stat_fd = -1;
			}
			sc->stat_dev = sc->stat_fd >= 0 ? st->st_dev : 0;
		}
		if (sc->stat_fd >= 0 &&
		    !fstatat(sc->stat_fd, f->name, st, AT_SYMLINK_NOFOLLOW) &&
		    st->st_ino == f->ino && st->st_dev == sc->stat_dev &&
		    S_ISREG(st->st_mode))
			return 0;
	}
	fd = pending_open(sc->fd, f->tree_id, f->ino, f->generation, O_PATH);
	ret = fd >= 0 && !fstat(fd, st) && S_ISREG(st->st_mode) ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* A file's key as sample_listed() gives it (walkorder_ranks()). */
static uint64_t sample_scan_key(void *arg, uint64_t tree_id, uint64_t ino)
{
	const struct sample_scan *sc = arg;

	return sample_key(tree_id == sc->id ? sc->dev :
			  sample_subvol_dev(sc->dev, tree_id), ino);
}

static int sample_place(void *arg, uint64_t tree_id, uint64_t dir,
			uint64_t index, uint64_t child, int kind)
{
	const struct sample_scan *sc = arg;

	return walkorder_entry(sc->order, tree_id, dir, index, child, kind);
}

/* The files the scan listed, in the order the walk meets them
 * (walkorder.h): out of memory, as they were. */
static void sample_scan_order(struct sample_scan *sc, uint64_t root,
			      size_t since)
{
	struct walkorder_rank *r;
	size_t n;
	int listed = 0;

	/* listed through names, the files came in batches: never in the
	 * order walkorder_ranks() calls listed */
	if (walkorder_ranks(sc->order, sc->id, root, sample_scan_key, sc, &r,
			    &n, sc->by_names ? NULL : &listed) || listed)
		return;
	/* the entries' memory back first */
	walkorder_free(sc->order);
	sc->order = NULL;
	sampleplan_reorder(sc->p, since, r, n);
	free(r);
}

static int sample_listed(void *arg, const struct fastscan_file *f)
{
	struct sample_scan *sc = arg;
	struct sample_facts facts = {
		.size = f->size,
		.nbytes = f->nbytes,
		.nlink = f->nlink,
	};
	const struct sample_facts *known = &facts;
	struct stat st;
	uint64_t nb, x;

	sc->by_names |= f->by_names;
	if (f->stale) {
		/* Its inode item may lag behind (a change not committed):
		 * the file's own stat, as the walk's pre-pass sees it, so
		 * that both draw the same sample.  Without it the walk
		 * stats the file (known_stat() fails). */
		known = NULL;
		if (!stale_stat(sc, f, &st)) {
			facts.size = (uint64_t)st.st_size;
			facts.nbytes = (uint64_t)st.st_blocks * 512;
			facts.nlink = (uint32_t)st.st_nlink;
			known = &facts;
		}
	}
	/* as sample_data_bytes() of the stat the walk has of it
	 * (known_stat()): an inline extent with others after it leaves
	 * nbytes off a sector's multiple */
	nb = stat_bytes(facts.nbytes, sc->sectorsize);
	x = nb && nb <= facts.size ? nb : facts.size;

	/* a nested subvolume's st_dev is not known here: its files are
	 * keyed by it and the walk maps its st_dev to the same when it
	 * enters it (on_enter_fs()) */
	uint64_t dev = f->tree_id == sc->id ? sc->dev :
		       sample_subvol_dev(sc->dev, f->tree_id);

	return sampleplan_add(sc->p, sample_key(dev, f->ino), facts.nlink,
			      facts.size, x,
			      facts.size ? sample_band(1, f->ram, f->disk) : 0,
			      facts.size ? sample_file_q(facts.size, x, f->ram,
							 f->disk) : 0,
			      sampleplan_name_kind(facts.nlink, f->name),
			      known);
}

static int sample_ref(void *arg, const struct extent_info *ei,
		      const uint8_t *item, size_t len)
{
	const struct sample_scan *sc = arg;

	return sampleplan_ref(sc->p, ei, item, len);
}

static int sample_entry(void *arg, uint64_t tree_id, uint64_t dir,
			uint64_t child, uint8_t loc_type, uint8_t ftype)
{
	const struct sample_scan *sc = arg;

	return prune_entry(sc->prune, tree_id, dir, child, loc_type, ftype);
}

/* --sample: whether the walk must meet the file ino of the directory the
 * pre-pass listed: unless it is known, has one link, and is neither drawn
 * nor a sharer (run_count_left_out()). */
static int prune_need(void *arg, uint64_t ino)
{
	struct run *run = arg;
	struct stat st;

	if (!known_stat(run, run->sample.prune_dev, ino, &st) ||
	    st.st_nlink != 1)
		return 1;
	return run_drawn(run, &st) || run_sharer(run, st.st_dev, st.st_ino);
}

/*
 * The pre-pass meets a directory: where the walk would count it with the
 * fast scan, count it now, and list its files and their current ratios
 * from the same items (sampleplan_add()); the walk then only reads the
 * files drawn under it (defer_scan() finds it counted).
 */
static int sample_dir(void *arg, struct sampleplan *p, int fd,
		      const char *path, const struct stat *st, int depth)
{
	struct run *run = arg;
	struct fastscan_listener ls = {
		.file = sample_listed,
		.ref = sample_ref,
		.names = 1,	/* their kinds: sampleplan_name_kind() */
	};
	struct sample_scan sc = { .p = p, .fd = fd, .dev = st->st_dev,
				.stat_fd = -1 };
	const struct usage_fs *fs;
	size_t since = sampleplan_files(p);
	int ret;

	(void)depth;
	/* the walk's draws start before it: prune_need() */
	run_name_dev(run, fd, st);
	if (!run->mounts) {
		run->mounts = mounts_create();
		if (!run->mounts)
			return -ENOMEM;
	}
	ret = usage_probe_fs(run->usage, fd, st);
	if (ret == -ENOMEM)
		return ret;
	/* anything else odd: the walk finds and reports it */
	if (ret != 1 || mounts_beneath(run->mounts, st) ||
	    fastscan_probe(fd, &sc.id))
		return WALK_ENTER;
	fs = usage_fs_of(run->usage, st->st_dev);
	sc.sectorsize = fs ? fs->sectorsize : 0;
	if (!run->sample.prescanned) {
		run->sample.prescanned = seen_create();
		if (!run->sample.prescanned)
			return -ENOMEM;
	}
	/* the first directory listed: its names too (prune.h) */
	if (!run->sample.prune_state) {
		sc.prune = prune_create(sc.id, st->st_ino);
		if (!sc.prune)
			return -ENOMEM;
		ls.entry = sample_entry;
	}
	/* the walk's order, for which of the files that share counts */
	sc.order = walkorder_create();
	if (!sc.order) {
		prune_free(sc.prune);
		return -ENOMEM;
	}
	ls.place = sample_place;
	ls.arg = &sc;
	ret = fastscan_list(run->usage, fd, st, run->opt->one_fs, run_tick,
			    run, &ls);
	if (!ret)
		sample_scan_order(&sc, st->st_ino, since);
	walkorder_free(sc.order);
	if (sc.stat_fd >= 0)
		close(sc.stat_fd);
	if (sc.prune && !ret) {
		run->sample.prune = sc.prune;
		run->sample.prune_dev = st->st_dev;
		run->sample.prune_root = st->st_ino;
		run->sample.prune_state = 1;
	} else {
		prune_free(sc.prune);
		if (ret != 1) {
			/* a second directory, or a scan that failed */
			prune_free(run->sample.prune);
			run->sample.prune = NULL;
			run->sample.prune_state = -1;
		}
	}
	if (ret == 1)
		return WALK_ENTER;
	run->sample.prescan_bad |= ret == -EUCLEAN;
	if (seen_insert(run->sample.prescanned,
			sample_key(st->st_dev, st->st_ino)) < 0)
		return -ENOMEM;
	ret = run_fastscan_result(run, path, ret);
	return ret < 0 ? ret : WALK_SKIP;
}

int run_sample(struct run *run, char *const *paths, int n)
{
	const struct walk_opts wo = { .one_fs = run->opt->one_fs };
	struct sampleplan_opts so = {
		.bytes = run->opt->sample_bytes,
		.frac = run->opt->sample,
		.seed = run->opt->seed,
		/* the files' current ratio, where it can be read */
		.bands = run->env->usage,
		.sharers = 1,
		/* the interval printed is the same layout's, unless a
		 * rewrite's change is asked (report_est.disk_ci95) */
		.weigh_away = !run->estimate.rewrite,
		/* as on_dir() decides for the walk: without rows, the fast
		 * scan counts whole directories */
		.dir = run->env->usage && run->env->fast && !run->opt->walk &&
		       !run->rows ? sample_dir : NULL,
		.arg = run,
	};
	int ret;

	ret = sampleplan_run(paths, n, &wo, &so, &run->sample.design,
			     &run->sample.sampling, &run->sample.bands,
			     &run->sample.sharers, &run->sample.kept);
	run->sample.design.devs = &run->sample.devs;
	/* What the walk need not meet: with one path, which the pre-pass
	 * listed, where no file is read for its usage, none rewritten and
	 * no rows kept. */
	if (!ret && run->sample.prune_state == 1 && run->sample.sampling &&
	    n == 1 && !run->estimate.rewrite && !run->ncdu && !run->rows &&
	    !run->opt->walk) {
		ret = prune_plan(run->sample.prune, prune_need, run);
		run->sample.prune_state = 2;
	}
	if (run->sample.prune_state != 2) {
		prune_free(run->sample.prune);
		run->sample.prune = NULL;
		run->sample.prune_state = -1;
	}
	return ret;
}
