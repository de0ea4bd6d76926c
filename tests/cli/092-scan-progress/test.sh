#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto rows exclusive
# The scan's progress line (issue #60): a scan that runs over 2 s with
# standard error on a terminal (script(1) gives one) shows "compsize: N
# files, SIZE referenced, M:SS" there, for the plain report, --walk,
# --per-file, --depth, --exclusive and --subvolumes alike; the line is
# erased at the end and stdout is the same as in a pipe.  In a pipe
# nothing is written to stderr, unless --progress (full lines, no \r);
# --no-progress draws nothing on a terminal.  The scans are slowed by
# strace's delay injection into their ioctl() calls: the kernel does the
# real searches, only later; no test-only knob.
. "$(dirname "$0")/../common.sh"

command -v strace >/dev/null || skip "no strace here to slow a scan with"

setup_fs
btrfs subvolume create -q sv 2>/dev/null || btrfs subvolume create sv >/dev/null
"$PYTHON" - <<'PY'
import os
for d in range(10):
    os.makedirs("sv/d%d" % d)
    for i in range(300):
        with open("sv/d%d/f%d" % (d, i), "w") as f:
            f.write("x" * (100 + i))
PY
text_data 2M >sv/d0/big
btrfs subvolume snapshot -r sv snap >/dev/null
text_data 1M >sv/d1/new
sync

# slowed N STDERR ARGS...: ours on ARGS, each of its ioctl() calls (the
# tree searches) held back so long that all of them take 4 s (strace's
# delay injection); stdout into $OUT/N.out, stderr to STDERR ("tty": a
# terminal, its typescript into $OUT/N.tty), in the background
slowed()
{
	local n=$1 where=$2 calls us
	shift 2
	# LeakSanitizer can't run under ptrace: the unslowed runs check leaks
	local asan=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	env "$asan" strace -f -qq -e trace=ioctl -o "$OUT/$n.calls" "$COMPSIZE" "$@" >/dev/null 2>&1 || true
	calls=$(grep -c 'ioctl(' "$OUT/$n.calls")
	us=$((4000000 / (calls ? calls : 1)))
	echo "$calls ioctls, ${us}µs each" >"$OUT/$n.slowed"
	local run="env $asan strace -f -qq -o /dev/null -e trace=ioctl -e inject=ioctl:delay_enter=$us $COMPSIZE $* >$OUT/$n.out"
	if [ "$where" = tty ]; then
		script -qefc "$run" /dev/null >"$OUT/$n.tty" </dev/null &
	else
		sh -c "$run" 2>"$OUT/$n.err" </dev/null &
	fi
}

line='compsize: [0-9]+ files, [0-9.]+[BKMGTPE] referenced, [0-9]+:[0-9]{2}'
cases=("$MNT/sv" "--walk $MNT/sv" "--per-file --format=json $MNT/sv"
	"--depth=1 --format=csv $MNT/sv" "--exclusive $MNT/sv"
	"--subvolumes $MNT")
for i in "${!cases[@]}"; do
	# shellcheck disable=SC2086
	run_prog pipe$i "$COMPSIZE" ${cases[$i]}
	# shellcheck disable=SC2086
	slowed tty$i tty ${cases[$i]}
done
slowed pipe tty-not "$MNT/sv"
slowed lines tty-not --progress "$MNT/sv"
slowed none tty --no-progress "$MNT/sv"
wait

for i in "${!cases[@]}"; do
	what="compsize ${cases[$i]} on a terminal"
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$OUT/pipe$i.rc")" = 0 ] && [ ! -s "$OUT/pipe$i.err" ] ||
		fail "${cases[$i]} in a pipe: exit $(cat "$OUT/pipe$i.rc"), stderr $(cat "$OUT/pipe$i.err")"
	CHECKS=$((CHECKS + 1))
	cmp -s "$OUT/pipe$i.out" "$OUT/tty$i.out" || fail "$what: another stdout"
	# a line drawn after 2 s, and the last one erased: after it comes
	# \r ESC [K and nothing else of ours
	CHECKS=$((CHECKS + 1))
	"$PYTHON" - "$OUT/tty$i.tty" "$line" <<'PY' ||
import re, sys
d = open(sys.argv[1], "rb").read()
pat = rb"\r(" + sys.argv[2].encode() + rb")\x1b\[K"
lines = re.findall(pat, d)
secs = [int(l.split(b", ")[-1].split(b":")[0]) * 60 + int(l.split(b":")[-1])
        for l in lines]
# only our lines, each drawn after 2 s, the last erased
sys.exit(0 if lines and min(secs) >= 2 and re.sub(pat, b"", d) == b"\r\x1b[K"
         else 1)
PY
		fail "$what (slowed to $(echo $(cat "$OUT/tty$i.slowed"))): no line, or not erased: $(od -c "$OUT/tty$i.tty" | tail -5)"
done

# in a pipe: nothing; with --progress: full lines, no \r nor escapes
CHECKS=$((CHECKS + 1))
[ ! -s "$OUT/pipe.err" ] && cmp -s "$OUT/pipe.out" "$OUT/pipe0.out" ||
	fail "slowed in a pipe: stderr $(od -c "$OUT/pipe.err" | head -3)"
CHECKS=$((CHECKS + 1))
grep -Eqx "$line" "$OUT/lines.err" && ! grep -q $'[\r\033]' "$OUT/lines.err" &&
	cmp -s "$OUT/lines.out" "$OUT/pipe0.out" ||
	fail "--progress in a pipe: $(od -c "$OUT/lines.err" | head -5)"
CHECKS=$((CHECKS + 1))
[ ! -s "$OUT/none.tty" ] && cmp -s "$OUT/none.out" "$OUT/pipe0.out" ||
	fail "--no-progress on a terminal: $(od -c "$OUT/none.tty" | head -5)"
