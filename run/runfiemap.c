// SPDX-License-Identifier: GPL-2.0
/*
 * The usage report without root (docs/rootless.md): each file's extents
 * from FIEMAP (scan/fiemap.h), exact but for the disk bytes of compressed
 * extents, which FIEMAP does not tell: those are re-derived by running
 * the extent's data through the estimator's write path under the setting
 * the file was most likely written with, each extent a 128 KiB piece of
 * its own compressed as the kernel does (compress_file_range() with the
 * extent known to have shrunk: force semantics), once per extent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include "lib/array.h"
#include "estimate/estimate.h"
#include "estimate/plugin.h"
#include "scan/fiemap.h"
#include "scan/usage.h"
#include "seen.h"
#include "walk/mounts.h"
#include "run/run.h"
#include "run/run_internal.h"

struct fiemap_dev {
	dev_t dev;
	struct est_setting s;	/* what its mount option says, or zlib:3 */
};

struct fiemap_codec {
	struct est_setting s;
	uint32_t sectorsize;
	struct est_ctx *ctx;
};

struct run_fiemap {
	const struct est_ops *ops;
	const struct est_setting *assume;	/* --assume, or NULL */
	struct fiemap_list list;
	struct fiemap_dev *devs;
	size_t ndevs, cap_devs;
	struct fiemap_codec *codecs;
	size_t ncodecs, cap_codecs;
	/* per filesystem (usage_fs.fs_idx): each compressed extent's
	 * derived disk bytes by its address, re-derived once */
	struct seen_set **derived;
	size_t nderived;
	struct est_write *w;
	size_t cap_w;
	uint64_t *gdelta;
	size_t cap_gdelta;
	size_t *which;		/* the extent of each write */
	size_t cap_which;
	char said[64];		/* the last setting announced */
};

struct run_fiemap *run_fiemap_create(const struct est_setting *assume)
{
	struct run_fiemap *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->ops = est_plugin_ops();
	f->assume = assume;
	return f;
}

void run_fiemap_free(struct run_fiemap *f)
{
	size_t i;

	if (!f)
		return;
	fiemap_list_free(&f->list);
	for (i = 0; i < f->ncodecs; i++)
		f->ops->free(f->codecs[i].ctx);
	for (i = 0; i < f->nderived; i++)
		seen_free(f->derived[i]);
	free(f->derived);
	free(f->codecs);
	free(f->devs);
	free(f->w);
	free(f->gdelta);
	free(f->which);
	free(f);
}

/* The kernel's default when nothing names a codec (chattr +c on a
 * filesystem mounted without compress=): zlib at its level 3. */
static const struct est_setting default_setting = { EST_ZLIB, 3, true };

static int dev_setting(const struct run_fiemap *f, dev_t dev,
		       struct est_setting *s)
{
	size_t i;

	for (i = f->ndevs; i-- > 0;)
		if (f->devs[i].dev == dev) {
			*s = f->devs[i].s;
			return 1;
		}
	return 0;
}

int run_fiemap_enter_fs(struct run *run, const char *path,
			const struct stat *st)
{
	struct run_fiemap *f = run->fiemap;
	struct est_setting s = default_setting, *cur = NULL;
	struct fiemap_dev *d;
	char buf[64], err[128], name[64], msg[256];
	const char *from = "no compress= mount option: the kernel's default";
	size_t n = 0;

	if (dev_setting(f, st->st_dev, &s))
		return 0;
	if (f->assume) {
		s = *f->assume;
		from = "--assume";
	} else if (mounts_compress_option(path, buf, sizeof(buf)) == 1 &&
		   !est_parse_list(buf, &cur, &n, err, sizeof(err)) && n == 1) {
		s = *cur;
		from = "the mount option";
	}
	free(cur);
	/* the extent is known to have shrunk: compressed whatever
	 * compress='s heuristic would say */
	s.force = true;
	d = array_grow(f->devs, &f->cap_devs, f->ndevs, sizeof(*d));
	if (!d)
		return -ENOMEM;
	f->devs = d;
	d[f->ndevs].dev = st->st_dev;
	d[f->ndevs++].s = s;
	est_setting_name(&s, buf, sizeof(buf));
	/* "compress-force=zstd:3" -> "zstd:3" */
	snprintf(name, sizeof(name), "%s", strchr(buf, '=') ? strchr(buf, '=') + 1 : buf);
	if (strcmp(name, f->said)) {
		snprintf(f->said, sizeof(f->said), "%s", name);
		snprintf(msg, sizeof(msg),
			 "not root: usage from FIEMAP; the disk bytes of compressed extents re-derived from their data at %s (%s)",
			 name, from);
		run_say_path(run, path, msg);
	}
	run->fiemap_used = 1;
	return 0;
}

/* The setting file fd (on dev) was most likely written with: --assume,
 * else its btrfs.compression property (chattr +c alone gives the
 * filesystem's), else its filesystem's mount option. */
static struct est_setting file_setting(const struct run_fiemap *f, int fd,
				       dev_t dev)
{
	struct est_setting s = default_setting;
	char prop[16];
	ssize_t n;

	dev_setting(f, dev, &s);
	if (f->assume)
		return s;
	n = fgetxattr(fd, "btrfs.compression", prop, sizeof(prop) - 1);
	if (n <= 0)
		return s;
	prop[n] = '\0';
	if (!strncmp(prop, "zstd", 4) && s.alg != EST_ZSTD)
		s = (struct est_setting){ EST_ZSTD, 3, true };
	else if (!strncmp(prop, "zlib", 4) && s.alg != EST_ZLIB)
		s = (struct est_setting){ EST_ZLIB, 3, true };
	else if (!strncmp(prop, "lzo", 3))
		s = (struct est_setting){ EST_LZO, 0, true };
	return s;
}

