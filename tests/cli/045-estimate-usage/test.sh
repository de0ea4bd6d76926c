#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick estimate
# With --estimate the usage of a directory is counted by the fast scan
# while the workers read its files: when estrun's queue first fills, or
# when the walk leaves the directory (run.c: defer_scan()).  Either
# way the usage report, its rows and its totals are exactly those of the
# run without --estimate.  The directories here hold more files than the
# queue (512 files a worker): here with -j 1 the queue filled in data/c
# (1,400 files) and the scan ran in the middle of its walk, while data/a
# and data/b were counted when the walk left them.  Which happens depends
# on timing; the report must not.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
random_data 1M >"$TESTDIR/random"
mkdir -p data/a data/b/deep/er data/c
for d in a b/deep/er c; do
	for i in $(seq 1 700); do
		case $((i % 7)) in
		0) head -c $((i * 3 + 100)) "$TESTDIR/random" >"data/$d/f$i" ;;
		1) : >"data/$d/f$i" ;;
		*) printf '%*s\n' $((i * 11 % 9000 + 50)) "$d $i" >"data/$d/f$i" ;;
		esac
	done
done
# shared extents between directories, a hard link
cp -a --reflink=always data/a data/c/a-copy
ln data/b/deep/er/f5 data/c/link5
sync

for j in 1 2; do
	expect_ours 0 '' -b --depth=1 --format=json data
	jq -S 'del(.estimates) | del(.paths[].estimates)' "$OUT/ours.out" \
		>"$OUT/plain.json"
	expect_ours 0 '' -b --depth=1 --format=json -e zstd:1,lzo -j "$j" data
	jq -S 'del(.estimates) | del(.paths[].estimates)' "$OUT/ours.out" \
		>"$OUT/est.json"
	cmp -s "$OUT/plain.json" "$OUT/est.json" ||
		fail "-j $j: usage with --estimate differs: $(diff "$OUT/plain.json" "$OUT/est.json" | head -20)"
	jq -e '.paths | length == 4' "$OUT/ours.out" >/dev/null ||
		fail "-j $j: not 4 rows: $(jq -c '[.paths[].path]' "$OUT/ours.out")"

	# The table: the usage part is compsize 1.5's report.
	expect_ours 0 '' -b -e zstd:1 -j "$j" data
	sed '/^$/,$d' "$OUT/ours.out" >"$OUT/usage.out"
	CHECKS=$((CHECKS + 1))
	run_prog oracle "$ORACLE" -b data
	cmp -s "$OUT/usage.out" "$OUT/oracle.out" ||
		fail "-j $j: usage table differs from compsize 1.5: $(diff "$OUT/oracle.out" "$OUT/usage.out")"
done
