#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick sample san
# A sample's pre-pass notes which file meets a shared extent first, in the
# walk's order (docs/sampling.md, The same layout): a snapshot's files that
# the walk meets after the source's count nothing in the same layout and
# get strata of their own.  The fast scan lists nested subvolumes after
# the tree they are in; it must list them in the order the walk meets
# them (readdir: each directory's entries in DIR_INDEX order, depth
# first), not in the order their names hash to.  Listed in another order,
# a snapshot's copies stood for the source's, the few units that count
# sat in strata drawn for the ones that don't, and the interval came out
# several times too wide on some seeds.  Here: a subvolume and 12
# snapshots in the top directory taken as it changed, 3 more in two
# directories whose inode order is not the walk's (one renamed) sharing
# data the subvolume no longer holds, a snapshot nested in a snapshot;
# the fast scan's sample, estimates and intervals must be the ones of the
# pre-pass that walks (--walk).
. "$(dirname "$0")/../common.sh"

setup_fs compress=zstd:1
btrfs -q subvolume create sv
for i in $(seq 1 40); do
	mkdir -p "sv/d$((i % 7))"
	text_data $((i * 211 % 9000 + 2500)) >"sv/d$((i % 7))/t$i"
	[ $((i % 4)) = 0 ] && random_data $((i * 97 + 5000)) >"sv/d$((i % 7))/r$i"
done
{ text_data 3M; random_data 1M; } >sv/big
# files of 2-4 KiB, inline now: a snapshot's copies of them count with
# every file where the setting keeps them inline, and nothing where it
# makes an extent of them (away strata of their own, SAMPLE_JUMP_DRAWS)
for i in $(seq 1 30); do
	{ text_data $((i * 37 + 1200)); random_data $((i * 41 % 900 + 100)); } \
		>"sv/d$((i % 7))/s$i"
done
sync
# the live subvolume changes between snapshots, as it does: data that
# only snapshots hold now is shared by those taken while it lived
change() {
	text_data $(($1 * 700 + 4000)) >"sv/gen$1"
	rm -f "sv/gen$(($1 - 2))"
	text_data 256K | dd of=sv/big bs=64K seek=$(($1 % 6 * 4)) \
		conv=notrunc status=none
}
i=0
for n in mon tue wed thu fri sat sun alpha beta gamma delta epsilon; do
	i=$((i + 1))
	btrfs -q subvolume snapshot sv "$n" >/dev/null
	text_data $((i * 1000 + 3000)) >"$n/own"
	change "$i"
done
# directories whose inode order is not the walk's: b made first, renamed
# after a was made (a new index, after a's); the walk meets a/two first
mkdir b
mkdir a
mv b z
{ text_data 1M; random_data 512K; } >sv/late
sync
btrfs -q subvolume snapshot sv z/one >/dev/null
btrfs -q subvolume snapshot sv a/two >/dev/null
btrfs -q subvolume snapshot sv a/three >/dev/null
# late's extents now held by the three snapshots alone
{ text_data 1M; random_data 512K; } >sv/late
btrfs -q subvolume snapshot sv mon/inner >/dev/null
sync

sel='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95,
	disk_fresh, sample_units_read, sample_units}]'
for args in "--sample=5% --seed=1 -e zstd:3" "--sample=10% --seed=2 -e zstd:1,lzo" \
	"--sample=3% --seed=3 -e compress-force=zstd:3" "--sample=20% --seed=4 -e zlib:3"; do
	# shellcheck disable=SC2086
	expect_ours 0 '' -b $args --format=json .
	jq -c "$sel" "$OUT/ours.out" >"$OUT/fast"
	# shellcheck disable=SC2086
	expect_ours 0 '' -b $args --walk --format=json .
	jq -c "$sel" "$OUT/ours.out" >"$OUT/walked"
	CHECKS=$((CHECKS + 1))
	cmp -s "$OUT/fast" "$OUT/walked" ||
		fail "$args: the fast scan's sample differs from the walk's: $(diff "$OUT/fast" "$OUT/walked")"
done

