#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test runner behind make check: the unit tests, the CLI tests on
# loop-mounted btrfs images (against compsize 1.5), the estimates against
# the kernel, and the fuzzers.  One line per test as it ends (its count,
# the time since the start, its result and seconds), the log of a test
# that failed, and one verdict line at the end: "N passed, N failed,
# N skipped".  See tests/README.md.
#
# Usage: tests/run.sh [-g GROUP]... [-x GROUP]... [-j JOBS] [-l] [NAME...]
#   -g GROUP  the tests in GROUP (with several -g, in any of them);
#             default: group auto, what make check runs
#   -x GROUP  leave out the tests in GROUP
#   -j JOBS   tests at a time (default 1; a test in group serial alone)
#   -l        list the tests chosen, with their groups, and exit
#   NAME...   globs on test names (unit, cli/046-exclusive,
#             estimate/sharing, fuzz/search): those of the groups chosen
# Environment: COMPSIZE (default ./compsize), ORACLE (default
# /usr/sbin/compsize), LOGDIR (default tests/log), STATS=1 (the
# calibration's many seeds: make check-stats), SANITIZED=1 (a build with
# sanitizers), FUZZ_SECONDS (each fuzzer's time beyond its corpus,
# default 5), TIMEOUT (each compsize run in a CLI test, default 60).
#
# Exit status: 0 all passed (or skipped), 1 a test failed, 2 the runner
# could not start (a missing tool, no loop-mountable btrfs, root).

set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

die()
{
	echo "tests/run.sh: $*" >&2
	echo "0 passed, 1 failed"
	exit 2
}

groups=()
nogroups=()
jobs=1
list=0
while getopts g:x:j:l opt; do
	case $opt in
	g) groups+=("$OPTARG") ;;
	x) nogroups+=("$OPTARG") ;;
	j) jobs=$OPTARG ;;
	l) list=1 ;;
	*) echo "usage: $0 [-g GROUP]... [-x GROUP]... [-j JOBS] [-l] [NAME...]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ ${#groups[@]} -gt 0 ] || groups=(auto)
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j $jobs: not a positive number"

# Every test: its name, its script, and its groups, from a line
# "# groups: ..." near the top of the script (as fstests' groups).
declare -A script=() tgroups=()
names=()
add()
{
	names+=("$1")
	script[$1]=$2
	tgroups[$1]=" $3 "
}
add unit tests/unit/run-unit "auto quick unit san stats"
for f in tests/cli/[0-9][0-9][0-9]-*/test.sh tests/cli/estimate/*.sh; do
	g=$(sed -n '2,12s/^# groups: //p' "$f" | head -1)
	[ -n "$g" ] || continue
	case $f in
	tests/cli/estimate/*) n=${f#tests/cli/}; n=${n%.sh} ;;
	*) n=${f#tests/}; n=${n%/test.sh} ;;
	esac
	add "$n" "$f" "$g"
done
for d in tests/fuzz/corpus/*/; do
	t=$(basename "$d")
	add "fuzz/$t" "tests/fuzz/$t-fuzz" "auto fuzz san"
done

in_groups()
{
	local g
	for g in "${nogroups[@]}"; do
		[[ ${tgroups[$1]} == *" $g "* ]] && return 1
	done
	for g in "${groups[@]}"; do
		[[ ${tgroups[$1]} == *" $g "* ]] && return 0
	done
	return 1
}

