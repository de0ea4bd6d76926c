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

# fs IMG MNT OPTION: a fresh filesystem mounted with OPTION.
fs()
{
	umount "$2" 2>/dev/null
	rm -f "$1"
	truncate -s 512M "$1" && mkfs.btrfs -q -f "$1" >/dev/null 2>&1 &&
		mount -o "loop,$3" "$1" "$2"
}

# target SETTING: test.sh's target for SETTING, in %.
target()
{
	case $1 in
	compress-force=zstd* | compress-force=lzo) echo 0.5 ;;
	*) echo 1.0 ;;
	esac
}

# within PREDICTED KERNEL SETTING: whether the prediction is within the
# target of the kernel's figure.
within()
{
	awk -v p="$1" -v k="$2" -v t="$(target "$3")" 'BEGIN {
		e = k ? (p - k) * 100 / k : 0; exit !(e <= t && e >= -t) }'
}

# check WHAT SETTING PREDICTED KERNEL [EXTRAPOLATED]: the prediction
# within the target of test.sh (0.5% for compress-force with zstd or lzo,
# 1% otherwise), or, when EXTRAPOLATED bytes of it are extrapolated
# (disk_extrapolated), the kernel within that many bytes of it.  Counts
# checks and failed; CHECK_W is the width of WHAT.
failed=0
checks=0
CHECK_W=${CHECK_W:-12}
check()
{
	local t x=${5:-0} err
	t=$(target "$2")
	[ "$x" = 0 ] || t=$(awk -v p="$3" -v x="$x" 'BEGIN { printf "%.1f", x * 100 / p }')
	err=$(awk -v p="$3" -v k="$4" 'BEGIN { printf "%+.3f", k ? (p - k) * 100 / k : 0 }')
	checks=$((checks + 1))
	if awk -v e="$err" -v t="$t" 'BEGIN { exit !(e <= t && e >= -t) }'; then
		printf "%-${CHECK_W}s %-24s %10s %10s %8s%% ok (%s%%)\n" \
			"$1" "$2" "$3" "$4" "$err" "$t"
	else
		printf "%-${CHECK_W}s %-24s %10s %10s %8s%% FAIL (target %s%%)\n" \
			"$1" "$2" "$3" "$4" "$err" "$t"
		failed=$((failed + 1))
	fi
}

# bounds WHAT SETTING KERNEL JSON: where part of the same-layout estimate
# is extrapolated (disk_extrapolated), the kernel's figure must lie within
# [disk_min, disk_max], or one sector above: the kernel's replay sometimes
# writes the first page of an append that starts inside a page as an
# extent of its own (its dirty range cut before the rest was dirtied, a
# writeback cut no estimate can know, docs/estimate.md), which costs a
# sector (overwrite.sh's sv2/hex under compress-force=lzo: 97..1 then
# 98..32 in filefrag -v, 434176 bytes instead of 430080, in 1-2 of 16
# replays of the same files; a61d147 failed 2 of 20 runs there).  Prints
# the point estimate's error and the bounds' width (in % of the kernel's
# figure) below and above it.
BOUNDS_CUT=4096
bounds()
{
	local v d lo hi
	v=$(jq -r --arg s "$2" '.estimates[] | select(.setting == $s) |
		"\(.disk) \(.disk_min) \(.disk_max)"' "$4")
	read -r d lo hi <<<"$v"
	checks=$((checks + 1))
	if [ "$lo" = null ] || [ "$hi" = null ] || [ "$3" -lt "$lo" ] ||
	   [ "$3" -gt $((hi + BOUNDS_CUT)) ]; then
		printf "%-${CHECK_W}s %-24s %10s %10s FAIL: not in [%s, %s]\n" \
			"$1" "$2" "$d" "$3" "$lo" "$hi"
		failed=$((failed + 1))
		return
	fi
	awk -v w="$CHECK_W" -v what="$1" -v set="$2" -v d="$d" -v k="$3" \
		-v lo="$lo" -v hi="$hi" 'BEGIN {
		printf "%-" w "s %-24s %10s %10s %+8.3f%% in [%+.1f%%, %+.1f%%]\n",
			what, set, d, k, (d - k) * 100 / k, (lo - k) * 100 / k,
			(hi - k) * 100 / k }'
}
