#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto slow robust san
# The path walk keeps only 32 directories open; a parent pushed out is
# reopened through ".." of the child just finished, checked by st_dev and
# st_ino, else by its path.  Here the walk is frozen (SIGSTOP) while it
# reads a directory T whose parent P is closed, the tree is changed, and the
# walk resumed:
#   1. T moved out of the tree: ".." is now elsewhere, P is found by path
#      and the rest of P is counted;
#   2. P moved out of the tree: ".." of T follows it and the rest of P is
#      counted, then P's parent is found by path: every file once, as the
#      oracle counted the tree before the move.  (Renaming P inside the
#      tree would add an entry that readdir of its parent returns again:
#      visited twice, by any readdir-based walker, compsize 1.5 included.)
#   3. T and P both moved out: P can't be found again, which is reported,
#      and the walk goes on with P's parent.
# The table from the second line on must equal the oracle's on the tree as
# it is afterwards (T's files are empty: they add no bytes, only a count).
# Needs --walk; skipped by a binary without it.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
if ! "$COMPSIZE" --walk "$MNT" >/dev/null 2>&1 &&
	[ "$("$COMPSIZE" --walk "$MNT" 2>&1 | grep -c 'unrecognized option')" != 0 ]; then
	skip "no --walk in $COMPSIZE"
fi

# top/a/b/P/T: T holds a 36-level chain (read first, so that P is closed
# when the walk is back in T) and then 50,000 empty files (half a second of
# reading); P has files before and after T, and so do its ancestors.
# Made once in the subvolume proto; each case works in a snapshot of it
# (an instant copy, where a move stays within one subvolume).
btrfs -q subvolume create proto
(
	cd proto
	mkdir -p top/a/b/P/T
	text_data 20K >top/a/early
	text_data 30K >top/a/b/P/before
	(cd top/a/b/P/T && mkdir -p "$(printf 'c/%.0s' $(seq 36))" &&
		seq 1 50000 | xargs touch)
	random_data 40K >top/a/b/P/after
	text_data 50K >top/a/b/late
	text_data 60K >top/a/later
)
sync
ROUND=0
build()
{
	ROUND=$((ROUND + 1))
	cd "$MNT"
	btrfs -q subvolume snapshot proto "r$ROUND"
	cd "r$ROUND"
	rm -f "$OUT/before.out"
	sync
}

# freeze_in_T: start ours on top with --walk, stop it once it reads T.
freeze_in_T()
{
	local i fd
	env --default-signal=INT,TERM "$COMPSIZE" --walk -b top \
		>"$OUT/walk.out" 2>"$OUT/walk.err" </dev/null &
	PID=$!
	for ((i = 0; i < 2000; i++)); do
		for fd in /proc/$PID/fd/*; do
			if [ "$(readlink "$fd" 2>/dev/null)" = "$PWD/top/a/b/P/T" ]; then
				kill -STOP "$PID"
				# Still in T, not in the chain below it?
				if [ "$(readlink "$fd" 2>/dev/null)" = "$PWD/top/a/b/P/T" ] &&
					! ls -l /proc/$PID/fd | grep '/T/c' >/dev/null; then
					return 0
				fi
				kill -CONT "$PID"
			fi
		done
		sleep 0.005
	done
	fail "never caught the walk inside T"
	kill "$PID"
	wait "$PID" || true
	return 1
}

# resume WANT_RC WANT_STDERR [FIRST_LINE]: let it finish; the table from
# line FIRST_LINE (default 2) against the oracle's now, or against
# $OUT/before.out if it exists.
resume()
{
	local want_rc=$1 want_err=$2 from=${3:-2} rc=0
	CHECKS=$((CHECKS + 1))
	kill -CONT "$PID"
	wait "$PID" || rc=$?
	[ "$rc" = "$want_rc" ] || fail "exit status $rc, expected $want_rc"
	if ! cmp -s <(printf '%s' "$want_err${want_err:+$'\n'}") "$OUT/walk.err"; then
		fail "stderr:"
		cat "$OUT/walk.err" >&2
	fi
	if [ -f "$OUT/before.out" ]; then
		mv "$OUT/before.out" "$OUT/oracle.out"
	else
		run_prog oracle "$ORACLE" -b top
	fi
	if ! cmp -s <(tail -n +"$from" "$OUT/oracle.out") <(tail -n +"$from" "$OUT/walk.out"); then
		fail "the table differs from the oracle's"
		diff -u "$OUT/oracle.out" "$OUT/walk.out" >&2 || true
	fi
	[ "${VERBOSE:-0}" = 1 ] && { cat "$OUT/walk.out" "$OUT/walk.err"; } >&2
	return 0
}

build
if freeze_in_T; then
	mv top/a/b/P/T moved-T
	resume 0 ""
fi

build
run_prog oracle "$ORACLE" -b top
mv "$OUT/oracle.out" "$OUT/before.out"
if freeze_in_T; then
	mv top/a/b/P moved-P
	resume 0 "" 1
fi

build
if freeze_in_T; then
	mv top/a/b/P/T moved-T
	mv top/a/b/P moved-P
	resume 1 "compsize: top/a/b/P: No such file or directory"
fi