# The walk meets a subvolume nested in a tree where its entry is, among
# the tree's own files, and a tree's files in DIR_INDEX order, not in
# inode order (walkorder.h).  Snapshots kept inside the subvolume they
# are of, in a directory made before its files (snapper's .snapshots),
# are met before the files: listed after them, the source's files, which
# the walk takes to count, sat in the away strata, and the interval was
# many times too wide.  Within the tree: a directory made first, whose
# files are reflinked from, or renamed from, later ones.
btrfs -q subvolume create home
mkdir home/.snapshots home/early
for i in $(seq 1 30); do
	mkdir -p "home/d$((i % 5))"
	text_data $((i * 317 % 7000 + 3000)) >"home/d$((i % 5))/t$i"
	[ $((i % 3)) = 0 ] && random_data $((i * 131 + 4000)) >"home/d$((i % 5))/r$i"
done
{ text_data 2M; random_data 512K; } >home/d1/big
sync
for i in $(seq 1 8); do
	cp --reflink=always "home/d$((i % 5))/t$i" "home/early/c$i"
done
mv home/d2/t2 home/early/moved
for i in 1 2 3; do
	btrfs -q subvolume snapshot -r home "home/.snapshots/$i" >/dev/null
	text_data $((i * 2100 + 5000)) >"home/d0/new$i"
	text_data 128K | dd of=home/d1/big bs=64K seek=$((i * 3)) \
		conv=notrunc status=none
	sync
done
sel='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95,
	disk_fresh, sample_units_read, sample_units}]'
for args in "--sample=10% --seed=1 -e zstd:3" "--sample=20% --seed=2 -e lzo" \
	"--sample=5% --seed=3 -e zstd:1"; do
	# shellcheck disable=SC2086
	expect_ours 0 '' -b $args --format=json home
	jq -c "$sel" "$OUT/ours.out" >"$OUT/fast"
	# shellcheck disable=SC2086
	expect_ours 0 '' -b $args --walk --format=json home
	jq -c "$sel" "$OUT/ours.out" >"$OUT/walked"
	CHECKS=$((CHECKS + 1))
	cmp -s "$OUT/fast" "$OUT/walked" ||
		fail "home, $args: the fast scan's sample differs from the walk's: $(diff "$OUT/fast" "$OUT/walked")"
done

# The away strata (files whose data the walk met before, in other
# files) count nothing in the same layout, and are drawn at their floors
# only (sample_pop.W): the budget goes to the files that count.  With 12
# snapshots left as they were and files new in each, a 20% sample has
# room for every unit that counts: its estimate is the full one, to the
# byte, and its interval 0.  Drawn like the others (as before), the
# snapshots took 12/13 of the budget and the interval was not 0.  A
# rewrite's change counts the snapshots' files again: no such weighing.
mkdir flat
btrfs -q subvolume create flat/q
for i in $(seq 1 40); do
	text_data $((i * 1300 + 8000)) >"flat/q/t$i"
	[ $((i % 5)) = 0 ] && { text_data 1M; random_data 512K; } >"flat/q/m$i"
done
sync
for i in $(seq 1 12); do
	btrfs -q subvolume snapshot flat/q "flat/s$i" >/dev/null
	text_data $((i * 900 + 2000)) >"flat/s$i/own"
done
sync
sel='[.estimates[] | {setting, disk, uncompressed, disk_ci95}]'
expect_ours 0 '' -b -e zstd:3,lzo --format=json flat
jq -c "$sel | map(.disk_ci95 = 0)" "$OUT/ours.out" >"$OUT/full"
expect_ours 0 '' -b -e zstd:3,lzo --sample=20% --format=json flat
jq -c "$sel" "$OUT/ours.out" >"$OUT/sampled"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/full" "$OUT/sampled" ||
	fail "a 20% sample of a subvolume beside 12 snapshots is not the full estimate: $(diff "$OUT/full" "$OUT/sampled")"
jq -e '.estimates[0].sample_data_read * 4 < .estimates[0].sample_data' \
	"$OUT/ours.out" >/dev/null || fail "the 20% sample read more than a quarter of the data"

true
