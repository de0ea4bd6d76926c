#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Integration tests on loop-mounted btrfs images: our compsize against
# compsize 1.5 (the oracle).  See tests/cli/README.md.
#
# Usage: tests/cli/run.sh COMPSIZE_BINARY [TEST_NAME_GLOB...]
#   e.g. tests/cli/run.sh ./compsize            # every test
#        tests/cli/run.sh ./compsize '01[0-4]*'  # a few
# Environment: ORACLE (default /usr/sbin/compsize), TIMEOUT, KEEP_LOGS=1,
# CLI_JOBS (tests at a time, default 1).

set -u
export LC_ALL=C

die()
{
	echo "run.sh: FATAL: $*" >&2
	echo "0 passed, 1 failed"
	exit 2
}

[ $# -ge 1 ] || { echo "usage: $0 COMPSIZE_BINARY [TEST_NAME_GLOB...]" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
bin=$1
shift
case $bin in
/*) ;;
*) bin=$(pwd)/$bin ;;
esac
[ -x "$bin" ] && [ -f "$bin" ] || die "$bin: not an executable file"
export COMPSIZE=$bin
export ORACLE=${ORACLE:-/usr/sbin/compsize}
[ -x "$ORACLE" ] || die "oracle $ORACLE (compsize 1.5, Debian btrfs-compsize) is not installed"

[ "$(id -u)" = 0 ] || die "these tests need root (loop devices, mount, mkfs.btrfs)"
for tool in mkfs.btrfs btrfs mount umount losetup truncate fallocate chattr \
	setpriv timeout; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done

# Refuse to report success on a machine that cannot run the tests at all.
probe=$(mktemp -d /tmp/compsize-cli-probe.XXXXXX) || die "mktemp failed"
truncate -s 300M "$probe/img" &&
	mkfs.btrfs -q -f "$probe/img" >"$probe/mkfs.log" 2>&1 ||
	{ cat "$probe/mkfs.log" >&2; rm -rf "$probe"; die "mkfs.btrfs failed"; }
mkdir "$probe/mnt"
if ! mount -o loop,compress-force=zstd:3 "$probe/img" "$probe/mnt" 2>"$probe/mount.log"; then
	cat "$probe/mount.log" >&2
	rm -rf "$probe"
	die "cannot loop-mount a btrfs image (needs loop devices and btrfs support)"
fi
umount "$probe/mnt"
rm -rf "$probe"

# Every test makes its directory below this one: the leak check at the end
# then ignores other runs of the suite going on at the same time.
CLI_TMPROOT=$(mktemp -d /tmp/compsize-cli-run.XXXXXX) || die "mktemp failed"
export CLI_TMPROOT

passed=0
failed=0
skipped=0
tests=()
for dir in "$here"/[0-9][0-9][0-9]-*/; do
	name=$(basename "$dir")
	[ -f "$dir/test.sh" ] || continue
	if [ $# -gt 0 ]; then
		match=0
		for glob in "$@"; do
			# shellcheck disable=SC2053
			[[ $name == $glob ]] && match=1
		done
		[ $match = 1 ] || continue
	fi
	tests+=("$name")
done
[ ${#tests[@]} -gt 0 ] || die "no test matches: $*"

# CLI_JOBS tests at a time (default 1).  A test whose test.sh has a line
# "# serial: REASON" runs alone, after the others: it needs a filesystem
# no other test commits (a global sync from another test commits every
# filesystem) or a machine at rest (its timing checks).  The tests named
# in the file "slow" start first, slowest first, so that the longest one
# does not start last.  One at a time by default: a sync in another test
# also writes back a file still being written, where its data is at that
# moment, and under compress= that cut decides what is stored raw (056's
# widths depend on it); and two at a time gained 7% on two CPUs here.
CLI_JOBS=${CLI_JOBS:-1}
[[ $CLI_JOBS =~ ^[1-9][0-9]*$ ]] || die "CLI_JOBS=$CLI_JOBS: not a positive number"
parallel=()
serial=()
declare -A chosen=()
for name in "${tests[@]}"; do
	chosen[$name]=1
done
ordered=()
if [ -f "$here/slow" ]; then
	while read -r name _; do
		case $name in '' | '#'*) continue ;; esac
		[ -n "${chosen[$name]:-}" ] || continue
		ordered+=("$name")
		chosen[$name]=
	done <"$here/slow"
fi
for name in "${tests[@]}"; do
	[ -z "${chosen[$name]}" ] || ordered+=("$name")
done
for name in "${ordered[@]}"; do
	if grep -q '^# serial: ' "$here/$name/test.sh"; then
		serial+=("$name")
	else
		parallel+=("$name")
	fi
done

# report NAME: the result of a test that has ended, from its files.
report()
{
	local name=$1 log=$CLI_TMPROOT/$1.log rc secs
	rc=$(cat "$CLI_TMPROOT/$name.rc")
	secs=$(cat "$CLI_TMPROOT/$name.secs")
	if [ "$rc" = 0 ]; then
		echo "PASS $name (${secs}s)"
		passed=$((passed + 1))
	elif [ "$rc" = 77 ]; then
		# The test could not check (its log says why): counted, shown.
		echo "SKIP $name (${secs}s)"
		grep '^SKIP' "$log" | sed 's/^/    /'
		skipped=$((skipped + 1))
	else
		echo "FAIL $name (exit $rc, ${secs}s)"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
	fi
	[ "${KEEP_LOGS:-0}" = 1 ] && echo "    log: $log"
	return 0
}

# launch NAME: start a test in the background; its exit code and seconds
# go to files beside its log.
declare -A running=()
launch()
{
	local name=$1
	(
		t0=$(date +%s)
		(cd "$here/$name" && bash ./test.sh) >"$CLI_TMPROOT/$name.log" 2>&1
		rc=$?
		echo "$rc" >"$CLI_TMPROOT/$name.rc"
		echo $(($(date +%s) - t0)) >"$CLI_TMPROOT/$name.secs"
	) &
	running[$!]=$name
}

# reap: wait for one test to end and report it.
reap()
{
	local pid
	wait -n -p pid "${!running[@]}" || true
	[ -n "${pid:-}" ] && [ -n "${running[$pid]:-}" ] ||
		die "lost track of the tests running: ${running[*]}"
	report "${running[$pid]}"
	unset "running[$pid]"
}

start=$(date +%s)
for name in "${parallel[@]}"; do
	while [ ${#running[@]} -ge "$CLI_JOBS" ]; do
		reap
	done
	launch "$name"
done
while [ ${#running[@]} -gt 0 ]; do
	reap
done
for name in "${serial[@]}"; do
	launch "$name"
	reap
done

# Nothing of ours may stay mounted or attached.
leaks=$(grep -F "$CLI_TMPROOT/" /proc/self/mounts)
loops=$(losetup -a | grep -F "$CLI_TMPROOT/")
if [ -n "$leaks" ] || [ -n "$loops" ]; then
	echo "FAIL leak-check"
	[ -z "$leaks" ] || printf '    still mounted: %s\n' "$leaks"
	[ -z "$loops" ] || printf '    loop device: %s\n' "$loops"
	failed=$((failed + 1))
fi

if [ "${KEEP_LOGS:-0}" != 1 ] && [ -z "$leaks" ]; then
	rm -rf --one-file-system "$CLI_TMPROOT"
fi
echo "# $(( $(date +%s) - start ))s for ${#tests[@]} tests (${#serial[@]} alone, the others $CLI_JOBS at a time); COMPSIZE=$COMPSIZE ORACLE=$ORACLE" >&2
summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ $failed = 0 ]
