#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick rows san
# What a new user meets at the terminal (issue #17): --per-file with
# --depth (du -a -d), JSON without root, the allocated report when some
# usage can't be read, the note on negative zstd levels for kernels before
# 6.15, and a speed that was not measured.
. "$(dirname "$0")/../common.sh"

setup_fs max_inline=0
mkdir -p d/a/b
random_data 8K >d/f1
random_data 12K >d/a/f2
random_data 16K >d/a/b/f3
sync

# --per-file --depth=N: the files and directories down to depth N, as
# du -a -d N lists them
for n in 0 1 2; do
	for walk in "" --walk; do
		expect_ours 0 '' --per-file --depth=$n $walk --sort=name "$MNT/d"
		CHECKS=$((CHECKS + 1))
		got=$(sed -n '2,/^$/p' "$OUT/ours.out" | awk 'NF { print $NF }')
		want=$(du -a -d $n "$MNT/d" | cut -f2 | LC_ALL=C sort)
		[ "$got" = "$want" ] ||
			fail "--per-file --depth=$n $walk: rows [$(echo $got)], du -a -d $n [$(echo $want)]"
	done
done
# each row is what compsize reports for it alone
expect_ours 0 '' --per-file --depth=1 --format=json "$MNT/d"
CHECKS=$((CHECKS + 1))
[ "$(jq -r '.paths[] | select(.path | endswith("/d/a")) | .total.disk' "$OUT/ours.out")" = 28672 ] ||
	fail "--per-file --depth=1: d/a is not its whole subtree"

# Without root the usage comes from FIEMAP (issue #59): the same as
# root's here (uncompressed), JSON's method says which.  --exclusive still
# needs root: --format=json still prints its object, with the cause for
# each argument in errors, and exits 1; CSV prints nothing.
expect_ours 0 '' --format=json "$MNT/d"
root_usage=$(jq -c '[.files, .total, .types]' "$OUT/ours.out")
bin=$COMPSIZE
mkdir "$TESTDIR/bin"
cp "$bin" "$(dirname "$bin")/compsize-estimate.so" "$TESTDIR/bin/"
chmod 755 "$TESTDIR/bin" "$TESTDIR/bin/"*
chmod o+x "$TESTDIR" ${CLI_TMPROOT:+"$CLI_TMPROOT"}
nobody()
{
	local rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TESTDIR/bin/compsize" \
		"$@" >"$OUT/nobody.out" 2>"$OUT/nobody.err" || rc=$?
	echo $rc
}
CHECKS=$((CHECKS + 1))
rc=$(nobody --format=json "$MNT/d")
[ "$rc" = 0 ] && jq -e '.method == "fiemap"' "$OUT/nobody.out" >/dev/null &&
	[ "$(jq -c '[.files, .total, .types]' "$OUT/nobody.out")" = "$root_usage" ] ||
	fail "json as nobody: exit $rc: $(cat "$OUT/nobody.out"), root's $root_usage"
CHECKS=$((CHECKS + 1))
rc=$(nobody --exclusive --format=json "$MNT/d" "$MNT/d/a")
[ "$rc" = 1 ] || fail "json as nobody: exit $rc, not 1"
jq -e '.errors | length == 2 and all(.error == "reading btrfs metadata needs root (CAP_SYS_ADMIN)")' \
	"$OUT/nobody.out" >/dev/null || fail "json as nobody: $(cat "$OUT/nobody.out")"
jq -e --arg p "$MNT/d" '.errors[0].path == $p and .files == 0 and .types == []' \
	"$OUT/nobody.out" >/dev/null || fail "json as nobody: $(cat "$OUT/nobody.out")"
grep -qx 'compsize: --exclusive: reading btrfs metadata needs root (CAP_SYS_ADMIN)' "$OUT/nobody.err" ||
	fail "json as nobody: stderr $(cat "$OUT/nobody.err")"
CHECKS=$((CHECKS + 1))
rc=$(nobody --exclusive --format=csv "$MNT/d")
[ "$rc" = 1 ] && [ ! -s "$OUT/nobody.out" ] ||
	fail "csv as nobody: exit $rc, stdout $(cat "$OUT/nobody.out")"

