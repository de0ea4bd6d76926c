#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto estimate serial
# Alone (group serial): its runs are stopped after 2.5 s and its first
#   line comes at 1 s: timed on a machine at rest
# The --estimate progress line: its total is known early (a walk of its
# own, ahead of the estimate's, which the bounded queue holds back), counts
# a sparse file's data, not its apparent size, writes the rate in the
# table's MB/s, is erased on SIGINT and SIGTERM on a terminal (script(1)
# gives one), and --progress/--no-progress force it on or off: full lines,
# no \r, when standard error is not a terminal.  Each run is stopped after
# 2.5 s; the first line comes at 1 s.
. "$(dirname "$0")/../common.sh"

setup_fs
mkdir big
# 2000 files of 40 KiB of compressible data (more than the queue holds),
# and a 10 GiB sparse file with 1 MiB of data
python3 - <<'PY'
import base64, os, random
r = random.Random(17)
for i in range(2000):
    with open("big/f%04d" % i, "wb") as f:
        f.write(base64.b64encode(r.randbytes(30720)))
with open("big/sparse", "wb") as f:
    f.truncate(10 << 30)
    f.seek(5 << 30)
    f.write(base64.b64encode(r.randbytes(786432)))
PY
sync
data=$(du -s --block-size=1 big | cut -f1)

# bytes SIZE: a size as the table writes it ("94M", "1.2G") in bytes
bytes()
{
	awk -v s="$1" 'BEGIN { u = substr(s, length(s)); n = substr(s, 1, length(s) - 1)
		p = index("BKMGTPE", u) - 1; printf "%.0f\n", n * 1024 ^ p }'
}

# check_total FILE WHAT: a line of FILE shows a total, near the data bytes
check_total()
{
	local t
	CHECKS=$((CHECKS + 1))
	t=$(tr '\r' '\n' <"$1" | sed -nE 's/^compsize: estimate: [^ ]+ of ([^ ]+) read, [0-9]+MB\/s, ETA [0-9]+:[0-9]{2}(\x1b\[K)?$/\1/p' | head -n 1)
	if [ -z "$t" ]; then
		fail "$2: no line with a total: $(od -c "$1" | head -20)"
		return 0
	fi
	t=$(bytes "$t")
	# the table's sizes truncate: within 10% below the data, never the
	# apparent 10G
	[ "$t" -le "$data" ] && [ "$t" -ge $((data * 9 / 10)) ] ||
		fail "$2: total $t bytes, the data is $data bytes"
}

est=(-e zlib:1..9 -j1)

# on the fast scan and on the path walk alike ($scan)
for scan in "" --walk; do
	echo "# the progress of compsize${scan:+ $scan} ..." >&2
	# --progress, standard error a file: full lines, with the total by the
	# first (at 1 s), no \r nor escape sequence
	env --default-signal=TERM "$COMPSIZE" $scan --progress "${est[@]}" "$MNT/big" \
		>/dev/null 2>"$OUT/lines.err" &
	pid=$!
	sleep 2.5
	kill -TERM $pid 2>/dev/null || true
	rc=0
	wait $pid || rc=$?
	CHECKS=$((CHECKS + 1))
	[ "$rc" = 143 ] || fail "--progress, killed: exit $rc (finished too early?)"
	check_total "$OUT/lines.err" "--progress off a terminal"
	CHECKS=$((CHECKS + 1))
	[ "$(head -c 1000 "$OUT/lines.err" | tr -d '\r\033' | wc -c)" = "$(head -c 1000 "$OUT/lines.err" | wc -c)" ] &&
		[ "$(wc -l <"$OUT/lines.err")" -ge 1 ] ||
		fail "--progress off a terminal: not plain lines: $(od -c "$OUT/lines.err" | head)"

	# no progress off a terminal by default (expect_ours: on --walk too)
	[ -n "$scan" ] || expect_ours 0 '' -e zstd:1 "$MNT/big/f0001"

	# on a terminal: $1 the options; the typescript into $OUT/tty.out, the
	# exit status of compsize after SIGNAL ($2) into $OUT/tty.rc
	on_tty()
	{
		script -qefc "env --default-signal=INT,TERM $COMPSIZE $scan $1 ${est[*]} $MNT/big >/dev/null &
			p=\$!; sleep 2.5; kill -$2 \$p; wait \$p; echo \$? >$OUT/tty.rc" /dev/null \
			>"$OUT/tty.out" </dev/null
	}

	for sig in INT TERM; do
		on_tty "" $sig
		CHECKS=$((CHECKS + 1))
		want=$((128 + $(kill -l $sig)))
		[ "$(cat "$OUT/tty.rc")" = $want ] ||
			fail "SIG$sig on a terminal: exit $(cat "$OUT/tty.rc"), not $want"
		check_total "$OUT/tty.out" "on a terminal"
		# the last line drawn is erased: after the last progress text comes
		# \r ESC [K, and nothing of ours after it (the shell may then print
		# "Terminated" for its killed job: not ours)
		CHECKS=$((CHECKS + 1))
		python3 - "$OUT/tty.out" <<'PY' ||
import sys
d = open(sys.argv[1], "rb").read()
i = d.rfind(b"compsize: estimate")
j = d.rfind(b"\r\x1b[K")
sys.exit(0 if 0 <= i < j and b"compsize" not in d[j:] else 1)
PY
			fail "SIG$sig on a terminal: the line stays: $(tail -c 60 "$OUT/tty.out" | od -c)"
	done

	on_tty --no-progress TERM
	CHECKS=$((CHECKS + 1))
	! grep -q 'compsize: estimate' "$OUT/tty.out" ||
		fail "--no-progress on a terminal: $(od -c "$OUT/tty.out" | head)"
done
