#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto rows format san
# Rows streamed (issue #60): --depth/--per-file rows in the walk's order
# (no --sort, no --top, no estimate, no --exclusive) go to an unnamed
# temporary file as they close, and JSON and CSV print them from there
# after the totals, the table once it knows its columns' widths.  The
# output is byte for byte the one of the rows kept in memory
# (COMPSIZE_STREAM=0, as a sort keeps them), on the fast scan and on
# --walk; jq and Python's csv read it, its totals are compsize 1.5's
# (the table's, byte for byte); the peak RSS stays flat where the kept
# rows' grows; a full temporary directory is an error, not a report cut
# short; one that can't be written keeps the rows in memory.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
# 4,000 files in 20 directories (inline, most of them), compressed and
# random ones, a reflink, a hard link, odd names
"$PYTHON" - <<'PY'
import os
for d in range(20):
    os.makedirs("data/d%02d/sub" % d)
    for i in range(200):
        with open("data/d%02d/%s%03d" % (d, "sub/" if i % 3 == 0 else "", i), "w") as f:
            f.write("file %d of %d\n" % (i, d) * (1 + i % 7))
PY
text_data 3M >data/d00/big.log
random_data 1M >data/d01/random
cp --reflink=always data/d01/random data/d02/random-copy
ln data/d00/big.log data/d03/big-link
printf 'x' >"data/d04/new
line"
text_data 9K >"data/d04/bad-$(printf '\xff')-utf8"
text_data 8K >'data/d04/quote"comma,'
sync
# files (a hard link's two names too, as compsize 1.5 counts them)
nfiles=$(find data -type f -printf x | wc -c)

# stream ARGS...: ours streamed and ours with the rows in memory (and
# each on --walk), every byte the same
stream()
{
	local f
	run_ours streamed "$@"
	COMPSIZE_STREAM=0 run_ours kept "$@"
	for f in rc err out; do
		CHECKS=$((CHECKS + 1))
		cmp -s "$OUT/streamed.$f" "$OUT/kept.$f" && continue
		fail "compsize $*: streamed, another $f than kept"
		diff -u "$OUT/kept.$f" "$OUT/streamed.$f" | head -20 >&2 || true
	done
}

# The clients: jq and Python's csv read every file's row, and the
# totals are compsize 1.5's -b table's
run_prog oracle "$ORACLE" -b data
want=$(awk '$1 == "TOTAL" { print $3, $4, $5 }' "$OUT/oracle.out")
stream --per-file --format=json data
CHECKS=$((CHECKS + 1))
got=$(jq -r '"\(.total.disk) \(.total.uncompressed) \(.total.referenced)"' "$OUT/streamed.out")
[ "$got" = "$want" ] || fail "json totals $got, compsize 1.5 $want"
CHECKS=$((CHECKS + 1))
jq -e --argjson n "$nfiles" '(.paths | length) == $n and ([.paths[].files] | add) == .files
	and .files == $n and .errors == []' \
	"$OUT/streamed.out" >/dev/null || fail "json rows: $(jq -c '{files, n: (.paths | length)}' "$OUT/streamed.out")"
stream --per-file --format=csv data
CHECKS=$((CHECKS + 1))
got=$("$PYTHON" - "$OUT/streamed.out" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8", errors="surrogateescape")))
assert all(len(r) == len(rows[0]) for r in rows), "ragged"
paths = [r for r in rows[1:] if r[0] == "path" and r[2] == "TOTAL"]
total = [r for r in rows[1:] if r[0] == "total" and r[2] == "TOTAL"][0]
assert rows[1][0] == "total" and sum(int(r[7]) for r in paths) == int(total[7])
print(len(paths), total[4], total[5], total[6])
PY
) || got="unreadable: $got"
[ "$got" = "$nfiles $want" ] || fail "csv: $got, want $nfiles files and $want"

# The table: its rows first (read back twice from the spool: the
# columns as wide as their widest cell), then compsize 1.5's report
stream -b --per-file data
CHECKS=$((CHECKS + 1))
cmp -s <(sed '1,/^$/d' "$OUT/streamed.out") "$OUT/oracle.out" &&
	[ "$(sed -n '2,/^$/p' "$OUT/streamed.out" | grep -c .)" = "$nfiles" ] ||
	fail "table: not $nfiles rows then compsize 1.5's report: $(head -c 300 "$OUT/streamed.out")"
stream --per-file data

# directories, files and directories, a missing path (its error after
# the rows, exit 1), file arguments across -x, no row at all (no rows'
# array then)
for fmt in json csv table; do
	for args in "--depth=1 data" \
		"--per-file --depth=1 data/d00 data/missing data/d04" \
		"-x --per-file data/d01/random data/d02/sub" "data/d00"; do
		stream --format=$fmt $args
	done
done

# Memory: the rows kept grow the peak RSS by a few hundred bytes each; the
# streamed ones don't (GNU time's %M: the kernel's approximate peak, good
# to a few pages a CPU)
rss()
{
	env ${2:+COMPSIZE_STREAM=$2} /usr/bin/time -f %M -o "$OUT/rss" \
		"$COMPSIZE" $1 data >/dev/null 2>&1
	cat "$OUT/rss"
}
# (not with sanitizers: their shadow memory and quarantine are not ours)
for fmt in json csv table; do
	[ "${SANITIZED:-0}" = 0 ] || break
	plain=$(rss "--format=$fmt")
	streamed=$(rss "--per-file --format=$fmt")
	kept=$(rss "--per-file --format=$fmt" 0)
	CHECKS=$((CHECKS + 1))
	# KiB; kept: about 280 bytes a row
	[ $((kept - streamed)) -ge $((nfiles * 120 / 1024)) ] &&
		[ $((streamed - plain)) -le 1024 ] ||
		fail "$fmt peak RSS: plain ${plain}K, streamed ${streamed}K, kept ${kept}K for $nfiles rows"
done

# TMPDIR full: an error and no report; TMPDIR that can't be written: the
# rows kept in memory, the same report
tmpfs_at "$TESTDIR/full"
head -c 5M /dev/zero >"$TESTDIR/full/fill" 2>/dev/null || true
TMPDIR=$TESTDIR/full expect_ours 1 '^compsize: the rows. temporary file: No space left on device$' \
	--per-file --format=csv data/d05
CHECKS=$((CHECKS + 1))
[ ! -s "$OUT/ours.out" ] || fail "TMPDIR full: a report: $(head -c 200 "$OUT/ours.out")"
COMPSIZE_STREAM=0 run_ours kept --per-file --format=json data/d05
TMPDIR=$TESTDIR/none expect_ours 0 '' --per-file --format=json data/d05
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/ours.out" "$OUT/kept.out" || fail "TMPDIR missing: another report"
