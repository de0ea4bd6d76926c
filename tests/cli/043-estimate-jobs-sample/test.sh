#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto estimate san
# The estimate runtime: -j, --sample, --seed.  Bad values are one-line usage
# errors before any work; any number of threads gives the same numbers and
# the same rows; a sample is the same for the same seed, reports its
# interval in JSON, CSV and the table and counts every file's size; the
# progress line never shows when stderr is not a terminal (every run here
# wants an empty stderr).  The sample's pre-pass lists candidates and their
# current ratios from the fast scan's items where it can: the same sample
# as listing them with fstatat and a search per file (--walk), and the
# walk that reads then lists them without a system call a file.  The same
# sample after the filesystem is mounted again.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p data/text data/random data/mixed
for i in $(seq 1 40); do
	text_data $((i * 7))K >"data/text/t$i"
	random_data $((i * 3))K >"data/random/r$i"
	{ text_data $((i * 2))K; random_data $((i * 2))K; } >"data/mixed/m$i"
done
# files written in steps (several transactions): estimated as written
# by the full estimate, and by a "sample" of everything alike
for i in 1 2 3; do
	text_data $((i * 50 + 3))K >"data/mixed/steps$i"
	sync
	random_data $((i * 30 + 1))K >>"data/mixed/steps$i"
	sync
	text_data $((i * 70))K >>"data/mixed/steps$i"
done
sync

for bad in '-j 0' '-j x' '--jobs=1025' '--jobs=' '--sample=0%' '--sample=101%' \
	'--sample=5x' '--sample=' '--sample=-5%' '--seed=-1' '--seed=x'; do
	# shellcheck disable=SC2086
	expect_ours 2 "compsize: invalid --(jobs|sample|seed) " -e zstd:1 $bad data
	[ -s "$OUT/ours.out" ] && fail "$bad printed a report"
	[ "$(wc -l <"$OUT/ours.err")" = 1 ] || fail "$bad: not one line"
done
expect_ours 2 'need --estimate' --sample=5% data
expect_ours 2 'need --estimate' --seed=3 data

# Threads: same totals and rows as one thread.
for j in 1 2 5; do
	expect_ours 0 '' -b -e zstd:1,compress-force=lzo,zlib:3 --depth=1 \
		--format=json -j "$j" data
	jq -c '[.estimates[] | {setting, disk, uncompressed, input}],
		[.paths[] | {path, e: [.estimates[] | .disk]}]' \
		"$OUT/ours.out" >"$OUT/j$j"
done
cmp -s "$OUT/j1" "$OUT/j2" || fail "-j 2 differs from -j 1: $(diff "$OUT/j1" "$OUT/j2")"
cmp -s "$OUT/j1" "$OUT/j5" || fail "-j 5 differs from -j 1: $(diff "$OUT/j1" "$OUT/j5")"
expect_ours 0 '' -b -e zstd:1 --per-file --format=json -j 2 data
jq -e '([.paths[].estimates[0].disk] | add) == .estimates[0].disk' \
	"$OUT/ours.out" >/dev/null || fail "--per-file rows don't add up"
# Rows close without waiting for their files' estimates, which come back
# later and in any order: each still lands in its own row (its input is
# that file's size) and the rows are those of one thread.
for j in 1 5; do
	expect_ours 0 '' -b -e zstd:1,compress-force=lzo --per-file \
		--format=json -j "$j" data
	jq -r '.paths[] | "\(.path) \([.estimates[] | .disk, .input])"' \
		"$OUT/ours.out" | sort >"$OUT/pf$j"
done
cmp -s "$OUT/pf1" "$OUT/pf5" || fail "--per-file -j 5 differs from -j 1: $(diff "$OUT/pf1" "$OUT/pf5")"
while read -r path e; do
	size=$(stat -c %s "$path")
	[ "$(jq -c '[.[1], .[3]]' <<<"$e")" = "[$size,$size]" ] ||
		fail "--per-file row $path: input $e, size $size"
done <"$OUT/pf5"
[ "$(wc -l <"$OUT/pf5")" = 123 ] || fail "--per-file: $(wc -l <"$OUT/pf5") rows, not 123"

# Samples: reproducible, with an interval; input is every file's size.
expect_ours 0 '' -e zstd:1,lzo --sample=40% --format=json -j 2 data
cp "$OUT/ours.out" "$OUT/s1"
expect_ours 0 '' -e zstd:1,lzo --sample=40% --seed=0 --format=json -j 1 data
sel='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95}]'
[ "$(jq -c "$sel" "$OUT/s1")" = "$(jq -c "$sel" "$OUT/ours.out")" ] ||
	fail "same seed, different estimate: $(jq -c "$sel" "$OUT/s1" "$OUT/ours.out")"
jq -e '.estimates | all(has("disk_ci95") and .disk_ci95 > 0)' "$OUT/s1" \
	>/dev/null || fail "no disk_ci95: $(jq -c .estimates "$OUT/s1")"
full_input=$(head -n 1 "$OUT/j1" | jq '.[0].input')
[ "$(jq '.estimates[0].input' "$OUT/s1")" = "$full_input" ] ||
	fail "sampled input $(jq '.estimates[0].input' "$OUT/s1") != $full_input"
