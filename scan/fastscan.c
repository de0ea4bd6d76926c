// SPDX-License-Identifier: GPL-2.0
/* The fast scan: subtrees accounted from tree searches alone. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <btrfsutil.h>
#include "lib/array.h"
#include "ioctl.h"
#include "scan/ahead.h"
#include "scan/fastscan.h"
#include "scan/pending.h"
#include "walk/walkorder.h"

/* Inodes this close together are fetched in one search, their neighbours'
 * items discarded: cheaper than another ioctl.  Not across a directory of
 * the subtree, though: its entries are two items per child (DIR_ITEM and
 * DIR_INDEX), which cost more to copy out than a search. */
#define TREE_RUN_GAP	64
/* Files listed before their extents are fetched. */
#define TREE_FILE_BATCH	1024

/* A nested subvolume queued, and where its ROOT_REF puts it: a directory
 * of its parent's tree, under a name (offset name_at in fastscan.names),
 * to name it if it is deleted before it is read (note_gone()). */
struct nested_rec {
	uint64_t id, parent, dir;
	size_t name_at;
	uint16_t name_len;
};

struct fastscan {
	struct usage_ctx *ctx;
	size_t fs_idx;
	int fd;
	uint64_t tree_id;
	uint32_t nodesize;
	uint32_t sectorsize;
	int one_fs;
	int (*tick)(void *);
	void *tick_arg;

	/* Streaming a whole subvolume: nlink is the multiplicity, unless
	 * refs is set. */
	int whole;
	/* Streaming a subvolume with changes not yet committed: a file's
	 * multiplicity is the names its INODE_REF and INODE_EXTREF items
	 * hold (its nlink may lag), none for an inode with an ORPHAN item
	 * (orphans: NULL when none), and where the walk meets each file and
	 * directory is told from the same items (its DIR_INDEX items may
	 * lag too).  counting: the current file's names are being counted
	 * (names_counted()); cur_dir: the current inode is a directory. */
	int refs, counting, cur_dir;
	struct seen_set *orphans;
	/* The subvolume may have changes not yet committed (pending.h),
	 * known when a listener is told of files (fastscan_file.stale). */
	int uncommitted;
	/* pending_committed(), read when a subvolume is first streamed. */
	uint64_t committed;
	int have_committed;
	/* Otherwise the files found, sorted, an inode once per path to it
	 * within the subtree, and a cursor into them. */
	const uint64_t *want;
	size_t nwant, want_pos;

	/* The inode being streamed and its extents if it counts twice. */
	uint64_t cur_ino;
	uint32_t cur_mult;
	/* Not whole: the inode is told to sharing.h with the names its
	 * INODE_REF items hold, counted before its first extent, as its
	 * nlink may be stale (search_ref_names()). */
	int share_later;
	uint32_t cur_names;
	struct extent_info *pending;
	size_t npending, cap_pending;

	/* NULL, or told about each file (fastscan_list()), which is built
	 * in cur while its items stream by */
	const struct fastscan_listener *ls;
	struct fastscan_file cur;
	char cur_name[BTRFS_NAME_LEN + 1];	/* cur.name's bytes */

	/* Nested subvolume candidates: (dir, subvolume id) pairs. */
	struct u64_vec nested;
	/* Subvolumes still to stream, and every one ever queued: on a
	 * corrupt filesystem two subvolumes can each claim the other. */
	struct u64_vec subvols;
	struct seen_set *queued;
	/* The tree and directory scanned, and every nested subvolume
	 * queued with its name (the bytes of them all in names) */
	uint64_t top_tree, top_ino;
	struct nested_rec *recs;
	size_t nrecs, cap_recs;
	char *names;
	size_t names_len, names_cap;
};

static void note_bad(struct usage_ctx *ctx, enum extent_error err,
		     uint64_t offset)
{
	if (!ctx->bad_item) {
		ctx->bad_item = err;
		ctx->bad_offset = offset;
	}
}

/* Append len bytes to the growing buffer *buf (*used of *cap bytes).
 * Returns 0 or -ENOMEM. */
static int put_bytes(char **buf, size_t *used, size_t *cap, const void *s,
		     size_t len)
{
	size_t c = *cap ? *cap : 256;
	char *p;

	if (!len)
		return 0;
	if (len > SIZE_MAX / 2 - *used)
		return -ENOMEM;
	if (*used + len > *cap) {
		while (c < *used + len)
			c *= 2;
		p = realloc(*buf, c);
		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = c;
	}
	memcpy(*buf + *used, s, len);
	*used += len;
	return 0;
}

/* Where the walk meets each file and directory comes from INODE_REF
 * items, not DIR_INDEX items (which may lag): a subtree listed through its
 * names, or a subvolume streamed with changes not yet committed. */
static int places_by_refs(const struct fastscan *ts)
{
	return !ts->whole || ts->refs;
}

/* Tell sharing.h about the inode streamed, its names counted. */
static int share_inode(struct fastscan *ts)
{
	ts->share_later = 0;
	return sharing_file(ts->ctx->sharing, ts->fs_idx, ts->tree_id,
			    ts->cur_ino, ts->cur_names, ts->cur_mult);
}

/*
 * The current file's names are all counted (an item past its refs comes,
 * or its end).  refs: it counts once per name, as the walk meets it.  A
 * file whose names sharing.h waited for (share_later) is told of now.
 */
