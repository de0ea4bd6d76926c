#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto robust serial
# Alone (group serial): it reads changes not yet committed (commit=600):
#   another test's sync would commit them
# Changes not yet committed: btrfs inserts and deletes DIR_INDEX items and
# updates inode items (nlink) lazily, at the next transaction commit, and a
# tree search doesn't see them before.  readdir and stat do, and so must
# the report: each case changes a committed tree and compares with compsize
# 1.5 at once, without sync (commit=600 keeps the window open), on the
# argument directories and on whole subvolumes (streamed when committed).
# Each case first checks that a plain tree search really sees a different
# state (DIR_INDEX items or nlink), and that no commit came before the
# comparisons were done: else it runs again in a new directory (another
# program's sync commits every filesystem).  --exclusive too, against its
# definition through compsize 1.5 (exclusive.sh), by each method: extents
# and references the running transaction made are delayed refs, not yet in
# the extent tree that the kernel's backref walk starts from, and a new
# link leaves the inode item's nlink stale.  A sample's fast pre-pass
# draws the same sample as the walk's, which stats every file.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../exclusive.sh"

treesearch=$(cd "$(dirname "$0")/.." && pwd)/treesearch.py
TRIES=30
SKIPPED=()

setup_fs compress-force=zstd:3,commit=600
mkdir src src/sub src/sub/deeper
text_data 200K >src/text
random_data 64K >src/random
text_data 1K >src/inline
for i in 1 2 3 4 5 6; do text_data $((i * 3000)) >src/sub/f$i; done
text_data 90K >src/sub/deeper/g
touch src/empty
sync

# delayed_index DIR...: true when a tree search lists another number of
# names (DIR_INDEX items) than readdir for one of the directories.
delayed_index() { "$PYTHON" "$treesearch" index "$@"; }

# delayed_nlink FILE...: true when a tree search sees another nlink than
# stat for one of the files.
delayed_nlink() { "$PYTHON" "$treesearch" nlink "$@"; }

# run_case NAME: in a new directory, build_NAME then sync, change_NAME
# (not committed), settle; delayed_NAME must hold, and the first comparison, on
# ${KEY[NAME]}, must be done before the next commit (the superblock's
# generation moved): else again.  Then compare_NAME, the rest.
declare -A KEY
run_case()
{
	local name=$1 try gen
	for ((try = 1; try <= TRIES; try++)); do
		mkdir "$MNT/$name.$try"
		cd "$MNT/$name.$try"
		"build_$name"
		btrfs -q filesystem sync "$MNT"
		gen=$(super_generation)
		"change_$name"
		settle
		if ! "delayed_$name"; then
			# A commit came, or the kernel flushed the delayed
			# items without one (btrfs_balance_delayed_items()
			# hands them to a worker past a threshold, sooner
			# on a busy machine): nothing to check, again.
			"cleanup_$name"
			cd "$MNT"
			continue
		fi
		# shellcheck disable=SC2086
		NO_SYNC=1 compare_once -b ${KEY[$name]}
		if [ "$(super_generation)" = "$gen" ]; then
			"compare_$name"
			"cleanup_$name"
			cd "$MNT"
			return 0
		fi
		"cleanup_$name"
		cd "$MNT"
	done
	# Something commits or flushes all the time: a busy machine (every
	# sync(1) commits every filesystem), or compsize itself, which 104
	# checks.
	SKIPPED+=("$name")
}

# excl PATH...: --exclusive on the paths (relative to the case's
# directory) equals the definition, by each method and by the walk.
excl()
{
	local here=$PWD rel=${PWD#"$MNT"/} p
	local -a s=()
	for p in "$@"; do
		s+=("$rel/$p")
	done
	cd "$MNT"
	check_exclusive_each "${s[@]}"
	check_exclusive --walk -- "${s[@]}"
	cd "$here"
}

# sample_same PATH...: a sample's estimates and intervals are the walk's
# (--walk), whose pre-pass stats every file: the fast pre-pass reads the
# inode items, whose sizes and link counts lag behind until the commit.
SAMPLE_SEL='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95,
	disk_fresh, sample_units_read, sample_units}]'
