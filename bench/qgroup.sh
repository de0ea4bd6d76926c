#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue #56: compsize's exclusive space against the kernel's ways to get
# it, on a filesystem of many small files and 5 read-only snapshots; and
# (issue #60) the usage report of its subvolume sv against compsize 1.5's.
#
#   subvolumes: btrfs quota enable; btrfs quota rescan -w; btrfs quota
#               disable   against   compsize --subvolumes --format=json
#   snapshot:   btrfs filesystem du -s SNAPSHOT   against
#               compsize --exclusive SNAPSHOT
#   scan:       compsize 1.5 sv   against   compsize sv (the reports must
#               be equal), and the image's random-read rate of 16 KiB
#               blocks within its metadata chunks (bench/randread.c,
#               O_DIRECT, 1, 4 and 8 reads at a time): what a cold scan
#               could reach
#
# Each pair alternates which goes first, cold (sync; drop_caches before
# each run: the loop image's pages too) and warm, in the same run.  Prints
# a markdown report (medians, ratio = the kernel's way / ours, peak RSS
# from /usr/bin/time -v: for btrfs, the tool's, the work is the kernel's)
# and checks once that ours and the kernel's qgroups agree.
#
# Usage: bench/qgroup.sh [MOUNTPOINT] > result.md   (root)
#   MOUNTPOINT  a btrfs filesystem already built (its top level); the
#               snapshot timed is SNAP (default: its oldest read-only
#               snapshot).  Without it the image is built (or reused) in
#               BENCH_DIR.
# Environment:
#   N=1000000   small files (100..2000 bytes: inline), 1000 a directory;
#               between snapshots N/1000 appended to, N/1000 deleted and
#               N/1000 new (3000 changes at a million)
#   RUNS=3      timed pairs per case and mode
#   COMPSIZE    the compsize timed (default ./compsize of this tree)
#   QGROUP_PROTO  the issue's prototype, timed instead of compsize
#               --subvolumes while compsize does not have it
#   BENCH_DIR   cache of the images, one per N (default
#               /var/tmp/compsize-qgroup-bench; delete it to rebuild)
#   SECTIONS="subvolumes snapshot"   (scan: only when asked)
#   RESCAN=-w   -W: after quota enable, wait for the rescan it started
#               (one rescan every time) instead of rescan -w, which waits
#               for it or, where it has already ended, runs another
#
# On the project's 2-core VM, building the image at N=1000000 takes about
# 90 s (a 16 GiB sparse file, about 4.5 GiB used: metadata is DUP).

set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
. "$here/common.sh"
COMPSIZE=$(realpath "${COMPSIZE:-$root/compsize}")
N=${N:-1000000}
RUNS=${RUNS:-3}
BENCH_DIR=${BENCH_DIR:-/var/tmp/compsize-qgroup-bench}
SECTIONS=${SECTIONS:-subvolumes snapshot}
QGROUP_PROTO=${QGROUP_PROTO:-}
RESCAN=${RESCAN:--w}
# Bump when the layout changes: an image without this stamp is rebuilt.
LAYOUT=1

die() { echo "bench/qgroup: FATAL: $*" >&2; exit 2; }
note() { echo "bench/qgroup: $*" >&2; }

[ "$(id -u)" = 0 ] || die "needs root (loop mount, quotas, drop_caches)"
[ -x "$COMPSIZE" ] || die "$COMPSIZE: not executable (run make first)"
[ -x /usr/bin/time ] || die "/usr/bin/time missing (Debian package time)"
[ -z "$QGROUP_PROTO" ] || [ -x "$QGROUP_PROTO" ] || die "$QGROUP_PROTO: not executable"