static int names_counted(struct fastscan *ts)
{
	if (ts->counting) {
		ts->counting = 0;
		/* BTRFS_LINK_MAX, as on_inode() */
		if (ts->cur_names > 65535) {
			note_bad(ts->ctx, EXTENT_BAD_SIZE, 0);
			return 0;
		}
		ts->cur_mult = ts->cur_names;
		if (ts->ls)
			ts->cur.nlink = ts->cur_names;
		ts->share_later = ts->cur_mult && ts->ctx->sharing;
		if (ts->cur_mult == 1)
			usage_begin_file(ts->ctx);
	}
	return ts->share_later ? share_inode(ts) : 0;
}

/* Replay the extents of an inode reached by several paths. */
static int finish_inode(struct fastscan *ts)
{
	uint32_t r;
	size_t i;
	int ret;

	ret = names_counted(ts);
	if (ret)
		return ret;
	if (ts->ls && ts->cur_mult) {
		ret = ts->ls->file(ts->ls->arg, &ts->cur);
		if (ret)
			return ret;
	}
	if (ts->cur_mult > 1) {
		for (r = 0; r < ts->cur_mult; r++) {
			usage_begin_file(ts->ctx);
			for (i = 0; i < ts->npending; i++) {
				ret = usage_account(ts->ctx, ts->fs_idx,
						   &ts->pending[i]);
				if (ret)
					return ret;
			}
		}
	}
	ts->npending = 0;
	ts->cur_mult = 0;
	return 0;
}

static uint32_t wanted_mult(struct fastscan *ts, uint64_t ino)
{
	uint32_t mult = 0;

	while (ts->want_pos < ts->nwant && ts->want[ts->want_pos] < ino)
		ts->want_pos++;
	while (ts->want_pos < ts->nwant && ts->want[ts->want_pos] == ino) {
		ts->want_pos++;
		mult++;
	}
	return mult;
}

static int on_inode(struct fastscan *ts, const struct search_item *it)
{
	uint32_t mode, nlink;
	int ret;

	ret = finish_inode(ts);
	if (ret)
		return ret;
	ts->cur_ino = it->objectid;
	ts->cur_dir = 0;
	if (it->len < INODE_ITEM_SIZE) {
		note_bad(ts->ctx, EXTENT_SHORT_INODE, 0);
		return 0;
	}
	mode = get_le32(it->data + INODE_MODE);
	nlink = get_le32(it->data + INODE_NLINK);
	/* refs: an inode with an ORPHAN item has lost its last name (its
	 * INODE_REF's removal may wait for the commit,
	 * btrfs_delayed_delete_inode_ref(), while it is open) */
	if (ts->refs && ts->orphans &&
	    seen_contains(ts->orphans, it->objectid))
		return 0;
	if (ts->refs && S_ISDIR(mode))
		ts->cur_dir = 1;
	if (!S_ISREG(mode))
		return 0;
	/* BTRFS_LINK_MAX: more is corruption, and replaying the extents
	 * billions of times would hang the scan. */
	if (nlink > 65535) {
		note_bad(ts->ctx, EXTENT_BAD_SIZE, 0);
		return 0;
	}
	/* nlink 0: an orphan being deleted, which no path reaches. */
	if (ts->refs) {
		ts->counting = 1;
		ts->cur_names = 0;
	} else {
		ts->cur_mult = ts->whole ? nlink :
			       wanted_mult(ts, it->objectid);
	}
	if (ts->ls && (ts->cur_mult || ts->counting)) {
		ts->cur.tree_id = ts->tree_id;
		ts->cur.ino = it->objectid;
		ts->cur.size = get_le64(it->data + INODE_SIZE_OFF);
		ts->cur.nbytes = get_le64(it->data + INODE_NBYTES);
		ts->cur.nlink = nlink;
		ts->cur.generation = get_le64(it->data + INODE_GENERATION);
		ts->cur.disk = ts->cur.ram = 0;
		ts->cur.stale = ts->uncommitted;
		ts->cur.by_names = places_by_refs(ts);
		ts->cur_name[0] = 0;
		ts->cur.name = ts->cur_name;
		ts->cur.name_len = 0;
		ts->cur.parent = 0;
	}
	if (ts->counting)
		return 0;	/* names_counted() */
	if (ts->cur_mult && ts->ctx->sharing) {
		ts->cur_names = nlink;
		if (!ts->whole) {
			ts->cur_names = 0;
			ts->share_later = 1;
		} else {
			ret = share_inode(ts);
			if (ret)
				return ret;
		}
	}
	if (ts->cur_mult == 1)
		usage_begin_file(ts->ctx);
	return 0;
}

static int on_extent(struct fastscan *ts, const struct search_item *it)
{
	struct extent_info ei, *p;
	enum extent_error err;
	int ret;

	if (it->objectid != ts->cur_ino)
		return 0;
	ret = names_counted(ts);
	if (ret || !ts->cur_mult)
		return ret;
	err = extent_parse(it->data, it->len, ts->sectorsize, &ei);
	if (err) {
		note_bad(ts->ctx, err, it->offset);
		return 0;
	}
	if (ts->ls) {
		extent_current(&ei, &ts->cur.disk, &ts->cur.ram);
		if (ts->ls->ref) {
			ei.file_pos = it->offset;
			/* the other kinds are all in ei: no bytes */
			ret = ei.type == BTRFS_FILE_EXTENT_INLINE ?
			      ts->ls->ref(ts->ls->arg, &ei, it->data,
					  it->len) :
			      ts->ls->ref(ts->ls->arg, &ei, NULL, 0);

			if (ret)
				return ret;
		}
	}
	if (ts->cur_mult == 1)
		return usage_account(ts->ctx, ts->fs_idx, &ei);
	p = array_grow(ts->pending, &ts->cap_pending, ts->npending,
		       sizeof(*p));
	if (!p)
		return -ENOMEM;
	ts->pending = p;
	ts->pending[ts->npending++] = ei;
	return 0;
}

