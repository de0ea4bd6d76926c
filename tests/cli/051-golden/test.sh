#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick format san
# Golden files kept beside this script (as zstd's tests/cli-tests do): the
# --help text, the shape of the JSON (every key, in order, with its type;
# an array by its first element) in each of its variants, and the CSV
# headers.  A change to any of them must update the file here, the man
# page's schema and README in the same commit.  UPDATE=1 rewrites them.
. "$(dirname "$0")/../common.sh"

here=$(cd "$(dirname "$0")" && pwd)

# golden NAME FILE: FILE must equal $here/NAME byte for byte.
golden()
{
	CHECKS=$((CHECKS + 1))
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$2" "$here/$1"
	elif ! cmp -s "$here/$1" "$2"; then
		fail "$1 differs from the golden file"
		diff -u --label "golden $1" --label ours "$here/$1" "$2" >&2 || true
	fi
}

# The JSON's shape: each value replaced by its type name, arrays by the
# shape of their first element; the keys stay in compsize's order.
shape()
{
	jq 'def shape: if type == "object" then with_entries(.value |= shape)
		elif type == "array" then (if length > 0 then [.[0] | shape] else [] end)
		else type end; shape' "$1"
}

expect_ours 0 '' --help
golden help.out "$OUT/ours.out"

setup_fs compress=zstd:1
mkdir -p d/a d/b
text_data 300K >d/a/text
random_data 200K >d/b/random
text_data 500 >d/inline
sync

# The plain report; rows, estimates from a sample and an error; the
# report of a user who can't search the metadata (FIEMAP's) with an
# estimate; and the estimate-only report of files off btrfs.
expect_ours 1 '*' --format=json "$MNT/d" "$MNT/missing"
shape "$OUT/ours.out" >"$OUT/shape"
golden json-shape.out "$OUT/shape"

expect_ours 1 '*' --format=json --depth=1 -e zstd:1 --sample=1K --seed=1 \
	"$MNT/d" "$MNT/missing"
jq -e '.estimates[0].disk_ci95 != null' "$OUT/ours.out" >/dev/null ||
	fail "the sampled estimate has no disk_ci95"
shape "$OUT/ours.out" >"$OUT/shape"
golden json-shape-rows-estimates.out "$OUT/shape"

# nobody runs copies of the binary and its estimator (the suite's
# temporary directories are private).
bin=$COMPSIZE
mkdir "$TESTDIR/bin"
cp "$bin" "$(dirname "$bin")/compsize-estimate.so" "$TESTDIR/bin/"
chmod 755 "$TESTDIR/bin" "$TESTDIR/bin/"*
chmod o+x "$TESTDIR" ${CLI_TMPROOT:+"$CLI_TMPROOT"}
CHECKS=$((CHECKS + 1))
setpriv --reuid=65534 --regid=65534 --clear-groups "$TESTDIR/bin/compsize" \
	--format=json -e zstd:1 "$MNT/d" >"$OUT/nobody.out" 2>"$OUT/nobody.err" ||
	fail "estimate as nobody: exit $?: $(cat "$OUT/nobody.err")"
shape "$OUT/nobody.out" >"$OUT/shape"
golden json-shape-fiemap.out "$OUT/shape"
# the usage unknown: an estimate off btrfs
tmpfs_at "$TESTDIR/tmp"
cp -r "$MNT/d" "$TESTDIR/tmp/"
expect_ours 0 '' --format=json -e zstd:1 "$TESTDIR/tmp/d"
shape "$OUT/ours.out" >"$OUT/shape"
golden json-shape-no-usage.out "$OUT/shape"

expect_ours 0 '' --format=csv -e zstd:1 "$MNT/d"
head -n 1 "$OUT/ours.out" >"$OUT/header"
golden csv-header.out "$OUT/header"

# --histogram and --compare (issue #57): their members and columns
expect_ours 0 '' --format=json --depth=1 "$MNT/d"
cp "$OUT/ours.out" "$TESTDIR/saved.json"
expect_ours 0 '' --format=json --depth=1 --histogram \
	--compare="$TESTDIR/saved.json" "$MNT/d"
shape "$OUT/ours.out" >"$OUT/shape"
golden json-shape-histogram-compare.out "$OUT/shape"
expect_ours 0 '' --format=csv --histogram --compare="$TESTDIR/saved.json" \
	"$MNT/d"
head -n 1 "$OUT/ours.out" >"$OUT/header"
golden csv-header-histogram-compare.out "$OUT/header"

# --exclusive's optional column: in the total, its types and each row's
# total (not a row's types); last in CSV.
expect_ours 0 '' --format=json --exclusive --depth=1 "$MNT/d"
shape "$OUT/ours.out" >"$OUT/shape"
golden json-shape-exclusive.out "$OUT/shape"
expect_ours 0 '' --format=csv --exclusive "$MNT/d"
head -n 1 "$OUT/ours.out" >"$OUT/header"
golden csv-header-exclusive.out "$OUT/header"

# --waste: in the total, its types and each row's total (not a row's
# types); last in CSV, after exclusive.
expect_ours 0 '' --format=json --waste --exclusive --depth=1 "$MNT/d"
shape "$OUT/ours.out" >"$OUT/shape"
golden json-shape-waste.out "$OUT/shape"
expect_ours 0 '' --format=csv --waste --exclusive "$MNT/d"
head -n 1 "$OUT/ours.out" >"$OUT/header"
golden csv-header-waste.out "$OUT/header"

# Prometheus: the metric families (name and type) of a run with every
# optional part; ncdu: the metadata's keys and each kind of entry's.
expect_ours 0 '' --format=prometheus --exclusive -e zstd:1 "$MNT/d"
grep '^# TYPE ' "$OUT/ours.out" >"$OUT/families"
golden prometheus-families.out "$OUT/families"
ln "$MNT/d/a/text" "$MNT/d/hard"
expect_ours 0 '' --format=ncdu "$MNT/d"
jq -c '(.[2] | keys_unsorted), ([.[3] | .. | objects | keys_unsorted] | unique[])' \
	"$OUT/ours.out" >"$OUT/ncdu-keys"
golden ncdu-keys.out "$OUT/ncdu-keys"

# --subvolumes: rows in "subvolumes" with id and readonly; id and readonly
# last in CSV, after exclusive.
btrfs -q subvolume create "$MNT/sv" >/dev/null
text_data 100K >"$MNT/sv/f"
sync
expect_ours 0 '' --format=json --subvolumes "$MNT/d"
shape "$OUT/ours.out" >"$OUT/shape"
golden json-shape-subvolumes.out "$OUT/shape"
expect_ours 0 '' --format=csv --subvolumes "$MNT/d"
head -n 1 "$OUT/ours.out" >"$OUT/header"
golden csv-header-subvolumes.out "$OUT/header"