expect_ours 0 '' -e zstd:1,lzo --sample=40% --seed=9 --format=json data
[ "$(jq -c "$sel" "$OUT/s1")" != "$(jq -c "$sel" "$OUT/ours.out")" ] ||
	fail "another seed, same estimate"
expect_ours 0 '' -e zstd:1 --sample=2M --format=csv data
grep -Eq '^estimate,,,compress=zstd:1,[0-9]+,[0-9]+,,,,,,[0-9.]+,[0-9.]+,[0-9]+,[0-9]+,' \
	"$OUT/ours.out" || fail "CSV: no disk_ci95: $(grep ^estimate "$OUT/ours.out")"
expect_ours 0 '' -e zstd:1 --sample=30% data
grep -Eq '^Setting .* 95% CI$' "$OUT/ours.out" || fail "table: no CI column"
grep -Eq '^Sample: [1-9][0-9]* of [1-9][0-9]* units read, .* of .* of data\.$' \
	"$OUT/ours.out" || fail "table: no units read line: $(tail -2 "$OUT/ours.out")"
# All of it: no sampling, no interval.
expect_ours 0 '' -b -e zstd:1,compress-force=lzo,zlib:3 --sample=100% --format=json data
jq -e '.estimates | all(has("disk_ci95") | not)' "$OUT/ours.out" >/dev/null ||
	fail "--sample=100% has an interval"
[ "$(jq -c '[.estimates[] | {setting, disk, uncompressed, input}]' "$OUT/ours.out")" = \
  "$(head -n 1 "$OUT/j1")" ] || fail "--sample=100% differs from the full estimate"

# The pre-pass from the fast scan's items (a whole subvolume streamed, a
# subdirectory listed, hard links, a sparse and an empty file) draws what
# the walk's listing draws, and the same estimates and intervals, under a
# nested subvolume too (listed with its parent, its files keyed by its
# subvolume until the walk enters it and learns its st_dev).
btrfs -q subvolume create data/sub
mkdir data/sub/many
# few compressible files beside many incompressible ones of the same
# size: with their bands the few get a stratum (and a larger share) of
# their own
for i in $(seq 1 300); do
	[ "$i" -le 30 ] && text_data 20K >"data/sub/many/t$i"
	random_data 20K >"data/sub/many/r$i"
done
{ text_data 6M; random_data 6M; } >data/sub/big
ln data/sub/many/t1 data/sub/link1
ln data/sub/big data/sub/many/big2
# Shared data: reflinked copies and files of the same few bytes (their
# inline items alike).  Which file meets a shared extent first must not
# depend on the sample: the fast path searches only the files that share
# anything (and those drawn), the walk every file.
mkdir data/sub/shared
for i in $(seq 1 60); do
	text_data $((i % 3 + 1))K >"data/sub/shared/s$i"
	cp "data/sub/shared/s$i" "data/sub/shared/c$i"
	text_data $((40 + i))K >"data/sub/shared/r$i"
	cp --reflink=always "data/sub/shared/r$i" "data/sub/shared/f$i"
done
truncate -s 3M data/sub/sparse
text_data 600K | dd of=data/sub/sparse bs=1M seek=2 conv=notrunc status=none
: >data/sub/empty
sync
sel='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95,
	sample_units_read, sample_units}]'
for arg in data/sub data/sub/many . data; do
	for seed in 1 2; do
		expect_ours 0 '' -b -e zstd:1,lzo --sample=10% --seed=$seed \
			--format=json "$arg"
		jq -e '.estimates[0].sample_units_read < .estimates[0].sample_units' \
			"$OUT/ours.out" >/dev/null || fail "$arg: read everything"
		jq -c "$sel" "$OUT/ours.out" >"$OUT/fast"
		expect_ours 0 '' -b -e zstd:1,lzo --sample=10% --seed=$seed \
			--walk --format=json "$arg"
		jq -c "$sel" "$OUT/ours.out" >"$OUT/walked"
		cmp -s "$OUT/fast" "$OUT/walked" ||
			fail "$arg seed $seed: the fast scan's listing differs from the walk's: $(diff "$OUT/fast" "$OUT/walked")"
	done
done

# The same seed draws the same units after the filesystem is mounted
# again, which numbers its subvolumes' st_dev anew (another filesystem
# mounted meanwhile takes the old numbers): the draws name a device by its
# filesystem's id (statfs's f_fsid, from the UUID and the subvolume).
samples()
{
	local arg walk
	for arg in data data/sub/many; do
		for walk in '' --walk; do
			# shellcheck disable=SC2086
			expect_ours 0 '' -b -e zstd:1,lzo --sample=10% --seed=4 \
				$walk --format=json "$arg"
			jq -c "$sel" "$OUT/ours.out"
		done
	done >"$OUT/$1"
}
samples first
devs=$(stat -c %d data data/sub)
first=$MNT
cd /
umount "$first"
setup_fs
mount -o loop,compress-force=zstd:3 "$TESTDIR/img0" "$first"
cd "$first"
[ "$(stat -c %d data data/sub)" != "$devs" ] ||
	fail "mounted again, the same st_dev ($devs): the check below can't fail"
samples again
cmp -s "$OUT/first" "$OUT/again" ||
	fail "mounted again, another sample: $(diff "$OUT/first" "$OUT/again")"

true