/*
 * Call fn for each name of a DIR_ITEM item: names whose hashes collide
 * share one item (btrfs_insert_dir_item() appends to it).  An entry is
 * read when its header is whole; a length past the item ends the list.
 */
static int each_dir_entry(const struct search_item *it,
			  int (*fn)(void *arg, uint64_t dir, const uint8_t *e),
			  void *arg)
{
	uint32_t pos = 0, len;
	int ret;

	while (it->len - pos >= DIR_ITEM_SIZE) {
		const uint8_t *e = it->data + pos;

		ret = fn(arg, it->objectid, e);
		if (ret)
			return ret;
		len = DIR_ITEM_SIZE + (uint32_t)get_le16(e + DIR_NAME_LEN) +
		      get_le16(e + DIR_DATA_LEN);
		if (len > it->len - pos)
			break;
		pos += len;
	}
	return 0;
}

/* A directory entry that is a subvolume: a candidate to check later, as the
 * search buffer is in use. */
static int on_subvol_entry(struct fastscan *ts, uint64_t dir,
			   const uint8_t *e)
{
	if (ts->one_fs)
		return 0;
	if (u64_vec_push(&ts->nested, dir))
		return -ENOMEM;
	return u64_vec_push(&ts->nested, get_le64(e + DIR_LOCATION_OBJECTID));
}

/* Tell the listener, if it asks, about the entry e of dir. */
static int tell_entry(struct fastscan *ts, uint64_t dir, const uint8_t *e)
{
	if (!ts->ls || !ts->ls->entry)
		return 0;
	return ts->ls->entry(ts->ls->arg, ts->tree_id, dir, get_le64(e),
			     e[DIR_LOCATION_TYPE], e[DIR_TYPE]);
}

static int stream_entry(void *arg, uint64_t dir, const uint8_t *e)
{
	int ret = tell_entry(arg, dir, e);

	if (ret || e[DIR_LOCATION_TYPE] != BTRFS_ROOT_ITEM_KEY)
		return ret;
	return on_subvol_entry(arg, dir, e);
}

/* Tell the listener, if it asks, where the walk meets the entry of a
 * DIR_INDEX item (one entry: its index is the key's offset): a regular
 * file or a directory.  A nested subvolume's is told with its ROOT_REF
 * (queue_nested()): a snapshot keeps stand-ins for its source's. */
static int tell_place(struct fastscan *ts, const struct search_item *it)
{
	const uint8_t *e = it->data;

	if (!ts->ls || !ts->ls->place || it->len < DIR_ITEM_SIZE ||
	    e[DIR_LOCATION_TYPE] != BTRFS_INODE_ITEM_KEY ||
	    (e[DIR_TYPE] != BTRFS_FT_REG_FILE && e[DIR_TYPE] != BTRFS_FT_DIR))
		return 0;
	return ts->ls->place(ts->ls->arg, ts->tree_id, it->objectid,
			     it->offset, get_le64(e + DIR_LOCATION_OBJECTID),
			     e[DIR_TYPE] == BTRFS_FT_DIR ? WALKORDER_DIR :
						       WALKORDER_FILE);
}

/* The current file's first name, from an INODE_REF item, for ls. */
static void first_name(struct fastscan *ts, const struct search_item *it)
{
	uint32_t len;

	if (ts->cur.name_len || it->len < INODE_REF_SIZE)
		return;
	len = get_le16(it->data + INODE_REF_NAME_LEN);
	if (len > BTRFS_NAME_LEN || len > it->len - INODE_REF_SIZE)
		return;		/* corrupt: no name */
	memcpy(ts->cur_name, it->data + INODE_REF_SIZE, len);
	ts->cur_name[len] = 0;
	ts->cur.name_len = len;
	ts->cur.parent = it->offset;
}

/*
 * A tree listed through its names (scan_subtree()) has no DIR_INDEX
 * items to tell the walk's order by: btrfs_insert_dir_item() delays a
 * new name's, and unlink its removal.  An INODE_REF or INODE_EXTREF
 * item holds the same index and changes at once (a rename deletes the
 * old name's; only the removal of an inode's last name waits for the
 * commit, btrfs_delayed_delete_inode_ref(), and no name leads to that
 * inode any more).  The listener is told where the walk meets the inode
 * of the item under each of its names (search_each_ref()).
 */
struct ref_place {
	struct fastscan *ts;
	uint64_t ino;
	int kind;		/* WALKORDER_FILE or _DIR */
};

static int ref_place(void *arg, uint64_t dir, uint64_t index, int whole)
{
	const struct ref_place *rp = arg;

	/* a subvolume's root directory: ".." is itself */
	if (!whole || dir == rp->ino)
		return 0;
	return rp->ts->ls->place(rp->ts->ls->arg, rp->ts->tree_id, dir, index,
				 rp->ino, rp->kind);
}

static int tell_refs(struct fastscan *ts, const struct search_item *it,
		     int kind)
{
	struct ref_place rp = { ts, it->objectid, kind };

	return search_each_ref(it, ref_place, &rp);
}

