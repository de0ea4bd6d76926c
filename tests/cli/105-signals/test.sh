#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Signals during a long scan: SIGINT and SIGTERM stop compsize within a
# second with nothing on stdout (no partial report that could be mistaken
# for a result) and a 128+signal status; SIGUSR1 prints the statistics so
# far and the run goes on to the same final report as the oracle's.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
# 25,400 paths cheaply: 200 small files, then hard-linked copies doubling.
mkdir -p sig/d0
(cd sig/d0 && seq 200 | xargs -n 100 sh -c 'for f; do echo x >"f$f"; done' _)
for i in 1 2 3 4 5 6; do
	cp -al "sig/d$((i - 1))" "sig/d$i"
	cp -al "sig/d$((i - 1))" "sig/d$i/again"
done
text_data 1M >sig/text
sync

# A background job of a script has SIGINT ignored: give compsize defaults.
start_ours()
{
	env --default-signal=INT,TERM,USR1 "$COMPSIZE" "$@" \
		>"$OUT/sig.out" 2>"$OUT/sig.err" </dev/null &
	PID=$!
}

# stop_with SIG EXPECTED_RC: interrupt a scan long enough to be running.
stop_with()
{
	local sig=$1 want=$2 t0 t1 rc=0 ms
	CHECKS=$((CHECKS + 1))
	start_ours sig sig sig sig sig sig sig sig sig sig sig sig sig sig sig
	sleep 1
	if ! kill -0 "$PID" 2>/dev/null; then
		fail "SIG$sig: the scan ended within a second; make it longer"
		wait "$PID" || true
		return
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
	[ "${VERBOSE:-0}" = 1 ] && echo "SIG$sig: stopped in $ms ms, status $rc" >&2
	return 0
}
stop_with INT 130
stop_with TERM 143

# SIGUSR1: a partial report, then the run finishes normally.
CHECKS=$((CHECKS + 1))
start_ours -b sig sig
sleep 0.5
kill -0 "$PID" 2>/dev/null || fail "SIGUSR1: the scan ended too soon"
kill -USR1 "$PID"
rc=0
wait "$PID" || rc=$?
[ "$rc" = 0 ] || fail "SIGUSR1: exit status $rc"
[ -s "$OUT/sig.err" ] && { fail "SIGUSR1: stderr:"; cat "$OUT/sig.err" >&2; }
run_prog oracle "$ORACLE" -b sig sig
n=$(wc -l <"$OUT/oracle.out")
[ "$(grep -c '^Processed ' "$OUT/sig.out")" = 2 ] ||
	fail "SIGUSR1: expected a partial and a final report: $(grep '^Processed ' "$OUT/sig.out")"
if ! cmp -s <(tail -n "$n" "$OUT/sig.out") "$OUT/oracle.out"; then
	fail "SIGUSR1: the final report differs from the oracle's"
	diff -u "$OUT/oracle.out" "$OUT/sig.out" >&2 || true
fi
partial=$(head -n 1 "$OUT/sig.out" | awk '{ print $2 }')
total=$(head -n 1 "$OUT/oracle.out" | awk '{ print $2 }')
[ "$partial" -gt 0 ] && [ "$partial" -lt "$total" ] ||
	fail "SIGUSR1: partial report of $partial files out of $total"
[ "${VERBOSE:-0}" = 1 ] && echo "SIGUSR1: partial $partial of $total files" >&2
true