sample_same()
{
	local a
	for a in "--sample=20% --seed=3 -e zstd:3" \
		"--sample=50% --seed=5 -e lzo,compress-force=zstd:1"; do
		CHECKS=$((CHECKS + 1))
		# shellcheck disable=SC2086
		"$COMPSIZE" $a --format=json "$@" >"$OUT/fast.json" 2>&1 &&
			"$COMPSIZE" $a --walk --format=json "$@" \
			>"$OUT/walk.json" 2>&1 ||
			{ fail "sample $a $*: exit status"; continue; }
		cmp -s <(jq -c "$SAMPLE_SEL" "$OUT/fast.json") \
			<(jq -c "$SAMPLE_SEL" "$OUT/walk.json") ||
			fail "sample $a $*: the fast pre-pass's sample differs from the walk's: $(diff <(jq -c "$SAMPLE_SEL" "$OUT/fast.json") <(jq -c "$SAMPLE_SEL" "$OUT/walk.json"))"
	done
}

# A whole subvolume (streamed when committed) and the case's directory.
compare_here()
{
	compare_nosync .
	compare_nosync "$MNT"
}

build_cp_empty() { mkdir d; }
change_cp_empty() { cp -a "$MNT/src/." d/; }
delayed_cp_empty() { delayed_index d d/sub; }
compare_cp_empty() { compare_nosync d/sub d; compare_here; }

build_beside() { mkdir d; cp -a "$MNT/src/text" "$MNT/src/inline" d/; }
change_beside() { random_data 70K >d/new; text_data 2K >d/new2; touch d/new3; }
delayed_beside() { delayed_index d; }
compare_beside() { compare_nosync d; compare_here; sample_same d; }

build_subdir() { mkdir d; text_data 30K >d/f; }
change_subdir()
{
	mkdir -p d/new/deeper
	text_data 40K >d/new/a
	random_data 8K >d/new/deeper/b
}
delayed_subdir() { delayed_index d d/new; }
compare_subdir() { compare_nosync d; compare_nosync d/new; compare_here; }

build_mv() { mkdir d1 d2; cp -a "$MNT/src/sub/." d1/; text_data 5K >d2/x; }
change_mv() { mv d1/f1 d2/; mv d1/f2 d2/renamed; mv d1/f3 d1/f3b; }
delayed_mv() { delayed_index d1 d2; }
compare_mv() { compare_nosync d1; compare_nosync d2; compare_nosync d1 d2; compare_here; }

build_rm() { mkdir d; cp -a "$MNT/src/sub/." d/; }
change_rm() { rm d/f1 d/f4; }
delayed_rm() { delayed_index d; }
compare_rm() { compare_nosync d; compare_here; }

# Deleted, still open: its inode and extents stay (an orphan) until closed,
# but no path reaches it, so its copy's extent is exclusive.
build_rm_open()
{
	mkdir d
	random_data 100K >d/held
	cp --reflink=always d/held d/copy
	text_data 3K >d/other
}
change_rm_open() { exec {held_fd}<d/held; rm d/held; }
delayed_rm_open() { delayed_index d; }
compare_rm_open() { compare_nosync d; compare_here; excl d/copy; excl d; }
cleanup_rm_open() { exec {held_fd}<&-; }

build_links()
{
	mkdir d e
	random_data 50K >d/a
	text_data 60K >d/c
	ln d/c e/c2
	ln d/c e/c3
}
change_links() { ln d/a d/a2; ln d/a e/a3; rm e/c2; }
delayed_links() { delayed_nlink d/a d/c; }
compare_links()
{
	compare_nosync d; compare_nosync e; compare_nosync d e; compare_here
	excl d; excl e; excl d/a; excl d/c e
	sample_same d; sample_same .
}

# Links past what one INODE_REF item holds: the names of one directory
# with long names go on in INODE_EXTREF items (an extent item's worth of
# names: about 75 of 200 bytes on a 16 KiB node); some of each removed.
build_extref() { mkdir d e; text_data 20K >d/a; text_data 5K >e/b; }
change_extref()
{
	local long i
	long=$(printf 'n%.0s' {1..200})
	for ((i = 1; i <= 100; i++)); do
		ln d/a "d/$long$i"
	done
	rm "d/${long}3" "d/${long}90" d/a
	ln "d/${long}50" e/a
}
delayed_extref() { delayed_index d && delayed_nlink e/a; }
compare_extref()
{
	compare_nosync d; compare_nosync e; compare_here
	excl d; excl e
	sample_same d; sample_same .
}