static int stream_item(const struct search_item *it, void *arg)
{
	struct fastscan *ts = arg;

	switch (it->type) {
	case BTRFS_INODE_ITEM_KEY:
		return on_inode(ts, it);
	case BTRFS_EXTENT_DATA_KEY:
		return on_extent(ts, it);
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		if (it->objectid != ts->cur_ino)
			return 0;
		if (ts->cur_dir)
			return ts->ls && ts->ls->place ?
			       tell_refs(ts, it, WALKORDER_DIR) : 0;
		if (!ts->cur_mult && !ts->counting)
			return 0;
		if (ts->ls && ts->ls->names && it->type == BTRFS_INODE_REF_KEY)
			first_name(ts, it);
		if (ts->share_later || ts->counting)
			ts->cur_names += search_ref_names(it);
		return places_by_refs(ts) && ts->ls && ts->ls->place ?
		       tell_refs(ts, it, WALKORDER_FILE) : 0;
	case BTRFS_DIR_ITEM_KEY:
		return ts->whole ? each_dir_entry(it, stream_entry, ts) : 0;
	case BTRFS_DIR_INDEX_KEY:
		return places_by_refs(ts) ? 0 : tell_place(ts, it);
	default:
		return 0;
	}
}

/* Stream inodes lo..hi of the current tree. */
static int stream(struct fastscan *ts, uint64_t lo, uint64_t hi)
{
	struct btrfs_ioctl_search_key key;
	int ret;

	search_key_range(&key, ts->tree_id, lo, BTRFS_INODE_ITEM_KEY, hi,
			 BTRFS_EXTENT_DATA_KEY);
	ts->cur_ino = 0;
	ts->cur_mult = 0;
	ts->share_later = 0;
	ts->counting = 0;
	ts->cur_dir = 0;
	ts->npending = 0;
	ret = ahead_search_run(ts->ctx->search, ts->fd, &key, ts->nodesize,
			       stream_item, ts);
	if (!ret)
		ret = finish_inode(ts);
	if (!ret)
		ret = ts->tick(ts->tick_arg);
	return ret;
}

struct dir_list {
	struct fastscan *ts;
	struct u64_vec *dirs;
	struct u64_vec *files;
	/* Directories already queued: on a corrupt filesystem an entry can
	 * point to an ancestor, and the listing would never end. */
	struct seen_set *listed;
};

static int list_entry(void *arg, uint64_t dir, const uint8_t *e)
{
	struct dir_list *dl = arg;
	uint64_t ino;
	int ret;

	ret = tell_entry(dl->ts, dir, e);
	if (ret)
		return ret;
	switch (e[DIR_LOCATION_TYPE]) {
	case BTRFS_INODE_ITEM_KEY:
		if (e[DIR_TYPE] == BTRFS_FT_REG_FILE)
			return u64_vec_push(dl->files, get_le64(e));
		if (e[DIR_TYPE] == BTRFS_FT_DIR) {
			ino = get_le64(e);
			ret = seen_insert(dl->listed, ino);
			if (ret <= 0)
				return ret;
			return u64_vec_push(dl->dirs, ino);
		}
		return 0;
	case BTRFS_ROOT_ITEM_KEY:
		return on_subvol_entry(dl->ts, dir, e);
	default:
		return 0;
	}
}

static int list_item(const struct search_item *it, void *arg)
{
	const struct dir_list *dl = arg;

	/* the directory's own name, searched with its entries for a
	 * listener that asks where the walk meets it (tell_refs()) */
	if (it->type == BTRFS_INODE_REF_KEY)
		return dl->ts->ls && dl->ts->ls->place ?
		       tell_refs(dl->ts, it, WALKORDER_DIR) : 0;
	if (it->type != BTRFS_DIR_ITEM_KEY)
		return 0;
	return each_dir_entry(it, list_entry, arg);
}

/* In-place heapsort: glibc's qsort() copies the array to a malloc()ed
 * buffer and asks sysconf() for the memory size first, libc code and heap
 * a scan would otherwise not touch. */
static void sift_down(uint64_t *v, size_t i, size_t n)
{
	uint64_t x = v[i];
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (v[c] <= x)
			break;
		v[i] = v[c];
		i = c;
	}
	v[i] = x;
}

static void sort_u64(uint64_t *v, size_t n)
{
	uint64_t top;
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	while (n > 1) {
		top = v[0];
		v[0] = v[--n];
		v[n] = top;
		sift_down(v, 0, n);
	}
}

/*
 * Account the files listed so far (inode numbers, one per name found) and
 * empty the list.  dirs: the directories listed so far, in any order
 * (sorted here); a run of files is not fetched across one.  A hard link
 * met in two batches counts once in each, as it would once per name in
 * one.
 */
static int fetch_files(struct fastscan *ts, struct u64_vec *files,
		       struct u64_vec *dirs)
{
	size_t i, j, k = 0, n = files->n;
	uint64_t *d = dirs->v;
	int ret = 0;

	if (!n)
		return 0;
	sort_u64(files->v, n);
	sort_u64(d, dirs->n);
	ts->want = files->v;
	ts->nwant = n;
	for (i = 0; !ret && i < n; i = j) {
		for (j = i + 1; j < n; j++) {
			if (files->v[j] - files->v[j - 1] > TREE_RUN_GAP)
				break;
			while (k < dirs->n && d[k] < files->v[j - 1])
				k++;
			if (k < dirs->n && d[k] < files->v[j])
				break;
		}
		ts->want_pos = i;
		ret = stream(ts, files->v[i], files->v[j - 1]);
	}
	ts->want = NULL;
	ts->nwant = 0;
	files->n = 0;
	return ret;
}

