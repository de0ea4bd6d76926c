#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick estimate
# --estimate from the command line: bad items are usage errors before any
# work, it runs without root and on other filesystems (allocated size in
# place of the usage by type), JSON and CSV carry every setting, rows get
# their own estimates.  Accuracy against the kernel: tests/cli/estimate.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p data/text data/random
text_data 1M >data/text/a
text_data 50K >data/text/b
random_data 512K >data/random/r
sync

# Bad items: exit 2, one line naming the item, nothing on stdout.
for bad in 'zstd:99' 'lzo:1' 'zlib:10' 'gzip' 'zstd,,lzo' 'zstd:3..1' 'compress=' \
	'zstd:1x'; do
	expect_ours 2 "invalid --estimate item" --estimate="$bad" data
	[ -s "$OUT/ours.out" ] && fail "--estimate=$bad printed a report"
	[ "$(wc -l <"$OUT/ours.err")" = 1 ] || fail "--estimate=$bad: not one line"
done

# Settings come out canonical, in order, duplicates dropped.
expect_ours 0 '' -b -e zstd,compress-force=lzo,zlib:1,zstd:3 --format=json data
[ "$(jq -r '[.estimates[].setting] | join(" ")' "$OUT/ours.out")" = \
  "compress=zstd:3 compress-force=lzo compress=zlib:1" ] ||
	fail "settings: $(jq -c '[.estimates[].setting]' "$OUT/ours.out")"
jq -e '.estimates | all(.disk > 0 and .uncompressed > 0 and .input > 0 and
	.compress_mbps > 0 and .decompress_mbps > 0)' "$OUT/ours.out" >/dev/null ||
	fail "estimate fields: $(jq -c .estimates "$OUT/ours.out")"
# the random file can't shrink: lzo can't beat raw size on it
jq -e '.estimates[1].disk >= 524288' "$OUT/ours.out" >/dev/null || fail "lzo below raw size"

# The table's second part.
expect_ours 0 '' -e zstd:1,lzo data
grep -Eq '^Setting +Perc +Disk Usage +Change +(Fresh copy +)?Compress +Decompress' "$OUT/ours.out" ||
	fail "no estimate table"
grep -Eq '^compress=zstd:1 +[0-9]+% ' "$OUT/ours.out" || fail "no zstd:1 row"
grep -Eq '^compress=lzo +[0-9]+% ' "$OUT/ours.out" || fail "no lzo row"

# Rows: each directory's estimate is that of a run on it alone; the rows'
# files add up to the total.
expect_ours 0 '' --depth=1 -e zstd:1 --format=json data
cp "$OUT/ours.out" "$OUT/rows.json"
for d in data/text data/random; do
	row=$(jq -c --arg p "$d" '.paths[] | select(.path == $p) | .estimates[0] | {disk, uncompressed, input}' "$OUT/rows.json")
	run_ours alone -e zstd:1 --format=json "$d"
	[ "$row" = "$(jq -c '.estimates[0] | {disk, uncompressed, input}' "$OUT/alone.out")" ] ||
		fail "--depth=1 -e: row $d $row differs from a run on it alone"
done
expect_ours 0 '' --depth=1 -e zstd:1 --format=csv data
grep -q '^estimate,data/text,,compress=zstd:1,' "$OUT/ours.out" || fail "CSV per-row estimate"

# Not root: no usage by type, the allocated size instead, estimates as root.
chmod o+x "$CLI_TMPROOT" "$TESTDIR"
chmod -R o+rX "$MNT/data"
expect_ours 0 '' -b -e zstd:1 --format=json data
root_est=$(jq -c '.estimates' "$OUT/ours.out")
root_usage=$(jq -c '[.files, .total, .types]' "$OUT/ours.out")
cat >"$TESTDIR/as-nobody" <<EOS
#!/bin/sh
exec setpriv --reuid=65534 --regid=65534 --clear-groups "$COMPSIZE" "\$@"
EOS
chmod 755 "$TESTDIR/as-nobody"
run_prog nobody "$TESTDIR/as-nobody" -b -e zstd:1 --format=json data
[ "$(cat "$OUT/nobody.rc")" = 0 ] || fail "estimate as nobody: exit $(cat "$OUT/nobody.rc"): $(cat "$OUT/nobody.err")"
[ "$(jq -c "[.estimates[] | {setting, disk, uncompressed, input}]" "$OUT/nobody.out")" = "$(jq -c "[.[] | {setting, disk, uncompressed, input}]" <<<"$root_est")" ] ||
	fail "estimate as nobody differs from root's"
# the usage from FIEMAP (issue #59), the same as root's on plain copies
jq -e '.method == "fiemap" and (has("allocated") | not)' "$OUT/nobody.out" >/dev/null ||
	fail "as nobody: not the FIEMAP report: $(head -c 300 "$OUT/nobody.out")"
[ "$(jq -c '[.files, .total, .types]' "$OUT/nobody.out")" = "$root_usage" ] ||
	fail "as nobody: usage $(jq -c '[.files, .total, .types]' "$OUT/nobody.out"), root's $root_usage"
run_prog nobody "$TESTDIR/as-nobody" -e zstd:1 data
grep -q '^Processed 3 files, .* regular extents' "$OUT/nobody.out" ||
	fail "as nobody, table: $(head -n 2 "$OUT/nobody.out")"
# ... and without --estimate too
run_prog nobody "$TESTDIR/as-nobody" data
[ "$(cat "$OUT/nobody.rc")" = 0 ] && grep -q 'not root: usage from FIEMAP' "$OUT/nobody.err" ||
	fail "as nobody without -e: exit $(cat "$OUT/nobody.rc"): $(cat "$OUT/nobody.err")"

# Another filesystem: tmpfs.
tmpfs_at "$TESTDIR/tmp"
cp -r "$MNT/data" "$TESTDIR/tmp/"
expect_ours 0 '' -b -e zstd:1 --format=json "$TESTDIR/tmp/data"
[ "$(jq -c "[.estimates[] | {setting, disk, uncompressed, input}]" "$OUT/ours.out")" = "$(jq -c "[.[] | {setting, disk, uncompressed, input}]" <<<"$root_est")" ] ||
	fail "estimate on tmpfs differs from btrfs"
jq -e 'has("allocated") and .types == []' "$OUT/ours.out" >/dev/null || fail "tmpfs: usage shown"
