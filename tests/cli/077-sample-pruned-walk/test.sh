#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto sample
# A sample's walk goes only where a file must be met (prune.h): the files
# not drawn, sharing nothing and with one link are counted from what the
# pre-pass listed, and the directories holding none of the others are not
# opened.  On a subvolume of 300 directories with hard links, 40 reflinked
# pairs (which file meets an extent first counts), files of the same bytes
# and subvolumes nested in it (their ids, which readdir gives as d_ino,
# are inode numbers of the tree's own directories too): the same sample,
# estimates and intervals as the walk of every file (--walk), for several
# seeds, settings and fractions, and fewer than half of the 300
# directories opened.  Among them files that outgrew an inline extent
# into preallocated space (what the pre-pass takes for their data is
# what the walk's stat says; the same layout keeps that space) and files
# partly overwritten.  On one CPU (taskset), where the pre-pass keeps its
# bookkeeping on its own thread, the same sample again.
. "$(dirname "$0")/../common.sh"

bin=$COMPSIZE

setup_fs compress=zstd:1
btrfs -q subvolume create p
for i in $(seq 1 300); do
	mkdir -p "p/d$i"
	text_data $((i * 37 % 9000 + 1000)) >"p/d$i/t"
	if [ $((i % 3)) = 0 ]; then
		mkdir "p/d$i/e"
		random_data $((i * 53 % 7000 + 500)) >"p/d$i/e/r"
	fi
	[ $((i % 10)) = 0 ] && { text_data 300K; random_data 200K; } >"p/d$i/m"
done
{ text_data 5M; random_data 3M; } >p/big
# hard links across directories, reflinked copies, files of the same
# bytes (inline): the walk must meet each of them in its order
ln p/d3/t p/d90/hard
ln p/d42/e/r p/d41/hard
mkdir p/shared
for i in $(seq 1 40); do
	mkdir "p/shared/s$i" "p/shared/c$i"
	random_data $((i * 97 + 3000)) >"p/shared/s$i/f"
	cp --reflink=always "p/shared/s$i/f" "p/shared/c$i/f"
done
text_data 700 >p/d5/same
text_data 700 >p/d6/same
# nested subvolumes, one below a directory with nothing else to read
btrfs -q subvolume create p/d9/e/nest
btrfs -q subvolume create p/d8/nest2
mkdir p/d8/nest2/x
{ text_data 2M; random_data 2M; } >p/d9/e/nest/big
{ text_data 1M; random_data 1M; } >p/d8/nest2/x/big
for i in $(seq 1 30); do
	text_data $((i * 300)) >"p/d9/e/nest/s$i"
done
# files that outgrew an inline extent the kernel kept: text stored
# inline, then preallocated space after it, cut back.  The same layout
# keeps that space as it is, drawn or not; their inode items' bytes are
# no multiple of a sector, which the stat rounds up (in 10 directories)
for i in $(seq 1 60); do
	text_data $((i * 29 % 900 + 1100)) >"p/d$((i % 10 + 1))/g$i"
done
sync
for i in $(seq 1 60); do
	fallocate -l $((i * 4096 + 20000)) "p/d$((i % 10 + 1))/g$i"
done
sync
for i in $(seq 1 60); do
	truncate -s $((i * 4096 + 16384 - i * 37 % 1000)) \
		"p/d$((i % 10 + 1))/g$i"
done
sync
# files partly overwritten after a commit: the extents of their first
# write held in part (bookends), whose writes the same layout follows
# (in the same 10 directories)
for i in $(seq 1 60); do
	{ text_data $((i * 700 + 30000)); random_data $((i * 300)); } \
		>"p/d$((i % 10 + 1))/w$i"
done
sync
for i in $(seq 1 60); do
	text_data $((i * 100 + 3000)) | dd of="p/d$((i % 10 + 1))/w$i" bs=4096 \
		seek=$((i % 5 + 1)) conv=notrunc status=none
done
sync
ndirs=$(find p -type d -name 'd*' | wc -l)

sel='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95,
	disk_fresh, sample_units_read, sample_units}]'
for args in "--sample=2% --seed=1 -e zstd:3" "--sample=5% --seed=2 -e zstd:1,lzo" \
	"--sample=1% --seed=3 -e compress-force=zstd:3" "--sample=10% --seed=4 -e zlib:3"; do
	# shellcheck disable=SC2086
	expect_ours 0 '' -b $args --format=json p
	jq -e '.estimates[0].sample_units_read < .estimates[0].sample_units' \
		"$OUT/ours.out" >/dev/null || fail "$args: read everything"
	jq -c "$sel" "$OUT/ours.out" >"$OUT/pruned"
	# expect_ours's twin: the same with --walk
	jq -c "$sel" "$OUT/ours-walk.out" >"$OUT/walked"
	CHECKS=$((CHECKS + 1))
	cmp -s "$OUT/pruned" "$OUT/walked" ||
		fail "$args: the pruned walk's sample differs from the full walk's: $(diff "$OUT/pruned" "$OUT/walked")"
	# the directories d* opened: by the walk (O_NONBLOCK), not the
	# files it reads (open_late())
	CHECKS=$((CHECKS + 1))
	# (LeakSanitizer can't run under ptrace: the sanitizer build's)
	# shellcheck disable=SC2086
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=openat -o "$OUT/strace" "$bin" $args p \
		>/dev/null 2>&1 ||
		fail "$args: compsize under strace failed"
	opened=$(grep -Ec '"d[0-9]+".*O_NONBLOCK' "$OUT/strace" || true)
	[ "${VERBOSE:-0}" = 1 ] && echo "$args: opened $opened of $ndirs directories d*"
	[ "$opened" -gt 0 ] && [ "$opened" -lt $((ndirs / 2)) ] ||
		fail "$args: opened $opened of $ndirs directories d*"
	# on one CPU: the same sample, and as many threads (the pre-pass's
	# bookkeeping runs on the scan's thread, whatever the CPUs)
	CHECKS=$((CHECKS + 1))
	# shellcheck disable=SC2086
	taskset -c 0 "$bin" -b $args --format=json p >"$OUT/one.out" 2>&1 ||
		fail "$args: compsize on one CPU failed: $(head -3 "$OUT/one.out")"
	jq -c "$sel" "$OUT/one.out" >"$OUT/one"
	cmp -s "$OUT/pruned" "$OUT/one" ||
		fail "$args: the sample on one CPU differs: $(diff "$OUT/pruned" "$OUT/one")"
	[ "$(nproc)" -ge 2 ] || continue
	CHECKS=$((CHECKS + 1))
	# (COMPSIZE_AHEAD=0: not the threads a warm scan's long searches
	# start, one a CPU: scan/ahead.c)
	threads() {
		# shellcheck disable=SC2086
		COMPSIZE_AHEAD=0 ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -e trace=clone,clone3 -o "$OUT/strace" \
			"$@" $args p >/dev/null 2>&1 ||
			fail "$args: compsize under strace failed"
		grep -Ec 'clone3?\(' "$OUT/strace" || true
	}
	many=$(threads "$bin")
	one=$(threads taskset -c 0 "$bin")
	[ "$many" = "$one" ] ||
		fail "$args: $many threads on $(nproc) CPUs, $one on one: expected as many"
done

true