# Capabilities in a user namespace don't reach the tree search: the same
# as without root, the usage from FIEMAP, with an estimate too (on the
# fast scan and on --walk alike)
for scan in "" --walk; do
	CHECKS=$((CHECKS + 1))
	rc=0
	unshare -r "$COMPSIZE" $scan --format=json "$MNT/d" >"$OUT/ns.out" 2>"$OUT/ns.err" || rc=$?
	[ "$rc" = 0 ] && jq -e '.method == "fiemap"' "$OUT/ns.out" >/dev/null &&
		[ "$(jq -c '[.files, .total, .types]' "$OUT/ns.out")" = "$root_usage" ] || fail "json in a user namespace $scan: exit $rc: $(cat "$OUT/ns.out" "$OUT/ns.err")"
	CHECKS=$((CHECKS + 1))
	rc=0
	unshare -r "$COMPSIZE" $scan -e zstd:1 "$MNT/d" >"$OUT/ns.out" 2>"$OUT/ns.err" || rc=$?
	[ "$rc" = 0 ] && grep -q '^Processed 3 files, 3 regular extents' "$OUT/ns.out" &&
		grep -q '^compress=zstd:1 ' "$OUT/ns.out" ||
		fail "estimate in a user namespace $scan: exit $rc: $(cat "$OUT/ns.out" "$OUT/ns.err")"
done

# Some usage unread (an argument off btrfs): the table shows what is
# allocated instead of the usage by type, and JSON likewise: no types
# beside allocated, the total 0.
tmpfs_at "$TESTDIR/tmp"
random_data 4K >"$TESTDIR/tmp/x"
expect_ours 0 '' --format=json -e zstd:1 "$MNT/d" "$TESTDIR/tmp"
CHECKS=$((CHECKS + 1))
jq -e '.allocated > 0 and .types == [] and .total.disk == 0' "$OUT/ours.out" >/dev/null ||
	fail "json with allocated: $(jq -c '{total, types, allocated}' "$OUT/ours.out")"
expect_ours 0 '' -e zstd:1 "$MNT/d" "$TESTDIR/tmp"
CHECKS=$((CHECKS + 1))
grep -q '^Processed 4 files, .* allocated' "$OUT/ours.out" && ! grep -q '^TOTAL' "$OUT/ours.out" ||
	fail "table with allocated: $(cat "$OUT/ours.out")"

# Negative zstd levels: one note on a kernel before 6.15 (setarch's
# uname 2.6), none on this one when it is 6.15 or later
expect_ours 0 '' -e zstd:1 "$MNT/d"
for scan in "" --walk; do
	CHECKS=$((CHECKS + 1))
	setarch "$(uname -m)" --uname-2.6 "$COMPSIZE" $scan -e zstd:-3,zstd:-1 "$MNT/d" \
		>/dev/null 2>"$OUT/old.err" || fail "zstd:-3 on 2.6 $scan: exit $?"
	[ "$(grep -c 'negative zstd levels need Linux 6.15 or later; this kernel is 2\.6\.' "$OUT/old.err")" = 1 ] ||
		fail "zstd:-3 on 2.6 $scan: stderr $(cat "$OUT/old.err")"
	CHECKS=$((CHECKS + 1))
	setarch "$(uname -m)" --uname-2.6 "$COMPSIZE" $scan -e zstd:3 "$MNT/d" \
		>/dev/null 2>"$OUT/old.err" || fail "zstd:3 on 2.6 $scan: exit $?"
	[ ! -s "$OUT/old.err" ] || fail "zstd:3 on 2.6 $scan: a note: $(cat "$OUT/old.err")"
done
IFS=. read -r maj min _ <<<"$(uname -r)"
if [ "$maj" -gt 6 ] || { [ "$maj" = 6 ] && [ "${min%%[!0-9]*}" -ge 15 ]; }; then
	expect_ours 0 '' -e zstd:-3 "$MNT/d"
fi

# A speed that was not measured (random data: the heuristic lets nothing
# through to the codec) is "-", not 0MB/s
expect_ours 0 '' -e zlib:1 "$MNT/d/f1"
CHECKS=$((CHECKS + 1))
grep -Eq '^compress=zlib:1 +100% .* -  +- *$' "$OUT/ours.out" ||
	fail "unmeasured speed: $(grep '^compress=' "$OUT/ours.out")"
! grep -q '0MB/s' "$OUT/ours.out" || fail "0MB/s printed: $(cat "$OUT/ours.out")"