static struct est_ctx *codec_for(struct run_fiemap *f,
				 const struct est_setting *s,
				 uint32_t sectorsize)
{
	struct fiemap_codec *c;
	size_t i;

	for (i = 0; i < f->ncodecs; i++) {
		c = &f->codecs[i];
		if (c->s.alg == s->alg && c->s.level == s->level &&
		    c->sectorsize == sectorsize)
			return c->ctx;
	}
	c = array_grow(f->codecs, &f->cap_codecs, f->ncodecs, sizeof(*c));
	if (!c)
		return NULL;
	f->codecs = c;
	c = &f->codecs[f->ncodecs];
	c->s = *s;
	c->sectorsize = sectorsize;
	c->ctx = f->ops->create(s, 1, sectorsize);
	if (!c->ctx)
		return NULL;
	f->ncodecs++;
	return c->ctx;
}

static int grow_writes(struct run_fiemap *f, size_t n)
{
	void *p;

	if (n <= f->cap_w)
		return 0;
	p = realloc(f->w, n * sizeof(*f->w));
	if (!p)
		return -ENOMEM;
	f->w = p;
	p = realloc(f->which, n * sizeof(*f->which));
	if (!p)
		return -ENOMEM;
	f->which = p;
	p = realloc(f->gdelta, 3 * n * sizeof(*f->gdelta));
	if (!p)
		return -ENOMEM;
	f->gdelta = p;
	f->cap_w = n;
	return 0;
}

static uint64_t round_up(uint64_t v, uint32_t to)
{
	return (v + to - 1) / to * to;
}

/*
 * The disk bytes of each compressed extent of f->list not derived yet:
 * its data compressed as one piece of its own (a regular extent: whole
 * sectors) or as an inline extent of the file's start.  Returns 0, or the
 * -errno of reading the file (the extents then cost their data rounded
 * up to a sector, the most a compressed extent takes), or -ENOMEM.
 */
static int derive(struct run_fiemap *f, struct seen_set *derived, int fd,
		  const struct stat *st, uint32_t sectorsize)
{
	struct fiemap_list *l = &f->list;
	struct est_setting s;
	struct est_ctx *ctx;
	size_t k, nw = 0;
	int ret;

	for (k = 0; k < l->n && !l->ext[k].compression; k++)
		;
	if (k == l->n)
		return 0;
	/* FIEMAP does not tell the codec: the setting's stands for it */
	s = file_setting(f, fd, st->st_dev);
	for (; k < l->n; k++) {
		struct extent_info *ei = &l->ext[k];
		struct est_write *w;

		if (!ei->compression)
			continue;
		ei->compression = (uint8_t)s.alg;
		if (ei->type == BTRFS_FILE_EXTENT_REG &&
		    seen_contains(derived, ei->disk_bytenr)) {
			ei->disk_num_bytes = seen_value(derived,
							ei->disk_bytenr);
			continue;
		}
		ret = grow_writes(f, nw + 1);
		if (ret)
			return ret;
		w = &f->w[nw];
		w->start = w->grid = ei->file_pos;
		w->end = ei->file_pos + ei->ram_bytes;
		w->group = (uint32_t)nw;
		/* an inline extent is the file's start written alone */
		w->flags = ei->type == BTRFS_FILE_EXTENT_INLINE ?
			   EST_WRITE_BEGIN : EST_WRITE_INDEP;
		f->which[nw++] = k;
	}
	if (!nw)
		return 0;
	ctx = codec_for(f, &s, sectorsize);
	if (!ctx)
		return -ENOMEM;
	ret = f->ops->writes(ctx, fd, st, f->w, nw, nw, f->gdelta);
	for (k = 0; k < nw; k++) {
		struct extent_info *ei = &l->ext[f->which[k]];
		uint64_t disk = ret ? round_up(ei->ram_bytes, sectorsize)
				    : f->gdelta[3 * k];

		if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
			ei->inline_len = disk;
			continue;
		}
		ei->disk_num_bytes = disk;
		if (!ret && seen_put(derived, ei->disk_bytenr, disk) < 0)
			return -ENOMEM;
	}
	return ret;
}

int run_fiemap_file(struct run *run, int fd, const char *path,
		    const struct stat *st)
{
	struct run_fiemap *f = run->fiemap;
	const struct usage_fs *fs = usage_fs_of(run->usage, st->st_dev);
	struct seen_set *derived;
	char msg[160];
	size_t k;
	int ret, err;

	usage_begin_file(run->usage);
	if (!fs)
		return 0;
	ret = fiemap_read(fd, st, EST_ZLIB, fs->sectorsize, &f->list);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		snprintf(msg, sizeof(msg), "FIEMAP: %s", strerror(-ret));
		run_report_failure(run, path, msg);
		return 0;
	}
	derived = seen_at(&f->derived, &f->nderived, fs->fs_idx);
	if (!derived)
		return -ENOMEM;
	err = derive(f, derived, fd, st, fs->sectorsize);
	if (err == -ENOMEM)
		return err;
	for (k = 0; k < f->list.n; k++) {
		ret = usage_account(run->usage, fs->fs_idx, &f->list.ext[k]);
		if (ret)
			return ret;
	}
	if (err) {
		snprintf(msg, sizeof(msg),
			 "reading its data: %s: its compressed extents counted at their size",
			 strerror(-err));
		run_report_failure(run, path, msg);
	}
	return 0;
}
