#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto report san
# A scan of trees whose blocks are not in memory (the filesystem mounted
# anew): threads fetch the ranges ahead of the search (scan/ahead.c),
# even on one CPU, and the report is compsize 1.5's, on a subvolume
# streamed whole, on a directory whose files are fetched in runs, and on
# a file of many extents.  Warm, no thread starts.
. "$(dirname "$0")/../common.sh"

setup_fs compress=zstd:1
btrfs -q subvolume create sv
mkdir -p sv/a sv/b sv/c tree/x tree/y
for d in sv/a sv/b sv/c tree/x tree/y; do
	(cd "$d" && text_data 3000K | split -a 4 -b 1000 - f)
done
(cd sv && random_data 8M | split -a 2 -b 300K - r)
# many extents in one file: small appends, each made to disk alone
"$PYTHON" - <<'PY'
import os
fd = os.open("sv/many", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
for i in range(300):
    os.write(fd, os.urandom(4096) if i % 2 else b"x" * 8192)
    os.fsync(fd)
os.close(fd)
PY
sync
img=$TESTDIR/img0
cold()
{
	cd "$TESTDIR"
	umount "$MNT"
	mount -o loop,compress=zstd:1 "$img" "$MNT"
	cd "$MNT"
}

# strace: the threads a run started (LeakSanitizer cannot run traced)
clones()
{
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=clone,clone3 -o "$OUT/clone.trace" \
		"$COMPSIZE" "$@" >/dev/null 2>&1 ||
		fail "compsize $*: exit $? under strace"
	grep -c clone "$OUT/clone.trace" || true
}

# Ours first on each cold mount (the oracle would bring the blocks in),
# on one CPU.
for args in "." "sv" "tree" "sv/many"; do
	cold
	taskset -c 0 "$COMPSIZE" $args >"$OUT/cold.out" 2>"$OUT/cold.err" ||
		fail "compsize $args: exit $? when cold"
	run_prog oracle "$ORACLE" $args
	cmp -s "$OUT/cold.out" "$OUT/oracle.out" &&
		cmp -s "$OUT/cold.err" "$OUT/oracle.err" ||
		{ fail "compsize $args cold: not compsize 1.5's report"
		  diff -u "$OUT/oracle.out" "$OUT/cold.out" >&2 || true; }
	case $args in
	.|sv|tree)
		cold
		[ "$(clones $args)" -ge 1 ] ||
			fail "compsize $args: no thread fetched ahead when cold" ;;
	esac
done
# warm, the same through the usual comparison (fast scan and walk)
compare .
compare sv tree
# warm: no thread
[ "$(clones .)" = 0 ] ||
	fail "a scan of cached blocks started threads"