/* fetch_files() with a sorted copy (in *sorted) of dirs, which is the
 * listing's queue. */
static int fetch_sorted(struct fastscan *ts, struct u64_vec *files,
			const struct u64_vec *dirs, struct u64_vec *sorted)
{
	uint64_t *v;
	size_t i;

	if (!files->n)
		return 0;
	for (i = sorted->n; i < dirs->n; i++) {
		v = array_grow(sorted->v, &sorted->cap, sorted->n,
			       sizeof(*v));
		if (!v)
			return -ENOMEM;
		sorted->v = v;
		sorted->v[sorted->n++] = dirs->v[i];
	}
	return fetch_files(ts, files, sorted);
}

/* List the subtree of dir through DIR_ITEM items, fetching its files'
 * extents as the list grows.  Not DIR_INDEX: btrfs_insert_dir_item()
 * inserts the DIR_ITEM at once but delays the DIR_INDEX, and unlink
 * deletes them the same way (__btrfs_unlink_inode()), so only DIR_ITEM
 * items hold a directory's current names before the next commit.  Their
 * order (by name hash) doesn't matter here; where the walk meets each
 * entry is told from INODE_REF items (tell_refs()). */
static int scan_subtree(struct fastscan *ts, uint64_t dir)
{
	struct u64_vec dirs = { 0 }, files = { 0 }, sorted = { 0 };
	struct dir_list dl = { .ts = ts, .dirs = &dirs, .files = &files };
	struct btrfs_ioctl_search_key key;
	size_t i, found;
	int ret;

	dl.listed = seen_create();
	if (!dl.listed)
		return -ENOMEM;
	ret = seen_insert(dl.listed, dir);
	if (ret == 1)
		ret = u64_vec_push(&dirs, dir);
	for (i = 0; !ret && i < dirs.n; i++) {
		found = dirs.n;
		search_key_range(&key, ts->tree_id, dirs.v[i],
				 ts->ls && ts->ls->place ?
				 BTRFS_INODE_REF_KEY : BTRFS_DIR_ITEM_KEY,
				 dirs.v[i], BTRFS_DIR_ITEM_KEY);
		ret = search_run(ts->ctx->search, ts->fd, &key, ts->nodesize,
				 list_item, &dl);
		/* The subdirectories in inode order, as their index items
		 * would list them, not in name hash order: the files of a
		 * batch then lie in few runs of nearby inodes. */
		sort_u64(dirs.v + found, dirs.n - found);
		/* Memory stays bounded however many files the subtree has. */
		if (!ret && files.n >= TREE_FILE_BATCH)
			ret = fetch_sorted(ts, &files, &dirs, &sorted);
		if (!ret && (i & 255) == 255)
			ret = ts->tick(ts->tick_arg);
	}
	if (!ret)
		ret = fetch_sorted(ts, &files, &dirs, &sorted);
	seen_free(dl.listed);
	free(dirs.v);
	free(files.v);
	free(sorted.v);
	return ret;
}

struct ref_check {
	uint64_t dir;
	uint64_t seq;		/* the entry's DIR_INDEX, once found */
	int found;
	uint16_t name_len;	/* its name, "" when corrupt */
	char name[BTRFS_NAME_LEN];
};

static int check_ref(const struct search_item *it, void *arg)
{
	struct ref_check *rc = arg;
	uint16_t len;

	if (it->type == BTRFS_ROOT_REF_KEY && it->len >= ROOT_REF_SIZE &&
	    get_le64(it->data + ROOT_REF_DIRID) == rc->dir) {
		rc->found = 1;
		rc->seq = get_le64(it->data + ROOT_REF_SEQUENCE);
		len = get_le16(it->data + ROOT_REF_NAME_LEN);
		rc->name_len = 0;
		if (len <= BTRFS_NAME_LEN && len <= it->len - ROOT_REF_SIZE) {
			memcpy(rc->name, it->data + ROOT_REF_SIZE, len);
			rc->name_len = len;
		}
	}
	return 0;
}

/* Keep where nested subvolume id (in directory dir of tree parent, named
 * as rc says) was found.  Returns 0 or -ENOMEM. */
static int keep_rec(struct fastscan *ts, uint64_t id, uint64_t parent,
		    const struct ref_check *rc)
{
	struct nested_rec *r = array_grow(ts->recs, &ts->cap_recs, ts->nrecs,
					  sizeof(*r));

	if (!r)
		return -ENOMEM;
	ts->recs = r;
	r[ts->nrecs] = (struct nested_rec){
		.id = id, .parent = parent, .dir = rc->dir,
		.name_at = ts->names_len, .name_len = rc->name_len,
	};
	if (put_bytes(&ts->names, &ts->names_len, &ts->names_cap, rc->name,
		      rc->name_len))
		return -ENOMEM;
	ts->nrecs++;
	return 0;
}

/* A directory's place in its parent: the first INODE_REF's. */
struct up_ref {
	uint64_t parent, index;
	int found;
};

static int up_item(const struct search_item *it, void *arg)
{
	struct up_ref *u = arg;

	if (u->found || it->type != BTRFS_INODE_REF_KEY ||
	    it->len < INODE_REF_SIZE)
		return 0;
	u->parent = it->offset;
	u->index = get_le64(it->data + INODE_REF_INDEX);
	u->found = 1;
	return 0;
}

