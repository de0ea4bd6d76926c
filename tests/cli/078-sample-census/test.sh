#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick sample san
# A sample that reads every unit (--sample=99% of a small tree: its floors
# draw every unit, which the test checks) is a census: its
# estimates must equal the full estimate's, in the same layout and the
# fresh copy, with an interval of 0.  On files sharing one extent of a
# sector or less: reflinks of a file truncated below a sector and of a
# sector of text (which a setting that compresses stores inline, each
# file its own copy, where the sample had taken the extent as shared,
# counted once), of a sector of random data, of a sector with a hole
# after it (never inline: shared under every setting), of inline data,
# hard links, reflinked big files, under several settings.
. "$(dirname "$0")/../common.sh"

setup_fs
text_data 4095 >a
cp --reflink=always a b
truncate -s 1581 b
for f in c d e; do cp --reflink=always b "$f"; done
text_data 4096 >s1
random_data 4096 >s2
for f in s1 s2; do cp --reflink=always "$f" "$f.r1"; cp --reflink=always "$f" "$f.r2"; done
text_data 4096 >h
truncate -s 9000 h
cp --reflink=always h h.r1
random_data 3000 >r
truncate -s 3500 r
cp --reflink=always r r.1
text_data 900 >i
cp --reflink=always i i.1
ln i i.link
{ text_data 300K; random_data 300K; } >big
cp --reflink=always big big.r
mkdir dir
cp --reflink=always b dir/b
ln c dir/c.link
sync

sel='[.estimates[] | {setting, disk, uncompressed, input, disk_fresh,
	uncompressed_fresh}]'
for set in zstd:3 lzo compress-force=zlib:3 zstd:1,compress-force=lzo; do
	for paths in ". " "b c d e" "dir c r r.1 s1.r1 s2" \
		"s1 s1.r1 s1.r2 s2 s2.r1 h h.r1"; do
		# shellcheck disable=SC2086
		expect_ours 0 '' -b -e "$set" --format=json $paths
		jq -c "$sel" "$OUT/ours.out" >"$OUT/full"
		# shellcheck disable=SC2086
		expect_ours 0 '' -b -e "$set" --sample=99% --format=json $paths
		jq -c "$sel" "$OUT/ours.out" >"$OUT/census"
		jq -e 'all(.estimates[]; .disk_ci95 == 0 and
			.sample_units_read == .sample_units)' "$OUT/ours.out" \
			>/dev/null ||
			fail "$set $paths: not every unit read, or an interval"
		cmp -s "$OUT/full" "$OUT/census" ||
			fail "$set $paths: the census differs from the full estimate: $(diff "$OUT/full" "$OUT/census")"
	done
done
true