WORK=$(mktemp -d /tmp/compsize-qgroup-bench.XXXXXX)
MNT=
OWN_MNT=0
cleanup()
{
	local rc=$?
	cd /
	[ -z "$MNT" ] || btrfs quota disable "$MNT" 2>/dev/null || true
	[ "$OWN_MNT" = 0 ] || ! mountpoint -q "$MNT" || umount "$MNT"
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- the tree

build()
{
	local img=$1 nd k j gen=$BENCH_DIR/bin/qgroup-gen c
	nd=$(((N + 999) / 1000))
	c=$(((N + 999) / 1000))
	mkdir -p "$BENCH_DIR/bin"
	cc -O2 -o "$gen" "$here/qgroup-gen.c" || die "cannot build qgroup-gen"
	note "building $img: $N files, 5 snapshots (one time)"
	rm -f "$img"
	truncate -s $((2 + N * 16 / 1000000))G "$img"
	mkfs.btrfs -q -f "$img" >/dev/null
	mkdir -p "$MNT"
	mount -o loop "$img" "$MNT"
	OWN_MNT=1
	btrfs -q subvolume create "$MNT/sv"
	"$gen" "$MNT/sv" "$nd" $((N / nd)) 1
	sync
	for k in 1 2 3 4 5; do
		btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/s$k"
		for ((j = 0; j < c; j++)); do
			echo "edit $k" >>"$MNT/sv/d$(((k * 97 + j) % nd))/f$(((j * 13 + k) % (N / nd)))"
		done
		for ((j = 0; j < c; j++)); do
			rm -f "$MNT/sv/d$(((k * 131 + j * 7) % nd))/f$(((j * 31 + k * 5) % (N / nd)))"
		done
		"$gen" "$MNT/sv/new$k" 1 "$c" $((k + 10))
		sync
	done
	echo "$LAYOUT $N" >"$MNT/.layout"
	sync
}

if [ $# -ge 1 ]; then
	MNT=$(realpath "$1")
	[ "$(stat -f -c %T "$MNT")" = btrfs ] || die "$MNT: not btrfs"
else
	MNT=$BENCH_DIR/mnt-$N
	img=$BENCH_DIR/img-$N
	mkdir -p "$BENCH_DIR"
	exec 9>"$BENCH_DIR/lock"
	flock -n 9 || die "another bench/qgroup.sh is using $BENCH_DIR"
	if [ -f "$img" ]; then
		mkdir -p "$MNT"
		mountpoint -q "$MNT" || mount -o loop "$img" "$MNT"
		OWN_MNT=1
		[ "$(cat "$MNT/.layout" 2>/dev/null)" = "$LAYOUT $N" ] || {
			umount "$MNT"
			build "$img"
		}
	else
		build "$img"
	fi
fi
btrfs quota disable "$MNT" 2>/dev/null || true
SNAP=${SNAP:-$MNT/$(btrfs subvolume list -r -o --sort=rootid "$MNT" 2>/dev/null |
	awk 'NR == 1 { print $NF }')}
[ -d "$SNAP" ] || SNAP=$MNT/s1
[ -d "$SNAP" ] || die "no read-only snapshot found in $MNT (set SNAP)"

# ---------------------------------------------------------------- timing

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
FAILED=0

# The commands timed, by name: run directly (no shell between) where
# their peak RSS is the program's own.
CMD_quota=(bash -c 'btrfs quota enable "$1" && btrfs quota rescan "$2" "$1" >/dev/null &&
	btrfs quota disable "$1"' quota-cycle "$MNT" "$RESCAN")
if [ -n "$QGROUP_PROTO" ]; then
	CMD_ours_subvols=("$QGROUP_PROTO" "$MNT")
else
	CMD_ours_subvols=("$COMPSIZE" --subvolumes --format=json "$MNT")
fi
CMD_fs_du=(btrfs filesystem du -s "$SNAP")
CMD_v15_scan=(/usr/sbin/compsize "$MNT/sv")
CMD_ours_scan=("$COMPSIZE" "$MNT/sv")
CMD_ours_excl=("$COMPSIZE" --exclusive "$SNAP")

# run_one NAME MODE: time CMD_NAME (cold: caches dropped first);
# appends its seconds and peak RSS (KiB) to $WORK/NAME.MODE.{t,rss}
run_one()
{
	local name=$1 mode=$2 t0 t1 rc=0
	local -n cmd=CMD_$name
	[ "$mode" = warm ] || drop_caches
	t0=$(now_us)
	/usr/bin/time -v -o "$WORK/time" "${cmd[@]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
	t1=$(now_us)
	[ "$rc" = 0 ] || { note "$name exited $rc"; sed 's/^/    /' "$WORK/err" >&2; FAILED=1; }
	echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) / 1e6 }' >>"$WORK/$name.$mode.t"
	awk -F': ' '/Maximum resident set size/ { print $2 }' "$WORK/time" >>"$WORK/$name.$mode.rss"
	note "  $mode $name: $(tail -n 1 "$WORK/$name.$mode.t") s, $(tail -n 1 "$WORK/$name.$mode.rss") KiB"
}

ROWS=()
# bench_pair LABEL KERNEL OURS: RUNS pairs, cold and warm alternated,
# which of the two first alternated too
bench_pair()
{
	local label=$1 k=$2 o=$3 i mode kt ot kr or
	local -n kc=CMD_$k oc=CMD_$o
	note "case $label: ${kc[*]} against ${oc[*]} (load $(loadavg))"
	rm -f "$WORK"/*.t "$WORK"/*.rss
	"${kc[@]}" >/dev/null 2>&1 || true   # warm-up
	"${oc[@]}" >/dev/null 2>&1 || true
	for ((i = 0; i < RUNS; i++)); do
		for mode in cold warm; do
			if ((i % 2)); then
				run_one "$o" $mode
				run_one "$k" $mode
			else
				run_one "$k" $mode
				run_one "$o" $mode
			fi
		done
	done
	for mode in cold warm; do
		kt=$(median <"$WORK/$k.$mode.t")
		ot=$(median <"$WORK/$o.$mode.t")
		kr=$(median <"$WORK/$k.$mode.rss")
		or=$(median <"$WORK/$o.$mode.rss")
		ROWS+=("$(awk -v l="$label" -v m="$mode" -v kt="$kt" -v ot="$ot" \
			-v kr="$kr" -v or="$or" -v kl="$(paste -sd, "$WORK/$k.$mode.t")" \
			-v ol="$(paste -sd, "$WORK/$o.$mode.t")" -v ld="$(loadavg)" 'BEGIN {
			printf "| %s, %s | %.3f (%s) | %.3f (%s) | %.1fx | %d | %d | %s |",
				l, m, kt, kl, ot, ol, (ot > 0 ? kt / ot : 0), kr, or, ld }')")
	done
}

# agree: ours' exclusive and referenced against the kernel's, subvolume
# by subvolume
agree()
{
	"${CMD_ours_subvols[@]}" >"$WORK/ours.out"
	if [ -n "$QGROUP_PROTO" ]; then
		awk 'NR > 1 { print $1, $3, $2 }' "$WORK/ours.out"
	else
		jq -r '.subvolumes[] | "\(.id) \(.total.exclusive) \(.total.qgroup_referenced)"' \
			"$WORK/ours.out"
	fi | sort -n >"$WORK/ours.lines"
	btrfs quota enable "$MNT"
	btrfs quota rescan -w "$MNT" >/dev/null
	btrfs qgroup show --raw "$MNT" |
		awk '$1 ~ /^0\// { split($1, a, "/"); print a[2], $3, $2 }' | sort -n >"$WORK/kernel.lines"
	btrfs quota disable "$MNT"
	if cmp -s "$WORK/ours.lines" "$WORK/kernel.lines"; then
		AGREE="all $(wc -l <"$WORK/kernel.lines") subvolumes equal to the byte"
	else
		AGREE="DIFFERENT: $(diff "$WORK/ours.lines" "$WORK/kernel.lines" | grep '^[<>]' | head -8 | tr '\n' ';')"
		FAILED=1
	fi
}

AGREE="not checked"
case " $SECTIONS " in *" subvolumes "*)
	bench_pair "all subvolumes" quota ours_subvols
	agree ;;
esac
case " $SECTIONS " in *" snapshot "*)
	bench_pair "snapshot ${SNAP#"$MNT"/}" fs_du ours_excl ;;
esac

# rates: the image's random 16 KiB reads within its metadata chunks
RATES="not measured"
rates()
{
	local img span t line
	img=$(findmnt -nro SOURCE --target "$MNT" | xargs -r losetup -nO BACK-FILE 2>/dev/null || true)
	[ -f "$img" ] || { RATES="not measured (not a loop-mounted image)"; return; }
	cc -O2 -o "$BENCH_DIR/bin/randread" "$here/randread.c" -lpthread ||
		die "cannot build randread"
	span=$(btrfs inspect-internal dump-tree -t chunk "$img" 2>/dev/null | awk '
		/type METADATA/ { m = 1; len = $2; next }
		m && /stripe [0-9]+ devid/ { o = $6
			if (min == "" || o < min) min = o
			if (o + len > max) max = o + len }
		/type (DATA|SYSTEM)/ { m = 0 }
		END { printf "%.0f %.0f\n", min, max - min }')
	RATES=""
	for t in 1 4 8; do
		line=$("$BENCH_DIR/bin/randread" "$img" 16384 $((2000 * t)) "$t" $span)
		RATES+="$(echo "$line" | awk '{ printf "%d at a time: %.0f reads/s, %.0f MB/s; ", $1, $4, $5 }')"
	done
}

case " $SECTIONS " in *" scan "*)
	bench_pair "usage report of sv (compsize 1.5 / ours)" v15_scan ours_scan
	"${CMD_v15_scan[@]}" >"$WORK/v15.out" 2>&1 || true
	"${CMD_ours_scan[@]}" >"$WORK/ours.out" 2>&1 || true
	cmp -s "$WORK/v15.out" "$WORK/ours.out" || {
		note "the reports of sv differ"; diff "$WORK/v15.out" "$WORK/ours.out" >&2 || true; FAILED=1; }
	rates ;;
esac

{
	echo "# Exclusive space: the kernel's ways against compsize (issue #56)"
	echo
	echo "$(uname -r), $(btrfs --version | head -n 1), $(nproc) cores; $MNT:" \
		"$(btrfs subvolume list "$MNT" | wc -l) subvolumes, N=$N"
	btrfs filesystem df "$MNT" | sed 's/^/    /'
	echo
	echo "ours: ${QGROUP_PROTO:-$COMPSIZE --subvolumes --format=json} (subvolumes)," \
		"$COMPSIZE --exclusive (snapshot)"
	echo
	echo "| case | kernel's way, s (runs) | ours, s (runs) | ratio | kernel's way peak RSS, KiB | ours peak RSS, KiB | load |"
	echo "|---|---|---|---|---|---|---|"
	printf '%s\n' "${ROWS[@]}"
	echo
	echo "Kernel's way: all subvolumes = btrfs quota enable + rescan $RESCAN + disable" \
		"(enable and disable commit; enable starts a rescan, which rescan -w" \
		"waits for or, where it has ended, runs again; -W only waits); snapshot = btrfs filesystem du -s (data only, FIEMAP" \
		"of every file).  Medians of $RUNS; cold = sync + drop_caches before" \
		"each run.  Ours against the kernel's qgroups: $AGREE."
	echo
	echo "Usage report of sv (section scan): compsize 1.5 in the kernel's way's" \
		"column.  The image's random 16 KiB reads in its metadata chunks" \
		"(O_DIRECT): $RATES"
}
exit "$FAILED"
