#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick rows san
# btrfs-progs' unit options (--raw, --human-readable, --iec, --si,
# --kbytes ... --tbytes, and their combinations): each size is written as
# btrfs filesystem du writes the same number.  Referenced is what du's
# Total counts (every reference of every file), compared on trees from a
# few KiB to more than a TiB (reflinks).  The default report and -b stay
# compsize 1.5's, even where a 13-digit -b number pushes its columns; our
# own tables (rows, estimates) widen their columns instead.
. "$(dirname "$0")/../common.sh"

command -v python3 >/dev/null || skip "python3 is needed to reflink ranges"

# clone SRC DST N: DST is N copies of SRC, reflinked (FICLONERANGE).
clone()
{
	python3 - "$@" <<'PY'
import fcntl, os, struct, sys
FICLONERANGE = 0x4020940d
src = os.open(sys.argv[1], os.O_RDONLY)
dst = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT, 0o644)
n = os.fstat(src).st_size
for i in range(int(sys.argv[3])):
    fcntl.ioctl(dst, FICLONERANGE, struct.pack('qQQQ', src, 0, n, i * n))
PY
}

setup_fs max_inline=0
mkdir small mid big
head -c 8192 /dev/urandom >small/f
head -c 1044480 /dev/urandom >mid/a
head -c 4096000 /dev/urandom >mid/b
head -c 64M /dev/zero >big/a
clone big/a big/b 128
clone big/b big/c 160
sync

# The default and -b are compsize 1.5's, byte for byte (13 digits included).
compare "$MNT/big"
compare "$MNT/small" "$MNT/mid"

# refd_cell OPTS... DIR: our Referenced of DIR (the TOTAL line's last
# cell) with OPTS.
refd_cell()
{
	run_ours ours "$@"
	awk '$1 == "TOTAL" { print $NF }' "$OUT/ours.out"
}

for opts in --raw --human-readable --iec --si --kbytes --mbytes --gbytes \
	--tbytes "--si --kbytes" "--si --mbytes" "--gbytes --si" "--si --tbytes" \
	"--raw --kbytes" "--kbytes --raw" "--gbytes --human-readable" \
	"--raw --si" "--kbytes --iec" "--si --iec --mbytes"; do
	for d in small mid big; do
		CHECKS=$((CHECKS + 1))
		# shellcheck disable=SC2086
		want=$(btrfs filesystem du -s $opts "$MNT/$d" | awk 'NR == 2 { print $1 }')
		# shellcheck disable=SC2086
		got=$(refd_cell $opts "$MNT/$d")
		[ "$got" = "$want" ] ||
			fail "$opts $d: Referenced '$got', btrfs filesystem du '$want'"
	done
done

# the table's columns stay aligned however wide the cells (--kbytes of a
# TiB): each header label starts where its cells start
# col_starts FILE LINE: the offsets where a cell starts after two spaces
check_aligned()
{
	CHECKS=$((CHECKS + 1))
	awk -v what="$1" '
		function starts(s,   i, r) {
			r = ""
			for (i = 2; i <= length(s); i++)
				if (substr(s, i, 1) != " " && substr(s, i - 1, 1) == " ")
					r = r " " i
			return r
		}
		/^(Type|Perc|Setting) / { head = starts($0); next }
		head != "" && NF > 1 && $0 !~ /^Processed/ {
			s = starts($0)
			# each cell starts at a header column start
			n = split(s, c, " ")
			for (k = 1; k <= n; k++)
				if (index(head " ", " " c[k] " ") == 0) {
					print what ": cell at " c[k] " not under a header: " $0
					bad = 1
				}
		}
		/^$/ { head = "" }
		END { exit bad }' "$OUT/ours.out" >&2 || fail "$1: columns not aligned"
}
expect_ours 0 '' --kbytes "$MNT/big"
check_aligned "--kbytes table"
expect_ours 0 '' --depth=1 -b "$MNT"
check_aligned "-b rows"
grep -q ' 1383046578176 .*/big$' "$OUT/ours.out" ||
	fail "-b rows: the 13-digit Referenced is not there"
expect_ours 0 '' --depth=1 --si --kbytes "$MNT"
check_aligned "--si --kbytes rows"

# JSON and CSV stay in bytes
expect_ours 0 '' --format=json --kbytes "$MNT/mid"
CHECKS=$((CHECKS + 1))
[ "$(jq .total.referenced "$OUT/ours.out")" = 5140480 ] ||
	fail "--format=json --kbytes: not in bytes"
expect_ours 0 '' --format=csv --si "$MNT/mid"
CHECKS=$((CHECKS + 1))
grep -q '^total,,TOTAL,,5140480,5140480,5140480,' "$OUT/ours.out" ||
	fail "--format=csv --si: not in bytes"

# an estimate in one unit, and the allocated line without usage
expect_ours 0 '' --mbytes -e zstd:1 "$MNT/mid"
CHECKS=$((CHECKS + 1))
grep -Eq '^compress=zstd:1 +[0-9]+% +[0-9.]+MiB +[-+]?[0-9.]+MiB ' "$OUT/ours.out" ||
	fail "--mbytes -e: the estimate is not in MiB"
check_aligned "--mbytes estimate"

