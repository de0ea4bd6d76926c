# SPDX-License-Identifier: GPL-2.0
# Shared by the kernel-oracle scripts on shared data (sharing.sh,
# rewrite.sh): setup checks, a work directory $tmp with $mnt in it that is
# unmounted and removed on exit, usage MNT (Disk Usage of everything
# under MNT by compsize 1.5) and text_files DIR N.  Source it with NAME set to the script's.

set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
ORACLE=${ORACLE:-/usr/sbin/compsize}
COMPSIZE=${COMPSIZE:-$root/compsize}

die()
{
	echo "estimate/$NAME: FATAL: $*" >&2
	exit 2
}

[ "$(id -u)" = 0 ] || die "needs root (loop devices, mount)"
[ -x "$ORACLE" ] || die "oracle $ORACLE (compsize 1.5) is not installed"
[ -x "$COMPSIZE" ] || die "$COMPSIZE is not executable"
for tool in mkfs.btrfs btrfs mount umount truncate jq; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done

tmp=$(mktemp -d "${CLI_TMPROOT:-/tmp}/compsize-${NAME%.sh}.XXXXXX") ||
	die "mktemp failed"
mnt=$tmp/mnt
mkdir -p "$mnt" || die "mkdir failed"
cleanup()
{
	local m
	for m in "$tmp"/*; do
		if mountpoint -q "$m" 2>/dev/null; then
			umount "$m" 2>/dev/null || umount -l "$m"
		fi
	done
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $tmp" >&2
	else
		rm -rf --one-file-system "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM

usage()
{
	"$ORACLE" -b "$1" | awk '$1 == "TOTAL" { print $3 }'
}

# text_files DIR N: N small text files (docs, headers) copied into DIR.
text_files()
{
	local n=0 f
	mkdir -p "$1" || die "mkdir failed"
	while IFS= read -r -d '' f; do
		cp -- "$f" "$1/t$n" 2>/dev/null || continue
		n=$((n + 1))
		[ $n -lt "$2" ] || break
	done < <(find /usr/share/doc /usr/include -type f -size -200k \
		-print0 2>/dev/null | sort -z)
}
