#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick estimate san
# The estimator is a separate object, compsize-estimate.so, loaded for
# --estimate alone (estimate/plugin.h): the program itself needs no codec
# library, scans the same without the object, and when the object can't be
# used says why in one line and exits 3 before reading anything.
. "$(dirname "$0")/../common.sh"

bin=$COMPSIZE
so=$(dirname "$bin")/compsize-estimate.so
[ -f "$so" ] || { fail "no $so beside $bin (make builds it)"; exit 1; }

CHECKS=$((CHECKS + 1))
if readelf -dW "$bin" | grep -E 'NEEDED.*(libzstd|liblzo2|libz\.)'; then
	fail "$bin links a codec library: a scan would map it"
fi

setup_fs compress-force=zstd:3
mkdir data
text_data 300K >data/a
random_data 100K >data/b
sync

# The program copied alone: the report is the oracle's as ever.
mkdir "$TESTDIR/alone"
cp "$bin" "$TESTDIR/alone/compsize"
COMPSIZE=$TESTDIR/alone/compsize compare data

# Beside a copy of the real estimator: estimates as from the build tree.
mkdir "$TESTDIR/pair"
cp "$bin" "$so" "$TESTDIR/pair/"
sizes='[.estimates[] | {setting, disk, uncompressed, input}]'
expect_ours 0 '' -b -e zstd:1,lzo,zlib --format=json data
want=$(jq -c "$sizes" "$OUT/ours.out")
COMPSIZE=$TESTDIR/pair/compsize expect_ours 0 '' -b -e zstd:1,lzo,zlib \
	--format=json data
CHECKS=$((CHECKS + 1))
[ "$(jq -c "$sizes" "$OUT/ours.out")" = "$want" ] ||
	fail "estimate from a copied program and estimator differs"

# Unusable estimators beside the program: exit 3, one line, no report.
unusable()
{
	local re=$1

	COMPSIZE=$TESTDIR/pair/compsize expect_ours 3 "$re" -e zstd data
	CHECKS=$((CHECKS + 1))
	[ -s "$OUT/ours.out" ] && fail "a report despite an unusable estimator"
	[ "$(wc -l <"$OUT/ours.err")" = 1 ] || fail "not one line: $(cat "$OUT/ours.err")"
}
echo 'not an ELF object' >"$TESTDIR/pair/compsize-estimate.so"
unusable "^compsize: --estimate: cannot load the estimator: $TESTDIR/pair/compsize-estimate.so: "
# A library that is not an estimator.
cp "$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ { print $NF; exit }')" \
	"$TESTDIR/pair/compsize-estimate.so"
unusable "^compsize: --estimate: $TESTDIR/pair/compsize-estimate.so: not a compsize estimator$"
# The estimator of another version: its version string patched in place.
ver=$("$bin" --version | awk '{ print $2 }')
other=$(tr '0-8' '1-9' <<<"$ver")
perl -0777 -pe 's/\x00\Q'"$ver"'\E\x00/\x00'"$other"'\x00/' "$so" \
	>"$TESTDIR/pair/compsize-estimate.so"
cmp -s "$so" "$TESTDIR/pair/compsize-estimate.so" && fail "version string not found in $so"
unusable "^compsize: --estimate: $TESTDIR/pair/compsize-estimate.so is from compsize $other, this is compsize $ver: reinstall$"
# Bad settings are still usage errors, found before the estimator is loaded.
COMPSIZE=$TESTDIR/pair/compsize expect_ours 2 "invalid --estimate item" -e gzip data
