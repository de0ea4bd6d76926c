#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto robust serial san
# Alone (group serial): it times how soon a signal stops the scan: on a
#   machine at rest
# Signals during a long scan: SIGINT and SIGTERM stop compsize within a
# second with nothing on stdout (no partial report that could be mistaken
# for a result) and a 128+signal status; SIGUSR1 prints the statistics so
# far and the run goes on to the same final report as without the signal.
# Long scans: the same tree is given as many times as it takes, measured
# first (the fast scan reads its 25,400 paths in milliseconds, the walk in a
# second or so).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
# 25,400 paths cheaply: 200 small files, then hard-linked copies doubling.
linked_tree sig 6 again
text_data 1M >sig/text
sync

# A background job of a script has SIGINT ignored: give compsize defaults.
start_ours()
{
	env --default-signal=INT,TERM,USR1 "$COMPSIZE" "$@" \
		>"$OUT/sig.out" 2>"$OUT/sig.err" </dev/null &
	PID=$!
}

# A command line that keeps compsize busy for seconds.
many()
{
	local i
	for ((i = 0; i < $1; i++)); do printf 'sig\n'; done
}
# How many copies take about MS milliseconds (at least 2, at most 5000),
# with the options after MS?
copies_for()
{
	local ms=$1 t0 t1 per
	shift
	t0=$EPOCHREALTIME
	"$COMPSIZE" "$@" sig sig sig sig sig >/dev/null
	t1=$EPOCHREALTIME
	per=$(( (${t1/./} - ${t0/./}) / 5000 + 1 ))	# ms per copy, rounded up
	per=$((ms / per))
	echo $((per < 2 ? 2 : per > 5000 ? 5000 : per))
}
mapfile -t LONG < <(many "$(copies_for 20000)")
mapfile -t WALK_LONG < <(many 15)
mapfile -t MEDIUM < <(many "$(copies_for 2000)")
mapfile -t WALK_MEDIUM < <(many "$(copies_for 2000 --walk)")
[ "${VERBOSE:-0}" = 1 ] && echo "copies: ${#LONG[@]} long, ${#MEDIUM[@]} medium" >&2

# stop_with SIG EXPECTED_RC ARGS...: interrupt a scan that is running.
stop_with()
{
	local sig=$1 want=$2 t0 t1 rc=0 ms
	shift 2
	CHECKS=$((CHECKS + 1))
	start_ours "$@"
	sleep 1
	if ! kill -0 "$PID" 2>/dev/null; then
		fail "SIG$sig: the scan ended within a second; make it longer"
		wait "$PID" || true
		return 0
	fi
	t0=$EPOCHREALTIME
	kill -"$sig" "$PID"
	wait "$PID" || rc=$?
	t1=$EPOCHREALTIME
	ms=$(( (${t1/./} - ${t0/./}) / 1000 ))
	[ "$ms" -lt 1000 ] || fail "SIG$sig: took $ms ms to stop"
	[ "$rc" = "$want" ] || fail "SIG$sig: exit status $rc, expected $want"
	if [ -s "$OUT/sig.out" ]; then
		fail "SIG$sig: partial output on stdout:"
		head -n 5 "$OUT/sig.out" >&2
	fi
	[ "${VERBOSE:-0}" = 1 ] && echo "SIG$sig $1: stopped in $ms ms, status $rc" >&2
	return 0
}
stop_with INT 130 "${LONG[@]}"
stop_with TERM 143 "${LONG[@]}"
if "$COMPSIZE" --walk sig >/dev/null 2>&1; then
	stop_with INT 130 --walk "${WALK_LONG[@]}"
	stop_with TERM 143 --walk "${WALK_LONG[@]}"
fi

# The tree alone is what the oracle reports.
compare sig

# usr1 ARGS...: SIGUSR1 gives a partial report, then the run finishes
# normally, with the report of the same run without the signal.
usr1()
{
	local rc n partial total
	run_prog quiet "$COMPSIZE" "$@"
	CHECKS=$((CHECKS + 1))
	start_ours "$@"
	sleep 0.3
	kill -0 "$PID" 2>/dev/null || fail "SIGUSR1 $1: the scan ended too soon"
	kill -USR1 "$PID" || true
	rc=0
	wait "$PID" || rc=$?
	[ "$rc" = 0 ] || fail "SIGUSR1 $1: exit status $rc"
	[ -s "$OUT/sig.err" ] && { fail "SIGUSR1 $1: stderr:"; cat "$OUT/sig.err" >&2; }
	n=$(wc -l <"$OUT/quiet.out")
	[ "$(grep -c '^Processed ' "$OUT/sig.out")" = 2 ] ||
		fail "SIGUSR1 $1: expected a partial and a final report: $(grep '^Processed ' "$OUT/sig.out")"
	if ! cmp -s <(tail -n "$n" "$OUT/sig.out") "$OUT/quiet.out"; then
		fail "SIGUSR1 $1: the final report differs from the one without the signal"
		diff -u "$OUT/quiet.out" "$OUT/sig.out" >&2 || true
	fi
	partial=$(head -n 1 "$OUT/sig.out" | awk '{ print $2 }')
	total=$(head -n 1 "$OUT/quiet.out" | awk '{ print $2 }')
	[ "$partial" -gt 0 ] && [ "$partial" -lt "$total" ] ||
		fail "SIGUSR1 $1: partial report of $partial files out of $total"
	[ "${VERBOSE:-0}" = 1 ] && echo "SIGUSR1 $1: partial $partial of $total files" >&2
	return 0
}
usr1 -b "${MEDIUM[@]}"
usr1 --walk -b "${WALK_MEDIUM[@]}"
