#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Integration tests on loop-mounted btrfs images: our compsize against
# compsize 1.5 (the oracle).  See tests/cli/README.md.
#
# Usage: tests/cli/run.sh COMPSIZE_BINARY [TEST_NAME_GLOB...]
#   e.g. tests/cli/run.sh ./compsize            # every test
#        tests/cli/run.sh ./compsize '01[0-4]*'  # a few
# Environment: ORACLE (default /usr/sbin/compsize), TIMEOUT, KEEP_LOGS=1.

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

start=$(date +%s)
for name in "${tests[@]}"; do
	log=$CLI_TMPROOT/$name.log
	t0=$(date +%s)
	(cd "$here/$name" && bash ./test.sh) >"$log" 2>&1
	rc=$?
	t1=$(date +%s)
	if [ $rc = 0 ]; then
		echo "PASS $name ($((t1 - t0))s)"
		passed=$((passed + 1))
	elif [ $rc = 77 ]; then
		# The test could not check (its log says why): counted, shown.
		echo "SKIP $name ($((t1 - t0))s)"
		grep '^SKIP' "$log" | sed 's/^/    /'
		skipped=$((skipped + 1))
	else
		echo "FAIL $name (exit $rc, $((t1 - t0))s)"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
	fi
	[ "${KEEP_LOGS:-0}" = 1 ] && echo "    log: $log"
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
echo "# $(( $(date +%s) - start ))s for ${#tests[@]} tests; COMPSIZE=$COMPSIZE ORACLE=$ORACLE" >&2
summary="$passed passed, $failed failed"
[ "$skipped" = 0 ] || summary+=", $skipped skipped"
echo "$summary"
[ $failed = 0 ]