/* Directories climbed at most from a nested subvolume's to the tree's
 * root (a corrupt tree may loop). */
#define NESTED_DEPTH_MAX	256

/* A nested subvolume and where the walk meets it: the DIR_INDEX of each
 * directory from the tree's root down to it, then its own entry's
 * (key[0..n), in a vector of them all). */
struct nested_at {
	uint64_t id;
	size_t off, n;
	const uint64_t *key;	/* set once they are all in */
};

/*
 * Where the walk (readdir: DIR_INDEX order, depth first) meets nested
 * subvolume at->id, whose entry is index seq of directory dir of tree
 * parent: appended to keys.  A directory that can't be climbed ends the
 * climb: only the order is at stake.  Returns 0 or -ENOMEM.
 */
static int nested_place(struct fastscan *ts, uint64_t parent, uint64_t dir,
			uint64_t seq, struct u64_vec *keys,
			struct nested_at *at)
{
	struct btrfs_ioctl_search_key key;
	struct up_ref u;
	size_t i, j;
	int ret;

	at->off = keys->n;
	while (dir != BTRFS_FIRST_FREE_OBJECTID &&
	       keys->n - at->off < NESTED_DEPTH_MAX) {
		u.found = 0;
		search_key_range(&key, parent, dir, BTRFS_INODE_REF_KEY, dir,
				 BTRFS_INODE_REF_KEY);
		ret = search_run(ts->ctx->search, ts->fd, &key, ts->nodesize,
				 up_item, &u);
		if (ret == -ENOMEM)
			return ret;
		if (ret || !u.found || u.parent == dir)
			break;
		if (u64_vec_push(keys, u.index))
			return -ENOMEM;
		dir = u.parent;
	}
	/* climbed upwards: the root's first */
	for (i = at->off, j = keys->n; i + 1 < j; i++, j--) {
		uint64_t t = keys->v[i];

		keys->v[i] = keys->v[j - 1];
		keys->v[j - 1] = t;
	}
	if (u64_vec_push(keys, seq))
		return -ENOMEM;
	at->n = keys->n - at->off;
	return 0;
}