# New data reflinked before a commit: the new extent is in no extent item
# yet (LOGICAL_INO_V2 finds nothing); an old one with a new reference.
build_reflink_new() { mkdir d e; text_data 300K >d/old; }
change_reflink_new()
{
	text_data 200K >d/new
	random_data 64K >d/new2
	cp --reflink=always d/new e/copy
	cp --reflink=always d/old e/oldcopy
	ln d/new2 e/link2
}
delayed_reflink_new() { delayed_index e; }
compare_reflink_new()
{
	compare_nosync d; compare_nosync e; compare_here
	excl d; excl e; excl e/copy; excl d/new; excl d/new2; excl d e
	sample_same d; sample_same e
}

# A file being written: O_DIRECT (no compression on a NOCOW directory),
# so each write's extent is in the tree when the write returns; the writer,
# fed slowly through a fifo, is stopped for the comparisons.
build_writing() { mkdir d; chattr +C d; text_data 4K >d/small; }
change_writing()
{
	rm -f "$TESTDIR/fifo"
	mkfifo "$TESTDIR/fifo"
	(trap - ERR; for ((i = 0; i < 500; i++)); do
		head -c 65536 /dev/zero
		sleep 0.02
	done) >"$TESTDIR/fifo" &
	feeder=$!
	dd if="$TESTDIR/fifo" of=d/big bs=64K iflag=fullblock oflag=direct \
		status=none &
	writer=$!
	while [ "$(stat -c %s d/big 2>/dev/null || echo 0)" -lt 262144 ]; do
		sleep 0.02
	done
	kill -STOP "$writer"
	while [ "$(awk '{ print $3 }' "/proc/$writer/stat")" != T ]; do
		sleep 0.02
	done
}
delayed_writing() { delayed_index d; }
compare_writing() { compare_nosync d; compare_here; }
cleanup_writing()
{
	{
		kill -KILL "$writer" "$feeder"
		wait "$writer" "$feeder"
	} 2>/dev/null || true
}

# Subvolumes: a new one, one deleted, one moved into another, and changes
# on both sides of a snapshot (taken before: a snapshot commits); the
# case's directory holds them all as nested subvolumes.
build_subvols()
{
	btrfs -q subvolume create sv
	cp -a "$MNT/src/." sv/
	ln sv/text sv/text-link
	btrfs -q subvolume snapshot sv snap
	btrfs -q subvolume create gone
	btrfs -q subvolume create moved
	text_data 10K >gone/f
	text_data 11K >moved/f
}
change_subvols()
{
	btrfs -q subvolume create new
	cp -a "$MNT/src/sub" new/
	rm sv/random sv/text-link
	ln snap/inline snap/inline-link
	text_data 20K >snap/added
	mv snap/sub/f1 sv/
	btrfs -q subvolume delete gone
	mv moved sv/moved-here
}
delayed_subvols() { delayed_index sv snap new; }
compare_subvols()
{
	local p
	for p in sv snap new; do
		compare_nosync "$p"
		NO_SYNC=1 compare_x "$p/sub"
	done
	NO_SYNC=1 compare_x .
	NO_SYNC=1 compare_x "$MNT"
}

# Everything at once, in one directory.
build_mixed() { build_mv; build_links; mkdir z; cp -a "$MNT/src/." z/; }
change_mixed()
{
	change_mv
	change_links
	rm -r z/sub
	cp -a "$MNT/src/sub" z/sub2
	mv z/sub2/deeper d1/deeper2
}
delayed_mixed() { delayed_index d1 d2 z && delayed_nlink d/a; }
compare_mixed()
{
	compare_nosync d1 d2 d e z; compare_here
	excl d1 d2; excl d; excl e z
	sample_same .
}

KEY=([cp_empty]="d/sub d" [beside]=d [subdir]="d d/new" [mv]="d1 d2"
	[rm]=d [rm_open]=d [links]="$MNT d e" [extref]="$MNT d e"
	[reflink_new]="d e" [writing]=d
	[subvols]="sv snap new $MNT" [mixed]="d1 d2 d e z $MNT")
for c in "${!KEY[@]}"; do
	declare -F "cleanup_$c" >/dev/null || eval "cleanup_$c() { :; }"
	run_case "$c"
done
if [ ${#SKIPPED[@]} -gt 0 ] && [ "$FAILURES" = 0 ]; then
	echo "SKIP: ${SKIPPED[*]}: the changes were committed or flushed in each of $TRIES tries (another program's sync?)"
	exit 77
fi
