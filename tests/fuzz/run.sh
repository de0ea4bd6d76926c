#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run libFuzzer harnesses (built by make fuzz-build), JOBS at a time, each
# for SECONDS from its committed seed corpus (tests/fuzz/corpus/TARGET/);
# new inputs and crash reproducers go to tests/fuzz/work/.  Each fuzzer is
# one process on one CPU: with JOBS no more than the CPUs, each still has
# its SECONDS of a CPU.  Prints each one's final statistics, in the order
# given; on a crash, the end of its log, and exit 1.
#
# Usage: tests/fuzz/run.sh SECONDS JOBS TARGET...

set -u
[ $# -ge 3 ] || { echo "usage: $0 SECONDS JOBS TARGET..." >&2; exit 2; }
secs=$1 jobs=$2
shift 2
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "$0: SECONDS=$secs: not a positive number" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "$0: JOBS=$jobs: not a positive number" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2

fuzz_one()
{
	local t=$1
	mkdir -p "tests/fuzz/work/$t"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	"./tests/fuzz/$t-fuzz" -max_total_time="$secs" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="tests/fuzz/work/$t-" \
		"tests/fuzz/work/$t" "tests/fuzz/corpus/$t" \
		>"tests/fuzz/work/$t.log" 2>&1
	echo $? >"tests/fuzz/work/$t.rc"
}

mkdir -p tests/fuzz/work
echo "  FUZZ    $* for ${secs}s each, $jobs at a time"
declare -A running=()
for t in "$@"; do
	rm -f "tests/fuzz/work/$t.rc"
	while [ ${#running[@]} -ge "$jobs" ]; do
		wait -n -p pid "${!running[@]}" || true
		unset "running[$pid]"
	done
	fuzz_one "$t" &
	running[$!]=$t
done
wait

failed=0
for t in "$@"; do
	rc=$(cat "tests/fuzz/work/$t.rc" 2>/dev/null || echo "none")
	echo "  FUZZ    $t"
	if [ "$rc" != 0 ]; then
		echo "          failed (exit $rc):"
		tail -n 60 "tests/fuzz/work/$t.log"
		failed=1
		continue
	fi
	grep -E '^#[0-9]+[[:space:]]+DONE' "tests/fuzz/work/$t.log" | sed 's/^/          /'
	grep -E 'stat::(number_of_executed_units|average_exec_per_sec)' \
		"tests/fuzz/work/$t.log" | sed 's/^/          /'
done
exit $failed