static int nested_cmp(const void *a, const void *b)
{
	const struct nested_at *x = a, *y = b;
	size_t i, n = x->n < y->n ? x->n : y->n;

	for (i = 0; i < n; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/*
 * Queue the nested subvolumes found in tree parent.  A snapshot keeps its
 * source's entries for nested subvolumes, but the kernel shows them as
 * empty stand-ins unless the subvolume's ROOT_REF names this tree and
 * directory (fixup_tree_root_location()): check that first.
 */
static int queue_nested(struct fastscan *ts, uint64_t parent)
{
	struct btrfs_ioctl_search_key key;
	struct nested_at *at = NULL, *a;
	struct u64_vec keys = { 0 };
	size_t i, n = 0, cap = 0;
	struct ref_check rc;
	int ret = 0;

	for (i = 0; i + 1 < ts->nested.n; i += 2) {
		rc.dir = ts->nested.v[i];
		rc.found = 0;
		/* the one ROOT_REF (parent, ROOT_REF, subvolume id) */
		search_key_range(&key, BTRFS_ROOT_TREE_OBJECTID, parent,
				 BTRFS_ROOT_REF_KEY, parent, BTRFS_ROOT_REF_KEY);
		key.min_offset = key.max_offset = ts->nested.v[i + 1];
		ret = search_run(ts->ctx->search, ts->fd, &key, ts->nodesize,
				 check_ref, &rc);
		if (ret)
			goto out;
		if (!rc.found)
			continue;
		ret = seen_insert(ts->queued, ts->nested.v[i + 1]);
		if (ret < 0)
			goto out;
		if (!ret)
			continue;
		ret = keep_rec(ts, ts->nested.v[i + 1], parent, &rc);
		if (ret)
			goto out;
		a = array_grow(at, &cap, n, sizeof(*at));
		if (!a) {
			ret = -ENOMEM;
			goto out;
		}
		at = a;
		at[n] = (struct nested_at){ .id = ts->nested.v[i + 1] };
		ret = ts->ls && ts->ls->place ?
		      ts->ls->place(ts->ls->arg, parent, rc.dir, rc.seq,
				    at[n].id, WALKORDER_SUBVOL) : 0;
		if (ret)
			goto out;
		/* a listener is told of files in the walk's order of the
		 * subvolumes (fastscan_list()) */
		ret = ts->ls ? nested_place(ts, parent, rc.dir, rc.seq, &keys,
					    &at[n]) : 0;
		if (ret)
			goto out;
		n++;
	}
	if (ts->ls && n > 1) {
		for (i = 0; i < n; i++)
			at[i].key = keys.v + at[i].off;
		qsort(at, n, sizeof(*at), nested_cmp);
	}
	/* popped last first: the walk's first on top (without a listener,
	 * the last found) */
	for (i = 0; i < n; i++)
		if (u64_vec_push(&ts->subvols,
				 at[ts->ls ? n - 1 - i : i].id)) {
			ret = -ENOMEM;
			goto out;
		}
	ts->nested.n = 0;
out:
	free(keys.v);
	free(at);
	return ret;
}

/*
 * The path of directory dir of tree from the tree's root, "a/b/" ("" for
 * the root, or when it can't be told: the tree gone too), into path
 * (BTRFS_INO_LOOKUP_PATH_MAX bytes): BTRFS_IOC_INO_LOOKUP, as
 * libbtrfsutil names a subvolume.
 */
static void dir_path(int fd, uint64_t tree, uint64_t dir, char *path)
{
	struct btrfs_ioctl_ino_lookup_args args = {
		.treeid = tree,
		.objectid = dir,
	};

	path[0] = '\0';
	if (ioctl(fd, BTRFS_IOC_INO_LOOKUP, &args))
		return;
	args.name[sizeof(args.name) - 1] = '\0';
	strcpy(path, args.name);
}

/*
 * Nested subvolume id, queued, could not be searched: deleted since
 * (btrfs_get_fs_root() refuses a root whose refs dropped to 0).  Its path
 * from the directory scanned goes to ctx->gone: the directories and names
 * of the subvolumes from the tree scanned down to it (their ROOT_REFs,
 * kept by queue_nested(): its own went with it).  Nothing of it stays
 * queued: a subvolume with others nested in it can't be deleted.
 * Returns 0 or -ENOMEM.
 */
static int note_gone(struct fastscan *ts, uint64_t id)
{
	struct usage_ctx *ctx = ts->ctx;
	char dir[BTRFS_INO_LOOKUP_PATH_MAX], top[BTRFS_INO_LOOKUP_PATH_MAX];
	size_t chain[NESTED_DEPTH_MAX], n = 0, i, k, start = ctx->gone_len;
	const struct nested_rec *r;
	const char *p;
	int ret = 0;

	/* candidates it held, half read */
	ts->nested.n = 0;
	while (id != ts->top_tree && n < NESTED_DEPTH_MAX) {
		for (k = 0; k < ts->nrecs && ts->recs[k].id != id; k++)
			;
		if (k == ts->nrecs)
			break;
		chain[n++] = k;
		id = ts->recs[k].parent;
	}
	for (i = n; !ret && i-- > 0;) {
		r = &ts->recs[chain[i]];
		dir_path(ts->fd, r->parent, r->dir, dir);
		p = dir;
		/* a directory below the tree's root was scanned: the path
		 * from it */
		if (r->parent == ts->top_tree &&
		    ts->top_ino != BTRFS_FIRST_FREE_OBJECTID) {
			dir_path(ts->fd, ts->top_tree, ts->top_ino, top);
			if (!strncmp(dir, top, strlen(top)))
				p += strlen(top);
		}
		if (ctx->gone_len > start)
			ret = put_bytes(&ctx->gone, &ctx->gone_len,
					&ctx->gone_cap, "/", 1);
		if (!ret)
			ret = put_bytes(&ctx->gone, &ctx->gone_len,
					&ctx->gone_cap, p, strlen(p));
		if (!ret)
			ret = put_bytes(&ctx->gone, &ctx->gone_len,
					&ctx->gone_cap, ts->names + r->name_at,
					r->name_len);
	}
	if (!ret)
		ret = put_bytes(&ctx->gone, &ctx->gone_len, &ctx->gone_cap,
				"", 1);
	if (ret)
		ctx->gone_len = start;
	return ret;
}

static int stop_at_first(const struct search_item *it, void *arg)
{
	(void)it;
	(void)arg;
	return 1;
}

int fastscan_gone(struct usage_ctx *ctx, int fd, uint64_t id)
{
	struct btrfs_ioctl_search_key key;

	if (!id && fastscan_probe(fd, &id))
		return 0;
	search_key_range(&key, id, BTRFS_FIRST_FREE_OBJECTID,
			 BTRFS_INODE_ITEM_KEY, BTRFS_FIRST_FREE_OBJECTID,
			 BTRFS_INODE_ITEM_KEY);
	return search_run(ctx->search, fd, &key, 0, stop_at_first, NULL) ==
	       -ENOENT;
}

int fastscan_probe(int fd, uint64_t *id)
{
	/* A stand-in directory (no btrfs ioctls) or anything unexpected:
	 * nothing counted yet, let the walk handle it. */
	if (btrfs_util_subvolume_id_fd(fd, id)) {
		if (errno == EPERM)
			return -EPERM;
		if (errno == ENOMEM)
			return -ENOMEM;
		return 1;
	}
	return 0;
}

/*
 * May the subvolume tree_id have changes its tree doesn't show yet
 * (pending.h)?  Its nlink counts would then be stale.  fd_in: a descriptor
 * in that subvolume, or -1.  Returns 0, 1, or -errno.
 */
static int subvol_pending(struct fastscan *ts, int fd_in, uint64_t tree_id)
{
	int ret;

	if (!ts->have_committed) {
		ret = pending_committed(ts->ctx->search, ts->fd, ts->nodesize,
					&ts->committed);
		if (ret)
			return ret;
		ts->have_committed = 1;
	}
	if (fd_in >= 0)
		return pending_subvol(fd_in, ts->committed);
	return pending_subvol_id(ts->ctx->search, ts->fd, ts->nodesize,
				 tree_id, ts->committed);
}

static int orphan_item(const struct search_item *it, void *arg)
{
	struct fastscan *ts = arg;

	if (it->type != BTRFS_ORPHAN_ITEM_KEY)
		return 0;
	if (!ts->orphans) {
		ts->orphans = seen_create();
		if (!ts->orphans)
			return -ENOMEM;
	}
	return seen_insert(ts->orphans, it->offset) < 0 ? -ENOMEM : 0;
}

/* The inodes with an ORPHAN item in the current tree, into ts->orphans
 * (left NULL when there is none, as on most trees). */
static int read_orphans(struct fastscan *ts)
{
	struct btrfs_ioctl_search_key key;

	seen_free(ts->orphans);
	ts->orphans = NULL;
	search_key_range(&key, ts->tree_id, BTRFS_ORPHAN_OBJECTID,
			 BTRFS_ORPHAN_ITEM_KEY, BTRFS_ORPHAN_OBJECTID,
			 BTRFS_ORPHAN_ITEM_KEY);
	return search_run(ts->ctx->search, ts->fd, &key, ts->nodesize,
			  orphan_item, ts);
}

/*
 * Account the whole subvolume tree_id: its tree streamed.  When it may
 * have changes not yet committed, a file counts once per name its
 * INODE_REF and INODE_EXTREF items hold (created, linked, unlinked and
 * renamed at once) instead of its nlink (updated at the commit), and not
 * at all when it has an ORPHAN item (inserted at once when its last name
 * goes, while its INODE_REF may stay until the commit): each file once
 * per path, as the walk counts it.
 */
static int scan_subvol(struct fastscan *ts, int fd_in, uint64_t tree_id)
{
	int ret;

	ts->tree_id = tree_id;
	if (ts->ctx->sharing) {
		ret = sharing_whole_root(ts->ctx->sharing, ts->fs_idx, tree_id);
		if (ret)
			return ret;
	}
	ret = subvol_pending(ts, fd_in, tree_id);
	if (ret < 0)
		return ret;
	ts->uncommitted = ret;
	ts->whole = 1;
	ts->refs = ret;
	ret = ts->refs ? read_orphans(ts) : 0;
	if (!ret)
		ret = stream(ts, BTRFS_FIRST_FREE_OBJECTID,
			     BTRFS_LAST_FREE_OBJECTID);
	ts->refs = 0;
	if (!ret)
		ret = queue_nested(ts, tree_id);
	return ret;
}

/* The scan state every entry starts from; ls may be NULL. */
static void fastscan_init(struct fastscan *ts, struct usage_ctx *ctx, int fd,
			  const struct stat *st, int one_fs,
			  int (*tick)(void *), void *tick_arg,
			  const struct fastscan_listener *ls)
{
	const struct usage_fs *fs = usage_fs_of(ctx, st->st_dev);

	*ts = (struct fastscan){
		.ctx = ctx,
		.fs_idx = fs ? fs->fs_idx : 0,
		.fd = fd,
		.nodesize = fs ? fs->nodesize : 0,
		.sectorsize = fs ? fs->sectorsize : 4096,
		.one_fs = one_fs,
		.tick = tick,
		.tick_arg = tick_arg,
		.ls = ls,
	};
	ctx->bad_item = EXTENT_OK;
	ctx->gone_len = 0;
}

/* Free ts's memory; ret, or -EUCLEAN when it is 0 and an item was bad. */
static int fastscan_done(struct fastscan *ts, int ret)
{
	seen_free(ts->queued);
	seen_free(ts->orphans);
	free(ts->pending);
	free(ts->nested.v);
	free(ts->subvols.v);
	free(ts->recs);
	free(ts->names);
	if (!ret && ts->ctx->bad_item)
		ret = -EUCLEAN;
	return ret;
}

int fastscan_root(struct usage_ctx *ctx, int fd, const struct stat *st,
		  uint64_t id, int (*tick)(void *), void *tick_arg)
{
	struct fastscan ts;

	fastscan_init(&ts, ctx, fd, st, 1, tick, tick_arg, NULL);
	return fastscan_done(&ts, scan_subvol(&ts, -1, id));
}

int fastscan_dir(struct usage_ctx *ctx, int fd, const struct stat *st,
		  int one_fs, int (*tick)(void *), void *tick_arg)
{
	return fastscan_list(ctx, fd, st, one_fs, tick, tick_arg, NULL);
}

int fastscan_list(struct usage_ctx *ctx, int fd, const struct stat *st,
		  int one_fs, int (*tick)(void *), void *tick_arg,
		  const struct fastscan_listener *ls)
{
	struct fastscan ts;
	uint64_t id;
	int ret;

	ret = fastscan_probe(fd, &id);
	if (ret)
		return ret;
	fastscan_init(&ts, ctx, fd, st, one_fs, tick, tick_arg, ls);
	ts.tree_id = id;
	ts.top_tree = id;
	ts.top_ino = st->st_ino;
	ts.queued = seen_create();
	if (!ts.queued)
		return -ENOMEM;
	ret = seen_insert(ts.queued, id);
	if (ret < 0)
		goto out;
	if (st->st_ino == BTRFS_FIRST_FREE_OBJECTID) {
		ret = scan_subvol(&ts, fd, id);
	} else {
		/* the subtree is listed either way; a listener is told
		 * whether its files' inode items are current */
		ret = ls ? subvol_pending(&ts, fd, id) : 0;
		if (ret >= 0) {
			ts.uncommitted = ret;
			ret = scan_subtree(&ts, st->st_ino);
		}
		if (!ret)
			ret = queue_nested(&ts, id);
	}
	while (!ret && ts.subvols.n) {
		id = ts.subvols.v[--ts.subvols.n];
		ret = scan_subvol(&ts, -1, id);
		/* deleted since it was found: the others are read on */
		if (ret == -ENOENT)
			ret = note_gone(&ts, id);
	}
out:
	return fastscan_done(&ts, ret);
}