chosen=()
for n in "${names[@]}"; do
	in_groups "$n" || continue
	if [ $# -gt 0 ]; then
		match=0
		for glob in "$@"; do
			# shellcheck disable=SC2053
			[[ $n == $glob ]] && match=1
		done
		[ $match = 1 ] || continue
	fi
	chosen+=("$n")
done
[ ${#chosen[@]} -gt 0 ] || die "no test in groups ${groups[*]} matches: $*"

if [ $list = 1 ]; then
	for n in "${chosen[@]}"; do
		printf '%-34s%s\n' "$n" "${tgroups[$n]}"
	done
	exit 0
fi

# What the tests chosen need, checked once: a clear line, not 80 failures.
need_fs=0
for n in "${chosen[@]}"; do
	case $n in cli/* | estimate/*) need_fs=1 ;; esac
done
export COMPSIZE=${COMPSIZE:-$top/compsize}
case $COMPSIZE in /*) ;; *) COMPSIZE=$top/$COMPSIZE ;; esac
export ORACLE=${ORACLE:-/usr/sbin/compsize}
export FUZZ_SECONDS=${FUZZ_SECONDS:-5}
if [ $need_fs = 1 ]; then
	[ "$(id -u)" = 0 ] || die "the CLI tests need root (loop devices, mount, mkfs.btrfs)"
	[ -x "$COMPSIZE" ] && [ -f "$COMPSIZE" ] || die "$COMPSIZE: not an executable file (make builds it)"
	[ -x "$ORACLE" ] || die "oracle $ORACLE (compsize 1.5, Debian btrfs-compsize) is not installed"
	for tool in mkfs.btrfs btrfs mount umount losetup truncate fallocate \
		chattr setpriv timeout jq; do
		command -v "$tool" >/dev/null || die "$tool is not installed (make deps)"
	done
	# Refuse to report success on a machine that cannot run them at all.
	probe=$(mktemp -d /tmp/compsize-probe.XXXXXX) || die "mktemp failed"
	if ! { truncate -s 300M "$probe/img" &&
		mkfs.btrfs -q -f "$probe/img" >"$probe/log" 2>&1 &&
		mkdir "$probe/mnt" &&
		mount -o loop,compress-force=zstd:3 "$probe/img" "$probe/mnt" 2>>"$probe/log"; }; then
		cat "$probe/log" >&2
		rm -rf "$probe"
		die "cannot loop-mount a btrfs image (needs loop devices and btrfs support)"
	fi
	umount "$probe/mnt"
	rm -rf "$probe"
fi

# Logs: one a test, kept until the next run.  Every test makes its
# directories below CLI_TMPROOT, so the leak check at the end sees only
# this run's, whatever else runs on the machine.
LOGDIR=${LOGDIR:-$top/tests/log}
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR" || die "mkdir $LOGDIR failed"
CLI_TMPROOT=$(mktemp -d /tmp/compsize-tests.XXXXXX) || die "mktemp failed"
export CLI_TMPROOT

# command NAME: how the test NAME runs (in a subshell, its output to its log)
command_of()
{
	local n=$1
	case $n in
	unit) "$top/tests/unit/run-unit" ;;
	cli/*) cd "$(dirname "${script[$n]}")" && bash ./test.sh ;;
	estimate/*) bash "${script[$n]}" ;;
	fuzz/*) fuzz_one "${n#fuzz/}" ;;
	esac
}

# fuzz_one TARGET: its committed corpus, then FUZZ_SECONDS of fuzzing from
# it (new inputs and crash reproducers in tests/fuzz/work/).
fuzz_one()
{
	local t=$1 bin=$top/tests/fuzz/$1-fuzz
	[ -x "$bin" ] || { echo "$bin: not built (make fuzz-build)"; return 1; }
	mkdir -p "$top/tests/fuzz/work/$t"
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
	"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$top/tests/fuzz/work/$t-" \
		"$top/tests/fuzz/work/$t" "$top/tests/fuzz/corpus/$t"
}

log_of()
{
	echo "$LOGDIR/${1//\//-}.log"
}

passed=0
failed=0
skipped=0
done_count=0
failures=()
start=$(date +%s)

# report NAME: one line for a test that has ended, and on a failure the
# end of its log.
report()
{
	local n=$1 log rc secs el res
	log=$(log_of "$n")
	rc=$(cat "$log.rc")
	secs=$(cat "$log.secs")
	done_count=$((done_count + 1))
	el=$(($(date +%s) - start))
	case $rc in
	0) res=PASS; passed=$((passed + 1)) ;;
	77) res=SKIP; skipped=$((skipped + 1)) ;;
	*) res=FAIL; failed=$((failed + 1)); failures+=("$n") ;;
	esac
	printf '[%3d/%d %2d:%02d] %s %s (%ss)\n' "$done_count" "${#chosen[@]}" \
		$((el / 60)) $((el % 60)) "$res" "$n" "$secs"
	case $res in
	SKIP) grep -m1 '^SKIP' "$log" | sed 's/^/    /' ;;
	FAIL) echo "    exit $rc; log: ${log#"$top"/}"
	      tail -n 25 "$log" | sed 's/^/    /' ;;
	esac
	rm -f "$log.rc" "$log.secs"
	return 0
}

declare -A running=()
launch()
{
	local n=$1 log
	log=$(log_of "$n")
	(
		t0=$(date +%s)
		(command_of "$n") >"$log" 2>&1 </dev/null
		rc=$?
		echo $(($(date +%s) - t0)) >"$log.secs"
		echo "$rc" >"$log.rc"
	) &
	running[$!]=$n
}

reap()
{
	local pid=
	wait -n -p pid "${!running[@]}" || true
	[ -n "$pid" ] && [ -n "${running[$pid]:-}" ] ||
		die "lost track of the tests running: ${running[*]}"
	report "${running[$pid]}"
	unset "running[$pid]"
}

# The tests in group serial run alone, after the others: one that reads
# changes not yet committed (another test's sync would commit them) or
# times the program.
# With several at a time, the tests in group slow start first, so that
# the longest does not start last.
parallel=()
serial=()
rest=()
for n in "${chosen[@]}"; do
	if [[ ${tgroups[$n]} == *" serial "* ]]; then
		serial+=("$n")
	elif [ "$jobs" -gt 1 ] && [[ ${tgroups[$n]} == *" slow "* ]]; then
		parallel+=("$n")
	else
		rest+=("$n")
	fi
done
parallel+=("${rest[@]}")
trap 'kill "${!running[@]}" 2>/dev/null; exit 130' INT TERM
for n in "${parallel[@]}"; do
	while [ ${#running[@]} -ge "$jobs" ]; do
		reap
	done
	launch "$n"
done
while [ ${#running[@]} -gt 0 ]; do
	reap
done
for n in "${serial[@]}"; do
	launch "$n"
	reap
done

# Nothing of ours may stay mounted or attached.
leaks=$(grep -F "$CLI_TMPROOT/" /proc/self/mounts)
loops=$(losetup -a 2>/dev/null | grep -F "$CLI_TMPROOT/")
if [ -n "$leaks" ] || [ -n "$loops" ]; then
	echo "FAIL leak-check"
	[ -z "$leaks" ] || printf '    still mounted: %s\n' "$leaks"
	[ -z "$loops" ] || printf '    loop device: %s\n' "$loops"
	failed=$((failed + 1))
	failures+=(leak-check)
else
	rm -rf --one-file-system "$CLI_TMPROOT"
fi

el=$(($(date +%s) - start))
[ $failed = 0 ] || echo "failed: ${failures[*]} (logs in ${LOGDIR#"$top"/})"
echo "$passed passed, $failed failed, $skipped skipped in $((el / 60))m$((el % 60))s"
[ $failed = 0 ]
